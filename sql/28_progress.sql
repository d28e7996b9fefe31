-- Long work in progress (src/progress).

-- Long work in progress, every session's (needs dpmatrix in shared_preload_libraries, see
-- src/progress/progress.h; empty with a NOTICE otherwise).
-- Each role sees the work done for the roles it belongs to (its own optimizations, and the release
-- workers serving its releases); custodians see all.
CREATE OR REPLACE FUNCTION dpm_internal.progress_rows()
RETURNS TABLE(pid int, activity text, iteration int, objective float8, gap float8,
              started timestamptz, updated timestamptz)
AS 'MODULE_PATHNAME', 'dpm_progress' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dpm_internal.progress_rows() IS 'internal to dpmatrix (the rows of the view dpm.progress: long work running now for the roles the caller belongs to; custodians: every role); not a stable interface';

CREATE OR REPLACE VIEW dpm.progress AS
  SELECT p.pid, p.activity, p.iteration, p.objective, p.gap, p.started, p.updated,
         p.updated - p.started AS elapsed
    FROM dpm_internal.progress_rows() p;
COMMENT ON VIEW dpm.progress IS
  'optimizations and simulations running now in any session: backend pid (join pg_stat_activity), activity, iteration, objective, gap, start and last update; needs dpmatrix in shared_preload_libraries, NOTICE lines (dpm.progress_interval) work without it';
