-- The privacy unit column's type (issue 41, item 1): the capping groups and sorts rows by the
-- unit column after the charge, so a column whose values cannot all be compared (no equality or
-- ordering for its type, or for a field or element of it) is refused by dpm.register_source, by
-- any change of the table, and again before each charge; so is a nondeterministic collation,
-- which would make different values one unit (src/security/privacy_unit.c).
\set SHOW_CONTEXT never
SET client_min_messages = warning;
CREATE COLLATION ut_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TYPE ut_with_json AS (id int, extra json);
CREATE TYPE ut_nested AS (id int, inner_ ut_with_json);
CREATE TYPE ut_plain AS (id int, name text);
CREATE TYPE ut_with_ci AS (id int, name text COLLATE ut_ci);
CREATE TYPE ut_ci_range AS RANGE (subtype = text, collation = ut_ci);
CREATE TYPE ut_mood AS ENUM ('low', 'high');
CREATE DOMAIN ut_json_domain AS json;
CREATE DOMAIN ut_ci_domain AS text COLLATE ut_ci;
-- one table per unit type, of two units with a row each, 'A' and 'a' where they are text (NULL
-- where xml: a server built without libxml reads no xml value, and the type alone is refused)
CREATE FUNCTION ut_register(type text, a text, b text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  t text := lower('ut_' || translate(type, ' ()[],"', '_______'));
BEGIN
  EXECUTE format('CREATE TABLE %I (unit %s, kind int)', t, type);
  EXECUTE format('INSERT INTO %I VALUES (%L, 0), (%L, 1)', t, a, b);
  PERFORM dpm.register_source(t::regclass, 'unit', 1, epsilon => 10, delta => 1e-3);
  RETURN 'registered';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLERRM;
END
$$;
SELECT type, ut_register(type, a, b) AS outcome
  FROM (VALUES ('point', '(1,2)', '(1,3)'), ('json', '{"a": 1}', '{"a": 2}'), ('xml', NULL, NULL),
               ('box', '(0,0),(1,1)', '(0,0),(1,2)'), ('ut_with_json', '(1,"{}")', '(1,"[]")'),
               ('ut_nested', '(1,"(1,{})")', '(2,"(1,[])")'), ('json[]', '{"{}"}', '{"[]"}'),
               ('ut_json_domain', '{}', '[]'),
               ('text COLLATE ut_ci', 'A', 'a'), ('ut_with_ci', '(1,A)', '(1,a)'), ('text[] COLLATE ut_ci', '{A}', '{a}'),
               ('ut_ci_range', '[A,B)', '[a,b)'), ('ut_ci_domain', 'A', 'a'),
               -- accepted: each compares every two of its values
               ('int', '1', '2'), ('text', 'A', 'a'), ('text COLLATE "C"', 'A', 'a'), ('ut_plain', '(1,A)', '(1,a)'),
               ('int[]', '{1}', '{1,2}'), ('ut_mood', 'low', 'high'), ('jsonb', '{}', '[]'), ('int4range', '[1,2)', '[1,3)'),
               ('bit(3)', '101', '011'), ('uuid', '00000000-0000-0000-0000-000000000001', '00000000-0000-0000-0000-000000000002'))
       v(type, a, b);
-- the accepted ones answer; a type without hashing (bit) is capped here rather than by capped_groups
SELECT count(dpm.create_domain(s.relation || '_d', s.relation, '[{"name": "kind", "values": [0, 1]}]')) AS domains,
       count(dpm.create_workload(s.relation || '_w', s.relation || '_d', 'Identity(kind)')) AS workloads
  FROM dpm.sources s WHERE s.relation::text LIKE 'ut\_%';
SELECT s.relation, (SELECT count(*) FROM dpm.answer(s.relation || '_w', epsilon => 0.1)) AS answers
  FROM dpm.sources s WHERE s.relation::text LIKE 'ut\_%' ORDER BY s.relation::text COLLATE "C";
SELECT dpm_internal.unit_hashable('ut_bit_3_', 'unit') AS bit_hashes, dpm_internal.unit_hashable('ut_int', 'unit') AS int_hashes,
       dpm_internal.unit_hashable('ut_int', 'no_such_column') AS no_column;

-- a unit column retyped after registration: refused by the change itself
ALTER TABLE ut_int ALTER COLUMN unit TYPE json USING to_json(unit);
ALTER TABLE ut_text ALTER COLUMN unit TYPE text COLLATE ut_ci;
ALTER TABLE ut_uuid ALTER COLUMN unit TYPE point USING point(1, 2);
SELECT format_type(atttypid, NULL) AS still FROM pg_attribute WHERE attrelid = 'ut_int'::regclass AND attname = 'unit';
-- and, where the change went unseen (the guard disabled, as a superuser can), before the charge of
-- every release, counts and keys alike: nothing is charged
SELECT coalesce(sum(epsilon), 0) AS spent FROM dpm.ledger WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'ut\_%') \gset
ALTER EVENT TRIGGER dpm_guard_alter DISABLE;
ALTER TABLE ut_int ALTER COLUMN unit TYPE json USING to_json(unit);
ALTER TABLE ut_text ALTER COLUMN unit TYPE text COLLATE ut_ci;
ALTER TABLE ut_uuid ALTER COLUMN unit TYPE point USING point(1, 2);
ALTER EVENT TRIGGER dpm_guard_alter ENABLE;
SELECT * FROM dpm.answer('ut_int_w', epsilon => 0.1);
SELECT * FROM dpm.answer('ut_text_w', epsilon => 0.1);
SELECT * FROM dpm.answer('ut_uuid_w', epsilon => 0.1);
SELECT dpm.answer_keys('ut_int', 'kind', 0.1, 1e-6);
SELECT * FROM dpm.explain('ut_int_w', epsilon => 0.1);
SELECT coalesce(sum(l.epsilon), 0) = :spent AS nothing_charged, count(*) FILTER (WHERE r.status = 'failed') AS failed
  FROM dpm.ledger l JOIN dpm.releases r ON r.id = l.release_id
 WHERE l.source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'ut\_%');

DELETE FROM dpm.ledger WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'ut\_%');
DELETE FROM dpm.releases WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'ut\_%');
DELETE FROM dpm.workloads WHERE domain_id IN (SELECT d.id FROM dpm.domains d JOIN dpm.sources s ON s.id = d.source_id
                                              WHERE s.relation::text LIKE 'ut\_%');
DELETE FROM dpm.domains WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'ut\_%');
DELETE FROM dpm.sources WHERE relation::text LIKE 'ut\_%';
DO $$
DECLARE
  t text;
BEGIN
  FOR t IN SELECT c.relname FROM pg_class c WHERE c.relname LIKE 'ut\_%' AND c.relkind = 'r' LOOP
    EXECUTE format('DROP TABLE %I', t);
  END LOOP;
END $$;
DROP FUNCTION ut_register(text, text, text);
DROP DOMAIN ut_json_domain, ut_ci_domain;
DROP TYPE ut_nested, ut_with_json, ut_plain, ut_with_ci, ut_ci_range, ut_mood;
DROP COLLATION ut_ci;
