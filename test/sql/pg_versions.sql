-- The conditions a release may evaluate on every row are accepted or refused alike on every
-- PostgreSQL version dpmatrix supports (issue 42, item 4): this file has one expected output, for
-- 15 and 18.  What changed under the allowlist (src/security/safe_expr.c, safe_calls.c) from 15 to 18:
--   - from 16 on, current_user, current_role, user, session_user, current_catalog and
--     current_schema are calls of functions, no longer SQLValueFunction nodes: those functions
--     are on the list, so both spellings are accepted on every version;
--   - 16 to 18 added syntax that 15 cannot parse (IS JSON, JSON_OBJECT, JSON_ARRAY, JSON_EXISTS,
--     JSON_VALUE, SYSTEM_USER, casefold, int to bytea casts): refused on every version, by the
--     parser on 15 and by the allowlist after (shown as "refused" for both);
--   - 17 has infinite intervals, which the comparisons and time to interval take (and
--     test/sql/vetted_calls.sql runs them there); interval to time, not on the list, fails on them;
--   - 18 accepts LIKE under a nondeterministic collation: still refused, on every version;
--   - 18 has virtual generated columns, computed when a row is read (below).
-- Nothing is released.
SET client_min_messages = warning;
\set VERBOSITY terse
CREATE COLLATION pv_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE ROLE regress_pv_custodian IN ROLE dpm_admin;
CREATE TABLE pv_t (id int, x int, y int, t text, t_ci text COLLATE pv_ci, j jsonb, d date, ts timestamp,
                   dur interval, tm time);
INSERT INTO pv_t SELECT i, i, i, 'v' || i, 'v' || i, jsonb_build_object('a', i), date '2020-01-01' + i,
                        timestamp '2020-01-01' + i * interval '1 hour', i * interval '1 hour', time '00:00' + i * interval '1 minute'
  FROM generate_series(1, 20) i;
GRANT SELECT ON pv_t TO regress_pv_custodian;
SET ROLE regress_pv_custodian;
SELECT dpm.register_source('pv_t', epsilon => 1) IS NOT NULL AS registered;
-- a domain whose first bin has the condition: dpmatrix's message when it is refused, "refused"
-- when this version cannot parse it
CREATE FUNCTION pg_temp.pv_domain(source text, condition text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM dpm.create_domain('pv_d', source, jsonb_build_array(jsonb_build_object('name', 'c', 'column', 'id', 'bins',
            jsonb_build_array(jsonb_build_object('label', 'x', 'condition', condition),
                              jsonb_build_object('label', 'rest', 'condition', 'true')))));
  PERFORM dpm.drop_domain('pv_d');
  RETURN 'accepted';
EXCEPTION
  WHEN invalid_parameter_value THEN
    RETURN SQLERRM;
  WHEN syntax_error OR undefined_function OR undefined_column OR cannot_coerce THEN
    RETURN 'refused';
END
$$;
SELECT c.condition, pg_temp.pv_domain('pv_t', c.condition) AS outcome
  FROM (VALUES
    -- SQLValueFunction on 15, function calls from 16 on: accepted
    ('current_user = ''nobody'''), ('current_role = ''nobody'''), ('user = ''nobody'''),
    ('session_user = ''nobody'''), ('current_catalog = ''nobody'''), ('current_schema = ''public'''),
    -- the same functions called by name, on every version: accepted
    ('"current_user"() = ''nobody'''), ('"session_user"() = ''nobody'''), ('current_database() = ''nobody'''),
    ('current_schema() = ''public'''),
    -- SQLValueFunction on every version: accepted, but a timestamptz compared with a timestamp
    ('d < CURRENT_DATE'), ('ts < LOCALTIMESTAMP'), ('ts < CURRENT_TIMESTAMP'),
    -- intervals compare (infinite ones too, from 17 on); interval to time fails on infinity
    ('dur > interval ''1 day'''), ('dur > tm'), ('dur::time > ''01:00'''),
    -- nondeterministic collations: comparisons accepted, LIKE and starts_with refused
    ('t_ci = ''V1'''), ('t_ci LIKE ''v1%'''), ('starts_with(t_ci, ''v'')'),
    -- a row comparison, a jsonb operator, IS NORMALIZED: not on the list, on every version
    ('(x, y) < (1, 2)'), ('j @> ''{"a": 1}'''), ('t IS NORMALIZED')) c(condition);
-- the syntax and functions 16 to 18 added: refused, by dpmatrix where the version has them
SELECT c.condition, CASE WHEN o LIKE 'attribute "c" of domain "pv_d" could fail on some rows: %' THEN 'refused' ELSE o END AS outcome
  FROM (VALUES ('t::json IS JSON'), ('JSON_OBJECT(''a'': x) IS NULL'), ('JSON_ARRAY(x, y) IS NULL'),
               ('JSON_EXISTS(j, ''$.a'')'), ('JSON_VALUE(j, ''$.a'') = ''1'''), ('SYSTEM_USER IS NULL'),
               ('casefold(t) = ''v1'''), ('x::bytea IS NULL')) c(condition),
       LATERAL pg_temp.pv_domain('pv_t', c.condition) o;

-- Virtual generated columns (PostgreSQL 18, its default kind) are computed from their expression
-- when a row is read: a condition on one is checked with that expression in its place, and with a
-- partition's own expression (a release may read the partitions one by one).  15 has none: each
-- check below then holds as there is nothing to check.
RESET ROLE;
CREATE TABLE pv_g (id int, x int, y int) PARTITION BY RANGE (id);
DO $$
BEGIN
  EXECUTE 'ALTER TABLE pv_g ADD COLUMN ratio int GENERATED ALWAYS AS (x / y) VIRTUAL,
                            ADD COLUMN big boolean GENERATED ALWAYS AS (x > 3) VIRTUAL,
                            ADD COLUMN big2 boolean GENERATED ALWAYS AS (x > 3) VIRTUAL';
EXCEPTION WHEN syntax_error THEN
  NULL;
END
$$;
SELECT count(*) FILTER (WHERE attgenerated = 'v') AS virtual_columns,
       current_setting('server_version_num')::int >= 180000 AS has_virtual
  FROM pg_attribute WHERE attrelid = 'pv_g'::regclass \gset
SELECT :virtual_columns = CASE WHEN :'has_virtual'::boolean THEN 3 ELSE 0 END AS virtual_columns_as_the_version_has;
CREATE TABLE pv_g0 PARTITION OF pv_g FOR VALUES FROM (0) TO (1000);
DO $$
BEGIN
  IF EXISTS (SELECT FROM pg_attribute WHERE attrelid = 'pv_g'::regclass AND attgenerated = 'v') THEN
    -- a partition of its own expression for big2, which can fail
    EXECUTE 'CREATE TABLE pv_g1 PARTITION OF pv_g (big2 GENERATED ALWAYS AS (x / y > 3)) FOR VALUES FROM (1000) TO (2000)';
  ELSE
    CREATE TABLE pv_g1 PARTITION OF pv_g FOR VALUES FROM (1000) TO (2000);
  END IF;
END
$$;
INSERT INTO pv_g (id, x, y) SELECT i, i, i FROM generate_series(1, 20) i;
DO $$
BEGIN
  IF EXISTS (SELECT FROM pg_attribute WHERE attrelid = 'pv_g'::regclass AND attgenerated = 'v') THEN
    EXECUTE 'CREATE VIEW pv_gv AS SELECT id, x, y FROM pv_g WHERE big';
  ELSE
    CREATE VIEW pv_gv AS SELECT id, x, y FROM pv_g WHERE x > 3;
  END IF;
END
$$;
GRANT SELECT ON pv_g, pv_g0, pv_g1, pv_gv TO regress_pv_custodian;
SET ROLE regress_pv_custodian;
SELECT dpm.register_source('pv_g', epsilon => 1) IS NOT NULL AS registered;
-- big, safe: accepted; ratio, x / y, fails where y = 0: refused, in a condition or a view's
-- filter; big2 is safe on pv_g but not on its partition pv_g1: refused
SELECT c.condition,
       NOT :'has_virtual'::boolean OR pg_temp.pv_domain('pv_g', c.condition) = c.expected AS as_expected
  FROM (VALUES ('big', 'accepted'),
               ('ratio > 3', 'attribute "c" of domain "pv_d" could fail on some rows: virtual generated column ratio of public.pv_g is computed on every row it is read from an expression that could fail: integer division or modulo fails for a divisor of 0 or -1: divide only by a constant other than those'),
               ('big2', 'attribute "c" of domain "pv_d" could fail on some rows: virtual generated column big2 of public.pv_g1 is computed on every row it is read from an expression that could fail: integer division or modulo fails for a divisor of 0 or -1: divide only by a constant other than those')) c(condition, expected);
RESET ROLE;
SELECT dpm.register_source('pv_gv', epsilon => 1) IS NOT NULL AS view_registered;
SET ROLE regress_pv_custodian;
SELECT NOT :'has_virtual'::boolean OR pg_temp.pv_domain('pv_gv', 'x > 3') = 'accepted' AS view_of_safe_column_accepted;
-- the view cannot be made to read ratio: the source's definition is checked again
RESET ROLE;
CREATE FUNCTION pg_temp.pv_error(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE query;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLERRM;
END
$$;
SELECT NOT :'has_virtual'::boolean OR
       pg_temp.pv_error('CREATE OR REPLACE VIEW pv_gv AS SELECT id, x, y FROM pv_g WHERE ratio > 0')
         = 'the definition of source public.pv_gv could fail on some rows: virtual generated column ratio of public.pv_g is computed on every row it is read from an expression that could fail: integer division or modulo fails for a divisor of 0 or -1: divide only by a constant other than those'
       AS view_of_failing_column_refused;
-- PostgreSQL fails on such a row, after a release's charge were the condition accepted
INSERT INTO pv_g (id, x, y) VALUES (1500, 1, 0);
SELECT NOT :'has_virtual'::boolean OR pg_temp.pv_error('SELECT count(*) FROM pv_g WHERE ratio > 3') = 'division by zero' AS ratio_fails,
       NOT :'has_virtual'::boolean OR pg_temp.pv_error('SELECT count(*) FROM pv_g1 WHERE big2') = 'division by zero' AS partition_big2_fails,
       NOT :'has_virtual'::boolean OR pg_temp.pv_error('SELECT count(*) FROM pv_g WHERE big') = 'no error' AS big_reads;

DROP FUNCTION pg_temp.pv_domain, pg_temp.pv_error;
DELETE FROM dpm.domains WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'pv\_%');
DELETE FROM dpm.sources WHERE relation::text LIKE 'pv\_%';
DROP VIEW pv_gv;
DROP TABLE pv_t, pv_g;
DROP COLLATION pv_ci;
DROP ROLE regress_pv_custodian;
