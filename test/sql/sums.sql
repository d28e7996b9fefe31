-- Sums of a measure per query (issue 23, SUM): dpm.answer(..., measure => ...) answers each query
-- with the sum of the measure's clamped values over its cells, with the noise of sensitivity
-- max_contributions * max(|lo|, |hi|) per privacy unit, exact standard errors and intervals.
\set SHOW_CONTEXT never
SET client_min_messages = warning;
-- 60 units of three identical rows each (so any two of them sum alike): kind u % 4, value
-- 10 u, clamped to [0, 500]; unit 7's value is NULL (adds nothing)
CREATE TABLE sm_people AS
  SELECT u AS unit, u % 4 AS kind, CASE WHEN u = 7 THEN NULL ELSE 10 * u END AS amount
    FROM generate_series(1, 60) u, generate_series(1, 3) r;
SELECT dpm.register_source('sm_people', 'unit', 2, epsilon => 1000, delta => 1e-2);
SELECT dpm.create_domain('sm_kind', 'sm_people', '[{"name": "kind", "values": [0, 1, 2, 3]}]');
SELECT dpm.create_workload('sm_w', 'sm_kind', 'Identity(kind) + Total(kind)');
SELECT dpm.create_measure('amount', 'sm_people', 'amount', 0, 500) AS sensitivity;
-- the truth: two rows of each unit, clamped
CREATE TEMP TABLE sm_truth AS
  SELECT kind + 1 AS query, sum(2 * least(amount, 500))::float8 AS truth
    FROM (SELECT DISTINCT unit, kind, amount FROM sm_people) u WHERE amount IS NOT NULL GROUP BY kind;
INSERT INTO sm_truth SELECT 5, sum(truth) FROM sm_truth;
SELECT * FROM sm_truth ORDER BY query;

-- the dry run: the sensitivity in the measure's units, and Laplace standard errors sqrt(2) * 1000
-- for each cell (identity, epsilon 1), twice that for the total of four
SELECT strategy_method, sensitivity, abs(max_stderr / (sqrt(2) * 1000 * 2) - 1) < 1e-3 AS total_stderr,
       abs(total_variance / (4 * 2e6 + 4 * 2e6) - 1) < 1e-3 AS total_variance
  FROM dpm.explain('sm_w', epsilon => 1, method => 'identity', measure => 'amount');

-- compare_strategies ranks the same strategies for sums, each error max(|lo|, |hi|)^2 = 250000 times
-- a count's
SELECT bool_and(abs(s.total_error / c.total_error - 250000) < 1e-6 * 250000) AS errors_scaled,
       bool_and(s.strategy = c.strategy) AS same_strategies, count(*) > 3 AS methods
  FROM dpm.compare_strategies('sm_w', epsilon => 1, measure => 'amount') s
  JOIN dpm.compare_strategies('sm_w', epsilon => 1) c USING (method);
SELECT count(*) FROM dpm.compare_strategies('sm_w', epsilon => 1, measure => 'nothing');
-- dpm.optimize with a measure gives the workload's own strategy (cached once for counts and sums)
SELECT dpm.optimize('sm_w', method => 'hierarchical', epsilon => 1, measure => 'amount') = dpm.optimize('sm_w', method => 'hierarchical', epsilon => 1)
       AS same_strategy;
SELECT dpm.optimize('sm_w', method => 'hierarchical', epsilon => 1, measure => 'nothing');
SELECT dpm.optimize('sm_w', method => 'fitness', delta => 1e-6, options => '{"targets": [1, 1, 1, 1, 1]}', measure => 'amount');

-- repeated releases are unbiased with the stated standard error: over 200 Laplace releases,
-- each query's mean z-score within 5 / sqrt(200) of 0 and its mean square within 1 +- 5 sqrt(5 /
-- 200) (a Laplace z has fourth moment 6); by the central limit theorem each check fails by chance
-- with probability below 1e-5
CREATE TEMP TABLE sm_z (query int, z float8);
DO $$
BEGIN
  FOR i IN 1 .. 200 LOOP
    INSERT INTO sm_z SELECT a.query, (a.answer - t.truth) / a.stderr
      FROM dpm.answer('sm_w', epsilon => 1, method => 'identity', measure => 'amount', confidence => NULL) a
      JOIN sm_truth t USING (query);
  END LOOP;
END $$;
SELECT query, count(*) AS releases, abs(avg(z)) < 5 / sqrt(200) AS unbiased,
       abs(avg(z * z) - 1) < 5 * sqrt(5.0 / 200) AS stderr_right
  FROM sm_z GROUP BY query ORDER BY query;

-- the same through method residual under Gaussian noise (marginal sums): z is normal, so its
-- mean square over 100 releases is chi-square(100) / 100, within [0.46, 1.83] but with
-- probability below 2e-6 a query, 1e-5 for the five (Wilson-Hilferty; [0.58, 1.53] failed one run in 250)
TRUNCATE sm_z;
DO $$
BEGIN
  FOR i IN 1 .. 100 LOOP
    INSERT INTO sm_z SELECT a.query, (a.answer - t.truth) / a.stderr
      FROM dpm.answer('sm_w', epsilon => 1, delta => 1e-6, method => 'residual', measure => 'amount', confidence => NULL) a
      JOIN sm_truth t USING (query);
  END LOOP;
END $$;
SELECT query, abs(avg(z)) < 4.42 / sqrt(100) AS unbiased, avg(z * z) BETWEEN 0.46 AND 1.83 AS stderr_right
  FROM sm_z GROUP BY query ORDER BY query;

-- every release records its measure; non-negative estimates of a measure that cannot be
-- negative are derived at no cost from any of them
SELECT count(*) AS releases, bool_and(measure_id = (SELECT id FROM dpm.measures WHERE name = 'amount' AND source_id = (SELECT id FROM dpm.sources WHERE relation = 'sm_people'::regclass))) AS summed
  FROM dpm.releases WHERE source_id = (SELECT id FROM dpm.sources WHERE relation = 'sm_people'::regclass);
SELECT max(id) AS last_sum FROM dpm.releases \gset
SELECT bool_and(answer >= 0) AS non_negative FROM dpm.release(:last_sum, inference => 'nnls');
-- published, a sum says what it sums
SELECT dpm.publish(:last_sum, 'sm_published') AS view;
SELECT p.measure, count(*) AS rows, bool_and(p.answer = r.answer) AS answers
  FROM sm_published p JOIN dpm.release(:last_sum) r USING (query) GROUP BY p.measure;
SELECT dpm.unpublish('sm_published');

-- refused before any charge: an unknown measure, integer rounding of a sum, non-negative
-- estimates of a measure that can be negative, a measure of another source
SELECT sum(epsilon) AS spent FROM dpm.ledger WHERE source_id = (SELECT id FROM dpm.sources WHERE relation = 'sm_people'::regclass) \gset
SELECT * FROM dpm.answer('sm_w', epsilon => 1, measure => 'nothing');
SELECT * FROM dpm.answer('sm_w', epsilon => 1, measure => 'amount', inference => 'nnls_integer');
SELECT dpm.create_measure('signed', 'sm_people', 'amount', -100, 500);
SELECT * FROM dpm.answer('sm_w', epsilon => 1, measure => 'signed', inference => 'nnls');
CREATE TABLE sm_other AS SELECT 1 AS x, 2 AS v;
SELECT dpm.register_source('sm_other', epsilon => 1);
SELECT dpm.create_measure('v', 'sm_other', 'v', 0, 2);
SELECT * FROM dpm.answer('sm_w', epsilon => 1, measure => 'v');
SELECT sum(epsilon) = :spent AS nothing_charged FROM dpm.ledger
 WHERE source_id = (SELECT id FROM dpm.sources WHERE relation = 'sm_people'::regclass);

-- the release scans as the domain's creator: once that custodian may no longer read the table, a
-- sum over the domain is refused before any charge, as counts are; an analyst cannot declare a
-- measure of her own
CREATE ROLE regress_sm_custodian IN ROLE dpm_admin;
CREATE ROLE regress_sm_analyst IN ROLE dpm_analyst;
GRANT SELECT ON sm_people TO regress_sm_custodian;
SET ROLE regress_sm_custodian;
SELECT dpm.create_domain('sm_kind2', 'sm_people', '[{"name": "kind", "values": [0, 1, 2, 3]}]');
RESET ROLE;
SET ROLE regress_sm_analyst;
SELECT dpm.create_workload('sm_w2', 'sm_kind2', 'Identity(kind)');
RESET ROLE;
REVOKE SELECT ON sm_people FROM regress_sm_custodian;
SET ROLE regress_sm_analyst;
SELECT * FROM dpm.answer('sm_w2', epsilon => 1, measure => 'amount');
SELECT dpm.create_measure('mine', 'sm_people', 'amount', 0, 1);
RESET ROLE;
SELECT sum(epsilon) = :spent AS still_nothing_charged FROM dpm.ledger
 WHERE source_id = (SELECT id FROM dpm.sources WHERE relation = 'sm_people'::regclass);

SELECT id AS sm_source FROM dpm.sources WHERE relation = 'sm_people'::regclass \gset
DELETE FROM dpm.ledger WHERE source_id = :sm_source;
DELETE FROM dpm.releases WHERE source_id = :sm_source;
DELETE FROM dpm.domains WHERE source_id = :sm_source;
DELETE FROM dpm.sources WHERE relation IN ('sm_people'::regclass, 'sm_other'::regclass);
DROP TABLE sm_people, sm_other;
DROP ROLE regress_sm_custodian, regress_sm_analyst;
