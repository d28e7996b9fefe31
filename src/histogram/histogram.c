/*
 * histogram.c -- the frequency-vector aggregate dpm.histogram(cell, n).
 *
 * The transition state is one int64 counter per cell, allocated once in the
 * aggregate context (memory independent of the number of rows).  Combine,
 * serialize and deserialize let PostgreSQL run it in parallel workers and
 * merge the partial vectors.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "libpq/pqformat.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "histogram/histogram.h"

int			dpm_max_cells = 10000000;

typedef struct HistState
{
	int32		n;
	int64		counts[FLEXIBLE_ARRAY_MEMBER];
} HistState;

static HistState *
hist_new(MemoryContext cxt, int32 n)
{
	HistState  *st;

	if (n < 1 || n > dpm_max_cells)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("histogram size %d is outside 1 .. %d", n, dpm_max_cells),
				 errhint("Use fewer cells, or raise dpm.max_cells.")));
	st = MemoryContextAllocExtended(cxt, offsetof(HistState, counts) + sizeof(int64) * (size_t) n,
									MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	st->n = n;
	return st;
}

static MemoryContext
agg_context(FunctionCallInfo fcinfo, const char *fname)
{
	MemoryContext cxt;

	if (!AggCheckCallContext(fcinfo, &cxt))
		elog(ERROR, "%s called in non-aggregate context", fname);
	return cxt;
}

PG_FUNCTION_INFO_V1(dpm_histogram_transfn);
Datum
dpm_histogram_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = agg_context(fcinfo, "dpm_histogram_transfn");
	HistState  *st = PG_ARGISNULL(0) ? NULL : (HistState *) PG_GETARG_POINTER(0);
	int32		cell,
				n;

	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("histogram size must not be NULL")));
	n = PG_GETARG_INT32(2);
	if (st == NULL)
		st = hist_new(cxt, n);
	else if (st->n != n)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("histogram size changed from %d to %d within one aggregate", st->n, n)));

	/* rows that fall in no cell carry a NULL cell and are not counted */
	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(st);
	cell = PG_GETARG_INT32(1);
	if (cell < 0 || cell >= n)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cell index %d is outside 0 .. %d", cell, n - 1)));
	st->counts[cell]++;
	PG_RETURN_POINTER(st);
}

PG_FUNCTION_INFO_V1(dpm_histogram_combinefn);
Datum
dpm_histogram_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = agg_context(fcinfo, "dpm_histogram_combinefn");
	HistState  *a = PG_ARGISNULL(0) ? NULL : (HistState *) PG_GETARG_POINTER(0);
	HistState  *b = PG_ARGISNULL(1) ? NULL : (HistState *) PG_GETARG_POINTER(1);

	if (b == NULL)
		PG_RETURN_POINTER(a);
	if (a == NULL)
	{
		/* the result must live in the aggregate context, not in b's */
		a = hist_new(cxt, b->n);
		memcpy(a->counts, b->counts, sizeof(int64) * (size_t) b->n);
		PG_RETURN_POINTER(a);
	}
	if (a->n != b->n)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot combine histograms of sizes %d and %d", a->n, b->n)));
	for (int32 i = 0; i < a->n; i++)
		a->counts[i] += b->counts[i];
	PG_RETURN_POINTER(a);
}

PG_FUNCTION_INFO_V1(dpm_histogram_serialfn);
Datum
dpm_histogram_serialfn(PG_FUNCTION_ARGS)
{
	HistState  *st = (HistState *) PG_GETARG_POINTER(0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendint32(&buf, st->n);
	for (int32 i = 0; i < st->n; i++)
		pq_sendint64(&buf, st->counts[i]);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

PG_FUNCTION_INFO_V1(dpm_histogram_deserialfn);
Datum
dpm_histogram_deserialfn(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = agg_context(fcinfo, "dpm_histogram_deserialfn");
	bytea	   *raw = PG_GETARG_BYTEA_PP(0);
	StringInfoData buf;
	HistState  *st;

	buf.data = VARDATA_ANY(raw);
	buf.len = VARSIZE_ANY_EXHDR(raw);
	buf.maxlen = buf.len;
	buf.cursor = 0;
	st = hist_new(cxt, pq_getmsgint(&buf, 4));
	for (int32 i = 0; i < st->n; i++)
		st->counts[i] = pq_getmsgint64(&buf);
	pq_getmsgend(&buf);
	PG_RETURN_POINTER(st);
}

PG_FUNCTION_INFO_V1(dpm_histogram_finalfn);
Datum
dpm_histogram_finalfn(PG_FUNCTION_ARGS)
{
	HistState  *st;
	Datum	   *elems;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (HistState *) PG_GETARG_POINTER(0);
	/* the counts straight into float8 Datums: no vector of doubles in between */
	elems = palloc_extended(sizeof(Datum) * st->n, MCXT_ALLOC_HUGE);
	for (int32 i = 0; i < st->n; i++)
		elems[i] = Float8GetDatum((double) st->counts[i]);
	PG_RETURN_ARRAYTYPE_P(construct_array(elems, st->n, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL,
										  TYPALIGN_DOUBLE));
}

/* dpm.max_cells for the SQL side; calling it also loads the module, which defines the GUC */
PG_FUNCTION_INFO_V1(dpm_max_cells_fn);
Datum
dpm_max_cells_fn(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(dpm_max_cells);
}
