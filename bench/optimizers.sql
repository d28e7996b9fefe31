-- Strategy optimizers: wall time, iterations and error ratio to the SVD bound, and the
-- svd-bound paper's Table 2 (AllRange(2048), ratio of each strategy's error to the bound).
-- Workloads are given by their n x n Gram root (dpm.gram_root of the spec's W^T W), which has
-- the same bound and total error as W under every strategy, so AllRange(2048) (2.1 million
-- queries) costs one 2048 x 2048 matrix.
\set ON_ERROR_STOP 1
SET dpm.progress_interval = 0;
\pset footer off
SET dpm.blas_threads = 2;
SET dpm.max_matrix_mb = 4096;
SET dpm.max_memory_mb = 8192;
SET jit = off;

CREATE TEMP TABLE results (workload text, n int, method text, seconds float8, iterations int,
                           ratio float8, gap float8);

CREATE FUNCTION pg_temp.root(spec text, n int) RETURNS float8[] LANGUAGE sql AS $$
  SELECT dpm.gram_root(dpm_internal.workload_gram(spec, dpm_internal.domain_of('{x}', ARRAY[n],
    ARRAY(SELECT i::text FROM generate_series(1, n) i), array_fill('NaN'::float8, ARRAY[n]),
    array_fill('NaN'::float8, ARRAY[n])))) $$;

-- one method on one workload: time the optimizer, then its ratio (L2 sensitivity^2 total error / bound)
CREATE PROCEDURE pg_temp.run(wname text, spec text, n int, methods text[]) LANGUAGE plpgsql AS $$
DECLARE
  w float8[] := pg_temp.root(spec, n);
  b float8 := dpm.svd_bound(w);
  m text;
  t0 timestamptz;
  secs float8;
  r record;
BEGIN
  FOREACH m IN ARRAY methods LOOP
    t0 := clock_timestamp();
    r := dpm_internal.strategy_report(w, m, '{}');
    secs := extract(epoch FROM clock_timestamp() - t0);
    INSERT INTO results VALUES (wname, n, m, secs, r.iterations,
      dpm.total_error(w, r.matrix, 1, 1e-6) / dpm.gaussian_sigma(1, 1e-6) ^ 2 / b,
      CASE WHEN r.lower_bound > 0 THEN r.objective / r.lower_bound - 1 END);
    COMMIT;
  END LOOP;
END $$;

CALL pg_temp.run('AllRange', 'AllRange(x)', 256,
  '{identity,hierarchical,wavelet,eigen,eigen_design,gaussian_optimal}');
CALL pg_temp.run('Prefix', 'Prefix(x)', 256, '{identity,hierarchical,wavelet,eigen,eigen_design,gaussian_optimal}');
CALL pg_temp.run('AllRange', 'AllRange(x)', 1024, '{identity,hierarchical,wavelet,eigen,eigen_design,gaussian_optimal}');
CALL pg_temp.run('AllRange', 'AllRange(x)', 2048, '{identity,hierarchical,wavelet,eigen,eigen_design,gaussian_optimal}');
CALL pg_temp.run('Prefix', 'Prefix(x)', 2048, '{identity,hierarchical,wavelet,eigen,eigen_design,gaussian_optimal}');
-- n = 4096: gaussian_optimal's peak is about 1.5 GB (doc/guide/performance-and-settings.md, Memory), well within this machine
CALL pg_temp.run('AllRange', 'AllRange(x)', 4096, '{identity,hierarchical,wavelet,eigen,eigen_design,gaussian_optimal}');

\echo
\echo == optimizers: wall time (s), iterations, ratio of total error to the SVD bound, certified relative gap;
\echo == target: eigen, eigen_design and gaussian_optimal under 30 s at n = 2048
SELECT workload, n, method, round(seconds::numeric, 2) AS seconds, iterations,
       round(ratio::numeric, 4) AS ratio_to_bound, to_char(gap, '9.9EEEE') AS gap
  FROM results ORDER BY workload, n, method;

\echo
\echo == svd-bound paper, Table 2: AllRange(2048), error as a ratio to the bound (eigen_design there;
\echo == gaussian_optimal is the optimum of the same L2 problem, so at or below it)
SELECT r.method, round(r.ratio::numeric, 3) AS dpmatrix, p.paper, round((r.ratio / p.paper)::numeric, 3) AS ratio
  FROM results r JOIN (VALUES ('identity', 47.25), ('hierarchical', 1.776), ('wavelet', 1.545),
                              ('eigen_design', 1.028)) p(method, paper) USING (method)
 WHERE r.workload = 'AllRange' AND r.n = 2048 ORDER BY p.paper DESC;
