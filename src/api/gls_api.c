/*
 * gls_api.c -- dpm_internal.gls(w, release_ids, quantity, confidence): the
 * estimates of a workload's queries from the kept measurements of these
 * releases (inference/gls.h), read from the catalog here.  Argument checks
 * and conversion only.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "api/array.h"
#include "inference/gls.h"
#include "mechanism/interval.h"

/* release id's measurement of this quantity through its dense strategy, into part (in cxt) */
static void
read_part(int64 id, text *quantity, GlsPart *part, MemoryContext cxt)
{
	Oid			types[2] = {INT8OID, TEXTOID};
	Datum		values[2] = {Int64GetDatum(id), PointerGetDatum(quantity)};
	bool		isnull[5];
	Datum		d[5];
	MemoryContext old;
	int			len;

	if (SPI_execute_with_args("SELECT s.matrix, m.y, m.variance, m.laplace_t, m.laplace_grid_exp "
							  "FROM dpm.releases r JOIN dpm.strategies s ON s.id = r.strategy_id "
							  "JOIN dpm.release_measurements m ON m.release_id = r.id AND m.quantity = $2 "
							  "WHERE r.id = $1 AND s.matrix IS NOT NULL",
							  2, types, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the measurements of release " INT64_FORMAT, id);
	if (SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("release " INT64_FORMAT " keeps no %s measured through a dense strategy", id,
						text_to_cstring(quantity))));
	for (int c = 0; c < 5; c++)
		d[c] = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, c + 1, &isnull[c]);
	old = MemoryContextSwitchTo(cxt);
	part->a = array_to_mat(DatumGetArrayTypeP(d[0]), "strategy");
	part->y = array_to_vec(DatumGetArrayTypeP(d[1]), "y", &len);
	if (len != part->a->rows)
		elog(ERROR, "release " INT64_FORMAT " measured %d values through a strategy of %d rows", id, len, part->a->rows);
	part->variance = array_to_vec(DatumGetArrayTypeP(d[2]), "variance", &len)[0];
	part->law.t = 0.0;
	part->law.grid_exp = 0;
	if (!isnull[3] && !isnull[4])
	{
		int			lt,
					lg;
		double	   *t = array_to_vec(DatumGetArrayTypeP(d[3]), "laplace_t", &lt);
		ArrayType  *g = DatumGetArrayTypeP(d[4]);

		lg = ArrayGetNItems(ARR_NDIM(g), ARR_DIMS(g));
		if (lt != 1 || lg != 1 || ARR_ELEMTYPE(g) != INT4OID || !(t[0] > 0.0))
			elog(ERROR, "release " INT64_FORMAT " keeps an invalid Laplace law", id);
		part->law.t = t[0];
		part->law.grid_exp = ((int32 *) ARR_DATA_PTR(g))[0];
	}
	MemoryContextSwitchTo(old);
}

PG_FUNCTION_INFO_V1(dpm_gls);
Datum
dpm_gls(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext cxt = CurrentMemoryContext;
	Mat		   *w;
	ArrayType  *ids;
	int64	   *id;
	int			nparts;
	GlsPart    *parts;
	GlsResult  *res;
	double		confidence;

	for (int i = 0; i < 3; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("the workload, the releases and the quantity must not be NULL")));
	w = array_to_mat(PG_GETARG_ARRAYTYPE_P(0), "w");
	ids = PG_GETARG_ARRAYTYPE_P(1);
	if (ARR_NDIM(ids) != 1 || ARR_HASNULL(ids) || ARR_ELEMTYPE(ids) != INT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("release_ids must be a one-dimensional bigint array without NULLs")));
	nparts = ArrayGetNItems(1, ARR_DIMS(ids));
	if (nparts < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("an estimate needs at least one release")));
	id = (int64 *) ARR_DATA_PTR(ids);
	confidence = api_confidence_arg(fcinfo, 3);

	parts = palloc0(sizeof(GlsPart) * nparts);
	SPI_connect();
	for (int k = 0; k < nparts; k++)
		read_part(id[k], PG_GETARG_TEXT_PP(2), &parts[k], cxt);
	SPI_finish();

	res = gls_estimate(w, parts, nparts, confidence);
	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < w->rows; i++)
	{
		bool		ok = res->determined[i];
		Datum		values[6] = {Int32GetDatum(i + 1), Float8GetDatum(res->answers[i]),
			Float8GetDatum(res->stderrs[i]), Float8GetDatum(res->half ? res->half[i] : 0.0),
		BoolGetDatum(ok), Int32GetDatum(res->ci_draws)};
		bool		nulls[6] = {false, !ok, !ok, !ok || !res->half, false, res->ci_draws == 0};

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
