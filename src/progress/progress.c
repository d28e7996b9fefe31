/*
 * progress.c -- NOTICE lines and the shared slots behind dpm.progress; see
 * progress.h.
 */
#include "postgres.h"

#include <math.h>

#include "access/xact.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "pg_compat.h"
#include "progress/progress.h"

#define WHAT_LEN 64

typedef struct ProgressSlot
{
	slock_t		mutex;
	int			pid;			/* 0: idle */
	Oid			role;			/* whose work: the session's role, or a release's caller */
	char		what[WHAT_LEN];
	int			iteration;
	double		objective;
	double		gap;
	TimestampTz started;
	TimestampTz updated;
} ProgressSlot;

int			dpm_progress_interval = 10;

static ProgressSlot *slots;		/* one per backend, by its MyProcNumber; or NULL when not preloaded */
static int	nslots;
static shmem_request_hook_type prev_shmem_request_hook;
static shmem_startup_hook_type prev_shmem_startup_hook;

/* this backend's current activity */
static const char *cur_what;
static TimestampTz cur_started;
static TimestampTz last_notice;
/* set by a release worker while it serves a release: whose work it is */
static Oid	role_override = InvalidOid;

static void
progress_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(mul_size(MaxBackends, sizeof(ProgressSlot)));
}

static void
progress_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	slots = ShmemInitStruct("dpmatrix progress", mul_size(MaxBackends, sizeof(ProgressSlot)), &found);
	nslots = MaxBackends;
	if (!found)
		for (int i = 0; i < nslots; i++)
		{
			SpinLockInit(&slots[i].mutex);
			slots[i].pid = 0;
		}
	LWLockRelease(AddinShmemInitLock);
}

static ProgressSlot *
my_slot(void)
{
	/* backends and background workers are numbered 0 .. MaxBackends - 1 */
	if (slots == NULL || MyProcNumber < 0 || MyProcNumber >= nslots)
		return NULL;
	return &slots[MyProcNumber];
}

static void
progress_reset(XactEvent event, void *arg)
{
	ProgressSlot *s;

	if (event != XACT_EVENT_COMMIT && event != XACT_EVENT_ABORT &&
		event != XACT_EVENT_PARALLEL_COMMIT && event != XACT_EVENT_PARALLEL_ABORT)
		return;
	if (cur_what == NULL)
		return;
	cur_what = NULL;
	if ((s = my_slot()) != NULL)
	{
		SpinLockAcquire(&s->mutex);
		s->pid = 0;
		SpinLockRelease(&s->mutex);
	}
}

/*
 * Preloaded, the postmaster runs this and every backend inherits slots by
 * fork; loaded later, there is no shared memory to have, and slots stays NULL.
 */
void
progress_init(void)
{
	if (process_shared_preload_libraries_in_progress)
	{
		prev_shmem_request_hook = shmem_request_hook;
		shmem_request_hook = progress_shmem_request;
		prev_shmem_startup_hook = shmem_startup_hook;
		shmem_startup_hook = progress_shmem_startup;
	}
	RegisterXactCallback(progress_reset, NULL);
}

void
progress_update(const char *what, int iteration, double objective, double gap)
{
	TimestampTz now = GetCurrentTimestamp();
	ProgressSlot *s = my_slot();

	if (cur_what != what)
	{
		cur_what = what;
		cur_started = last_notice = now;
	}
	if (s)
	{
		SpinLockAcquire(&s->mutex);
		if (s->pid != MyProcPid || s->started != cur_started)
		{
			s->pid = MyProcPid;
			s->role = OidIsValid(role_override) ? role_override : GetOuterUserId();
			strlcpy(s->what, what, WHAT_LEN);
			s->started = cur_started;
		}
		s->iteration = iteration;
		s->objective = objective;
		s->gap = gap;
		s->updated = now;
		SpinLockRelease(&s->mutex);
	}
	if (dpm_progress_interval > 0 &&
		TimestampDifferenceExceeds(last_notice, now, dpm_progress_interval * 1000))
	{
		StringInfoData buf;

		last_notice = now;
		initStringInfo(&buf);
		appendStringInfo(&buf, "%s: iteration %d", what, iteration);
		if (!isnan(objective))
			appendStringInfo(&buf, ", objective %.6g", objective);
		if (!isnan(gap))
			appendStringInfo(&buf, ", gap %.3g", gap);
		appendStringInfo(&buf, ", %.1f s", (double) (now - cur_started) / USECS_PER_SEC);
		ereport(NOTICE,
				(errmsg_internal("%s", buf.data),
				 errhidestmt(true), errhidecontext(true)));
		pfree(buf.data);
	}
}

void
progress_set_role(Oid role)
{
	role_override = role;
}

/*
 * dpm.progress_rows(): the busy slots, for the view dpm.progress: of the
 * roles the caller (dpm_internal.invoker()) belongs to, or all for custodians.
 */
PG_FUNCTION_INFO_V1(dpm_progress);
Datum
dpm_progress(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			viewer = GetOuterUserId();
	Oid			admin = get_role_oid("dpm_admin", true);
	bool		all = superuser_arg(viewer) || (OidIsValid(admin) && has_privs_of_role(viewer, admin));

	InitMaterializedSRF(fcinfo, 0);
	if (slots == NULL)
	{
		ereport(NOTICE,
				(errmsg("dpm.progress is empty: dpmatrix is not in shared_preload_libraries"),
				 errhint("Add dpmatrix to shared_preload_libraries and restart to see other sessions' progress; NOTICE lines (dpm.progress_interval) work without it.")));
		return (Datum) 0;
	}
	for (int i = 0; i < nslots; i++)
	{
		ProgressSlot copy;
		Datum		values[7];
		bool		nulls[7] = {false, false, false, false, false, false, false};

		SpinLockAcquire(&slots[i].mutex);
		memcpy(&copy, &slots[i], sizeof(copy));
		SpinLockRelease(&slots[i].mutex);
		if (copy.pid == 0 || !(all || has_privs_of_role(viewer, copy.role)))
			continue;
		values[0] = Int32GetDatum(copy.pid);
		values[1] = CStringGetTextDatum(copy.what);
		values[2] = Int32GetDatum(copy.iteration);
		values[3] = Float8GetDatum(copy.objective);
		nulls[3] = isnan(copy.objective);
		values[4] = Float8GetDatum(copy.gap);
		nulls[4] = isnan(copy.gap);
		values[5] = TimestampTzGetDatum(copy.started);
		values[6] = TimestampTzGetDatum(copy.updated);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
