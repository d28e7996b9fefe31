-- Privacy units whose equality is not byte equality (issue 41): citext ('Bob' = 'BOB'), numeric
-- (1.0 = 1.00).  Every place that compares or groups units uses the type's own default operator
-- classes under the column's collation: the capping window of dpm_internal.source_rows (sorts by
-- the btree class, splits by its "="), grouped scans (the same window), the window that finds a
-- unit's first periods (sql/16_periods.sql), count(DISTINCT unit) of key selection, and
-- capped_groups' hash table (the type cache's hash and equality, which it keeps consistent; Citus
-- distributes by the same hash class).  So 'Bob', 'BOB' and 'bob' are one unit everywhere.  Only
-- one place took another class: a unique index lets the capping be skipped
-- (dpm_internal.unit_unique), and one with record_image_ops holds ROW(1.0) and ROW(1.00), one unit
-- to the capping; now only an index of the type's default class and the column's collation counts.
SET client_min_messages = warning;
-- ids as they were at the end, so that the tests after print the release ids they expect
CREATE TEMP TABLE ue_sequences AS
  SELECT (schemaname || '.' || sequencename)::regclass AS seq, coalesce(last_value, start_value) AS v, last_value IS NOT NULL AS called
    FROM pg_sequences WHERE schemaname = 'dpm';
CREATE EXTENSION citext;
-- Bob has three rows of kind 0, spelled three ways, one per day (one period each); Ann one of kind 1
CREATE TABLE ue_people (unit citext, kind int, day date);
INSERT INTO ue_people VALUES ('Bob', 0, '2024-01-01'), ('BOB', 0, '2024-01-02'), ('bob', 0, '2024-01-03'),
                             ('Ann', 1, '2024-01-01');
SELECT dpm.register_source('ue_people', 'unit', 1, epsilon => 10, delta => 1e-3);
SELECT dpm.create_domain('ue_d', 'ue_people', '[{"name": "kind", "values": [0, 1]}]') AS cells;
CREATE FUNCTION ue_counts(domain_name text, periods int4range DEFAULT NULL) RETURNS float8[]
LANGUAGE sql AS $$
  SELECT dpm_internal.frequency_vector(s, d, current_user::regrole, true, periods)
    FROM dpm.domains d JOIN dpm.sources s ON s.id = d.source_id WHERE d.name = domain_name
$$;
-- a local capped scan, then a grouped one: Bob keeps one row (max_contributions 1)
SELECT ue_counts('ue_d') AS local_capped;
SET dpm.grouped_scans = on;
SELECT ue_counts('ue_d') AS grouped_capped;
RESET dpm.grouped_scans;
-- capped_groups (the capping a remote server runs): one unit of kind 0
SELECT r.k, r.c FROM (SELECT dpm_internal.capped_groups(unit, 1, ARRAY[kind]::int4[], NULL::int8) AS a FROM ue_people) x,
       dpm_internal.capped_rows(x.a) r ORDER BY r.k;
-- the rows of releases: the capped form, and the whole workload released (answers are noisy: their number)
CREATE ROLE regress_ue_analyst IN ROLE dpm_analyst;
SET ROLE regress_ue_analyst;
SELECT dpm.create_workload('ue_w', 'ue_d', 'Identity(kind)') AS queries;
SELECT count(*) AS answers FROM dpm.answer('ue_w', epsilon => 1);
RESET ROLE;
-- key selection counts distinct units: kind 0 is held by one unit, even with its three rows kept
UPDATE dpm.sources SET max_contributions = 3 WHERE relation = 'ue_people'::regclass;
CREATE FUNCTION ue_keys() RETURNS TABLE (key text, units bigint) LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE dpm_internal.keys_sql((SELECT s FROM dpm.sources s WHERE s.relation = 'ue_people'::regclass),
                                             'kind', NULL, 256);
END
$$;
SELECT * FROM ue_keys();
-- periods of one day, a unit counting in its first period only: Bob's three spellings are one
-- unit, whose first period is the first day, though max_contributions would keep his three rows
SELECT dpm.set_periods('ue_people', 'day', '1 day', '2024-01-01', 1);
SELECT ue_counts('ue_d', dpm_internal.period_range(s, '2024-01-01', '2024-01-03')) AS periods_capped
  FROM dpm.sources s WHERE s.relation = 'ue_people'::regclass;

-- numeric: 1.0, 1.00 and 1 are one unit
CREATE TABLE ue_numeric (unit numeric, kind int);
INSERT INTO ue_numeric VALUES (1.0, 0), (1.00, 0), (1, 0), (2, 1);
SELECT dpm.register_source('ue_numeric', 'unit', 1, epsilon => 10);
SELECT dpm.create_domain('ue_nd', 'ue_numeric', '[{"name": "kind", "values": [0, 1]}]') AS cells;
SELECT ue_counts('ue_nd') AS numeric_capped;
-- a unique index whose operator class compares otherwise: record_image_ops holds ROW(1.0) and
-- ROW(1.00), which the capping's record "=" calls one unit; the capping must still run
CREATE TYPE ue_pair AS (n numeric);
CREATE TABLE ue_image (unit ue_pair NOT NULL, kind int);
CREATE UNIQUE INDEX ue_image_unit ON ue_image (unit record_image_ops);
INSERT INTO ue_image VALUES (ROW(1.0), 0), (ROW(1.00), 0), (ROW(2), 1);
SELECT dpm.register_source('ue_image', 'unit', 1, epsilon => 10);
SELECT dpm.create_domain('ue_id', 'ue_image', '[{"name": "kind", "values": [0, 1]}]') AS cells;
SELECT dpm_internal.unit_unique('ue_image', 'unit') AS image_index_skips_capping, ue_counts('ue_id') AS image_capped;
-- while an index of the default class skips it, rightly
CREATE TABLE ue_plain (unit ue_pair NOT NULL, kind int);
CREATE UNIQUE INDEX ue_plain_unit ON ue_plain (unit);
SELECT dpm_internal.unit_unique('ue_plain', 'unit') AS default_index_skips_capping;

DELETE FROM dpm.ledger WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'ue\_%');
DELETE FROM dpm.releases WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'ue\_%');
DELETE FROM dpm.domains WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'ue\_%');
DELETE FROM dpm.sources WHERE relation::text LIKE 'ue\_%';
DROP TABLE ue_people, ue_numeric, ue_image, ue_plain;
DROP TYPE ue_pair;
DROP FUNCTION ue_counts(text, int4range), ue_keys();
DROP OWNED BY regress_ue_analyst;
DROP ROLE regress_ue_analyst;
DROP EXTENSION citext;
SELECT count(setval(seq, v, called)) = count(*) AS sequences_set_back FROM ue_sequences;
