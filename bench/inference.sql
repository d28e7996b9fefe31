-- Non-negative least squares against plain least squares (matrix-mechanism slides, "Error: all
-- range queries, non-negative least squares": synthetic sparse data, epsilon = 0.1, n = 1024).
-- Each run adds Laplace noise to the hierarchical strategy's answers and estimates x both ways;
-- the error is the total squared error over all n (n + 1) / 2 range queries, (x_hat - x)^T G
-- (x_hat - x) with G = W^T W in closed form.  Data and noise come from a seeded generator so the
-- table is reproducible (the releases themselves use the secure sampler).
\set ON_ERROR_STOP 1
SET dpm.progress_interval = 0;
\pset footer off
SET dpm.blas_threads = 2;
SET jit = off;

CREATE TEMP TABLE iresults (data text, strategy text, runs int, ls_mse float8, nnls_mse float8,
                            ls_seconds float8, nnls_seconds float8);

-- G = W^T W of all ranges over n cells: G_ij = min(i, j) (n - max(i, j) + 1), 1-based
CREATE FUNCTION pg_temp.allrange_gram(n int) RETURNS float8[] LANGUAGE sql AS $$
  SELECT array_agg(r ORDER BY i) FROM (
    SELECT i, array_agg((least(i, j) * (n - greatest(i, j) + 1))::float8 ORDER BY j) r
      FROM generate_series(1, n) i, generate_series(1, n) j GROUP BY i) t $$;
-- Laplace(b) by inversion of a seeded uniform
CREATE FUNCTION pg_temp.laplace(b float8, count int) RETURNS float8[] LANGUAGE sql AS $$
  SELECT array_agg(CASE WHEN u < 0 THEN b * ln(1 + 2 * u) ELSE -b * ln(1 - 2 * u) END)
    FROM (SELECT random() - 0.5 AS u FROM generate_series(1, count)) t $$;
CREATE FUNCTION pg_temp.quad(g float8[], e float8[]) RETURNS float8 LANGUAGE sql AS $$
  SELECT sum(a * b) FROM unnest(dpm_internal.matvec(g, e), e) t(a, b) $$;

CREATE PROCEDURE pg_temp.run(data text, strategy text, runs int) LANGUAGE plpgsql AS $$
DECLARE
  x float8[] := (SELECT d.x FROM idata d WHERE d.data = run.data);
  n int := array_length(x, 1);
  w float8[] := ARRAY(SELECT ARRAY(SELECT (i = j)::int::float8 FROM generate_series(1, n) j ORDER BY j)
                        FROM generate_series(1, n) i ORDER BY i);
  a float8[] := dpm.strategy(w, strategy);
  g float8[] := pg_temp.allrange_gram(n);
  b float8 := dpm.sensitivity(a, 'l1') / 0.1;
  ax float8[] := dpm_internal.matvec(a, x);
  y float8[];
  xh float8[];
  ls float8 := 0;
  nn float8 := 0;
  t_ls float8 := 0;
  t_nn float8 := 0;
  t0 timestamptz;
BEGIN
  PERFORM setseed(0.42);
  FOR r IN 1 .. runs LOOP
    y := ARRAY(SELECT p + q FROM unnest(ax, pg_temp.laplace(b, array_length(a, 1))) t(p, q));
    t0 := clock_timestamp();
    xh := dpm.reconstruct(a, y);
    t_ls := t_ls + extract(epoch FROM clock_timestamp() - t0);
    ls := ls + pg_temp.quad(g, ARRAY(SELECT p - q FROM unnest(xh, x) t(p, q)));
    t0 := clock_timestamp();
    xh := dpm.reconstruct(a, y, 'nnls');
    t_nn := t_nn + extract(epoch FROM clock_timestamp() - t0);
    nn := nn + pg_temp.quad(g, ARRAY(SELECT p - q FROM unnest(xh, x) t(p, q)));
  END LOOP;
  INSERT INTO iresults VALUES (data, strategy, runs, ls / runs, nn / runs, t_ls / runs, t_nn / runs);
  COMMIT;
END $$;

-- sparse: 32 of 1024 cells non-empty (counts 50..500), the rest 0; dense: every cell 50..500
SELECT setseed(0.1) \g /dev/null
CREATE TEMP TABLE idata AS
  SELECT 'sparse (32 of 1024 cells)' AS data,
         ARRAY(SELECT CASE WHEN i % 32 = 7 THEN 50 + floor(random() * 451) ELSE 0 END FROM generate_series(1, 1024) i ORDER BY i)::float8[] AS x
  UNION ALL
  SELECT 'dense (every cell)', ARRAY(SELECT 50 + floor(random() * 451) FROM generate_series(1, 1024) i ORDER BY i)::float8[];
CALL pg_temp.run('sparse (32 of 1024 cells)', 'hierarchical', 20);
CALL pg_temp.run('sparse (32 of 1024 cells)', 'identity', 20);
CALL pg_temp.run('dense (every cell)', 'hierarchical', 20);
CALL pg_temp.run('dense (every cell)', 'identity', 20);

\echo
\echo == inference: all range queries over 1024 cells, Laplace epsilon = 0.1, mean total squared error over the runs
SELECT data, strategy, runs, round(ls_mse::numeric, -3) AS least_squares, round(nnls_mse::numeric, -3) AS nnls,
       round((nnls_mse / ls_mse)::numeric, 3) AS ratio, round(ls_seconds::numeric, 3) AS ls_s,
       round(nnls_seconds::numeric, 3) AS nnls_s
  FROM iresults ORDER BY data DESC, strategy;
