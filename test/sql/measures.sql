-- Measures (issue 23, first part): numeric expressions a custodian declares on a source, clamped
-- to public bounds, and their exact sums per cell (dpm_internal.histogram_sum), in integer units of
-- the measure's grid so that the mechanism can measure them as exactly as counts.
\set SHOW_CONTEXT never
SET client_min_messages = warning;
CREATE TABLE ms_people AS
  SELECT g AS id, g % 4 AS kind, (g * 37 % 1000)::numeric * 100.5 AS income,
         CASE WHEN g % 10 = 0 THEN NULL WHEN g = 7 THEN 'NaN' WHEN g = 11 THEN 'Infinity' WHEN g = 13 THEN '-Infinity'
              ELSE g::float8 / 3 END AS score,
         (g % 7)::int AS visits, 'x' || g AS note
    FROM generate_series(1, 1000) g;
CREATE ROLE regress_ms_custodian IN ROLE dpm_admin;
CREATE ROLE regress_ms_custodian2 IN ROLE dpm_admin;   -- may not read the table
CREATE ROLE regress_ms_analyst IN ROLE dpm_analyst;
GRANT SELECT ON ms_people TO regress_ms_custodian;
SET ROLE regress_ms_custodian;
SELECT dpm.register_source('ms_people', 'id', 2, epsilon => 1);
SELECT dpm.create_domain('ms_kind', 'ms_people', '[{"name": "kind", "values": [0, 1, 2, 3]}]');

-- declared by a custodian; the result is the sensitivity of a sum per privacy unit,
-- max_contributions * max(|lo|, |hi|)
SELECT dpm.create_measure('income', 'ms_people', 'income', 0, 50000) AS income_sensitivity;
SELECT dpm.create_measure('score', 'ms_people', 'score', -10, 200, nulls => 'drop') AS score_sensitivity;
SELECT dpm.create_measure('visits', 'ms_people', 'visits', -1, 20) AS visits_sensitivity;
-- refused, with nothing stored: arithmetic (it can overflow), a division, text, two expressions,
-- an unknown column, bad bounds, a bad NULL rule, a taken name, a table not registered
SELECT dpm.create_measure('bad', 'ms_people', 'visits * 2 + 1', -1, 20);
SELECT dpm.create_measure('bad', 'ms_people', '100 / (kind - 1)', 0, 10);
SELECT dpm.create_measure('bad', 'ms_people', 'note', 0, 10);
SELECT dpm.create_measure('bad', 'ms_people', 'income), (SELECT 1', 0, 10);
SELECT dpm.create_measure('bad', 'ms_people', 'no_such_column', 0, 10);
SELECT dpm.create_measure('bad', 'ms_people', 'income', 10, 5);
SELECT dpm.create_measure('bad', 'ms_people', 'income', 0, 'Infinity');
SELECT dpm.create_measure('bad', 'ms_people', 'income', 'NaN', 1);
SELECT dpm.create_measure('bad', 'ms_people', 'income', 0, 0);
SELECT dpm.create_measure('bad', 'ms_people', 'income', 0, 1, nulls => 'ignore');
SELECT dpm.create_measure('bad', 'ms_people', 'income', NULL, 1);
SELECT dpm.create_measure('', 'ms_people', 'income', 0, 1);
SELECT dpm.create_measure('income', 'ms_people', 'income', 0, 1);
SELECT dpm.create_measure('bad', 'pg_class', 'relpages', 0, 1);
RESET ROLE;
SET ROLE regress_ms_custodian2;
SELECT dpm.create_measure('bad', 'ms_people', 'income', 0, 1);
RESET ROLE;
SET ROLE regress_ms_analyst;
SELECT dpm.create_measure('bad', 'ms_people', 'income', 0, 1);
-- the bounds are public: analysts read them
SELECT name, expression, lo, hi, nulls, grid_exp FROM dpm.measures WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation = 'ms_people'::regclass) ORDER BY id;
RESET ROLE;

-- the grid: every bound B is between 2^23 and 2^24 units of 2^grid_exp, so a value is at most
-- 2^24 units and sums of 2^29 values per cell stay below 2^53
SELECT bool_and(b * 2::float8 ^ (-dpm_internal.measure_grid(-b, b / 2)) >= 2 ^ 23
                AND b * 2::float8 ^ (-dpm_internal.measure_grid(-b, b / 2)) < 2 ^ 24) AS grid_in_range
  FROM unnest(ARRAY[1e-300, 1e-6, 0.3, 1, 2, 3, 1000, 50000, 2 ^ 40, 1e300]::float8[]) b;
SELECT dpm_internal.measure_grid(0, 0);

-- the sums per cell, exactly those of the clamped values rounded to the grid (NULL and NaN add
-- nothing, infinities are clamped), for a numeric, a float8 and an integer expression
CREATE FUNCTION pg_temp.reference(m dpm.measures, v float8[], k int[]) RETURNS float8[] LANGUAGE sql AS $$
  SELECT array_agg(coalesce(s, 0) ORDER BY c) FROM generate_series(0, 3) c LEFT JOIN (
    SELECT kk, sum(round(least(greatest(vv, m.lo), m.hi) * 2::float8 ^ (-m.grid_exp))) AS s
      FROM unnest(v, k) t(vv, kk) WHERE vv IS NOT NULL AND vv <> 'NaN' GROUP BY kk) x ON x.kk = c $$;
SELECT m.name,
       dpm_internal.measure_vector(s, d, m, 'regress_ms_custodian', false)
         = pg_temp.reference(m, CASE m.name WHEN 'income' THEN (SELECT array_agg(income::float8 ORDER BY id) FROM ms_people)
                                            WHEN 'score' THEN (SELECT array_agg(score ORDER BY id) FROM ms_people)
                                            ELSE (SELECT array_agg(visits ORDER BY id)::float8[] FROM ms_people) END,
                             (SELECT array_agg(kind ORDER BY id) FROM ms_people)) AS exact_sums
  FROM dpm.sources s JOIN dpm.domains d ON d.source_id = s.id JOIN dpm.measures m ON m.source_id = s.id
 WHERE d.name = 'ms_kind' ORDER BY m.id;

-- contribution bounding: each unit has five rows of value 1 in one cell; at most two are summed
CREATE TABLE ms_units AS SELECT u AS unit, u % 2 AS kind, 1 AS one FROM generate_series(1, 30) u, generate_series(1, 5) r;
SELECT dpm.register_source('ms_units', 'unit', 2, epsilon => 1);
SELECT dpm.create_domain('ms_units_kind', 'ms_units', '[{"name": "kind", "values": [0, 1]}]');
SELECT dpm.create_measure('one', 'ms_units', 'one', 0, 1);
SELECT (SELECT array_agg(v / dpm_internal.measure_units(m)) FROM unnest(dpm_internal.measure_vector(s, d, m, 'postgres', true)) v) AS capped,
       (SELECT array_agg(v / dpm_internal.measure_units(m)) FROM unnest(dpm_internal.measure_vector(s, d, m, 'postgres', false)) v) AS uncapped
  FROM dpm.sources s JOIN dpm.domains d ON d.source_id = s.id JOIN dpm.measures m ON m.source_id = s.id
 WHERE d.name = 'ms_units_kind';

-- in parallel workers the partial sums merge to the same vector; past 2^53 units a sum is held at
-- 2^53 (here 16 values of 2^60 units each)
CREATE TABLE ms_big AS SELECT g % 3 AS k, (g % 11)::float8 - 5 AS v FROM generate_series(1, 200000) g;
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT dpm_internal.histogram_sum(k, 3, v, -4, 4, -20) AS parallel_sums FROM ms_big;
RESET max_parallel_workers_per_gather;
SELECT dpm_internal.histogram_sum(k, 3, v, -4, 4, -20) AS serial_sums FROM ms_big;
SELECT dpm_internal.histogram_sum(0, 1, 1, -1, 1, -60) = '{9007199254740992}' AS held_at_2_53
  FROM generate_series(1, 16);
SELECT dpm_internal.histogram_sum(0, 1, -1, -1, 1, -60) = '{-9007199254740992}' AS held_at_minus_2_53
  FROM generate_series(1, 16);
SELECT dpm_internal.histogram_sum(0, 1, 1, 2, 1, 0);
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;

-- dropped, the name is free again; the old row stays
SET ROLE regress_ms_custodian;
SELECT dpm.drop_measure('visits', 'ms_people');
SELECT dpm.drop_measure('visits', 'ms_people');
SELECT dpm.create_measure('visits', 'ms_people', 'visits', 0, 6);
SELECT name, lo, hi, dropped_at IS NOT NULL AS dropped FROM dpm.measures WHERE name = 'visits' ORDER BY id;
SELECT dpm.drop_measure('nothing', 'ms_people');
RESET ROLE;

DELETE FROM dpm.domains WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation IN ('ms_people'::regclass, 'ms_units'::regclass));
DELETE FROM dpm.sources WHERE relation IN ('ms_people'::regclass, 'ms_units'::regclass);
DROP TABLE ms_people, ms_units, ms_big;
DROP ROLE regress_ms_custodian, regress_ms_custodian2, regress_ms_analyst;
