-- Group keys from the data (issue 23, partition selection): dpm.select_keys releases the values
-- of a column held by enough privacy units, charged (epsilon, delta) to the source; a domain takes
-- them as its value list with "values": {"selection": release_id}.
\set SHOW_CONTEXT never
SET client_min_messages = warning;
-- 1000 units holding two keys of their own each ("r<unit>a", "r<unit>b": 2000 keys held by one
-- unit), and 500 units holding one of five common keys (100 units each) in both rows; a unit
-- contributes 2 rows, so holds at most 2 keys
CREATE TABLE ky_people AS
  SELECT u AS unit, 'r' || u || CASE WHEN r = 1 THEN 'a' ELSE 'b' END AS tag, u % 7 AS code, u::float8 AS score
    FROM generate_series(1, 1000) u, generate_series(1, 2) r
  UNION ALL
  SELECT u, 'common' || (u % 5), u % 7, u FROM generate_series(1001, 1500) u, generate_series(1, 2) r;
SELECT dpm.register_source('ky_people', 'unit', 2, epsilon => 100, delta => 0.9);

-- a key held by one unit passes with probability q^K / (1 + q) ~ delta / (2 k) = 0.05 here
-- (delta 0.2, k 2 keys a unit; src/mechanism/partition.h), so some key of a unit with probability
-- about 1 - 0.95^2 = 0.0975 and at most delta = 0.2: over 1000 units, between 50 and 145 of them
-- (5 standard deviations of the binomial each side: a false alarm below 1e-6), and never near
-- 200; the common keys (count 100, threshold 1 + 2 ln 10) always pass
SELECT dpm.select_keys('ky_people', 'tag', 1, 0.2) AS keys \gset
SELECT count(DISTINCT substring(k FROM 'r([0-9]+)')) FILTER (WHERE k LIKE 'r%') BETWEEN 50 AND 145 AS singletons_at_rate,
       count(DISTINCT substring(k FROM 'r([0-9]+)')) FILTER (WHERE k LIKE 'r%') < 200 AS within_delta,
       count(*) FILTER (WHERE k LIKE 'common%') AS common_keys
  FROM unnest(:'keys'::text[]) k;
-- one release of kind keys, charged once, with its threshold and noise
SELECT max(id) AS ky_rel FROM dpm.releases \gset
SELECT r.kind, r.status, r.workload_id, r.epsilon, r.delta,
       (SELECT count(*) FROM dpm.ledger l WHERE l.release_id = r.id) AS charges,
       k.column_name, abs(k.noise_scale - 2) < 1e-9 AS scale_k_over_epsilon,
       abs(k.threshold - (1 + k.noise_scale * ln(2 / 0.2))) < 1e-9 AS threshold
  FROM dpm.releases r JOIN dpm.release_keys k ON k.release_id = r.id WHERE r.id = :ky_rel;
-- replayed at no cost, in order; nothing to derive or publish
SELECT array_agg(label ORDER BY query) = :'keys'::text[] AS replayed FROM dpm.release(:ky_rel);
SELECT * FROM dpm.release(:ky_rel, inference => 'nnls');
SELECT dpm.publish(:ky_rel, 'ky_published');

-- an integer column's keys, in its order, become a domain's values (numbers)
SELECT dpm.select_keys('ky_people', 'code', 1, 0.01) AS codes;
SELECT max(id) AS ky_codes FROM dpm.releases \gset
SELECT dpm.create_domain('ky_code', 'ky_people', format('[{"name": "code", "values": {"selection": %s}}]', :ky_codes)::jsonb);
SELECT bin_labels FROM dpm.domains WHERE name = 'ky_code';
-- the selection must be of that column and source, and a completed selection
SELECT dpm.create_domain('ky_bad', 'ky_people', format('[{"name": "tag", "values": {"selection": %s}}]', :ky_codes)::jsonb);
SELECT dpm.create_domain('ky_bad', 'ky_people', '[{"name": "code", "values": {"selection": 999999}}]');
SELECT dpm.create_domain('ky_bad', 'ky_people', '[{"name": "code", "values": {"selection": 1, "more": 2}}]');
SELECT dpm.create_domain('ky_bad', 'ky_people', '[{"name": "code", "values": {"selection": 1.5}}]');
CREATE TABLE ky_other AS SELECT 1 AS code;
SELECT dpm.register_source('ky_other', epsilon => 1, delta => 0.5);
SELECT dpm.create_domain('ky_bad', 'ky_other', format('[{"name": "code", "values": {"selection": %s}}]', :ky_codes)::jsonb);

-- refused before any charge: a source without delta (pure epsilon), no delta, an unknown
-- or non-key column, bad epsilon, NULLs
SELECT sum(epsilon) AS spent, sum(delta) AS spent_delta FROM dpm.ledger
 WHERE source_id = (SELECT id FROM dpm.sources WHERE relation = 'ky_people'::regclass) \gset
CREATE TABLE ky_pure AS SELECT 1 AS unit, 'x' AS tag;
SELECT dpm.register_source('ky_pure', 'unit', epsilon => 1);
SELECT dpm.select_keys('ky_pure', 'tag', 1, 1e-6);
SELECT dpm.select_keys('ky_people', 'tag', 1, 0);
SELECT dpm.select_keys('ky_people', 'tag', 1, NULL);
SELECT dpm.select_keys('ky_people', 'nothing', 1, 1e-6);
SELECT dpm.select_keys('ky_people', 'score', 1, 1e-6);
SELECT dpm.select_keys('ky_people', 'tag', 0, 1e-6);
SELECT dpm.select_keys('ky_people', 'tag', 'NaN', 1e-6);
SELECT dpm.select_keys('ky_people', NULL, 1, 1e-6);
SELECT dpm.select_keys('ky_people', 'tag', 1000, 0.01);   -- more than is left
SELECT sum(epsilon) = :spent AND sum(delta) = :spent_delta AS nothing_charged FROM dpm.ledger
 WHERE source_id = (SELECT id FROM dpm.sources WHERE relation = 'ky_people'::regclass);

-- under zCDP: Gaussian noise of sigma sqrt(k / (2 rho)) = 1 for rho 1, threshold 1 + sqrt(2 ln(2k /
-- delta)); a single unit's key passes with probability Phi(-sqrt(2 ln 20)) = 0.0072, so some key of
-- a unit with about 0.0143: over 1000 units between 1 and 35 (binomial, 5 sd; false alarm below
-- 1e-5), never near delta = 0.2.  A zCDP source needs a delta budget for it, which only selecting
-- keys spends.
CREATE TABLE ky_zpeople AS SELECT * FROM ky_people;
SELECT dpm.register_source('ky_zpeople', 'unit', 2, rho => 10);
SELECT dpm.select_keys('ky_zpeople', 'tag', rho => 1, delta => 0.2);
SELECT dpm.set_budget('ky_zpeople', delta => 0.5);
SELECT dpm.select_keys('ky_zpeople', 'tag', rho => 1, delta => 0.2) AS zkeys \gset
SELECT count(DISTINCT substring(k FROM 'r([0-9]+)')) FILTER (WHERE k LIKE 'r%') BETWEEN 1 AND 35 AS singletons_at_rate,
       count(*) FILTER (WHERE k LIKE 'common%') AS common_keys
  FROM unnest(:'zkeys'::text[]) k;
SELECT r.noise, r.epsilon, r.rho, r.delta, abs(k.threshold - (1 + k.noise_scale * sqrt(2 * ln(2 * 2 / 0.2)))) < 1e-9 AS threshold,
       abs(k.noise_scale - 1) < 1e-6 AS sigma
  FROM dpm.releases r JOIN dpm.release_keys k ON k.release_id = r.id WHERE r.id = (SELECT max(id) FROM dpm.releases);
SELECT model, rho_spent, delta_spent, delta_remaining FROM dpm.budget('ky_zpeople');
-- Laplace on a zCDP source: charged rho = epsilon^2 / 2 and delta; rho and epsilon together refused
SELECT cardinality(dpm.select_keys('ky_zpeople', 'code', epsilon => 1, delta => 0.01)) AS codes;
SELECT noise, epsilon, rho, delta FROM dpm.releases WHERE id = (SELECT max(id) FROM dpm.releases);
SELECT dpm.select_keys('ky_zpeople', 'code', epsilon => 1, rho => 1, delta => 0.01);
SELECT dpm.select_keys('ky_zpeople', 'code', rho => 1, delta => 0.4);   -- 0.21 of 0.5 spent
SELECT dpm.select_keys('ky_people', 'code', rho => 1, delta => 0.01);   -- an (epsilon, delta) source

-- analysts with budget select keys; another analyst sees neither the release nor its keys; the
-- registrant (who scans) must still be able to read the table
CREATE ROLE regress_ky_analyst IN ROLE dpm_analyst;
CREATE ROLE regress_ky_other IN ROLE dpm_analyst;
SET ROLE regress_ky_analyst;
SELECT cardinality(dpm.select_keys('ky_people', 'code', 1, 0.01)) AS analyst_keys;
SELECT count(*) AS own_keys FROM dpm.release_keys;
RESET ROLE;
SET ROLE regress_ky_other;
SELECT (SELECT count(*) FROM dpm.release_keys) AS others_keys, (SELECT count(*) FROM dpm.releases) AS others_releases,
       (SELECT count(*) FROM dpm.release_answers) AS others_answers;
SELECT dpm_internal.partition_select('{100}', 1, 1, 0.5);
RESET ROLE;
CREATE ROLE regress_ky_custodian IN ROLE dpm_admin;
CREATE TABLE ky_mine AS SELECT 1 AS unit, 'x' AS tag;
GRANT SELECT ON ky_mine TO regress_ky_custodian;
SET ROLE regress_ky_custodian;
SELECT dpm.register_source('ky_mine', 'unit', epsilon => 1, delta => 0.5);
RESET ROLE;
REVOKE SELECT ON ky_mine FROM regress_ky_custodian;
SELECT dpm.select_keys('ky_mine', 'tag', 0.1, 0.01);

DELETE FROM dpm.ledger WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'ky_%');
DELETE FROM dpm.releases WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'ky_%');
DELETE FROM dpm.domains WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'ky_%');
DELETE FROM dpm.sources WHERE relation::text LIKE 'ky_%';
DROP TABLE ky_people, ky_zpeople, ky_other, ky_pure, ky_mine;
DROP ROLE regress_ky_analyst, regress_ky_other, regress_ky_custodian;
