-- The intervals of the SQL front door's averages and percentiles cover the truth as often as they
-- say (issue 44).  150 releases of a compiled avg and of a compiled percentile_cont, each per 4
-- groups, under Gaussian noise; the truths computed by the custodian.
--
-- avg: Fieller's interval, exact under Gaussian noise, at 0.95: of the 600 intervals about 570
-- cover (sd 5.3); the test fails below 546 (4.5 sd under: a false alarm has probability about
-- 3e-6, counting the intervals as independent, which they are: each group's sums and counts are
-- measured by their own noise under the identity strategy).
-- Several measures in one release (an average of one, the sum of another, and the counts): 75
-- releases, per group the avg's interval and the sum's (independent: each part has its own noise),
-- 600 in all, at 0.95, with the same threshold.
-- percentile_cont: the band interval holds with probability at least 0.9 (Bonferroni over the
-- bins, so more often): the test fails below 0.9 * 600 - 4.5 * sqrt(600 * 0.9 * 0.1) = 507
-- (probability below 3e-6 when coverage is at its least).
\set SHOW_CONTEXT never
SET client_min_messages = warning;
SET dpm.reuse = never;
SELECT setseed(0.44);
CREATE TABLE qcov_people AS
  SELECT g AS id, (ARRAY['a', 'b', 'c', 'd'])[1 + g % 4] AS grp,
         least(99, floor(100 * random() ^ (1 + (g % 4) / 2.0)))::int AS age, round((random() * 10)::numeric, 2) AS score,
         (g * 7 % 50) / 10.0 AS score2
    FROM generate_series(1, 4000) g;
SELECT dpm.register_source('qcov_people', 'id', 1, epsilon => 1e6, delta => 1e-2);
SELECT count(*) FROM dpm.set_column_domains('qcov_people', '[
  {"column": "grp", "values": ["a", "b", "c", "d"]},
  {"column": "age", "bins": {"min": 0, "max": 100, "width": 10}},
  {"column": "score", "measure": {"lo": 0, "hi": 10}},
  {"column": "score2", "measure": {"lo": 0, "hi": 5}}]');
CREATE TEMP TABLE cov (kind text, grp text, covered boolean);

DO $$
BEGIN
  FOR i IN 1 .. 150 LOOP
    INSERT INTO cov
    SELECT 'avg', q.result->>'grp',
           t.a BETWEEN (q.result->>'avg_ci_low')::float8 AND (q.result->>'avg_ci_high')::float8
      FROM dpm.answer_query('SELECT grp, avg(score) FROM qcov_people GROUP BY grp', epsilon => 0.5, delta => 1e-6,
                            confidence => 0.95) q
      JOIN (SELECT grp, avg(score)::float8 AS a FROM qcov_people GROUP BY grp) t ON t.grp = q.result->>'grp';
    INSERT INTO cov
    SELECT 'percentile_cont', q.result->>'grp',
           t.m BETWEEN (q.result->>'m_ci_low')::float8 AND (q.result->>'m_ci_high')::float8
      FROM dpm.answer_query('SELECT grp, percentile_cont(0.5) WITHIN GROUP (ORDER BY age) AS m FROM qcov_people GROUP BY grp',
                            epsilon => 0.5, delta => 1e-6, confidence => 0.9) q
      JOIN (SELECT grp, percentile_cont(0.5) WITHIN GROUP (ORDER BY age) AS m FROM qcov_people GROUP BY grp) t
        ON t.grp = q.result->>'grp';
  END LOOP;
  FOR i IN 1 .. 75 LOOP
    INSERT INTO cov
    SELECT 'several measures', q.result->>'grp', c.covered
      FROM dpm.answer_query('SELECT grp, count(*), sum(score), avg(score2) FROM qcov_people GROUP BY grp', epsilon => 0.5,
                            delta => 1e-6, confidence => 0.95) q
      JOIN (SELECT grp, sum(score)::float8 AS s, avg(score2)::float8 AS a FROM qcov_people GROUP BY grp) t ON t.grp = q.result->>'grp',
           LATERAL (VALUES (t.a BETWEEN (q.result->>'avg_ci_low')::float8 AND (q.result->>'avg_ci_high')::float8),
                           (t.s BETWEEN (q.result->>'sum_ci_low')::float8 AND (q.result->>'sum_ci_high')::float8)) c(covered);
  END LOOP;
END
$$;
SELECT kind, count(*) AS intervals,
       count(*) FILTER (WHERE covered) >= CASE kind WHEN 'percentile_cont' THEN 507 ELSE 546 END AS covers_as_stated
  FROM cov GROUP BY kind ORDER BY kind;
