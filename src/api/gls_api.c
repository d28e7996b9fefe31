/*
 * gls_api.c -- dpm_internal.gls(w, release_ids, quantity, confidence,
 * w_map, maps): the estimates of a workload's queries from the kept
 * measurements of these releases (mechanism/gls.h), read from the catalog
 * here, all on one base domain: each map sends the base's cells to the cells
 * of the workload's or of a release's domain (dpm_internal.cell_map).
 * Argument checks and conversion only.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "api/args.h"
#include "convert/measurements.h"
#include "mechanism/gls.h"
#include "mechanism/interval.h"

/*
 * a (rows x k) as a matrix over the base's n cells: column c of the result is
 * column map[c] of a, or zeros where map[c] is -1 (a base cell in none of a's)
 */
static Mat *
through_map(Mat *a, const int32 *map, int n, const char *what)
{
	Mat		   *b;

	if (map == NULL)
		return a;
	b = mat_new(a->rows, n);
	for (int c = 0; c < n; c++)
	{
		if (map[c] < -1 || map[c] >= a->cols)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the map of %s sends a cell to %d, outside its %d cells", what, map[c], a->cols)));
		if (map[c] >= 0)
			for (int i = 0; i < a->rows; i++)
				MAT(b, i, c) = MAT(a, i, map[c]);
	}
	mat_free(a);
	return b;
}

/* the maps argument i: rows of n cells, or NULL (every map the identity) */
static int32 *
maps_arg(FunctionCallInfo fcinfo, int i, int rows, int *n)
{
	ArrayType  *a;

	if (PG_ARGISNULL(i))
		return NULL;
	a = PG_GETARG_ARRAYTYPE_P(i);
	if (ARR_ELEMTYPE(a) != INT4OID || ARR_HASNULL(a) || ARR_NDIM(a) != (rows == 0 ? 1 : 2) ||
		(rows > 0 && ARR_DIMS(a)[0] != rows) || ARR_DIMS(a)[ARR_NDIM(a) - 1] < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be %s of integers without NULLs", i == 4 ? "w_map" : "maps",
						rows == 0 ? "a one-dimensional array" : "a two-dimensional array, one row a release,")));
	if (*n >= 0 && ARR_DIMS(a)[ARR_NDIM(a) - 1] != *n)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the maps must all have the base domain's %d cells, got %d", *n, ARR_DIMS(a)[ARR_NDIM(a) - 1])));
	*n = ARR_DIMS(a)[ARR_NDIM(a) - 1];
	return (int32 *) ARR_DATA_PTR(a);
}

/*
 * Release id's measurements of this quantity as parts (in cxt), one per part
 * of its measurements (a ResidualPlanner plan has one per residual or table,
 * each with its noise), appended to parts[*count ..]: rows of the matrix its
 * strategy writes out (dpm_internal.strategy_matrix), each through map (NULL:
 * the identity) onto the base's n cells.
 */
static void
read_release(int64 id, text *quantity, const int32 *map, int n, GlsPart **parts, int *count, int *cap,
			 MemoryContext cxt)
{
	bool		isnull[6];
	Datum		d[6];
	MemoryContext old;
	int			len,
				nsizes,
				nvar,
				nt = 0,
				row = 0;
	Mat		   *a;
	double	   *y,
			   *variance,
			   *t = NULL;
	int32	   *sizes,
			   *grid = NULL;

	convert_release_row("SELECT dpm_internal.strategy_matrix(s.matrix, s.kronecker, s.residual, s.noise, w.spec, d), m.y, m.part_sizes, m.variance, m.laplace_t, "
					"m.laplace_grid_exp "
					"FROM dpm.releases r JOIN dpm.strategies s ON s.id = r.strategy_id "
					"JOIN dpm.workloads w ON w.id = r.workload_id JOIN dpm.domains d ON d.id = w.domain_id "
					"JOIN dpm.release_measurements m ON m.release_id = r.id AND m.quantity = $2 "
					"WHERE r.id = $1 AND dpm_internal.strategy_dense(s, d)",
					id, quantity, "measured through a strategy that can be written out", 6, d, isnull);
	old = MemoryContextSwitchTo(cxt);
	a = array_to_mat(DatumGetArrayTypeP(d[0]), "strategy");
	y = array_to_vec(DatumGetArrayTypeP(d[1]), "y", &len);
	if (len != a->rows)
		elog(ERROR, "release " INT64_FORMAT " measured %d values through a strategy of %d rows", id, len, a->rows);
	{
		ArrayType  *ps = DatumGetArrayTypeP(d[2]);

		nsizes = ArrayGetNItems(ARR_NDIM(ps), ARR_DIMS(ps));
		sizes = (int32 *) ARR_DATA_PTR(ps);
	}
	variance = array_to_vec(DatumGetArrayTypeP(d[3]), "variance", &nvar);
	if (!isnull[4] && !isnull[5])
	{
		ArrayType  *g = DatumGetArrayTypeP(d[5]);

		t = array_to_vec(DatumGetArrayTypeP(d[4]), "laplace_t", &nt);
		if (ARR_ELEMTYPE(g) != INT4OID || ArrayGetNItems(ARR_NDIM(g), ARR_DIMS(g)) != nt)
			elog(ERROR, "release " INT64_FORMAT " keeps an invalid Laplace law", id);
		grid = (int32 *) ARR_DATA_PTR(g);
	}
	if (nvar != nsizes || (t != NULL && nt != nsizes))
		elog(ERROR, "release " INT64_FORMAT " keeps %d parts but %d variances", id, nsizes, nvar);
	for (int k = 0; k < nsizes; k++)
	{
		GlsPart    *part;
		Mat		   *rows;

		if (sizes[k] < 0 || row + sizes[k] > a->rows)
			elog(ERROR, "release " INT64_FORMAT " keeps parts of more values than it measured", id);
		if (*count == *cap)
		{
			*cap *= 2;
			*parts = repalloc(*parts, sizeof(GlsPart) * *cap);
		}
		part = &(*parts)[(*count)++];
		rows = mat_new(sizes[k], a->cols);
		for (int c = 0; c < a->cols; c++)
			for (int i = 0; i < sizes[k]; i++)
				MAT(rows, i, c) = MAT(a, row + i, c);
		part->a = through_map(rows, map, n, "a release");
		part->y = y + row;
		part->variance = variance[k];
		part->law.t = t != NULL ? t[k] : 0.0;
		part->law.grid_exp = grid != NULL ? grid[k] : 0;
		if (t != NULL && !(t[k] > 0.0))
			elog(ERROR, "release " INT64_FORMAT " keeps an invalid Laplace law", id);
		row += sizes[k];
	}
	if (row != a->rows)
		elog(ERROR, "release " INT64_FORMAT " keeps parts of fewer values than it measured", id);
	mat_free(a);
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
	int			nids,
				nparts = 0,
				cap;
	GlsPart    *parts;
	GlsResult  *res;
	double		confidence;
	int32	   *w_map,
			   *maps;
	int			n = -1;

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
	nids = ArrayGetNItems(1, ARR_DIMS(ids));
	if (nids < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("an estimate needs at least one release")));
	id = (int64 *) ARR_DATA_PTR(ids);
	confidence = api_confidence_arg(fcinfo, 3);
	w_map = maps_arg(fcinfo, 4, 0, &n);
	maps = maps_arg(fcinfo, 5, nids, &n);
	if ((w_map == NULL) != (maps == NULL))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("w_map and maps go together: both NULL, or both given")));
	w = through_map(w, w_map, n, "the workload");

	cap = nids;
	parts = palloc0(sizeof(GlsPart) * cap);
	SPI_connect();
	for (int k = 0; k < nids; k++)
		read_release(id[k], PG_GETARG_TEXT_PP(2), maps ? maps + (size_t) k * n : NULL, n, &parts, &nparts, &cap, cxt);
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
