/*
 * capped.c -- dpm_internal.capped_groups(unit, k, key, units): the rows of a
 * scan grouped by their key (a cell, or a row's bins), keeping at most k rows
 * of each privacy unit, chosen uniformly at random with the secure generator
 * (reservoir sampling), in one pass.  It is the capping of source_rows (a
 * window numbering each unit's rows in random order) as one aggregate: here,
 * because a sort of every row by unit and key costs several times a plain
 * GROUP BY of the same rows (1.9 s against 0.19 s over 10^6 rows); on a
 * foreign partition's server, because postgres_fdw ships an aggregate of an
 * extension named in its server's `extensions` option, but never a window
 * function.  As with the window, every row of a unit takes part in the draw,
 * those in no cell (a NULL in their key) too.
 *
 * Memory: a table of the units (simplehash: one probe a row, where dynahash
 * took most of the time), about 80 bytes a unit keeping one row of a key of
 * one or two elements (a 32-byte record, a 24-byte kept row, its share of
 * the buckets), 24 more a further kept row, up to
 * dpm.capping_memory_mb.  Past it, the rows of units not in the table go to a
 * temporary file, and the final function caps them in further passes over
 * it, each with an empty table, as PostgreSQL's hash aggregation spills:
 * every unit's rows are drawn from in one pass, so the draw is the same, and
 * memory stays bounded whatever the rows (the scan runs after the charge and
 * must not fail on them).
 *
 * The result is int8[]: the key's length, then per key its elements, its
 * rows, the sum of their units and the number of them with a value
 * (dpm_internal.capped_rows reads it back as rows).
 */
#include "postgres.h"

#include "access/tupmacs.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "storage/buffile.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/typcache.h"

#include "histogram/histogram.h"
#include "security/random.h"

/* dpm.capping_memory_mb: the units' table's memory before rows go to a temporary file */
int			dpm_capping_memory_mb = 256;

typedef struct CappedState CappedState;

/* a privacy unit's value (the row's, or the table's copy); NULL is one unit */
typedef struct UnitKey
{
	Datum		value;
	bool		isnull;
} UnitKey;

/*
 * A unit's record, in this pass's arena of records (numbered in the order
 * the units came): its value, the rows drawn from, its kept rows.  The
 * table holds only each unit's hash and record number, 12 bytes a bucket, so
 * that a new unit's probe misses the cache once in a table a third the size
 * of one holding the records; the totals then read the records in order.
 */
typedef struct UnitRow
{
	Datum		value;			/* copied into the pass's memory when by reference */
	int64		seen;			/* rows of the unit drawn from so far */
	char	   *more;			/* kept rows 2 .. min(seen, k), or NULL */
	bool		isnull;
	/* then the first kept row */
} UnitRow;

#define ROW_HEAD MAXALIGN(sizeof(UnitRow))

/*
 * A kept row: int64 units, int64 flags (1: has a cell, 2: units has a value),
 * int32 key[keylen].
 */
#define SLOT_CELL	1
#define SLOT_VALUED	2
#define CHUNK_UNITS 4096
#define PENDING_ROWS 32

typedef struct UnitBucket
{
	uint32		hash;
	uint32		row;			/* the record's number; PROBE: the unit being looked up */
	char		status;
} UnitBucket;

#define PROBE PG_UINT32_MAX

static inline bool rows_equal(CappedState *st, uint32 a, uint32 b);

#define SH_PREFIX units
#define SH_ELEMENT_TYPE UnitBucket
#define SH_KEY_TYPE uint32
#define SH_KEY row
#define SH_HASH_KEY(tb, k) (pg_unreachable(), 0)	/* the hash is always given */
#define SH_EQUAL(tb, a, b) rows_equal((CappedState *) (tb)->private_data, a, b)
#define SH_STORE_HASH
#define SH_GET_HASH(tb, a) a->hash
#define SH_SCOPE static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

struct CappedState
{
	MemoryContext cxt;			/* the aggregate's */
	MemoryContext units_cxt;	/* this pass's table, records and kept rows */
	units_hash *units;
	char	  **chunks;			/* the records, CHUNK_UNITS a chunk */
	int			nchunks;
	uint32		nrows;
	UnitKey		probe;			/* the unit being looked up (record PROBE) */
	TypeCacheEntry *type;
	FmgrInfo	hash_fn;
	FmgrInfo	eq_fn;
	Oid			collation;
	int32		k;
	int			keylen;			/* elements of a key; set by the first row */
	Size		slot_size;		/* bytes of one kept row */
	Size		row_size;		/* bytes of one record */
	Size		reserved;		/* bytes the admitted units' kept rows may still take */
	Size		limit;			/* bytes of the pass's memory before rows spill */
	BufFile    *spill;			/* rows of units not in the table, or NULL */
	bool		full;			/* the pass admits no more units */
	/* rows read but not yet drawn from (see capped_defer) */
	struct
	{
		UnitKey		u;
		uint32		hash;
		int64		units;
		int64		flags;
	}			pending[PENDING_ROWS];
	int32	   *pending_keys;	/* keylen elements a pending row */
	int			npending;
	MemoryContext pending_cxt;	/* pending units' values passed by reference */
};

static inline UnitRow *
row_at(CappedState *st, uint32 i)
{
	return (UnitRow *) (st->chunks[i / CHUNK_UNITS] + (Size) (i % CHUNK_UNITS) * st->row_size);
}

static inline UnitKey
row_unit(CappedState *st, uint32 i)
{
	UnitKey		u;

	if (i == PROBE)
		return st->probe;
	u.value = row_at(st, i)->value;
	u.isnull = row_at(st, i)->isnull;
	return u;
}

static inline bool
rows_equal(CappedState *st, uint32 a, uint32 b)
{
	UnitKey		x = row_unit(st, a);
	UnitKey		y = row_unit(st, b);

	if (x.isnull || y.isnull)
		return x.isnull == y.isnull;
	return DatumGetBool(FunctionCall2Coll(&st->eq_fn, st->collation, x.value, y.value));
}

static inline uint32
unit_hash(CappedState *st, UnitKey u)
{
	if (u.isnull)
		return 0;
	return DatumGetUInt32(FunctionCall1Coll(&st->hash_fn, st->collation, u.value));
}

/* a pass's empty table, made for expected units at once (the spill's passes: grown as it fills) */
static void
capped_new_pass(CappedState *st, uint32 expected)
{
	if (st->units_cxt != NULL)
		MemoryContextDelete(st->units_cxt);
	st->units_cxt = AllocSetContextCreate(st->cxt, "dpmatrix capped units", ALLOCSET_DEFAULT_SIZES);
	st->units = units_create(st->units_cxt, Max(expected, 1024), st);
	st->nchunks = 16;
	st->chunks = MemoryContextAllocZero(st->units_cxt, sizeof(char *) * st->nchunks);
	st->nrows = 0;
	st->reserved = 0;
	st->full = false;
}

/*
 * The units the first pass's table is made for: the planner's estimate of
 * the rows the aggregate reads (each may be a unit of its own), at most
 * what the pass's memory holds.  A table grown from small to 10^6 units
 * allocates, zeroes and fills twice its final size, at a page fault a page
 * and a cache miss an entry moved: a third of a capped scan's time.
 */
static uint32
capped_expected(FunctionCallInfo fcinfo, CappedState *st)
{
	Plan	   *input;
	double		most = (double) st->limit / (ROW_HEAD + st->slot_size + 2 * sizeof(UnitBucket));

	if (fcinfo->context == NULL || !IsA(fcinfo->context, AggState))
		return 0;
	input = outerPlan(((AggState *) fcinfo->context)->ss.ps.plan);
	if (input == NULL || !(input->plan_rows > 0))
		return 0;
	/* (a uint32: past 2^30 units the table grows as it fills, whatever the memory allowed) */
	return (uint32) Min(Min(input->plan_rows, most), (double) (1 << 30));
}

static CappedState *
capped_new(FunctionCallInfo fcinfo, MemoryContext cxt, int keylen)
{
	CappedState *st = MemoryContextAllocZero(cxt, sizeof(CappedState));
	Oid			type = get_fn_expr_argtype(fcinfo->flinfo, 1);

	st->cxt = cxt;
	st->type = lookup_type_cache(type, TYPECACHE_HASH_PROC | TYPECACHE_EQ_OPR);
	if (!OidIsValid(st->type->hash_proc) || !OidIsValid(st->type->eq_opr))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("the privacy unit's type %s has no hash function", format_type_be(type)),
				 errhint("Capping a unit's rows on the server that holds them needs a hashable unit column.")));
	fmgr_info_cxt(st->type->hash_proc, &st->hash_fn, cxt);
	fmgr_info_cxt(get_opcode(st->type->eq_opr), &st->eq_fn, cxt);
	st->collation = PG_GET_COLLATION();
	st->k = PG_GETARG_INT32(2);
	st->keylen = keylen;
	st->slot_size = 2 * sizeof(int64) + MAXALIGN(sizeof(int32) * keylen);
	st->row_size = ROW_HEAD + st->slot_size;
	st->limit = (Size) dpm_capping_memory_mb * 1024 * 1024;
	st->pending_keys = MemoryContextAlloc(cxt, sizeof(int32) * keylen * PENDING_ROWS);
	st->pending_cxt = AllocSetContextCreate(cxt, "dpmatrix capped pending rows", ALLOCSET_SMALL_SIZES);
	capped_new_pass(st, capped_expected(fcinfo, st));
	return st;
}

/* a uniform draw in 0 .. n-1 from the secure generator (n < 2^63; the bias is below n / 2^64) */
static int64
secure_below(int64 n)
{
	return (int64) (security_random_word() % (uint64) n);
}

/* the bytes a unit's value takes in the table, or on file */
static Size
unit_bytes(CappedState *st, UnitKey u)
{
	if (u.isnull || st->type->typbyval)
		return 0;
	return datumGetSize(u.value, false, st->type->typlen);
}

/*
 * Whether one more unit fits in the pass's memory: what the context holds,
 * what the admitted units' kept rows may still take, the table's next
 * doubling if this unit would set it off, a new chunk of records, the
 * unit's value and its further kept rows.  The first unit of a pass always
 * fits, so that every pass admits one; once a unit did not, none does until
 * the next pass (a unit whose first rows went to the file must not enter the
 * table with its later ones: its rows would be drawn from twice).
 */
static bool
capped_room(CappedState *st, UnitKey u)
{
	Size		used = MemoryContextMemAllocated(st->units_cxt, false) + st->reserved;

	if (st->nrows == 0)
		return true;
	if (st->full)
		return false;
	if (st->units->members + 1 >= st->units->grow_threshold)
		used += (Size) st->units->size * 2 * sizeof(UnitBucket);
	if (st->nrows % CHUNK_UNITS == 0)
		used += (Size) CHUNK_UNITS * st->row_size;
	st->full = st->nrows == PROBE - 1
		|| used + unit_bytes(st, u) + (Size) (st->k - 1) * st->slot_size > st->limit;
	return !st->full;
}

/* a new unit's record */
static uint32
capped_new_row(CappedState *st, UnitKey u)
{
	uint32		i = st->nrows++;
	UnitRow    *r;

	if (i / CHUNK_UNITS >= st->nchunks)
	{
		st->chunks = repalloc(st->chunks, sizeof(char *) * st->nchunks * 2);
		memset(st->chunks + st->nchunks, 0, sizeof(char *) * st->nchunks);
		st->nchunks *= 2;
	}
	if (st->chunks[i / CHUNK_UNITS] == NULL)
		st->chunks[i / CHUNK_UNITS] = MemoryContextAlloc(st->units_cxt, (Size) CHUNK_UNITS * st->row_size);
	r = row_at(st, i);
	r->isnull = u.isnull;
	r->value = u.value;
	if (!u.isnull && !st->type->typbyval)
	{
		/* the row's value does not outlive the row */
		MemoryContext old = MemoryContextSwitchTo(st->units_cxt);

		r->value = datumCopy(u.value, false, st->type->typlen);
		MemoryContextSwitchTo(old);
	}
	r->seen = 0;
	r->more = NULL;
	st->reserved += (Size) (st->k - 1) * st->slot_size;
	return i;
}

/*
 * Kept row number slot (1 .. k-1) of r, past its first: the array of them
 * doubles while the unit's first k rows come, up to k - 1 rows.
 */
static char *
capped_more(CappedState *st, UnitRow *r, int64 slot)
{
	if (r->seen <= st->k && ((slot - 1) & slot) == 0)
	{
		/* slot is a power of two: the array holds slot - 1 rows, and is full */
		int64		cap = Min((int64) st->k - 1, 2 * slot - 1);
		Size		bytes = (Size) cap * st->slot_size;
		Size		had = (Size) (slot == 1 ? 0 : slot - 1) * st->slot_size;
		MemoryContext old = MemoryContextSwitchTo(st->units_cxt);

		r->more = r->more == NULL ? palloc(bytes) : repalloc(r->more, bytes);
		MemoryContextSwitchTo(old);
		st->reserved -= Min(st->reserved, bytes - had);
	}
	return r->more + (slot - 1) * st->slot_size;
}

/* a row of a unit not in the full table, to a temporary file: hash, null, value, units, flags, key */
static void
capped_spill(CappedState *st, UnitKey u, uint32 hash, int64 units, int64 flags, const int32 *key)
{
	uint32		len = (uint32) unit_bytes(st, u);
	char		isnull = u.isnull;

	if (st->spill == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(st->cxt);

		st->spill = BufFileCreateTemp(false);
		MemoryContextSwitchTo(old);
	}
	BufFileWrite(st->spill, &hash, sizeof(hash));
	BufFileWrite(st->spill, &isnull, 1);
	BufFileWrite(st->spill, &len, sizeof(len));
	if (len > 0)
		BufFileWrite(st->spill, DatumGetPointer(u.value), len);
	else if (!u.isnull)
		BufFileWrite(st->spill, &u.value, sizeof(Datum));
	BufFileWrite(st->spill, &units, sizeof(units));
	BufFileWrite(st->spill, &flags, sizeof(flags));
	if (flags & SLOT_CELL)
		BufFileWrite(st->spill, (void *) key, sizeof(int32) * st->keylen);
}

/* reads back one spilled row (its value in buf, grown as needed); false at the file's end */
static bool
capped_read(CappedState *st, BufFile *f, UnitKey *u, uint32 *hash, int64 *units, int64 *flags,
			int32 *key, char **buf, Size *bufsize)
{
	uint32		len;
	char		isnull;
	size_t		got = BufFileRead(f, hash, sizeof(*hash));

	if (got == 0)
		return false;
	if (got != sizeof(*hash)
		|| BufFileRead(f, &isnull, 1) != 1
		|| BufFileRead(f, &len, sizeof(len)) != sizeof(len))
		elog(ERROR, "a capped scan's temporary file ended within a row");
	u->isnull = isnull;
	u->value = (Datum) 0;
	if (len > 0)
	{
		if (len > *bufsize)
		{
			*buf = repalloc(*buf, len);
			*bufsize = len;
		}
		if (BufFileRead(f, *buf, len) != len)
			elog(ERROR, "a capped scan's temporary file ended within a row");
		u->value = PointerGetDatum(*buf);
	}
	else if (!isnull && BufFileRead(f, &u->value, sizeof(Datum)) != sizeof(Datum))
		elog(ERROR, "a capped scan's temporary file ended within a row");
	if (BufFileRead(f, units, sizeof(*units)) != sizeof(*units)
		|| BufFileRead(f, flags, sizeof(*flags)) != sizeof(*flags)
		|| ((*flags & SLOT_CELL)
			&& BufFileRead(f, key, sizeof(int32) * st->keylen) != sizeof(int32) * st->keylen))
		elog(ERROR, "a capped scan's temporary file ended within a row");
	return true;
}

/*
 * One row of unit u: drawn into the unit's kept rows (the first k fill them,
 * the t-th replaces a random one with probability k / t), or, when the unit
 * is new and the table full, spilled.
 */
static void
capped_add(CappedState *st, UnitKey u, uint32 hash, int64 units, int64 flags, const int32 *key)
{
	UnitBucket *b;
	UnitRow    *r;
	bool		found;
	int64		slot;
	char	   *s;

	st->probe = u;
	if (capped_room(st, u))
	{
		b = units_insert_hash(st->units, PROBE, hash, &found);
		if (!found)
			b->row = capped_new_row(st, u);
	}
	else if ((b = units_lookup_hash(st->units, PROBE, hash)) == NULL)
	{
		capped_spill(st, u, hash, units, flags, key);
		return;
	}
	r = row_at(st, b->row);
	r->seen++;
	slot = r->seen <= st->k ? r->seen - 1 : secure_below(r->seen);
	if (slot >= st->k)
		return;
	s = slot == 0 ? (char *) r + ROW_HEAD : capped_more(st, r, slot);
	((int64 *) s)[0] = units;
	((int64 *) s)[1] = flags;
	if (flags & SLOT_CELL)
		memcpy(s + 2 * sizeof(int64), key, sizeof(int32) * st->keylen);
}

/* the pending rows drawn from, in the order they came */
static void
capped_flush(CappedState *st)
{
	for (int i = 0; i < st->npending; i++)
		capped_add(st, st->pending[i].u, st->pending[i].hash, st->pending[i].units, st->pending[i].flags,
				   st->pending_keys + i * st->keylen);
	st->npending = 0;
	MemoryContextReset(st->pending_cxt);
}

/*
 * A row, drawn from once PENDING_ROWS of them are pending: meanwhile the
 * bucket its unit hashes to is fetched into the cache.  A new unit's probe
 * misses the cache (the table of 10^6 units is 24 MB); prefetched this way,
 * the misses of a batch overlap instead of following one another.  Rows are
 * still drawn from in the order they came.
 */
static void
capped_defer(CappedState *st, UnitKey u, uint32 hash, int64 units, int64 flags, const int32 *key)
{
	int			i = st->npending++;

	__builtin_prefetch(&st->units->data[hash & st->units->sizemask]);
	if (!u.isnull && !st->type->typbyval)
	{
		/* the row's value does not outlive the row */
		MemoryContext old = MemoryContextSwitchTo(st->pending_cxt);

		u.value = datumCopy(u.value, false, st->type->typlen);
		MemoryContextSwitchTo(old);
	}
	st->pending[i].u = u;
	st->pending[i].hash = hash;
	st->pending[i].units = units;
	st->pending[i].flags = flags;
	if (flags & SLOT_CELL)
		memcpy(st->pending_keys + i * st->keylen, key, sizeof(int32) * st->keylen);
	if (st->npending == PENDING_ROWS)
		capped_flush(st);
}

PG_FUNCTION_INFO_V1(dpm_capped_groups_transfn);
Datum
dpm_capped_groups_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext cxt;
	CappedState *st = PG_ARGISNULL(0) ? NULL : (CappedState *) PG_GETARG_POINTER(0);
	ArrayType  *key = PG_ARGISNULL(3) ? NULL : PG_GETARG_ARRAYTYPE_P(3);
	UnitKey		u;
	int64		flags;

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

	u.isnull = PG_ARGISNULL(1);
	u.value = u.isnull ? (Datum) 0 : PG_GETARG_DATUM(1);
	/* a value as it is, not a TOAST pointer: it may be copied to the table or to a file */
	if (!u.isnull && st->type->typlen == -1)
		u.value = PointerGetDatum(PG_DETOAST_DATUM_PACKED(u.value));
	flags = (PG_ARGISNULL(4) ? 0 : SLOT_VALUED) | (key != NULL && !ARR_HASNULL(key) ? SLOT_CELL : 0);
	capped_defer(st, u, unit_hash(st, u),
				 PG_ARGISNULL(4) ? 0 : PG_GETARG_INT64(4), flags,
				 (flags & SLOT_CELL) ? (int32 *) ARR_DATA_PTR(key) : NULL);
	PG_RETURN_POINTER(st);
}

/* one key's totals over the kept rows; the key is a copy (kept rows go with their pass) */
typedef struct KeyEntry
{
	const int32 *key;
	int64		rows;
	int64		units;
	int64		valued;
	uint32		hash;
	char		status;
} KeyEntry;

#define SH_PREFIX keys
#define SH_ELEMENT_TYPE KeyEntry
#define SH_KEY_TYPE const int32 *
#define SH_KEY key
#define SH_HASH_KEY(tb, k) hash_bytes((const unsigned char *) (k), sizeof(int32) * *(int *) (tb)->private_data)
#define SH_EQUAL(tb, a, b) (memcmp(a, b, sizeof(int32) * *(int *) (tb)->private_data) == 0)
#define SH_STORE_HASH
#define SH_GET_HASH(tb, a) a->hash
#define SH_SCOPE static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/* one kept row added to its key's totals */
static inline void
capped_total(CappedState *st, keys_hash *keys, const char *s)
{
	int64		flags = ((const int64 *) s)[1];
	bool		found;
	KeyEntry   *t;

	if (!(flags & SLOT_CELL))
		return;
	t = keys_insert(keys, (const int32 *) (s + 2 * sizeof(int64)), &found);
	if (!found)
	{
		int32	   *copy = palloc(sizeof(int32) * st->keylen);

		memcpy(copy, s + 2 * sizeof(int64), sizeof(int32) * st->keylen);
		t->key = copy;
		t->rows = t->units = t->valued = 0;
	}
	t->rows++;
	if (flags & SLOT_VALUED)
	{
		/* saturating: k rows of up to 2^24 units each, over any number of units */
		t->units = add_saturating(t->units, ((const int64 *) s)[0]);
		t->valued++;
	}
}

/* the kept rows of this pass's units, added to their keys' totals */
static void
capped_totals(CappedState *st, keys_hash *keys)
{
	for (uint32 i = 0; i < st->nrows; i++)
	{
		UnitRow    *r = row_at(st, i);
		int64		kept = Min(r->seen, st->k);

		if (kept > 0)
			capped_total(st, keys, (char *) r + ROW_HEAD);
		for (int64 j = 1; j < kept; j++)
			capped_total(st, keys, r->more + (j - 1) * st->slot_size);
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
}

PG_FUNCTION_INFO_V1(dpm_capped_groups_finalfn);
Datum
dpm_capped_groups_finalfn(PG_FUNCTION_ARGS)
{
	CappedState *st;
	keys_hash  *keys;
	keys_iterator it;
	KeyEntry   *t;
	Datum	   *out;
	int64		nout,
				j = 1;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (CappedState *) PG_GETARG_POINTER(0);
	capped_flush(st);
	keys = keys_create(CurrentMemoryContext, 256, &st->keylen);
	capped_totals(st, keys);
	/* the spilled rows, a pass each time the table fills again */
	while (st->spill != NULL)
	{
		BufFile    *f = st->spill;
		UnitKey		u;
		uint32		hash;
		int64		units,
					flags,
					n = 0;
		int32	   *key = palloc(sizeof(int32) * st->keylen);
		Size		bufsize = 64;
		char	   *buf = palloc(bufsize);

		st->spill = NULL;
		capped_new_pass(st, 0);
		if (BufFileSeek(f, 0, 0, SEEK_SET) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not rewind a capped scan's temporary file: %m")));
		while (capped_read(st, f, &u, &hash, &units, &flags, key, &buf, &bufsize))
		{
			capped_add(st, u, hash, units, flags, key);
			if ((++n & 0xFFFF) == 0)
				CHECK_FOR_INTERRUPTS();
		}
		BufFileClose(f);
		pfree(key);
		pfree(buf);
		capped_totals(st, keys);
	}
	MemoryContextDelete(st->units_cxt);
	st->units_cxt = NULL;

	nout = 1 + (int64) keys->members * (st->keylen + 3);
	if (nout > MaxArraySize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%lld keys of capped rows are too many for one array", (long long) keys->members)));
	out = palloc_extended(sizeof(Datum) * nout, MCXT_ALLOC_HUGE);
	out[0] = Int64GetDatum(st->keylen);
	keys_start_iterate(keys, &it);
	while ((t = keys_iterate(keys, &it)) != NULL)
	{
		for (int i = 0; i < st->keylen; i++)
			out[j++] = Int64GetDatum(t->key[i]);
		out[j++] = Int64GetDatum(t->rows);
		out[j++] = Int64GetDatum(t->units);
		out[j++] = Int64GetDatum(t->valued);
	}
	PG_RETURN_ARRAYTYPE_P(construct_array(out, (int) nout, INT8OID, sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}
