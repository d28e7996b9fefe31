/*
 * residual_api.c -- dpm_internal.residual_plan(sizes, marginals, weights):
 * ResidualPlanner's plan (residual/residual.h) for a weighted set of
 * marginals, one row per residual.
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

/*
 * (subset int[], rows, mu, variance): each residual's attributes (1-based),
 * dimension r_A, weight mu_A and noise variance tau_A^2 at unit L2
 * sensitivity; their optimum T^2 is sum rows * mu * variance.
 */
PG_FUNCTION_INFO_V1(dpm_residual_plan);
Datum
dpm_residual_plan(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			d,
				dims[2],
				m,
				width;
	int		   *sizes,
			   *attrs;
	double	   *weights = NULL;
	ResidualPlan *plan;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("sizes and marginals must not be NULL")));
	sizes = int_array(PG_GETARG_ARRAYTYPE_P(0), "sizes", 1, dims);
	d = dims[0];
	for (int i = 0; i < d; i++)
		if (sizes[i] < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("attribute %d has %d values; every attribute needs at least one", i + 1, sizes[i])));
	attrs = int_array(PG_GETARG_ARRAYTYPE_P(1), "marginals", 2, dims);
	m = dims[0];
	width = dims[1];
	if (!PG_ARGISNULL(2))
	{
		int			nw;

		weights = array_to_vec(PG_GETARG_ARRAYTYPE_P(2), "weights", &nw);
		if (nw != m)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("weights must have one value per marginal (%d), not %d", m, nw)));
	}
	plan = residual_plan(sizes, d, attrs, m, width, weights);

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < plan->count; i++)
	{
		Residual   *r = &plan->residuals[i];
		Datum		subset[RESIDUAL_MAX_ORDER];
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		for (int b = 0; b < r->order; b++)
			subset[b] = Int32GetDatum(r->attrs[b] + 1);
		values[0] = PointerGetDatum(construct_array(subset, r->order, INT4OID, sizeof(int32), true, TYPALIGN_INT));
		values[1] = Float8GetDatum(r->rows);
		values[2] = Float8GetDatum(r->mu);
		values[3] = Float8GetDatum(r->variance);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
