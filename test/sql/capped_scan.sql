-- A capped scan of a table here (issue 47): one pass of dpm_internal.capped_groups, a hash table of
-- the privacy units, rather than the window of dpm_internal.source_rows, which sorts every row by
-- unit and random key; the window stays where capped_groups does not apply.  The table's memory is
-- bounded by dpm.capping_memory_mb: past it, rows of further units go to a temporary file and are
-- capped in further passes, each unit's rows in one pass.
SET client_min_messages = warning;
CREATE TEMP TABLE cs_sequences AS
  SELECT (schemaname || '.' || sequencename)::regclass AS seq, coalesce(last_value, start_value) AS v, last_value IS NOT NULL AS called
    FROM pg_sequences WHERE schemaname = 'dpm';
-- 40,000 units, unit u with 1 + u % 4 rows, all in cell u % 8, interleaved (a unit's rows are far
-- apart in the table); capped at 2, cell c keeps sum over its units of min(2, 1 + u % 4) rows
CREATE TABLE cs_rows AS
  SELECT u, u % 8 AS cell, 'person ' || u AS name
    FROM generate_series(0, 3) r, generate_series(1, 40000) u WHERE r <= u % 4;
SELECT dpm.register_source('cs_rows', 'u', 2, epsilon => 10);
SELECT dpm.create_domain('cs_d', 'cs_rows', '[{"name": "cell", "values": [0, 1, 2, 3, 4, 5, 6, 7]}]') AS cells;
CREATE FUNCTION cs_scan(domain_name text) RETURNS text
LANGUAGE sql AS $$
  SELECT dpm_internal.scan_sql(s, d, current_user::regrole, true, NULL, 'DIRECT', 'KEY', NULL, 'GROUPED')
    FROM dpm.domains d JOIN dpm.sources s ON s.id = d.source_id WHERE d.name = domain_name
$$;
CREATE FUNCTION cs_counts(domain_name text) RETURNS float8[]
LANGUAGE sql AS $$
  SELECT dpm_internal.frequency_vector(s, d, current_user::regrole, true)
    FROM dpm.domains d JOIN dpm.sources s ON s.id = d.source_id WHERE d.name = domain_name
$$;
CREATE VIEW cs_expected AS
  SELECT array_agg(k ORDER BY cell)::float8[] AS counts
    FROM (SELECT cell, sum(least(2, 1 + u % 4)) AS k FROM (SELECT DISTINCT u, cell FROM cs_rows) x GROUP BY cell) y;
-- the scan's form: capped_groups for a capped source here
SELECT cs_scan('cs_d') LIKE 'SELECT GROUPED FROM (SELECT r.k[1] AS k, r.c AS c, r.s AS s, r.v AS v FROM (SELECT dpm_internal.capped_groups(u, 2, ARRAY[KEY]::int4[], NULL::int8) AS a FROM public.cs_rows s)%' AS one_pass;
-- exactly min(2, rows) rows of each unit, in memory ...
SELECT cs_counts('cs_d') = (SELECT counts FROM cs_expected) AS capped_in_memory;
-- ... and in 1 MB, where the table holds about 10,000 units a pass
SET dpm.capping_memory_mb = 1;
SELECT cs_counts('cs_d') = (SELECT counts FROM cs_expected) AS capped_in_passes;
-- units passed by reference (text), through the file too, and NULL units (one unit)
SELECT array_agg(r.c ORDER BY r.k) = (SELECT array_agg(c::int8 ORDER BY cell) FROM (SELECT cell, sum(least(2, 1 + u % 4)) + CASE WHEN cell = 0 THEN 2 ELSE 0 END AS c
                                                                                      FROM (SELECT DISTINCT u, cell FROM cs_rows) x GROUP BY cell) y) AS text_units
  FROM dpm_internal.capped_rows((SELECT dpm_internal.capped_groups(name, 2, ARRAY[cell], NULL::int8)
                                   FROM (SELECT name, cell FROM cs_rows UNION ALL SELECT NULL, 0 FROM generate_series(1, 5)) x)) r;
-- every row of a unit as likely to be kept, when units go through the file: 40,000 units of 4
-- rows (values 1 to 4, far apart), 2 kept: each value kept 20,000 times on average (binomial, sd
-- 100); each count within 6 sd fails by chance with probability below 1e-8
SELECT r.k[1] AS kept, abs(r.c - 20000) < 6 * sqrt(40000 * 0.5 * 0.5) AS uniform
  FROM dpm_internal.capped_rows((SELECT dpm_internal.capped_groups(u, 2, ARRAY[v], NULL::int8)
                                   FROM generate_series(1, 4) v, generate_series(1, 40000) u)) r
 ORDER BY 1;
-- a large cap: units of 1 to 40 rows, capped at 25 (the kept rows grow in steps) and 100
SELECT cap, sum(r.c) = (SELECT sum(least(cap, 1 + u % 40)) FROM generate_series(1, 2000) u) AS kept_all
  FROM unnest(ARRAY[25, 100]) cap,
       LATERAL dpm_internal.capped_rows((SELECT dpm_internal.capped_groups(u, cap, ARRAY[0], NULL::int8)
                                           FROM generate_series(1, 2000) u, generate_series(1, 40) i WHERE i <= 1 + u % 40)) r
 GROUP BY cap ORDER BY cap;
RESET dpm.capping_memory_mb;
-- an analyst may not raise it
CREATE ROLE regress_cs_analyst IN ROLE dpm_analyst;
SET ROLE regress_cs_analyst;
SET dpm.capping_memory_mb = 4096;
RESET ROLE;
-- the window where capped_groups does not apply: a unique unit (nothing to cap) ...
CREATE TABLE cs_unique (u int PRIMARY KEY, cell int);
SELECT dpm.register_source('cs_unique', 'u', 1, epsilon => 10);
SELECT dpm.create_domain('cs_u', 'cs_unique', '[{"name": "cell", "values": [0, 1]}]') AS cells;
SELECT cs_scan('cs_u') AS unique_unit;
-- ... caps by cell (max_groups) ...
SELECT dpm.set_bounds('cs_rows', max_groups => 1, max_per_group => 2);
SELECT cs_scan('cs_d') LIKE '%row_number() OVER c%' AS by_cell_window;
-- ... and a unit type that sorts but does not hash (money)
CREATE TABLE cs_money (u money, cell int);
INSERT INTO cs_money VALUES (1, 0), (1, 1);
SELECT dpm.register_source('cs_money', 'u', 1, epsilon => 10);
SELECT dpm.create_domain('cs_m', 'cs_money', '[{"name": "cell", "values": [0, 1]}]') AS cells;
SELECT cs_scan('cs_m') LIKE '%row_number() OVER (PARTITION BY u ORDER BY dpm_internal.random_key())%' AS unhashable_window;
SELECT (SELECT sum(c) FROM unnest(cs_counts('cs_m')) c) AS one_row_kept;
-- clean up: the catalog's rows too, as the sequences are set back
DELETE FROM dpm.domains WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'cs\_%');
DELETE FROM dpm.sources WHERE relation::text LIKE 'cs\_%';
DROP VIEW cs_expected;
DROP TABLE cs_rows, cs_unique, cs_money;
DROP FUNCTION cs_scan(text), cs_counts(text);
DROP ROLE regress_cs_analyst;
SELECT setval(seq, v, called) IS NOT NULL AS reset FROM cs_sequences;
