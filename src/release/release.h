/*
 * release.h -- answering against a source in a background worker, so that
 * the charge is committed before any noise exists and outlives whatever the
 * caller's transaction does.
 */
#ifndef DPM_RELEASE_H
#define DPM_RELEASE_H

#include "fmgr.h"
#include "access/tupdesc.h"
#include "utils/tuplestore.h"

/* dpm.debug_release_delay: testing only, ms the worker waits after the charge */
extern int	dpm_debug_release_delay;
/* dpm.audit_sensitivity_scale: testing only, the auditor's planted defect (queue.c) */
extern double dpm_audit_sensitivity_scale;
/* dpm.release_worker_idle: ms a resident release worker waits for the next release; 0: none */
extern int	dpm_release_worker_idle;
/* dpm.release_worker_keep: one worker of a database stays past that while sessions are connected to it */
extern bool dpm_release_worker_keep;

/* dpm.release_workers: most release workers per database */
extern int	dpm_release_workers;
/* dpm.max_releases_per_role: most releases in flight per role */
extern int	dpm_max_releases_per_role;
/* dpm.max_answers_per_release, dpm.max_answers_per_role: read by the SQL, handed to the worker */
extern int	dpm_max_answers_per_release;
extern int	dpm_max_answers_per_role;

/*
 * What a resident release worker keeps from one release to the next
 * (convert/matrix_cache.c's matrices); NULL outside a worker, where nothing
 * is kept.  The worker resets it when it stays idle past
 * dpm.release_worker_idle (dpm.release_worker_keep): whatever keeps memory
 * here registers a reset callback to forget it.
 */
extern MemoryContext release_keep_cxt;

/* dpm_internal.release_in_progress(id): a live worker is between the release's charge and its answers */
extern Datum dpm_release_in_progress(PG_FUNCTION_ARGS);

/* a release's answers, as rows (query, label, answer, stderr, ci_low, ci_high), into store (answers.c) */
extern void release_answers_read(int64 id, Tuplestorestate *store, TupleDesc desc);

/* the shared memory the release queue and the workers' list take */
extern Size release_shmem_size(void);

#endif
