/*
 * request.c -- dpm_internal.run_release(req, built): the caller's side of a release.
 * It queues the request dpm.answer planned, makes sure a worker will take it,
 * waits, and reports the outcome; stopped before the charge, it withdraws the
 * request (queue.h says how the two sides agree on that point).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "pg_compat.h"
#include "histogram/histogram.h"
#include "progress/progress.h"
#include "release/queue.h"
#include "release/release.h"

int			dpm_max_releases_per_role = 16;
int			dpm_max_answers_per_release = 1000000;
int			dpm_max_answers_per_role = 10000000;

/* the request this backend waits for */
static int	waiting_request = -1;
static bool caller_exit_registered = false;

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

/*
 * Make sure a worker will take the queued requests of this database: wake an
 * idle one, and start one more while there are more queued requests a worker
 * may take (release_may_take) than idle and starting workers and fewer
 * workers than dpm.release_workers.  A
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

	SpinLockAcquire(&release_queue->mutex);
	for (int i = 0; i < QUEUE_LEN; i++)
		if (release_queue->requests[i].state == REQ_QUEUED && release_queue->requests[i].database == MyDatabaseId &&
			release_queue->requests[i].owner == owner && release_may_take(&release_queue->requests[i]))
			queued++;
	for (int i = 0; i < MAX_WORKERS; i++)
	{
		Worker	   *e = &release_queue->workers[i];

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
		Worker	   *e = &release_queue->workers[free_entry];

		e->database = MyDatabaseId;
		e->owner = owner;
		e->generation = generation = ++release_queue->generations;
		e->registered = now;
		start = true;
	}
	SpinLockRelease(&release_queue->mutex);
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
	SpinLockAcquire(&release_queue->mutex);
	if (release_queue->workers[free_entry].generation == generation)
		memset(&release_queue->workers[free_entry], 0, sizeof(Worker));
	SpinLockRelease(&release_queue->mutex);
}

/* queue a request; its entry's index */
static int
enqueue(Oid owner, Oid caller, int64 source_id, dsm_handle handle)
{
	int			in_flight = 0,
				free_entry = -1;

	release_queue_attach();
	SpinLockAcquire(&release_queue->mutex);
	for (int i = 0; i < QUEUE_LEN; i++)
	{
		Request    *r = &release_queue->requests[i];

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
		Request    *r = &release_queue->requests[free_entry];

		memset(r, 0, sizeof(Request));
		r->state = REQ_QUEUED;
		r->database = MyDatabaseId;
		r->owner = owner;
		r->caller = caller;
		r->source_id = source_id;
		r->caller_procno = MyProcNumber;
		r->seq = ++release_queue->seq;
		r->handle = handle;
		r->worker = -1;
	}
	SpinLockRelease(&release_queue->mutex);
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
	r = &release_queue->requests[waiting_request];
	SpinLockAcquire(&release_queue->mutex);
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
	SpinLockRelease(&release_queue->mutex);
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

/*
 * Does the process pid wait for a lock this backend holds, directly or
 * through other waiting processes?  The deadlock detector's question, for
 * the one edge it cannot see: this backend waiting for its worker.
 */
static bool
waits_for_me(int pid)
{
	int			pids[64];
	int			n = 1;

	pids[0] = pid;
	for (int next = 0; next < n; next++)
	{
		ArrayType  *blockers = DatumGetArrayTypeP(DirectFunctionCall1(pg_blocking_pids,
																	  Int32GetDatum(pids[next])));
		int32	   *blocker = (int32 *) ARR_DATA_PTR(blockers);
		int			count = ArrayGetNItems(ARR_NDIM(blockers), ARR_DIMS(blockers));

		for (int i = 0; i < count; i++)
		{
			bool		seen = false;

			if (blocker[i] == MyProcPid)
				return true;
			for (int j = 0; j < n && !seen; j++)
				seen = pids[j] == blocker[i];
			if (!seen && n < lengthof(pids))
				pids[n++] = blocker[i];
		}
	}
	return false;
}

static void
caller_exit(int code, Datum arg)
{
	if (release_queue != NULL)
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
				last = start,
				checked = start;
	Request    *r = &release_queue->requests[waiting_request];

	for (;;)
	{
		RequestState state;
		bool		gone = false;
		int			ahead = 0;
		pid_t		worker_pid = 0;
		TimestampTz now;

		SpinLockAcquire(&release_queue->mutex);
		state = r->state;
		if (state == REQ_TAKEN && release_queue->workers[r->worker].generation != r->worker_generation)
			gone = true;		/* its worker exited without reporting */
		else if (state == REQ_TAKEN)
			worker_pid = release_queue->workers[r->worker].pid;
		if (state == REQ_QUEUED)
			for (int i = 0; i < QUEUE_LEN; i++)
				if (release_queue->requests[i].state == REQ_QUEUED && release_queue->requests[i].seq < r->seq &&
					release_queue->requests[i].database == r->database)
					ahead++;
		SpinLockRelease(&release_queue->mutex);
		if (state == REQ_DONE || gone)
			return;
		if (state == REQ_QUEUED)
			kick_workers(owner);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 state == REQ_QUEUED ? 100L : 1000L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		now = GetCurrentTimestamp();
		if (worker_pid != 0 && TimestampDifferenceExceeds(checked, now, DeadlockTimeout))
		{
			checked = now;
			if (waits_for_me(worker_pid))
				ereport(ERROR,
						(errcode(ERRCODE_T_R_DEADLOCK_DETECTED),
						 errmsg("deadlock detected: the release worker waits for a lock this transaction holds"),
						 errhint("A release is charged and computed in transactions of its own: call dpm.answer outside the transaction that locked or changed what it needs (dpm.set_budget, a lock on the source), or commit that first.")));
		}
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

/* the request's source_id, which the worker's queue needs */
static int64
request_source(HeapTupleHeader req)
{
	bool		isnull;
	Datum		v = GetAttributeByName(req, "source_id", &isnull);

	if (isnull)
		elog(ERROR, "dpmatrix release request without a source_id");
	return DatumGetInt32(v);
}

/* whether the request only stores catalog rows (kind 'catalog') */
static bool
request_is_catalog(HeapTupleHeader req)
{
	bool		isnull;
	Datum		v = GetAttributeByName(req, "kind", &isnull);

	return !isnull && strcmp(TextDatumGetCString(v), "catalog") == 0;
}

/* the request as text, which the worker reads back as a dpm_internal.planned_release */
static char *
request_text(FunctionCallInfo fcinfo)
{
	Oid			out;
	bool		varlena;

	getTypeOutputInfo(HeapTupleHeaderGetTypeId(PG_GETARG_HEAPTUPLEHEADER(0)), &out, &varlena);
	return OidOutputFunctionCall(out, PG_GETARG_DATUM(0));
}

PG_FUNCTION_INFO_V1(dpm_run_release);
Datum
dpm_run_release(PG_FUNCTION_ARGS)
{
	HeapTupleHeader req = PG_GETARG_HEAPTUPLEHEADER(0);
	ArrayType  *built = PG_GETARG_ARRAYTYPE_P(1);
	Oid			built_type = get_fn_expr_argtype(fcinfo->flinfo, 1);
	char	   *text = request_text(fcinfo);
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
	slot->max_cells = dpm_max_cells;
	slot->audit_scale = dpm_audit_sensitivity_scale;
	slot->max_answers_per_release = dpm_max_answers_per_release;
	slot->max_answers_per_role = dpm_max_answers_per_role;
	slot->req_len = req_len;
	slot->built_len = built_len;
	slot->built_type = built_type;
	slot->catalog_only = request_is_catalog(req);
	memcpy(slot->data, text, req_len);
	if (built_len > 0)
		memcpy(slot->data + req_len, VARDATA(built_bin), built_len);

	if (!caller_exit_registered)
	{
		before_shmem_exit(caller_exit, (Datum) 0);
		caller_exit_registered = true;
	}
	slot->queued_at = GetCurrentTimestamp();
	/* the caller, as dpm_internal.invoker() names it: dpm.answer runs as the extension owner */
	waiting_request = enqueue(owner, GetOuterUserId(), request_source(req), dsm_segment_handle(seg));
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
	SpinLockAcquire(&release_queue->mutex);
	charging = release_queue->requests[waiting_request].charging;
	if (charging)
		result.release_id = release_queue->requests[waiting_request].release_id;
	memset(&release_queue->requests[waiting_request], 0, sizeof(Request));
	SpinLockRelease(&release_queue->mutex);
	waiting_request = -1;
	dsm_detach(seg);
	slot = &result;

	switch ((SlotState) slot->state)
	{
		case SLOT_DONE:
			/* where the time went, for whoever tunes it (bench/small_release.sh reads it) */
			if (!slot->catalog_only)
				ereport(DEBUG1,
						(errmsg("release %lld: %.1f ms waiting for a release worker, %.1f ms charging, %.1f ms reading the source, %.1f ms on noise and answers, %.1f ms in all since it was queued",
								(long long) slot->release_id, slot->wait_ms, slot->charge_ms, slot->scan_ms,
								slot->answers_ms, (double) (GetCurrentTimestamp() - slot->queued_at) / 1000.0),
						 errhidestmt(true), errhidecontext(true)));
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
