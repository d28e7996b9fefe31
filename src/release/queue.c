/*
 * queue.c -- the release queue in shared memory (see queue.h), and the lock
 * that tells a release being computed from one whose worker stopped.
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"

#include "release/queue.h"
#include "release/release.h"

/*
 * The settings both sides of the queue read (api/module.c registers them): defined in this
 * file, the one request.c and worker.c build on, so that neither depends on the other.
 */
int			dpm_release_workers = 4;
int			dpm_debug_release_delay = 0;

/*
 * dpm.audit_sensitivity_scale: testing only, the privacy auditor's planted defect
 * (test/audit.sh).  Every release's sensitivity is multiplied by it where it enters the noise
 * (api_privacy_args, which every count, sum, average and marginal mechanism
 * calls; the keys' noise in dpm_internal.keys_fill), so 0.5 halves
 * it: the auditor must then see more loss than the charge.  Superusers only, hidden from SHOW
 * ALL; it travels with each release request to the worker that draws the noise.
 */
double		dpm_audit_sensitivity_scale = 1.0;

ReleaseShared *release_queue;

void
release_queue_attach(void)
{
	bool		found;

	if (release_queue != NULL)
		return;
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	release_queue = ShmemInitStruct("dpmatrix release queue", sizeof(ReleaseShared), &found);
	if (!found)
	{
		memset(release_queue, 0, sizeof(ReleaseShared));
		SpinLockInit(&release_queue->mutex);
	}
	LWLockRelease(AddinShmemInitLock);
}

/* room in the server's shared memory when dpmatrix is preloaded (else: its spare bytes) */
Size
release_shmem_size(void)
{
	return MAXALIGN(sizeof(ReleaseShared));
}

/*
 * The most workers one role's releases may occupy in a database: one fewer
 * than the pool, so that another role's release always finds a worker, free
 * or freed by the end of a release it is not waiting behind (with a pool of
 * one, one).
 */
int
release_role_cap(void)
{
	return Max(1, dpm_release_workers - 1);
}

/*
 * May a worker of r's database take r now?  Not while r's role has
 * release_role_cap() of them in service there (the queue's lock is held).
 */
bool
release_may_take(const Request *r)
{
	int			running = 0;

	for (int i = 0; i < QUEUE_LEN; i++)
	{
		const Request *o = &release_queue->requests[i];

		if (o->state == REQ_TAKEN && o->caller == r->caller && o->database == r->database &&
			o->owner == r->owner)
			running++;
	}
	return running < release_role_cap();
}

void
release_locktag(LOCKTAG *tag, int64 release_id)
{
	SET_LOCKTAG_ADVISORY(*tag, MyDatabaseId, (uint32) ((uint64) release_id >> 32),
						 (uint32) release_id, RELEASE_LOCK_SPACE);
}

/*
 * dpm_internal.release_in_progress(id): does a live worker hold the release's lock,
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

/*
 * dpm_internal.lock_answer_quota(role): the charges of one role, on every
 * source, check its answer quota and record their release one at a time
 * (dpm_internal.release_charge): without it, two charges on different
 * sources each lock their own source, both count the answers committed
 * before them, and both pass.  A transaction lock, released when the charge
 * commits; in dpmatrix's own advisory space (field4 QUOTA_LOCK_SPACE, never
 * the 1 or 2 of SQL's pg_advisory_* functions, nor RELEASE_LOCK_SPACE), so
 * that no application's advisory lock can meet it.  Always taken after the
 * source's row lock, never before, so the two cannot deadlock.
 */
PG_FUNCTION_INFO_V1(dpm_lock_answer_quota);
Datum
dpm_lock_answer_quota(PG_FUNCTION_ARGS)
{
	LOCKTAG		tag;

	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, PG_GETARG_OID(0), 0, QUOTA_LOCK_SPACE);
	(void) LockAcquire(&tag, ExclusiveLock, false, false);
	PG_RETURN_VOID();
}
