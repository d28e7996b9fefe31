-- The resident release worker (src/release/worker.c) and the matrices it keeps
-- (src/api/matrix_cache.c).  Releases in a row are served by one worker; it draws fresh noise each
-- time, and its errors are those dpm.explain computes in the caller's own backend, before and after
-- the strategy's matrices change in the catalog; an idle worker leaves; a terminated one is
-- replaced; with dpm.release_worker_idle = 0 every release has a worker of its own.
SET client_min_messages = warning;
LOAD 'dpmatrix';
SHOW dpm.release_worker_idle;
ALTER SYSTEM SET dpm.release_worker_idle = '60s';
SELECT pg_reload_conf();
-- the postmaster reloads asynchronously: up to 100 statements, each waiting 0.1 s only while
-- this session (which rereads the file between statements) does not have the value yet
\set ECHO none
\o /dev/null
SELECT format('SELECT pg_sleep(0.1) WHERE current_setting(''dpm.release_worker_idle'') <> %L', '1min')
  FROM generate_series(1, 100) \gexec
\o
\set ECHO all
SHOW dpm.release_worker_idle;

CREATE FUNCTION pg_temp.workers() RETURNS SETOF int LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_stat_clear_snapshot();
  RETURN QUERY SELECT pid FROM pg_stat_activity
                WHERE backend_type = 'dpmatrix release' AND datname = current_database();
END $$;

-- wait (10 s at most) until no release worker is connected here
CREATE FUNCTION pg_temp.until_no_worker() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1 .. 100 LOOP
    EXIT WHEN NOT EXISTS (SELECT FROM pg_temp.workers());
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;

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
SELECT dpm.optimize('rw_w', 'eigen') AS s_eigen \gset
SELECT dpm.optimize('rw_w', 'workload') AS s_w \gset

-- two releases in a row: one worker, which stays
CREATE TEMP TABLE rw_rel AS
  SELECT 1 AS k, a.* FROM dpm.answer('rw_w', epsilon => 10, strategy => :s_eigen, confidence => NULL) a;
SELECT min(w) AS worker, count(*) AS workers FROM pg_temp.workers() w \gset
SELECT :workers AS workers_after_a_release;
INSERT INTO rw_rel
  SELECT 2, a.* FROM dpm.answer('rw_w', epsilon => 10, strategy => :s_eigen, confidence => NULL) a;
SELECT count(*) = 1 AND min(w) = :worker AS same_worker FROM pg_temp.workers() w;
-- every answer within 12 standard errors of the truth: a sum of independent Laplace draws exceeds
-- that with probability below exp(-12 sqrt 2) = 4e-8, so below 1e-4 over this file's answers
CREATE TEMP TABLE rw_truth AS
  SELECT t.query::int, t.truth
    FROM unnest(dpm_internal.matvec((SELECT matrix FROM dpm.workloads WHERE name = 'rw_w'),
                            (SELECT array_agg(c ORDER BY v) FROM (SELECT v, count(*)::float8 AS c FROM rw_people GROUP BY v) h)))
         WITH ORDINALITY AS t(truth, query);
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

-- the catalog's copy of the strategy changes (by hand, as a superuser): the worker reads it again
UPDATE dpm.strategies s SET matrix = o.matrix, pinv = o.pinv, profile = o.profile
  FROM dpm.strategies o WHERE s.id = :s_eigen AND o.id = :s_w;
CREATE TEMP TABLE rw_exp2 AS
  SELECT * FROM dpm.explain_queries('rw_w', epsilon => 10, strategy => :s_eigen, confidence => NULL);
INSERT INTO rw_rel
  SELECT 3, a.* FROM dpm.answer('rw_w', epsilon => 10, strategy => :s_eigen, confidence => NULL) a;
SELECT count(*) = 1 AND min(w) = :worker AS same_worker FROM pg_temp.workers() w;
SELECT k, count(*) AS answers, max(abs(r.answer - t.truth) / r.stderr) < 12 AS near_the_truth
  FROM rw_rel r JOIN rw_truth t USING (query) WHERE k = 3 GROUP BY k;
SELECT count(*) AS answers,
       bool_and(abs(r.stderr - e2.stderr) <= 1e-9 * e2.stderr) AS errors_of_the_new_matrices,
       max(abs(e2.stderr - e.stderr) / e.stderr) > 0.01 AS the_matrices_differ
  FROM rw_rel r JOIN rw_exp2 e2 USING (query) JOIN rw_exp e USING (query) WHERE r.k = 3;

-- a terminated worker is replaced by the next release
SELECT pg_terminate_backend(:worker, 5000) AS terminated;
SELECT count(*) AS workers FROM pg_temp.workers();
SELECT count(*) AS answers FROM dpm.answer('rw_w', epsilon => 10, strategy => :s_w, confidence => NULL);
SELECT count(*) = 1 AND min(w) <> :worker AS a_new_worker FROM pg_temp.workers() w;

-- an idle worker leaves
ALTER SYSTEM SET dpm.release_worker_idle = '100ms';
SELECT pg_reload_conf();
-- the postmaster reloads asynchronously: up to 100 statements, each waiting 0.1 s only while
-- this session (which rereads the file between statements) does not have the value yet
\set ECHO none
\o /dev/null
SELECT format('SELECT pg_sleep(0.1) WHERE current_setting(''dpm.release_worker_idle'') <> %L', '100ms')
  FROM generate_series(1, 100) \gexec
\o
\set ECHO all
SELECT pg_temp.until_no_worker();
SELECT count(*) AS workers_after_idling FROM pg_temp.workers();

-- none stays with dpm.release_worker_idle = 0
ALTER SYSTEM SET dpm.release_worker_idle = 0;
SELECT pg_reload_conf();
-- the postmaster reloads asynchronously: up to 100 statements, each waiting 0.1 s only while
-- this session (which rereads the file between statements) does not have the value yet
\set ECHO none
\o /dev/null
SELECT format('SELECT pg_sleep(0.1) WHERE current_setting(''dpm.release_worker_idle'') <> %L', '0')
  FROM generate_series(1, 100) \gexec
\o
\set ECHO all
SHOW dpm.release_worker_idle;
SELECT count(*) AS answers FROM dpm.answer('rw_w', epsilon => 10, strategy => :s_w, confidence => NULL);
SELECT pg_temp.until_no_worker();
SELECT count(*) AS workers_after_a_release FROM pg_temp.workers();
SELECT count(*) AS releases, bool_and(status = 'released') AS all_released
  FROM dpm.releases r JOIN dpm.workloads w ON w.id = r.workload_id WHERE w.name = 'rw_w';

ALTER SYSTEM RESET dpm.release_worker_idle;
SELECT pg_reload_conf();
