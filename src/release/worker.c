/*
 * worker.c -- dpm._run_release(args jsonb): one release, done by a background
 * worker in transactions of its own.
 *
 * Why a worker.  A charge must stay charged whatever the caller does: roll
 * back, fail later in the same statement, be cancelled or killed, or lose
 * the server right after reading the answers.  Nothing the caller's own
 * transaction writes can promise that, and a procedure that commits cannot
 * be called inside a transaction block or from a SELECT.  So the caller hands
 * the request to a worker that is connected to the same database as the
 * extension owner and runs two transactions:
 *
 *   1. dpm._release_charge: validate, lock the source row, check the budget,
 *      insert the release and its ledger rows; commit with synchronous_commit
 *      forced on, so the charge is on disk before step 2 starts.
 *   2. dpm._release_fill: read the source, draw the noise, store the answers.
 *
 * The caller waits for the worker to report and then reads the stored answers
 * (dpm.release).  A cancelled or killed caller stops waiting, not the
 * worker: the release completes and can be replayed.  If step 2 fails the
 * charge stands and the release is marked failed; the cause goes to the
 * server log only, because it may depend on the data.
 *
 * Which worker.  Starting a worker, loading the library, compiling the
 * PL/pgSQL and reading the strategy from the catalog cost more than the
 * release itself at n = 1024.  So a worker stays resident after its release,
 * one per database (and extension owner), for dpm.release_worker_idle
 * without a request, keeping its caches (matrix_cache.c).  A release that
 * finds it idle hands the request over; one that finds it busy starts a
 * worker of its own, which exits after that one release.  Either way the
 * release is the same two transactions: the guarantees above do not depend
 * on which worker runs them.  The default idle limit, 2 s, stays below the
 * 5 s that DROP DATABASE waits for other sessions to leave.
 *
 * The request and the result travel in a small DSM segment per release; its
 * layout is private to this file.  The caller's role is taken from
 * GetUserId() here, so it cannot be spoofed through the SQL arguments.  The
 * resident workers are listed in a small struct in shared memory, made on
 * first use as contrib's autoprewarm does, so that dpmatrix need not be preloaded.
 */
#include "postgres.h"

#include "access/xact.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "api/array.h"
#include "progress/progress.h"
#include "release/release.h"

int			dpm_debug_release_delay = 0;
int			dpm_release_worker_idle = 2000;

/* how long a caller waits for a free background worker slot */
#define SLOT_WAIT_MS 30000
/* resident workers, across all databases */
#define RESIDENTS 8

typedef enum SlotState
{
	SLOT_PENDING = 0,			/* nothing committed yet */
	SLOT_REFUSED,				/* step 1 failed: nothing charged */
	SLOT_CHARGED,				/* step 1 committed: release_id is charged */
	SLOT_FAILED,				/* step 2 failed after the charge */
	SLOT_DONE					/* answers stored */
} SlotState;

typedef struct ReleaseSlot
{
	Oid			database;
	Oid			owner;			/* the worker's login: the extension owner */
	Oid			caller;			/* recorded as released_by */
	int			caller_procno;	/* whose latch to set when finished */
	int			delay_ms;
	volatile int state;
	volatile bool finished;		/* the worker is done with this request */
	int64		release_id;
	int			sqlerrcode;
	char		message[1024];
	char		detail[1024];
	char		hint[512];
	char		args[FLEXIBLE_ARRAY_MEMBER];	/* the request, jsonb as text */
} ReleaseSlot;

/* a resident worker; database InvalidOid: a free entry */
typedef struct Resident
{
	Oid			database;
	Oid			owner;
	uint32		generation;		/* tells this worker from earlier ones in the entry */
	pid_t		pid;			/* 0 until it is connected */
	int			procno;
	bool		busy;			/* a request is handed over and not yet finished */
	dsm_handle	request;		/* handed over, not yet taken */
} Resident;

typedef struct ReleaseShared
{
	slock_t		mutex;
	uint32		generations;
	Resident	residents[RESIDENTS];
} ReleaseShared;

/* what a worker is started for (bgw_extra) */
typedef struct WorkerArgs
{
	int			resident;		/* its entry, or -1: one release, then exit */
	uint32		generation;
	dsm_handle	request;
} WorkerArgs;

/* what a caller watches to know the worker still lives */
typedef struct Watch
{
	BackgroundWorkerHandle *handle; /* a worker this caller started */
	int			resident;
	uint32		generation;
} Watch;

static ReleaseShared *shared;

/* in a worker */
static ResourceOwner worker_owner;
static ReleaseSlot *current_slot;
static Resident *my_entry;
static uint32 my_generation;

PGDLLEXPORT void dpm_release_worker_main(Datum main_arg);

static void
attach_shared(void)
{
	bool		found;

	if (shared != NULL)
		return;
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	shared = ShmemInitStruct("dpmatrix release workers", sizeof(ReleaseShared), &found);
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
copy_text(char *dst, size_t size, const char *src)
{
	strlcpy(dst, src ? src : "", size);
}

/*
 * Run one statement returning one bigint in a transaction of its own.  On
 * error, record it in the slot and return false.
 */
static bool
run_step(ReleaseSlot *slot, const char *sql, int nargs, Oid *types, Datum *values,
		 int64 *result, bool log_error)
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
		if (SPI_execute_with_args(sql, nargs, types, values, NULL, false, 1) < 0
			|| SPI_processed != 1 || SPI_tuptable == NULL)
			elog(ERROR, "dpmatrix release worker: \"%s\" returned no row", sql);
		*result = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
											  SPI_tuptable->tupdesc, 1, &isnull));
		if (isnull)
			*result = 0;
		SPI_finish();
		PopActiveSnapshot();
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

static void
finish_request(ReleaseSlot *slot)
{
	pg_write_barrier();
	slot->finished = true;
	ProcSendSignal(slot->caller_procno);
}

/* FATAL or SIGTERM in a worker: the caller stops waiting, and the entry is free again */
static void
worker_exit(int code, Datum arg)
{
	if (current_slot != NULL)
		finish_request(current_slot);
	if (my_entry != NULL)
	{
		SpinLockAcquire(&shared->mutex);
		if (my_entry->generation == my_generation)
			memset(my_entry, 0, sizeof(Resident));
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

/* the two steps of one release, reported in the slot */
static void
serve(ReleaseSlot *slot)
{
	MemoryContext cxt = AllocSetContextCreate(TopMemoryContext, "dpmatrix release",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	int64		release_id;
	Oid			types[2] = {OIDOID, TEXTOID};
	Datum		values[2];

	current_slot = slot;
	if (slot->database != MyDatabaseId || slot->owner != GetUserId())
		elog(FATAL, "dpmatrix release worker: a request for another database or owner");
	values[0] = ObjectIdGetDatum(slot->caller);
	values[1] = CStringGetTextDatum(slot->args);
	if (!run_step(slot, "SELECT dpm._release_charge($1, $2::jsonb)", 2, types, values,
				  &release_id, false))
		slot->state = SLOT_REFUSED;
	else
	{
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
		if (run_step(slot, "SELECT dpm._release_fill($1)", 1, types, values, &release_id, true))
			slot->state = SLOT_DONE;
		else
		{
			int64		ignored;

			slot->state = SLOT_FAILED;
			/* best effort: the release keeps status 'charged' if this fails too */
			run_step(slot, "UPDATE dpm.releases SET status = 'failed' WHERE id = $1 RETURNING id",
					 1, types, values, &ignored, true);
		}
	}
	/* a transaction's end leaves no resource owner; the DSM mapping is the worker's */
	CurrentResourceOwner = worker_owner;
	current_slot = NULL;
	finish_request(slot);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	pgstat_report_stat(false);
}

/* attach the request's segment and serve it; false when the caller has already gone */
static bool
serve_handle(dsm_handle handle)
{
	dsm_segment *seg;

	CurrentResourceOwner = worker_owner;
	seg = dsm_attach(handle);
	if (seg == NULL)
		return false;			/* the caller left before we started: nothing done */
	serve(dsm_segment_address(seg));
	dsm_detach(seg);
	return true;
}

/* a resident worker: serve what is handed over until idle for dpm.release_worker_idle */
static void
resident_loop(void)
{
	TimestampTz idle_since = GetCurrentTimestamp();

	for (;;)
	{
		dsm_handle	handle = DSM_HANDLE_INVALID;
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
		if (my_entry->busy && my_entry->request != DSM_HANDLE_INVALID)
		{
			handle = my_entry->request;
			my_entry->request = DSM_HANDLE_INVALID;
		}
		else if (!my_entry->busy && idle_ms >= dpm_release_worker_idle)
		{
			memset(my_entry, 0, sizeof(Resident));
			retire = true;
		}
		SpinLockRelease(&shared->mutex);
		if (retire)
			proc_exit(0);

		if (handle != DSM_HANDLE_INVALID)
		{
			(void) serve_handle(handle);
			SpinLockAcquire(&shared->mutex);
			my_entry->busy = false;
			SpinLockRelease(&shared->mutex);
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
	WorkerArgs	args;
	Oid			database,
				owner;

	memcpy(&args, MyBgworkerEntry->bgw_extra, sizeof(args));
	pqsignal(SIGTERM, die);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();
	worker_owner = ResourceOwnerCreate(NULL, "dpmatrix release worker");
	CurrentResourceOwner = worker_owner;
	before_shmem_exit(worker_exit, (Datum) 0);

	if (args.resident < 0)
	{
		dsm_segment *seg = dsm_attach(args.request);
		ReleaseSlot *slot;

		if (seg == NULL)
			proc_exit(0);		/* the caller left before we started: nothing done */
		slot = dsm_segment_address(seg);
		connect_worker(slot->database, slot->owner);
		serve(slot);
		proc_exit(0);
	}

	attach_shared();
	my_entry = &shared->residents[args.resident];
	my_generation = args.generation;
	SpinLockAcquire(&shared->mutex);
	database = my_entry->database;
	owner = my_entry->owner;
	if (my_entry->generation != my_generation)
		my_entry = NULL;		/* the caller that started us has given the entry up */
	SpinLockRelease(&shared->mutex);
	if (my_entry == NULL)
		proc_exit(0);
	connect_worker(database, owner);
	dpm_matrix_cache = true;
	SpinLockAcquire(&shared->mutex);
	my_entry->pid = MyProcPid;
	my_entry->procno = MyProc->pgprocno;
	SpinLockRelease(&shared->mutex);
	resident_loop();
}

/*
 * Register a worker; NULL when no slot is free and !wait, else waits for one
 * (all may be busy with parallel queries or other releases).
 */
static BackgroundWorkerHandle *
start_worker(const WorkerArgs *args, bool wait)
{
	BackgroundWorker w;
	BackgroundWorkerHandle *handle;
	TimestampTz start = GetCurrentTimestamp();

	memset(&w, 0, sizeof(w));
	w.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	w.bgw_start_time = BgWorkerStart_RecoveryFinished;
	w.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(w.bgw_library_name, BGW_MAXLEN, "dpmatrix");
	snprintf(w.bgw_function_name, BGW_MAXLEN, "dpm_release_worker_main");
	if (args->resident >= 0)
		snprintf(w.bgw_name, BGW_MAXLEN, "dpmatrix release worker for database %u", MyDatabaseId);
	else
		snprintf(w.bgw_name, BGW_MAXLEN, "dpmatrix release for backend %d", MyProcPid);
	snprintf(w.bgw_type, BGW_MAXLEN, "dpmatrix release");
	memcpy(w.bgw_extra, args, sizeof(*args));
	w.bgw_notify_pid = MyProcPid;

	while (!RegisterDynamicBackgroundWorker(&w, &handle))
	{
		if (!wait)
			return NULL;
		if (TimestampDifferenceExceeds(start, GetCurrentTimestamp(), SLOT_WAIT_MS))
			ereport(ERROR,
					(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
					 errmsg("no background worker slot became free for the release within %d s",
							SLOT_WAIT_MS / 1000),
					 errdetail("Nothing was charged."),
					 errhint("Raise max_worker_processes, or retry when the server is less busy.")));
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 20,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	return handle;
}

/*
 * Give the request to this database's resident worker: the idle one, or a
 * new one if there is none.  False when it is busy, or no entry or worker
 * slot is free: the caller then starts a worker for this release alone.
 */
static bool
hand_over(dsm_handle request, Oid owner, Watch *watch)
{
	Resident   *r = NULL,
			   *free_entry = NULL;
	bool		handed = false,
				start = false;
	int			procno = 0;
	WorkerArgs	args;

	if (dpm_release_worker_idle <= 0)
		return false;
	attach_shared();
	SpinLockAcquire(&shared->mutex);
	for (int i = 0; i < RESIDENTS && r == NULL; i++)
	{
		Resident   *e = &shared->residents[i];

		if (e->database == MyDatabaseId && e->owner == owner)
			r = e;
		else if (e->database == InvalidOid && free_entry == NULL)
			free_entry = e;
	}
	if (r != NULL && !r->busy && r->pid != 0)
	{
		r->busy = true;
		r->request = request;
		procno = r->procno;
		handed = true;
	}
	else if (r == NULL && free_entry != NULL)
	{
		r = free_entry;
		r->database = MyDatabaseId;
		r->owner = owner;
		r->generation = ++shared->generations;
		r->busy = true;
		r->request = request;
		start = true;
	}
	if (handed || start)
	{
		watch->resident = r - shared->residents;
		watch->generation = r->generation;
	}
	SpinLockRelease(&shared->mutex);

	if (handed)
	{
		ProcSendSignal(procno);
		return true;
	}
	if (!start)
		return false;
	args.resident = watch->resident;
	args.generation = watch->generation;
	args.request = DSM_HANDLE_INVALID;
	watch->handle = start_worker(&args, false);
	if (watch->handle != NULL)
		return true;
	SpinLockAcquire(&shared->mutex);
	if (r->generation == args.generation)
		memset(r, 0, sizeof(Resident));
	SpinLockRelease(&shared->mutex);
	watch->resident = -1;
	return false;
}

/* has the worker serving this request stopped (then it will not report)? */
static bool
worker_gone(const Watch *watch)
{
	pid_t		pid;
	bool		gone = false;

	if (watch->handle != NULL)
		gone = GetBackgroundWorkerPid(watch->handle, &pid) == BGWH_STOPPED;
	if (watch->resident >= 0)
	{
		Resident   *r = &shared->residents[watch->resident];

		SpinLockAcquire(&shared->mutex);
		if (r->generation != watch->generation)
			gone = true;
		else if (gone)
			memset(r, 0, sizeof(Resident));	/* it never started: free the entry */
		SpinLockRelease(&shared->mutex);
	}
	return gone;
}

/*
 * Wait until the worker reports, with a NOTICE every dpm.progress_interval
 * seconds saying how far the release is: the worker's own progress lines
 * cannot reach this client.  Cancelling the caller stops the wait only.
 */
static void
wait_for_worker(const Watch *watch, ReleaseSlot *slot)
{
	TimestampTz start = GetCurrentTimestamp(),
				last = start;

	for (;;)
	{
		TimestampTz now;

		pg_read_barrier();
		if (slot->finished || worker_gone(watch))
			return;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 1000L,
						 PG_WAIT_EXTENSION);
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
			else
				ereport(NOTICE,
						(errmsg("release: choosing the strategy and checking the budget (%.0f s)", secs),
						 errhidestmt(true), errhidecontext(true)));
		}
	}
}

PG_FUNCTION_INFO_V1(dpm_run_release);
Datum
dpm_run_release(PG_FUNCTION_ARGS)
{
	Jsonb	   *args = PG_GETARG_JSONB_P(0);
	char	   *text = JsonbToCString(NULL, &args->root, VARSIZE(args));
	size_t		len = strlen(text) + 1;
	dsm_segment *seg;
	ReleaseSlot *slot;
	ReleaseSlot result;
	Watch		watch = {NULL, -1, 0};
	Oid			owner = extension_owner();

	seg = dsm_create(offsetof(ReleaseSlot, args) + len, 0);
	slot = dsm_segment_address(seg);
	memset(slot, 0, offsetof(ReleaseSlot, args));
	slot->database = MyDatabaseId;
	slot->owner = owner;
	slot->caller = GetUserId();
	slot->caller_procno = MyProc->pgprocno;
	slot->delay_ms = dpm_debug_release_delay;
	memcpy(slot->args, text, len);

	if (!hand_over(dsm_segment_handle(seg), owner, &watch))
	{
		WorkerArgs	args = {-1, 0, dsm_segment_handle(seg)};

		watch.handle = start_worker(&args, true);
	}
	wait_for_worker(&watch, slot);
	pg_read_barrier();
	memcpy(&result, slot, offsetof(ReleaseSlot, args));
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
			if (slot->release_id != 0)
				ereport(ERROR,
						(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
						 errmsg("the worker computing release %lld stopped before it finished",
								(long long) slot->release_id),
						 errdetail("The charge stands.")));
			ereport(ERROR,
					(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
					 errmsg("the dpmatrix release worker stopped before it reported a charge"),
					 errhint("dpm.releases lists every release that was charged.")));
			break;
	}
	PG_RETURN_INT64(slot->release_id);
}
