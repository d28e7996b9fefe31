-- The frequency vector: dpm.histogram over a domain's cell expression against the plain SQL
-- baseline with the same cell expression, SELECT cell, count(*) ... GROUP BY cell, on 10^7 rows
-- and a 3-attribute domain of 10^4 cells; serial (max_parallel_workers_per_gather = 0) and with
-- the parallel plan the planner chooses by itself.  Best of 3 runs each, in this one session.
\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = warning;
SET jit = off;

\o /dev/null
CREATE TABLE bench_fv AS
SELECT floor(random() * 100)::int AS age, floor(random() * 20)::int AS region, floor(random() * 5)::int AS band,
       md5(g::text) AS filler
  FROM generate_series(1, 10000000) g;
VACUUM ANALYZE bench_fv;
SELECT dpm.register_source('bench_fv', epsilon => 1);
SELECT dpm.create_domain('bench_fv', 'bench_fv', '[
  {"name": "age", "bins": {"min": 0, "max": 100, "width": 1}},
  {"name": "region", "bins": {"min": 0, "max": 20, "width": 1}},
  {"name": "band", "bins": {"min": 0, "max": 5, "width": 1}}]') AS cells;
\o

CREATE TEMP TABLE fv_results (mode text, what text, run int, seconds float8, workers int);

-- times one statement; the workers it launched are read from EXPLAIN ANALYZE's output
CREATE FUNCTION pg_temp.timed(sql text, OUT seconds float8, OUT workers int) LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz := clock_timestamp();
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ' || sql INTO plan;
  seconds := extract(epoch FROM clock_timestamp() - t0);
  SELECT coalesce(max((m[1])::int), 0) INTO workers
    FROM regexp_matches(plan::text, '"Workers Launched": ([0-9]+)', 'g') m;
END $$;

CREATE PROCEDURE pg_temp.run(mode text) LANGUAGE plpgsql AS $$
DECLARE
  d dpm.domains;
  hist text;
  grp text;
  t record;
BEGIN
  SELECT * INTO d FROM dpm.domains WHERE name = 'bench_fv';
  hist := format('SELECT dpm.histogram((%s)::int4, %s) FROM bench_fv', d.cell_expr, d.n);
  grp := format('SELECT cell, count(*) FROM (SELECT (%s)::int4 AS cell FROM bench_fv) s GROUP BY cell', d.cell_expr);
  FOR r IN 1 .. 3 LOOP
    t := pg_temp.timed(hist);
    INSERT INTO fv_results VALUES (mode, 'histogram', r, t.seconds, t.workers);
    t := pg_temp.timed(grp);
    INSERT INTO fv_results VALUES (mode, 'group by', r, t.seconds, t.workers);
  END LOOP;
END $$;

SET max_parallel_workers_per_gather = 0;
CALL pg_temp.run('serial');
RESET max_parallel_workers_per_gather;
CALL pg_temp.run('parallel (planner''s choice)');

-- the same vector both ways
SELECT (SELECT dpm_internal.frequency_vector(s, d, current_user::regrole, false) FROM dpm.sources s, dpm.domains d
         WHERE s.relation = 'bench_fv'::regclass AND d.name = 'bench_fv')
       = (SELECT array_agg(coalesce(c.n, 0)::float8 ORDER BY i)
            FROM generate_series(0, 9999) i
            LEFT JOIN (SELECT (age * 20 + region) * 5 + band AS cell, count(*) AS n FROM bench_fv GROUP BY 1) c ON c.cell = i)
       AS same_vector_as_group_by \gset

\echo
\echo '== frequency vector: 10^7 rows, 10^4 cells (3 attributes); best of 3; target: histogram <= 1.3 x GROUP BY'
SELECT h.mode, round(h.s::numeric, 2) AS histogram_s, round(g.s::numeric, 2) AS group_by_s,
       round((h.s / g.s)::numeric, 2) AS ratio, h.w AS histogram_workers, g.w AS group_by_workers,
       :'same_vector_as_group_by' AS same_vector
  FROM (SELECT mode, min(seconds) AS s, max(workers) AS w FROM fv_results WHERE what = 'histogram' GROUP BY mode) h
  JOIN (SELECT mode, min(seconds) AS s, max(workers) AS w FROM fv_results WHERE what = 'group by' GROUP BY mode) g USING (mode)
 ORDER BY h.mode DESC;
\echo '   (the aggregate keeps one int64 per cell: 80 kB here, whatever the number of rows)'

