-- A source is a stable transformation of its rows (src/security/safe_expr.c, unstable_query): a view
-- registered as a source may not use LIMIT/OFFSET/FETCH, DISTINCT [ON], aggregates, GROUP BY,
-- HAVING, window functions, set operations, TABLESAMPLE or outer joins at any level (subqueries,
-- CTEs, views over views), nor read a table twice (read_twice: with its partitions and inheritance
-- children, one table): through them, removing one privacy unit's rows can bring other rows in (a LIMIT 1000
-- view lets the 1001st row in), so a release would lose more privacy than it is charged.  They are
-- refused at dpm.register_source, and again before every charge.  This file releases nothing.
SET client_min_messages = warning;
\set VERBOSITY terse
CREATE ROLE regress_vs_custodian IN ROLE dpm_admin;
CREATE ROLE regress_vs_analyst IN ROLE dpm_analyst;
CREATE TABLE vs_people AS SELECT i AS id, i % 90 AS age, (i % 7)::text AS code FROM generate_series(1, 2000) i;
CREATE VIEW vs_limit AS SELECT * FROM vs_people ORDER BY id LIMIT 1000;
CREATE VIEW vs_offset AS SELECT * FROM vs_people OFFSET 10;
CREATE VIEW vs_fetch AS SELECT * FROM vs_people ORDER BY age FETCH FIRST 10 ROWS WITH TIES;
CREATE VIEW vs_distinct AS SELECT DISTINCT age, code FROM vs_people;
CREATE VIEW vs_distinct_on AS SELECT DISTINCT ON (code) * FROM vs_people ORDER BY code, id;
CREATE VIEW vs_group AS SELECT code, count(*) AS n FROM vs_people GROUP BY code;
CREATE VIEW vs_aggregate AS SELECT max(id) AS id, max(age) AS age FROM vs_people HAVING count(*) > 10;
CREATE VIEW vs_window AS SELECT id, age, rank() OVER (ORDER BY age) AS r FROM vs_people;
CREATE VIEW vs_union AS SELECT id, age FROM vs_people UNION SELECT id, age FROM vs_people WHERE age > 80;
CREATE VIEW vs_union_all AS SELECT id, age FROM vs_people UNION ALL SELECT id + 5000, age FROM vs_people;
CREATE VIEW vs_sample AS SELECT * FROM vs_people TABLESAMPLE BERNOULLI (50) REPEATABLE (1);
-- hidden a level down: in a subquery, a CTE, a view under a view
CREATE VIEW vs_sub AS SELECT * FROM (SELECT * FROM vs_people LIMIT 100) s WHERE age > 3;
CREATE VIEW vs_cte AS WITH firsts AS (SELECT DISTINCT ON (age) * FROM vs_people) SELECT * FROM firsts;
CREATE VIEW vs_over AS SELECT id, age FROM vs_limit WHERE age > 3;
-- an outer join: the rows whose code no other row shares (removing one unit brings another's in)
CREATE VIEW vs_antijoin AS SELECT a.* FROM vs_people a LEFT JOIN vs_people b ON b.code = a.code AND b.id <> a.id
  WHERE b.id IS NULL;
CREATE VIEW vs_full AS SELECT a.id, a.age FROM vs_people a FULL JOIN vs_people b ON b.id = a.id + 1;
-- a table read twice: a self-join (on the unit's own key too), a sublink over the same table, the
-- same table again through a subquery, a CTE referenced twice, two views: adding one unit brings
-- other units' rows in, or multiplies them, whatever max_contributions is
CREATE VIEW vs_self AS SELECT a.* FROM vs_people a JOIN vs_people b ON a.code = b.code;
CREATE VIEW vs_self_key AS SELECT p.id, p.age, p.code FROM vs_people p JOIN vs_people q ON q.id = p.id;
CREATE VIEW vs_exists AS SELECT * FROM vs_people p
  WHERE EXISTS (SELECT 1 FROM vs_people q WHERE q.code = p.code AND q.id <> p.id);
CREATE VIEW vs_in AS SELECT * FROM vs_people WHERE code IN (SELECT code FROM vs_people WHERE age > 88);
CREATE VIEW vs_sub_twice AS SELECT p.* FROM vs_people p JOIN (SELECT id, code FROM vs_people WHERE age > 80) s
  ON s.code = p.code;
CREATE VIEW vs_cte_twice AS WITH c AS (SELECT * FROM vs_people) SELECT c1.* FROM c c1 JOIN c c2 ON c2.code = c1.code;
CREATE VIEW vs_plain AS SELECT id, age, code FROM vs_people WHERE age > 3;
CREATE VIEW vs_views_twice AS SELECT a.* FROM vs_plain a JOIN vs_plain b ON b.code = a.code;
CREATE VIEW vs_view_and_table AS SELECT a.* FROM vs_plain a, vs_people b WHERE b.code = a.code;
-- a partitioned table with its partition, two of its partitions; an inheritance parent with its
-- child, ONLY the parent with its child: one table's rows, read twice
CREATE TABLE vs_parted (id int, age int, code text) PARTITION BY RANGE (id);
CREATE TABLE vs_parted_1 PARTITION OF vs_parted FOR VALUES FROM (1) TO (1001);
CREATE TABLE vs_parted_2 PARTITION OF vs_parted FOR VALUES FROM (1001) TO (2001);
INSERT INTO vs_parted SELECT * FROM vs_people;
CREATE VIEW vs_part_parent AS SELECT a.* FROM vs_parted a JOIN vs_parted_1 b ON b.code = a.code;
CREATE VIEW vs_part_siblings AS SELECT a.* FROM vs_parted_1 a JOIN vs_parted_2 b ON b.code = a.code;
CREATE TABLE vs_parent (id int, age int, code text);
CREATE TABLE vs_child () INHERITS (vs_parent);
CREATE VIEW vs_inh AS SELECT a.* FROM vs_parent a JOIN vs_child b ON b.code = a.code;
CREATE VIEW vs_inh_only AS SELECT a.* FROM ONLY vs_parent a JOIN vs_child b ON b.code = a.code;
-- stable: selecting, filtering, projecting, joining public lookup tables, each table read once
CREATE TABLE vs_codes AS SELECT i::text AS code, 'code ' || i AS name FROM generate_series(0, 6) i;
CREATE VIEW vs_fine AS SELECT p.id, p.age, p.code FROM vs_people p JOIN vs_codes c ON c.code = p.code WHERE p.age > 3;
CREATE VIEW vs_cte_once AS WITH c AS (SELECT * FROM vs_people) SELECT c.*, k.name FROM c JOIN vs_codes k USING (code);
CREATE VIEW vs_part_one AS SELECT a.*, k.name FROM vs_parted a JOIN vs_codes k USING (code);
GRANT SELECT ON ALL TABLES IN SCHEMA public TO regress_vs_custodian;
SET ROLE regress_vs_custodian;
CREATE FUNCTION pg_temp.vs_register(v regclass) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM dpm.register_source(v, epsilon => 1, delta => 1e-5);
  RETURN 'registered';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLERRM;
END
$$;
SELECT v AS view, pg_temp.vs_register(v::regclass) AS outcome
  FROM unnest('{vs_limit, vs_offset, vs_fetch, vs_distinct, vs_distinct_on, vs_group, vs_aggregate, vs_window,
               vs_union, vs_union_all, vs_sample, vs_sub, vs_cte, vs_over, vs_antijoin, vs_full,
               vs_self, vs_self_key, vs_exists, vs_in, vs_sub_twice, vs_cte_twice, vs_views_twice, vs_view_and_table,
               vs_part_parent, vs_part_siblings, vs_inh, vs_inh_only, vs_fine, vs_cte_once, vs_part_one}'::text[]) v;
SELECT relation FROM dpm.sources WHERE relation::text LIKE 'vs\_%' ORDER BY 1;
-- the refusal's whole message
SELECT dpm.register_source('vs_limit', epsilon => 1);
\set VERBOSITY default
\set SHOW_CONTEXT never
SELECT dpm.register_source('vs_self', epsilon => 1);
\set VERBOSITY terse

-- a view made unstable after its registration: refused at once by the guard (sql/29_guards.sql),
-- and past the guard (as a replica applying it would) the next release and the next selection
-- of keys are refused before their charge, with the ledger unchanged (this file releases nothing)
SELECT dpm.create_domain('vs_d', 'vs_fine', '[{"name": "age", "bins": {"min": 0, "max": 90, "width": 10}}]') AS cells;
SET ROLE regress_vs_analyst;
SELECT dpm.create_workload('vs_w', 'vs_d', 'Prefix(age)');
SELECT count(*) AS rows FROM dpm.explain('vs_w', epsilon => 0.1);
RESET ROLE;
CREATE OR REPLACE VIEW vs_fine AS SELECT p.id, p.age, p.code FROM vs_people p JOIN vs_codes c ON c.code = p.code WHERE p.age > 3 LIMIT 1000;
SET session_replication_role = replica;
CREATE OR REPLACE VIEW vs_fine AS SELECT p.id, p.age, p.code FROM vs_people p JOIN vs_codes c ON c.code = p.code WHERE p.age > 3 LIMIT 1000;
RESET session_replication_role;
SELECT count(*) AS charges_before FROM dpm.ledger l JOIN dpm.sources s ON s.id = l.source_id WHERE s.relation = 'vs_fine'::regclass \gset
SET ROLE regress_vs_analyst;
SELECT count(*) FROM dpm.answer('vs_w', epsilon => 0.1);
SELECT count(*) FROM dpm.explain('vs_w', epsilon => 0.1);
SELECT dpm.answer_keys('vs_fine', 'code', epsilon => 0.5, delta => 1e-6);
RESET ROLE;
SELECT count(*) = :charges_before AS ledger_unchanged FROM dpm.ledger l JOIN dpm.sources s ON s.id = l.source_id
 WHERE s.relation = 'vs_fine'::regclass;
-- a self-join, hidden in the view after its registration: refused alike before the charge
CREATE OR REPLACE VIEW vs_fine AS SELECT p.id, p.age, p.code FROM vs_people p JOIN vs_codes c ON c.code = p.code
  JOIN vs_people q ON q.code = p.code WHERE p.age > 3;
SET session_replication_role = replica;
CREATE OR REPLACE VIEW vs_fine AS SELECT p.id, p.age, p.code FROM vs_people p JOIN vs_codes c ON c.code = p.code
  JOIN vs_people q ON q.code = p.code WHERE p.age > 3;
RESET session_replication_role;
SET ROLE regress_vs_analyst;
SELECT count(*) FROM dpm.answer('vs_w', epsilon => 0.1);
SELECT dpm.answer_keys('vs_fine', 'code', epsilon => 0.5, delta => 1e-6);
RESET ROLE;
SELECT count(*) = :charges_before AS ledger_unchanged FROM dpm.ledger l JOIN dpm.sources s ON s.id = l.source_id
 WHERE s.relation = 'vs_fine'::regclass;
-- stable again: planned again
CREATE OR REPLACE VIEW vs_fine AS SELECT p.id, p.age, p.code FROM vs_people p JOIN vs_codes c ON c.code = p.code WHERE p.age > 3;
SET ROLE regress_vs_analyst;
SELECT count(*) AS rows FROM dpm.explain('vs_w', epsilon => 0.1);
RESET ROLE;

DELETE FROM dpm.ledger WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'vs\_%');
DELETE FROM dpm.releases WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'vs\_%');
DELETE FROM dpm.sources WHERE relation::text LIKE 'vs\_%';
DROP VIEW vs_limit, vs_offset, vs_fetch, vs_distinct, vs_distinct_on, vs_group, vs_aggregate, vs_window, vs_union,
  vs_union_all, vs_sample, vs_sub, vs_cte, vs_over, vs_antijoin, vs_full, vs_self, vs_self_key, vs_exists, vs_in,
  vs_sub_twice, vs_cte_twice, vs_views_twice, vs_view_and_table, vs_plain, vs_part_parent, vs_part_siblings, vs_inh,
  vs_inh_only, vs_fine, vs_cte_once, vs_part_one CASCADE;
DROP TABLE vs_people, vs_codes, vs_parted, vs_parent, vs_child;
DROP FUNCTION pg_temp.vs_register;
DROP OWNED BY regress_vs_custodian, regress_vs_analyst;
DROP ROLE regress_vs_custodian, regress_vs_analyst;
