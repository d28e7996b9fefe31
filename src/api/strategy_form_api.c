/*
 * strategy_form_api.c -- the one place that dispatches over the forms a
 * strategy is kept in (dpm.strategies, one of three columns): a dense matrix
 * (matrix), a strategy kept by HDMM's parameters (kronecker,
 * strategy/hdmm/), or a ResidualPlanner plan (residual, strategy/residual/).
 *
 * Each concern of a release is one SQL function here, taking the three
 * columns (exactly one not NULL) and what the concern needs; it hands the
 * call on to the form's own entry point (api/pure_api.c, api/hdmm_api.c,
 * api/residual_release_api.c, api/release_checks.c) with that form's
 * arguments, in the caller's call frame, so that a composite or
 * set-returning result is built as if the form's function had been called.
 * The SQL of a release (sql/21_release.sql, 22_estimates.sql,
 * 23_explain.sql) never asks which form a strategy has.  A new form adds a
 * column and a case to each concern here.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "fmgr.h"
#include "utils/builtins.h"

#include "api/workload_api.h"
#include "convert/array.h"
#include "workload/workload.h"

/* the forms' own entry points */
extern PGDLLEXPORT Datum dpm_dense_measure(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum dpm_dense_infer(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum dpm_hdmm_measure(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum dpm_hdmm_infer(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum dpm_hdmm_matrix(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum dpm_residual_measure(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum dpm_residual_infer(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum dpm_residual_table_sets(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum dpm_residual_parts_matrix(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum dpm_check_noise(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum dpm_dense_group_factor(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum dpm_hdmm_group_factor(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum dpm_residual_group_factor(PG_FUNCTION_ARGS);

typedef enum StrategyForm
{
	FORM_DENSE,
	FORM_KRONECKER,
	FORM_RESIDUAL
} StrategyForm;

/* a strategy's form columns, arguments 0 (matrix), 1 (kronecker) and 2 (residual), and noise (3) */
typedef struct StoredStrategy
{
	StrategyForm form;
	Datum		matrix;
	Datum		kind,			/* kronecker: dpm.kronecker_strategy's fields */
				p,
				theta,
				weights;
	bool		no_weights;
	Datum		sets,			/* residual: the plan's attribute sets and their values */
				plan;
	bool		laplace;		/* the noise it was planned for */
} StoredStrategy;

#define FORM_ARGS 4

static Datum
field(HeapTupleHeader row, int attno, bool *isnull)
{
	return GetAttributeByNum(row, attno, isnull);
}

static void
stored_strategy(FunctionCallInfo fcinfo, StoredStrategy *s)
{
	bool		isnull;

	memset(s, 0, sizeof(*s));
	if (PG_NARGS() < FORM_ARGS || PG_ARGISNULL(3) ||
		(!PG_ARGISNULL(0)) + (!PG_ARGISNULL(1)) + (!PG_ARGISNULL(2)) != 1)
		elog(ERROR, "a stored strategy has exactly one form and a noise");
	s->laplace = strcmp(text_to_cstring(PG_GETARG_TEXT_PP(3)), "laplace") == 0;
	if (!PG_ARGISNULL(0))
	{
		s->form = FORM_DENSE;
		s->matrix = PG_GETARG_DATUM(0);
	}
	else if (!PG_ARGISNULL(1))
	{
		HeapTupleHeader row = PG_GETARG_HEAPTUPLEHEADER(1);

		s->form = FORM_KRONECKER;
		s->kind = field(row, 1, &isnull);
		s->p = field(row, 2, &isnull);
		s->theta = field(row, 3, &isnull);
		s->weights = field(row, 4, &s->no_weights);
	}
	else
	{
		HeapTupleHeader row = PG_GETARG_HEAPTUPLEHEADER(2);

		s->form = FORM_RESIDUAL;
		s->sets = field(row, 1, &isnull);
		s->plan = field(row, s->laplace ? 3 : 2, &isnull);
		if (isnull)
			elog(ERROR, "a residual plan for %s noise keeps no %s", s->laplace ? "Laplace" : "Gaussian",
				 s->laplace ? "table_weights" : "variances");
	}
}

/*
 * Call target with these arguments in the caller's frame (its flinfo, for
 * the result type, and its resultinfo, for a set), and return its result.
 */
static Datum
forward(FunctionCallInfo outer, PGFunction target, int nargs, const Datum *values, const bool *nulls)
{
	LOCAL_FCINFO(inner, FUNC_MAX_ARGS);
	Datum		result;

	Assert(nargs <= FUNC_MAX_ARGS);
	InitFunctionCallInfoData(*inner, outer->flinfo, nargs, outer->fncollation, outer->context, outer->resultinfo);
	for (int i = 0; i < nargs; i++)
	{
		inner->args[i].value = values[i];
		inner->args[i].isnull = nulls[i];
	}
	result = target(inner);
	outer->isnull = inner->isnull;
	return result;
}

/* the argument i of the caller, copied to v[k] */
#define PASS(k, i) (v[k] = PG_GETARG_DATUM(i), n[k] = PG_ARGISNULL(i))
#define SET(k, d) (v[k] = (d), n[k] = false)
#define SET_NULL(k) (v[k] = (Datum) 0, n[k] = true)
/* kronecker's four fields at v[k .. k + 3] */
#define KRONECKER(k, s) (SET(k, (s).kind), SET(k + 1, (s).p), SET(k + 2, (s).theta), \
						 v[k + 3] = (s).weights, n[k + 3] = (s).no_weights)

/*
 * The attribute sets of the marginal tables a release through residual plan
 * s reads, from the caller's spec and dom (arguments spec_arg and the next):
 * the workload's, and a Laplace plan's own; checked against dpm.max_cells.
 */
static Datum
residual_tables(FunctionCallInfo fcinfo, const StoredStrategy *s, int spec_arg)
{
	Datum		v[3];
	bool		n[3];

	PASS(0, spec_arg);
	PASS(1, spec_arg + 1);
	if (s->laplace)
		SET(2, s->sets);
	else
		SET_NULL(2);
	return forward(fcinfo, dpm_residual_table_sets, 3, v, n);
}

/*
 * dpm_internal.strategy_tables(matrix, kronecker, residual, noise, spec, dom):
 * the attribute sets of the marginal tables a release through this strategy
 * reads, checked against dpm.max_cells (a residual plan's: the workload's,
 * and a Laplace plan's own); NULL when it reads the frequency vector.
 */
PG_FUNCTION_INFO_V1(dpm_strategy_tables);
Datum
dpm_strategy_tables(PG_FUNCTION_ARGS)
{
	StoredStrategy s;

	stored_strategy(fcinfo, &s);
	if (s.form != FORM_RESIDUAL)
		PG_RETURN_NULL();
	return residual_tables(fcinfo, &s, FORM_ARGS);
}

/*
 * dpm_internal.strategy_check(matrix, kronecker, residual, noise, rows, l1,
 * l2, spec, dom, epsilon, delta, scale, rho, confidence, release_noise): the
 * sampler's own checks for one part of a release (scale records per unit,
 * these parameters, release_noise its noise), by the code the release runs,
 * drawing nothing: what it would refuse after the charge is refused before.
 */
PG_FUNCTION_INFO_V1(dpm_strategy_check);
Datum
dpm_strategy_check(PG_FUNCTION_ARGS)
{
	StoredStrategy s;
	Datum		v[11];
	bool		n[11];
	double		scale = PG_GETARG_FLOAT8(FORM_ARGS + 7);

	stored_strategy(fcinfo, &s);
	if (s.form != FORM_RESIDUAL)
	{
		/* rows, scaled sensitivities, epsilon, delta, rho */
		PASS(0, FORM_ARGS);
		SET(1, Float8GetDatum(scale * PG_GETARG_FLOAT8(FORM_ARGS + 1)));
		SET(2, Float8GetDatum(scale * PG_GETARG_FLOAT8(FORM_ARGS + 2)));
		PASS(3, FORM_ARGS + 5);
		PASS(4, FORM_ARGS + 6);
		PASS(5, FORM_ARGS + 8);
		return forward(fcinfo, dpm_check_noise, 6, v, n);
	}

	/*
	 * Gaussian noise: one exact Gaussian mechanism per residual, parts of
	 * one (strategy/residual/measure.c); Laplace: weighted marginal tables
	 * (strategy/residual/laplace.c).  The plan is for one of them.
	 */
	{
		bool		adds_laplace = strcmp(text_to_cstring(PG_GETARG_TEXT_PP(FORM_ARGS + 10)), "laplace") == 0;

		if (adds_laplace != s.laplace)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("this residual strategy was planned for %s noise, and this release adds %s noise",
							s.laplace ? "laplace" : "gaussian", adds_laplace ? "laplace" : "gaussian"),
					 errhint(adds_laplace ? "Use method => 'residual' with epsilon alone, which plans for Laplace noise."
							 : "Use method => 'residual' with rho or delta > 0, which plans for Gaussian noise.")));
	}
	/* the tables it will read fit dpm.max_cells (a Laplace plan may add tables of its own) */
	(void) residual_tables(fcinfo, &s, FORM_ARGS + 3);
	/* spec, dom, sets, plan, cost2, no tables, epsilon, delta, scale, rho, confidence */
	PASS(0, FORM_ARGS + 3);
	PASS(1, FORM_ARGS + 4);
	SET(2, s.sets);
	SET(3, s.plan);
	SET(4, Float8GetDatum(PG_GETARG_FLOAT8(FORM_ARGS + 2) * PG_GETARG_FLOAT8(FORM_ARGS + 2)));
	SET_NULL(5);
	for (int k = 6; k <= 10; k++)
		PASS(k, FORM_ARGS + k - 1);
	(void) forward(fcinfo, dpm_residual_measure, 11, v, n);
	fcinfo->isnull = false;
	PG_RETURN_VOID();
}

/*
 * dpm_internal.strategy_measure(matrix, kronecker, residual, noise, l2, spec,
 * dom, x, epsilon, delta, scale, rho, confidence): a release's noisy
 * measurements of x (the frequency vector, or the tables strategy_tables
 * names) through this strategy, for scale records per privacy unit.
 */
PG_FUNCTION_INFO_V1(dpm_strategy_measure);
Datum
dpm_strategy_measure(PG_FUNCTION_ARGS)
{
	StoredStrategy s;
	Datum		v[11];
	bool		n[11];

	stored_strategy(fcinfo, &s);
	switch (s.form)
	{
		case FORM_DENSE:
			/* a, x, epsilon, delta, scale, rho */
			SET(0, s.matrix);
			for (int k = 1; k <= 5; k++)
				PASS(k, FORM_ARGS + 2 + k);
			return forward(fcinfo, dpm_dense_measure, 6, v, n);
		case FORM_KRONECKER:
			/* spec, dom, kind, p, theta, weights, x, epsilon, delta, scale, rho */
			PASS(0, FORM_ARGS + 1);
			PASS(1, FORM_ARGS + 2);
			KRONECKER(2, s);
			for (int k = 6; k <= 10; k++)
				PASS(k, FORM_ARGS + k - 3);
			return forward(fcinfo, dpm_hdmm_measure, 11, v, n);
		case FORM_RESIDUAL:
			/* spec, dom, sets, plan, cost2, tables, epsilon, delta, scale, rho, confidence */
			PASS(0, FORM_ARGS + 1);
			PASS(1, FORM_ARGS + 2);
			SET(2, s.sets);
			SET(3, s.plan);
			SET(4, Float8GetDatum(PG_GETARG_FLOAT8(FORM_ARGS) * PG_GETARG_FLOAT8(FORM_ARGS)));
			for (int k = 5; k <= 10; k++)
				PASS(k, FORM_ARGS + k - 2);
			return forward(fcinfo, dpm_residual_measure, 11, v, n);
	}
	pg_unreachable();
}

/* dom (a dpm.domains row) as the workload code reads it, by the API's own reader of it */
static void
domain_of(Datum dom, WorkloadDomain *d)
{
	LOCAL_FCINFO(args, 2);

	InitFunctionCallInfoData(*args, NULL, 2, InvalidOid, NULL, NULL);
	args->args[1].value = dom;
	args->args[1].isnull = false;
	api_domain_arg_wide(args, d);
}

/* W over the dense cells of dom, from its spec (a workload kept without its matrix) */
static Datum
workload_matrix(Datum spec, Datum dom)
{
	WorkloadDomain d;
	Workload   *w;

	domain_of(dom, &d);
	w = workload_build(&d, workload_parse(&d, TextDatumGetCString(spec)), true, false);
	return PointerGetDatum(array_from_mat(w->matrix));
}

/*
 * dpm_internal.strategy_infer(matrix, kronecker, residual, noise, w, pinv,
 * profile, spec, dom, measurements, inference, confidence): the workload's
 * answers from a release's measurements (post-processing); w, pinv and
 * profile are a dense strategy's (w NULL: built from the spec).
 */
PG_FUNCTION_INFO_V1(dpm_strategy_infer);
Datum
dpm_strategy_infer(PG_FUNCTION_ARGS)
{
	StoredStrategy s;
	Datum		v[9];
	bool		n[9];

	stored_strategy(fcinfo, &s);
	switch (s.form)
	{
		case FORM_DENSE:
			/* w, a, pinv, profile, measurements, inference, confidence */
			if (PG_ARGISNULL(FORM_ARGS))
				SET(0, workload_matrix(PG_GETARG_DATUM(FORM_ARGS + 3), PG_GETARG_DATUM(FORM_ARGS + 4)));
			else
				PASS(0, FORM_ARGS);
			SET(1, s.matrix);
			PASS(2, FORM_ARGS + 1);
			PASS(3, FORM_ARGS + 2);
			for (int k = 4; k <= 6; k++)
				PASS(k, FORM_ARGS + k + 1);
			return forward(fcinfo, dpm_dense_infer, 7, v, n);
		case FORM_KRONECKER:
			/* spec, dom, kind, p, theta, weights, measurements, inference, confidence */
			PASS(0, FORM_ARGS + 3);
			PASS(1, FORM_ARGS + 4);
			KRONECKER(2, s);
			for (int k = 6; k <= 8; k++)
				PASS(k, FORM_ARGS + k - 1);
			return forward(fcinfo, dpm_hdmm_infer, 9, v, n);
		case FORM_RESIDUAL:
			/* spec, dom, sets, plan, measurements, inference, confidence */
			PASS(0, FORM_ARGS + 3);
			PASS(1, FORM_ARGS + 4);
			SET(2, s.sets);
			SET(3, s.plan);
			for (int k = 4; k <= 6; k++)
				PASS(k, FORM_ARGS + k + 1);
			return forward(fcinfo, dpm_residual_infer, 7, v, n);
	}
	pg_unreachable();
}

/*
 * dpm_internal.strategy_matrix(matrix, kronecker, residual, noise, spec, dom):
 * what a release through this strategy measured, one row a value of its
 * measurements, over dom's dense cells (for the estimates that combine
 * releases: sql/22_estimates.sql); NULL over a domain without them.
 */
PG_FUNCTION_INFO_V1(dpm_strategy_matrix);
Datum
dpm_strategy_matrix(PG_FUNCTION_ARGS)
{
	StoredStrategy s;
	Datum		v[5];
	bool		n[5];
	HeapTupleHeader dom;
	bool		isnull;

	stored_strategy(fcinfo, &s);
	if (s.form == FORM_DENSE)
		PG_RETURN_DATUM(s.matrix);
	if (PG_ARGISNULL(FORM_ARGS + 1))
		PG_RETURN_NULL();
	dom = PG_GETARG_HEAPTUPLEHEADER(FORM_ARGS + 1);
	(void) GetAttributeByName(dom, "n", &isnull);
	if (isnull)
		PG_RETURN_NULL();
	if (s.form == FORM_KRONECKER)
	{
		/* sizes, kind, p, theta, weights */
		SET(0, GetAttributeByName(dom, "attr_sizes", &isnull));
		KRONECKER(1, s);
		return forward(fcinfo, dpm_hdmm_matrix, 5, v, n);
	}
	/* spec, dom, sets, plan, laplace */
	PASS(0, FORM_ARGS);
	PASS(1, FORM_ARGS + 1);
	SET(2, s.sets);
	SET(3, s.plan);
	SET(4, BoolGetDatum(s.laplace));
	return forward(fcinfo, dpm_residual_parts_matrix, 5, v, n);
}

/* the sizes of dom's attributes, an int4[] */
static Datum
domain_sizes(Datum dom)
{
	WorkloadDomain d;
	Datum	   *sizes;

	domain_of(dom, &d);
	sizes = palloc(sizeof(Datum) * Max(d.nattrs, 1));
	for (int a = 0; a < d.nattrs; a++)
		sizes[a] = Int32GetDatum(d.attrs[a].size);
	return PointerGetDatum(construct_array(sizes, d.nattrs, INT4OID, sizeof(int32), true, TYPALIGN_INT));
}

/*
 * dpm_internal.strategy_group_factor(matrix, kronecker, residual, noise,
 * spec, dom, groups, release_noise): the factor of mechanism/groups.h for a
 * privacy unit in at most groups cells, in the norm release_noise is
 * calibrated for (L1 for Laplace noise, L2 otherwise).
 */
PG_FUNCTION_INFO_V1(dpm_strategy_group_factor);
Datum
dpm_strategy_group_factor(PG_FUNCTION_ARGS)
{
	StoredStrategy s;
	Datum		v[8];
	bool		n[8];
	int			norm;

	stored_strategy(fcinfo, &s);
	if (PG_ARGISNULL(FORM_ARGS + 2) || PG_GETARG_INT32(FORM_ARGS + 2) < 1 || PG_ARGISNULL(FORM_ARGS + 3))
		elog(ERROR, "strategy_group_factor: groups must be at least 1, and the noise given");
	norm = strcmp(text_to_cstring(PG_GETARG_TEXT_PP(FORM_ARGS + 3)), "laplace") == 0 ? 1 : 2;
	switch (s.form)
	{
		case FORM_DENSE:
			/* a, groups, norm */
			SET(0, s.matrix);
			PASS(1, FORM_ARGS + 2);
			SET(2, Int32GetDatum(norm));
			return forward(fcinfo, dpm_dense_group_factor, 3, v, n);
		case FORM_KRONECKER:
			/* sizes, kind, p, theta, weights, groups, norm */
			SET(0, domain_sizes(PG_GETARG_DATUM(FORM_ARGS + 1)));
			KRONECKER(1, s);
			PASS(5, FORM_ARGS + 2);
			SET(6, Int32GetDatum(norm));
			return forward(fcinfo, dpm_hdmm_group_factor, 7, v, n);
		case FORM_RESIDUAL:
			/* a Laplace plan's tables: every column's L1 norm is the sum of the weights */
			if (s.laplace || norm == 1)
				PG_RETURN_FLOAT8((double) PG_GETARG_INT32(FORM_ARGS + 2));
			/* spec, dom, sets, variances, groups */
			PASS(0, FORM_ARGS);
			PASS(1, FORM_ARGS + 1);
			SET(2, s.sets);
			SET(3, s.plan);
			PASS(4, FORM_ARGS + 2);
			return forward(fcinfo, dpm_residual_group_factor, 5, v, n);
	}
	pg_unreachable();
}
