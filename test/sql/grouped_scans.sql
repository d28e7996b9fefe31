-- Grouped scans (issue 25): where a source's rows live on other servers, scans are grouped
-- queries those servers run (a count and a sum of units per cell), added up here; they give
-- exactly what our aggregates give over the rows.  Here on one server, with dpm.grouped_scans
-- forcing either form, and with a partitioned source one of whose partitions is a postgres_fdw
-- foreign table (a loopback server).  test/t/006_scale_out.pl runs Citus and remote servers.
\set SHOW_CONTEXT never
SET client_min_messages = warning;
-- 300 units: unit u has 1 + u % 3 rows, all alike (so capping at 2 keeps min(rows, 2) of them,
-- whichever it picks); kind 4 falls in no cell.  amount: NULL, NaN, out of [-100, 1000], halfway
-- between two units of the grid (2^-14 for these bounds) and not on it; amount_n the same as
-- numeric, some beyond float8's precision or range
CREATE TABLE gs_rows AS
  SELECT u AS unit, u % 5 AS kind, u % 2 = 0 AS flag,
         CASE WHEN u % 17 = 0 THEN NULL WHEN u % 19 = 0 THEN 'NaN' WHEN u % 23 = 0 THEN -1e6
              WHEN u % 7 = 0 THEN u + 2 ^ (-15) ELSE u * 3.3 - 60 END::float8 AS amount,
         CASE WHEN u % 13 = 0 THEN NULL WHEN u % 11 = 0 THEN 'NaN' WHEN u % 29 = 0 THEN 1e400
              WHEN u % 31 = 0 THEN -1e400 ELSE u / 7.0 - 20 END::numeric AS amount_n,
         date '2024-01-01' + u % 6 AS day
    FROM generate_series(1, 300) u, generate_series(1, 3) r WHERE r <= 1 + u % 3;
SELECT dpm.register_source('gs_rows', 'unit', 2, epsilon => 100);
SELECT dpm.create_domain('gs_d', 'gs_rows', '[{"name": "kind", "values": [0, 1, 2, 3]}, {"name": "flag", "values": [true, false]}]');
SELECT dpm.create_measure('gs_amount', 'gs_rows', 'amount', -100, 1000) > 0 AS amount;
SELECT dpm.create_measure('gs_amount_n', 'gs_rows', 'amount_n', -50, 50, nulls => 'drop') > 0 AS amount_n;

-- every scan of this source, by name: counts, sums and averages, as vectors and as marginal tables
CREATE FUNCTION gs_scans(source regclass, periods int4range DEFAULT NULL) RETURNS TABLE(scan text, v float8[])
LANGUAGE sql AS $$
  SELECT x.scan, x.v
    FROM (SELECT s FROM dpm.sources s WHERE s.relation = source AND s.unregistered_at IS NULL) s,
         (SELECT d FROM dpm.domains d WHERE d.source_id = (SELECT id FROM dpm.sources WHERE relation = source)) d,
         (SELECT m FROM dpm.measures m WHERE m.name = 'gs_amount' AND m.source_id = (SELECT id FROM dpm.sources WHERE relation = source)) m,
         (SELECT m FROM dpm.measures m WHERE m.name = 'gs_amount_n' AND m.source_id = (SELECT id FROM dpm.sources WHERE relation = source)) n,
         LATERAL (VALUES
           ('counts', dpm_internal.frequency_vector(s.s, d.d, current_user::regrole, false, periods)),
           ('capped counts', dpm_internal.frequency_vector(s.s, d.d, current_user::regrole, true, periods)),
           ('sums', dpm_internal.measure_vector(s.s, d.d, m.m, current_user::regrole, true, false, periods)),
           ('averages', dpm_internal.measure_vector(s.s, d.d, m.m, current_user::regrole, true, true, periods)),
           ('numeric sums', dpm_internal.measure_vector(s.s, d.d, n.m, current_user::regrole, true, false, periods)),
           ('numeric averages, NULLs dropped', dpm_internal.measure_vector(s.s, d.d, n.m, current_user::regrole, true, true, periods)),
           ('marginal counts', dpm_internal.marginal_tables(s.s, d.d, current_user::regrole, true, '{{1,0},{2,0},{1,2}}', periods)),
           ('marginal sums', dpm_internal.measure_tables(s.s, d.d, m.m, current_user::regrole, true, '{{1,0},{1,2}}', false, periods)),
           ('marginal averages', dpm_internal.measure_tables(s.s, d.d, n.m, current_user::regrole, true, '{{2,0},{1,2}}', true, periods))
         ) x(scan, v)
$$;

-- our aggregates, then grouped queries: the same numbers, to the last bit
SET dpm.grouped_scans = off;
CREATE TEMP TABLE gs_direct AS SELECT * FROM gs_scans('gs_rows');
SET dpm.grouped_scans = on;
SELECT d.scan, cardinality(d.v) AS cells, g.v = d.v AS same FROM gs_direct d JOIN gs_scans('gs_rows') g USING (scan) ORDER BY d.scan;
-- and they are right: capped counts by hand; a sum by hand for the cells without a NULL, NaN or
-- halfway value (2 * min(rows, 2) / 2 rows: each unit's capped rows, in units of 2^-14)
SELECT d.v = ARRAY(SELECT coalesce(sum(least(1 + u % 3, 2)), 0)::float8
                     FROM generate_series(0, 7) c
                     LEFT JOIN generate_series(1, 300) u ON u % 5 = c / 2 AND (u % 2 = 0) = (c % 2 = 0)
                    GROUP BY c ORDER BY c) AS capped_counts_right
  FROM gs_direct d WHERE d.scan = 'capped counts';
SELECT d.v[1] = (SELECT sum(least(1 + u % 3, 2) * round(greatest(u * 3.3 - 60, -100) * 16384))
                   FROM generate_series(1, 300) u
                  WHERE u % 5 = 0 AND u % 2 = 0 AND u % 17 <> 0 AND u % 19 <> 0 AND u % 23 <> 0 AND u % 7 <> 0)
       + (SELECT sum(least(1 + u % 3, 2) * CASE WHEN u % 23 = 0 THEN -100 * 16384 ELSE round((u + 2 ^ (-15)) * 16384) END)
            FROM generate_series(1, 300) u
           WHERE u % 5 = 0 AND u % 2 = 0 AND u % 17 <> 0 AND u % 19 <> 0 AND (u % 23 = 0 OR u % 7 = 0)) AS sums_right
  FROM gs_direct d WHERE d.scan = 'sums';
-- halfway values round to even units: u + 2^-15 is u * 16384 + 1/2 units
SELECT round(70 * 16384 + 0.5::float8) = 70 * 16384 AS even_down, round(7 * 16384 + 0.5::float8) = 7 * 16384 AS even_down_too;

-- the grouped SQL counts per cell, then our aggregate adds the groups up; the direct one does not group
SELECT dpm_internal.scan_sql(s, NULL, current_user::regrole, false, NULL, 'dpm.histogram(1, 1)', 'k', NULL, 'g') AS grouped
  FROM dpm.sources s WHERE relation = 'gs_rows'::regclass;
SET dpm.grouped_scans = auto;
SELECT dpm_internal.scan_sql(s, NULL, current_user::regrole, false, NULL, 'dpm.histogram(1, 1)', 'k', NULL, 'g') AS auto_here
  FROM dpm.sources s WHERE relation = 'gs_rows'::regclass;

-- periods: a unit's rows are all on one day, so capping by periods keeps them; days 1 to 3
SELECT dpm.set_periods('gs_rows', 'day', '1 day', '2024-01-01');
SET dpm.grouped_scans = off;
CREATE TEMP TABLE gs_direct_periods AS SELECT * FROM gs_scans('gs_rows', int4range(1, 4));
SET dpm.grouped_scans = on;
SELECT d.scan, g.v = d.v AS same FROM gs_direct_periods d JOIN gs_scans('gs_rows', int4range(1, 4)) g USING (scan)
 ORDER BY d.scan;
SELECT (SELECT sum(x) FROM unnest(v) x) = (SELECT sum(least(1 + u % 3, 2)) FROM generate_series(1, 300) u
                                           WHERE u % 5 < 4 AND u % 6 BETWEEN 1 AND 3) AS period_counts_right
  FROM gs_direct_periods WHERE scan = 'capped counts';
SET dpm.grouped_scans = auto;

-- a unique unit column needs no capping: nothing to sort, whatever the scan
CREATE TABLE gs_u1 (id int PRIMARY KEY, x int);
CREATE TABLE gs_u2 (id int UNIQUE, x int);
CREATE TABLE gs_u3 (id int NOT NULL, x int);
CREATE UNIQUE INDEX ON gs_u3 (id) WHERE x > 0;
CREATE TABLE gs_u4 (id int NOT NULL, x int, UNIQUE (id, x));
CREATE TABLE gs_u5 (id int NOT NULL, x int, UNIQUE (id) DEFERRABLE);
CREATE TABLE gs_u6 (id int NOT NULL, x int);
CREATE UNIQUE INDEX ON gs_u6 ((id + 0));
SELECT t, dpm_internal.unit_unique(t, 'id') AS unique_unit
  FROM unnest('{gs_u1,gs_u2,gs_u3,gs_u4,gs_u5,gs_u6}'::regclass[]) t;
SELECT dpm_internal.unit_unique('gs_u1', 'x') AS other_column;
SELECT dpm.register_source('gs_u1', 'id', 3, epsilon => 1);
SELECT dpm.register_source('gs_u2', 'id', 3, epsilon => 1);
SELECT s.relation, dpm_internal.source_rows(s, true) LIKE '%row_number%' AS capped
  FROM dpm.sources s WHERE s.relation IN ('gs_u1'::regclass, 'gs_u2'::regclass) ORDER BY 1;

-- a partitioned source with a foreign partition (postgres_fdw, over a loopback server): each
-- partition is read alone, the foreign one's counts computed by its server
CREATE EXTENSION IF NOT EXISTS postgres_fdw;
DO $$
BEGIN
  EXECUTE format('CREATE SERVER gs_loop FOREIGN DATA WRAPPER postgres_fdw OPTIONS (dbname %L, port %L, host %L)',
                 current_database(), current_setting('port'),
                 coalesce(nullif(split_part(current_setting('unix_socket_directories'), ',', 1), ''), 'localhost'));
END $$;
CREATE USER MAPPING FOR CURRENT_USER SERVER gs_loop;
CREATE TABLE gs_part (LIKE gs_rows) PARTITION BY HASH (unit);
CREATE TABLE gs_part_0 PARTITION OF gs_part FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE gs_remote (LIKE gs_rows);
CREATE FOREIGN TABLE gs_part_1 PARTITION OF gs_part FOR VALUES WITH (MODULUS 2, REMAINDER 1)
  SERVER gs_loop OPTIONS (table_name 'gs_remote');
INSERT INTO gs_part SELECT * FROM gs_rows;
SELECT (SELECT count(*) FROM gs_part_0) AS here, (SELECT count(*) FROM gs_remote) AS there;
SELECT dpm.register_source('gs_part', 'unit', 2, epsilon => 100);
SELECT dpm.create_domain('gs_pd', 'gs_part', '[{"name": "kind", "values": [0, 1, 2, 3]}, {"name": "flag", "values": [true, false]}]');
SELECT dpm.create_measure('gs_amount', 'gs_part', 'amount', -100, 1000) > 0 AS amount;
SELECT dpm.create_measure('gs_amount_n', 'gs_part', 'amount_n', -50, 50, nulls => 'drop') > 0 AS amount_n;
SELECT dpm_internal.rows_elsewhere('gs_part') AS part_elsewhere, dpm_internal.rows_elsewhere('gs_rows') AS rows_elsewhere;
CREATE VIEW gs_part_view AS SELECT * FROM gs_part WHERE unit > 0;
SELECT dpm_internal.rows_elsewhere('gs_part_view') AS view_elsewhere;
-- the same numbers as the one table, read partition by partition (auto)
SELECT d.scan, g.v = d.v AS same FROM gs_direct d JOIN gs_scans('gs_part') g USING (scan) ORDER BY d.scan;
SELECT dpm_internal.scan_parts(s, current_user::regrole, true) AS parts FROM dpm.sources s WHERE relation = 'gs_part'::regclass;
-- the foreign partition's grouped count runs on its server: one Foreign Scan of an aggregate
CREATE FUNCTION gs_plan(capped boolean) RETURNS TABLE(line text) LANGUAGE plpgsql AS $$
DECLARE
  q text := (SELECT dpm_internal.scan_sql(s, d, current_user::regrole, capped, NULL, 'x', format('(%s)::int4', d.cell_expr), NULL,
                                          format('dpm_internal.histogram_groups(g.k, %s, ARRAY[g.c])', d.n))
               FROM dpm.sources s JOIN dpm.domains d ON d.source_id = s.id WHERE s.relation = 'gs_part'::regclass);
BEGIN
  RETURN QUERY EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q;
END $$;
SELECT count(*) FILTER (WHERE line ~ 'Relations: Aggregate on') AS pushed_down_aggregates,
       count(*) FILTER (WHERE line ~ 'Remote SQL: SELECT .* GROUP BY') AS grouped_remote_sql
  FROM gs_plan(false);
-- capped, postgres_fdw cannot run the window that picks a unit's rows: they cross (still exact) ...
SELECT count(*) FILTER (WHERE line ~ 'Relations: Aggregate on') AS pushed_down_aggregates FROM gs_plan(true);
-- ... unless the server runs dpmatrix: then capped_groups caps and counts there
ALTER SERVER gs_loop OPTIONS (ADD extensions 'dpmatrix');
SELECT count(*) FILTER (WHERE line ~ 'Relations: Aggregate on') AS pushed_down_aggregates,
       count(*) FILTER (WHERE line ~ 'Remote SQL: SELECT dpm_internal.capped_groups\(unit, 2, ') AS capped_remotely
  FROM gs_plan(true);
SELECT d.scan, g.v = d.v AS same FROM gs_direct d JOIN gs_scans('gs_part') g USING (scan) ORDER BY d.scan;
-- ... when the one int8[] it sends back (1 + keys * (key length + 3), as text) stays below 5e7
-- elements whatever the rows: otherwise the rows are capped here, decided on the domain alone
-- (before the charge), so that no number of distinct keys in the rows can make a release fail
CREATE FUNCTION gs_caps_there(sizes int[], cells int) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  s dpm.sources;
  d dpm.domains;
BEGIN
  SELECT * INTO s FROM dpm.sources WHERE relation = 'gs_part'::regclass;
  SELECT * INTO d FROM dpm.domains WHERE source_id = s.id AND name = 'gs_pd';
  d.attr_sizes := sizes;
  d.n := cells;
  RETURN dpm_internal.scan_sql(s, d, current_user::regrole, true, NULL, 'x',
                               CASE WHEN cells IS NULL THEN dpm_internal.bins_expr(d.attr_exprs) ELSE 'k' END, NULL, 'g')
         LIKE '%capped_groups%';
END $$;
SELECT gs_caps_there(ARRAY[4, 2], NULL) AS wide_small, gs_caps_there(ARRAY[3000, 3000], NULL) AS wide_9e6,
       gs_caps_there(ARRAY[10000, 10000], NULL) AS wide_1e8, gs_caps_there(ARRAY[2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2], NULL) AS wide_2_50,
       gs_caps_there(NULL, 12499999) AS cells_under, gs_caps_there(NULL, 12500000) AS cells_over;
-- capped_groups keeps k rows of each unit, every row of a unit equally likely: 4000 draws of 2 of
-- a unit's 4 rows (values 1 to 4) keep each value 2000 times on average (binomial, sd 31.6);
-- each count within 6 sd of it fails by chance with probability below 1e-8
SELECT kept, abs(count(*) - 2000) < 6 * sqrt(4000 * 0.5 * 0.5) AS uniform
  FROM (SELECT dpm_internal.capped_groups(1, 2, ARRAY[v], NULL::int8) AS g
          FROM generate_series(1, 4000) d, generate_series(1, 4) v GROUP BY d) x,
       dpm_internal.capped_rows(x.g) r, unnest(r.k) kept
 GROUP BY kept ORDER BY kept;
-- units of a type passed by reference (text), and a NULL unit (one unit, as in the window): 300
-- units of 3 rows each, capped at 2, and 5 rows of no unit, capped at 2 too
SELECT r.k, r.c
  FROM dpm_internal.capped_rows((SELECT dpm_internal.capped_groups(u, 2, ARRAY[0], NULL::int8)
                                   FROM (SELECT 'unit ' || (i % 300) AS u FROM generate_series(1, 900) i
                                         UNION ALL SELECT NULL FROM generate_series(1, 5)) x)) r;
-- bad input
SELECT dpm_internal.histogram_groups(c, 4, a) FROM (VALUES (4, ARRAY[1::int8])) x(c, a);
SELECT dpm_internal.histogram_groups(c, 4, a) FROM (VALUES (0, NULL::int8[])) x(c, a);
SELECT dpm_internal.histogram_groups(c, 4, a) FROM (VALUES (0, ARRAY[1::int8, 2, 3])) x(c, a);
SELECT dpm_internal.histogram_groups(c, 4, a) FROM (VALUES (0, ARRAY[1::int8]), (1, ARRAY[1::int8, 2])) x(c, a);
SELECT dpm_internal.histogram_groups(c, 4, a) = '{1,0,0,0,0,0,0,0}' AS null_adds_nothing
  FROM (VALUES (0, ARRAY[1::int8, NULL])) x(c, a);
SELECT dpm_internal.marginal_groups(b, '{2,3}', '{{1,2}}', ARRAY[1::int8]) FROM (VALUES ('{1}'::int4[])) x(b);
SELECT dpm_internal.marginal_groups(b, '{2,3}', '{{1,2}}', ARRAY[1::int8]) FROM (VALUES ('{1,3}'::int4[])) x(b);
SELECT dpm_internal.capped_groups(1, 0, ARRAY[1], NULL::int8);
SELECT dpm_internal.capped_groups(1, 1, ARRAY[[1]], NULL::int8);
SELECT dpm_internal.capped_groups(x, 1, ARRAY[1], NULL::int8) FROM (VALUES ('{"a": 1}'::json)) t(x);
-- where reading the partitions is not reading the source, the source is read as one (the rows of
-- the foreign partition cross): a unit that could be in two partitions (capped only) ...
CREATE TABLE gs_part2 (LIKE gs_rows) PARTITION BY LIST (kind);
CREATE TABLE gs_part2_0 PARTITION OF gs_part2 FOR VALUES IN (0, 1, 2);
CREATE FOREIGN TABLE gs_part2_1 PARTITION OF gs_part2 FOR VALUES IN (3, 4) SERVER gs_loop OPTIONS (table_name 'gs_remote');
SELECT dpm.register_source('gs_part2', 'unit', 2, epsilon => 1);
SELECT capped, dpm_internal.scan_parts(s, current_user::regrole, capped) AS parts
  FROM dpm.sources s, (VALUES (true), (false)) c(capped) WHERE relation = 'gs_part2'::regclass;
-- ... or partitioned by the unit under another equality than the capping's (here another
-- collation than the column's: with a nondeterministic one, or record_image_ops on a composite,
-- one unit could then have rows in two partitions)
CREATE TABLE gs_remote3 (unit text, kind int);
CREATE TABLE gs_part3 (unit text, kind int) PARTITION BY LIST (unit COLLATE "C");
CREATE TABLE gs_part3_0 PARTITION OF gs_part3 FOR VALUES IN ('a');
CREATE FOREIGN TABLE gs_part3_1 PARTITION OF gs_part3 FOR VALUES IN ('b') SERVER gs_loop OPTIONS (table_name 'gs_remote3');
CREATE TABLE gs_part4 (unit text, kind int) PARTITION BY LIST (unit);
CREATE TABLE gs_part4_0 PARTITION OF gs_part4 FOR VALUES IN ('a');
CREATE FOREIGN TABLE gs_part4_1 PARTITION OF gs_part4 FOR VALUES IN ('b') SERVER gs_loop OPTIONS (table_name 'gs_remote3');
-- (as if registered with unit column unit: no source id is taken, which later tests print)
CREATE FUNCTION gs_by_partition(rel regclass) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  s dpm.sources;
BEGIN
  SELECT * INTO s FROM dpm.sources WHERE relation = 'gs_part2'::regclass;
  s.relation := rel;
  RETURN dpm_internal.scan_parts(s, current_user::regrole, true) IS NOT NULL;
END $$;
SELECT gs_by_partition('gs_part3') AS other_collation, gs_by_partition('gs_part4') AS column_collation;
-- ... row-level security on the partitioned table, and a role that may read it but not its partitions
ALTER TABLE gs_part2 ENABLE ROW LEVEL SECURITY;
SELECT dpm_internal.scan_parts(s, current_user::regrole, false) AS parts_under_rls FROM dpm.sources s WHERE relation = 'gs_part2'::regclass;
ALTER TABLE gs_part2 DISABLE ROW LEVEL SECURITY;
CREATE ROLE gs_reader;
GRANT SELECT ON gs_part2 TO gs_reader;
SELECT dpm_internal.scan_parts(s, 'gs_reader', false) AS parts_for_reader FROM dpm.sources s WHERE relation = 'gs_part2'::regclass;
GRANT SELECT ON gs_part2_0, gs_part2_1 TO gs_reader;
SELECT cardinality(dpm_internal.scan_parts(s, 'gs_reader', false)) AS parts_granted FROM dpm.sources s WHERE relation = 'gs_part2'::regclass;
REVOKE ALL ON gs_part2, gs_part2_0, gs_part2_1 FROM gs_reader;
DROP ROLE gs_reader;

-- a release over the partitioned source: answers as over the one table, charged once
SELECT dpm.create_workload('gs_pw', 'gs_pd', 'Identity(kind) * Identity(flag) + Total(kind) * Total(flag)');
SELECT count(*) AS answers, bool_and(answer IS NOT NULL) AS all_answered
  FROM dpm.answer('gs_pw', epsilon => 1, method => 'identity', reuse => 'never');
SELECT count(*) AS charges, sum(epsilon) AS spent FROM dpm.ledger WHERE source_id = (SELECT id FROM dpm.sources WHERE relation = 'gs_part'::regclass);
SELECT array_agg(answer ORDER BY query) = (SELECT v FROM gs_direct WHERE scan = 'counts') || (SELECT sum(x) FROM gs_direct, unnest(v) x WHERE scan = 'counts')
       AS exact_answers_same
  FROM dpm.exact_answers('gs_pw');

RESET dpm.grouped_scans;
RESET client_min_messages;
