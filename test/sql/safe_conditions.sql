-- A release's outcome never depends on the rows (src/security/safe_expr.c): everything a release
-- evaluates on each row of its source (the attributes' bins, a view's query, row-level security
-- policies) must be unable to raise an error, or it is refused before anything is charged, at
-- dpm.create_domain and again before every charge.
SET client_min_messages = warning;
\set VERBOSITY terse
CREATE ROLE regress_sc_custodian IN ROLE dpm_admin;
CREATE ROLE regress_sc_analyst IN ROLE dpm_analyst;

-- The review's reproducer: two tables that differ in one row.  The condition divides by zero on
-- the row with age 77, which only td has: it is refused for both, before any release.
CREATE TABLE sc_tc AS SELECT i AS id, i % 50 AS age, (i % 7)::text AS code, (i % 3 = 0) AS flag,
                             (i % 50)::numeric / 4 AS score, date '2024-01-01' + i AS day,
                             (ARRAY['NY', 'ND', 'CA'])[1 + i % 3]::char(2) AS state
  FROM generate_series(1, 1000) i;
CREATE TABLE sc_td AS SELECT * FROM sc_tc;
UPDATE sc_td SET age = 77, code = 'x' WHERE id = 1;
GRANT SELECT ON sc_tc, sc_td TO regress_sc_custodian;
SET ROLE regress_sc_custodian;
SELECT dpm.register_source('sc_tc', epsilon => 10) IS NOT NULL AS registered;
SELECT dpm.register_source('sc_td', epsilon => 10) IS NOT NULL AS registered;
SELECT dpm.create_domain('sc_dc', 'sc_tc', '[{"name": "a", "column": "age", "bins": [{"label": "x", "condition": "100/(age-77) > -1000"}]}]');
SELECT dpm.create_domain('sc_dd', 'sc_td', '[{"name": "a", "column": "age", "bins": [{"label": "x", "condition": "100/(age-77) > -1000"}]}]');
-- variations: a cast of text, a function that can fail, an arithmetic overflow, a subquery, a
-- LIKE pattern ending with its escape character, a division by a column in a width expression
SELECT dpm.create_domain('sc_cast', 'sc_td', '[{"name": "c", "column": "code", "bins": [{"label": "big", "condition": "code::int > 3"}]}]');
SELECT dpm.create_domain('sc_fn', 'sc_td', '[{"name": "c", "column": "code", "bins": [{"label": "l", "condition": "length(code) / age > 0"}]}]');
SELECT dpm.create_domain('sc_over', 'sc_td', '[{"name": "a", "column": "age", "bins": [{"label": "o", "condition": "age * 100000000 > 5"}]}]');
SELECT dpm.create_domain('sc_sub', 'sc_td', '[{"name": "a", "column": "age", "bins": [{"label": "s", "condition": "age > (SELECT min(age) FROM public.sc_td)"}]}]');
SELECT dpm.create_domain('sc_like', 'sc_td', '[{"name": "c", "column": "code", "bins": [{"label": "s", "condition": "code LIKE ''a\\''"}]}]');
SELECT dpm.create_domain('sc_date', 'sc_td', '[{"name": "d", "column": "day", "bins": [{"label": "s", "condition": "day + age > date ''2024-02-01''"}]}]');
-- a numeric beyond the range of float8 fails to convert
SELECT dpm.create_domain('sc_num', 'sc_td', '[{"name": "s", "column": "score", "bins": [{"label": "s", "condition": "score::float8 < 9.5"}]}]');
-- a constant that fails fails now, on no row
SELECT dpm.create_domain('sc_const', 'sc_td', '[{"name": "a", "column": "age", "bins": [{"label": "s", "condition": "age > 1 / 0"}]}]');
SELECT count(*) AS domains FROM dpm.domains WHERE name LIKE 'sc\_%';

-- what a condition may contain: comparisons of every common type, AND/OR/NOT, IN, BETWEEN,
-- CASE, COALESCE, IS NULL, LIKE with a constant pattern, modulo and division by a constant other
-- than 0 and -1, widening casts; and the value, interval and width bins dpmatrix builds itself
SELECT dpm.create_domain('sc_ok', 'sc_td', '[
  {"name": "a", "column": "age", "bins": [
     {"label": "even young", "condition": "age % 2 = 0 AND age BETWEEN 0 AND 29"},
     {"label": "half", "condition": "age / 2 IN (15, 16, 17) OR NOT flag"},
     {"label": "coded", "condition": "code LIKE ''1%'' AND coalesce(score, 0) >= 2.5 AND day < date ''2024-03-01''"},
     {"label": "named", "condition": "state IN (''NY'', ''ND'') AND CASE WHEN age > 40 THEN true ELSE score < 9.5 END"},
     {"label": "rest", "condition": "age IS NOT NULL"}]},
  {"name": "s", "column": "score", "bins": {"min": 0, "max": 15, "width": 2.5}},
  {"name": "f", "column": "flag", "values": [true, false]},
  {"name": "st", "column": "state", "values": ["NY", "ND", "CA"]}]') AS cells;

-- the same condition behaves the same on both tables: both release
SELECT dpm.create_domain('sc_sa', 'sc_tc', '[{"name": "a", "column": "age", "bins": [{"label": "x", "condition": "age <> 77 AND age > 10"}, {"label": "y", "condition": "true"}]}]') AS cells;
SELECT dpm.create_domain('sc_sb', 'sc_td', '[{"name": "a", "column": "age", "bins": [{"label": "x", "condition": "age <> 77 AND age > 10"}, {"label": "y", "condition": "true"}]}]') AS cells;
SET ROLE regress_sc_analyst;
SELECT dpm.create_workload('sc_wa', 'sc_sa', 'Identity(a)'), dpm.create_workload('sc_wb', 'sc_sb', 'Identity(a)');
SELECT dpm.create_workload('sc_wok', 'sc_ok', 'Marginal(a, st) + Total(s)');
SELECT count(*) AS answers FROM dpm.answer('sc_wa', epsilon => 0.001);
SELECT count(*) AS answers FROM dpm.answer('sc_wb', epsilon => 0.001);
SELECT count(*) AS answers FROM dpm.answer('sc_wok', epsilon => 1, method => 'identity');
SELECT w.name, r.status FROM dpm.releases r JOIN dpm.workloads w ON w.id = r.workload_id
 WHERE w.name LIKE 'sc\_w%' ORDER BY w.name;
RESET ROLE;

-- a view's own query is evaluated on every row too: a view that can fail is refused (at its registration)
CREATE VIEW sc_view AS SELECT id, age FROM sc_td WHERE 100 / (age - 77) > -1000;
CREATE VIEW sc_goodview AS SELECT id, age, code FROM sc_td WHERE age > 3;
GRANT SELECT ON sc_view, sc_goodview TO regress_sc_custodian;
SET ROLE regress_sc_custodian;
SELECT dpm.register_source('sc_view', epsilon => 1) IS NOT NULL AS registered;
SELECT dpm.create_domain('sc_v', 'sc_view', '[{"name": "age", "values": [1, 2]}]');
SELECT dpm.register_source('sc_goodview', epsilon => 1) IS NOT NULL AS registered;
SELECT dpm.create_domain('sc_gv', 'sc_goodview', '[{"name": "age", "bins": {"min": 0, "max": 50, "width": 10}}]') AS cells;
SET ROLE regress_sc_analyst;
SELECT dpm.create_workload('sc_wgv', 'sc_gv', 'Prefix(age)');
SELECT dpm.budget('sc_goodview') AS before \gset
-- the view is replaced by one that can fail: refused at once (sql/29_guards.sql); and past that
-- guard (as a replica applying it would), the next release is refused before its charge
RESET ROLE;
CREATE OR REPLACE VIEW sc_goodview AS SELECT id, age, code FROM sc_td WHERE age > 3 AND code::int >= 0;
SET session_replication_role = replica;
CREATE OR REPLACE VIEW sc_goodview AS SELECT id, age, code FROM sc_td WHERE age > 3 AND code::int >= 0;
RESET session_replication_role;
SET ROLE regress_sc_analyst;
SELECT count(*) FROM dpm.answer('sc_wgv', epsilon => 0.1);
SELECT (dpm.budget('sc_goodview')).epsilon_spent = 0 AS nothing_charged;
SELECT count(*) FROM dpm.explain('sc_wgv', epsilon => 0.1);
RESET ROLE;
CREATE OR REPLACE VIEW sc_goodview AS SELECT id, age, code FROM sc_td WHERE age > 3;
SET ROLE regress_sc_analyst;
SELECT count(*) AS answers FROM dpm.answer('sc_wgv', epsilon => 0.1);
RESET ROLE;

-- row-level security policies that apply to the scanning custodian are checked the same way
ALTER TABLE sc_tc ENABLE ROW LEVEL SECURITY;
CREATE POLICY sc_fragile ON sc_tc FOR SELECT TO regress_sc_custodian USING (100 / (age - 77) > -1000);
SET ROLE regress_sc_analyst;
SELECT count(*) FROM dpm.answer('sc_wa', epsilon => 0.001);
RESET ROLE;
DROP POLICY sc_fragile ON sc_tc;
CREATE POLICY sc_fine ON sc_tc FOR SELECT TO regress_sc_custodian USING (age >= 0);
SET ROLE regress_sc_analyst;
SELECT count(*) AS answers FROM dpm.answer('sc_wa', epsilon => 0.001);
RESET ROLE;
SELECT s.relation, count(l.*) AS charges FROM dpm.sources s LEFT JOIN dpm.ledger l ON l.source_id = s.id
 WHERE s.relation::text LIKE 'sc\_%' GROUP BY 1 ORDER BY 1;

DELETE FROM dpm.ledger WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'sc\_%');
DELETE FROM dpm.releases WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'sc\_%');
DELETE FROM dpm.sources WHERE relation::text LIKE 'sc\_%';
DROP VIEW sc_view, sc_goodview;
DROP TABLE sc_tc, sc_td;
DROP ROLE regress_sc_custodian, regress_sc_analyst;
