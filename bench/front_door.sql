-- The SQL front door (issue 44), two tables from this one run.
--
-- 1. A dashboard of six statements over one source answered from one strategy optimized for all
--    of them (dpm.answer_query of an array, one charge), against each statement answered alone
--    with its share of the same total budget: total expected variance of the 1 + 4 + 2 + 8 + 10 +
--    4 = 29 answers (sum of stderr^2, from dpm.explain_query: no data read, nothing charged),
--    under Laplace noise (epsilon) and Gaussian noise (epsilon and delta).
-- 2. A private GROUP BY over 10^7 rows, three ways, each timed three times (the median shown): the
--    plain GROUP BY, dpm.answer of the same workload (domain and workload made beforehand), and
--    dpm.answer_query of the statement (its domain and workload found in the catalog).  The front
--    door's own work is compiling and planning; the scan is the release's.
\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = warning;
SET jit = off;

\o /dev/null
CREATE TABLE bench_fd AS
SELECT g AS person,
       least(99, floor(100 * (1 - sqrt(random()))))::int AS age,
       (ARRAY['F', 'M'])[1 + floor(random() * 2)::int] AS sex,
       (ARRAY['north', 'south', 'east', 'west'])[1 + floor(random() * 4)::int] AS region,
       date '2024-01-01' + floor(random() * 366)::int AS joined
  FROM generate_series(1, 10000000) g;
ANALYZE bench_fd;
SELECT dpm.register_source('bench_fd', 'person', 1, epsilon => 1e6, delta => 1e-6);
SELECT * FROM dpm.set_column_domains('bench_fd', '[
  {"column": "age", "bins": {"min": 0, "max": 100, "width": 10}},
  {"column": "sex", "values": ["F", "M"]},
  {"column": "region", "values": ["north", "south", "east", "west"]},
  {"column": "joined", "bins": {"min": "2024-01-01", "max": "2025-01-01", "width": "1 month"}}]');
CREATE TEMP TABLE dashboard (k int, sql text);
INSERT INTO dashboard VALUES
  (1, 'SELECT count(*) FROM bench_fd WHERE age >= 60'),
  (2, 'SELECT region, count(*) FROM bench_fd GROUP BY region'),
  (3, 'SELECT sex, count(*) FROM bench_fd GROUP BY sex'),
  (4, 'SELECT region, sex, count(*) FROM bench_fd GROUP BY region, sex'),
  (5, 'SELECT floor(age / 10) * 10 AS decade, count(*) FROM bench_fd GROUP BY 1'),
  (6, $$SELECT date_trunc('quarter', joined) AS quarter, count(*) FROM bench_fd GROUP BY 1$$);
-- the total expected variance of a plan's rows (each row's count_stderr squared)
CREATE FUNCTION pg_temp.variance(plan jsonb) RETURNS float8 LANGUAGE sql AS $$
  SELECT sum(((r->>'count_stderr')::float8) ^ 2) FROM jsonb_array_elements(plan->'rows') r $$;
\o

\echo
\echo 'A dashboard of 6 statements (29 answers): one plan and one charge, or each statement alone with 1/6 of the budget'
WITH budgets(noise, epsilon, delta) AS (VALUES ('laplace', 1.0, NULL::float8), ('gaussian', 1.0, 1e-6)),
one AS (
  SELECT b.noise, pg_temp.variance(x.plan) AS v, x.plan->'release'->>'strategy_method' AS method
    FROM budgets b, dpm.explain_query((SELECT array_agg(sql ORDER BY k) FROM dashboard), epsilon => b.epsilon, delta => b.delta) x),
alone AS (     -- basic composition: the six releases add up to the dashboard's budget
  SELECT b.noise, sum(pg_temp.variance(x.plan)) AS v
    FROM budgets b, dashboard d,
         dpm.explain_query(d.sql, epsilon => b.epsilon / 6, delta => b.delta / 6) x
   GROUP BY b.noise)
SELECT one.noise, CASE one.noise WHEN 'laplace' THEN 'epsilon 1' ELSE 'epsilon 1, delta 1e-6' END AS total_budget,
       one.method AS dashboard_strategy, round(one.v::numeric, 1) AS dashboard_variance,
       round(alone.v::numeric, 1) AS each_alone_variance, round((alone.v / one.v)::numeric, 2) AS ratio
  FROM one JOIN alone USING (noise) ORDER BY 1 DESC;

-- a private GROUP BY of 10^7 rows: time one call (ms)
CREATE FUNCTION pg_temp.ms(sql text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
  EXECUTE sql;
  RETURN 1000 * extract(epoch FROM clock_timestamp() - t0);
END $$;
\o /dev/null
SELECT dpm.create_domain('bench_fd_region', 'bench_fd', '[{"name": "region", "values": ["north", "south", "east", "west"]}]');
SELECT dpm.create_workload('bench_fd_region', 'bench_fd_region', 'Identity(region)');
-- every way once, warm (the front door makes its domain and workload the first time)
SELECT count(*) FROM dpm.answer('bench_fd_region', epsilon => 1, reuse => 'never');
SELECT count(*) FROM dpm.answer_query('SELECT region, count(*) FROM bench_fd GROUP BY region', epsilon => 1, reuse => 'never');
\o
\echo
\echo 'A private GROUP BY region of 10^7 rows (4 groups), median of 3 runs'
WITH runs AS (
  SELECT w.way, w.k, pg_temp.ms(w.sql) AS ms
    FROM generate_series(1, 3) r,
         (VALUES (1, 'plain GROUP BY', 'SELECT region, count(*) FROM bench_fd GROUP BY region'),
                 (2, 'dpm.answer', $$SELECT count(*) FROM dpm.answer('bench_fd_region', epsilon => 1, reuse => 'never')$$),
                 (3, 'dpm.answer_query', $$SELECT count(*) FROM dpm.answer_query('SELECT region, count(*) FROM bench_fd GROUP BY region', epsilon => 1, reuse => 'never')$$))
           w(k, way, sql))
SELECT way, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric) AS median_ms,
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)
              / (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY r2.ms) FROM runs r2 WHERE r2.k = 2))::numeric, 3) AS vs_dpm_answer
  FROM runs GROUP BY k, way ORDER BY k;
