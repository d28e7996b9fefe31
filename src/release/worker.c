/*
 * worker.c -- dpm._run_release(args jsonb): one release, done by a dynamic
 * background worker in transactions of its own.
 *
 * Why a worker.  A charge must stay charged whatever the caller does: roll
 * back, fail later in the same statement, be cancelled or killed, or lose
 * the server right after reading the answers.  Nothing the caller's own
 * transaction writes can promise that, and a procedure that commits cannot
 * be called inside a transaction block or from a SELECT.  So the caller hands
 * the request to a worker that connects to the same database as the
 * extension owner and runs two transactions:
 *
 *   1. dpm._release_charge: validate, lock the source row, check the budget,
 *      insert the release and its ledger rows; commit with synchronous_commit
 *      forced on, so the charge is on disk before step 2 starts.
 *   2. dpm._release_fill: read the source, draw the noise, store the answers.
 *
 * The caller waits for the worker to exit and then reads the stored answers
 * (dpm.release).  A cancelled or killed caller stops waiting, not the
 * worker: the release completes and can be replayed.  If step 2 fails the
 * charge stands and the release is marked failed; the cause goes to the
 * server log only, because it may depend on the data.
 *
 * The request and the result travel in a small DSM segment.  Its layout is
 * private to this file; the caller's role is taken from GetUserId() here, so
 * it cannot be spoofed through the SQL arguments.
 */
#include "postgres.h"

#include "access/xact.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "progress/progress.h"
#include "release/release.h"

int			dpm_debug_release_delay = 0;

/* how long a caller waits for a free background worker slot */
#define SLOT_WAIT_MS 30000

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
	int			delay_ms;
	volatile int state;
	int64		release_id;
	int			sqlerrcode;
	char		message[1024];
	char		detail[1024];
	char		hint[512];
	char		args[FLEXIBLE_ARRAY_MEMBER];	/* the request, jsonb as text */
} ReleaseSlot;

PGDLLEXPORT void dpm_release_worker_main(Datum main_arg);

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

void
dpm_release_worker_main(Datum main_arg)
{
	dsm_segment *seg;
	ReleaseSlot *slot;
	int64		release_id;
	Oid			types[2] = {OIDOID, TEXTOID};
	Datum		values[2];

	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	CurrentResourceOwner = ResourceOwnerCreate(NULL, "dpmatrix release worker");
	seg = dsm_attach(DatumGetUInt32(main_arg));
	if (seg == NULL)
		proc_exit(0);			/* the caller left before we started: nothing done */
	slot = dsm_segment_address(seg);

	BackgroundWorkerInitializeConnectionByOid(slot->database, slot->owner, 0);
	/* the charge must be on disk before any noise exists, whatever the server default */
	SetConfigOption("synchronous_commit", "on", PGC_SUSET, PGC_S_OVERRIDE);
	/* the budget check sums the ledger after locking the source: it needs a fresh snapshot */
	SetConfigOption("default_transaction_isolation", "read committed", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("search_path", "pg_catalog, pg_temp", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("statement_timeout", "0", PGC_SUSET, PGC_S_OVERRIDE);
	/* never wait forever on a source row held by an open transaction (maybe the caller's) */
	SetConfigOption("lock_timeout", "30s", PGC_SUSET, PGC_S_OVERRIDE);

	values[0] = ObjectIdGetDatum(slot->caller);
	values[1] = CStringGetTextDatum(slot->args);
	if (!run_step(slot, "SELECT dpm._release_charge($1, $2::jsonb)", 2, types, values,
				  &release_id, false))
	{
		slot->state = SLOT_REFUSED;
		proc_exit(0);
	}
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
	if (!run_step(slot, "SELECT dpm._release_fill($1)", 1, types, values, &release_id, true))
	{
		int64		ignored;

		slot->state = SLOT_FAILED;
		/* best effort: the release keeps status 'charged' if this fails too */
		run_step(slot, "UPDATE dpm.releases SET status = 'failed' WHERE id = $1 RETURNING id",
				 1, types, values, &ignored, true);
		proc_exit(0);
	}
	pg_write_barrier();
	slot->state = SLOT_DONE;
	proc_exit(0);
}

static BackgroundWorkerHandle *
start_worker(dsm_segment *seg)
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
	snprintf(w.bgw_name, BGW_MAXLEN, "dpmatrix release for backend %d", MyProcPid);
	snprintf(w.bgw_type, BGW_MAXLEN, "dpmatrix release");
	w.bgw_main_arg = UInt32GetDatum(dsm_segment_handle(seg));
	w.bgw_notify_pid = MyProcPid;

	/* all slots may be busy with parallel queries or other releases: wait a little */
	while (!RegisterDynamicBackgroundWorker(&w, &handle))
	{
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
 * WaitForBackgroundWorkerShutdown, with a NOTICE every dpm.progress_interval
 * seconds saying how far the release is: the worker's own progress lines
 * cannot reach this client.  Cancelling the caller stops the wait only.
 */
static void
wait_for_worker(BackgroundWorkerHandle *handle, ReleaseSlot *slot)
{
	TimestampTz start = GetCurrentTimestamp(),
				last = start;

	for (;;)
	{
		pid_t		pid;
		TimestampTz now;

		if (GetBackgroundWorkerPid(handle, &pid) == BGWH_STOPPED)
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
	BackgroundWorkerHandle *handle;
	Oid			owner = extension_owner();

	seg = dsm_create(offsetof(ReleaseSlot, args) + len, 0);
	slot = dsm_segment_address(seg);
	memset(slot, 0, offsetof(ReleaseSlot, args));
	slot->database = MyDatabaseId;
	slot->owner = owner;
	slot->caller = GetUserId();
	slot->delay_ms = dpm_debug_release_delay;
	memcpy(slot->args, text, len);

	handle = start_worker(seg);
	wait_for_worker(handle, slot);
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
