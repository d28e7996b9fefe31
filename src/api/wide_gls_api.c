/*
 * wide_gls_api.c -- dpm_internal.wide_gls: the estimates of a workload of
 * marginals from every residual release kept of its source, over a domain
 * of any width (the plans and releases are residual_release_api.c's).
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

/*
 * Estimates over a wide domain, where there are no dense cells to solve for
 * (dpm_internal.wide_gls): the residual basis decouples least squares.
 * Every residual release (Gaussian: residual A's estimate of Pi_A x_A with
 * covariance V_A Pi_A; Laplace: table S with iid noise of variance v_S,
 * which estimates each A in S by Pi_A summed out, covariance N_{S \ A} v_S
 * Pi_A) adds its estimates of the workload's residuals, weighted by 1 / V;
 * the combined residual has covariance (sum 1 / V)^-1 Pi_A, and the
 * workload's answers follow from the residuals as for one release.
 */
typedef struct WideSum
{
	double	  **sum;			/* per residual of the target: sum of est / V (NULL: none) */
	double	   *precision;		/* sum of 1 / V */
	bool	   *laplace;		/* some estimate has Laplace noise */
	MemoryContext cxt;			/* of the sums: the caller's, not SPI's */
} WideSum;

static void
wide_add(WideSum *ws, const SpecMarginals *t, int i, const double *est, double v, bool laplace)
{
	int			cells = (int) t->w->residuals[i].cells;

	if (ws->sum[i] == NULL)
		ws->sum[i] = MemoryContextAllocZero(ws->cxt, sizeof(double) * Max(cells, 1));
	for (int c = 0; c < cells; c++)
		ws->sum[i][c] += est[c] / v;
	ws->precision[i] += 1.0 / v;
	ws->laplace[i] |= laplace;
}

/* release id's measurements of quantity, added to ws (its domain has t's definition) */
static void
wide_read(int64 id, text *quantity, WorkloadDomain *dom, const SpecMarginals *t, WideSum *ws)
{
	bool		isnull[6];
	Datum		d[6];
	SpecMarginals sm;
	double	   *y,
			   *variance;
	int			len,
				nvar,
				row = 0;
	bool		laplace;

	convert_release_row("SELECT w.spec, (s.residual).attribute_sets, coalesce((s.residual).variances, (s.residual).table_weights), "
					"s.noise = 'laplace', m.y, m.variance "
					"FROM dpm.releases r JOIN dpm.strategies s ON s.id = r.strategy_id "
					"JOIN dpm.workloads w ON w.id = r.workload_id "
					"JOIN dpm.release_measurements m ON m.release_id = r.id AND m.quantity = $2 "
					"WHERE r.id = $1 AND (s.residual).attribute_sets IS NOT NULL AND w.spec IS NOT NULL",
					id, quantity, "measured through a residual strategy", 6, d, isnull);
	for (int c = 0; c < 6; c++)
		if (isnull[c])
			elog(ERROR, "release " INT64_FORMAT " keeps an incomplete residual plan", id);
	api_spec_marginals_of(dom, TextDatumGetCString(d[0]), &sm);
	laplace = DatumGetBool(d[3]);
	y = array_to_vec(DatumGetArrayTypeP(d[4]), "y", &len);
	variance = array_to_vec(DatumGetArrayTypeP(d[5]), "variance", &nvar);
	if (laplace)
	{
		double	   *theta;
		int			count;
		int		   *sets = api_residual_plan_tables(&sm, DatumGetArrayTypeP(d[1]), DatumGetArrayTypeP(d[2]), &theta, &count);

		if (count != nvar)
			elog(ERROR, "release " INT64_FORMAT " keeps %d parts for %d tables", id, nvar, count);
		for (int k = 0; k < count; k++)
		{
			const Residual *s = &sm.w->residuals[sets[k]];

			if (row + (int) s->cells > len)
				elog(ERROR, "release " INT64_FORMAT " keeps fewer values than its tables", id);
			/* every residual of the target within table S */
			for (int i = 0; i < t->w->count; i++)
			{
				const Residual *a = &t->w->residuals[i];
				int		   *map;
				double	   *est;
				int			k2 = 0;

				for (int b = 0; b < s->order && k2 < a->order; b++)
					if (s->attrs[b] == a->attrs[k2])
						k2++;
				if (k2 < a->order || a->rows <= 0.0)
					continue;
				CHECK_FOR_INTERRUPTS();
				map = residual_subset_index(s, a, sm.sizes);
				est = palloc0(sizeof(double) * Max((int) a->cells, 1));
				for (int c = 0; c < (int) s->cells; c++)
					est[map[c]] += y[row + c];
				residual_project(a, sm.sizes, est);
				wide_add(ws, t, i, est, s->cells / a->cells * variance[k], true);
				pfree(map);
				pfree(est);
			}
			row += (int) s->cells;
		}
	}
	else
	{
		double	   *v = api_residual_plan_variances(&sm, DatumGetArrayTypeP(d[1]), DatumGetArrayTypeP(d[2]));
		int			k = 0;

		for (int j = 0; j < sm.w->count; j++)
		{
			const Residual *a = &sm.w->residuals[j];
			int			i;

			if (!(v[j] > 0.0))
				continue;
			if (k >= nvar || row + (int) a->cells > len)
				elog(ERROR, "release " INT64_FORMAT " keeps fewer parts than its plan", id);
			i = residual_find(t->w, a->attrs, a->order);
			if (i >= 0)
				wide_add(ws, t, i, y + row, variance[k], false);
			row += (int) a->cells;
			k++;
		}
	}
	if (row != len)
		elog(ERROR, "release " INT64_FORMAT " keeps more values than its plan", id);
}

/*
 * dpm_internal.wide_gls(spec, dom, release_ids, quantity, confidence): the
 * estimates of the workload's queries (a marginal spec) from these residual
 * releases over dom's definition, as dpm_internal.gls returns them;
 * intervals when every residual used has Gaussian noise (none otherwise).
 */
PG_FUNCTION_INFO_V1(dpm_wide_gls);
Datum
dpm_wide_gls(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	WorkloadDomain dom;
	SpecMarginals t;
	WideSum		ws;
	ArrayType  *ids;
	int			nids,
				query = 0;
	double	  **est,
			   *var,
			  **answers,
			  **stderrs;
	double		confidence;

	api_residual_check_plan_args(fcinfo, 4);
	confidence = api_confidence_arg(fcinfo, 4);
	api_domain_arg_wide(fcinfo, &dom);
	api_spec_marginals_of(&dom, text_to_cstring(PG_GETARG_TEXT_PP(0)), &t);
	ids = PG_GETARG_ARRAYTYPE_P(2);
	if (ARR_NDIM(ids) != 1 || ARR_HASNULL(ids) || ARR_ELEMTYPE(ids) != INT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("release_ids must be a one-dimensional bigint array without NULLs")));
	nids = ArrayGetNItems(1, ARR_DIMS(ids));
	ws.sum = palloc0(sizeof(double *) * Max(t.w->count, 1));
	ws.precision = palloc0(sizeof(double) * Max(t.w->count, 1));
	ws.laplace = palloc0(sizeof(bool) * Max(t.w->count, 1));
	ws.cxt = CurrentMemoryContext;
	SPI_connect();
	for (int k = 0; k < nids; k++)
		wide_read(((int64 *) ARR_DATA_PTR(ids))[k], PG_GETARG_TEXT_PP(3), &dom, &t, &ws);
	SPI_finish();

	est = palloc0(sizeof(double *) * Max(t.w->count, 1));
	var = palloc0(sizeof(double) * Max(t.w->count, 1));
	for (int i = 0; i < t.w->count; i++)
		if (ws.precision[i] > 0.0)
		{
			est[i] = ws.sum[i];
			for (int c = 0; c < (int) t.w->residuals[i].cells; c++)
				est[i][c] /= ws.precision[i];
			var[i] = 1.0 / ws.precision[i];
		}
	answers = palloc(sizeof(double *) * Max(t.m, 1));
	stderrs = palloc(sizeof(double *) * Max(t.m, 1));
	residual_answers(t.w, t.sizes, est, var, answers, stderrs);

	InitMaterializedSRF(fcinfo, 0);
	for (int j = 0; j < t.m; j++)
	{
		bool		determined = true,
					laplace = false;
		int			queries = (int) residual_term_queries(t.w, j, t.sizes);
		double	   *half = NULL;

		/* a term is determined when every residual it needs was measured */
		for (int p = t.w->first[j]; p < t.w->first[j + 1]; p++)
		{
			const Residual *a = &t.w->residuals[t.w->member[p]];

			if (a->rows > 0.0 && a->mu > 0.0 && est[t.w->member[p]] == NULL)
				determined = false;
			laplace |= ws.laplace[t.w->member[p]];
		}
		if (determined && !laplace && confidence != NO_INTERVALS)
			half = interval_gaussian(stderrs[j], queries, confidence);
		for (int q = 0; q < queries; q++)
		{
			Datum		values[6] = {Int32GetDatum(++query), Float8GetDatum(answers[j][q]),
				Float8GetDatum(stderrs[j][q]), Float8GetDatum(half ? half[q] : 0.0),
			BoolGetDatum(determined), Int32GetDatum(0)};
			bool		nulls[6] = {false, !determined, !determined, half == NULL, false, true};

			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	return (Datum) 0;
}
