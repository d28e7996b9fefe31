/*
 * module.c -- module load: GUCs and library settings.
 */
#include "postgres.h"

#include <limits.h>

#include "fmgr.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/shmem.h"
#include "utils/guc.h"

#include "security/role_hint.h"
#include "errors/errors.h"
#include "histogram/histogram.h"
#include "linalg/lapack.h"
#include "linalg/linalg.h"
#include "mechanism/interval.h"
#include "query/plain.h"
#include "progress/progress.h"
#include "release/release.h"
#include "strategy/strategy.h"

PG_MODULE_MAGIC;

static int	dpm_blas_threads = 1;

/* dpm.reuse, which the SQL of dpm.answer reads (current_setting) */
static int	dpm_reuse = 0;
static const struct config_enum_entry reuse_options[] = {
	{"auto", 0, false}, {"only", 1, false}, {"never", 2, false}, {NULL, 0, false}
};
/* read by the SQL side (dpm_internal.scan) with current_setting */
static int	dpm_grouped_scans = 0;
/* read by the SQL side (dpm_internal.choose_strategy) with current_setting */
static int	dpm_auto_time_budget = 30;
static const struct config_enum_entry grouped_scans_options[] = {
	{"auto", 0, false}, {"on", 1, false}, {"off", 2, false}, {NULL, 0, false}
};

PG_FUNCTION_INFO_V1(dpm_audit_sensitivity_scale_get);
Datum
dpm_audit_sensitivity_scale_get(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(dpm_audit_sensitivity_scale);
}

static void
assign_blas_threads(int newval, void *extra)
{
	openblas_set_num_threads(newval);
}

static shmem_request_hook_type prev_shmem_request_hook = NULL;

/* preloaded: reserve the resident release workers' list (else it takes spare shared memory) */
static void
request_shmem(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(release_shmem_size());
}

/* the SQL front door's budget of a statement that names none, read by dpm_internal.query_budget */
static double statement_epsilon = 0.0;
static double statement_delta = 0.0;
static double statement_rho = 0.0;

void		_PG_init(void);

void
_PG_init(void)
{
	DefineCustomIntVariable("dpm.max_matrix_mb",
							"Largest dense matrix dpmatrix will allocate, in megabytes (1 .. 1048576).",
							"Requests above the limit fail with an error before any memory is allocated.",
							&dpm_max_matrix_mb, 1024, 1, 1048576,
							PGC_SUSET, GUC_UNIT_MB, NULL, NULL, NULL);
	DefineCustomIntVariable("dpm.max_memory_mb",
							"Largest estimated peak memory of one strategy optimization, in megabytes (1 .. 1048576).",
							"The estimate is c n^2 + 2 m n doubles for n cells and m queries, c per method (doc/guide/performance-and-settings.md, Memory); larger optimizations fail before they start.",
							&dpm_max_memory_mb, 4096, 1, 1048576,
							PGC_SUSET, GUC_UNIT_MB, NULL, NULL, NULL);
	DefineCustomIntVariable("dpm.capping_memory_mb",
							"Memory a capped scan's table of privacy units may take before it writes rows to temporary files, in megabytes (1 .. 1048576).",
							"About 80 bytes a unit keeping one row, 24 more a further kept row; past it, the rows of further units are capped in passes over a file.  A release worker keeps as much of the memory a release frees (1 GB at most) for the next.",
							&dpm_capping_memory_mb, 256, 1, 1048576,
							PGC_SUSET, GUC_UNIT_MB, NULL, NULL, NULL);
	DefineCustomIntVariable("dpm.max_cells",
							"Largest number of cells a domain may have (1 .. 2147483647).",
							NULL,
							&dpm_max_cells, 10000000, 1, INT_MAX,
							PGC_SUSET, 0, NULL, NULL, NULL);
	/*
	 * Limits an analyst must not raise: they bound the memory and CPU one
	 * call may take.  OpenBLAS threads run inside the backend; one thread
	 * is the safe default.
	 */
	DefineCustomIntVariable("dpm.blas_threads",
							"Threads OpenBLAS may use inside a backend (1 .. 64).",
							NULL,
							&dpm_blas_threads, 1, 1, 64,
							PGC_SUSET, 0, NULL, assign_blas_threads, NULL);
	DefineCustomIntVariable("dpm.debug_release_delay",
							"Testing only: milliseconds a release worker waits between the charge and the noise.",
							NULL,
							&dpm_debug_release_delay, 0, 0, 600000,
							PGC_SUSET, GUC_UNIT_MS | GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);
	DefineCustomRealVariable("dpm.audit_sensitivity_scale",
							 "Testing only: a factor on every release's sensitivity, the privacy auditor's planted defect (0.01 .. 100).",
							 "Below 1 the noise is too small for the charge: never set it outside test/audit.sh.",
							 &dpm_audit_sensitivity_scale, 1.0, 0.01, 100.0,
							 PGC_SUSET, GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);
	DefineCustomRealVariable("dpm.statement_epsilon",
							 "What a statement through the SQL front door is charged when it names no budget (0: its role's privacy policy says).",
							 "Within the policy's largest charge of a statement (max_statement_epsilon); a plain statement names no budget.",
							 &statement_epsilon, 0.0, 0.0, 1e300, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("dpm.statement_delta",
							 "The delta a statement through the SQL front door is charged when it names no budget (0: its policy's).",
							 NULL, &statement_delta, 0.0, 0.0, 1.0, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("dpm.statement_rho",
							 "The rho a statement through the SQL front door is charged when it names no budget (0: its policy's).",
							 NULL, &statement_rho, 0.0, 0.0, 1e300, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dpm.release_worker_idle",
							"How long a resident release worker waits for the next release before it exits (0 .. 600 s; 0: a new worker for every release).",
							"It keeps the strategies it has read.  It leaves sooner, once idle, when DROP DATABASE, ALTER DATABASE or CREATE DATABASE from it as template needs the database to itself, or another database's release needs its background worker slot.",
							&dpm_release_worker_idle, 300000, 0, 600000,
							PGC_SIGHUP, GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomBoolVariable("dpm.release_worker_keep",
							 "Whether one release worker of a database stays past dpm.release_worker_idle while sessions are connected to the database.",
							 "It spares the next release a new worker's start and cold caches, and holds a background worker slot (max_worker_processes) meanwhile; it gives back the strategies it kept, and still leaves for DROP DATABASE and for another database's release.",
							 &dpm_release_worker_keep, true,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dpm.release_workers",
							"Most release workers serving one database at once (1 .. 64); further releases wait in a queue.",
							"Each is a background worker (max_worker_processes).",
							&dpm_release_workers, 4, 1, 64,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dpm.max_releases_per_role",
							"Most releases one role may have queued or being computed at once, across the server (1 .. 1000).",
							"A further dpm.answer is refused before anything is charged.",
							&dpm_max_releases_per_role, 16, 1, 1000,
							PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dpm.max_answers_per_release",
							"Most answers one release may store (1 .. 2147483647).",
							"A release of a larger workload is refused before anything is charged; each answer takes about 40 bytes and its label in dpm.release_answer_blocks.",
							&dpm_max_answers_per_release, 1000000, 1, INT_MAX,
							PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dpm.max_answers_per_role",
							"Most answers the releases of one role may keep stored (1 .. 2147483647).",
							"A release that would pass it is refused before anything is charged; set it per role with ALTER ROLE ... SET.",
							&dpm_max_answers_per_role, 10000000, 1, INT_MAX,
							PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dpm.ci_draws",
							"Simulated draws of Laplace noise behind each release's confidence intervals (100 .. 100000).",
							"Coverage is the confidence on average, with a standard deviation of about sqrt(c (1 - c) / draws).",
							&dpm_ci_draws, 1000, 100, 100000,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("dpm.ci_max_seconds",
							 "Seconds after which the simulation for an HDMM strategy's intervals stops drawing, once it has the fewest draws the confidence needs.",
							 NULL,
							 &dpm_ci_max_seconds, 5.0, 0.0, 3600.0,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dpm.auto_time_budget",
							"Seconds after which method auto builds no further candidate and picks the best of those it has; -1: no limit.",
							"Checked before each candidate that is not cached yet, so the one running when the time is spent finishes; 0 builds the first that applies only.",
							&dpm_auto_time_budget, 30, -1, INT_MAX / 1000,
							PGC_USERSET, GUC_UNIT_S, NULL, NULL, NULL);
	DefineCustomIntVariable("dpm.progress_interval",
							"Seconds between the NOTICE lines of long work (optimizers, simulations); 0 silences them.",
							NULL,
							&dpm_progress_interval, 10, 0, 3600,
							PGC_USERSET, GUC_UNIT_S, NULL, NULL, NULL);
	DefineCustomEnumVariable("dpm.reuse",
							 "Whether dpm.answer answers from earlier releases at no cost: auto (when they determine every query), only (and refuse otherwise), never.",
							 NULL,
							 &dpm_reuse, 0, reuse_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("dpm.grouped_scans",
							 "How scans count rows: auto (a grouped query where the rows live on other servers, Citus or postgres_fdw, our aggregate here otherwise), on (always grouped), off (always our aggregate).",
							 "Both give the same counts; a grouped query lets the servers holding the rows count them, so that only counts cross the network.",
							 &dpm_grouped_scans, 0, grouped_scans_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("dpm.internal_context",
							 "Whether errors keep the CONTEXT lines and QUERY text of dpmatrix's own functions.",
							 "Off, an error names only the caller's statement and functions; on, for debugging dpmatrix itself.",
							 &errors_internal_context, false,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	MarkGUCPrefixReserved("dpm");
	if (process_shared_preload_libraries_in_progress)
	{
		prev_shmem_request_hook = shmem_request_hook;
		shmem_request_hook = request_shmem;
	}
	progress_init();
	role_hint_install();
	errors_install();
	query_plain_install();
	openblas_set_num_threads(dpm_blas_threads);
}
