-- A selection of keys counts toward its role's answer quota (dpm.max_answers_per_role,
-- sql/21_release.sql check_answer_quota): it stores one answer per key, as many as the role has
-- left at its charge (at most dpm.max_answers_per_release), the first in the column's order, and
-- then counts what it stored.  Prints no release id.
SET client_min_messages = warning;
-- ids as they were at the end, so that the tests after print the release ids they expect
CREATE TEMP TABLE aq_sequences AS
  SELECT (schemaname || '.' || sequencename)::regclass AS seq, coalesce(last_value, start_value) AS v, last_value IS NOT NULL AS called
    FROM pg_sequences WHERE schemaname = 'dpm';
\set VERBOSITY terse
CREATE ROLE regress_aq_analyst IN ROLE dpm_analyst;
-- 1000 units; five codes of 200 units each, four values of v
CREATE TABLE aq_people AS SELECT i AS id, (i % 5)::text AS code, i % 4 AS v FROM generate_series(1, 1000) i;
SELECT dpm.register_source('aq_people', privacy_unit => 'id', epsilon => 100, delta => 1e-3);
SELECT dpm.create_domain('aq_d', 'aq_people', '[{"name": "v", "bins": {"min": 0, "max": 4, "width": 1}}]') AS cells;
-- the quota of the caller, handed to the worker (as ALTER ROLE ... SET would)
SET dpm.max_answers_per_role = 11;
SET ROLE regress_aq_analyst;
SELECT dpm.create_workload('aq_w', 'aq_d', 'Identity(v)') AS queries;
SELECT count(*) AS answers FROM dpm.answer('aq_w', epsilon => 1);
-- every code passes: a count of 200 with Laplace noise of scale 1 falls below the threshold (about
-- 14 for epsilon 1, delta 1e-6) with probability below 1e-80; 4 + 5 answers are now stored
SELECT dpm.answer_keys('aq_people', 'code', epsilon => 1, delta => 1e-6) AS keys;
-- so 4 more would pass 11
SELECT count(*) FROM dpm.answer('aq_w', epsilon => 1);
-- a selection keeps what is left, 2 keys, the first ones, and says so
SELECT dpm.answer_keys('aq_people', 'code', epsilon => 1, delta => 1e-6) AS keys;
-- then the quota is reached: the next selection is refused before its charge
SELECT count(*) AS charges_before FROM dpm.ledger WHERE charged_by = 'regress_aq_analyst'::regrole \gset
SELECT dpm.answer_keys('aq_people', 'code', epsilon => 1, delta => 1e-6) AS keys;
RESET ROLE;
SELECT count(*) = :charges_before AS nothing_charged FROM dpm.ledger WHERE charged_by = 'regress_aq_analyst'::regrole;
-- what each selection counts: the keys it stored
SELECT k.keys, (SELECT count(*) FROM dpm.release_answers a WHERE a.release_id = r.id) AS stored
  FROM dpm.releases r JOIN dpm.release_keys k ON k.release_id = r.id
 WHERE r.released_by = 'regress_aq_analyst'::regrole ORDER BY r.id;
SELECT dpm_internal.stored_answers('regress_aq_analyst'::regrole) AS stored_answers;
RESET dpm.max_answers_per_role;

DELETE FROM dpm.ledger WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation = 'aq_people'::regclass);
DELETE FROM dpm.releases WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation = 'aq_people'::regclass);
DELETE FROM dpm.domains WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation = 'aq_people'::regclass);
DELETE FROM dpm.sources WHERE relation = 'aq_people'::regclass;
DROP TABLE aq_people;
DROP OWNED BY regress_aq_analyst;
DROP ROLE regress_aq_analyst;
SELECT count(setval(seq, v, called)) = count(*) AS sequences_set_back FROM aq_sequences;
