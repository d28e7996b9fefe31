/*
 * residual_api.c -- dpm_internal.residual_plan and residual_targets:
 * ResidualPlanner's plans (strategy/residual/residual.h) for a set of marginals, one
 * row per residual.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "api/args.h"
#include "linalg/linalg.h"
#include "mechanism/exact.h"
#include "strategy/residual/residual.h"

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

/*
 * dpm_internal.residual_matrix(sizes, subsets, variances): the dense strategy
 * a plan stands for, for tests on small domains: for each residual A (a row
 * of subsets, 1-based, 0 pads) with noise variance tau^2, the rows
 * (1 / tau) Pi_A M_A, Pi_A = (x)_{i in A} (I - J / n_i) projecting A's
 * marginal table M_A x onto its residual; cells in the domain's order (the
 * last attribute fastest).  Its A^T A, hence every variance of the plan,
 * is that of measuring each residual with isotropic noise of variance tau^2.
 */
PG_FUNCTION_INFO_V1(dpm_residual_matrix);
Datum
dpm_residual_matrix(PG_FUNCTION_ARGS)
{
	int			dims[2],
				d,
				count,
				width,
				nvar;
	int		   *sizes,
			   *subsets;
	double	   *variance;
	double		n = 1.0,
				rows = 0.0;
	Mat		   *a;
	int			row = 0;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("sizes, subsets and variances must not be NULL")));
	sizes = int_array(PG_GETARG_ARRAYTYPE_P(0), "sizes", 1, dims);
	d = dims[0];
	subsets = int_array(PG_GETARG_ARRAYTYPE_P(1), "subsets", 2, dims);
	count = dims[0];
	width = dims[1];
	variance = array_to_vec(PG_GETARG_ARRAYTYPE_P(2), "variances", &nvar);
	if (nvar != count)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("variances must have one value per subset (%d), not %d", count, nvar)));
	for (int i = 0; i < d; i++)
	{
		if (sizes[i] < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("attribute %d has %d values; every attribute needs at least one", i + 1, sizes[i])));
		n *= sizes[i];
	}
	for (int s = 0; s < count; s++)
	{
		double		cells = 1.0;

		for (int c = 0; c < width; c++)
		{
			int			attr = subsets[s * width + c];

			if (attr < 0 || attr > d)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("subset %d names attribute %d; the domain has attributes 1 to %d", s + 1, attr, d)));
			if (attr > 0)
				cells *= sizes[attr - 1];
		}
		if (!(variance[s] > 0.0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("variances must be positive, got %g for subset %d", variance[s], s + 1)));
		rows += cells;
	}
	mat_check_size(rows, n, "residual strategy");
	a = mat_new((int) rows, (int) n);
	for (int s = 0; s < count; s++)
	{
		const int  *sub = &subsets[s * width];
		double		cells = 1.0,
					scale = 1.0 / sqrt(variance[s]);

		for (int c = 0; c < width; c++)
			if (sub[c] > 0)
				cells *= sizes[sub[c] - 1];
		for (int r = 0; r < (int) cells; r++, row++)
		{
			CHECK_FOR_INTERRUPTS();
			for (int cell = 0; cell < (int) n; cell++)
			{
				double		v = scale;
				int			rest_r = r;

				/* r is the residual's cell (mixed radix over its attributes, the last fastest) */
				for (int c = width - 1; c >= 0; c--)
				{
					int			attr = sub[c] - 1,
								rv,
								cv,
								rest_c = cell;

					if (attr < 0)
						continue;
					rv = rest_r % sizes[attr];
					rest_r /= sizes[attr];
					/* the full cell's value of attr */
					for (int b = d - 1; b > attr; b--)
						rest_c /= sizes[b];
					cv = rest_c % sizes[attr];
					v *= (rv == cv ? 1.0 : 0.0) - 1.0 / sizes[attr];
				}
				MAT(a, row, cell) = v;
			}
		}
	}
	PG_RETURN_ARRAYTYPE_P(array_from_mat(a));
}

/*
 * dpm_internal.residual_mechanism(sizes, marginals, x, rho, weights): one
 * release of the sum plan on the caller's own vector x over a small domain
 * (for tests: a release reads its marginal tables from the source), at
 * rho-zCDP for one record: (marginal, cell, answer, variance) for every cell
 * of every marginal.
 */
PG_FUNCTION_INFO_V1(dpm_residual_mechanism);
Datum
dpm_residual_mechanism(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int		   *sizes,
			   *attrs;
	int			d,
				m,
				width,
				nx;
	double	   *weights,
			   *xd,
				rho,
				n = 1.0;
	int64	   *x;
	ResidualWorkload *w;
	ResidualTables *t;
	double	   *variance,
			  **answers,
			  **stderrs;

	workload_args(fcinfo, "weights", &sizes, &d, &attrs, &m, &width, &weights);
	if (PG_ARGISNULL(3) || PG_ARGISNULL(4))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("x and rho must not be NULL")));
	xd = array_to_vec(PG_GETARG_ARRAYTYPE_P(3), "x", &nx);
	rho = PG_GETARG_FLOAT8(4);
	if (!(rho > 0.0 && isfinite(rho)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rho must be a positive finite number, got %g", rho)));
	for (int i = 0; i < d; i++)
		n *= sizes[i];
	if (nx != n)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("x has %d values but the domain has %.0f cells", nx, n)));
	if (d > RESIDUAL_MAX_ORDER)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a frequency vector over more than %d attributes is too large here", RESIDUAL_MAX_ORDER)));
	x = exact_counts(xd, nx);
	w = residual_workload(sizes, d, attrs, m, width, weights, NULL);
	(void) residual_plan_workload(w);
	variance = palloc(sizeof(double) * Max(w->count, 1));
	for (int i = 0; i < w->count; i++)
		variance[i] = w->residuals[i].variance;

	/* the plan is for unit sensitivity over noise (cost2 = 1): rho-zCDP takes sigma = 1 / sqrt(2 rho) */
	t = residual_tables(w, NULL, 0);
	answers = palloc0(sizeof(double *) * Max(m, 1));
	stderrs = palloc0(sizeof(double *) * Max(m, 1));
	residual_gaussian_infer(w, sizes, variance,
							residual_gaussian_measure(w, t, sizes, variance, 1.0 / sqrt(2.0 * rho), 1.0,
													  residual_tables_of_vector(t, sizes, d, x)),
							RESIDUAL_LS, answers, stderrs);

	InitMaterializedSRF(fcinfo, 0);
	for (int j = 0; j < m; j++)
	{
		for (int c = 0; c < (int) residual_of_marginal(w, j)->cells; c++)
		{
			Datum		values[4];
			bool		nulls[4] = {false, false, false, false};

			values[0] = Int32GetDatum(j + 1);
			values[1] = Int32GetDatum(c + 1);
			values[2] = Float8GetDatum(answers[j][c]);
			values[3] = Float8GetDatum(stderrs[j][c] * stderrs[j][c]);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	return (Datum) 0;
}
