-- A workload from a spec over 10^4 cells, Identity(age) * Identity(sex) * Identity(st) (issue 22,
-- item 4): kept as its spec (no 10^4 x 10^4 W, which is 800 MB), its identity strategy a Kronecker
-- product of identities.  On 5 x 10^6 rows: dpm.exact_answers and a whole release through the
-- identity against the baseline, the plain GROUP BY of the same cells, in this one session, with
-- the planner's own parallel plans; best of 3 each.  Also the seconds to create the workload and
-- to build its identity strategy, and what the catalog keeps of both.
\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = warning;
SET jit = off;
SET dpm.reuse = never;

\o /dev/null
CREATE TABLE bench_imp AS
SELECT g AS id, floor(random() * 100)::int AS age, CASE WHEN random() < 0.5 THEN 'F' ELSE 'M' END AS sex,
       floor(random() * 50)::int AS st
  FROM generate_series(1, 5000000) g;
VACUUM ANALYZE bench_imp;
SELECT dpm.register_source('bench_imp', epsilon => 1000);
SELECT dpm.create_domain('bench_imp', 'bench_imp', '[
  {"name": "age", "bins": {"min": 0, "max": 100, "width": 1}},
  {"name": "sex", "values": ["F", "M"]},
  {"name": "st", "bins": {"min": 0, "max": 50, "width": 1}}]');
\o

CREATE TEMP TABLE imp_results (i serial, what text, run int, seconds float8);
CREATE PROCEDURE pg_temp.timed(what text, sql text, runs int DEFAULT 3) LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz;
BEGIN
  FOR r IN 1 .. runs LOOP
    t0 := clock_timestamp();
    EXECUTE sql;
    INSERT INTO imp_results (what, run, seconds) VALUES (what, r, extract(epoch FROM clock_timestamp() - t0));
    COMMIT;
  END LOOP;
END $$;

CALL pg_temp.timed('create_workload (once)',
  $$SELECT dpm.create_workload('bench_imp_w', 'bench_imp', 'Identity(age) * Identity(sex) * Identity(st)')$$, 1);
CALL pg_temp.timed('optimize identity (once)', $$SELECT dpm.optimize('bench_imp_w', method => 'identity')$$, 1);
CALL pg_temp.timed('plain GROUP BY of the cells',
  $$SELECT count(*) FROM (SELECT age, sex, st, count(*) FROM bench_imp
                           WHERE age >= 0 AND age < 100 AND st >= 0 AND st < 50 AND sex IN ('F', 'M')
                           GROUP BY age, sex, st) g$$);
CALL pg_temp.timed('dpm.exact_answers', $$SELECT count(*) FROM dpm.exact_answers('bench_imp_w')$$);
CALL pg_temp.timed('dpm.answer, identity (whole release)',
  $$SELECT count(*) FROM dpm.answer('bench_imp_w', epsilon => 1, method => 'identity')$$);

\echo
\echo == a spec over 10^4 cells on 5 x 10^6 rows: best of 3, against the plain GROUP BY
SELECT what, round(min(seconds)::numeric, 3) AS best_s,
       round((min(seconds) / (SELECT min(seconds) FROM imp_results WHERE what = 'plain GROUP BY of the cells'))::numeric, 2)
         AS vs_group_by
  FROM imp_results GROUP BY what ORDER BY min(i);
SELECT w.matrix IS NULL AS workload_kept_as_spec, s.matrix IS NULL AND (s.hdmm).kind = 'kronecker' AS identity_by_parameters,
       pg_column_size(w) AS workload_bytes, pg_column_size(s) AS strategy_bytes
  FROM dpm.workloads w JOIN dpm.strategies s ON s.workload_id = w.id WHERE w.name = 'bench_imp_w' AND s.method = 'identity';
-- the answers are the GROUP BY's counts
SELECT bool_and(e.answer = g.n) AS exact_equals_group_by
  FROM dpm.exact_answers('bench_imp_w') e
  JOIN (SELECT format('age in [%s,%s) and sex = %s and st in [%s,%s)', age, age + 1, sex, st, st + 1) AS label, count(*) AS n
          FROM bench_imp GROUP BY age, sex, st) g USING (label);
