/*
 * queue.h -- the release queue: a release planned by dpm.answer (request.c),
 * charged and computed by a release worker (worker.c) in transactions of its
 * own; the layout both sides share in shared memory and in a request's DSM
 * segment.
 *
 * Why a worker.  A charge must stay charged whatever the caller does: roll
 * back, fail later in the same statement, be cancelled or killed, or lose
 * the server right after reading the answers.  Nothing the caller's own
 * transaction writes can promise that, and a procedure that commits cannot
 * be called inside a transaction block or from a SELECT.  So the caller hands
 * the planned request to a worker that is connected to the same database as
 * the extension owner and runs up to three transactions:
 *
 *   0. dpm_internal.strategy_store, when the plan built strategies (the caller's own
 *      transaction cannot commit them for the worker to see);
 *   1. dpm_internal.release_charge: check the catalog again, lock the source row,
 *      check the budget, insert the release and its ledger rows; commit with
 *      synchronous_commit forced on, so the charge is on disk before step 2;
 *   2. dpm_internal.release_fill: read the source, draw the noise, store the answers.
 *
 * A request of kind 'catalog' (the SQL front door's domain or workload,
 * sql/30_query.sql) runs only dpm_internal.store_catalog, in a transaction of
 * its own like step 0, and charges nothing.
 *
 * No long work in a worker.  Everything that can take long and does not
 * need the data, optimizing a strategy above all, happens in the caller's
 * backend before the request is queued (dpm_internal.release_plan), under the
 * caller's statement_timeout and cancel.  A worker only charges, scans and
 * adds noise.
 *
 * A queue, served fairly by a bounded pool.  Requests wait in a queue in
 * shared memory; each database has at most dpm.release_workers workers,
 * which stay resident for dpm.release_worker_idle without a request, keeping
 * their caches (matrix_cache.c), one of them longer while sessions are
 * connected to the database (dpm.release_worker_keep), and leave sooner when idle if a statement
 * needs their database to itself or another database's request needs their
 * background worker slot (worker.c).  A free worker takes the queued request
 * whose role has the fewest releases being computed, then the oldest: one
 * analyst's many releases cannot starve another's.  No role's releases take
 * more than dpm.release_workers - 1 workers of a database at once (its
 * further ones wait, though a worker is free): however long a role's
 * releases run, another role's release finds a worker, and a role's small
 * release runs beside its own large one.  Charges on one source
 * are serialized by its row lock, so a worker skips the requests of a source
 * that another worker is charging: a source whose row is held (by a
 * custodian's open transaction, say) holds one worker, never the pool, and
 * the other sources' releases go on.  A request never fails
 * for want of a worker slot; it waits (the caller can cancel).  A role may
 * have at most dpm.max_releases_per_role releases queued or in service.
 *
 * No wait for ever on the caller.  A caller whose transaction holds a lock
 * its worker waits for (dpm.set_budget's row, then dpm.answer in the same
 * transaction) would wait on its latch while the worker waits on it: a
 * deadlock PostgreSQL cannot see, as one side waits on no lock.  The caller
 * checks, as the deadlock detector would after deadlock_timeout, whether it
 * is among the processes its worker waits for, directly or through others,
 * and fails with 40P01 if so; its error withdraws the request as a cancel.
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
 * free 'interrupted' (dpm_internal.release_in_progress), and dpm.release says so.
 *
 * The request and the result travel in a small DSM segment per release
 * (ReleaseSlot).  The caller's role is dpm_internal.invoker()'s (GetOuterUserId),
 * taken by request.c, so it cannot be spoofed through the arguments.  The
 * queue lives in shared memory made on first use, as contrib's autoprewarm
 * does, so that dpmatrix need not be preloaded.
 */
#ifndef DPM_RELEASE_QUEUE_H
#define DPM_RELEASE_QUEUE_H

#include "storage/dsm.h"
#include "storage/lock.h"
#include "storage/spin.h"
#include "utils/timestamp.h"

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
/* field4 of the transaction lock a charge holds on its role's answer quota (queue.c) */
#define QUOTA_LOCK_SPACE 0x6471

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
	/* the caller's dpm.max_cells, which planned the release: the worker must not refuse after the charge what it allowed */
	int			max_cells;
	double		audit_scale;	/* the caller's dpm.audit_sensitivity_scale (testing only) */
	/* and its answer quotas (sql/21_release.sql, check_answer_quota), which may be set per role */
	int			max_answers_per_release;
	int			max_answers_per_role;
	volatile int state;
	int64		release_id;
	/*
	 * When the caller queued it; the worker's times, for the caller's DEBUG1
	 * line: waiting for a worker (a new one's start included), the charge,
	 * reading the source (dpm_internal.exec_as) and the rest of the answers
	 */
	TimestampTz queued_at;
	double		wait_ms;
	double		charge_ms;
	double		scan_ms;
	double		answers_ms;
	int			sqlerrcode;
	char		message[1024];
	char		detail[1024];
	char		hint[512];
	/*
	 * kind 'catalog': only commit the catalog rows the request's options
	 * describe (dpm_internal.store_catalog), which the caller's transaction
	 * cannot commit for later requests' workers to see; nothing is charged
	 */
	bool		catalog_only;
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
	int64		source_id;		/* dpm.sources.id */
	int			caller_procno;	/* whose latch to set when done */
	uint64		seq;			/* arrival order */
	dsm_handle	handle;
	int			worker;			/* while taken: its entry and generation */
	uint32		worker_generation;
	bool		before_charge;	/* taken, and its charge not yet committed or refused */
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

/* the queue and the workers' list, made on first use */
extern ReleaseShared *release_queue;
extern void release_queue_attach(void);

/* the most workers one role's releases may occupy in a database, and whether r may be taken now */
extern int	release_role_cap(void);
extern bool release_may_take(const Request *r);

/* the lock a worker holds on a release from its charge to its answers */
extern void release_locktag(LOCKTAG *tag, int64 release_id);

#endif
