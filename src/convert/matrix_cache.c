/*
 * matrix_cache.c -- a stored workload's and strategy's matrices, read once
 * per resident release worker instead of once per release.
 *
 * A release against a stored dense strategy reads the workload, the strategy
 * and its pseudo-inverse from the catalog: at n = 1024 that is 40 MB of TOAST
 * chunks to fetch, decompress and check, most of what a release costs beyond
 * its scan.  The resident release worker (src/release/worker.c) answers one
 * release after another, usually against the same few strategies, so it keeps
 * them here, converted.
 *
 * The key is the value's TOAST pointer, read without fetching the value.  A
 * TOASTed value never changes: an UPDATE stores a new value under a new OID.
 * Its OID is unique among the values of its TOAST table, dead ones included
 * until VACUUM removes them, so a pointer can name different contents only
 * after its value was deleted, vacuumed away, and the server's OID counter
 * went once around its 2^32 values.  An entry is dropped long before: after
 * 2^30 OIDs counted at this worker's lookups, and after ten minutes whatever
 * the count (that many OIDs cannot be assigned in ten minutes).
 *
 * Ordinary backends keep nothing: release_keep_cxt (release.h) is NULL
 * outside the resident release worker, which resets it, and so forgets
 * every entry, when it stays idle past dpm.release_worker_idle.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/transam.h"
#include "storage/lwlock.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "pg_compat.h"
#include "convert/array.h"
#include "convert/matrix_cache.h"
#include "release/release.h"
#include "strategy/strategy.h"

#define CACHE_ENTRIES 8
#define CACHE_MAX_AGE_MS (10 * 60 * 1000)
#define CACHE_MAX_OIDS ((uint64) 1 << 30)

typedef struct CacheEntry
{
	bool		used;
	bool		transposed;		/* array_view_transposed's matrix, else array_to_mat's */
	varatt_external key;
	TimestampTz born;
	uint64		oids_born;		/* oids_seen when made */
	uint64		last_use;
	Size		bytes;
	MemoryContext cxt;			/* holds the matrix and whatever it points into */
	Mat		   *mat;
} CacheEntry;

static CacheEntry entries[CACHE_ENTRIES];
static Size cache_bytes;
static bool forget_registered;	/* forget_entries is registered on release_keep_cxt */
static uint64 use_clock;
static uint64 oids_seen;		/* OIDs assigned in the server since the first lookup */
static Oid	last_next_oid;

static void
drop_entry(CacheEntry *e)
{
	MemoryContextDelete(e->cxt);
	cache_bytes -= e->bytes;
	memset(e, 0, sizeof(*e));
}

/* count the OIDs assigned since the last lookup, and drop the entries too old by either clock */
static void
expire_entries(void)
{
	Oid			next;
	TimestampTz now = GetCurrentTimestamp();

	LWLockAcquire(OidGenLock, LW_SHARED);
	next = TransamVariables->nextOid;
	LWLockRelease(OidGenLock);
	if (use_clock > 0)
		oids_seen += (uint32) (next - last_next_oid);
	last_next_oid = next;

	for (int i = 0; i < CACHE_ENTRIES; i++)
		if (entries[i].used &&
			(oids_seen - entries[i].oids_born >= CACHE_MAX_OIDS ||
			 TimestampDifferenceExceeds(entries[i].born, now, CACHE_MAX_AGE_MS)))
			drop_entry(&entries[i]);
}

/* release_keep_cxt is reset: every entry's context is gone with it */
static void
forget_entries(void *arg)
{
	memset(entries, 0, sizeof(entries));
	cache_bytes = 0;
	forget_registered = false;
}

static MemoryContextCallback forget_callback = {forget_entries, NULL};

static Mat *
read_matrix(Datum d, bool transposed, const char *argname)
{
	ArrayType  *arr = DatumGetArrayTypeP(d);

	return transposed ? array_view_transposed(arr, argname) : array_to_mat(arr, argname);
}

const Mat *
convert_stored_matrix(Datum d, bool transposed, const char *argname)
{
	struct varlena *value = (struct varlena *) DatumGetPointer(d);
	varatt_external key;
	CacheEntry *slot = NULL;
	MemoryContext cxt,
				old;
	Mat		   *mat;
	Size		bytes,
				limit = (Size) dpm_max_memory_mb * 1024 * 1024 / 4;

	if (release_keep_cxt == NULL || !VARATT_IS_EXTERNAL_ONDISK(value))
		return read_matrix(d, transposed, argname);

	VARATT_EXTERNAL_GET_POINTER(key, value);
	expire_entries();
	use_clock++;
	for (int i = 0; i < CACHE_ENTRIES; i++)
	{
		CacheEntry *e = &entries[i];

		if (e->used && e->transposed == transposed && memcmp(&e->key, &key, sizeof(key)) == 0)
		{
			e->last_use = use_clock;
			return e->mat;
		}
	}

	/*
	 * Read it into a context of its own under the caller's: if the checks
	 * fail, it goes with the caller's memory; kept, it moves under the cache.
	 */
	cxt = AllocSetContextCreate(CurrentMemoryContext, "dpmatrix cached matrix",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	mat = read_matrix(d, transposed, argname);
	MemoryContextSwitchTo(old);
	bytes = MemoryContextMemAllocated(cxt, true);
	if (bytes > limit)
		return mat;

	/* room: the least recently used entries go first */
	for (;;)
	{
		CacheEntry *lru = NULL;

		slot = NULL;
		for (int i = 0; i < CACHE_ENTRIES; i++)
		{
			if (!entries[i].used)
				slot = slot ? slot : &entries[i];
			else if (lru == NULL || entries[i].last_use < lru->last_use)
				lru = &entries[i];
		}
		if (slot != NULL && cache_bytes + bytes <= limit)
			break;
		drop_entry(lru);
	}

	if (!forget_registered)
	{
		MemoryContextRegisterResetCallback(release_keep_cxt, &forget_callback);
		forget_registered = true;
	}
	MemoryContextSetParent(cxt, release_keep_cxt);
	slot->used = true;
	slot->transposed = transposed;
	slot->key = key;
	slot->born = GetCurrentTimestamp();
	slot->oids_born = oids_seen;
	slot->last_use = use_clock;
	slot->bytes = bytes;
	slot->cxt = cxt;
	slot->mat = mat;
	cache_bytes += bytes;
	return mat;
}
