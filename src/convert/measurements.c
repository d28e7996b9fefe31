/*
 * measurements.c -- Measurements <-> a dpm.release_measurements row:
 * (release_id, y, part_sizes, variance, laplace_t, laplace_grid_exp), the
 * last two NULL for Gaussian noise; and a release's row read back for the
 * estimates that combine releases.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/snapmgr.h"

#include "convert/array.h"
#include "convert/measurements.h"

static ArrayType *
int_array(const int *v, int count)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(count, 1));

	for (int i = 0; i < count; i++)
		d[i] = Int32GetDatum(v[i]);
	return construct_array(d, count, INT4OID, 4, true, TYPALIGN_INT);
}

Datum
convert_measurements_datum(FunctionCallInfo fcinfo, Measurements *m)
{
	TupleDesc	tupdesc;
	Datum		values[7];
	bool		nulls[7] = {true, false, false, false, true, true, true};
	bool		laplace = m->parts > 0 && m->laws[0].t > 0.0;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE || tupdesc->natts != 7)
		elog(ERROR, "the measurements' row type is not dpm.release_measurements");
	values[0] = values[6] = (Datum) 0;
	values[1] = PointerGetDatum(array_from_vec(m->y, (int) m->total));
	/* the values are in the array now: one copy less beside the row made of it */
	pfree(m->y);
	m->y = NULL;
	values[2] = PointerGetDatum(int_array(m->sizes, m->parts));
	values[3] = PointerGetDatum(array_from_vec(m->variance, m->parts));
	if (laplace)
	{
		double	   *t = palloc(sizeof(double) * m->parts);
		int		   *g = palloc(sizeof(int) * m->parts);

		for (int i = 0; i < m->parts; i++)
		{
			t[i] = m->laws[i].t;
			g[i] = m->laws[i].grid_exp;
		}
		values[4] = PointerGetDatum(array_from_vec(t, m->parts));
		values[5] = PointerGetDatum(int_array(g, m->parts));
		nulls[4] = nulls[5] = false;
	}
	return HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls));
}

/* a column of the row: int4[] or float8[] of `count` values (count -1: any), no NULLs */
static void *
column(HeapTupleHeader row, const char *name, Oid type, int *count)
{
	bool		isnull;
	Datum		d = GetAttributeByName(row, name, &isnull);
	ArrayType  *arr;

	if (isnull)
		return NULL;
	arr = DatumGetArrayTypeP(d);
	if (ARR_ELEMTYPE(arr) != type || ARR_NDIM(arr) > 1 || ARR_HASNULL(arr) ||
		(*count >= 0 && ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr)) != *count))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the measurements' %s must be an array without NULLs%s", name,
						*count >= 0 ? ", one value per part" : "")));
	*count = ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
	return ARR_DATA_PTR(arr);
}

Measurements *
convert_measurements_arg(FunctionCallInfo fcinfo, int i)
{
	HeapTupleHeader row;
	Measurements *m;
	int			parts = -1,
				count,
				values = -1;
	int		   *sizes;
	double	   *y,
			   *variance,
			   *t;
	int		   *grid;

	if (PG_ARGISNULL(i))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the measurements must not be NULL")));
	row = PG_GETARG_HEAPTUPLEHEADER(i);
	sizes = column(row, "part_sizes", INT4OID, &parts);
	y = column(row, "y", FLOAT8OID, &values);
	count = parts;
	variance = column(row, "variance", FLOAT8OID, &count);
	count = parts;
	t = column(row, "laplace_t", FLOAT8OID, &count);
	count = parts;
	grid = column(row, "laplace_grid_exp", INT4OID, &count);
	if (sizes == NULL || y == NULL || variance == NULL || (t == NULL) != (grid == NULL))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the measurements need y, part_sizes and variance, and laplace_t with laplace_grid_exp or neither")));
	for (int k = 0; k < parts; k++)
		if (sizes[k] < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("part %d of the measurements has a negative size", k + 1)));
	m = measurements_new(parts, sizes);
	if (m->total != (size_t) values)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the measurements hold %d values, their parts %zu", values, m->total)));
	memcpy(m->y, y, sizeof(double) * (size_t) values);
	for (int k = 0; k < parts; k++)
	{
		m->variance[k] = variance[k];
		if (t != NULL)
			m->laws[k] = (LaplaceLaw) {grid[k], t[k]};
	}
	return m;
}

void
convert_release_row(const char *sql, int64 id, text *quantity, const char *what, int ncols, Datum *d, bool *isnull)
{
	Oid			types[2] = {INT8OID, TEXTOID};
	Datum		values[2] = {Int64GetDatum(id), PointerGetDatum(quantity)};
	SPIPlanPtr	plan = SPI_prepare(sql, 2, types);

	if (plan == NULL ||
		SPI_execute_snapshot(plan, values, NULL, GetLatestSnapshot(), InvalidSnapshot, true, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the measurements of release " INT64_FORMAT, id);
	if (SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("release " INT64_FORMAT " keeps no %s %s", id, text_to_cstring(quantity), what)));
	for (int c = 0; c < ncols; c++)
		d[c] = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, c + 1, &isnull[c]);
}
