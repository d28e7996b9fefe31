-- Group keys from the data (issue 23, partition selection): dpm.answer_keys releases the values
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
SELECT dpm.answer_keys('ky_people', 'tag', 1, 0.2) AS keys \gset
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
SELECT dpm.answer_keys('ky_people', 'code', 1, 0.01) AS codes;
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

-- look before you spend (issue 46): dpm.explain_keys checks the arguments as dpm.answer_keys does
-- and charges nothing; it says the charge, the threshold and noise the selection above drew with,
-- and the chance that a value held by n units passes: at 1 unit below delta / k (0.1 here; about
-- 0.05), rising with n, about one half at the threshold's units
SELECT count(*) AS charges_before FROM dpm.ledger \gset
SELECT count(*) AS rungs, bool_and(e.threshold = k.threshold AND e.noise_scale = k.noise_scale) AS same_law,
       min(e.charge_epsilon) AS charge_epsilon, min(e.charge_delta) AS charge_delta,
       min(e.pass_probability) FILTER (WHERE e.units = 1) < 0.2 / 2 AS one_unit_below_delta_over_k,
       bool_and(e.units = 1 OR e.pass_probability > 0) AS positive,
       array_agg(e.units ORDER BY e.units) AS units,
       min(e.pass_probability) FILTER (WHERE e.units = ceil(e.threshold)) BETWEEN 0.5 AND 0.6 AS half_at_threshold,
       max(e.pass_probability) >= 0.999 AS surely_at_last
  FROM dpm.explain_keys('ky_people', 'tag', 1, 0.2) e, dpm.release_keys k WHERE k.release_id = :ky_rel;
SELECT bool_and(p2 > p1) AS increasing
  FROM (SELECT pass_probability AS p2, lag(pass_probability) OVER (ORDER BY units) AS p1
          FROM dpm.explain_keys('ky_people', 'tag', 1, 0.2)) x WHERE p1 IS NOT NULL;
SELECT dpm.explain_keys('ky_people', 'tag', delta => 1e-6, rho => 1);
SELECT dpm.explain_keys('ky_people', 'tag', 1, NULL);
SELECT dpm.explain_keys('ky_people', 'score', 1, 1e-6);
SELECT dpm.explain_keys(NULL, 'tag', 1, 0.2);
SELECT dpm.explain_keys('ky_people', 'tag', 'NaN', 0.2);
SELECT dpm.explain_keys('ky_people', 'tag', 1, 0.2, max_key_bytes => 0);
SELECT count(*) - :charges_before AS charged FROM dpm.ledger;
-- the chance against the selection's own draws: 20,000 values held by n units each, around the
-- threshold, Laplace (epsilon 1) and Gaussian (rho 1) noise for 2 keys a unit; the values that
-- pass within 5 standard deviations of the binomial (a false alarm below 6e-7 each)
SELECT n, rho IS NOT NULL AS gaussian,
       abs(passed - 20000 * p) < 5 * sqrt(20000 * p * (1 - p)) AS within_5_sd, p BETWEEN 0.01 AND 0.99 AS informative
  FROM (VALUES (4, NULL::float8), (5, NULL), (7, NULL), (2, 1), (3, 1), (4, 1)) v(n, rho),
       LATERAL (SELECT (dpm_internal.partition_chance(ARRAY[n::float8], 2, CASE WHEN rho IS NULL THEN 1 END, 0.2, rho))[1] AS p,
                       (SELECT count(*) FILTER (WHERE s) FROM unnest((dpm_internal.partition_select(array_fill(n::float8, ARRAY[20000]), 2,
                                                                      CASE WHEN rho IS NULL THEN 1 END, 0.2, rho)).selected) s) AS passed) x
 ORDER BY gaussian, n;
-- when nothing passes, a NOTICE says so (one unit, and a threshold of 208 units)
SET client_min_messages = notice;
SELECT dpm.answer_keys('ky_other', 'code', 0.1, 1e-9) AS nothing;
SET client_min_messages = warning;

-- refused before any charge: a source without delta (pure epsilon), no delta, an unknown
-- or non-key column, bad epsilon, NULLs
SELECT sum(epsilon) AS spent, sum(delta) AS spent_delta FROM dpm.ledger
 WHERE source_id = (SELECT id FROM dpm.sources WHERE relation = 'ky_people'::regclass) \gset
CREATE TABLE ky_pure AS SELECT 1 AS unit, 'x' AS tag;
SELECT dpm.register_source('ky_pure', 'unit', epsilon => 1);
SELECT dpm.answer_keys('ky_pure', 'tag', 1, 1e-6);
SELECT dpm.answer_keys('ky_people', 'tag', 1, 0);
SELECT dpm.answer_keys('ky_people', 'tag', 1, NULL);
SELECT dpm.answer_keys('ky_people', 'nothing', 1, 1e-6);
SELECT dpm.answer_keys('ky_people', 'score', 1, 1e-6);
SELECT dpm.answer_keys('ky_people', 'tag', 0, 1e-6);
SELECT dpm.answer_keys('ky_people', 'tag', 'NaN', 1e-6);
SELECT dpm.answer_keys('ky_people', NULL, 1, 1e-6);
SELECT dpm.answer_keys('ky_people', 'tag', 1000, 0.01);   -- more than is left
SELECT sum(epsilon) = :spent AND sum(delta) = :spent_delta AS nothing_charged FROM dpm.ledger
 WHERE source_id = (SELECT id FROM dpm.sources WHERE relation = 'ky_people'::regclass);

-- under zCDP: Gaussian noise of sigma sqrt(k / (2 rho)) = 1 for rho 1, threshold 1 + sqrt(2 ln(2k /
-- delta)); a single unit's key passes with probability Phi(-sqrt(2 ln 20)) = 0.0072, so some key of
-- a unit with about 0.0143: over 1000 units between 1 and 35 (binomial, 5 sd; false alarm below
-- 1e-5), never near delta = 0.2.  A zCDP source needs a delta budget for it, which only selecting
-- keys spends.
CREATE TABLE ky_zpeople AS SELECT * FROM ky_people;
SELECT dpm.register_source('ky_zpeople', 'unit', 2, rho => 10);
SELECT dpm.answer_keys('ky_zpeople', 'tag', rho => 1, delta => 0.2);
SELECT dpm.set_budget('ky_zpeople', delta => 0.5);
SELECT dpm.answer_keys('ky_zpeople', 'tag', rho => 1, delta => 0.2) AS zkeys \gset
SELECT count(DISTINCT substring(k FROM 'r([0-9]+)')) FILTER (WHERE k LIKE 'r%') BETWEEN 1 AND 35 AS singletons_at_rate,
       count(*) FILTER (WHERE k LIKE 'common%') AS common_keys
  FROM unnest(:'zkeys'::text[]) k;
SELECT r.noise, r.epsilon, r.rho, r.delta, abs(k.threshold - (1 + k.noise_scale * sqrt(2 * ln(2 * 2 / 0.2)))) < 1e-9 AS threshold,
       abs(k.noise_scale - 1) < 1e-6 AS sigma
  FROM dpm.releases r JOIN dpm.release_keys k ON k.release_id = r.id WHERE r.id = (SELECT max(id) FROM dpm.releases);
SELECT model, rho_spent, delta_spent, delta_remaining FROM dpm.budget('ky_zpeople');
-- Laplace on a zCDP source: charged rho = epsilon^2 / 2 and delta; rho and epsilon together refused
SELECT cardinality(dpm.answer_keys('ky_zpeople', 'code', epsilon => 1, delta => 0.01)) AS codes;
SELECT noise, epsilon, rho, delta FROM dpm.releases WHERE id = (SELECT max(id) FROM dpm.releases);
SELECT dpm.answer_keys('ky_zpeople', 'code', epsilon => 1, rho => 1, delta => 0.01);
SELECT dpm.answer_keys('ky_zpeople', 'code', rho => 1, delta => 0.4);   -- 0.21 of 0.5 spent
SELECT dpm.answer_keys('ky_people', 'code', rho => 1, delta => 0.01);   -- an (epsilon, delta) source

-- analysts with budget select keys; another analyst sees neither the release nor its keys; the
-- registrant (who scans) must still be able to read the table
CREATE ROLE regress_ky_analyst IN ROLE dpm_analyst;
CREATE ROLE regress_ky_other IN ROLE dpm_analyst;
SET ROLE regress_ky_analyst;
SELECT cardinality(dpm.answer_keys('ky_people', 'code', 1, 0.01)) AS analyst_keys;
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
SELECT dpm.answer_keys('ky_mine', 'tag', 0.1, 0.01);

-- (the sources and releases of these tests are deleted below, and their sequences set back: the
-- tests that follow print their ids)
SELECT (SELECT last_value FROM dpm.releases_id_seq) AS ky_seq, (SELECT last_value FROM dpm.sources_id_seq) AS ky_src_seq \gset
-- An integer column's keys come out in its order, not their text's: -20 < 3 < 12 (each held by
-- 300 units, threshold 1 + ln(1e6) = 14.8 at k 1: they pass but with probability below e^-280)
CREATE TABLE ky_ints AS SELECT u, (ARRAY[12, -20, 3])[u % 3 + 1] AS n FROM generate_series(1, 900) u;
SELECT dpm.register_source('ky_ints', 'u', 1, epsilon => 10, delta => 0.9);
SELECT dpm.answer_keys('ky_ints', 'n', 1, 1e-6) AS integer_keys;
-- A key is a value's exact text (issue 41, item 3).  Under a case-insensitive collation, unit
-- 1's own spelling (fullwidth, with soft hyphens: equal to 'smith' at level 2) is not released on
-- the strength of the 399 units that wrote 'smith'; grouping by the collation took the spelling
-- of the row read first, unit 1's, for the whole group's.  The threshold is 1 + ln(1e6) = 14.8
-- (k 1, epsilon 1): 399 units pass but with probability below e^-384, and one unit's key below
-- 1e-6 (false alarms of the whole test below 1e-5).
CREATE COLLATION ky_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE ky_spellings (unit int, name text COLLATE ky_ci);
INSERT INTO ky_spellings VALUES (1, 'ＳＭＩＴＨ' || chr(173) || chr(173));
INSERT INTO ky_spellings SELECT u, 'smith' FROM generate_series(2, 400) u;
SELECT dpm.register_source('ky_spellings', 'unit', epsilon => 100, delta => 0.5);
SELECT 'smith' = ('ＳＭＩＴＨ' || chr(173) || chr(173)) COLLATE ky_ci AS one_value_to_the_collation;
SELECT dpm.answer_keys('ky_spellings', 'name', 1, 1e-6);
-- two spellings each held by 399 or 400 units are two keys: in the collation's order, then bytewise
INSERT INTO ky_spellings SELECT u, 'Smith' FROM generate_series(401, 800) u;
SELECT dpm.answer_keys('ky_spellings', 'name', 1, 1e-6);
-- every accepted type, with the values at its ends: 50 units each hold the values of a line,
-- NULLs are no key, '' is one; a character(300) value is its text without padding (2 bytes, not
-- 300: under the bound), and the spaces that end an unbounded character value are not its text
CREATE TABLE ky_types (unit int, c char(300), b bpchar, v varchar(10) COLLATE ky_ci, i bigint, s smallint);
INSERT INTO ky_types SELECT u, 'ab', 'ab', 'Ab', -9223372036854775808, -32768 FROM generate_series(1, 50) u;
INSERT INTO ky_types SELECT u, 'ab ', 'ab   ', 'aB', 9223372036854775807, 32767 FROM generate_series(51, 100) u;
INSERT INTO ky_types SELECT u, NULL, '', '', NULL, NULL FROM generate_series(101, 150) u;
SELECT dpm.register_source('ky_types', 'unit', epsilon => 100, delta => 0.5);
SELECT dpm.answer_keys('ky_types', 'c', 1, 1e-6) AS c, dpm.answer_keys('ky_types', 'b', 1, 1e-6) AS b,
       dpm.answer_keys('ky_types', 'v', 1, 1e-6) AS v, dpm.answer_keys('ky_types', 'i', 1, 1e-6) AS i,
       dpm.answer_keys('ky_types', 's', 1, 1e-6) AS s;

-- Values longer than the source's max_key_bytes (default 256) are read as no key, never detoasted (issue 41,
-- item 1): 1100 units hold a megabyte of their own each, 1.1 GB in all (stored compressed), which
-- a selection gathering every value before the threshold could not hold (it failed after its
-- charge); five units each hold a 3 MB value, a 256-byte and a 257-byte one.  Threshold 1 + (3 /
-- 50) ln(3e6) = 1.9 (k 3, epsilon 50): a key of five units passes but with probability below e^-51.
-- lz4 stores them 25 times faster than pglz, where the server was built with it (not by default)
SELECT CASE WHEN 'lz4' = ANY (enumvals) THEN 'lz4' ELSE 'pglz' END AS ky_compression
  FROM pg_settings WHERE name = 'default_toast_compression' \gset
CREATE TABLE ky_long (unit int, name text COMPRESSION :ky_compression);
INSERT INTO ky_long SELECT u, md5(u::text) || repeat('x', 1000000) FROM generate_series(1, 1100) u;
INSERT INTO ky_long SELECT u, repeat(v, n) FROM generate_series(1101, 1105) u, (VALUES ('a', 3000000), ('b', 256), ('c', 257)) x(v, n);
SELECT dpm.register_source('ky_long', 'unit', 3, epsilon => 1000, delta => 0.5);
SELECT array_agg(octet_length(k)) AS key_bytes FROM unnest(dpm.answer_keys('ky_long', 'name', 50, 1e-6)) k;
-- the custodian's bound for the source (dpm.set_max_key_bytes), which a caller may lower, never raise
SELECT dpm.set_max_key_bytes('ky_long', 257);
SELECT array_agg(octet_length(k)) AS key_bytes FROM unnest(dpm.answer_keys('ky_long', 'name', 50, 1e-6)) k;
SELECT max_key_bytes FROM dpm.release_keys WHERE release_id = (SELECT max(id) FROM dpm.releases);
SELECT array_agg(octet_length(k)) AS key_bytes FROM unnest(dpm.answer_keys('ky_long', 'name', 50, 1e-6, max_key_bytes => 256)) k;
-- the bound is checked before any charge; an analyst cannot set a source's
SELECT sum(epsilon) AS spent FROM dpm.ledger WHERE source_id = (SELECT id FROM dpm.sources WHERE relation = 'ky_long'::regclass) \gset
SELECT dpm.answer_keys('ky_long', 'name', 50, 1e-6, max_key_bytes => 0);
SELECT dpm.answer_keys('ky_long', 'name', 50, 1e-6, max_key_bytes => 258);
SELECT dpm.set_max_key_bytes('ky_long', 0);
SELECT dpm.set_max_key_bytes('ky_long', 65537);
SELECT dpm.set_max_key_bytes('ky_long', NULL);
SET ROLE regress_ky_analyst;
SELECT dpm.set_max_key_bytes('ky_long', 1024);
RESET ROLE;
SELECT max_key_bytes FROM dpm.sources WHERE relation = 'ky_long'::regclass;
SELECT sum(epsilon) = :spent AS nothing_charged FROM dpm.ledger WHERE source_id = (SELECT id FROM dpm.sources WHERE relation = 'ky_long'::regclass);
-- candidates are judged as the scan yields them and only the keys that pass are kept: 20,000
-- candidates of 60 kB (1.2 GB, more than one value may hold) held by one unit each, none
-- passing (probability below 20,000 delta = 2e-6), and one held by 1000 units
SELECT array_agg(k) AS streamed FROM dpm_internal.keys_scan(current_user::regrole,
  'SELECT ''common'', 1000::bigint UNION ALL SELECT repeat(''x'', 60000) || i, 1::bigint FROM generate_series(1, 20000) i',
  1, 1, 1e-10, NULL) k;

DELETE FROM dpm.ledger WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'ky_%');
DELETE FROM dpm.releases WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'ky_%');
DELETE FROM dpm.domains WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'ky_%');
DELETE FROM dpm.sources WHERE relation::text LIKE 'ky_%';
DROP TABLE ky_people, ky_zpeople, ky_other, ky_pure, ky_mine, ky_spellings, ky_types, ky_long, ky_ints;
DROP COLLATION ky_ci;
SELECT setval('dpm.releases_id_seq', :ky_seq) IS NOT NULL AND setval('dpm.sources_id_seq', :ky_src_seq) IS NOT NULL AS sequences_set_back;
DROP ROLE regress_ky_analyst, regress_ky_other, regress_ky_custodian;
