-- A source is a stable transformation of its rows (src/api/safe_expr.c, unstable_query): a view
-- registered as a source may not use LIMIT/OFFSET/FETCH, DISTINCT [ON], aggregates, GROUP BY,
-- HAVING, window functions, set operations, TABLESAMPLE or outer joins at any level (subqueries,
-- CTEs, views over views): through them, removing one privacy unit's rows can bring other rows in (a LIMIT 1000
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
-- stable: selecting, filtering, projecting, joining
CREATE VIEW vs_fine AS SELECT p.id, p.age, p.code FROM vs_people p JOIN vs_people q ON q.id = p.id WHERE p.age > 3;
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
               vs_union, vs_union_all, vs_sample, vs_sub, vs_cte, vs_over, vs_antijoin, vs_full, vs_fine}'::text[]) v;
SELECT relation FROM dpm.sources WHERE relation::text LIKE 'vs\_%' ORDER BY 1;
-- the refusal's whole message
SELECT dpm.register_source('vs_limit', epsilon => 1);

-- a view made unstable after its registration: refused at once by the guard (sql/21_guards.sql),
-- and past the guard (as a replica applying it would) the next release and the next selection
-- of keys are refused before their charge, with the ledger unchanged (this file releases nothing)
SELECT dpm.create_domain('vs_d', 'vs_fine', '[{"name": "age", "bins": {"min": 0, "max": 90, "width": 10}}]') AS cells;
SET ROLE regress_vs_analyst;
SELECT dpm.create_workload('vs_w', 'vs_d', 'Prefix(age)');
SELECT count(*) AS rows FROM dpm.explain('vs_w', epsilon => 0.1);
RESET ROLE;
CREATE OR REPLACE VIEW vs_fine AS SELECT p.id, p.age, p.code FROM vs_people p JOIN vs_people q ON q.id = p.id WHERE p.age > 3 LIMIT 1000;
SET session_replication_role = replica;
CREATE OR REPLACE VIEW vs_fine AS SELECT p.id, p.age, p.code FROM vs_people p JOIN vs_people q ON q.id = p.id WHERE p.age > 3 LIMIT 1000;
RESET session_replication_role;
SELECT count(*) AS charges_before FROM dpm.ledger l JOIN dpm.sources s ON s.id = l.source_id WHERE s.relation = 'vs_fine'::regclass \gset
SET ROLE regress_vs_analyst;
SELECT count(*) FROM dpm.answer('vs_w', epsilon => 0.1);
SELECT count(*) FROM dpm.explain('vs_w', epsilon => 0.1);
SELECT dpm.select_keys('vs_fine', 'code', epsilon => 0.5, delta => 1e-6);
RESET ROLE;
SELECT count(*) = :charges_before AS ledger_unchanged FROM dpm.ledger l JOIN dpm.sources s ON s.id = l.source_id
 WHERE s.relation = 'vs_fine'::regclass;
-- stable again: planned again
CREATE OR REPLACE VIEW vs_fine AS SELECT p.id, p.age, p.code FROM vs_people p JOIN vs_people q ON q.id = p.id WHERE p.age > 3;
SET ROLE regress_vs_analyst;
SELECT count(*) AS rows FROM dpm.explain('vs_w', epsilon => 0.1);
RESET ROLE;

DELETE FROM dpm.ledger WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'vs\_%');
DELETE FROM dpm.releases WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'vs\_%');
DELETE FROM dpm.sources WHERE relation::text LIKE 'vs\_%';
DROP VIEW vs_limit, vs_offset, vs_fetch, vs_distinct, vs_distinct_on, vs_group, vs_aggregate, vs_window, vs_union,
  vs_union_all, vs_sample, vs_sub, vs_cte, vs_over, vs_antijoin, vs_full, vs_fine CASCADE;
DROP TABLE vs_people;
DROP FUNCTION pg_temp.vs_register;
DROP OWNED BY regress_vs_custodian, regress_vs_analyst;
DROP ROLE regress_vs_custodian, regress_vs_analyst;
