/*
 * strategy_build_api.c -- dpm_internal.build_strategy(wl, dom, method, noise,
 * options, known_bound): a strategy for a workload, built the way the
 * registry (strategy/methods.c) says the method builds over it, in the
 * form it will be kept in (dpm.strategies: matrix, kronecker or residual),
 * with what dpm.strategies records of it.  sql/19_optimize.sql stores,
 * caches and chooses; it never asks how a method builds.
 *
 * Each way of building calls the entry points that build and measure that
 * form (api/residual_release_api.c, api/hdmm_api.c, api/strategy_api.c,
 * api/pure_api.c), through the fmgr by their SQL signatures, so that each
 * reads its arguments and builds its result as it does when SQL calls it.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "fmgr.h"
#include "funcapi.h"
#include "portability/instr_time.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/regproc.h"
#include "utils/typcache.h"

#include "strategy/strategy.h"

#define MAX_CALL_ARGS 6

/* the function of this signature (schema-qualified), called with these arguments */
static Datum
call_sql(const char *signature, int nargs, const Datum *values, const bool *nulls, bool *isnull)
{
	Oid			fn = DatumGetObjectId(DirectFunctionCall1(regprocedurein, CStringGetDatum(signature)));
	FmgrInfo	flinfo;
	LOCAL_FCINFO(f, MAX_CALL_ARGS);
	Datum		result;

	Assert(nargs <= MAX_CALL_ARGS);
	fmgr_info(fn, &flinfo);
	InitFunctionCallInfoData(*f, &flinfo, nargs, InvalidOid, NULL, NULL);
	for (int i = 0; i < nargs; i++)
	{
		f->args[i].value = values[i];
		f->args[i].isnull = nulls[i];
	}
	result = FunctionCallInvoke(f);
	*isnull = f->isnull;
	return result;
}

/* the same, for a result that cannot be NULL */
static Datum
call_value(const char *signature, int nargs, const Datum *values, const bool *nulls)
{
	bool		isnull;
	Datum		d = call_sql(signature, nargs, values, nulls, &isnull);

	if (isnull)
		elog(ERROR, "%s returned NULL", signature);
	return d;
}

static Datum
row_field(Datum row, const char *name, bool *isnull)
{
	return GetAttributeByName(DatumGetHeapTupleHeader(row), name, isnull);
}

/* options with the noise the strategy is for, as the builders read it */
static Datum
with_noise(Datum options, const char *noise)
{
	Datum		n = DirectFunctionCall1(jsonb_in, CStringGetDatum(psprintf("{\"noise\": \"%s\"}", noise)));

	return DirectFunctionCall2(jsonb_concat, options, n);
}

/* a row of the composite type typid from these values */
static Datum
make_row(Oid typid, Datum *values, bool *nulls)
{
	TupleDesc	desc = lookup_rowtype_tupdesc_copy(typid, -1);

	return HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls));
}

/* the sum of weight^2 profile (the optimizers' objective) and the largest term */
static void
profile_totals(ArrayType *profile, Datum weights, bool no_weights, double *trace, double *maxp)
{
	int			n = ArrayGetNItems(ARR_NDIM(profile), ARR_DIMS(profile));
	double	   *v = (double *) ARR_DATA_PTR(profile);
	double	   *w = NULL;

	if (!no_weights)
	{
		ArrayType  *wa = DatumGetArrayTypeP(weights);

		if (ArrayGetNItems(ARR_NDIM(wa), ARR_DIMS(wa)) != n || ARR_HASNULL(wa))
			elog(ERROR, "a workload's weights do not match its queries");
		w = (double *) ARR_DATA_PTR(wa);
	}
	if (ARR_HASNULL(profile))
		elog(ERROR, "an error profile with NULLs");
	*trace = 0.0;
	*maxp = n > 0 ? v[0] : 0.0;
	for (int i = 0; i < n; i++)
	{
		*trace += (w ? w[i] * w[i] : 1.0) * v[i];
		*maxp = Max(*maxp, v[i]);
	}
}

/* the same for a Kronecker strategy (kind, p, theta, weights in k) over the spec's queries */
static void
kronecker_totals(Datum spec, Datum dom, const Datum *k, const bool *k_null, Datum weights, bool no_weights,
				 double *trace, double *maxp)
{
	Datum		a[6] = {spec, dom, k[0], k[1], k[2], k[3]};
	bool		an[6] = {false, false, k_null[0], k_null[1], k_null[2], k_null[3]};

	profile_totals(DatumGetArrayTypeP(call_value("dpm_internal.hdmm_profile(text,dpm.domains,text,int[],float8[],float8[])",
												 6, a, an)), weights, no_weights, trace, maxp);
}

/* the columns of the result, in the order of dpm_internal.build_strategy's OUT arguments */
enum
{
	B_MATRIX, B_KRONECKER, B_RESIDUAL, B_ROWS, B_L1, B_L2, B_PROFILE, B_TRACE, B_MAXP, B_ITERATIONS,
	B_LOWER_BOUND, B_BOUND, B_OPTIMIZE_MS, B_COUNT
};

static double
ms_since(instr_time start)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, start);
	return INSTR_TIME_GET_MILLISEC(now);
}

PG_FUNCTION_INFO_V1(dpm_build_strategy);
Datum
dpm_build_strategy(PG_FUNCTION_ARGS)
{
	HeapTupleHeader wl = PG_GETARG_HEAPTUPLEHEADER(0);
	Datum		dom = PG_GETARG_DATUM(1);
	char	   *method = text_to_cstring(PG_GETARG_TEXT_PP(2));
	char	   *noise = text_to_cstring(PG_GETARG_TEXT_PP(3));
	Datum		options = PG_GETARG_DATUM(4);
	bool		bound_known = !PG_ARGISNULL(5);
	const StrategyMethod *m = strategy_method(method);
	TupleDesc	desc;
	Datum		out[B_COUNT];
	bool		out_null[B_COUNT];
	bool		no_spec,
				no_matrix,
				no_weights,
				no_n,
				isnull;
	Datum		spec = GetAttributeByName(wl, "spec", &no_spec);
	Datum		w = GetAttributeByName(wl, "matrix", &no_matrix);
	Datum		weights = GetAttributeByName(wl, "weights", &no_weights);
	Datum		n = GetAttributeByName(wl, "n", &no_n);
	Datum		a[MAX_CALL_ARGS] = {0};
	bool		an[MAX_CALL_ARGS] = {false, false, false, false, false, false};
	double		trace = 0.0,
				maxp = 0.0;
	Datum		wopt = (Datum) 0;	/* a dense builder's input: W, rows scaled by their weights */
	instr_time	start;

	if (m == NULL)
		elog(ERROR, "unknown strategy method \"%s\"", method);
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE || desc->natts != B_COUNT)
		elog(ERROR, "dpm_internal.build_strategy: return type must be its row");
	for (int i = 0; i < B_COUNT; i++)
		out_null[i] = true;
	INSTR_TIME_SET_CURRENT(start);

	/*
	 * A workload kept as its spec (sql/18_workloads.sql): W is built for a
	 * method that builds from W, if it fits dpm.max_matrix_mb.
	 */
	if (no_matrix && !no_spec && !no_n && m->spec_build == SPEC_BUILDS_MATRIX)
	{
		bool		m_null;
		double		queries = DatumGetFloat8(DirectFunctionCall1(i4tod, GetAttributeByName(wl, "m", &m_null)));

		if (queries * DatumGetInt32(n) * 8.0 <= DatumGetFloat8(call_value("dpm_internal.max_matrix_bytes()", 0, a, an)))
		{
			a[0] = spec;
			a[1] = dom;
			a[2] = BoolGetDatum(true);
			a[3] = BoolGetDatum(false);
			w = row_field(call_value("dpm_internal.workload_matrix(text,dpm.domains,boolean,boolean)", 4, a, an),
						  "matrix", &no_matrix);
		}
	}

	if (m->spec_build == SPEC_BUILDS_RESIDUAL)
	{
		/* ResidualPlanner over the spec's marginals, kept as its residuals' sets and values */
		Datum		rb,
					plan[3];
		bool		plan_null[3] = {false, true, true};
		bool		laplace = strcmp(noise, "laplace") == 0;
		Datum		bound;
		bool		no_bound;

		if (no_spec)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("method residual needs a workload given as a spec, not an explicit matrix")));
		a[0] = spec;
		a[1] = dom;
		a[2] = with_noise(options, noise);
		rb = call_value("dpm_internal.residual_build(text,dpm.domains,jsonb)", 3, a, an);
		out[B_OPTIMIZE_MS] = Float8GetDatum(ms_since(start));
		plan[0] = row_field(rb, "subsets", &isnull);
		plan[laplace ? 2 : 1] = row_field(rb, "variances", &plan_null[laplace ? 2 : 1]);
		out[B_RESIDUAL] = make_row(TupleDescAttr(desc, B_RESIDUAL)->atttypid, plan, plan_null);
		out_null[B_RESIDUAL] = false;
		/* the tables it will read fit dpm.max_cells */
		an[0] = an[1] = true;
		a[2] = out[B_RESIDUAL];
		a[3] = CStringGetTextDatum(noise);
		a[4] = spec;
		a[5] = dom;
		(void) call_sql("dpm_internal.strategy_tables(float8[],dpm.kronecker_strategy,dpm.residual_plan,text,text,dpm.domains)",
						6, a, an, &isnull);
		an[0] = an[1] = false;
		out[B_ROWS] = row_field(rb, "rows", &out_null[B_ROWS]);
		out[B_L1] = row_field(rb, "sensitivity_l1", &out_null[B_L1]);
		out[B_L2] = Float8GetDatum(sqrt(DatumGetFloat8(row_field(rb, "cost2", &isnull))));
		out_null[B_L2] = false;
		trace = DatumGetFloat8(row_field(rb, "profile_trace", &isnull));
		maxp = DatumGetFloat8(row_field(rb, "max_profile", &isnull));
		out[B_ITERATIONS] = row_field(rb, "iterations", &out_null[B_ITERATIONS]);
		/* T^2 certifies a plan for marginals; with other blocks, the SVD bound where the domain is dense */
		bound = row_field(rb, "bound", &no_bound);
		if (no_bound && !no_n)
		{
			a[0] = spec;
			a[1] = dom;
			bound = call_sql("dpm_internal.spec_svd_bound(text,dpm.domains)", 2, a, an, &no_bound);
		}
		out[B_BOUND] = out[B_LOWER_BOUND] = bound;
		out_null[B_BOUND] = out_null[B_LOWER_BOUND] = no_bound;
	}
	else if (m->spec_build == SPEC_BUILDS_KRONECKER && !no_spec)
	{
		/* implicit: optimized and evaluated from the spec's blocks, never a matrix over the cells */
		Datum		hd,
					k[4],
					sizes;
		bool		k_null[4] = {false, false, false, false};

		a[0] = spec;
		a[1] = dom;
		a[2] = with_noise(options, noise);
		hd = call_value("dpm_internal.hdmm(text,dpm.domains,jsonb)", 3, a, an);
		out[B_OPTIMIZE_MS] = Float8GetDatum(ms_since(start));
		k[0] = row_field(hd, "kind", &k_null[0]);
		k[1] = row_field(hd, "p", &k_null[1]);
		k[2] = row_field(hd, "theta", &k_null[2]);
		k[3] = row_field(hd, "weights", &k_null[3]);
		out[B_KRONECKER] = make_row(TupleDescAttr(desc, B_KRONECKER)->atttypid, k, k_null);
		out_null[B_KRONECKER] = false;
		sizes = row_field(dom, "attr_sizes", &isnull);
		a[0] = sizes;
		for (int i = 0; i < 4; i++)
		{
			a[1 + i] = k[i];
			an[1 + i] = k_null[i];
		}
		a[5] = Int32GetDatum(1);
		out[B_L1] = call_value("dpm_internal.hdmm_sensitivity(int[],text,int[],float8[],float8[],int)", 6, a, an);
		a[5] = Int32GetDatum(2);
		out[B_L2] = call_value("dpm_internal.hdmm_sensitivity(int[],text,int[],float8[],float8[],int)", 6, a, an);
		out[B_ROWS] = call_value("dpm_internal.hdmm_rows(int[],text,int[],float8[],float8[])", 5, a, an);
		out_null[B_L1] = out_null[B_L2] = out_null[B_ROWS] = false;
		kronecker_totals(spec, dom, k, k_null, weights, no_weights, &trace, &maxp);
		for (int i = 0; i < MAX_CALL_ARGS; i++)
			an[i] = false;
		out[B_ITERATIONS] = row_field(hd, "evaluations", &out_null[B_ITERATIONS]);
	}
	else if (no_n)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("method %s needs a dense cell index, which the domain of workload \"%s\" does not have",
						method, TextDatumGetCString(GetAttributeByName(wl, "name", &isnull))),
				 errhint("Use method residual, which works from the spec over any domain.")));
	else if (m->spec_build == SPEC_BUILDS_IDENTITY && !no_spec)
	{
		/*
		 * The identity over a spec's cells, at any size, kept as a Kronecker
		 * product of identities (HDMM's p-Identity with p = 0 on every
		 * attribute): never an n x n matrix.  It takes no options.
		 */
		ArrayType  *sizes = DatumGetArrayTypeP(row_field(dom, "attr_sizes", &isnull));
		int			d = ArrayGetNItems(ARR_NDIM(sizes), ARR_DIMS(sizes));
		Datum	   *zeros = palloc0(sizeof(Datum) * Max(d, 1));
		Datum		k[4];
		bool		k_null[4] = {false, false, false, true};

		a[0] = CStringGetTextDatum(method);
		a[1] = options;
		a[2] = BoolGetDatum(true);
		(void) call_sql("dpm_internal.check_method_options(text,jsonb,boolean)", 3, a, an, &isnull);
		k[0] = CStringGetTextDatum("kronecker");
		k[1] = PointerGetDatum(construct_array(zeros, d, INT4OID, 4, true, TYPALIGN_INT));
		k[2] = PointerGetDatum(construct_empty_array(FLOAT8OID));
		k[3] = (Datum) 0;
		out[B_KRONECKER] = make_row(TupleDescAttr(desc, B_KRONECKER)->atttypid, k, k_null);
		out_null[B_KRONECKER] = false;
		out[B_L1] = out[B_L2] = Float8GetDatum(1.0);
		out_null[B_L1] = out_null[B_L2] = false;
		kronecker_totals(spec, dom, k, k_null, weights, no_weights, &trace, &maxp);
		for (int i = 0; i < MAX_CALL_ARGS; i++)
			an[i] = false;
		out[B_ROWS] = n;
		out[B_ITERATIONS] = Int32GetDatum(0);
		out_null[B_ROWS] = out_null[B_ITERATIONS] = false;
		out[B_OPTIMIZE_MS] = Float8GetDatum(ms_since(start));
	}
	else if (no_matrix)
	{
		bool		m_null;

		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("workload \"%s\" has %d queries over %d cells: too large for a dense strategy",
						TextDatumGetCString(GetAttributeByName(wl, "name", &isnull)),
						DatumGetInt32(GetAttributeByName(wl, "m", &m_null)), DatumGetInt32(n)),
				 errhint("Use method hdmm, which works from the spec without a matrix over the cells, or raise dpm.max_matrix_mb.")));
	}
	else
	{
		/*
		 * A dense builder over what the optimizers see: the rows scaled by
		 * their weights; a method for variance targets sees W and per-query
		 * targets.  The pseudo-inverse waits until the strategy is chosen
		 * (dpm_internal.cache_strategy).
		 */
		Datum		rep,
					opt_options;
		bool		targets;

		if (!no_weights)
		{
			a[0] = w;
			a[1] = weights;
			wopt = call_value("dpm_internal.scale_rows(float8[],float8[])", 2, a, an);
		}
		else
			wopt = w;
		a[0] = CStringGetTextDatum(method);
		a[1] = options;
		targets = DatumGetBool(call_value("dpm_internal.has_targets(text,jsonb)", 2, a, an));
		if (targets)
		{
			a[0] = PointerGetDatum(wl);
			a[1] = options;
			opt_options = call_value("dpm_internal.fitness_options(dpm.workloads,jsonb)", 2, a, an);
		}
		else
			opt_options = with_noise(options, noise);
		a[0] = targets ? w : wopt;
		a[1] = CStringGetTextDatum(method);
		a[2] = opt_options;
		rep = call_value("dpm_internal.strategy_report(float8[],text,jsonb)", 3, a, an);
		out[B_OPTIMIZE_MS] = Float8GetDatum(ms_since(start));
		out[B_MATRIX] = row_field(rep, "matrix", &out_null[B_MATRIX]);
		a[0] = out[B_MATRIX];
		a[1] = CStringGetTextDatum("l1");
		out[B_L1] = call_value("dpm.sensitivity(float8[],text)", 2, a, an);
		a[1] = CStringGetTextDatum("l2");
		out[B_L2] = call_value("dpm.sensitivity(float8[],text)", 2, a, an);
		out_null[B_L1] = out_null[B_L2] = false;
		/*
		 * Laplace error at epsilon = 1 is 2 Delta_1^2 times the profile; the
		 * trace weighs each query by its weight^2, as the optimizers do, the
		 * largest term is in the query's own units.
		 */
		a[0] = w;
		a[1] = out[B_MATRIX];
		out[B_PROFILE] = call_value("dpm_internal.strategy_profile(float8[],float8[])", 2, a, an);
		out_null[B_PROFILE] = false;
		profile_totals(DatumGetArrayTypeP(out[B_PROFILE]), weights, no_weights, &trace, &maxp);
		out[B_ROWS] = Int32GetDatum(ARR_DIMS(DatumGetArrayTypeP(out[B_MATRIX]))[0]);
		out_null[B_ROWS] = false;
		out[B_ITERATIONS] = row_field(rep, "iterations", &out_null[B_ITERATIONS]);
		out[B_LOWER_BOUND] = row_field(rep, "lower_bound", &out_null[B_LOWER_BOUND]);
	}

	out[B_TRACE] = Float8GetDatum(trace);
	out[B_MAXP] = Float8GetDatum(maxp);
	out_null[B_TRACE] = out_null[B_MAXP] = out_null[B_OPTIMIZE_MS] = false;
	/* the workload's SVD bound, unless the way of building gave one (residual) or the caller has it */
	if (out_null[B_BOUND] && m->spec_build != SPEC_BUILDS_RESIDUAL)
	{
		if (bound_known)
		{
			out[B_BOUND] = PG_GETARG_DATUM(5);
			out_null[B_BOUND] = false;
		}
		else if (!out_null[B_KRONECKER])
		{
			a[0] = spec;
			a[1] = dom;
			out[B_BOUND] = call_sql("dpm_internal.spec_svd_bound(text,dpm.domains)", 2, a, an, &out_null[B_BOUND]);
		}
		else if (!no_spec && no_weights)
		{
			/* from the spec's factors (milliseconds) */
			a[0] = spec;
			a[1] = dom;
			out[B_BOUND] = call_sql("dpm_internal.spec_svd_bound(text,dpm.domains)", 2, a, an, &out_null[B_BOUND]);
		}
		else
		{
			/* from W, its rows scaled by their weights as the optimizers see them */
			an[1] = an[2] = true;
			a[0] = wopt;
			out[B_BOUND] = call_sql("dpm.svd_bound(float8[],float8,float8)", 3, a, an, &out_null[B_BOUND]);
			an[1] = an[2] = false;
		}
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), out, out_null)));
}
