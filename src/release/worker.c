/*
 * worker.c -- a release worker: a background worker connected to one
 * database as the extension owner, which serves that database's queued
 * releases (queue.h) in turn, each in transactions of its own, and stays
 * for dpm.release_worker_idle without one; one of them stays longer while
 * sessions are connected to its database (dpm.release_worker_keep).
 */
#include "postgres.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "access/xact.h"
#include "catalog/pg_database.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"

#include "pg_compat.h"
#include "histogram/histogram.h"
#include "progress/progress.h"
#include "release/queue.h"
#include "release/release.h"
#include "security/access.h"

/* how often an idle worker checks whether it should make way (database_wanted, slot_wanted) */
#define WANTED_POLL_MS 250

int			dpm_release_worker_idle = 300000;
bool		dpm_release_worker_keep = true;
MemoryContext release_keep_cxt = NULL;

static ResourceOwner worker_owner;
static int	my_worker = -1;
static uint32 my_generation;
static int	my_request = -1;	/* the request being served */

PGDLLEXPORT void dpm_release_worker_main(Datum main_arg);

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
	Request    *r = &release_queue->requests[my_request];
	bool		go;
	LOCKTAG		tag;

	SpinLockAcquire(&release_queue->mutex);
	go = !r->cancel;
	if (go)
	{
		r->charging = true;
		r->release_id = release_id;
	}
	SpinLockRelease(&release_queue->mutex);
	if (go)
	{
		release_locktag(&tag, release_id);
		(void) LockAcquire(&tag, ExclusiveLock, true, false);
	}
	return go;
}

/*
 * My request's charge is committed or refused: another worker may charge
 * this source now, and an idle one is woken for the requests it skipped.
 */
static void
charge_over(void)
{
	Worker	   *me = &release_queue->workers[my_worker];
	int			procno = -1;

	SpinLockAcquire(&release_queue->mutex);
	release_queue->requests[my_request].before_charge = false;
	for (int i = 0; i < MAX_WORKERS && procno < 0; i++)
	{
		Worker	   *e = &release_queue->workers[i];

		if (e->generation != 0 && e->pid != 0 && !e->busy &&
			e->database == me->database && e->owner == me->owner)
			procno = e->procno;
	}
	SpinLockRelease(&release_queue->mutex);
	if (procno >= 0)
		ProcSendSignal(procno);
}

/* done with my request: the caller reads the slot, or the entry is free if it left */
static void
finish_request(void)
{
	Request    *r;
	int			procno = -1;

	if (my_request < 0)
		return;
	r = &release_queue->requests[my_request];
	pg_write_barrier();
	SpinLockAcquire(&release_queue->mutex);
	if (r->abandoned)
		memset(r, 0, sizeof(Request));
	else
	{
		r->state = REQ_DONE;
		procno = r->caller_procno;
	}
	if (my_worker >= 0)
		release_queue->workers[my_worker].busy = false;
	SpinLockRelease(&release_queue->mutex);
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
		SpinLockAcquire(&release_queue->mutex);
		if (release_queue->workers[my_worker].generation == my_generation)
			memset(&release_queue->workers[my_worker], 0, sizeof(Worker));
		SpinLockRelease(&release_queue->mutex);
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
	/*
	 * The capping sort and the grouping spill to temporary files that grow
	 * with the rows: under a server's temp_file_limit, whether a charged
	 * release answers would depend on how many rows its source holds.
	 */
	SetConfigOption("temp_file_limit", "-1", PGC_SUSET, PGC_S_OVERRIDE);
}

/*
 * Keep the memory a release frees for the next one.  glibc gives back to
 * the kernel a freed block above 128 kB (mmap), and the top of its heap
 * above 128 kB free (by default, and a few MB once it has adapted), so each release of a resident worker faulted in again
 * the pages of the one before: a capped scan of 10^6 units fills a table and
 * records of 80 MB, and its aggregate took 445 ms so, 150 ms with its pages
 * kept (a page fault is dear on a virtual machine).  Blocks up to 32 MB (the
 * most glibc lets its heap serve) now come from the heap, and up to
 * dpm.capping_memory_mb of it (1 GB at most) stays free between releases;
 * worker_loop gives it back when the worker stays idle past
 * dpm.release_worker_idle (malloc_trim).  Other C libraries keep their way.
 */
static void
keep_freed_memory(void)
{
#if defined(M_TRIM_THRESHOLD) && defined(M_MMAP_THRESHOLD)
	mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
	mallopt(M_TRIM_THRESHOLD, Min(dpm_capping_memory_mb, 1024) * 1024 * 1024);
#endif
}

/* give back the freed memory keep_freed_memory kept */
static void
give_back_freed_memory(void)
{
#if defined(M_TRIM_THRESHOLD) && defined(M_MMAP_THRESHOLD)
	malloc_trim(0);
#endif
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
	char		setting[32];
	TimestampTz start = GetCurrentTimestamp();

	slot->wait_ms = (double) (start - slot->queued_at) / 1000.0;
	progress_set_role(caller);
	/* every release runs under its caller's dpm.max_cells, which its plan was checked against */
	snprintf(setting, sizeof(setting), "%d", slot->max_cells);
	SetConfigOption("dpm.max_cells", setting, PGC_SUSET, PGC_S_OVERRIDE);
	/* and its (testing only) dpm.audit_sensitivity_scale, 1 unless the auditor set it */
	snprintf(setting, sizeof(setting), "%.17g", slot->audit_scale);
	SetConfigOption("dpm.audit_sensitivity_scale", setting, PGC_SUSET, PGC_S_OVERRIDE);
	/* and its caller's answer quotas, which a superuser may have set for that role */
	snprintf(setting, sizeof(setting), "%d", slot->max_answers_per_release);
	SetConfigOption("dpm.max_answers_per_release", setting, PGC_SUSET, PGC_S_OVERRIDE);
	snprintf(setting, sizeof(setting), "%d", slot->max_answers_per_role);
	SetConfigOption("dpm.max_answers_per_role", setting, PGC_SUSET, PGC_S_OVERRIDE);
	SpinLockAcquire(&release_queue->mutex);
	refused = release_queue->requests[my_request].cancel;
	SpinLockRelease(&release_queue->mutex);
	if (refused)
	{
		slot->sqlerrcode = ERRCODE_QUERY_CANCELED;
		copy_text(slot->message, sizeof(slot->message),
				  "the release was cancelled by its caller before its charge");
	}
	else if (slot->catalog_only)
	{
		types[0] = TEXTOID;
		values[0] = CStringGetTextDatum(slot->data);
		refused = !run_step(slot, "SELECT dpm_internal.store_catalog($1::dpm_internal.planned_release)",
							1, types, values, &ignored, true, NULL, NULL);
	}
	else if (slot->built_len > 0)
	{
		/* the remainder workload the request measures, if any, then the strategies */
		types[0] = slot->built_type;
		types[1] = TEXTOID;
		values[1] = CStringGetTextDatum(slot->data);
		refused = !run_step(slot, "SELECT dpm_internal.store_built($1, $2::dpm_internal.planned_release)",
							2, types, values, &ignored, true, built_strategies, NULL);
	}
	types[0] = OIDOID;
	types[1] = TEXTOID;
	values[0] = ObjectIdGetDatum(caller);
	values[1] = CStringGetTextDatum(slot->data);
	if (!refused && !slot->catalog_only)
	{
		start = GetCurrentTimestamp();
		refused = !run_step(slot, "SELECT dpm_internal.release_charge($1, $2::dpm_internal.planned_release)", 2, types, values,
							&release_id, false, NULL, charge_may_commit);
		slot->charge_ms = (double) (GetCurrentTimestamp() - start) / 1000.0;
	}
	charge_over();
	if (slot->catalog_only && !refused)
		slot->state = SLOT_DONE;
	else if (refused)
	{
		bool		locked;

		/* a commit that failed after its point of no return leaves the release's lock taken */
		SpinLockAcquire(&release_queue->mutex);
		locked = release_queue->requests[my_request].charging;
		release_id = release_queue->requests[my_request].release_id;
		SpinLockRelease(&release_queue->mutex);
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
		start = GetCurrentTimestamp();
		security_exec_as_ms = 0;
		if (run_step(slot, "SELECT dpm_internal.release_fill($1)", 1, types, values, &release_id, true,
					 NULL, NULL))
		{
			slot->scan_ms = security_exec_as_ms;
			slot->answers_ms = (double) (GetCurrentTimestamp() - start) / 1000.0 - security_exec_as_ms;
			pg_write_barrier();
			slot->state = SLOT_DONE;
		}
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
	Worker	   *me = &release_queue->workers[my_worker];
	int			best = -1,
				best_load = 0;

	for (int i = 0; i < QUEUE_LEN; i++)
	{
		Request    *r = &release_queue->requests[i];
		int			load = 0;

		bool		source_busy = false;

		if (r->state != REQ_QUEUED || r->database != me->database || r->owner != me->owner ||
			!release_may_take(r))
			continue;
		/* one charge per source at a time: the others would wait for its row lock */
		for (int j = 0; j < QUEUE_LEN && !source_busy; j++)
			source_busy = release_queue->requests[j].state == REQ_TAKEN && release_queue->requests[j].before_charge &&
				release_queue->requests[j].database == r->database && release_queue->requests[j].source_id == r->source_id;
		if (source_busy)
			continue;
		/* fair: the role with the fewest releases in service first, then the oldest */
		for (int j = 0; j < QUEUE_LEN; j++)
			if (release_queue->requests[j].state == REQ_TAKEN && release_queue->requests[j].caller == r->caller)
				load++;
		if (best < 0 || load < best_load ||
			(load == best_load && r->seq < release_queue->requests[best].seq))
		{
			best = i;
			best_load = load;
		}
	}
	return best;
}

/*
 * Whether a statement needs this worker's database to itself: DROP DATABASE,
 * ALTER DATABASE RENAME or SET TABLESPACE (an AccessExclusiveLock on it), or
 * a CREATE DATABASE copying it (ShareLock), each of which waits up to 5 s for
 * the other sessions to leave and then fails.  A session lock the statement's
 * would conflict with, tried without waiting and released at once.
 */
static bool
database_wanted(void)
{
	LOCKTAG		tag;

	SET_LOCKTAG_OBJECT(tag, InvalidOid, DatabaseRelationId, MyDatabaseId, 0);
	if (LockAcquire(&tag, RowExclusiveLock, true, true) == LOCKACQUIRE_NOT_AVAIL)
		return true;
	LockRelease(&tag, RowExclusiveLock, true);
	return false;
}

/*
 * Whether a request of another database (or owner) waits for want of a
 * worker this one could make room for (queue lock held): it may be taken,
 * none of its database's workers is idle or starting, yet it has fewer than
 * dpm.release_workers, so a start failed for want of a background worker
 * slot (max_worker_processes), which this idle worker holds.
 */
static bool
slot_wanted(void)
{
	Worker	   *me = &release_queue->workers[my_worker];

	for (int i = 0; i < QUEUE_LEN; i++)
	{
		Request    *r = &release_queue->requests[i];
		int			count = 0,
					available = 0;

		/* (one its role's cap holds back gets no new worker: none is wanted) */
		if (r->state != REQ_QUEUED || (r->database == me->database && r->owner == me->owner) ||
			!release_may_take(r))
			continue;
		for (int j = 0; j < MAX_WORKERS; j++)
		{
			Worker	   *e = &release_queue->workers[j];

			if (e->generation == 0 || e->database != r->database || e->owner != r->owner)
				continue;
			count++;
			if (e->pid == 0 || !e->busy)
				available++;
		}
		if (available == 0 && count < dpm_release_workers)
			return true;
	}
	return false;
}

/*
 * Whether this idle worker is the one its database keeps (queue lock held):
 * the first idle one of its database and owner in the workers' list, so
 * that one stays, not dpm.release_workers of them.
 */
static bool
first_idle(void)
{
	Worker	   *me = &release_queue->workers[my_worker];

	for (int i = 0; i < my_worker; i++)
	{
		Worker	   *e = &release_queue->workers[i];

		if (e->generation != 0 && e->pid != 0 && !e->busy &&
			e->database == me->database && e->owner == me->owner)
			return false;
	}
	return true;
}

/*
 * Whether dpmatrix is no longer installed in the worker's database: a kept
 * worker, which sessions of a database may hold for days, asks once per
 * dpm.release_worker_idle, so that it does not outlive DROP EXTENSION.
 */
static bool
extension_gone(void)
{
	bool		gone;

	StartTransactionCommand();
	gone = !OidIsValid(get_extension_oid("dpmatrix", true));
	CommitTransactionCommand();
	CurrentResourceOwner = worker_owner;
	return gone;
}

/*
 * Serve the queue until idle for dpm.release_worker_idle, or until idle while
 * a statement needs the database to itself or another database's request
 * needs the background worker slot: so a worker may stay for minutes (an
 * analyst typing the next question finds it, its caches warm) without
 * holding up DROP DATABASE or another database's releases.
 *
 * Past dpm.release_worker_idle, one worker of the database stays as long as
 * a session is connected to it (dpm.release_worker_keep): a new worker's
 * start and its first release, which plans every statement and reads the
 * catalog into empty caches, cost a private count about half a GROUP BY over
 * 10^6 rows (bench/small_release.sh), and an analyst's session, or a BI
 * tool's pool, may well ask again after any pause.  It gives back what it
 * keeps between releases (release_keep_cxt), and still makes way as above.
 */
static void
worker_loop(void)
{
	TimestampTz idle_since = GetCurrentTimestamp();
	bool		kept = false;	/* past the idle time, staying for the sessions */
	TimestampTz checked = 0;	/* when a kept worker last found the extension */

	for (;;)
	{
		int			ri;
		dsm_handle	handle = DSM_HANDLE_INVALID;
		Oid			caller = InvalidOid;
		bool		retire = false,
					wanted,
					sessions;
		long		idle_ms;

		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			keep_freed_memory();	/* dpm.capping_memory_mb may have changed */
		}
		idle_ms = TimestampDifferenceMilliseconds(idle_since, GetCurrentTimestamp());
		wanted = database_wanted();
		sessions = dpm_release_worker_keep && dpm_release_worker_idle > 0 &&
			idle_ms >= dpm_release_worker_idle && CountDBConnections(MyDatabaseId) > 0;
		if (sessions && kept &&
			TimestampDifferenceExceeds(checked, GetCurrentTimestamp(), dpm_release_worker_idle))
		{
			sessions = !extension_gone();
			checked = GetCurrentTimestamp();
		}
		SpinLockAcquire(&release_queue->mutex);
		ri = pick_request();
		if (ri >= 0)
		{
			Request    *r = &release_queue->requests[ri];

			r->state = REQ_TAKEN;
			r->worker = my_worker;
			r->worker_generation = my_generation;
			r->before_charge = true;
			handle = r->handle;
			caller = r->caller;
			release_queue->workers[my_worker].busy = true;
			my_request = ri;
		}
		else if (wanted || slot_wanted() ||
				 (idle_ms >= dpm_release_worker_idle && !(sessions && first_idle())))
		{
			memset(&release_queue->workers[my_worker], 0, sizeof(Worker));
			my_worker = -1;
			retire = true;
		}
		SpinLockRelease(&release_queue->mutex);
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
			kept = false;
			continue;
		}
		if (idle_ms >= dpm_release_worker_idle && !kept)
		{
			/* staying for the sessions: what the releases kept goes, the catalog's caches stay */
			MemoryContextReset(release_keep_cxt);
			give_back_freed_memory();
			pgstat_report_activity(STATE_IDLE, "kept while sessions are connected to the database");
			kept = true;
			checked = GetCurrentTimestamp();
		}
		pgstat_report_stat(true);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 idle_ms < dpm_release_worker_idle ? Min(dpm_release_worker_idle - idle_ms, WANTED_POLL_MS)
						 : WANTED_POLL_MS, PG_WAIT_EXTENSION);
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
	release_queue_attach();
	me = &release_queue->workers[my_worker];
	SpinLockAcquire(&release_queue->mutex);
	if (me->generation == my_generation)
	{
		database = me->database;
		owner = me->owner;
	}
	SpinLockRelease(&release_queue->mutex);
	if (!OidIsValid(database))
		proc_exit(0);			/* the entry was given up before we started */
	before_shmem_exit(worker_exit, (Datum) 0);
	connect_worker(database, owner);
	keep_freed_memory();
	release_keep_cxt = AllocSetContextCreate(TopMemoryContext, "dpmatrix release worker's keep",
											 ALLOCSET_SMALL_SIZES);
	SpinLockAcquire(&release_queue->mutex);
	me->pid = MyProcPid;
	me->procno = MyProcNumber;
	SpinLockRelease(&release_queue->mutex);
	worker_loop();
}
