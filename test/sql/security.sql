-- The hostile analyst: every attempt to read a source, overspend, get a refund, inject SQL, lift
-- a limit or see another analyst's releases fails, and the ledger holds only legitimate charges.
\set SHOW_CONTEXT never
SET client_min_messages = warning;   -- notices about repeated workloads are not the point here
CREATE TABLE sec_people AS
  SELECT g AS id, g % 100 AS age, CASE WHEN g % 2 = 0 THEN 'F' ELSE 'M' END AS sex
    FROM generate_series(1, 2000) g;
CREATE TABLE sec_hidden AS SELECT 42 AS secret;
CREATE ROLE regress_sec_custodian IN ROLE dpm_admin;
CREATE ROLE regress_sec_custodian2 IN ROLE dpm_admin;   -- a custodian without SELECT on the table
CREATE ROLE regress_sec_alice IN ROLE dpm_analyst;
CREATE ROLE regress_sec_bob IN ROLE dpm_analyst;
CREATE ROLE regress_sec_nobody;
GRANT SELECT ON sec_people TO regress_sec_custodian;
CREATE SCHEMA sec_evil AUTHORIZATION regress_sec_alice;

-- the custodian registers the table and defines the cells
SET ROLE regress_sec_custodian;
SELECT dpm.register_source('sec_people', epsilon => 1);
SELECT dpm.create_domain('sec_age', 'sec_people',
  '[{"name": "age", "bins": {"min": 0, "max": 100, "width": 25}},
    {"name": "sex", "bins": [{"label": "F", "condition": "sex = ''F''"}, {"label": "M", "condition": "true"}]}]');
-- a condition runs with the custodian's own rights: it cannot read what the custodian cannot
SELECT dpm.create_domain('sec_peek', 'sec_people',
  '[{"name": "age", "bins": [{"label": "x", "condition": "(SELECT secret FROM public.sec_hidden) = 42"}]}]');
SELECT registered_by, model, budget_epsilon FROM dpm.sources WHERE relation = 'sec_people'::regclass;
SELECT d.name, d.created_by FROM dpm.domains d JOIN dpm.sources s ON s.id = d.source_id
 WHERE s.relation = 'sec_people'::regclass;

-- a custodian may only protect, describe and read tables it can read itself
SET ROLE regress_sec_custodian2;
SELECT dpm.register_source('sec_hidden', epsilon => 1);
SELECT dpm.create_domain('sec_age2', 'sec_people', '[{"name": "age", "values": [1]}]');
SELECT dpm.set_budget('sec_people', epsilon => 100);
SELECT dpm.create_workload('sec_c2_total', 'sec_age', 'Total(age)');
SELECT * FROM dpm.exact_answers('sec_c2_total');

-- the analyst: no access to the data, only charged releases
SET ROLE regress_sec_alice;
SELECT count(*) FROM sec_people;
SELECT * FROM dpm.exact_answers('sec_c2_total');
SELECT dpm.register_source('sec_hidden', epsilon => 1000);
SELECT dpm.create_domain('sec_mine', 'sec_people', '[{"name": "age", "values": [1]}]');
SELECT dpm.set_budget('sec_people', epsilon => 1000);
SELECT dpm.create_workload('sec_alice_w', 'sec_age', 'AllRange(age) * Identity(sex)');
SELECT count(*) AS answers FROM dpm.answer('sec_alice_w', epsilon => 0.3);
SELECT epsilon_spent, epsilon_remaining FROM dpm.budget('sec_people');
-- spend past the budget
SELECT count(*) FROM dpm.answer('sec_alice_w', epsilon => 0.8);
-- a refund by rollback, or by an error later in the statement: the charge stays
BEGIN;
SELECT count(*) FROM dpm.answer('sec_alice_w', epsilon => 0.1);
ROLLBACK;
SELECT count(*) FROM dpm.answer('sec_alice_w', epsilon => 0.1) WHERE 1 / (query - query) = 0;
SELECT epsilon_spent, epsilon_remaining FROM dpm.budget('sec_people');
-- write the catalog directly
INSERT INTO dpm.ledger (source_id, epsilon, charged_by) VALUES (1, -5, 'regress_sec_alice');
UPDATE dpm.ledger SET epsilon = 0;
DELETE FROM dpm.ledger;
UPDATE dpm.sources SET budget_epsilon = 1000;
INSERT INTO dpm.releases (source_id, workload_id, strategy_id, noise, epsilon, released_by) VALUES (1, 1, 1, 'laplace', 0, 'regress_sec_bob');
DELETE FROM dpm.release_answers;
DELETE FROM dpm.release_answer_blocks;
UPDATE dpm.domains SET cell_expr = '(SELECT secret FROM public.sec_hidden)';
-- call the internals that run as the extension owner
SELECT dpm_internal.exec_as('regress_sec_alice', 'SELECT ARRAY[secret::float8] FROM public.sec_hidden');
SELECT dpm_internal.release_charge('regress_sec_bob', '{"workload": "sec_alice_w", "epsilon": 0.01}');
SELECT dpm_internal.release_fill(1);
SELECT dpm_internal.frequency_vector(s, d, 'regress_sec_alice', false) FROM dpm.sources s, dpm.domains d;
SELECT dpm_internal.check_can_read('sec_hidden');
-- nor the queue of the release workers, nor any other internal function (schema dpm_internal)
SELECT dpm_internal.run_release('{"workload_id": 1, "epsilon": 0.01}', '{}');
SELECT count(*) > 40 AS internal_functions,
       -- but the rows of the view dpm.progress, which a view reads with the caller's right to execute
       string_agg(p.proname, ', ') FILTER (WHERE has_function_privilege('regress_sec_alice', p.oid, 'EXECUTE')) AS executable_by_analysts,
       has_schema_privilege('regress_sec_alice', 'dpm_internal', 'USAGE') AS analysts_see_internals
  FROM pg_proc p WHERE p.pronamespace = 'dpm_internal'::regnamespace;
-- lift a limit, or slow a release down
SET dpm.max_matrix_mb = 100000;
SET dpm.max_cells = 2000000000;
SET dpm.debug_release_delay = 1000;
SET dpm.blas_threads = 64;
-- SQL injection through names and specs: names are values, specs are parsed by our grammar
SELECT * FROM dpm.answer($$sec_alice_w'; DELETE FROM dpm.ledger; --$$, epsilon => 0.01);
SELECT dpm.create_workload('sec_inj', $$sec_age' OR '1'='1$$, 'Total(age)');
SELECT dpm.create_workload('sec_inj', 'sec_age', $$Total(age)); DELETE FROM dpm.ledger; --$$);
SELECT dpm.create_workload('sec_inj', 'sec_age', $$Ranges(age, 'x'' OR 1=1 --':'y')$$);
SELECT dpm.create_workload($$sec_x'); DELETE FROM dpm.ledger; --$$, 'sec_age', 'Total(age)');
SELECT count(*) FROM dpm.workloads WHERE name LIKE 'sec_x%';
SELECT * FROM dpm.budget($$sec_people'; DELETE FROM dpm.ledger; --$$);
-- shadow an operator the catalog functions use, through her own search_path
CREATE FUNCTION sec_evil.text_eq(a text, b text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  RAISE WARNING 'sec_evil saw % and %', a, b;
  RETURN a OPERATOR(pg_catalog.=) b;
END $$;
CREATE OPERATOR sec_evil.= (LEFTARG = text, RIGHTARG = text, FUNCTION = sec_evil.text_eq);
SET search_path = sec_evil, pg_catalog, public;
SELECT count(*) FROM dpm.answer('sec_alice_w', epsilon => 0.01);
SELECT epsilon_spent FROM dpm.budget('sec_people');
RESET search_path;
-- her own releases are visible and replayable at no cost
SELECT count(*) AS releases, sum(epsilon) AS epsilon FROM dpm.releases;
SELECT min(id) AS alice_release FROM dpm.releases \gset
SELECT (SELECT array_agg(answer ORDER BY query) FROM dpm.release(:alice_release))
     = (SELECT array_agg(answer ORDER BY query) FROM dpm.release(:alice_release)) AS replay_same;
-- her own answers, through the view of the blocks (row-level security as the caller)
SELECT count(*) AS own_answers_seen, count(*) = (SELECT count(*) FROM dpm.release(:alice_release)) AS all_of_them
  FROM dpm.release_answers a JOIN dpm.release(:alice_release) r USING (query)
 WHERE a.release_id = :alice_release AND a.answer = r.answer AND a.label = r.label;
SELECT epsilon_spent FROM dpm.budget('sec_people');

-- another analyst sees none of hers
SET ROLE regress_sec_bob;
SELECT count(*) FROM dpm.releases;
SELECT count(*) FROM dpm.release_answers;
SELECT count(*) FROM dpm.release_answer_blocks;
SELECT count(*) FROM dpm.ledger;
SELECT set_config('sec.alice_release', :'alice_release', false) IS NOT NULL AS noted;
DO $$ BEGIN PERFORM * FROM dpm.release(current_setting('sec.alice_release')::bigint);
      RAISE WARNING 'bob replayed her release';
      EXCEPTION WHEN undefined_object THEN RAISE WARNING 'replay refused (SQLSTATE %)', SQLSTATE; END $$;
SELECT count(*) FROM dpm.answer('sec_alice_w', epsilon => 0.05);
SELECT count(*), min(released_by::text) FROM dpm.releases;
-- and she sees none of his
SET ROLE regress_sec_alice;
SELECT count(*), min(released_by::text) FROM dpm.releases;

-- a role outside dpmatrix has only the pure functions
SET ROLE regress_sec_nobody;
SELECT count(*) FROM dpm.releases;
SELECT * FROM dpm.budget('sec_people');
SELECT * FROM dpm.answer('sec_alice_w', epsilon => 0.01);
SELECT dpm.sensitivity('{{1,1},{0,1}}');
-- each denial of a dpm function names the role that grants it (once the library is loaded, as
-- the calls above did); an analyst denied a custodian's function is told dpm_admin
SELECT dpm.create_domain('sec_x', 'sec_people', '[]');
SET ROLE regress_sec_alice;
SELECT dpm.register_source('sec_people', epsilon => 1);
RESET ROLE;
-- the hint's table (src/security/role_hint.c) names exactly the dpm functions not granted to PUBLIC,
-- each with the least role granted it
SELECT coalesce(h.function, g.function) AS function, h.role AS hint_role, g.role AS granted_role
  FROM dpm_internal.role_hints() h
  FULL JOIN (SELECT p.proname::text AS function,
                    CASE WHEN has_function_privilege('dpm_analyst', p.oid, 'EXECUTE') THEN 'dpm_analyst'
                         ELSE 'dpm_admin' END AS role
               FROM pg_proc p
              WHERE p.pronamespace = 'dpm'::regnamespace AND p.prokind = 'f'
                AND NOT has_function_privilege('public', p.oid, 'EXECUTE')) g ON g.function = h.function
 WHERE h.role IS DISTINCT FROM g.role;

-- a condition that could fail on some row (here: on whether someone is exactly 50) is refused
-- when the domain is created, since a release reads the data after its charge and its outcome
-- must not depend on the rows (test/sql/safe_conditions.sql has the rest)
RESET ROLE;
SET ROLE regress_sec_custodian;
SELECT dpm.create_domain('sec_fragile', 'sec_people',
  '[{"name": "age", "bins": [{"label": "x", "condition": "1 / (age - 50) > 0"}, {"label": "y", "condition": "true"}]}]');

-- a domain whose creator lost the right to read the source is refused before any charge
RESET ROLE;
REVOKE SELECT ON sec_people FROM regress_sec_custodian;
SET ROLE regress_sec_alice;
SELECT count(*) FROM dpm.answer('sec_alice_w', epsilon => 0.01);
RESET ROLE;
GRANT SELECT ON sec_people TO regress_sec_custodian;

-- no analyst can take the name of another's remainder (issue 41, item 6).  Workload names are
-- one namespace for all roles, and dpm.answer's reuse auto names the remainder it measures
-- '<workload> (remainder <id>)', with the next id of the workloads' sequence.  Alice creates the
-- names bob's next remainder would get (her 20 creations take 20 ids first) and renames a
-- workload to one: each is refused, and bob's dpm.answer measures its remainder
CREATE TABLE sec_rem AS SELECT u AS unit, u % 4 AS kind FROM generate_series(1, 400) u;
SELECT dpm.register_source('sec_rem', 'unit', 1, rho => 10);
SELECT dpm.create_domain('sec_rem_kind', 'sec_rem', '[{"name": "kind", "values": [0, 1, 2, 3]}]');
SELECT last_value AS sec_next_workload FROM dpm.workloads_id_seq \gset
SET ROLE regress_sec_bob;
SELECT dpm.create_workload('sec_bob_total', 'sec_rem_kind', 'Total(kind)');
SELECT dpm.create_workload('sec_bob_prefix', 'sec_rem_kind', 'Prefix(kind)');
SELECT count(*) FROM dpm.answer('sec_bob_total', rho => 0.5, method => 'workload');
SET ROLE regress_sec_alice;
CREATE FUNCTION pg_temp.squat(first bigint) RETURNS TABLE(action text, outcome text, times bigint) LANGUAGE plpgsql AS $$
DECLARE
  tried text[] := '{}';
  outcomes text[] := '{}';
BEGIN
  FOR i IN 1 .. 21 LOOP
    BEGIN
      IF i <= 20 THEN
        tried := tried || 'create'::text;
        PERFORM dpm.create_workload(format('sec_bob_prefix (remainder %s)', first + 20 + i), 'sec_rem_kind', 'Total(kind)');
      ELSE
        tried := tried || 'rename'::text;
        PERFORM dpm.create_workload('sec_alice_squat', 'sec_rem_kind', 'Total(kind)');
        PERFORM dpm.rename_workload('sec_alice_squat', format('sec_bob_prefix (remainder %s)', first + 42));
      END IF;
      outcomes := outcomes || 'done'::text;
    EXCEPTION WHEN OTHERS THEN
      outcomes := outcomes || (SQLSTATE || ': ' || regexp_replace(SQLERRM, '[0-9]+', 'N'));
    END;
  END LOOP;
  RETURN QUERY SELECT t, o, count(*) FROM unnest(tried, outcomes) x(t, o) GROUP BY t, o ORDER BY t;
END $$;
SELECT * FROM pg_temp.squat(:sec_next_workload + 2);
SET ROLE regress_sec_bob;
SELECT count(*) AS answered, bool_and(a.answer IS NOT NULL) AS all_answered
  FROM dpm.answer('sec_bob_prefix', rho => 0.5, confidence => NULL, reuse => 'auto') a;
RESET ROLE;
SELECT w.name = format('sec_bob_prefix (remainder %s)', w.id) AS named_so, w.created_by, w.m
  FROM dpm.workloads w JOIN dpm.workloads p ON p.id = w.remainder_of WHERE p.name = 'sec_bob_prefix';
SELECT count(*) AS squatted FROM dpm.workloads WHERE name LIKE 'sec\_bob\_prefix (remainder %' AND created_by = 'regress_sec_alice'::regrole;
DROP FUNCTION pg_temp.squat(bigint);
SELECT id AS sec_rem_source FROM dpm.sources WHERE relation = 'sec_rem'::regclass \gset
DELETE FROM dpm.ledger WHERE source_id = :sec_rem_source;
DELETE FROM dpm.releases WHERE source_id = :sec_rem_source;
DELETE FROM dpm.domains WHERE source_id = :sec_rem_source;
DELETE FROM dpm.sources WHERE id = :sec_rem_source;
DROP TABLE sec_rem;

-- the custodian sees every release, and the ledger holds exactly the legitimate charges:
-- alice 0.3 + 0.1 (rolled back) + 0.1 (failed later) + 0.01 (search_path), bob 0.05
SET ROLE regress_sec_custodian;
SELECT id AS sec_source FROM dpm.sources WHERE relation = 'sec_people'::regclass \gset
SELECT released_by, count(*), sum(epsilon) FROM dpm.releases WHERE source_id = :sec_source GROUP BY 1 ORDER BY 1;
SELECT count(*) AS charges, sum(epsilon) AS spent,
       sum(epsilon) = (SELECT sum(epsilon) FROM dpm.releases WHERE source_id = :sec_source) AS ledger_matches_releases,
       bool_and(release_id IS NOT NULL) AS every_charge_released
  FROM dpm.ledger WHERE source_id = :sec_source;
SELECT status, count(*) FROM dpm.releases WHERE source_id = :sec_source GROUP BY 1;
RESET ROLE;
DELETE FROM dpm.ledger WHERE source_id = :sec_source;
DELETE FROM dpm.releases WHERE source_id = :sec_source;
DELETE FROM dpm.sources WHERE id = :sec_source;
DROP SCHEMA sec_evil CASCADE;
DROP TABLE sec_people, sec_hidden;
DROP ROLE regress_sec_custodian, regress_sec_custodian2, regress_sec_alice, regress_sec_bob, regress_sec_nobody;
