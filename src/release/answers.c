/*
 * answers.c -- a release's answers, written and read in blocks of
 * consecutive queries (dpm.release_answer_blocks).
 *
 * A row per answer cost a heap tuple, an index entry and a foreign-key check
 * each: 19.7 M of them for all <= 3-way marginals of 50 attributes (at 20
 * attributes, a third of the release's time).  A block holds ANSWER_BLOCK answers
 * as arrays, one array per column; the view dpm.release_answers shows them
 * as rows.  Both directions stream: memory holds one block at a time, however
 * many answers a release has.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "release/release.h"

/*
 * Answers to a block: 5 arrays of 4096 values are 32 kB each, stored out of
 * line; a small release is one row, a release of 10^7 answers about 2,400.
 */
#define ANSWER_BLOCK 4096

/* the columns of an answer after its query and label: answer, stderr, ci_low, ci_high */
#define ANSWER_VALUES 4

typedef struct AnswerBlock
{
	int32		first_query;
	int			n;
	Datum		labels[ANSWER_BLOCK];
	bool		label_nulls[ANSWER_BLOCK];
	Datum		values[ANSWER_VALUES][ANSWER_BLOCK];
	bool		nulls[ANSWER_VALUES][ANSWER_BLOCK];
} AnswerBlock;

/* the block's row in dpm.release_answer_blocks, its arrays made in memory rows */
static void
block_insert(SPIPlanPtr insert, int64 release, AnswerBlock *b, MemoryContext rows)
{
	Datum		args[2 + 1 + ANSWER_VALUES];
	int			dims[1] = {b->n};
	int			lbs[1] = {1};
	MemoryContext old = MemoryContextSwitchTo(rows);

	args[0] = Int64GetDatum(release);
	args[1] = Int32GetDatum(b->first_query);
	args[2] = PointerGetDatum(construct_md_array(b->labels, b->label_nulls, 1, dims, lbs, TEXTOID, -1, false,
													 TYPALIGN_INT));
	for (int c = 0; c < ANSWER_VALUES; c++)
		args[3 + c] = PointerGetDatum(construct_md_array(b->values[c], b->nulls[c], 1, dims, lbs,
														 FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL,
														 TYPALIGN_DOUBLE));
	MemoryContextSwitchTo(old);
	if (SPI_execute_plan(insert, args, NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "storing answers failed: %s", SPI_result_code_string(SPI_result));
}

/* the cursor's columns: query int, label text, ANSWER_VALUES float8s, ci_draws int */
#define DRAWS_COLUMN (3 + ANSWER_VALUES)
static void
check_columns(TupleDesc desc)
{
	bool		ok = desc->natts == DRAWS_COLUMN &&
		TupleDescAttr(desc, 0)->atttypid == INT4OID &&
		TupleDescAttr(desc, 1)->atttypid == TEXTOID &&
		TupleDescAttr(desc, DRAWS_COLUMN - 1)->atttypid == INT4OID;

	for (int c = 0; ok && c < ANSWER_VALUES; c++)
		ok = TupleDescAttr(desc, 2 + c)->atttypid == FLOAT8OID;
	if (!ok)
		elog(ERROR, "the answers' cursor must read (query int, label text, answer, stderr, ci_low, ci_high float8, ci_draws int)");
}

/*
 * dpm_internal.store_answers(release, answers refcursor, OUT stored, OUT
 * ci_draws): the rows of the open cursor answers (check_columns), in query
 * order, stored as release's answers; how many, and the most draws an
 * interval's simulation used (NULL: none).  A block ends at ANSWER_BLOCK
 * answers or where the queries stop being consecutive.  Runs after the
 * charge: total for every value, NULLs included (an array's element may be
 * NULL).
 */
PG_FUNCTION_INFO_V1(dpm_store_answers);
Datum
dpm_store_answers(PG_FUNCTION_ARGS)
{
	int64		release = PG_GETARG_INT64(0);
	char	   *name = TextDatumGetCString(PG_GETARG_DATUM(1));
	Oid			types[2 + 1 + ANSWER_VALUES] = {INT8OID, INT4OID, TEXTARRAYOID};
	Portal		portal;
	SPIPlanPtr	insert;
	MemoryContext rows,
				old;
	AnswerBlock *b = palloc(sizeof(AnswerBlock));
	int64		stored = 0;
	int32		draws = 0;
	bool		any_draws = false;
	TupleDesc	result;
	Datum		out[2];
	bool		out_nulls[2] = {false, false};

	if (get_call_result_type(fcinfo, NULL, &result) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "store_answers must return a record");
	for (int c = 0; c < ANSWER_VALUES; c++)
		types[3 + c] = FLOAT8ARRAYOID;
	SPI_connect();
	portal = SPI_cursor_find(name);
	if (portal == NULL)
		elog(ERROR, "cursor \"%s\" does not exist", name);
	insert = SPI_prepare("INSERT INTO dpm.release_answer_blocks (release_id, first_query, label, answer, stderr, ci_low, ci_high) "
						 "VALUES ($1, $2, $3, $4, $5, $6, $7)", 2 + 1 + ANSWER_VALUES, types);
	if (insert == NULL)
		elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
	/* a block's arrays, freed once it is written */
	rows = AllocSetContextCreate(CurrentMemoryContext, "answer block", ALLOCSET_DEFAULT_SIZES);
	b->n = 0;
	for (;;)
	{
		SPITupleTable *tt;
		uint64		fetched;

		CHECK_FOR_INTERRUPTS();
		SPI_cursor_fetch(portal, true, ANSWER_BLOCK);
		/* kept: writing a block sets SPI_processed and SPI_tuptable */
		tt = SPI_tuptable;
		fetched = SPI_processed;
		if (fetched == 0)
			break;
		check_columns(tt->tupdesc);
		for (uint64 i = 0; i < fetched; i++)
		{
			bool		isnull;
			int32		query = DatumGetInt32(SPI_getbinval(tt->vals[i], tt->tupdesc, 1, &isnull));
			Datum		label = SPI_getbinval(tt->vals[i], tt->tupdesc, 2, &isnull);

			if (b->n > 0 && (b->n == ANSWER_BLOCK || query != (int64) b->first_query + b->n))
			{
				block_insert(insert, release, b, rows);
				stored += b->n;
				b->n = 0;
				/* the tuples fetched are in SPI's memory, not here */
				MemoryContextReset(rows);
			}
			if (b->n == 0)
				b->first_query = query;
			/*
			 * copied: the fetched tuples go before the block is written.  In
			 * rows, named each time: SPI returns to its own context.
			 */
			b->label_nulls[b->n] = isnull;
			if (!isnull)
			{
				old = MemoryContextSwitchTo(rows);
				b->labels[b->n] = datumCopy(label, false, -1);
				MemoryContextSwitchTo(old);
			}
			for (int c = 0; c < ANSWER_VALUES; c++)
				b->values[c][b->n] = SPI_getbinval(tt->vals[i], tt->tupdesc, 3 + c, &b->nulls[c][b->n]);
			b->n++;
			{
				int32		d = DatumGetInt32(SPI_getbinval(tt->vals[i], tt->tupdesc, DRAWS_COLUMN, &isnull));

				if (!isnull && (!any_draws || d > draws))
					draws = d;
				any_draws |= !isnull;
			}
		}
		SPI_freetuptable(tt);
	}
	if (b->n > 0)
	{
		block_insert(insert, release, b, rows);
		stored += b->n;
	}
	SPI_finish();
	out[0] = Int64GetDatum(stored);
	out[1] = Int32GetDatum(draws);
	out_nulls[1] = !any_draws;
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(result), out, out_nulls)));
}

/*
 * The answers of release id into the caller's tuplestore, as rows (query,
 * label, answer, stderr, ci_low, ci_high), by the latest snapshot (replay.c
 * says why), a block at a time.
 */
void
release_answers_read(int64 id, Tuplestorestate *store, TupleDesc desc)
{
	Oid			type = INT8OID;
	Datum		value = Int64GetDatum(id);
	SPIPlanPtr	plan;
	Portal		portal;
	MemoryContext block,
				old;

	plan = SPI_prepare("SELECT first_query, label, answer, stderr, ci_low, ci_high FROM dpm.release_answer_blocks "
					   "WHERE release_id = $1 ORDER BY first_query", 1, &type);
	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
	/* a read-only cursor runs under the active snapshot */
	PushActiveSnapshot(GetLatestSnapshot());
	portal = SPI_cursor_open(NULL, plan, &value, NULL, true);
	PopActiveSnapshot();
	block = AllocSetContextCreate(CurrentMemoryContext, "answer block", ALLOCSET_DEFAULT_SIZES);
	for (;;)
	{
		SPITupleTable *tt;

		CHECK_FOR_INTERRUPTS();
		SPI_cursor_fetch(portal, true, 1);
		tt = SPI_tuptable;
		if (SPI_processed == 0)
			break;
		old = MemoryContextSwitchTo(block);
		{
			bool		isnull;
			int32		first = DatumGetInt32(SPI_getbinval(tt->vals[0], tt->tupdesc, 1, &isnull));
			Datum	   *elems[1 + ANSWER_VALUES];
			bool	   *nulls[1 + ANSWER_VALUES];
			int			n = 0;

			for (int c = 0; c <= ANSWER_VALUES; c++)
			{
				ArrayType  *a = DatumGetArrayTypeP(SPI_getbinval(tt->vals[0], tt->tupdesc, 2 + c, &isnull));
				Oid			elem = c == 0 ? TEXTOID : FLOAT8OID;
				int16		len;
				bool		byval;
				char		align;

				get_typlenbyvalalign(elem, &len, &byval, &align);
				deconstruct_array(a, elem, len, byval, align, &elems[c], &nulls[c], &n);
			}
			for (int i = 0; i < n; i++)
			{
				Datum		values[2 + ANSWER_VALUES];
				bool		isnulls[2 + ANSWER_VALUES] = {false};

				values[0] = Int32GetDatum(first + i);
				for (int c = 0; c <= ANSWER_VALUES; c++)
				{
					values[1 + c] = elems[c][i];
					isnulls[1 + c] = nulls[c][i];
				}
				/* copies the datums */
				tuplestore_putvalues(store, desc, values, isnulls);
			}
		}
		MemoryContextSwitchTo(old);
		MemoryContextReset(block);
		SPI_freetuptable(tt);
	}
	SPI_cursor_close(portal);
}
