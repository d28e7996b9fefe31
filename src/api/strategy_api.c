/*
 * strategy_api.c -- dpm.strategy(w, method, options), dpm_internal.strategy_report
 * (the same with the optimizer's report, for dpm.optimize) and
 * dpm.svd_bound(w, epsilon, delta).
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "api/args.h"
#include "api/fitness_api.h"
#include "api/options.h"
#include "mechanism/calibrate.h"
#include "mechanism/exact.h"
#include "strategy/strategy.h"

/*
 * Entries of a computed strategy below 1e-100 in magnitude become zeros.
 * Matrices entering dpmatrix may not hold such values (array.c), and a
 * strategy enters again as soon as it is stored (dpm.optimize computes its
 * sensitivity and cache from the array); entries that small are rounding
 * residue far below anything that moves an answer or an error.
 */
static Mat *
flush_tiny(Mat *a)
{
	for (size_t i = 0; i < (size_t) a->rows * a->cols; i++)
		if (fabs(a->data[i]) < 1e-100)
			a->data[i] = 0.0;
	return a;
}

/*
 * dpm_internal.check_method_options(method, options, is_spec): method's
 * options checked as its builder will read them, building nothing (a
 * release request's, before its reuse path: sql/20_release_args.sql).
 */
PG_FUNCTION_INFO_V1(dpm_check_method_options);
Datum
dpm_check_method_options(PG_FUNCTION_ARGS)
{
	char	   *method = text_to_cstring(PG_GETARG_TEXT_PP(0));
	const StrategyMethod *m = strategy_method(method);
	StrategyOptions opts;

	if (m == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown strategy method \"%s\"", method),
				 errhint("Valid methods: %s.", strategy_method_names())));
	api_method_options(m, PG_GETARG_JSONB_P(1), PG_GETARG_BOOL(2), &opts);
	if (strcmp(m->name, "fitness") == 0)
	{
		int			count;

		(void) api_fitness_targets(PG_GETARG_JSONB_P(1), &count);
	}
	PG_RETURN_VOID();
}

static Mat *
strategy_from_args(FunctionCallInfo fcinfo, OptReport *rep)
{
	Mat		   *w = array_to_mat(PG_GETARG_ARRAYTYPE_P(0), "w");
	char	   *method = text_to_cstring(PG_GETARG_TEXT_PP(1));
	Jsonb	   *options = PG_GETARG_JSONB_P(2);
	const StrategyMethod *m = strategy_method(method);
	StrategyOptions opts;
	Mat		   *a;

	if (m == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown strategy method \"%s\"", method),
				 errhint("Valid methods: %s.", strategy_method_names())));
	if (m->build == NULL)
	{
		FitnessRun	run;

		a = api_fitness_from_options(w, options, &run);
		/* stored as it will be measured, as strategy_build stores the others */
		exact_quantize(a->data, (size_t) a->rows * a->cols);
		rep->iterations = run.rep.iterations;
		rep->objective = run.rep.cost2;
		rep->lower_bound = NAN;
		return flush_tiny(a);
	}
	api_method_options(m, options, false, &opts);
	strategy_check_memory(m, w->rows, w->cols);
	a = strategy_build(w, m, &opts, rep);
	return flush_tiny(a);
}

PG_FUNCTION_INFO_V1(dpm_strategy);
Datum
dpm_strategy(PG_FUNCTION_ARGS)
{
	OptReport	rep;

	PG_RETURN_ARRAYTYPE_P(array_from_mat(strategy_from_args(fcinfo, &rep)));
}

/* (matrix, iterations, objective, lower_bound) */
PG_FUNCTION_INFO_V1(dpm_strategy_report);
Datum
dpm_strategy_report(PG_FUNCTION_ARGS)
{
	OptReport	rep;
	Mat		   *a = strategy_from_args(fcinfo, &rep);
	TupleDesc	tupdesc;
	Datum		values[4];
	bool		nulls[4] = {false, false, isnan(rep.objective), isnan(rep.lower_bound)};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = PointerGetDatum(array_from_mat(a));
	values[1] = Int32GetDatum(rep.iterations);
	values[2] = Float8GetDatum(rep.objective);
	values[3] = Float8GetDatum(rep.lower_bound);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}

/*
 * The SVD bound times the noise constant: with epsilon NULL the bound itself
 * ((sum of singular values)^2 / n); with delta > 0 times sigma(epsilon,
 * delta)^2 of the analytic Gaussian mechanism at sensitivity 1; with
 * delta = 0 times the Laplace variance 2 / epsilon^2 (valid, since
 * Delta_1 >= Delta_2, but loose).
 */
PG_FUNCTION_INFO_V1(dpm_svd_bound);
Datum
dpm_svd_bound(PG_FUNCTION_ARGS)
{
	Mat		   *w;
	Mat		   *g;
	int			nonzero;
	double		bound;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("w must not be NULL")));
	w = array_to_mat(PG_GETARG_ARRAYTYPE_P(0), "w");
	g = mat_gram(w);
	bound = strategy_svd_bound(g, &nonzero);
	if (!PG_ARGISNULL(1))
	{
		double		epsilon = PG_GETARG_FLOAT8(1);
		double		delta = PG_ARGISNULL(2) ? 0.0 : PG_GETARG_FLOAT8(2);	/* not given: 0 */

		api_check_epsilon_delta(epsilon, delta);
		bound *= delta > 0 ? pow(calibrate_gaussian_sigma(epsilon, delta, 1.0), 2) : calibrate_laplace_variance(1.0, epsilon);
	}
	PG_RETURN_FLOAT8(bound);
}

/* dpm.gram_root(g): R with R^T R = g, for a symmetric positive semidefinite g */
PG_FUNCTION_INFO_V1(dpm_gram_root);
Datum
dpm_gram_root(PG_FUNCTION_ARGS)
{
	Mat		   *g = array_to_mat(PG_GETARG_ARRAYTYPE_P(0), "g");
	double		scale = 0.0;
	Mat		   *r;

	if (g->rows != g->cols)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("g must be square, not %d x %d", g->rows, g->cols)));
	for (size_t i = 0; i < (size_t) g->rows * g->cols; i++)
		scale = fmax(scale, fabs(g->data[i]));
	for (int j = 0; j < g->cols; j++)
		for (int i = 0; i < j; i++)
			if (fabs(MAT(g, i, j) - MAT(g, j, i)) > 1e-12 * scale)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("g must be symmetric: entries (%d,%d) and (%d,%d) differ", i + 1, j + 1, j + 1, i + 1)));
	r = gram_root(g);
	/* a negative eigenvalue beyond rounding means g is no Gram matrix */
	{
		Mat		   *back = mat_gram(r);

		for (size_t i = 0; i < (size_t) g->rows * g->cols; i++)
			if (fabs(back->data[i] - g->data[i]) > 1e-9 * Max(scale, 1e-300))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("g must be positive semidefinite")));
	}
	PG_RETURN_ARRAYTYPE_P(array_from_mat(r));
}

/* dpm_internal.strategy_memory_mb(method, m, n): the estimate dpm.max_memory_mb is checked against */
PG_FUNCTION_INFO_V1(dpm_strategy_memory_mb);
Datum
dpm_strategy_memory_mb(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(strategy_memory_mb(strategy_method(text_to_cstring(PG_GETARG_TEXT_PP(0))),
										PG_GETARG_INT32(1), PG_GETARG_INT32(2)));
}

