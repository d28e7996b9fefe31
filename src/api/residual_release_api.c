/*
 * residual_release_api.c -- method residual over a workload spec of
 * marginals, as the catalog keeps it and a release runs it: the plan
 * (dpm_internal.residual_build), the tables a release reads
 * (residual_table_sets), the release itself (residual_release) and the
 * exact answers (residual_exact).  A plan is kept as its residuals'
 * attribute sets and noise variances at unit L2 sensitivity; the workload
 * behind it is read again from the spec.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "api/args.h"
#include "convert/measurements.h"
#include "api/options.h"
#include "api/residual_release_api.h"
#include "api/workload_api.h"
#include "histogram/histogram.h"
#include "mechanism/calibrate.h"
#include "mechanism/exact.h"
#include "mechanism/interval.h"
#include "strategy/residual/residual.h"
#include "strategy/strategy.h"
#include "workload/workload.h"

void
api_spec_marginals_of(WorkloadDomain *dom, const char *spec, SpecMarginals *sm)
{
	List	   *terms;

	terms = workload_parse(dom, spec);
	workload_marginals(dom, terms, &sm->attrs, &sm->width, &sm->weights, &sm->blocks);
	sm->d = dom->nattrs;
	sm->m = list_length(terms);
	sm->plain = true;
	for (int i = 0; i < sm->m * sm->width; i++)
		sm->plain &= sm->blocks[i] == NULL;
	sm->sizes = palloc(sizeof(int) * dom->nattrs);
	for (int a = 0; a < dom->nattrs; a++)
		sm->sizes[a] = dom->attrs[a].size;
	sm->w = residual_workload(sm->sizes, sm->d, sm->attrs, sm->m, sm->width, sm->weights,
							  sm->plain ? NULL : sm->blocks);
}

/* the spec (argument 0) over the domain (argument 1) */
static void
spec_marginals(FunctionCallInfo fcinfo, SpecMarginals *sm)
{
	WorkloadDomain dom;

	api_domain_arg_wide(fcinfo, &dom);
	api_spec_marginals_of(&dom, text_to_cstring(PG_GETARG_TEXT_PP(0)), sm);
}

/* the 2-D array of attribute sets (1-based, 0 pads) of these residuals */
static ArrayType *
sets_array(const Residual *const *sets, int count)
{
	int			width = 1;
	Datum	   *elems;
	int			dims[2],
				lbs[2] = {1, 1};

	for (int i = 0; i < count; i++)
		width = Max(width, sets[i]->order);
	elems = palloc0(sizeof(Datum) * Max(count, 1) * width);
	for (int i = 0; i < count; i++)
		for (int c = 0; c < width; c++)
			elems[(size_t) i * width + c] = Int32GetDatum(c < sets[i]->order ? sets[i]->attrs[c] + 1 : 0);
	dims[0] = count;
	dims[1] = width;
	if (count == 0)
		return construct_empty_array(INT4OID);
	return construct_md_array(elems, NULL, 2, dims, lbs, INT4OID, sizeof(int32), true, TYPALIGN_INT);
}

/* the attribute sets of a 2-D array (1-based, 0 pads) as indexes of w's residuals, added if new */
static int *
intern_sets(SpecMarginals *sm, ArrayType *subsets, int *count)
{
	int			n,
				width;
	int		   *sets;
	const int32 *s;

	if (ARR_NDIM(subsets) == 0)
	{
		*count = 0;
		return NULL;
	}
	if (ARR_NDIM(subsets) != 2 || ARR_HASNULL(subsets) || ARR_ELEMTYPE(subsets) != INT4OID)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("attribute sets must be a 2-D int array without NULLs, one set a row")));
	n = ARR_DIMS(subsets)[0];
	width = ARR_DIMS(subsets)[1];
	s = (const int32 *) ARR_DATA_PTR(subsets);
	sets = palloc(sizeof(int) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		int16		attrs[RESIDUAL_MAX_ORDER];
		int			order = 0;

		for (int c = 0; c < width && s[i * width + c] > 0; c++)
		{
			if (order == RESIDUAL_MAX_ORDER || s[i * width + c] > sm->d ||
				(order > 0 && s[i * width + c] - 1 <= attrs[order - 1]))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("attribute set %d is not increasing attributes of the domain, at most %d of them",
								i + 1, RESIDUAL_MAX_ORDER)));
			attrs[order++] = (int16) (s[i * width + c] - 1);
		}
		sets[i] = residual_intern(sm->w, attrs, order, sm->sizes);
	}
	*count = n;
	return sets;
}

/* a stored plan's sets (indexes of w's residuals) and their values (variances or weights), all positive */
static int *
plan_sets(SpecMarginals *sm, ArrayType *subsets, ArrayType *values, double **v, int *count)
{
	int			n;
	int		   *sets = intern_sets(sm, subsets, count);

	*v = array_to_vec(values, "variances", &n);
	if (*count != n || n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("a residual strategy needs one attribute set per variance or weight")));
	for (int i = 0; i < n; i++)
		if (!((*v)[i] > 0.0) || !isfinite((*v)[i]))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("the residual strategy does not fit its workload: set %d", i + 1)));
	return sets;
}

/* every residual the workload's queries need must be measured (var[i] > 0), or they are biased */
static void
check_covered(const ResidualWorkload *w, const double *var)
{
	for (int i = 0; i < w->count; i++)
		if (w->residuals[i].rows > 0.0 && w->residuals[i].mu > 0.0 && var[i] == 0.0)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("the residual strategy does not cover every residual of its workload")));
}

/* a Gaussian plan's variance of each residual of w (0: not measured) */
double *
api_residual_plan_variances(SpecMarginals *sm, ArrayType *subsets, ArrayType *variances)
{
	double	   *v;
	int			count;
	int		   *sets = plan_sets(sm, subsets, variances, &v, &count);
	double	   *variance = palloc0(sizeof(double) * Max(sm->w->count, 1));

	for (int i = 0; i < count; i++)
	{
		/* a Gaussian plan measures residuals its workload holds */
		if (sm->w->residuals[sets[i]].mu <= 0.0)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("the residual strategy does not fit its workload: set %d", i + 1)));
		variance[sets[i]] = v[i];
	}
	check_covered(sm->w, variance);
	return variance;
}

/* a Laplace plan's tables (indexes of w's residuals) and weights */
int *
api_residual_plan_tables(SpecMarginals *sm, ArrayType *subsets, ArrayType *weights, double **theta, int *count)
{
	int		   *sets = plan_sets(sm, subsets, weights, theta, count);
	double	   *covered = palloc(sizeof(double) * Max(sm->w->count, 1));

	residual_laplace_variances(sm->w, sets, *theta, *count, covered);
	check_covered(sm->w, covered);
	return sets;
}

/*
 * Option targets: each marginal's variance target, one for all or one per
 * marginal in the workload's order; NULL when not given.  A plan for them
 * meets them at unit noise (residual_targets), as a fitness strategy does.
 */
static double *
targets_option(Jsonb *options, const SpecMarginals *sm, bool laplace, int loss)
{
	int			nc;
	double	   *c = options_get_targets(options, "targets", &nc);
	double	   *targets;

	if (c == NULL)
		return NULL;
	if (laplace)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("method residual's variance targets need Gaussian noise"),
				 errhint("Give delta > 0 or rho, or neither epsilon nor rho to be charged what the targets need.")));
	if (loss != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("give variance targets or a loss, not both"),
				 errhint("Targets are met at the least privacy cost; a loss is minimized at a given cost.")));
	if (!sm->plain)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("method residual's variance targets need a workload of marginals: Identity or Total on every attribute"),
				 errhint("Use method fitness, with targets per query, for marginals with Prefix, AllRange, Ranges or Hierarchical blocks.")));
	if (nc != 1 && nc != sm->m)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("targets must have one variance, or one per marginal of the workload (%d), not %d", sm->m, nc)));
	targets = palloc(sizeof(double) * Max(sm->m, 1));
	for (int j = 0; j < sm->m; j++)
		targets[j] = c[nc == 1 ? 0 : j];
	return targets;
}

/*
 * dpm_internal.residual_build(spec, dom, options): the plan for the loss
 * of options (sum or max of the variances, each marginal's weighted by its
 * weight squared), or for its variance targets, with what dpm.strategies
 * records of it.
 */
PG_FUNCTION_INFO_V1(dpm_residual_build);
Datum
dpm_residual_build(PG_FUNCTION_ARGS)
{
	SpecMarginals sm;
	ResidualWorkload *w;
	StrategyOptions opts;
	ResidualPlan *plan = NULL;
	const Residual **measured;
	bool		laplace;
	int			iterations = 0;
	double	   *variance,
			   *kept;
	double		l1 = 0.0,
				maxp = 0.0,
				rows = 0.0;
	/* sums over up to 10^8 terms, whose ratio must not round below 1: compensated */
	VecSum		t = {0},
				cost2 = {0},
				trace = {0};
	int			count = 0;
	double	   *targets;
	TupleDesc	tupdesc;
	Datum		values[10];
	bool		nulls[10] = {false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	api_method_options(strategy_method("residual"), PG_GETARG_JSONB_P(2), true, &opts);
	laplace = opts.noise == 1;
	spec_marginals(fcinfo, &sm);
	w = sm.w;
	targets = targets_option(PG_GETARG_JSONB_P(2), &sm, laplace, opts.loss);
	if (laplace)
		residual_add_candidates(w, sm.sizes, sm.d);
	variance = palloc0(sizeof(double) * Max(w->count, 1));
	measured = palloc(sizeof(Residual *) * Max(w->count, 1));
	kept = palloc(sizeof(double) * Max(w->count, 1));

	/* the SVD bound of the weighted marginals is T^2 (residual.h) */
	for (int i = 0; i < w->count; i++)
		if (w->residuals[i].rows > 0.0 && w->residuals[i].mu > 0.0)
			vec_sum_add(&t, w->residuals[i].rows * sqrt(w->residuals[i].mu / w->residuals[i].cells));
	if (laplace)
	{
		/* weighted marginal tables (laplace.c); the profile is the variance at unit Laplace noise */
		LaplacePlan *lp;

		if (opts.loss != 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("method residual's loss max needs Gaussian noise"),
					 errhint("Give delta > 0 or rho, or use loss sum.")));
		lp = residual_laplace_plan(w, opts.max_iter);
		residual_laplace_variances(w, lp->sets, lp->theta, lp->count, variance);
		for (int i = 0; i < w->count; i++)
			variance[i] /= 2.0;
		for (int i = 0; i < lp->count; i++)
		{
			measured[count] = &w->residuals[lp->sets[i]];
			kept[count++] = lp->theta[i];
			rows += measured[i]->cells;
			l1 += lp->theta[i];
			vec_sum_add(&cost2, lp->theta[i] * lp->theta[i]);
		}
		iterations = lp->iterations;
		nulls[9] = true;
	}
	else if (opts.loss == 0 && targets == NULL)
	{
		plan = residual_plan_workload(w);
		for (int i = 0; i < w->count; i++)
			variance[i] = w->residuals[i].variance;
	}
	else
	{
		/*
		 * the largest weighted variance: weight_j^2 var_j <= 1 for every
		 * marginal j, at least cost; or the targets given
		 */
		if (!sm.plain)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("method residual's loss max needs a workload of marginals: Identity or Total on every attribute"),
					 errhint("Use loss sum for marginals with Prefix, AllRange, Ranges or Hierarchical blocks.")));
		if (targets == NULL)
		{
			targets = palloc(sizeof(double) * Max(sm.m, 1));
			for (int j = 0; j < sm.m; j++)
				targets[j] = sm.weights[j] == 1.0 ? 1.0 : 1.0 / (sm.weights[j] * sm.weights[j]);
		}
		plan = residual_targets(sm.sizes, sm.d, sm.attrs, sm.m, sm.width, targets, opts.tol, opts.max_iter);
		for (int i = 0; i < plan->count; i++)
			variance[residual_find(w, plan->residuals[i].attrs, plan->residuals[i].order)] =
				plan->residuals[i].variance;
	}

	for (int i = 0; i < w->count && !laplace; i++)
	{
		const Residual *r = &w->residuals[i];
		double		col = 1.0;

		if (variance[i] <= 0.0)
			continue;
		measured[count] = r;
		kept[count++] = variance[i];
		rows += r->cells;
		vec_sum_add(&cost2, r->rows / (r->cells * variance[i]));
		/* a column of (1 / tau) (x)_{a in A} (I - J / n_a): the sum of its |entries| */
		for (int b = 0; b < r->order; b++)
			col *= 2.0 * (sm.sizes[r->attrs[b]] - 1) / sm.sizes[r->attrs[b]];
		l1 += col / sqrt(variance[i]);
	}
	/* each query's variance from its residuals' (terms.c) */
	for (int j = 0; j < w->m; j++)
	{
		size_t		queries = (size_t) residual_term_queries(w, j, sm.sizes);
		double	   *var = palloc(sizeof(double) * queries);

		residual_term_variances(w, j, sm.sizes, variance, var);
		for (size_t q = 0; q < queries; q++)
		{
			vec_sum_add(&trace, sm.weights[j] * sm.weights[j] * var[q]);
			maxp = Max(maxp, var[q]);
		}
		pfree(var);
	}
	values[0] = PointerGetDatum(sets_array(measured, count));
	values[1] = PointerGetDatum(array_from_vec(kept, count));
	values[2] = Int32GetDatum((int32) Min(rows, PG_INT32_MAX));
	values[3] = Float8GetDatum(l1);
	values[4] = Float8GetDatum(vec_sum_value(&cost2));
	values[5] = Float8GetDatum(vec_sum_value(&trace));
	values[6] = Float8GetDatum(maxp);
	/* T^2 is the SVD bound of marginals; for other blocks only the best residual strategy's total */
	values[7] = Float8GetDatum(vec_sum_value(&t) * vec_sum_value(&t));
	nulls[7] = !sm.plain;
	values[8] = Int32GetDatum(plan ? plan->iterations : iterations);
	values[9] = Float8GetDatum(plan ? plan->gap : 0.0);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}

/*
 * dpm_internal.residual_table_sets(spec, dom, sets): the attribute sets of
 * the tables a release reads, with a Laplace plan's sets (NULL: none)
 */
PG_FUNCTION_INFO_V1(dpm_residual_table_sets);
Datum
dpm_residual_table_sets(PG_FUNCTION_ARGS)
{
	SpecMarginals sm;
	ResidualTables *t;
	int			count = 0;
	int		   *sets = NULL;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("spec and dom must not be NULL")));
	spec_marginals(fcinfo, &sm);
	if (!PG_ARGISNULL(2))
		sets = intern_sets(&sm, PG_GETARG_ARRAYTYPE_P(2), &count);
	t = residual_tables(sm.w, sets, count);
	if (t->cells > dpm_max_cells)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the workload's marginal tables have %.0f cells in all, more than dpm.max_cells (%d)",
						t->cells, dpm_max_cells),
				 errhint("Ask for fewer or smaller marginals, or raise dpm.max_cells.")));
	PG_RETURN_ARRAYTYPE_P(sets_array(t->sets, t->count));
}

/*
 * The tables argument: the counts of residual_tables' sets, one after the
 * other, read in place (array_arg_flat): each copy would be one more vector
 * of T.
 */
static int64 *
tables_arg(FunctionCallInfo fcinfo, int i, const ResidualTables *t)
{
	int			n;
	const double *x = array_vec_view(array_arg_flat(PG_GETARG_DATUM(i)), "tables", &n);

	if (n != t->cells)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("tables must have the %.0f cells of the workload's tables, not %d", t->cells, n)));
	return exact_counts(x, n);
}

/*
 * One row per query, in the workload's order: marginal j's cells, the last
 * attribute fastest.
 */
static void
put_answers(FunctionCallInfo fcinfo, const SpecMarginals *sm, double **answers, double **stderrs,
			double confidence, double **halves, int ci_draws)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			query = 0;

	InitMaterializedSRF(fcinfo, 0);
	for (int j = 0; j < sm->m; j++)
	{
		int			queries = (int) residual_term_queries(sm->w, j, sm->sizes);
		double	   *half = NULL;

		if (halves && confidence != NO_INTERVALS)
			half = halves[j];
		else if (stderrs && confidence != NO_INTERVALS)
			half = interval_gaussian(stderrs[j], queries, confidence);
		for (int c = 0; c < queries; c++)
		{
			Datum		values[6];
			bool		nulls[6] = {false, false, false, true, true, ci_draws == 0};

			values[0] = Int32GetDatum(++query);
			values[1] = Float8GetDatum(answers[j][c]);
			values[2] = Float8GetDatum(stderrs ? stderrs[j][c] : 0.0);
			values[5] = Int32GetDatum(ci_draws);
			if (half)
			{
				values[3] = Float8GetDatum(answers[j][c] - half[c]);
				values[4] = Float8GetDatum(answers[j][c] + half[c]);
				nulls[3] = nulls[4] = false;
			}
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
}

/* argument i: the inference by name (NULL: least squares) */
static ResidualInference
inference_arg(FunctionCallInfo fcinfo, int i)
{
	char	   *name;

	if (PG_ARGISNULL(i))
		return RESIDUAL_LS;
	name = text_to_cstring(PG_GETARG_TEXT_PP(i));
	if (strcmp(name, "nnls") == 0)
		return RESIDUAL_NNLS;
	if (strcmp(name, "nnls_integer") == 0)
		return RESIDUAL_INTEGER;
	if (strcmp(name, "ls") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("inference must be ls, nnls or nnls_integer, not \"%s\"", name)));
	return RESIDUAL_LS;
}

void
api_residual_check_plan_args(FunctionCallInfo fcinfo, int count)
{
	for (int i = 0; i < count; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("the arguments of a residual release must not be NULL")));
}

/*
 * dpm_internal.residual_measure(spec, dom, subsets, values, cost2, tables,
 * epsilon, delta, scale, rho, confidence): the noisy measurements of one
 * release of a stored plan for `scale` records per privacy unit.  Pure
 * epsilon: the plan's weighted tables (values) under Laplace noise
 * (laplace.c).  Otherwise the plan's variances (values) are for squared L2
 * sensitivity cost2 against noise 1, so the residuals together are one
 * Gaussian mechanism of sensitivity scale sqrt(cost2) over the common factor
 * sigma of their noise (measure.c): sigma is calibrated for rho-zCDP (rho
 * given) or (epsilon, delta)-DP like any Gaussian release.  tables NULL: the
 * samplers' checks only (and those of intervals at confidence), NULL back.
 */
PG_FUNCTION_INFO_V1(dpm_residual_measure);
Datum
dpm_residual_measure(PG_FUNCTION_ARGS)
{
	SpecMarginals sm;
	ResidualTables *t;
	double		cost2,
				epsilon,
				delta,
				scale,
				rho,
				sigma;
	double		confidence = api_confidence_arg(fcinfo, 10);
	Measurements *m;
	int64	   *counts;

	api_residual_check_plan_args(fcinfo, 5);
	api_privacy_args(fcinfo, 6, &epsilon, &delta, &scale, &rho);
	spec_marginals(fcinfo, &sm);
	if (rho == 0.0 && delta == 0.0)
	{
		double	   *theta;
		int			count;
		int		   *sets = api_residual_plan_tables(&sm, PG_GETARG_ARRAYTYPE_P(2), PG_GETARG_ARRAYTYPE_P(3), &theta, &count);

		t = residual_tables(sm.w, sets, count);
		counts = PG_ARGISNULL(5) ? NULL : tables_arg(fcinfo, 5, t);
		m = residual_laplace_measure(sm.w, t, sm.sizes, sets, theta, count, epsilon, scale, counts, confidence);
	}
	else
	{
		double	   *variance = api_residual_plan_variances(&sm, PG_GETARG_ARRAYTYPE_P(2), PG_GETARG_ARRAYTYPE_P(3));

		t = residual_tables(sm.w, NULL, 0);
		cost2 = PG_GETARG_FLOAT8(4);
		if (!(cost2 > 0.0 && isfinite(cost2)))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cost2 must be positive and finite, got %g", cost2)));
		sigma = rho > 0.0 ? calibrate_zcdp_sigma(rho, scale * sqrt(cost2))
			: calibrate_gaussian_sigma(epsilon, delta, scale * sqrt(cost2));
		counts = PG_ARGISNULL(5) ? NULL : tables_arg(fcinfo, 5, t);
		m = residual_gaussian_measure(sm.w, t, sm.sizes, variance, sigma, scale, counts);
	}
	/* the tables' counts, as large as the data: measured, not needed beside the measurements' copies */
	if (counts != NULL)
		pfree(counts);
	if (m == NULL)
		PG_RETURN_NULL();
	return convert_measurements_datum(fcinfo, m);
}

/*
 * dpm_internal.residual_infer(spec, dom, subsets, values, measurements,
 * inference, confidence): the workload's answers from residual_measure's
 * measurements, estimated by least squares (ls) or non-negative least
 * squares (nnls, nnls_integer); a Laplace plan's when they carry Laplace
 * noise.
 */
PG_FUNCTION_INFO_V1(dpm_residual_infer);
Datum
dpm_residual_infer(PG_FUNCTION_ARGS)
{
	SpecMarginals sm;
	Measurements *m;
	ResidualInference inference = inference_arg(fcinfo, 5);
	double		confidence = api_confidence_arg(fcinfo, 6);
	double	  **answers,
			  **stderrs;

	api_residual_check_plan_args(fcinfo, 4);
	spec_marginals(fcinfo, &sm);
	m = convert_measurements_arg(fcinfo, 4);
	answers = palloc0(sizeof(double *) * Max(sm.m, 1));
	stderrs = palloc0(sizeof(double *) * Max(sm.m, 1));
	if (m->parts > 0 && m->laws[0].t > 0.0)
	{
		double	   *theta,
				  **half = palloc0(sizeof(double *) * Max(sm.m, 1));
		int			count,
					draws;
		int		   *sets = api_residual_plan_tables(&sm, PG_GETARG_ARRAYTYPE_P(2), PG_GETARG_ARRAYTYPE_P(3), &theta, &count);

		draws = residual_laplace_infer(sm.w, sm.sizes, sets, count, m, inference, confidence, answers, stderrs, half);
		put_answers(fcinfo, &sm, answers, stderrs, confidence, half, draws);
	}
	else
	{
		residual_gaussian_infer(sm.w, sm.sizes, api_residual_plan_variances(&sm, PG_GETARG_ARRAYTYPE_P(2), PG_GETARG_ARRAYTYPE_P(3)),
								m, inference, answers, stderrs);
		put_answers(fcinfo, &sm, answers, stderrs, confidence, NULL, 0);
	}
	return (Datum) 0;
}

/* dpm_internal.residual_exact(spec, dom, tables): the true answers, in the workload's order */
PG_FUNCTION_INFO_V1(dpm_residual_exact);
Datum
dpm_residual_exact(PG_FUNCTION_ARGS)
{
	SpecMarginals sm;
	ResidualTables *t;
	double	  **answers;

	spec_marginals(fcinfo, &sm);
	t = residual_tables(sm.w, NULL, 0);
	answers = palloc0(sizeof(double *) * Max(sm.m, 1));
	residual_exact(sm.w, t, sm.sizes, tables_arg(fcinfo, 2, t), answers);
	put_answers(fcinfo, &sm, answers, NULL, NO_INTERVALS, NULL, 0);
	return (Datum) 0;
}

/*
 * dpm_internal.residual_group_factor(spec, dom, subsets, variances, groups):
 * mechanism/groups.h's factor in the L2 norm for a Gaussian plan, a unit in
 * at most groups cells of dom.
 */
PG_FUNCTION_INFO_V1(dpm_residual_group_factor);
Datum
dpm_residual_group_factor(PG_FUNCTION_ARGS)
{
	SpecMarginals sm;
	double	   *variance;

	api_residual_check_plan_args(fcinfo, 4);
	spec_marginals(fcinfo, &sm);
	variance = api_residual_plan_variances(&sm, PG_GETARG_ARRAYTYPE_P(2), PG_GETARG_ARRAYTYPE_P(3));
	PG_RETURN_FLOAT8(residual_group_factor(sm.w, variance, sm.sizes, sm.d, PG_GETARG_INT32(4), 2));
}

/*
 * dpm_internal.residual_parts_matrix(spec, dom, subsets, values, laplace):
 * the measurements of a residual plan written out over a dense domain's
 * cells, part after part in the order residual_measure keeps them, for
 * estimates that combine releases (mechanism/gls.h).  A Laplace plan's part
 * is table S, rows M_S with iid noise.  A Gaussian plan's part is residual
 * A's estimate of Pi_A M_A x, whose noise has covariance V_A Pi_A: as
 * Pi_A is an orthogonal projection and the estimate lies in its range,
 * least squares with rows Pi_A M_A and iid noise of variance V_A has the
 * same normal equations, hence the same estimates and variances.
 */
PG_FUNCTION_INFO_V1(dpm_residual_parts_matrix);
Datum
dpm_residual_parts_matrix(PG_FUNCTION_ARGS)
{
	SpecMarginals sm;
	const Residual **parts;
	int			count = 0;
	double		n = 1.0,
				rows = 0.0;
	Mat		   *a;
	int			row = 0;

	api_residual_check_plan_args(fcinfo, 4);
	spec_marginals(fcinfo, &sm);
	parts = palloc(sizeof(Residual *) * Max(sm.w->count, 1));
	if (PG_GETARG_BOOL(4))
	{
		double	   *theta;
		int			k;
		int		   *sets = api_residual_plan_tables(&sm, PG_GETARG_ARRAYTYPE_P(2), PG_GETARG_ARRAYTYPE_P(3), &theta, &k);

		parts = repalloc(parts, sizeof(Residual *) * Max(k, 1));
		for (int i = 0; i < k; i++)
			parts[count++] = &sm.w->residuals[sets[i]];
	}
	else
	{
		double	   *variance = api_residual_plan_variances(&sm, PG_GETARG_ARRAYTYPE_P(2), PG_GETARG_ARRAYTYPE_P(3));

		for (int i = 0; i < sm.w->count; i++)
			if (variance[i] > 0.0)
				parts[count++] = &sm.w->residuals[i];
	}
	for (int b = 0; b < sm.d; b++)
		n *= sm.sizes[b];
	for (int i = 0; i < count; i++)
		rows += parts[i]->cells;
	mat_check_size(rows, n, "the residual plan written out");
	a = mat_new((int) rows, (int) n);
	for (int i = 0; i < count; i++)
	{
		const Residual *r = parts[i];

		for (int c = 0; c < (int) n; c++)
		{
			int			digit[RESIDUAL_MAX_ORDER];
			int			rest = c,
						t = 0;

			CHECK_FOR_INTERRUPTS();
			/* cell c's bin on each of the part's attributes (the last attribute fastest) */
			for (int b = sm.d - 1; b >= 0; b--)
			{
				for (int o = 0; o < r->order; o++)
					if (r->attrs[o] == b)
						digit[o] = rest % sm.sizes[b];
				rest /= sm.sizes[b];
			}
			for (int o = 0; o < r->order; o++)
				t = t * sm.sizes[r->attrs[o]] + digit[o];
			if (PG_GETARG_BOOL(4))
				MAT(a, row + t, c) = 1.0;
			else
				/* (Pi_A M_A)[t, c] = prod over A of ([t_o = c_o] - 1 / n_o) */
				for (int u = 0; u < (int) r->cells; u++)
				{
					double		v = 1.0;
					int			left = u;

					for (int o = r->order - 1; o >= 0; o--)
					{
						int			size = sm.sizes[r->attrs[o]];

						v *= (left % size == digit[o] ? 1.0 : 0.0) - 1.0 / size;
						left /= size;
					}
					MAT(a, row + u, c) = v;
				}
		}
		row += (int) r->cells;
	}
	PG_RETURN_ARRAYTYPE_P(array_from_mat(a));
}
