/*
 * residual_api.c -- dpm_internal.residual_plan and residual_targets:
 * ResidualPlanner's plans (residual/residual.h) for a set of marginals, one
 * row per residual.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "api/array.h"
#include "residual/residual.h"

/* a one-dimensional integer array without NULLs; its elements and count */
static int *
int_array(ArrayType *arr, const char *argname, int ndim, int *dims)
{
	if (ARR_NDIM(arr) != ndim || ARR_HASNULL(arr))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a %d-dimensional array without NULLs", argname, ndim)));
	for (int i = 0; i < ndim; i++)
		dims[i] = ARR_DIMS(arr)[i];
	return (int *) ARR_DATA_PTR(arr);
}

/* sizes, marginals and a per-marginal array (weights or targets, NULL if absent), checked */
static void
workload_args(FunctionCallInfo fcinfo, const char *perarg, int **sizes, int *d, int **attrs, int *m,
			  int *width, double **per)
{
	int			dims[2];

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("sizes and marginals must not be NULL")));
	*sizes = int_array(PG_GETARG_ARRAYTYPE_P(0), "sizes", 1, dims);
	*d = dims[0];
	for (int i = 0; i < *d; i++)
		if ((*sizes)[i] < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("attribute %d has %d values; every attribute needs at least one", i + 1, (*sizes)[i])));
	*attrs = int_array(PG_GETARG_ARRAYTYPE_P(1), "marginals", 2, dims);
	*m = dims[0];
	*width = dims[1];
	*per = NULL;
	if (!PG_ARGISNULL(2))
	{
		int			n;

		*per = array_to_vec(PG_GETARG_ARRAYTYPE_P(2), perarg, &n);
		if (n != *m)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s must have one value per marginal (%d), not %d", perarg, *m, n)));
	}
}

/*
 * One row per residual measured: its attributes (1-based), dimension r_A,
 * weight mu_A and noise variance tau_A^2, then the plan's squared L2
 * sensitivity, duality gap and iterations.
 */
static Datum
plan_rows(FunctionCallInfo fcinfo, const ResidualPlan *plan)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < plan->count; i++)
	{
		const Residual *r = &plan->residuals[i];
		Datum		subset[RESIDUAL_MAX_ORDER];
		Datum		values[7];
		bool		nulls[7] = {false, false, false, false, false, false, false};

		for (int b = 0; b < r->order; b++)
			subset[b] = Int32GetDatum(r->attrs[b] + 1);
		values[0] = PointerGetDatum(construct_array(subset, r->order, INT4OID, sizeof(int32), true, TYPALIGN_INT));
		values[1] = Float8GetDatum(r->rows);
		values[2] = Float8GetDatum(r->mu);
		values[3] = Float8GetDatum(r->variance);
		values[4] = Float8GetDatum(plan->cost2);
		values[5] = Float8GetDatum(plan->gap);
		values[6] = Int32GetDatum(plan->iterations);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* dpm_internal.residual_plan(sizes, marginals, weights): the closed form for the sum of variances */
PG_FUNCTION_INFO_V1(dpm_residual_plan);
Datum
dpm_residual_plan(PG_FUNCTION_ARGS)
{
	int		   *sizes,
			   *attrs;
	int			d,
				m,
				width;
	double	   *weights;

	workload_args(fcinfo, "weights", &sizes, &d, &attrs, &m, &width, &weights);
	return plan_rows(fcinfo, residual_plan(sizes, d, attrs, m, width, weights));
}

/*
 * dpm_internal.residual_targets(sizes, marginals, targets, tol, max_iter):
 * the least cost meeting a variance target per marginal (all 1: the least
 * largest variance)
 */
PG_FUNCTION_INFO_V1(dpm_residual_targets);
Datum
dpm_residual_targets(PG_FUNCTION_ARGS)
{
	int		   *sizes,
			   *attrs;
	int			d,
				m,
				width,
				max_iter = PG_ARGISNULL(4) ? 10000 : PG_GETARG_INT32(4);
	double	   *targets,
				tol = PG_ARGISNULL(3) ? 1e-9 : PG_GETARG_FLOAT8(3);

	workload_args(fcinfo, "targets", &sizes, &d, &attrs, &m, &width, &targets);
	for (int j = 0; targets && j < m; j++)
		if (!(targets[j] > 0.0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("targets must be positive, got %g for marginal %d", targets[j], j + 1)));
	if (!(tol > 0.0 && tol < 1.0) || max_iter < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("tol must be in (0, 1) and max_iter at least 1")));
	return plan_rows(fcinfo, residual_targets(sizes, d, attrs, m, width, targets, tol, max_iter));
}
