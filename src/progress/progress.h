/*
 * progress.h -- progress of long work (optimizers, simulations, NNLS).
 *
 * Loops call progress_update once per iteration.  Every dpm.progress_interval
 * seconds of the same activity a NOTICE says how far it is.  When dpmatrix is
 * in shared_preload_libraries each backend also has a slot in shared memory
 * that the view dpm.progress reads from any session; without it the view is
 * empty (shared memory cannot be added after the server has started).  The
 * activity ends with its transaction.
 */
#ifndef DPM_PROGRESS_H
#define DPM_PROGRESS_H

/* dpm.progress_interval: seconds between NOTICE lines; 0 silences them */
extern int	dpm_progress_interval;

/*
 * One iteration of activity what (a string constant): its objective and gap
 * (NaN when the loop has none).  Cheap: a clock read, and a spinlock when the
 * slot exists.
 */
extern void progress_update(const char *what, int iteration, double objective, double gap);

/*
 * In a release worker: the role whose release is served (InvalidOid: none),
 * so that dpm.progress shows its work to that role only.
 */
extern void progress_set_role(Oid role);

/* from _PG_init: the shared slots when preloading, and the end-of-transaction reset */
extern void progress_init(void);

#endif
