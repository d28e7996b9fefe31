-- Answering with a stored strategy: the time of dpm.answer beyond the scan that builds the
-- frequency vector (the same dpm.histogram query run alone), at n = 1024 cells (prefix sums,
-- hierarchical strategy, optimized beforehand), Laplace noise, intervals off and on, each served by
-- the resident release worker that the release before left; and once more after that worker has
-- been terminated, so that a new worker starts and reads the strategy.  Median of 5.
\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = warning;
SET jit = off;

\o /dev/null
CREATE TABLE bench_ans AS SELECT floor(random() * 1024)::int AS v FROM generate_series(1, 1000000);
VACUUM ANALYZE bench_ans;
SELECT dpm.register_source('bench_ans', epsilon => 1000);
SELECT dpm.create_domain('bench_ans', 'bench_ans', '[{"name": "v", "bins": {"min": 0, "max": 1024, "width": 1}}]') AS cells;
SELECT dpm.create_workload('bench_ans', 'bench_ans', 'Prefix(v)') AS queries;
SELECT dpm.optimize('bench_ans', method => 'hierarchical') AS sid \gset
\o

CREATE TEMP TABLE ans_results (what text, run int, seconds float8);
CREATE FUNCTION pg_temp.secs(sql text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz := clock_timestamp();
BEGIN
  EXECUTE sql;
  RETURN extract(epoch FROM clock_timestamp() - t0);
END $$;

DO $$
DECLARE
  d dpm.domains;
  sid int := (SELECT max(id) FROM dpm.strategies WHERE method = 'hierarchical');
BEGIN
  SELECT * INTO d FROM dpm.domains WHERE name = 'bench_ans';
  FOR r IN 1 .. 5 LOOP
    INSERT INTO ans_results VALUES
      ('scan', r, pg_temp.secs(format('SELECT dpm.histogram((%s)::int4, %s) FROM bench_ans', d.cell_expr, d.n))),
      ('answer, no intervals', r, pg_temp.secs(format(
         'SELECT count(*) FROM dpm.answer(%L, epsilon => 1, strategy => %s, confidence => NULL)', 'bench_ans', sid))),
      ('answer, Laplace intervals', r, pg_temp.secs(format(
         'SELECT count(*) FROM dpm.answer(%L, epsilon => 1, strategy => %s)', 'bench_ans', sid)));
    -- a new worker: the resident one terminated, and gone
    PERFORM pg_terminate_backend(pid, 60000) FROM pg_stat_activity WHERE backend_type = 'dpmatrix release';
    INSERT INTO ans_results VALUES
      ('answer, no intervals, new worker', r, pg_temp.secs(format(
         'SELECT count(*) FROM dpm.answer(%L, epsilon => 1, strategy => %s, confidence => NULL)', 'bench_ans', sid)));
  END LOOP;
END $$;

\echo
\echo '== answering with a stored strategy: n = 1024 cells, 1024 prefix queries, 10^6 rows; median of 5; target: overhead < 50 ms'
SELECT a.what, round(a.s::numeric * 1000) AS answer_ms, round(s.s::numeric * 1000) AS scan_ms,
       round(((a.s - s.s) * 1000)::numeric) AS overhead_ms
  FROM (SELECT what, percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) AS s FROM ans_results
         WHERE what <> 'scan' GROUP BY what) a,
       (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) AS s FROM ans_results WHERE what = 'scan') s
 ORDER BY a.what <> 'answer, no intervals', a.what;
