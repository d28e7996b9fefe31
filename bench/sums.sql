-- Sums and averages of a measure per cell on 10^7 rows: the plain SQL baselines (SELECT cell,
-- sum(clamped value) / avg(clamped value) ... GROUP BY cell), the aggregates a release runs
-- (dpm_internal.histogram_sum: clamp, round to the measure's grid, exact integer sums;
-- histogram_avg: the same sums and the counts in one scan), and whole releases (dpm.answer with
-- the identity strategy over the 2,000 cells, Laplace noise, no intervals; aggregate avg for the
-- averages).  Each row is its own
-- privacy unit (no contribution bounding: the baseline has none).  Serial and with the planner's
-- parallel plan; best of 3 runs each, in this one session.
\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = warning;
SET jit = off;

\o /dev/null
CREATE TABLE bench_sum AS
SELECT floor(random() * 100)::int AS age, floor(random() * 20)::int AS region,
       floor(random() * 200000)::int AS income, md5(g::text) AS filler
  FROM generate_series(1, 10000000) g;
VACUUM ANALYZE bench_sum;
SELECT dpm.register_source('bench_sum', epsilon => 1000);
SELECT dpm.create_domain('bench_sum', 'bench_sum', '[
  {"name": "age", "bins": {"min": 0, "max": 100, "width": 1}},
  {"name": "region", "bins": {"min": 0, "max": 20, "width": 1}}]');
SELECT dpm.create_measure('income', 'bench_sum', 'income', 0, 100000);
SELECT dpm.create_workload('bench_sum_cells', 'bench_sum', 'Identity(age) * Identity(region)');
SELECT dpm.optimize('bench_sum_cells', method => 'identity');
SELECT count(*) FROM dpm.answer('bench_sum_cells', epsilon => 1, method => 'identity', measure => 'income', confidence => NULL);
SELECT count(*) FROM dpm.answer('bench_sum_cells', epsilon => 1, method => 'identity', measure => 'income', aggregate => 'avg',
                                confidence => NULL);
\o

CREATE TEMP TABLE sum_results (mode text, kind text, what text, run int, seconds float8);

CREATE FUNCTION pg_temp.timed(sql text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz := clock_timestamp();
BEGIN
  EXECUTE sql;
  RETURN extract(epoch FROM clock_timestamp() - t0);
END $$;

CREATE PROCEDURE pg_temp.run(mode text) LANGUAGE plpgsql AS $$
DECLARE
  d dpm.domains;
  m dpm.measures;
  agg text;
  grp text;
  ans text := $q$SELECT count(*) FROM dpm.answer('bench_sum_cells', epsilon => 1, method => 'identity',
                                                measure => 'income', confidence => NULL)$q$;
  avg_agg text;
  avg_grp text;
  avg_ans text := $q$SELECT count(*) FROM dpm.answer('bench_sum_cells', epsilon => 1, method => 'identity',
                                                    measure => 'income', aggregate => 'avg', confidence => NULL)$q$;
BEGIN
  SELECT * INTO d FROM dpm.domains WHERE name = 'bench_sum';
  SELECT * INTO m FROM dpm.measures WHERE name = 'income';
  agg := format('SELECT dpm_internal.histogram_sum((%s)::int4, %s, income::float8, %s, %s, %s) FROM bench_sum',
                d.cell_expr, d.n, m.lo, m.hi, m.grid_exp);
  grp := format('SELECT cell, sum(least(greatest(income, 0), 100000)) FROM (SELECT (%s)::int4 AS cell, income FROM bench_sum) s GROUP BY cell',
                d.cell_expr);
  avg_agg := format('SELECT dpm_internal.histogram_avg((%s)::int4, %s, income::float8, %s, %s, %s, false) FROM bench_sum',
                    d.cell_expr, d.n, m.lo, m.hi, m.grid_exp);
  avg_grp := replace(grp, 'sum(', 'avg(');
  FOR r IN 1 .. 3 LOOP
    INSERT INTO sum_results VALUES (mode, 'sum', 'group by sum()', r, pg_temp.timed(grp));
    INSERT INTO sum_results VALUES (mode, 'sum', 'histogram_sum', r, pg_temp.timed(agg));
    COMMIT;
    INSERT INTO sum_results VALUES (mode, 'sum', 'dpm.answer', r, pg_temp.timed(ans));
    COMMIT;
    INSERT INTO sum_results VALUES (mode, 'avg', 'group by avg()', r, pg_temp.timed(avg_grp));
    INSERT INTO sum_results VALUES (mode, 'avg', 'histogram_avg', r, pg_temp.timed(avg_agg));
    COMMIT;
    INSERT INTO sum_results VALUES (mode, 'avg', 'dpm.answer avg', r, pg_temp.timed(avg_ans));
    COMMIT;
  END LOOP;
END $$;

SET max_parallel_workers_per_gather = 0;
CALL pg_temp.run('serial');
RESET max_parallel_workers_per_gather;
CALL pg_temp.run('parallel (planner''s choice)');

\echo
\echo == sums and averages per cell, 10^7 rows, 2,000 cells: best of 3, seconds, and against GROUP BY sum() / avg()
SELECT r.mode, r.kind, r.what, round(min(r.seconds)::numeric, 3) AS best_s,
       round((min(r.seconds) / (SELECT min(b.seconds) FROM sum_results b
                                 WHERE b.mode = r.mode AND b.kind = r.kind AND b.what LIKE 'group by%'))::numeric, 2)
         AS vs_group_by
  FROM sum_results r GROUP BY r.mode, r.kind, r.what ORDER BY r.mode DESC, r.kind DESC, best_s;

-- the aggregate's sums are the baseline's, in grid units
SELECT bool_and(s.sum * 2::float8 ^ (-m.grid_exp) = a.v) AS same_sums
  FROM dpm.domains d, dpm.measures m,
       LATERAL (SELECT cell, sum(least(greatest(income, 0), 100000)) AS sum
                  FROM (SELECT (age * 20 + region) AS cell, income FROM bench_sum) x GROUP BY cell) s,
       LATERAL (SELECT (dpm_internal.histogram_sum(age * 20 + region, 2000, income::float8, m.lo, m.hi, m.grid_exp))[s.cell + 1] AS v
                  FROM bench_sum) a
 WHERE d.name = 'bench_sum' AND m.name = 'income' AND s.cell < 3;

