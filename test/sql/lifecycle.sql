-- Lifecycle (issue 22, item 3): a registered source's table cannot be dropped, nor changed so that
-- a domain over it breaks, without a message saying what to do; custodians unregister sources and
-- drop or rename domains; analysts drop or rename their workloads and drop their strategies.
-- Nothing is deleted that a release or a charge refers to: history is the record of what was spent.
\set SHOW_CONTEXT never
CREATE TABLE lc_people AS
  SELECT g AS id, g % 90 AS age, CASE WHEN g % 2 = 0 THEN 'F' ELSE 'M' END AS sex FROM generate_series(1, 400) g;
CREATE VIEW lc_adults AS SELECT * FROM lc_people WHERE age >= 18;
CREATE ROLE regress_lc_custodian IN ROLE dpm_admin;
CREATE ROLE regress_lc_analyst IN ROLE dpm_analyst;
CREATE ROLE regress_lc_analyst2 IN ROLE dpm_analyst;
GRANT SELECT ON lc_people, lc_adults TO regress_lc_custodian;
SET ROLE regress_lc_custodian;
SELECT dpm.register_source('lc_people', 'id', 1, epsilon => 5);
SELECT dpm.register_source('lc_adults', 'id', 1, epsilon => 5);
-- "name" defaults to the column
SELECT dpm.create_domain('lc_d', 'lc_people',
  '[{"column": "age", "bins": {"min": 0, "max": 90, "width": 30}}, {"column": "sex", "values": ["F", "M"]}]');
SELECT dpm.create_domain('lc_v', 'lc_adults', '[{"column": "sex", "values": ["F", "M"]}]');
SELECT attr_names FROM dpm.domains WHERE name = 'lc_d';
RESET ROLE;
SET ROLE regress_lc_analyst;
SELECT dpm.create_workload('lc_w', 'lc_d', 'Identity(age) * Total(sex)');
SELECT count(*) AS answers FROM dpm.answer('lc_w', epsilon => 1);
RESET ROLE;

-- 1. The table, the view, the schema holding them: none can be dropped from under the catalog
DROP TABLE lc_people;                  -- the view depends on it too: PostgreSQL's own refusal
DROP TABLE lc_people CASCADE;          -- would take the view: refused by the guard
DROP VIEW lc_adults;
CREATE SCHEMA lc_s;
CREATE TABLE lc_s.t AS SELECT 1 AS id;
SELECT dpm.register_source('lc_s.t', epsilon => 1);
DROP SCHEMA lc_s CASCADE;
SELECT count(*) AS still_there FROM pg_class WHERE oid IN ('lc_people'::regclass, 'lc_adults'::regclass, 'lc_s.t'::regclass);

-- 2. Changes that break a domain or the privacy unit are refused; a rename of the table is not
ALTER TABLE lc_people RENAME COLUMN age TO years;
ALTER TABLE lc_people ALTER COLUMN age TYPE text;
ALTER TABLE lc_people RENAME COLUMN id TO pid;
ALTER TABLE lc_s.t RENAME COLUMN id TO pid;            -- no domain over it, no privacy unit
ALTER TABLE lc_people ADD COLUMN income int;           -- harmless
ALTER TABLE lc_people RENAME TO lc_persons;
SET ROLE regress_lc_analyst;
SELECT count(*) AS answers_after_rename FROM dpm.answer('lc_w', epsilon => 1);
RESET ROLE;

-- 3. Unregistering: answers are refused before any charge; the ledger stays
SELECT s.id AS lc_src FROM dpm.sources s WHERE s.relation = 'lc_persons'::regclass \gset
SET ROLE regress_lc_analyst;
SELECT dpm.unregister_source('lc_persons');            -- a custodian's
RESET ROLE;
SET ROLE regress_lc_custodian;
SELECT dpm.unregister_source('lc_persons');
RESET ROLE;
SET ROLE regress_lc_analyst;
\set VERBOSITY terse
SELECT * FROM dpm.answer('lc_w', epsilon => 1);
SELECT * FROM dpm.explain('lc_w', epsilon => 1);
\set VERBOSITY default
SELECT relation, relation_name, unregistered_at IS NOT NULL AS unregistered FROM dpm.sources WHERE id = :lc_src;
RESET ROLE;
SELECT count(*) AS charges, sum(epsilon) AS spent FROM dpm.ledger WHERE source_id = :lc_src;
-- registering it again: only with the settings it was charged under, a budget not below what it
-- spent; then its spending carries over, and answers work again
SET ROLE regress_lc_custodian;
SELECT dpm.register_source('lc_persons', 'id', 2, epsilon => 5);
SELECT dpm.register_source('lc_persons', NULL, 1, epsilon => 5);
SELECT dpm.register_source('lc_persons', 'id', 1, epsilon => 1, delta => 1e-6);
SELECT dpm.register_source('lc_persons', 'id', 1, epsilon => 1.5);
SELECT dpm.register_source('lc_persons', 'id', 1, epsilon => 4);
SELECT epsilon_budget, epsilon_spent, releases FROM dpm.budget('lc_persons');
SELECT id = :lc_src AS same_source FROM dpm.sources WHERE relation = 'lc_persons'::regclass;
RESET ROLE;
SET ROLE regress_lc_analyst;
SELECT count(*) AS answers_again FROM dpm.answer('lc_w', epsilon => 1);
RESET ROLE;
-- unregistered, its table can go: the row keeps the table's name, not a dangling oid
SET ROLE regress_lc_custodian;
SELECT dpm.unregister_source('lc_persons');
SELECT dpm.unregister_source('lc_adults');
RESET ROLE;
DROP VIEW lc_adults;
DROP TABLE lc_persons;
SELECT relation, relation_name FROM dpm.sources WHERE id = :lc_src;
SELECT count(*) AS charges_kept, sum(epsilon) AS spent FROM dpm.ledger WHERE source_id = :lc_src;
SET ROLE regress_lc_analyst;
\set VERBOSITY terse
SELECT * FROM dpm.answer('lc_w', epsilon => 1);
\set VERBOSITY default
-- its releases replay: same answers, no charge
SELECT r.id AS lc_rel FROM dpm.releases r WHERE r.source_id = :lc_src ORDER BY r.id LIMIT 1 \gset
SELECT count(*) AS replayed FROM dpm.release(:lc_rel) a JOIN dpm.release_answers b ON b.release_id = :lc_rel AND b.query = a.query
 WHERE a.answer = b.answer;
RESET ROLE;
SELECT count(*) AS charges_still FROM dpm.ledger WHERE source_id = :lc_src;
-- a new table of the same name is another source; the custodian is told where the old spending is
CREATE TABLE lc_persons AS SELECT g AS id, g % 90 AS age, 'F'::text AS sex FROM generate_series(1, 50) g;
GRANT SELECT ON lc_persons TO regress_lc_custodian;
SET ROLE regress_lc_custodian;
SELECT dpm.register_source('lc_persons', 'id', 1, epsilon => 5);
SELECT id <> :lc_src AS new_source FROM dpm.sources WHERE relation = 'lc_persons'::regclass;

-- 4. Domains: a custodian drops (not with live workloads unless cascade) and renames them
SELECT dpm.create_domain('lc_d2', 'lc_persons', '[{"column": "age", "bins": {"min": 0, "max": 90, "width": 45}}]');
RESET ROLE;
SET ROLE regress_lc_analyst;
SELECT dpm.create_workload('lc_w2', 'lc_d2', 'Identity(age)');
SELECT dpm.drop_domain('lc_d2');                        -- a custodian's
RESET ROLE;
SET ROLE regress_lc_custodian;
SELECT dpm.drop_domain('lc_d2');
SELECT dpm.rename_domain('lc_d2', 'lc_d');              -- the name is not free
SELECT dpm.drop_domain('lc_d', cascade => true);        -- over an unregistered source: still a custodian's
SELECT dpm.rename_domain('lc_d2', 'lc_d');              -- now it is
SELECT dpm.rename_domain('lc_d', '');
SELECT dpm.drop_domain('lc_nope');
SELECT name, dropped_at IS NOT NULL AS dropped FROM dpm.domains WHERE name LIKE 'lc_%' ORDER BY id;
SELECT name, dropped_at IS NOT NULL AS dropped FROM dpm.workloads WHERE name LIKE 'lc_%' ORDER BY id;
-- a dropped domain's name is free again
SELECT dpm.create_domain('lc_d2', 'lc_persons', '[{"column": "sex", "values": ["F"]}]');
RESET ROLE;

-- 5. Workloads and strategies: their creator (or a custodian) drops and renames them
SET ROLE regress_lc_analyst2;
SELECT dpm.rename_workload('lc_w2', 'lc_mine');
SELECT dpm.drop_workload('lc_w2');
RESET ROLE;
SET ROLE regress_lc_analyst;
SELECT dpm.rename_workload('lc_w2', 'lc_w3');
SELECT dpm.rename_workload('lc_w3', '');
SELECT count(*) AS answers FROM dpm.answer('lc_w3', epsilon => 1, method => 'identity');
SELECT s.id AS used_st FROM dpm.strategies s JOIN dpm.workloads w ON w.id = s.workload_id
 WHERE w.name = 'lc_w3' AND s.method = 'identity' \gset
SELECT dpm.optimize('lc_w3', method => 'hierarchical') AS unused_st \gset
RESET ROLE;
SET ROLE regress_lc_analyst2;
SELECT dpm.drop_strategy(:used_st);
RESET ROLE;
SET ROLE regress_lc_analyst;
-- unused: deleted; used by a release: kept, out of reuse (the next optimize builds a new one)
SELECT dpm.drop_strategy(:unused_st);
SELECT dpm.drop_strategy(:used_st);
SELECT dpm.drop_strategy(:used_st);
SELECT count(*) FILTER (WHERE id = :unused_st) AS unused_left, count(*) FILTER (WHERE id = :used_st) AS used_kept
  FROM dpm.strategies;
SELECT dpm.optimize('lc_w3', method => 'identity') <> :used_st AS rebuilt;
SELECT * FROM dpm.answer('lc_w3', strategy => :used_st, epsilon => 1);
SELECT dpm.drop_workload('lc_w3');
SELECT * FROM dpm.answer('lc_w3', epsilon => 1);
-- its releases stay readable
SELECT count(*) > 0 AS readable FROM dpm.releases r JOIN dpm.workloads w ON w.id = r.workload_id WHERE w.name = 'lc_w3';
RESET ROLE;

-- 6. Guards on other tables do nothing
CREATE TABLE lc_free (a int);
ALTER TABLE lc_free RENAME COLUMN a TO b;
DROP TABLE lc_free;

SET ROLE regress_lc_custodian;
SELECT dpm.unregister_source('lc_persons');
RESET ROLE;
SELECT dpm.unregister_source('lc_s.t');
DROP TABLE lc_persons;
DROP SCHEMA lc_s CASCADE;
-- the test's own history goes, so that it runs again on the same cluster
DELETE FROM dpm.ledger WHERE source_id IN (SELECT id FROM dpm.sources WHERE coalesce(relation::text, relation_name) ~ 'lc_');
DELETE FROM dpm.releases WHERE source_id IN (SELECT id FROM dpm.sources WHERE coalesce(relation::text, relation_name) ~ 'lc_');
DELETE FROM dpm.domains WHERE source_id IN (SELECT id FROM dpm.sources WHERE coalesce(relation::text, relation_name) ~ 'lc_');
DELETE FROM dpm.sources WHERE coalesce(relation::text, relation_name) ~ 'lc_';
DROP ROLE regress_lc_custodian, regress_lc_analyst, regress_lc_analyst2;
