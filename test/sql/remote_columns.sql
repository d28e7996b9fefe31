-- A postgres_fdw foreign table's declared columns against the remote table's (issue 41): the
-- remote values are converted with the declared types' input functions while a release reads
-- them, after its charge, so a remote int8 declared int4 fails on a value of 2^40, a remote text
-- declared varchar(3) on a long string.  Every foreign table a source reads must match its remote
-- table, column by column (type, typmod, a deterministic collation), checked at register_source,
-- create_domain, create_measure and again before every charge, reading no row.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgres_fdw;
-- a loopback server (this database), and one whose servers run dpmatrix (capping remotely)
DO $$
DECLARE
  opts text := format('dbname %L, port %L, host %L', current_database(), current_setting('port'),
                      coalesce(nullif(split_part(current_setting('unix_socket_directories'), ',', 1), ''), 'localhost'));
BEGIN
  EXECUTE format('CREATE SERVER fcol_loop FOREIGN DATA WRAPPER postgres_fdw OPTIONS (%s)', opts);
  EXECUTE format('CREATE SERVER fcol_loop_x FOREIGN DATA WRAPPER postgres_fdw OPTIONS (%s, extensions %L)', opts, 'dpmatrix');
END $$;
CREATE USER MAPPING FOR CURRENT_USER SERVER fcol_loop;
CREATE USER MAPPING FOR CURRENT_USER SERVER fcol_loop_x;
CREATE SCHEMA fcol_remote;
CREATE TABLE fcol_remote.people (id int NOT NULL, age int4, grp int4, code varchar(3), score numeric(6, 2));
INSERT INTO fcol_remote.people SELECT i, i % 90, i % 4, 'c' || i % 7, i % 100 FROM generate_series(1, 2000) i;
-- the ledger and the releases of the sources of this test, as the reproducers count them
CREATE FUNCTION fcol_charges() RETURNS TABLE (source text, charges bigint, releases bigint) LANGUAGE sql AS $$
  SELECT s.relation::text, (SELECT count(*) FROM dpm.ledger l WHERE l.source_id = s.id),
         (SELECT count(*) FROM dpm.releases r WHERE r.source_id = s.id)
    FROM dpm.sources s WHERE s.relation::text LIKE 'fcol\_%' ORDER BY 1
$$;
-- an error's SQLSTATE and message, without what depends on the machine
CREATE FUNCTION fcol_try(sql text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE sql;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  -- PostgreSQL 18 names the server in "user mapping not found": the message as 15 writes it
  RETURN SQLSTATE || ': ' || regexp_replace(regexp_replace(SQLERRM, 'server on socket .*', 'server ...'),
                                            'user mapping not found for user ("[^"]*"), server "[^"]*"',
                                            'user mapping not found for \1');
END $$;

-- a matching declaration (as IMPORT FOREIGN SCHEMA writes it) keeps working: grouped scans ...
CREATE FOREIGN TABLE fcol_people (id int NOT NULL, age int4, grp int4, code varchar(3), score numeric(6, 2))
  SERVER fcol_loop OPTIONS (schema_name 'fcol_remote', table_name 'people');
SELECT dpm.register_source('fcol_people', 'id', 2, epsilon => 100, delta => 1e-3);
SELECT dpm.create_domain('fcol_d', 'fcol_people', '[{"name": "grp", "values": [0, 1, 2, 3]}]');
SELECT dpm.create_measure('fcol_score', 'fcol_people', 'score', 0, 100) > 0 AS measure;
SELECT dpm.create_workload('fcol_w', 'fcol_d', 'Identity(grp)');
SELECT count(*) AS answers, bool_and(answer IS NOT NULL) AS answered FROM dpm.answer('fcol_w', epsilon => 1, reuse => 'never');
SELECT count(*) AS answers, bool_and(answer IS NOT NULL) AS answered
  FROM dpm.answer('fcol_w', epsilon => 1, measure => 'fcol_score', reuse => 'never');
SELECT cardinality(dpm.answer_keys('fcol_people', 'code', epsilon => 1, delta => 1e-6)) AS keys;
-- ... and capping on the remote server (dpm_internal.capped_groups), through its other server
CREATE FOREIGN TABLE fcol_people_x (id int NOT NULL, age int4, grp int4, code varchar(3), score numeric(6, 2))
  SERVER fcol_loop_x OPTIONS (schema_name 'fcol_remote', table_name 'people');
SELECT dpm.register_source('fcol_people_x', 'id', 2, epsilon => 100);
SELECT dpm.create_domain('fcol_dx', 'fcol_people_x', '[{"name": "grp", "values": [0, 1, 2, 3]}]');
SELECT dpm_internal.caps_remotely(s, s.relation, true, NULL) AS caps_remotely FROM dpm.sources s WHERE s.relation = 'fcol_people_x'::regclass;
SELECT dpm.create_workload('fcol_wx', 'fcol_dx', 'Identity(grp)');
SELECT count(*) AS answers, bool_and(answer IS NOT NULL) AS answered FROM dpm.answer('fcol_wx', epsilon => 1, reuse => 'never');
SELECT * FROM fcol_charges();

-- the remote column becomes int8 and holds 2^40: declared int4, that value cannot be read.  Each
-- release is refused before its charge: the ledger and the releases are unchanged
ALTER TABLE fcol_remote.people ALTER COLUMN grp TYPE int8;
INSERT INTO fcol_remote.people VALUES (5000, 1, 2 ^ 40, 'x', 1);
SELECT fcol_try($$SELECT dpm.answer('fcol_w', epsilon => 1, reuse => 'never')$$) AS counts;
SELECT fcol_try($$SELECT dpm.answer('fcol_w', epsilon => 1, measure => 'fcol_score', reuse => 'never')$$) AS sums;
SELECT fcol_try($$SELECT dpm.answer('fcol_wx', epsilon => 1, reuse => 'never')$$) AS capped_remotely;
SELECT * FROM fcol_charges();
\set SHOW_CONTEXT never
SELECT dpm.answer('fcol_w', epsilon => 1, reuse => 'never');
\set SHOW_CONTEXT errors
-- declared as the remote column now is, it answers again
ALTER FOREIGN TABLE fcol_people ALTER COLUMN grp TYPE int8;
SELECT count(*) AS answers, bool_and(answer IS NOT NULL) AS answered FROM dpm.answer('fcol_w', epsilon => 1, reuse => 'never');
ALTER FOREIGN TABLE fcol_people_x ALTER COLUMN grp TYPE int8;

-- a remote text declared varchar(3): a longer string cannot be read; keys are refused before their charge
ALTER TABLE fcol_remote.people ALTER COLUMN code TYPE text;
INSERT INTO fcol_remote.people VALUES (5001, 1, 1, 'a long code', 1);
SELECT fcol_try($$SELECT dpm.answer_keys('fcol_people', 'code', epsilon => 1, delta => 1e-6)$$) AS keys;
SELECT * FROM fcol_charges();
SELECT fcol_try($$SELECT dpm.create_measure('fcol_age', 'fcol_people', 'age', 0, 100)$$) AS create_measure;
SELECT fcol_try($$SELECT dpm.create_domain('fcol_d2', 'fcol_people', '[{"name": "age", "values": [1, 2]}]')$$) AS create_domain;
ALTER TABLE fcol_remote.people ALTER COLUMN code TYPE varchar(3) USING left(code, 3);

-- registration is refused for: a declared type other than the remote one (int4 over int8, a
-- typmod, text over varchar) ...
CREATE FOREIGN TABLE fcol_narrow (id int, grp int4) SERVER fcol_loop OPTIONS (schema_name 'fcol_remote', table_name 'people');
SELECT fcol_try($$SELECT dpm.register_source('fcol_narrow', epsilon => 1)$$) AS int4_over_int8;
CREATE FOREIGN TABLE fcol_typmod (id int, code varchar(2)) SERVER fcol_loop OPTIONS (schema_name 'fcol_remote', table_name 'people');
SELECT fcol_try($$SELECT dpm.register_source('fcol_typmod', epsilon => 1)$$) AS varchar_2_over_3;
CREATE FOREIGN TABLE fcol_wide (id int, code text) SERVER fcol_loop OPTIONS (schema_name 'fcol_remote', table_name 'people');
SELECT fcol_try($$SELECT dpm.register_source('fcol_wide', epsilon => 1)$$) AS text_over_varchar;
-- ... a column the remote table lacks (a column_name option names the remote one) ...
CREATE FOREIGN TABLE fcol_ghost (id int, ghost int) SERVER fcol_loop OPTIONS (schema_name 'fcol_remote', table_name 'people');
SELECT fcol_try($$SELECT dpm.register_source('fcol_ghost', epsilon => 1)$$) AS missing_column;
ALTER FOREIGN TABLE fcol_ghost ALTER COLUMN ghost OPTIONS (column_name 'age');
SELECT fcol_try($$SELECT dpm.register_source('fcol_ghost', epsilon => 1)$$) AS renamed_column;
-- ... a remote table that does not exist, a remote view (its query runs there, on every row) ...
CREATE FOREIGN TABLE fcol_nothing (id int) SERVER fcol_loop OPTIONS (schema_name 'fcol_remote', table_name 'nothing');
SELECT fcol_try($$SELECT dpm.register_source('fcol_nothing', epsilon => 1)$$) AS no_remote_table;
CREATE VIEW fcol_remote.people_v AS SELECT id, 100 / age AS ratio FROM fcol_remote.people;
CREATE FOREIGN TABLE fcol_view (id int, ratio int) SERVER fcol_loop OPTIONS (schema_name 'fcol_remote', table_name 'people_v');
SELECT fcol_try($$SELECT dpm.register_source('fcol_view', epsilon => 1)$$) AS remote_view;
-- ... a domain with a check (the declared domain's checks run on every value read) or of
-- another name, a type whose input depends on the server's settings (money) ...
CREATE DOMAIN fcol_free AS int4;
CREATE DOMAIN fcol_positive AS int4 CHECK (VALUE > 0);
CREATE TABLE fcol_remote.doms (id int, free fcol_free, pos fcol_positive, cash money);
CREATE FOREIGN TABLE fcol_dom_ok (id int, free fcol_free) SERVER fcol_loop OPTIONS (schema_name 'fcol_remote', table_name 'doms');
SELECT fcol_try($$SELECT dpm.register_source('fcol_dom_ok', epsilon => 1)$$) AS same_domain;
CREATE FOREIGN TABLE fcol_dom_base (id int, free int4) SERVER fcol_loop OPTIONS (schema_name 'fcol_remote', table_name 'doms');
SELECT fcol_try($$SELECT dpm.register_source('fcol_dom_base', epsilon => 1)$$) AS base_over_domain;
CREATE FOREIGN TABLE fcol_dom_check (id int, pos fcol_positive) SERVER fcol_loop OPTIONS (schema_name 'fcol_remote', table_name 'doms');
SELECT fcol_try($$SELECT dpm.register_source('fcol_dom_check', epsilon => 1)$$) AS domain_with_check;
CREATE FOREIGN TABLE fcol_money (id int, cash money) SERVER fcol_loop OPTIONS (schema_name 'fcol_remote', table_name 'doms');
SELECT fcol_try($$SELECT dpm.register_source('fcol_money', epsilon => 1)$$) AS money;
-- ... a remote column under a nondeterministic collation ...
CREATE COLLATION fcol_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE fcol_remote.names (id int, name text COLLATE fcol_ci);
CREATE FOREIGN TABLE fcol_names (id int, name text) SERVER fcol_loop OPTIONS (schema_name 'fcol_remote', table_name 'names');
SELECT fcol_try($$SELECT dpm.register_source('fcol_names', epsilon => 1)$$) AS nondeterministic;
-- ... a partition, or a table under a view, that does not match ...
CREATE TABLE fcol_parts (id int NOT NULL, grp int4) PARTITION BY LIST (id);
CREATE TABLE fcol_parts_0 PARTITION OF fcol_parts FOR VALUES IN (0);
CREATE FOREIGN TABLE fcol_parts_1 PARTITION OF fcol_parts DEFAULT SERVER fcol_loop OPTIONS (schema_name 'fcol_remote', table_name 'people');
SELECT fcol_try($$SELECT dpm.register_source('fcol_parts', epsilon => 1)$$) AS partition;
CREATE VIEW fcol_view_narrow AS SELECT id, grp FROM fcol_narrow WHERE id > 0;
SELECT fcol_try($$SELECT dpm.register_source('fcol_view_narrow', epsilon => 1)$$) AS under_a_view;
-- ... a server that cannot be reached (nothing depends on rows there: it is refused before any charge) ...
CREATE SERVER fcol_gone FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '/nonexistent', port '1');
CREATE USER MAPPING FOR CURRENT_USER SERVER fcol_gone;
CREATE FOREIGN TABLE fcol_far (id int) SERVER fcol_gone;
SELECT fcol_try($$SELECT dpm.register_source('fcol_far', epsilon => 1)$$) AS unreachable;
-- ... and a foreign table of another wrapper, whose conversions dpmatrix cannot check
CREATE EXTENSION IF NOT EXISTS file_fdw;
CREATE SERVER fcol_files FOREIGN DATA WRAPPER file_fdw;
CREATE FOREIGN TABLE fcol_file (id int) SERVER fcol_files OPTIONS (filename '/nonexistent.csv', format 'csv');
SELECT fcol_try($$SELECT dpm.register_source('fcol_file', epsilon => 1)$$) AS file_fdw;

-- a custodian and an analyst who are not superusers: the remote catalog is read with the
-- custodian's user mapping (the one the scan uses), for registration and before each charge
CREATE ROLE regress_fcol_custodian LOGIN IN ROLE dpm_admin;
CREATE ROLE regress_fcol_analyst IN ROLE dpm_analyst;
GRANT USAGE ON SCHEMA fcol_remote TO regress_fcol_custodian;
GRANT SELECT ON fcol_remote.people TO regress_fcol_custodian;
CREATE FOREIGN TABLE fcol_people_c (id int NOT NULL, grp int8) SERVER fcol_loop OPTIONS (schema_name 'fcol_remote', table_name 'people');
GRANT SELECT ON fcol_people_c TO regress_fcol_custodian;
SET ROLE regress_fcol_custodian;
SELECT fcol_try($$SELECT dpm.register_source('fcol_people_c', epsilon => 10)$$) AS without_user_mapping;
RESET ROLE;
CREATE USER MAPPING FOR regress_fcol_custodian SERVER fcol_loop OPTIONS (password_required 'false');
SET ROLE regress_fcol_custodian;
SELECT dpm.register_source('fcol_people_c', epsilon => 10);
SELECT dpm.create_domain('fcol_dc', 'fcol_people_c', '[{"name": "grp", "values": [0, 1, 2, 3]}]');
SELECT dpm.create_workload('fcol_wc', 'fcol_dc', 'Identity(grp)');
SET ROLE regress_fcol_analyst;
SELECT count(*) AS answers, bool_and(answer IS NOT NULL) AS answered FROM dpm.answer('fcol_wc', epsilon => 1, reuse => 'never');
RESET ROLE;
ALTER TABLE fcol_remote.people ALTER COLUMN grp TYPE numeric;
SET ROLE regress_fcol_analyst;
SELECT fcol_try($$SELECT dpm.answer('fcol_wc', epsilon => 1, reuse => 'never')$$) AS retyped;
RESET ROLE;
-- the custodian's mapping gone, the release is refused before its charge too
DROP USER MAPPING FOR regress_fcol_custodian SERVER fcol_loop;
ALTER TABLE fcol_remote.people ALTER COLUMN grp TYPE int8;
SET ROLE regress_fcol_analyst;
SELECT fcol_try($$SELECT dpm.answer('fcol_wc', epsilon => 1, reuse => 'never')$$) AS mapping_dropped;
RESET ROLE;
SELECT * FROM fcol_charges();
DROP OWNED BY regress_fcol_custodian, regress_fcol_analyst;
DROP ROLE regress_fcol_custodian, regress_fcol_analyst;

RESET client_min_messages;
