-- What a release worker (src/release/worker.c) computes, with the matrices it keeps
-- (src/convert/matrix_cache.c), whichever worker serves the release: it draws fresh noise each time,
-- and its errors are those dpm.explain computes in the caller's own backend, before and after the
-- strategy's matrices change in the catalog.  The workers' life (one worker serving releases in a
-- row, replaced when terminated, leaving when idle), which needs settings changed with a reload,
-- is test/t/003_release_worker.pl's.
SET client_min_messages = warning;
LOAD 'dpmatrix';
SHOW dpm.release_worker_idle;

CREATE TABLE rw_people AS SELECT g AS id, g % 64 AS v FROM generate_series(1, 3000) g;
SELECT dpm.register_source('rw_people', epsilon => 1000) IS NOT NULL AS registered;
SELECT dpm.create_domain('rw_d', 'rw_people', '[{"name": "v", "bins": {"min": 0, "max": 64, "width": 1}}]') > 0 AS domain;
-- 200 random queries: incompressible, so the workload and its strategies are stored out of line
-- (TOAST), which is what the worker keeps
SELECT setseed(0.25);
SELECT dpm.create_workload('rw_w', 'rw_d',
         (SELECT array_agg(r ORDER BY i) FROM
            (SELECT i, array_agg(round(random()::numeric, 4)::float8 ORDER BY j) AS r
               FROM generate_series(1, 200) i, generate_series(1, 64) j GROUP BY i) q)) > 0 AS workload;
SELECT dpm.optimize('rw_w', method => 'eigen') AS s_eigen \gset
SELECT dpm.optimize('rw_w', method => 'workload') AS s_w \gset

-- two releases in a row
CREATE TEMP TABLE rw_rel AS
  SELECT 1 AS k, a.* FROM dpm.answer('rw_w', epsilon => 10, strategy => :s_eigen, confidence => NULL) a;
INSERT INTO rw_rel
  SELECT 2, a.* FROM dpm.answer('rw_w', epsilon => 10, strategy => :s_eigen, confidence => NULL) a;
-- every answer within 12 standard errors of the truth: a sum of independent Laplace draws exceeds
-- that with probability below exp(-12 sqrt 2) = 4e-8, so below 1e-4 over this file's answers
-- (the truth: the workload's matrix times the histogram, where every v in 0 .. 63 occurs)
CREATE TEMP TABLE rw_truth AS
  SELECT i AS query, sum(w.matrix[i][h.v + 1] * h.c) AS truth
    FROM dpm.workloads w, generate_series(1, 200) i,
         (SELECT v, count(*)::float8 AS c FROM rw_people GROUP BY v) h
   WHERE w.name = 'rw_w' GROUP BY i;
SELECT k, count(*) AS answers, max(abs(r.answer - t.truth) / r.stderr) < 12 AS near_the_truth
  FROM rw_rel r JOIN rw_truth t USING (query) GROUP BY k ORDER BY k;
-- fresh noise each time; the errors are the caller's own computation's
CREATE TEMP TABLE rw_exp AS
  SELECT * FROM dpm.explain_queries('rw_w', epsilon => 10, strategy => :s_eigen, confidence => NULL);
SELECT count(*) AS answers,
       bool_and(r1.answer <> r2.answer) AS fresh_noise,
       bool_and(abs(r1.stderr - e.stderr) <= 1e-9 * e.stderr AND r2.stderr = r1.stderr) AS errors_as_explained
  FROM rw_rel r1 JOIN rw_rel r2 ON r2.query = r1.query AND r2.k = 2 JOIN rw_exp e ON e.query = r1.query
 WHERE r1.k = 1;

-- the catalog's copy of the strategy changes (by hand, as a superuser): a worker that kept the old
-- matrices must read them again
UPDATE dpm.strategies s SET matrix = o.matrix, pinv = o.pinv, profile = o.profile
  FROM dpm.strategies o WHERE s.id = :s_eigen AND o.id = :s_w;
CREATE TEMP TABLE rw_exp2 AS
  SELECT * FROM dpm.explain_queries('rw_w', epsilon => 10, strategy => :s_eigen, confidence => NULL);
INSERT INTO rw_rel
  SELECT 3, a.* FROM dpm.answer('rw_w', epsilon => 10, strategy => :s_eigen, confidence => NULL) a;
SELECT k, count(*) AS answers, max(abs(r.answer - t.truth) / r.stderr) < 12 AS near_the_truth
  FROM rw_rel r JOIN rw_truth t USING (query) WHERE k = 3 GROUP BY k;
SELECT count(*) AS answers,
       bool_and(abs(r.stderr - e2.stderr) <= 1e-9 * e2.stderr) AS errors_of_the_new_matrices,
       max(abs(e2.stderr - e.stderr) / e.stderr) > 0.01 AS the_matrices_differ
  FROM rw_rel r JOIN rw_exp2 e2 USING (query) JOIN rw_exp e USING (query) WHERE r.k = 3;

SELECT count(*) AS releases, bool_and(status = 'released') AS all_released
  FROM dpm.releases r JOIN dpm.workloads w ON w.id = r.workload_id WHERE w.name = 'rw_w';

-- A release measures its data once: one call of the mechanism (dpm_internal.strategy_measure)
-- draws its noise, whatever the number of columns of what it returns (a "(f(...)).*" called it
-- once per column: seven draws, six thrown away).  Counted in this session's transaction,
-- measuring the last release's strategy again on a data vector of ones (nothing is stored), in a
-- new session (the view also shows this backend's counts not yet flushed from earlier transactions).
\c
SET client_min_messages = warning;
SET track_functions = 'all';
BEGIN;
SELECT m.quantity, cardinality(m.y) AS values
  FROM dpm.releases r, LATERAL dpm_internal.release_measure(r, array_fill(1::float8, ARRAY[64])) m
 WHERE r.id = (SELECT max(r2.id) FROM dpm.releases r2 JOIN dpm.workloads w ON w.id = r2.workload_id WHERE w.name = 'rw_w');
SELECT calls AS mechanism_calls FROM pg_stat_xact_user_functions WHERE funcname = 'strategy_measure';
ROLLBACK;
RESET track_functions;

-- A caller whose own transaction holds what its worker needs (here the source's row, locked by
-- dpm.set_budget) would wait for ever: the worker waits for the caller's lock, the caller for the
-- worker.  The caller sees the cycle as the deadlock detector would (40P01), and nothing is charged.
SELECT count(*) AS charges_before FROM dpm.ledger \gset
BEGIN;
SELECT dpm.set_budget('rw_people', epsilon => 999);
SELECT count(*) FROM dpm.answer('rw_w', epsilon => 1, strategy => :s_eigen, confidence => NULL);
ROLLBACK;
SELECT count(*) = :charges_before AS nothing_charged FROM dpm.ledger;
-- the same call outside that transaction answers
SELECT count(*) AS answers FROM dpm.answer('rw_w', epsilon => 1, strategy => :s_eigen, confidence => NULL);

-- A server's temp_file_limit caps the temporary files of every statement, and the scan's capping
-- sort spills more the more rows a source holds: a release run under it would be charged, then
-- fail or not according to the rows.  Release workers run without it (src/release/worker.c).
-- Here the database's own settings (which a worker's session takes) make the capping sort of
-- 150,000 rows spill past a 1 MB limit, as the same query shows in this session.
CREATE TABLE rw_spill AS SELECT i % 60000 AS unit, i % 10 AS d FROM generate_series(1, 150000) i;
SELECT dpm.register_source('rw_spill', privacy_unit => 'unit', max_contributions => 2, epsilon => 10);
SELECT dpm.create_domain('rw_spill_d', 'rw_spill', '[{"name": "d", "bins": {"min": 0, "max": 10, "width": 1}}]');
SELECT dpm.create_workload('rw_spill_w', 'rw_spill_d', 'Identity(d)');
SELECT current_database() AS db \gset
ALTER DATABASE :"db" SET temp_file_limit = '1MB';
ALTER DATABASE :"db" SET work_mem = '64kB';
-- workers connected before took the old settings: end them, so that the next release starts one
SELECT count(pg_terminate_backend(pid)) >= 0 FROM pg_stat_activity WHERE backend_type = 'dpmatrix release';
DO $$
BEGIN
  WHILE EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'dpmatrix release') LOOP
    PERFORM pg_sleep(0.05);
  END LOOP;
END
$$;
\c
-- (its SQLSTATE only, 53400, configuration_limit_exceeded: PostgreSQL 18 quotes the setting's name)
\set VERBOSITY sqlstate
SELECT count(*) FROM (SELECT unit, row_number() OVER (PARTITION BY unit ORDER BY random()) AS r FROM rw_spill) s
 WHERE r <= 2;
\set VERBOSITY default
SELECT count(*) AS answers FROM dpm.answer('rw_spill_w', epsilon => 1);
SELECT status FROM dpm.releases r JOIN dpm.workloads w ON w.id = r.workload_id WHERE w.name = 'rw_spill_w';
ALTER DATABASE :"db" RESET temp_file_limit;
ALTER DATABASE :"db" RESET work_mem;
\c

-- Answers are stored in blocks of 4,096 consecutive queries (src/release/answers.c): a block ends
-- at 4,096 answers or where the queries stop being consecutive; NULLs are kept, and the most
-- draws is returned.  Expected: 5,003 stored, draws 77; blocks of 4,096, 904 and 3 answers;
-- nothing read back through dpm.release_answers differs from what was written.
BEGIN;
SELECT min(id) AS rw_rel FROM dpm.releases WHERE kind = 'answers' AND status = 'released' \gset
DECLARE rw_answers CURSOR FOR
  SELECT q::int, CASE WHEN q % 7 <> 0 THEN 'q' || q END, q::float8, nullif(q % 3, 0)::float8, -q::float8, 2 * q::float8,
         CASE WHEN q = 10005000 THEN 77 WHEN q % 2 = 0 THEN 5 END
    FROM (SELECT g + 10000000 AS q FROM generate_series(1, 5000) g UNION ALL
          SELECT g + 20000000 FROM generate_series(1, 3) g ORDER BY 1) x;
SELECT * FROM dpm_internal.store_answers(:rw_rel, 'rw_answers');
SELECT first_query, cardinality(label) AS answers
  FROM dpm.release_answer_blocks WHERE release_id = :rw_rel AND first_query > 10000000 ORDER BY 1;
SELECT count(*) AS read_back,
       count(*) FILTER (WHERE label IS DISTINCT FROM CASE WHEN query % 7 <> 0 THEN 'q' || query END OR answer <> query
                          OR stderr IS DISTINCT FROM nullif(query % 3, 0) OR ci_low <> -query OR ci_high <> 2 * query) AS differing
  FROM dpm.release_answers WHERE release_id = :rw_rel AND query > 10000000;
ROLLBACK;
