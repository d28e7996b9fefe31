-- Measures saturate instead of failing (issue 41, item 1): after a release's charge, no value of
-- any measure type and no accepted bound makes a sum, an average or a quantile fail.  Values are
-- clamped in their own type (+-Infinity to the bounds), NaN and NULL add nothing, a value too
-- close to 0 for a float8 (1e-400) adds 0; bounds past 1e100 (or whose larger end is below
-- 1e-100) are refused before anything is charged, those within answer.
\set SHOW_CONTEXT never
SET client_min_messages = warning;
-- one row per hostile value, in cell 0, and five ordinary rows in cell 1, of every measure type
CREATE TABLE sa_rows (unit int, kind int, i2 smallint, i4 int, i8 bigint, r4 real, f8 float8, n numeric);
INSERT INTO sa_rows VALUES
  (1, 0, 32767, 2147483647, 9223372036854775807, 'Infinity', 'Infinity', 'Infinity'),
  (2, 0, -32768, -2147483648, -9223372036854775808, '-Infinity', '-Infinity', '-Infinity'),
  (3, 0, NULL, NULL, NULL, 'NaN', 'NaN', 'NaN'),
  (4, 0, 0, 0, 0, '1e-45', '5e-324', 1e-400),             -- denormals; below float8's range
  (5, 0, 1, 1, 1, '3e38', '1e308', 1e400),                 -- near or past float8's limits
  (6, 0, 1, 1, 1, '-3e38', '-1e308', -1e400),
  (7, 0, 0, 0, 0, '1e-38', '2.2e-308', ('0.' || repeat('0', 16000) || '7')::numeric),   -- smallest normals; 16001 digits
  (8, 0, 2, 2, 2, '2.5', '2.5', (repeat('9', 1000) || '.' || repeat('9', 1000))::numeric),
  (9, 0, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO sa_rows SELECT u, 1, u, u, u, u, u, u FROM generate_series(10, 14) u;
SELECT dpm.register_source('sa_rows', 'unit', 1, epsilon => 1000, delta => 1e-2);
SELECT dpm.create_domain('sa_kind', 'sa_rows', '[{"name": "kind", "values": [0, 1]}]');
SELECT dpm.create_workload('sa_w', 'sa_kind', 'Identity(kind)');

-- bounds: past 1e100 (and the issue's 1e308), or both ends within 1e-100 of 0, are refused when
-- declared, with nothing stored; at the limits they are accepted
SELECT dpm.create_measure('huge', 'sa_rows', 'n', -1e308, 1e308);
SELECT dpm.create_measure('huge', 'sa_rows', 'f8', 0, 1.0000001e100);
SELECT dpm.create_measure('huge', 'sa_rows', 'f8', -2e100, 0);
SELECT dpm.create_measure('huge', 'sa_rows', 'f8', 0, 9e-101);
SELECT dpm.create_measure('huge', 'sa_rows', 'f8', -1e-310, 1e-310);
SELECT count(*) AS stored FROM dpm.measures WHERE name = 'huge';
SELECT dpm.create_measure('lim', 'sa_rows', 'n', -1e100, 1e100) AS at_the_limit,
       dpm.create_measure('lim_small', 'sa_rows', 'n', -1e-100, 0) AS at_the_small_limit,
       dpm.create_measure('lim_lo', 'sa_rows', 'f8', 1e-300, 1e100) AS tiny_lo;
-- every type, with ordinary bounds: each value clamped to [-10, 1000]
SELECT dpm.create_measure(t, 'sa_rows', t, -10, 1000) FROM unnest('{i2,i4,i8,r4,f8,n}'::text[]) t;
SELECT dpm.create_measure('n_drop', 'sa_rows', 'n', -10, 1000, nulls => 'drop');

-- the exact sums per cell, as our aggregates take them and as grouped scans (Citus,
-- postgres_fdw) do: the same numbers, to the last bit, for every measure, sum and average
CREATE TEMP TABLE sa_scans AS
SELECT m.name, g.mode, m.grid_exp,
       dpm_internal.measure_vector(s, d, m, current_user::regrole, true, false) AS sums,
       dpm_internal.measure_vector(s, d, m, current_user::regrole, true, true) AS avgs
  FROM dpm.sources s, dpm.domains d, dpm.measures m, (VALUES ('off'), ('on')) g(mode),
       LATERAL set_config('dpm.grouped_scans', g.mode, false) c
 WHERE s.relation = 'sa_rows'::regclass AND d.source_id = s.id AND m.source_id = s.id AND m.dropped_at IS NULL;
RESET dpm.grouped_scans;
SELECT a.name, a.sums = b.sums AS same_sums, a.avgs = b.avgs AS same_averages
  FROM sa_scans a JOIN sa_scans b ON b.name = a.name AND b.mode = 'on' WHERE a.mode = 'off' ORDER BY a.name;
-- cell 0 in the measure's unit: Infinity is hi, -Infinity lo, NaN and NULL nothing, a denormal or
-- 1e-400 nothing, 1e308 and 1e400 hi, their negatives lo, the smallest normals nothing, 2.5 (or
-- the 1000 nines) themselves (or hi): the integers 1000 - 10 + 1 + 1 + 2 (their extremes clamped),
-- the others 1000 - 10 + 1000 - 10 + 2.5, or + 1000 for the nines.  Cell 1: 10 + ... + 14.
-- Counts for the average: the rows with a value (NULL and NaN count as 0 unless dropped)
SELECT name, sums[1] * 2 ^ grid_exp AS cell0, sums[2] * 2 ^ grid_exp AS cell1, avgs[3:4] AS counts
  FROM sa_scans WHERE mode = 'off' AND name IN ('i2', 'i4', 'i8', 'r4', 'f8', 'n', 'n_drop') ORDER BY name;
-- at the limits, in units of their grid (2^309, 2^-356): cell 0's +-1e100 (Infinity, 1e400, the
-- nines) and +-1e-100, the values of cell 1 and 2.5 each less than half a unit of the +-1e100 grid
SELECT name, sums[1] * 2 ^ grid_exp AS cell0, sums[2] * 2 ^ grid_exp AS cell1
  FROM sa_scans WHERE mode = 'off' AND name IN ('lim', 'lim_small', 'lim_lo') ORDER BY name;

-- releases of every measure, sums and averages, Laplace and Gaussian, are answered (a release
-- that fails after its charge raises an error here); with the bounds at the limits, every answer
-- and interval is a finite number
CREATE TEMP TABLE sa_answers AS
SELECT m.name, a.agg, x.*
  FROM dpm.measures m, (VALUES ('sum'), ('avg')) a(agg), (VALUES (0::float8), (1e-6)) d(delta),
       LATERAL dpm.answer('sa_w', epsilon => 1, delta => d.delta, measure => m.name, aggregate => a.agg) x
 WHERE m.source_id = (SELECT id FROM dpm.sources WHERE relation = 'sa_rows'::regclass) AND m.dropped_at IS NULL;
-- (an average is NULL where its noisy count is not positive)
SELECT count(*) AS answers,
       bool_and(coalesce(abs(answer), 0) < 'Infinity' AND coalesce(abs(ci_low), 0) < 'Infinity'
                AND coalesce(abs(ci_high), 0) < 'Infinity') AS finite
  FROM sa_answers;
SELECT status, count(*) FROM dpm.releases WHERE source_id = (SELECT id FROM dpm.sources WHERE relation = 'sa_rows'::regclass)
 GROUP BY status;

-- a measure declared before the limits (bounds 1e308, as dpm.create_measure once accepted) is
-- refused by each release before its charge: the ledger does not move
SELECT sum(epsilon) AS spent FROM dpm.ledger WHERE source_id = (SELECT id FROM dpm.sources WHERE relation = 'sa_rows'::regclass) \gset
INSERT INTO dpm.measures (source_id, name, expression, lo, hi, nulls, grid_exp)
  SELECT id, 'old_huge', 'n', -1e308, 1e308, 'zero', dpm_internal.measure_grid(-1e308, 1e308)
    FROM dpm.sources WHERE relation = 'sa_rows'::regclass;
SELECT * FROM dpm.answer('sa_w', epsilon => 1, measure => 'old_huge');
SELECT * FROM dpm.answer('sa_w', epsilon => 1, measure => 'old_huge', aggregate => 'avg');
SELECT sum(epsilon) = :spent AS nothing_charged FROM dpm.ledger
 WHERE source_id = (SELECT id FROM dpm.sources WHERE relation = 'sa_rows'::regclass);

-- the steps after the charge scale and halve without SQL's overflow and underflow errors
SELECT dpm_internal.times(1e300, 1e300) AS held, dpm_internal.times(-1e300, 1e300) AS held_negative,
       dpm_internal.times(5e-324, 0.5) AS below_range, dpm_internal.times('Infinity', 2) AS infinite,
       dpm_internal.times(3, 2 ^ 309) = 3 * 2 ^ 309 AS exact;
-- a quantile in a bin near float8's limits: between the bin's ends (SQL's arithmetic overflowed)
SELECT dpm_internal.interpolate(-1e308, 1e308, 3, 4) AS wide_bin, dpm_internal.interpolate(2e307, 6e307, 50, 100) AS half_way,
       dpm_internal.interpolate(0, 10, 1, 4) = 0 + 10 * 1 / 4::float8 AS as_before, dpm_internal.interpolate(0, 10, 5, 4) AS held;
CREATE TABLE sa_wide AS SELECT u AS unit, (u * 1e306)::float8 AS v FROM generate_series(1, 100) u;
SELECT dpm.register_source('sa_wide', 'unit', 1, epsilon => 1000);
SELECT dpm.create_domain('sa_wide_d', 'sa_wide', '[{"name": "v", "bins": {"min": -1e308, "max": 1.6e308, "width": 4e307}}]');
SELECT dpm.quantile_workload('sa_wide_w', 'sa_wide_d', 'v');
SELECT count(*) AS answers FROM dpm.answer('sa_wide_w', epsilon => 10);
SELECT probability, value BETWEEN ci_low AND ci_high AS within, ci_low >= -1e308 AND ci_high <= 1.6e308 AS in_range
  FROM dpm.quantiles((SELECT max(id) FROM dpm.releases WHERE source_id = (SELECT id FROM dpm.sources WHERE relation = 'sa_wide'::regclass)),
                     'v', '{0.1, 0.5, 0.9}');

DELETE FROM dpm.ledger WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation IN ('sa_rows'::regclass, 'sa_wide'::regclass));
DELETE FROM dpm.releases WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation IN ('sa_rows'::regclass, 'sa_wide'::regclass));
DELETE FROM dpm.workloads WHERE domain_id IN (SELECT d.id FROM dpm.domains d JOIN dpm.sources s ON s.id = d.source_id
                                              WHERE s.relation IN ('sa_rows'::regclass, 'sa_wide'::regclass));
DELETE FROM dpm.domains WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation IN ('sa_rows'::regclass, 'sa_wide'::regclass));
DELETE FROM dpm.sources WHERE relation IN ('sa_rows'::regclass, 'sa_wide'::regclass);
DROP TABLE sa_rows, sa_wide;
