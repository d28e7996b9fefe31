-- Averages of a measure per query (issue 23, AVG): dpm.answer(..., measure => ..., aggregate =>
-- 'avg') divides a noisy sum by a noisy count, both measured in one release with one charge split
-- between them, and gives an interval valid for the ratio.
\set SHOW_CONTEXT never
SET client_min_messages = warning;
-- 400 units of three identical rows each: kind u % 4, value 10 u clamped to [0, 3000] (units
-- 301 .. 400 are clamped); unit 7's value is NULL, unit 11's NaN
CREATE TABLE av_people AS
  SELECT u AS unit, u % 4 AS kind,
         CASE WHEN u = 7 THEN NULL WHEN u = 11 THEN 'NaN'::float8 ELSE 10 * u END AS amount
    FROM generate_series(1, 400) u, generate_series(1, 3) r;
SELECT dpm.register_source('av_people', 'unit', 2, epsilon => 1e6, delta => 1e-2);
SELECT dpm.create_domain('av_kind', 'av_people', '[{"name": "kind", "values": [0, 1, 2, 3]}]');
SELECT dpm.create_workload('av_w', 'av_kind', 'Identity(kind) + Total(kind)');
SELECT dpm.create_measure('amount', 'av_people', 'amount', 0, 3000, nulls => 'drop');
SELECT dpm.create_measure('amount0', 'av_people', 'amount', 0, 3000, nulls => 'zero');
-- the truth: two rows of each unit, clamped; 'drop' leaves units 7 and 11 out, 'zero' counts them
CREATE TEMP TABLE av_truth AS
  SELECT coalesce(kind + 1, 5) AS query,
         avg(least(amount, 3000)) FILTER (WHERE amount <> 'NaN') AS truth,
         sum(least(amount, 3000)) FILTER (WHERE amount <> 'NaN') / count(*) AS truth0
    FROM (SELECT DISTINCT unit, kind, amount FROM av_people) u GROUP BY ROLLUP (kind);
SELECT query, round(truth::numeric, 4) AS truth, round(truth0::numeric, 4) AS truth0 FROM av_truth ORDER BY query;

-- one scan gives sums and counts: histogram_avg is histogram_sum followed by the counts of the
-- rows it summed (drop) or of all rows (zero); marginal_avg the same per table
SELECT h[1:4] = s AS sums, h[5:8] = ARRAY[300, 300, 300, 294]::float8[] AS drop_counts,
       h0[5:8] = ARRAY[300, 300, 300, 300]::float8[] AS zero_counts, h0[1:4] = s AS same_sums
  FROM (SELECT dpm_internal.histogram_avg(kind, 4, amount, 0, 3000, -12, true) AS h,
               dpm_internal.histogram_avg(kind, 4, amount, 0, 3000, -12, false) AS h0,
               dpm_internal.histogram_sum(kind, 4, amount, 0, 3000, -12) AS s
          FROM av_people) x;
SELECT m = s || c AS marginal_tables
  FROM (SELECT dpm_internal.marginal_avg(ARRAY[kind], '{4}', '{{1},{0}}', amount, 0, 3000, -12, true) AS m,
               dpm_internal.marginal_sums(ARRAY[kind], '{4}', '{{1},{0}}', amount, 0, 3000, -12) AS s,
               dpm_internal.marginal_counts(ARRAY[kind], '{4}', '{{1},{0}}') FILTER (WHERE amount <> 'NaN') AS c
          FROM av_people) x;

-- the ratio by hand (inference/ratio.h), sum 100 +- 10 and count 10 +- 1:
-- Gaussian (Fieller): (100 - 10 r)^2 = 100 + r^2, r = (2000 -+ sqrt(79600)) / 198;
-- Laplace (union bound): |100 - 10 r| = 10 + r, r = 90 / 11 and 110 / 9
SELECT answer, abs(ci_low - (2000 - sqrt(79600)) / 198) < 1e-12 AS fieller_low,
       abs(ci_high - (2000 + sqrt(79600)) / 198) < 1e-12 AS fieller_high,
       abs(stderr - sqrt(4 + 100 * 0.25) / 10) < 1e-15 AS first_order_stderr
  FROM dpm_internal.ratio_estimate(100, 2, 10, 10, 0.5, 1, 0, 100, true);
SELECT answer, abs(ci_low - 90 / 11.0) < 1e-12 AS box_low, abs(ci_high - 110 / 9.0) < 1e-12 AS box_high
  FROM dpm_internal.ratio_estimate(100, 2, 10, 10, 0.5, 1, 0, 100, false);
-- a count too noisy to tell: (100 - 10 r)^2 <= 100 + 400 r^2 holds from
-- r = (1985.0... - 2000) / 600 (3.3083...) to the bound 100
SELECT answer, abs(ci_low - (sqrt(15880000) - 2000) / 600) < 1e-12 AS from_root, ci_high
  FROM dpm_internal.ratio_estimate(100, 2, 10, 10, 10, 20, 0, 100, true);
-- a noisy count that is not positive: no answer, and the interval the noise allows,
-- |5 + r| <= 1 + 2 |r| from r = 4
SELECT answer, stderr, ci_low, ci_high FROM dpm_internal.ratio_estimate(5, 1, 1, -1, 1, 2, 0, 100, false);
-- no average in the bounds explains the noisy answers (probability at most 1 - c): no interval;
-- without intervals asked, none
SELECT answer, ci_low, ci_high FROM dpm_internal.ratio_estimate(1000, 1, 1, 10, 0.1, 0.1, 0, 50, true);
SELECT answer, ci_low, ci_high FROM dpm_internal.ratio_estimate(100, 2, NULL, 10, 0.5, NULL, 0, 100, true);
SELECT * FROM dpm_internal.ratio_estimate(100, 2, 10, 10, 0.5, 1, 5, 1, true);

-- the default split of the charge, chosen without the data (sql/25_averages.sql): Laplace
-- 4^(1/3) / (1 + 4^(1/3)), zCDP 2/3, (epsilon, delta) the grid's best, which beats its neighbours
SELECT abs(dpm_internal.avg_sum_share('laplace', 1, 0, NULL) - 0.61351179) < 1e-8 AS laplace,
       dpm_internal.avg_sum_share('gaussian', NULL, 0, 0.5) = 2 / 3::float8 AS zcdp;
-- 4 sd(f)^2 + sd(1 - f)^2, sd(f) the Gaussian noise of (f epsilon, f delta)
CREATE FUNCTION pg_temp.av_obj(f float8) RETURNS float8 LANGUAGE sql
AS $$ SELECT 4 * dpm.gaussian_sigma(f, f * 1e-6) ^ 2 + dpm.gaussian_sigma(1 - f, (1 - f) * 1e-6) ^ 2 $$;
SELECT f BETWEEN 0.55 AND 0.7 AS approx_share, bool_and(pg_temp.av_obj(f) <= pg_temp.av_obj(g)) AS grid_best
  FROM (SELECT dpm_internal.avg_sum_share('gaussian', 1, 1e-6, NULL) AS f) s,
       LATERAL (VALUES (s.f - 0.005), (s.f + 0.005), (0.5::float8), (0.75::float8)) v(g)
 GROUP BY f;

-- an average release: one charge, two measurements (sums with the default share, counts), each
-- query's interval containing the truth here (nearly noiseless: epsilon 500)
SELECT * INTO TEMP av_one FROM dpm.answer('av_w', epsilon => 500, measure => 'amount', aggregate => 'avg');
SELECT max(id) AS av_rel FROM dpm.releases \gset
SELECT r.sum_share = dpm_internal.avg_sum_share('laplace', 1, 0, NULL) AS default_share,
       (SELECT count(*) FROM dpm.ledger l WHERE l.release_id = r.id) AS charges,
       (SELECT sum(epsilon) FROM dpm.ledger l WHERE l.release_id = r.id) AS charged,
       (SELECT string_agg(quantity, ',' ORDER BY quantity) FROM dpm.release_measurements m WHERE m.release_id = r.id) AS measured
  FROM dpm.releases r WHERE r.id = :av_rel;
SELECT a.query, a.label, abs(a.answer - t.truth) < 0.01 * t.truth AS close, t.truth BETWEEN a.ci_low AND a.ci_high AS covered,
       a.ci_low < a.answer AND a.answer < a.ci_high AS inside
  FROM av_one a JOIN av_truth t USING (query) ORDER BY a.query;
-- 'zero' counts the NULL and NaN rows (as 0)
SELECT bool_and(abs(a.answer - t.truth0) < 0.01 * t.truth0) AS zero_rule
  FROM dpm.answer('av_w', epsilon => 500, measure => 'amount0', aggregate => 'avg') a JOIN av_truth t USING (query);

-- derived again at no cost: the release's own inference and confidence give back its answers (the
-- Laplace interval is simulated anew, so only the answers are compared); another confidence
-- narrows it around the same answer
SELECT count(*) FROM dpm.ledger \gset before_
SELECT bool_and(abs(d.answer - a.answer) < 1e-9 * abs(a.answer)) AS same_answers,
       bool_and(d.ci_high - d.ci_low < a.ci_high - a.ci_low) AS narrower
  FROM dpm.release(:av_rel, confidence => 0.5) d JOIN av_one a USING (query);
SELECT bool_and(d.answer > 0) AS nnls FROM dpm.release(:av_rel, inference => 'nnls') d;
SELECT count(*) = :before_count AS nothing_charged FROM dpm.ledger;

-- Gaussian noise: Fieller's interval is exact, so derived again at the same confidence it is the
-- stored one to rounding; method residual and hdmm measure averages too
SELECT * INTO TEMP av_gauss FROM dpm.answer('av_w', epsilon => 500, delta => 1e-6, measure => 'amount', aggregate => 'avg');
SELECT max(id) AS av_grel FROM dpm.releases \gset
SELECT bool_and(abs(d.answer - a.answer) < 1e-9 * a.answer AND abs(d.ci_low - a.ci_low) < 1e-9 * a.ci_low
                AND abs(d.ci_high - a.ci_high) < 1e-9 * a.ci_high) AS same_intervals
  FROM dpm.release(:av_grel, inference => 'ls') d JOIN av_gauss a USING (query);
SELECT bool_and(abs(a.answer - t.truth) < 0.01 * t.truth) AS residual_close, count(*) AS queries
  FROM dpm.answer('av_w', epsilon => 500, delta => 1e-6, method => 'residual', measure => 'amount', aggregate => 'avg') a
  JOIN av_truth t USING (query);
SELECT bool_and(abs(a.answer - t.truth) < 0.01 * t.truth) AS residual_laplace_close
  FROM dpm.answer('av_w', epsilon => 500, method => 'residual', measure => 'amount', aggregate => 'avg') a
  JOIN av_truth t USING (query);
SELECT bool_and(abs(a.answer - t.truth) < 0.01 * t.truth) AS hdmm_close
  FROM dpm.answer('av_w', epsilon => 500, method => 'hdmm', measure => 'amount', aggregate => 'avg') a
  JOIN av_truth t USING (query);

-- coverage at 90% over 100 releases per noise (epsilon 1: relative errors of several percent).
-- Fieller's interval covers with probability 0.9 exactly, the Laplace one at least 0.9; fewer than
-- 75 of 100 happens by chance with probability below 1e-5 (binomial tail) for each query
CREATE TEMP TABLE av_cov (noise text, query int, covered boolean, width float8);
DO $$
BEGIN
  FOR i IN 1 .. 100 LOOP
    INSERT INTO av_cov SELECT 'laplace', a.query, t.truth BETWEEN a.ci_low AND a.ci_high, a.ci_high - a.ci_low
      FROM dpm.answer('av_w', epsilon => 1, method => 'identity', measure => 'amount', aggregate => 'avg',
                      confidence => 0.9) a
      JOIN av_truth t USING (query);
    INSERT INTO av_cov SELECT 'gaussian', a.query, t.truth BETWEEN a.ci_low AND a.ci_high, a.ci_high - a.ci_low
      FROM dpm.answer('av_w', epsilon => 1, delta => 1e-6, method => 'identity', measure => 'amount',
                      aggregate => 'avg', confidence => 0.9) a
      JOIN av_truth t USING (query);
  END LOOP;
END $$;
SELECT noise, query, count(*) AS releases, count(*) FILTER (WHERE covered) >= 75 AS covers,
       avg(width) < 3000 AS informative
  FROM av_cov GROUP BY noise, query ORDER BY noise, query;

-- published, an average says so
SELECT dpm.publish(:av_grel, 'av_published') AS view;
SELECT aggregate, measure, count(*) AS rows FROM av_published GROUP BY aggregate, measure;
SELECT dpm.unpublish('av_published');

-- refused before any charge: an average without a measure, a count with one, an unknown
-- aggregate, a share out of (0, 1) or without an average, nnls_integer
SELECT sum(epsilon) AS spent FROM dpm.ledger WHERE source_id = (SELECT id FROM dpm.sources WHERE relation = 'av_people'::regclass) \gset
SELECT * FROM dpm.answer('av_w', epsilon => 1, aggregate => 'avg');
SELECT * FROM dpm.answer('av_w', epsilon => 1, aggregate => 'count', measure => 'amount');
SELECT * FROM dpm.answer('av_w', epsilon => 1, aggregate => 'median', measure => 'amount');
SELECT * FROM dpm.answer('av_w', epsilon => 1, aggregate => 'avg', measure => 'amount', sum_share => 1);
SELECT * FROM dpm.answer('av_w', epsilon => 1, aggregate => 'avg', measure => 'amount', sum_share => 'NaN');
SELECT * FROM dpm.answer('av_w', epsilon => 1, measure => 'amount', sum_share => 0.5);
SELECT * FROM dpm.answer('av_w', epsilon => 1, aggregate => 'avg', measure => 'amount', inference => 'nnls_integer');
SELECT sum(epsilon) = :spent AS nothing_charged FROM dpm.ledger
 WHERE source_id = (SELECT id FROM dpm.sources WHERE relation = 'av_people'::regclass);
-- a share given is kept
SELECT count(*) AS answers FROM dpm.answer('av_w', epsilon => 1, aggregate => 'avg', measure => 'amount', sum_share => 0.8);
SELECT sum_share FROM dpm.releases WHERE id = (SELECT max(id) FROM dpm.releases);

-- the custodian's true sums and averages, noise-free and every row counted (a unit's three rows
-- are alike: the same averages, three times the sums)
SELECT e.query, round(e.answer::numeric, 6) = round(t.truth::numeric, 6) AS exact_avg_drop,
       round(z.answer::numeric, 6) = round(t.truth0::numeric, 6) AS exact_avg_zero
  FROM dpm.exact_answers('av_w', measure => 'amount', aggregate => 'avg') e
  JOIN dpm.exact_answers('av_w', measure => 'amount0', aggregate => 'avg') z USING (query)
  JOIN av_truth t USING (query) ORDER BY 1;
SELECT e.query, e.answer = t.total AS exact_sum, s.answer = t.total AS sum_is_the_default
  FROM dpm.exact_answers('av_w', measure => 'amount', aggregate => 'sum') e
  JOIN dpm.exact_answers('av_w', measure => 'amount') s USING (query)
  JOIN (SELECT coalesce(kind + 1, 5) AS query, sum(least(amount, 3000)) FILTER (WHERE amount <> 'NaN') AS total
          FROM av_people GROUP BY ROLLUP (kind)) t USING (query) ORDER BY 1;
SELECT dpm.exact_answers('av_w', aggregate => 'avg');
SELECT dpm.exact_answers('av_w', measure => 'amount', aggregate => 'count');
SELECT dpm.exact_answers('av_w', measure => 'amount', aggregate => 'median');
SELECT dpm.exact_answers('av_w', measure => 'no_such_measure');
SELECT id AS av_source FROM dpm.sources WHERE relation = 'av_people'::regclass \gset
DELETE FROM dpm.ledger WHERE source_id = :av_source;
DELETE FROM dpm.releases WHERE source_id = :av_source;
DELETE FROM dpm.domains WHERE source_id = :av_source;
DELETE FROM dpm.sources WHERE id = :av_source;
DROP TABLE av_people;
