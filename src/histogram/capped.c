/*
 * capped.c -- dpm_internal.capped_groups(unit, k, key, units): the rows of a
 * scan grouped by their key (a cell, or a row's bins), keeping at most k rows
 * of each privacy unit, chosen uniformly at random with the secure generator
 * (reservoir sampling), in one pass.  It is the capping of source_rows (a
 * window numbering each unit's rows in random order) as one aggregate,
 * because postgres_fdw ships an aggregate of an extension named in its
 * server's `extensions` option to the server holding the rows, but never a
 * window function: a capped scan of a foreign partition then sends back its
 * counts, not its rows.  As with the window, every row of a unit takes part
 * in the draw, those in no cell (a NULL in their key) too.
 *
 * Memory: k rows a unit, on the server that runs it.  The result is int8[]:
 * the key's length, then per key its elements, its rows, the sum of their
 * units and the number of them with a value (dpm_internal.capped_rows reads
 * it back as rows).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/typcache.h"

#include "histogram/histogram.h"
#include "security/random.h"

/* a privacy unit: its value (copied into the aggregate's memory) and hash; NULL is one unit */
typedef struct UnitKey
{
	uint32		hash;
	bool		isnull;
	Datum		value;
} UnitKey;

typedef struct CappedState
{
	MemoryContext cxt;
	HTAB	   *units;
	TypeCacheEntry *type;
	Oid			collation;
	int32		k;
	int			keylen;			/* elements of a key; set by the first row */
	Size		slot_size;		/* bytes of one kept row */
} CappedState;

/*
 * A unit's entry: its key, how many of its rows were seen, then k slots of
 * kept rows, each: int64 units, int64 flags (1: has a cell, 2: units has a
 * value), int32 key[keylen].
 */
typedef struct UnitEntry
{
	UnitKey		key;
	int64		seen;
	char		slots[FLEXIBLE_ARRAY_MEMBER];
} UnitEntry;

#define SLOT_CELL	1
#define SLOT_VALUED	2

/* the state whose units dynahash is comparing (a unit's equality needs its type) */
static CappedState *comparing;

static uint32
unit_hash(const void *key, Size keysize)
{
	return ((const UnitKey *) key)->hash;
}

static int
unit_match(const void *a, const void *b, Size keysize)
{
	const UnitKey *x = a;
	const UnitKey *y = b;

	if (x->hash != y->hash || x->isnull != y->isnull)
		return 1;
	if (x->isnull)
		return 0;
	return DatumGetBool(FunctionCall2Coll(&comparing->type->eq_opr_finfo, comparing->collation,
										  x->value, y->value)) ? 0 : 1;
}

static CappedState *
capped_new(FunctionCallInfo fcinfo, MemoryContext cxt, int keylen)
{
	CappedState *st = MemoryContextAllocZero(cxt, sizeof(CappedState));
	Oid			type = get_fn_expr_argtype(fcinfo->flinfo, 1);
	HASHCTL		ctl;

	st->cxt = cxt;
	st->type = lookup_type_cache(type, TYPECACHE_HASH_PROC_FINFO | TYPECACHE_EQ_OPR_FINFO);
	if (!OidIsValid(st->type->hash_proc) || !OidIsValid(st->type->eq_opr))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("the privacy unit's type %s has no hash function", format_type_be(type)),
				 errhint("Capping a unit's rows on the server that holds them needs a hashable unit column.")));
	st->collation = PG_GET_COLLATION();
	st->k = PG_GETARG_INT32(2);
	st->keylen = keylen;
	st->slot_size = 2 * sizeof(int64) + MAXALIGN(sizeof(int32) * keylen);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(UnitKey);
	ctl.entrysize = offsetof(UnitEntry, slots) + st->slot_size * st->k;
	ctl.hash = unit_hash;
	ctl.match = unit_match;
	ctl.hcxt = cxt;
	st->units = hash_create("dpmatrix capped units", 1024, &ctl,
							HASH_ELEM | HASH_FUNCTION | HASH_COMPARE | HASH_CONTEXT);
	return st;
}

/* a uniform draw in 0 .. n-1 from the secure generator (n < 2^63; the bias is below n / 2^64) */
static int64
secure_below(int64 n)
{
	return (int64) (security_random_word() % (uint64) n);
}

PG_FUNCTION_INFO_V1(dpm_capped_groups_transfn);
Datum
dpm_capped_groups_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext cxt;
	CappedState *st = PG_ARGISNULL(0) ? NULL : (CappedState *) PG_GETARG_POINTER(0);
	ArrayType  *key = PG_ARGISNULL(3) ? NULL : PG_GETARG_ARRAYTYPE_P(3);
	UnitKey		uk;
	UnitEntry  *e;
	bool		found;
	int64		slot;
	char	   *s;

	if (!AggCheckCallContext(fcinfo, &cxt))
		elog(ERROR, "dpm_capped_groups_transfn called in non-aggregate context");
	if (PG_ARGISNULL(2) || PG_GETARG_INT32(2) < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the rows kept per unit must be at least 1")));
	if (key != NULL && (ARR_NDIM(key) != 1 || ARR_ELEMTYPE(key) != INT4OID))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a key must be a one-dimensional int4[]")));
	if (st == NULL)
		st = capped_new(fcinfo, cxt, key == NULL ? 1 : ARR_DIMS(key)[0]);
	if (key != NULL && ARR_DIMS(key)[0] != st->keylen)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("keys of %d and %d elements within one aggregate", st->keylen, ARR_DIMS(key)[0])));

	uk.isnull = PG_ARGISNULL(1);
	uk.value = uk.isnull ? (Datum) 0 : PG_GETARG_DATUM(1);
	uk.hash = uk.isnull ? 0 : DatumGetUInt32(FunctionCall1Coll(&st->type->hash_proc_finfo, st->collation, uk.value));
	comparing = st;
	e = hash_search(st->units, &uk, HASH_ENTER, &found);
	if (!found)
	{
		/* the key must outlive the row: a copy in the aggregate's memory */
		if (!uk.isnull)
		{
			MemoryContext old = MemoryContextSwitchTo(st->cxt);

			e->key.value = datumCopy(uk.value, st->type->typbyval, st->type->typlen);
			MemoryContextSwitchTo(old);
		}
		e->seen = 0;
	}
	/* reservoir: the first k rows fill the slots, the t-th replaces a random one with probability k / t */
	e->seen++;
	slot = e->seen <= st->k ? e->seen - 1 : secure_below(e->seen);
	if (slot >= st->k)
		PG_RETURN_POINTER(st);
	s = e->slots + slot * st->slot_size;
	((int64 *) s)[0] = PG_ARGISNULL(4) ? 0 : PG_GETARG_INT64(4);
	((int64 *) s)[1] = (PG_ARGISNULL(4) ? 0 : SLOT_VALUED)
		| (key != NULL && !ARR_HASNULL(key) ? SLOT_CELL : 0);
	if (key != NULL && !ARR_HASNULL(key))
		memcpy(s + 2 * sizeof(int64), ARR_DATA_PTR(key), sizeof(int32) * st->keylen);
	PG_RETURN_POINTER(st);
}

/* one key's totals over the kept rows */
typedef struct KeyTotals
{
	int32	   *key;			/* keylen elements (the dynahash key, by value) */
	int64		rows;
	int64		units;
	int64		valued;
} KeyTotals;

PG_FUNCTION_INFO_V1(dpm_capped_groups_finalfn);
Datum
dpm_capped_groups_finalfn(PG_FUNCTION_ARGS)
{
	CappedState *st;
	HASH_SEQ_STATUS seq;
	UnitEntry  *e;
	HTAB	   *keys;
	HASHCTL		ctl;
	Datum	   *out;
	int64		n = 0,
				nout;
	char	   *k;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (CappedState *) PG_GETARG_POINTER(0);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(int32) * st->keylen;
	ctl.entrysize = MAXALIGN(ctl.keysize) + sizeof(KeyTotals);
	ctl.hcxt = CurrentMemoryContext;
	keys = hash_create("dpmatrix capped keys", 256, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	hash_seq_init(&seq, st->units);
	while ((e = hash_seq_search(&seq)) != NULL)
	{
		for (int64 i = 0; i < Min(e->seen, st->k); i++)
		{
			char	   *s = e->slots + i * st->slot_size;
			int64		flags = ((int64 *) s)[1];
			bool		found;
			KeyTotals  *t;

			if (!(flags & SLOT_CELL))
				continue;
			k = hash_search(keys, s + 2 * sizeof(int64), HASH_ENTER, &found);
			t = (KeyTotals *) (k + MAXALIGN(ctl.keysize));
			if (!found)
			{
				t->key = (int32 *) k;
				t->rows = t->units = t->valued = 0;
				n++;
			}
			t->rows++;
			if (flags & SLOT_VALUED)
			{
				/* saturating: k rows of up to 2^24 units each, over any number of units */
				t->units = add_saturating(t->units, ((int64 *) s)[0]);
				t->valued++;
			}
		}
		CHECK_FOR_INTERRUPTS();
	}
	nout = 1 + n * (st->keylen + 3);
	if (nout > MaxArraySize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%lld keys of capped rows are too many for one array", (long long) n)));
	out = palloc_extended(sizeof(Datum) * nout, MCXT_ALLOC_HUGE);
	out[0] = Int64GetDatum(st->keylen);
	{
		HASH_SEQ_STATUS kseq;
		int64		j = 1;

		hash_seq_init(&kseq, keys);
		while ((k = hash_seq_search(&kseq)) != NULL)
		{
			KeyTotals  *t = (KeyTotals *) (k + MAXALIGN(ctl.keysize));

			for (int i = 0; i < st->keylen; i++)
				out[j++] = Int64GetDatum(t->key[i]);
			out[j++] = Int64GetDatum(t->rows);
			out[j++] = Int64GetDatum(t->units);
			out[j++] = Int64GetDatum(t->valued);
		}
	}
	PG_RETURN_ARRAYTYPE_P(construct_array(out, (int) nout, INT8OID, sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}
