-- Quantiles (issue 23): from a release of a numeric attribute's cumulative counts (the workload
-- dpm.quantile_workload makes), dpm.quantiles derives the p-quantiles per group at no cost: the
-- noisy CDF made monotone by isotonic regression, inverted with linear interpolation in a bin, and
-- an interval that holds at the stated confidence (a Bonferroni band over the group's CDF).
\set SHOW_CONTEXT never
SET client_min_messages = warning;

-- isotonic regression by hand: (3, 2) pool to 2.5, then (4, 0) with it to 2.25 (the mean of
-- 3, 2, 4, 0); weighted, (1 weight 1, 0 weight 3) pool to 0.25
SELECT dpm_internal.isotonic('{1,3,2,4,0,5}') AS pooled, dpm_internal.isotonic('{1,0,2}', '{1,3,1}') AS weighted,
       dpm_internal.isotonic('{1,2,3}') AS unchanged;
SELECT dpm_internal.isotonic('{1,2}', '{1,0}');

-- 30,000 rows, incomes spread evenly over [0, 100000) in steps of 10, three groups alike
CREATE TABLE qt_people AS SELECT g AS id, (g * 7919 % 10000) * 10 AS income, g % 3 AS grp FROM generate_series(1, 30000) g;
SELECT dpm.register_source('qt_people', epsilon => 10000, delta => 1e-3);
SELECT dpm.create_domain('qt_d', 'qt_people',
  '[{"name": "income", "bins": {"min": 0, "max": 100000, "width": 1000}}, {"name": "grp", "values": [0, 1, 2]}]');
SELECT dpm.quantile_workload('qt_all', 'qt_d', 'income');
SELECT dpm.quantile_workload('qt_by', 'qt_d', 'income', '{grp}');
SELECT name, spec FROM dpm.workloads WHERE name LIKE 'qt_%' ORDER BY name;

-- nearly noiseless (epsilon 100): the quantiles are the true ones within a bin, the intervals
-- contain them and are a bin or two wide
SELECT count(*) FROM dpm.answer('qt_all', epsilon => 100);
SELECT max(id) AS qt_release FROM dpm.releases \gset
SELECT q.grp, q.probability, abs(q.value - t.v) <= 1000 AS within_a_bin, q.ci_low <= t.v AND t.v <= q.ci_high AS covers,
       q.ci_high - q.ci_low <= 3000 AS narrow, abs(q.total_estimate - 30000) < 10 AS total
  FROM dpm.quantiles(:qt_release, 'income', '{0.1,0.5,0.9}') q,
       LATERAL (SELECT percentile_cont(q.probability) WITHIN GROUP (ORDER BY income) AS v FROM qt_people) t
 ORDER BY q.probability;

-- per group: one row per group and probability, labelled
SELECT count(*) FROM dpm.answer('qt_by', epsilon => 100, delta => 1e-6);
SELECT max(id) AS qt_by_release FROM dpm.releases \gset
SELECT q.grp, q.probability, abs(q.value - t.v) <= 1000 AS within_a_bin, q.ci_low <= t.v AND t.v <= q.ci_high AS covers
  FROM dpm.quantiles(:qt_by_release, 'income', '{0.25,0.75}', '{grp}') q,
       LATERAL (SELECT percentile_cont(q.probability) WITHIN GROUP (ORDER BY income) AS v
                  FROM qt_people WHERE 'grp = ' || grp = q.grp) t
 ORDER BY q.grp, q.probability;

-- coverage: over 100 Laplace releases at epsilon 0.5 the 90% interval of the median contains the
-- true median at least 75 times (were its coverage only 0.9, fewer would happen with probability
-- below 1e-5; the band is conservative, so it covers nearly always)
CREATE TEMP TABLE qt_cover (covered boolean, width float8);
DO $$
DECLARE
  rid bigint;
  truth float8 := (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY income) FROM qt_people);
BEGIN
  FOR i IN 1 .. 100 LOOP
    PERFORM count(*) FROM dpm.answer('qt_all', epsilon => 0.5, confidence => NULL);
    SELECT max(id) INTO rid FROM dpm.releases;
    INSERT INTO qt_cover SELECT q.ci_low <= truth AND truth <= q.ci_high, q.ci_high - q.ci_low
      FROM dpm.quantiles(rid, 'income', '{0.5}', confidence => 0.9) q;
  END LOOP;
END $$;
SELECT count(*) AS releases, count(*) FILTER (WHERE covered) >= 75 AS covers, avg(width) < 20000 AS informative
  FROM qt_cover;

-- derived, not charged: the ledger holds the 102 releases only
SELECT count(*) AS charges FROM dpm.ledger WHERE source_id = (SELECT id FROM dpm.sources WHERE relation = 'qt_people'::regclass);

-- refused: an attribute without numeric ranges, a release of another workload, bad probabilities
SELECT dpm.quantile_workload('qt_bad', 'qt_d', 'grp');
SELECT dpm.quantile_workload('qt_bad', 'qt_d', 'income', '{income}');
SELECT dpm.quantile_workload('qt_bad', 'qt_d', 'nothing');
SELECT * FROM dpm.quantiles(:qt_by_release, 'income', '{0.5}');
SELECT * FROM dpm.quantiles(:qt_release, 'income', '{0, 0.5}');
SELECT * FROM dpm.quantiles(:qt_release, 'income', '{}');
SELECT * FROM dpm.quantiles(:qt_release, 'income', '{0.5}', confidence => 1);
SELECT * FROM dpm.quantiles(-1, 'income', '{0.5}');
SELECT * FROM dpm.quantiles(NULL, 'income', '{0.5}');
SELECT * FROM dpm.quantiles(:qt_release, NULL, '{0.5}');
-- at most 1000 probabilities, checked before the release is looked for (a release that does not
-- exist, or one that does) or any probability read: a clear error, not seconds of work first
SELECT * FROM dpm.quantiles(-1, 'income', array_fill(0.5::float8, ARRAY[1001]));
SELECT count(*) FROM dpm.quantiles(:qt_release, 'income', array_fill(0.5::float8, ARRAY[1001]));
SELECT count(*) AS rows FROM dpm.quantiles(:qt_release, 'income', array_fill(0.5::float8, ARRAY[1000]));
SELECT dpm.quantile_workload('qt_bad', 'qt_d', NULL);
SELECT dpm.quantile_workload('qt_bad', 'qt_d', 'income', NULL);

SELECT id AS qt_source FROM dpm.sources WHERE relation = 'qt_people'::regclass \gset
DELETE FROM dpm.ledger WHERE source_id = :qt_source;
DELETE FROM dpm.releases WHERE source_id = :qt_source;
DELETE FROM dpm.domains WHERE source_id = :qt_source;
DELETE FROM dpm.sources WHERE id = :qt_source;
DROP TABLE qt_people;
