-- dpm.optimize with gaussian_optimal (issue 47, third target): the wall time of the whole call
-- against the optimizer's own time (optimize_ms, the baseline, from the same call), on AllRange
-- over n cells given by its n x n Gram root (the same Gram matrix, SVD bound and total error as
-- AllRange's n (n + 1) / 2 queries).  Outside the optimizer the call computes the strategy's error
-- profile and sensitivities, the workload's SVD bound, the pseudo-inverse a release reads, and
-- stores the n x n strategy and pseudo-inverse in the catalog.  gap: the optimizer's objective over
-- its proven lower bound, minus 1 (its distance to the exact optimum).
-- Sizes: psql -v sizes='{1024,2048,4096}' (the default: 1024 and 2048; 4096 takes minutes).
\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = warning;
SET dpm.progress_interval = 0;
SET dpm.blas_threads = 2;
SET dpm.max_matrix_mb = 4096;
SET dpm.max_memory_mb = 8192;
SET jit = off;
\if :{?sizes}
\else
\set sizes '{1024,2048}'
\endif

\o /dev/null
CREATE TABLE bench_ow (x int);
SELECT dpm.register_source('bench_ow', epsilon => 1e6);
CREATE TEMP TABLE ow_results (n int, wall_s float8, optimize_s float8, gap float8);
CREATE PROCEDURE pg_temp.run(cells int) LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
  t0 timestamptz;
  sid int;
BEGIN
  PERFORM dpm.create_domain('bench_ow_' || cells, 'bench_ow', format('[{"name": "x", "bins": {"min": 0, "max": %s, "width": 1}}]', cells)::jsonb);
  PERFORM dpm.create_workload('bench_ow_' || cells, 'bench_ow_' || cells, dpm.gram_root(dpm_internal.workload_gram('AllRange(x)', d)))
     FROM dpm.domains d WHERE d.name = 'bench_ow_' || cells;
  COMMIT;
  t0 := clock_timestamp();
  sid := dpm.optimize('bench_ow_' || cells, method => 'gaussian_optimal');
  INSERT INTO ow_results
  SELECT cells, extract(epoch FROM clock_timestamp() - t0), s.optimize_ms / 1000,
         s.sensitivity_l2 ^ 2 * s.profile_trace / s.lower_bound - 1
    FROM dpm.strategies s WHERE s.id = sid;
  COMMIT;
END
$$;
SELECT format('CALL pg_temp.run(%s)', n) FROM unnest(:'sizes'::int[]) n \gexec
\o

\echo 'dpm.optimize(AllRange(n) as its Gram root, method => gaussian_optimal): the whole call against the optimizer alone'
SELECT n, round(wall_s::numeric, 2) AS wall_s, round(optimize_s::numeric, 2) AS optimizer_s,
       round((wall_s / optimize_s)::numeric, 2) AS wall_over_optimizer, to_char(gap, '9.9EEEE') AS gap_to_optimum
  FROM ow_results ORDER BY n;

\o /dev/null
SELECT dpm.unregister_source('bench_ow');
DROP TABLE bench_ow;
\o
