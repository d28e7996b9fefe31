/*
 * worker.c -- dpm._run_release(req, built): a release planned by dpm.answer,
 * charged and computed by a release worker in transactions of its own.
 *
 * Why a worker.  A charge must stay charged whatever the caller does: roll
 * back, fail later in the same statement, be cancelled or killed, or lose
 * the server right after reading the answers.  Nothing the caller's own
 * transaction writes can promise that, and a procedure that commits cannot
 * be called inside a transaction block or from a SELECT.  So the caller hands
 * the planned request to a worker that is connected to the same database as
 * the extension owner and runs up to three transactions:
 *
 *   0. dpm._strategy_store, when the plan built strategies (the caller's own
 *      transaction cannot commit them for the worker to see);
 *   1. dpm._release_charge: check the catalog again, lock the source row,
 *      check the budget, insert the release and its ledger rows; commit with
 *      synchronous_commit forced on, so the charge is on disk before step 2;
 *   2. dpm._release_fill: read the source, draw the noise, store the answers.
 *
 * No long work in a worker.  Everything that can take long and does not
 * need the data, optimizing a strategy above all, happens in the caller's
 * backend before the request is queued (dpm._release_plan), under the
 * caller's statement_timeout and cancel.  A worker only charges, scans and
 * adds noise.
 *
 * A queue, served fairly by a bounded pool.  Requests wait in a queue in
 * shared memory; each database has at most dpm.release_workers workers,
 * which stay resident for dpm.release_worker_idle without a request, keeping
 * their caches (matrix_cache.c).  A free worker takes the queued request
 * whose role has the fewest releases being computed, then the oldest: one
 * analyst's many releases cannot starve another's.  A request never fails
 * for want of a worker slot; it waits (the caller can cancel).  A role may
 * have at most dpm.max_releases_per_role releases queued or in service.
 *
 * Cancel before the charge, and say which.  A caller that stops waiting
 * (cancel, statement_timeout, terminate) withdraws its request if no worker
 * has taken it, or marks it cancelled; the worker checks that mark under the
 * queue's lock just before it commits the charge, and once past that point
 * the caller is told the release's id.  So a cancelled caller always knows
 * whether it was charged, and a charged release completes.
 *
 * No release stays 'charged' forever.  From its charge until its answers
 * are stored, the worker holds a session lock on the release (a lock tag of
 * its own in the advisory space); a crash or kill releases it.  The next
 * charge on the same source marks every 'charged' release whose lock is
 * free 'interrupted' (dpm._release_in_progress), and dpm.release says so.
 *
 * The request and the result travel in a small DSM segment per release; its
 * layout is private to this file.  The caller's role is dpm._invoker()'s
 * (GetOuterUserId), taken here, so it cannot be spoofed through the
 * arguments.  The queue lives in shared memory made on first use, as
 * contrib's autoprewarm does, so that dpmatrix need not be preloaded.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "tcop/tcopprot.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "api/array.h"
#include "progress/progress.h"
#include "release/release.h"

int			dpm_debug_release_delay = 0;
int			dpm_release_worker_idle = 2000;
int			dpm_release_workers = 4;
int			dpm_max_releases_per_role = 16;

/* release workers across all databases */
#define MAX_WORKERS 32
/* releases queued or being computed across the server: one per backend at a time */
#define QUEUE_LEN 128
/* a worker registered but never connected is given up after this */
#define START_TIMEOUT_MS 30000
/* how long a cancelled caller waits to learn whether a charge being committed went through */
#define COMMIT_WAIT_MS 5000
/* field4 of the lock tag a worker holds on a release being computed (SQL advisory locks use 1, 2) */
#define RELEASE_LOCK_SPACE 0x6470

/* the outcome of a request, in its DSM segment */
typedef enum SlotState
{
	SLOT_PENDING = 0,			/* nothing committed yet */
	SLOT_REFUSED,				/* refused before the charge: nothing charged */
	SLOT_CHARGED,				/* step 1 committed: release_id is charged */
	SLOT_FAILED,				/* step 2 failed after the charge */
	SLOT_DONE					/* answers stored */
} SlotState;

typedef struct ReleaseSlot
{
	int			delay_ms;
	volatile int state;
	int64		release_id;
	int			sqlerrcode;
	char		message[1024];
	char		detail[1024];
	char		hint[512];
	Oid			built_type;		/* dpm.strategies[] */
	Size		built_len;		/* its binary form, 0: none */
	Size		req_len;		/* the request, jsonb as text, NUL included */
	char		data[FLEXIBLE_ARRAY_MEMBER];	/* request, then built */
} ReleaseSlot;

typedef enum RequestState
{
	REQ_FREE = 0,
	REQ_QUEUED,					/* waiting for a worker */
	REQ_TAKEN,					/* a worker is on it */
	REQ_DONE					/* the worker is done with it */
} RequestState;

typedef struct Request
{
	RequestState state;
	Oid			database;
	Oid			owner;			/* the workers' login: the extension owner */
	Oid			caller;			/* recorded as released_by */
	int			caller_procno;	/* whose latch to set when done */
	uint64		seq;			/* arrival order */
	dsm_handle	handle;
	int			worker;			/* while taken: its entry and generation */
	uint32		worker_generation;
	bool		cancel;			/* the caller stopped waiting: do not charge */
	bool		charging;		/* the charge is being committed: too late to cancel */
	bool		abandoned;		/* the caller left: the worker frees the entry */
	int64		release_id;		/* set with charging */
} Request;

typedef struct Worker
{
	Oid			database;
	Oid			owner;
	uint32		generation;		/* 0: a free entry */
	pid_t		pid;			/* 0 until connected */
	int			procno;
	bool		busy;
	TimestampTz registered;
} Worker;

typedef struct ReleaseShared
{
	slock_t		mutex;
	uint32		generations;
	uint64		seq;
	Worker		workers[MAX_WORKERS];
	Request		requests[QUEUE_LEN];
} ReleaseShared;

static ReleaseShared *shared;

/* in a worker */
static ResourceOwner worker_owner;
static int	my_worker = -1;
static uint32 my_generation;
static int	my_request = -1;	/* the request being served */

/* in a caller: the request it waits for */
static int	waiting_request = -1;
static bool caller_exit_registered = false;

PGDLLEXPORT void dpm_release_worker_main(Datum main_arg);

static void
attach_shared(void)
{
	bool		found;

	if (shared != NULL)
		return;
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	shared = ShmemInitStruct("dpmatrix release queue", sizeof(ReleaseShared), &found);
	if (!found)
	{
		memset(shared, 0, sizeof(ReleaseShared));
		SpinLockInit(&shared->mutex);
	}
	LWLockRelease(AddinShmemInitLock);
}

/* room in the server's shared memory when dpmatrix is preloaded (else: its spare bytes) */
Size
release_shmem_size(void)
{
	return MAXALIGN(sizeof(ReleaseShared));
}

static Oid
extension_owner(void)
{
	Oid			owner = InvalidOid;
	bool		isnull;

	SPI_connect();
	if (SPI_execute("SELECT extowner FROM pg_catalog.pg_extension WHERE extname = 'dpmatrix'",
					true, 1) == SPI_OK_SELECT && SPI_processed == 1)
		owner = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0],
											   SPI_tuptable->tupdesc, 1, &isnull));
	SPI_finish();
	if (!OidIsValid(owner))
		elog(ERROR, "extension dpmatrix is not installed in this database");
	return owner;
}

static void
release_locktag(LOCKTAG *tag, int64 release_id)
{
	SET_LOCKTAG_ADVISORY(*tag, MyDatabaseId, (uint32) ((uint64) release_id >> 32),
						 (uint32) release_id, RELEASE_LOCK_SPACE);
}

/*
 * dpm._release_in_progress(id): does a live worker hold the release's lock,
 * i.e. is it between its charge and its answers?
 */
PG_FUNCTION_INFO_V1(dpm_release_in_progress);
Datum
dpm_release_in_progress(PG_FUNCTION_ARGS)
{
	LOCKTAG		tag;

	release_locktag(&tag, PG_GETARG_INT64(0));
	if (LockAcquire(&tag, ShareLock, false, true) == LOCKACQUIRE_NOT_AVAIL)
		PG_RETURN_BOOL(true);
	LockRelease(&tag, ShareLock, false);
	PG_RETURN_BOOL(false);
}

/* ---------------------------------------------------------------- worker */

static void
copy_text(char *dst, size_t size, const char *src)
{
	strlcpy(dst, src ? src : "", size);
}

/* called before a step's commit; false: abort it instead */
typedef bool (*BeforeCommit) (int64 result);
/* computes the step's first argument inside its transaction (it may read the catalog) */
typedef Datum (*FirstArg) (ReleaseSlot *slot);

/*
 * Run one statement returning one bigint in a transaction of its own.  On
 * error, record it in the slot and return false.
 */
static bool
run_step(ReleaseSlot *slot, const char *sql, int nargs, Oid *types, Datum *values,
		 int64 *result, bool log_error, FirstArg first_arg, BeforeCommit before_commit)
{
	MemoryContext cxt = CurrentMemoryContext;
	volatile bool ok = true;

	PG_TRY();
	{
		bool		isnull = true;

		SetCurrentStatementStartTimestamp();
		StartTransactionCommand();
		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		pgstat_report_activity(STATE_RUNNING, sql);
		if (first_arg)
			values[0] = first_arg(slot);
		if (SPI_execute_with_args(sql, nargs, types, values, NULL, false, 1) < 0
			|| SPI_processed != 1 || SPI_tuptable == NULL)
			elog(ERROR, "dpmatrix release worker: \"%s\" returned no row", sql);
		*result = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
											  SPI_tuptable->tupdesc, 1, &isnull));
		if (isnull)
			*result = 0;
		SPI_finish();
		PopActiveSnapshot();
		if (before_commit && !before_commit(*result))
			ereport(ERROR,
					(errcode(ERRCODE_QUERY_CANCELED),
					 errmsg("the release was cancelled by its caller before its charge")));
		CommitTransactionCommand();
		MemoryContextSwitchTo(cxt);
		pgstat_report_activity(STATE_IDLE, NULL);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		if (log_error)
			EmitErrorReport();
		edata = CopyErrorData();
		FlushErrorState();
		AbortCurrentTransaction();
		slot->sqlerrcode = edata->sqlerrcode;
		copy_text(slot->message, sizeof(slot->message), edata->message);
		copy_text(slot->detail, sizeof(slot->detail), edata->detail);
		copy_text(slot->hint, sizeof(slot->hint), edata->hint);
		ok = false;
	}
	PG_END_TRY();
	return ok;
}

/*
 * Just before the charge commits: unless the caller has cancelled, pass the
 * point of no return (the caller will be told this id), and take the
 * release's session lock, which outlives the commit until the answers are in.
 */
static bool
charge_may_commit(int64 release_id)
{
	Request    *r = &shared->requests[my_request];
	bool		go;
	LOCKTAG		tag;

	SpinLockAcquire(&shared->mutex);
	go = !r->cancel;
	if (go)
	{
		r->charging = true;
		r->release_id = release_id;
	}
	SpinLockRelease(&shared->mutex);
	if (go)
	{
		release_locktag(&tag, release_id);
		(void) LockAcquire(&tag, ExclusiveLock, true, false);
	}
	return go;
}

/* done with my request: the caller reads the slot, or the entry is free if it left */
static void
finish_request(void)
{
	Request    *r;
	int			procno = -1;

	if (my_request < 0)
		return;
	r = &shared->requests[my_request];
	pg_write_barrier();
	SpinLockAcquire(&shared->mutex);
	if (r->abandoned)
		memset(r, 0, sizeof(Request));
	else
	{
		r->state = REQ_DONE;
		procno = r->caller_procno;
	}
	if (my_worker >= 0)
		shared->workers[my_worker].busy = false;
	SpinLockRelease(&shared->mutex);
	my_request = -1;
	if (procno >= 0)
		ProcSendSignal(procno);
}

/* FATAL or SIGTERM in a worker: its caller stops waiting, its entry is free */
static void
worker_exit(int code, Datum arg)
{
	finish_request();
	if (my_worker >= 0)
	{
		SpinLockAcquire(&shared->mutex);
		if (shared->workers[my_worker].generation == my_generation)
			memset(&shared->workers[my_worker], 0, sizeof(Worker));
		SpinLockRelease(&shared->mutex);
	}
}

/* connect, with the settings every release runs under */
static void
connect_worker(Oid database, Oid owner)
{
	BackgroundWorkerInitializeConnectionByOid(database, owner, 0);
	/* the charge must be on disk before any noise exists, whatever the server default */
	SetConfigOption("synchronous_commit", "on", PGC_SUSET, PGC_S_OVERRIDE);
	/* the budget check sums the ledger after locking the source: it needs a fresh snapshot */
	SetConfigOption("default_transaction_isolation", "read committed", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("search_path", "pg_catalog, pg_temp", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("statement_timeout", "0", PGC_SUSET, PGC_S_OVERRIDE);
	/* never wait forever on a source row held by an open transaction (maybe the caller's) */
	SetConfigOption("lock_timeout", "30s", PGC_SUSET, PGC_S_OVERRIDE);
}

/* the strategies the plan built (dpm.strategies[]), back from their binary form */
static Datum
built_strategies(ReleaseSlot *slot)
{
	StringInfoData buf;
	Oid			recv,
				ioparam;

	buf.data = slot->data + slot->req_len;
	buf.len = buf.maxlen = slot->built_len;
	buf.cursor = 0;
	getTypeBinaryInputInfo(slot->built_type, &recv, &ioparam);
	return OidReceiveFunctionCall(recv, &buf, ioparam, -1);
}

/* the steps of one release, reported in the slot */
static void
serve(ReleaseSlot *slot, Oid caller)
{
	int64		release_id = 0;
	int64		ignored;
	Oid			types[2];
	Datum		values[2];
	bool		refused = false;

	progress_set_role(caller);
	SpinLockAcquire(&shared->mutex);
	refused = shared->requests[my_request].cancel;
	SpinLockRelease(&shared->mutex);
	if (refused)
	{
		slot->sqlerrcode = ERRCODE_QUERY_CANCELED;
		copy_text(slot->message, sizeof(slot->message),
				  "the release was cancelled by its caller before its charge");
	}
	else if (slot->built_len > 0)
	{
		types[0] = slot->built_type;
		refused = !run_step(slot, "SELECT count(dpm._strategy_store(s)) FROM unnest($1) s",
							1, types, values, &ignored, true, built_strategies, NULL);
	}
	types[0] = OIDOID;
	types[1] = TEXTOID;
	values[0] = ObjectIdGetDatum(caller);
	values[1] = CStringGetTextDatum(slot->data);
	if (refused || !run_step(slot, "SELECT dpm._release_charge($1, $2::jsonb)", 2, types, values,
							 &release_id, false, NULL, charge_may_commit))
	{
		bool		locked;

		/* a commit that failed after its point of no return leaves the release's lock taken */
		SpinLockAcquire(&shared->mutex);
		locked = shared->requests[my_request].charging;
		release_id = shared->requests[my_request].release_id;
		SpinLockRelease(&shared->mutex);
		if (locked)
		{
			LOCKTAG		tag;

			release_locktag(&tag, release_id);
			LockRelease(&tag, ExclusiveLock, true);
		}
		slot->state = SLOT_REFUSED;
	}
	else
	{
		LOCKTAG		tag;

		slot->release_id = release_id;
		pg_write_barrier();
		slot->state = SLOT_CHARGED;

		for (int waited = 0; waited < slot->delay_ms; waited += 10)
		{
			CHECK_FOR_INTERRUPTS();
			pg_usleep(10000L);
		}

		types[0] = INT8OID;
		values[0] = Int64GetDatum(release_id);
		if (run_step(slot, "SELECT dpm._release_fill($1)", 1, types, values, &release_id, true,
					 NULL, NULL))
			slot->state = SLOT_DONE;
		else
		{
			slot->state = SLOT_FAILED;
			/* best effort: if this fails too, the next charge marks it interrupted */
			run_step(slot, "UPDATE dpm.releases SET status = 'failed' WHERE id = $1 RETURNING id",
					 1, types, values, &ignored, true, NULL, NULL);
		}
		release_locktag(&tag, slot->release_id);
		LockRelease(&tag, ExclusiveLock, true);
	}
	progress_set_role(InvalidOid);
	/* a transaction's end leaves no resource owner; the DSM mapping is the worker's */
	CurrentResourceOwner = worker_owner;
}

/* the queued request of this worker's database to serve next, or -1 (queue lock held) */
static int
pick_request(void)
{
	Worker	   *me = &shared->workers[my_worker];
	int			best = -1,
				best_load = 0;

	for (int i = 0; i < QUEUE_LEN; i++)
	{
		Request    *r = &shared->requests[i];
		int			load = 0;

		if (r->state != REQ_QUEUED || r->database != me->database || r->owner != me->owner)
			continue;
		/* fair: the role with the fewest releases in service first, then the oldest */
		for (int j = 0; j < QUEUE_LEN; j++)
			if (shared->requests[j].state == REQ_TAKEN && shared->requests[j].caller == r->caller)
				load++;
		if (best < 0 || load < best_load ||
			(load == best_load && r->seq < shared->requests[best].seq))
		{
			best = i;
			best_load = load;
		}
	}
	return best;
}

/* serve the queue until idle for dpm.release_worker_idle */
static void
worker_loop(void)
{
	TimestampTz idle_since = GetCurrentTimestamp();

	for (;;)
	{
		int			ri;
		dsm_handle	handle = DSM_HANDLE_INVALID;
		Oid			caller = InvalidOid;
		bool		retire = false;
		long		idle_ms;

		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		idle_ms = TimestampDifferenceMilliseconds(idle_since, GetCurrentTimestamp());
		SpinLockAcquire(&shared->mutex);
		ri = pick_request();
		if (ri >= 0)
		{
			Request    *r = &shared->requests[ri];

			r->state = REQ_TAKEN;
			r->worker = my_worker;
			r->worker_generation = my_generation;
			handle = r->handle;
			caller = r->caller;
			shared->workers[my_worker].busy = true;
			my_request = ri;
		}
		else if (idle_ms >= dpm_release_worker_idle)
		{
			memset(&shared->workers[my_worker], 0, sizeof(Worker));
			my_worker = -1;
			retire = true;
		}
		SpinLockRelease(&shared->mutex);
		if (retire)
			proc_exit(0);

		if (ri >= 0)
		{
			dsm_segment *seg;

			CurrentResourceOwner = worker_owner;
			seg = dsm_attach(handle);
			/* NULL: the caller left before it was taken; nothing was done */
			if (seg != NULL)
			{
				serve(dsm_segment_address(seg), caller);
				dsm_detach(seg);
			}
			finish_request();
			pgstat_report_stat(false);
			idle_since = GetCurrentTimestamp();
			continue;
		}
		pgstat_report_stat(true);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 Max(dpm_release_worker_idle - idle_ms, 1), PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

void
dpm_release_worker_main(Datum main_arg)
{
	Worker	   *me;
	Oid			database = InvalidOid,
				owner = InvalidOid;

	my_worker = DatumGetInt32(main_arg);
	memcpy(&my_generation, MyBgworkerEntry->bgw_extra, sizeof(my_generation));
	pqsignal(SIGTERM, die);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();
	worker_owner = ResourceOwnerCreate(NULL, "dpmatrix release worker");
	CurrentResourceOwner = worker_owner;
	attach_shared();
	me = &shared->workers[my_worker];
	SpinLockAcquire(&shared->mutex);
	if (me->generation == my_generation)
	{
		database = me->database;
		owner = me->owner;
	}
	SpinLockRelease(&shared->mutex);
	if (!OidIsValid(database))
		proc_exit(0);			/* the entry was given up before we started */
	before_shmem_exit(worker_exit, (Datum) 0);
	connect_worker(database, owner);
	dpm_matrix_cache = true;
	SpinLockAcquire(&shared->mutex);
	me->pid = MyProcPid;
	me->procno = MyProc->pgprocno;
	SpinLockRelease(&shared->mutex);
	worker_loop();
}

/* ---------------------------------------------------------------- caller */

/*
 * Make sure a worker will take the queued requests of this database: wake an
 * idle one, and start one more while there are more queued requests than
 * idle and starting workers and fewer workers than dpm.release_workers.  A
 * start that fails (no free background worker slot) is retried by the
 * waiting caller's next call; the request waits meanwhile.
 */
static void
kick_workers(Oid owner)
{
	int			procno = -1,
				count = 0,
				available = 0,
				queued = 0,
				free_entry = -1;
	bool		start = false;
	TimestampTz now = GetCurrentTimestamp();
	BackgroundWorker w;
	BackgroundWorkerHandle *handle;
	uint32		generation = 0;

	SpinLockAcquire(&shared->mutex);
	for (int i = 0; i < QUEUE_LEN; i++)
		if (shared->requests[i].state == REQ_QUEUED && shared->requests[i].database == MyDatabaseId &&
			shared->requests[i].owner == owner)
			queued++;
	for (int i = 0; i < MAX_WORKERS; i++)
	{
		Worker	   *e = &shared->workers[i];

		/* a worker registered long ago that never connected has failed to start */
		if (e->generation != 0 && e->pid == 0 &&
			TimestampDifferenceExceeds(e->registered, now, START_TIMEOUT_MS))
			memset(e, 0, sizeof(Worker));
		if (e->generation == 0)
		{
			if (free_entry < 0)
				free_entry = i;
			continue;
		}
		if (e->database != MyDatabaseId || e->owner != owner)
			continue;
		count++;
		if (e->pid == 0 || !e->busy)
			available++;
		if (e->pid != 0 && !e->busy && procno < 0)
			procno = e->procno;
	}
	if (queued > available && count < dpm_release_workers && free_entry >= 0)
	{
		Worker	   *e = &shared->workers[free_entry];

		e->database = MyDatabaseId;
		e->owner = owner;
		e->generation = generation = ++shared->generations;
		e->registered = now;
		start = true;
	}
	SpinLockRelease(&shared->mutex);
	if (procno >= 0)
		ProcSendSignal(procno);
	if (!start)
		return;

	memset(&w, 0, sizeof(w));
	w.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	w.bgw_start_time = BgWorkerStart_RecoveryFinished;
	w.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(w.bgw_library_name, BGW_MAXLEN, "dpmatrix");
	snprintf(w.bgw_function_name, BGW_MAXLEN, "dpm_release_worker_main");
	snprintf(w.bgw_name, BGW_MAXLEN, "dpmatrix release worker for database %u", MyDatabaseId);
	snprintf(w.bgw_type, BGW_MAXLEN, "dpmatrix release");
	w.bgw_main_arg = Int32GetDatum(free_entry);
	memcpy(w.bgw_extra, &generation, sizeof(generation));
	w.bgw_notify_pid = 0;
	if (RegisterDynamicBackgroundWorker(&w, &handle))
		return;
	SpinLockAcquire(&shared->mutex);
	if (shared->workers[free_entry].generation == generation)
		memset(&shared->workers[free_entry], 0, sizeof(Worker));
	SpinLockRelease(&shared->mutex);
}

/* queue a request; its entry's index */
static int
enqueue(Oid owner, Oid caller, dsm_handle handle)
{
	int			in_flight = 0,
				free_entry = -1;

	attach_shared();
	SpinLockAcquire(&shared->mutex);
	for (int i = 0; i < QUEUE_LEN; i++)
	{
		Request    *r = &shared->requests[i];

		if (r->state == REQ_FREE)
		{
			if (free_entry < 0)
				free_entry = i;
		}
		else if (r->caller == caller)
			in_flight++;
	}
	if (in_flight < dpm_max_releases_per_role && free_entry >= 0)
	{
		Request    *r = &shared->requests[free_entry];

		memset(r, 0, sizeof(Request));
		r->state = REQ_QUEUED;
		r->database = MyDatabaseId;
		r->owner = owner;
		r->caller = caller;
		r->caller_procno = MyProc->pgprocno;
		r->seq = ++shared->seq;
		r->handle = handle;
		r->worker = -1;
	}
	SpinLockRelease(&shared->mutex);
	if (in_flight >= dpm_max_releases_per_role)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("role %s already has %d releases queued or being computed",
						GetUserNameFromId(caller, false), in_flight),
				 errdetail("Nothing was charged."),
				 errhint("Wait for them to finish, or ask a superuser to raise dpm.max_releases_per_role.")));
	if (free_entry < 0)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("the release queue is full (%d releases queued or being computed)", QUEUE_LEN),
				 errdetail("Nothing was charged."),
				 errhint("Retry when the server is less busy.")));
	return free_entry;
}

/*
 * The caller stops waiting (cancel, error, exit): withdraw the request, or
 * mark it cancelled so that its worker does not charge it, unless the charge
 * is already being committed.  Returns what happened, for the caller's error;
 * when wait is true, waits (briefly) for a charge being committed to be on disk.
 */
static char *
withdraw(ReleaseSlot *slot, bool wait)
{
	Request    *r;
	int64		release_id = 0;
	bool		charging = false;

	if (waiting_request < 0)
		return NULL;
	r = &shared->requests[waiting_request];
	SpinLockAcquire(&shared->mutex);
	switch (r->state)
	{
		case REQ_QUEUED:
			memset(r, 0, sizeof(Request));
			break;
		case REQ_TAKEN:
			r->cancel = true;
			r->abandoned = true;
			charging = r->charging;
			release_id = r->release_id;
			break;
		case REQ_DONE:
			charging = r->charging;
			release_id = r->release_id;
			memset(r, 0, sizeof(Request));
			break;
		case REQ_FREE:
			break;
	}
	SpinLockRelease(&shared->mutex);
	waiting_request = -1;
	if (!charging)
		return "Nothing was charged: the release was withdrawn before its charge.";
	for (int waited = 0; wait && slot != NULL && waited < COMMIT_WAIT_MS; waited++)
	{
		pg_read_barrier();
		if (slot->state != SLOT_PENDING)
			break;
		pg_usleep(1000L);
	}
	if (slot != NULL && slot->state == SLOT_REFUSED)
		return "Nothing was charged: the release was withdrawn before its charge.";
	return psprintf("Release %lld was charged before the call stopped: it completes, and dpm.release(%lld) replays it.",
					(long long) release_id, (long long) release_id);
}

static void
caller_exit(int code, Datum arg)
{
	if (shared != NULL)
		(void) withdraw(NULL, false);
}

/*
 * Wait until the worker is done with the request, with a NOTICE every
 * dpm.progress_interval seconds saying how far the release is.
 */
static void
wait_for_worker(Oid owner, ReleaseSlot *slot)
{
	TimestampTz start = GetCurrentTimestamp(),
				last = start;
	Request    *r = &shared->requests[waiting_request];

	for (;;)
	{
		RequestState state;
		bool		gone = false;
		int			ahead = 0;
		TimestampTz now;

		SpinLockAcquire(&shared->mutex);
		state = r->state;
		if (state == REQ_TAKEN && shared->workers[r->worker].generation != r->worker_generation)
			gone = true;		/* its worker exited without reporting */
		if (state == REQ_QUEUED)
			for (int i = 0; i < QUEUE_LEN; i++)
				if (shared->requests[i].state == REQ_QUEUED && shared->requests[i].seq < r->seq &&
					shared->requests[i].database == r->database)
					ahead++;
		SpinLockRelease(&shared->mutex);
		if (state == REQ_DONE || gone)
			return;
		if (state == REQ_QUEUED)
			kick_workers(owner);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 state == REQ_QUEUED ? 100L : 1000L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		now = GetCurrentTimestamp();
		if (dpm_progress_interval > 0 &&
			TimestampDifferenceExceeds(last, now, dpm_progress_interval * 1000))
		{
			double		secs = (double) (now - start) / USECS_PER_SEC;

			last = now;
			pg_read_barrier();
			if (slot->state == SLOT_CHARGED)
				ereport(NOTICE,
						(errmsg("release %lld is charged and its answers are being computed (%.0f s)",
								(long long) slot->release_id, secs),
						 errhidestmt(true), errhidecontext(true)));
			else if (state == REQ_QUEUED)
				ereport(NOTICE,
						(errmsg("release: waiting for a release worker, %d releases ahead (%.0f s)",
								ahead, secs),
						 errhidestmt(true), errhidecontext(true)));
			else
				ereport(NOTICE,
						(errmsg("release: checking the budget (%.0f s)", secs),
						 errhidestmt(true), errhidecontext(true)));
		}
	}
}

PG_FUNCTION_INFO_V1(dpm_run_release);
Datum
dpm_run_release(PG_FUNCTION_ARGS)
{
	Jsonb	   *req = PG_GETARG_JSONB_P(0);
	ArrayType  *built = PG_GETARG_ARRAYTYPE_P(1);
	Oid			built_type = get_fn_expr_argtype(fcinfo->flinfo, 1);
	char	   *text = JsonbToCString(NULL, &req->root, VARSIZE(req));
	size_t		req_len = strlen(text) + 1;
	bytea	   *built_bin = NULL;
	size_t		built_len = 0;
	dsm_segment *seg;
	ReleaseSlot *slot;
	ReleaseSlot result;
	Oid			owner = extension_owner();
	MemoryContext cxt = CurrentMemoryContext;
	bool		charging;

	if (ArrayGetNItems(ARR_NDIM(built), ARR_DIMS(built)) > 0)
	{
		Oid			send;
		bool		varlena;

		getTypeBinaryOutputInfo(built_type, &send, &varlena);
		built_bin = OidSendFunctionCall(send, PointerGetDatum(built));
		built_len = VARSIZE(built_bin) - VARHDRSZ;
	}
	seg = dsm_create(offsetof(ReleaseSlot, data) + req_len + built_len, 0);
	slot = dsm_segment_address(seg);
	memset(slot, 0, offsetof(ReleaseSlot, data));
	slot->delay_ms = dpm_debug_release_delay;
	slot->req_len = req_len;
	slot->built_len = built_len;
	slot->built_type = built_type;
	memcpy(slot->data, text, req_len);
	if (built_len > 0)
		memcpy(slot->data + req_len, VARDATA(built_bin), built_len);

	if (!caller_exit_registered)
	{
		before_shmem_exit(caller_exit, (Datum) 0);
		caller_exit_registered = true;
	}
	/* the caller, as dpm._invoker() names it: dpm.answer runs as the extension owner */
	waiting_request = enqueue(owner, GetOuterUserId(), dsm_segment_handle(seg));
	PG_TRY();
	{
		kick_workers(owner);
		wait_for_worker(owner, slot);
	}
	PG_CATCH();
	{
		char	   *what;
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		what = withdraw(slot, true);
		edata = CopyErrorData();
		FlushErrorState();
		if (what != NULL)
			edata->detail = edata->detail ? psprintf("%s %s", edata->detail, what) : what;
		ReThrowError(edata);
	}
	PG_END_TRY();

	pg_read_barrier();
	memcpy(&result, slot, offsetof(ReleaseSlot, data));
	SpinLockAcquire(&shared->mutex);
	charging = shared->requests[waiting_request].charging;
	if (charging)
		result.release_id = shared->requests[waiting_request].release_id;
	memset(&shared->requests[waiting_request], 0, sizeof(Request));
	SpinLockRelease(&shared->mutex);
	waiting_request = -1;
	dsm_detach(seg);
	slot = &result;

	switch ((SlotState) slot->state)
	{
		case SLOT_DONE:
			break;
		case SLOT_REFUSED:
			ereport(ERROR,
					(errcode(slot->sqlerrcode),
					 errmsg("%s", slot->message),
					 slot->detail[0] ? errdetail("%s", slot->detail) : 0,
					 slot->hint[0] ? errhint("%s", slot->hint) : 0));
			break;
		case SLOT_FAILED:
			ereport(ERROR,
					(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
					 errmsg("release %lld was charged but could not be computed",
							(long long) slot->release_id),
					 errdetail("The charge stands; the release is marked failed."),
					 errhint("The custodian can find the cause in the server log.")));
			break;
		case SLOT_PENDING:
		case SLOT_CHARGED:
			if (slot->state == SLOT_CHARGED)
				ereport(ERROR,
						(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
						 errmsg("the worker computing release %lld stopped before it finished",
								(long long) slot->release_id),
						 errdetail("The charge stands; the release will be marked interrupted.")));
			if (charging)
				ereport(ERROR,
						(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
						 errmsg("the worker charging release %lld stopped while it committed the charge",
								(long long) slot->release_id),
						 errhint("dpm.releases lists the release if the charge was committed.")));
			ereport(ERROR,
					(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
					 errmsg("the dpmatrix release worker stopped before it charged the release"),
					 errdetail("Nothing was charged."),
					 errhint("Retry; dpm.releases lists every release that was charged.")));
			break;
	}
	PG_RETURN_INT64(slot->release_id);
}
