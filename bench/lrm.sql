-- The Low-Rank Mechanism on the paper's workloads (Yuan et al., PVLDB 2012, section 6, generated as
-- it describes with fixed seeds): WRange (each query the interval between two uniform cells) and
-- WRelated (C (m x s) A (s x n), iid N(0, 1)), at the paper's sizes: total expected squared error
-- under Laplace noise relative to identity (noise on the data), next to the workload itself (noise
-- on the results), with lrm's time and L-BFGS steps.
\set ON_ERROR_STOP 1
SET dpm.progress_interval = 0;
\pset footer off
SET dpm.blas_threads = 2;
SET jit = off;

CREATE TEMP TABLE lresults (workload text, m int, n int, rank int, seconds float8, steps int,
                            lrm float8, workload_itself float8);

\ir generators.sql

CREATE PROCEDURE pg_temp.run(name text, w float8[]) LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz := clock_timestamp();
  r record;
  secs float8;
  ident float8 := dpm.total_error(w, dpm.strategy(w, 'identity'), 1);
BEGIN
  r := dpm_internal.strategy_report(w, 'lrm', '{}');
  secs := extract(epoch FROM clock_timestamp() - t0);
  INSERT INTO lresults VALUES (name, array_length(w, 1), array_length(w, 2),
    array_length(dpm.strategy(w, 'eigen'), 1), secs, r.iterations,
    dpm.total_error(w, r.matrix, 1) / ident, dpm.total_error(w, w, 1) / ident);
  COMMIT;
END $$;

CALL pg_temp.run('WRange', pg_temp.wrange(64, 256, 0.25));
CALL pg_temp.run('WRange', pg_temp.wrange(64, 1024, 0.5));
CALL pg_temp.run('WRange', pg_temp.wrange(64, 2048, 0.75));
CALL pg_temp.run('WRelated', pg_temp.wrelated(64, 256, 12, 0.5));
CALL pg_temp.run('WRelated', pg_temp.wrelated(128, 1024, 25, 0.25));
CALL pg_temp.run('WRelated', pg_temp.wrelated(128, 2048, 25, 0.75));

\echo
\echo == lrm (low-rank-mechanism paper): Laplace total error relative to identity
SELECT workload, m, n, rank, round(seconds::numeric, 2) AS seconds, steps,
       round(lrm::numeric, 3) AS lrm, round(workload_itself::numeric, 3) AS workload_itself
  FROM lresults ORDER BY workload, n;
