-- The functions a release may call on every row of its source are dpmatrix's own list
-- (src/security/safe_calls.c), not PostgreSQL's LEAKPROOF marking, which promises no leak through an
-- error, not that a function raises none.  Every entry is run here on the extreme values of every
-- type it takes, under every kind of collation it accepts, and must return a value for each.  The
-- list is read from dpm_internal.vetted_calls(): an entry whose types have no extreme values here
-- shows as untested.  This file releases nothing.
SET client_min_messages = warning;
\set VERBOSITY terse
CREATE COLLATION vc_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE COLLATION vc_icu (provider = icu, locale = 'und');
CREATE COLLATION vc_libc (provider = libc, locale = 'C.UTF-8');

-- the extreme values of each type: ends of the range, infinities, NaN, -0, denormals, numerics
-- beyond float8's range, empty and long strings, strings that differ only in case or by accents
CREATE TABLE vc_extremes (type regtype, literal text);
INSERT INTO vc_extremes VALUES
  ('boolean', 'true'), ('boolean', 'false'),
  ('"char"', ''), ('"char"', 'a'), ('"char"', '\377'),
  ('smallint', '-32768'), ('smallint', '32767'), ('smallint', '0'), ('smallint', '-1'),
  ('integer', '-2147483648'), ('integer', '2147483647'), ('integer', '0'), ('integer', '-1'),
  ('bigint', '-9223372036854775808'), ('bigint', '9223372036854775807'), ('bigint', '0'), ('bigint', '-1'),
  ('real', 'NaN'), ('real', 'Infinity'), ('real', '-Infinity'), ('real', '1.4e-45'), ('real', '-1.4e-45'),
  ('real', '3.4028235e38'), ('real', '-3.4028235e38'), ('real', '-0'), ('real', '0'),
  ('double precision', 'NaN'), ('double precision', 'Infinity'), ('double precision', '-Infinity'),
  ('double precision', '4.9e-324'), ('double precision', '-4.9e-324'), ('double precision', '1.7976931348623157e308'),
  ('double precision', '-1.7976931348623157e308'), ('double precision', '-0'), ('double precision', '0'),
  ('numeric', 'NaN'), ('numeric', 'Infinity'), ('numeric', '-Infinity'), ('numeric', '1e-400'), ('numeric', '-1e-400'),
  ('numeric', '1e400'), ('numeric', '-1e400'), ('numeric', '1e-16383'), ('numeric', repeat('9', 131072)),
  ('numeric', '-' || repeat('9', 131072) || '.' || repeat('9', 16383)), ('numeric', '0'),
  ('oid', '0'), ('oid', '4294967295'),
  ('money', '-92233720368547758.08'), ('money', '92233720368547758.07'),
  ('date', '-infinity'), ('date', 'infinity'), ('date', '4714-11-24 BC'), ('date', '5874897-12-31'),
  ('time without time zone', '00:00'), ('time without time zone', '24:00:00'),
  ('time with time zone', '00:00+15:59'), ('time with time zone', '24:00:00-15:59'),
  ('timestamp without time zone', '-infinity'), ('timestamp without time zone', 'infinity'),
  ('timestamp without time zone', '4714-11-24 00:00:00 BC'), ('timestamp without time zone', '294276-12-31 23:59:59.999999'),
  ('timestamp with time zone', '-infinity'), ('timestamp with time zone', 'infinity'),
  ('timestamp with time zone', '4714-11-24 00:00:00+00 BC'), ('timestamp with time zone', '294276-12-31 23:59:59.999999+00'),
  ('interval', '178956970 years 7 months 2147483647 days 2562047788:00:54.775807'),
  ('interval', '-178956970 years -8 months -2147483648 days -2562047788:00:54.775807'),
  ('interval', '1 month'), ('interval', '30 days'), ('interval', '720 hours'),
  ('uuid', '00000000-0000-0000-0000-000000000000'), ('uuid', 'ffffffff-ffff-ffff-ffff-ffffffffffff'),
  ('bytea', ''), ('bytea', '\x00'), ('bytea', '\x' || repeat('ff', 100000)),
  ('inet', '0.0.0.0/0'), ('inet', '255.255.255.255'), ('inet', '::/0'), ('inet', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'),
  ('macaddr', '00:00:00:00:00:00'), ('macaddr', 'ff:ff:ff:ff:ff:ff'),
  ('macaddr8', '00:00:00:00:00:00:00:00'), ('macaddr8', 'ff:ff:ff:ff:ff:ff:ff:ff'),
  ('bit', '1'), ('bit', '0'),
  ('bit varying', ''), ('bit varying', '1'), ('bit varying', repeat('10', 5000)),
  ('text', ''), ('text', 'smith'), ('text', 'SMITH'), ('text', 'Smith'), ('text', 'é'), ('text', 'e' || U&'\0301'),
  ('text', U&'\+01F600'), ('text', repeat('z', 1000000)), ('text', '%\'),
  ('character', ''), ('character', ' a '), ('character', 'SMITH'), ('character', repeat('é', 1000)),
  ('character varying', ''), ('character varying', repeat('é', 100)),
  ('name', ''), ('name', 'smith'), ('name', repeat('é', 40));
-- PostgreSQL 17 and later have infinite intervals: extreme values there
DO $$
BEGIN
  PERFORM 'infinity'::interval;
  INSERT INTO vc_extremes VALUES ('interval', 'infinity'), ('interval', '-infinity');
EXCEPTION WHEN invalid_datetime_format THEN
  NULL;
END
$$;

-- each entry, called on every combination of its arguments' values (the extreme values of their
-- types, or the values given in vals), one row each as a release's scan calls it, under a collation
CREATE FUNCTION vc_run(fn regprocedure, coll text, vals text[] DEFAULT '{}') RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  types oid[] := ARRAY(SELECT t FROM pg_proc p, unnest(p.proargtypes) WITH ORDINALITY u(t, i) WHERE p.oid = fn ORDER BY i);
  froms text := '';
  args text := '';
  n bigint;
BEGIN
  FOR i IN 1 .. cardinality(types) LOOP
    froms := froms || format('%s (%s) a%s', CASE WHEN i > 1 THEN ' CROSS JOIN' ELSE '' END,
                             coalesce(vals[i], format('SELECT e.literal::%s AS v FROM vc_extremes e WHERE e.type = %s',
                                                      types[i]::regtype, types[i])), i);
    args := args || format('%sa%s.v%s', CASE WHEN i > 1 THEN ', ' ELSE '' END, i,
                           CASE WHEN coll IS NOT NULL AND i = 1 THEN ' COLLATE ' || coll ELSE '' END);
  END LOOP;
  EXECUTE format('SELECT count(%s(%s)) + count(*) %s', fn::oid::regproc, args,
                 CASE WHEN froms <> '' THEN 'FROM ' || froms ELSE '' END) INTO n;
  RETURN CASE WHEN n > 0 THEN 'ok' ELSE 'no values' END;
EXCEPTION WHEN OTHERS THEN
  RETURN SQLERRM;
END
$$;

-- the divisors integer division accepts (0 and -1 are refused), the LIKE patterns it accepts,
-- extract's fields, and the collations each kind of text call takes
CREATE TABLE vc_divisors AS SELECT type, literal FROM vc_extremes WHERE literal NOT IN ('0', '-1');
CREATE TABLE vc_patterns (pattern text);
INSERT INTO vc_patterns VALUES (''), ('%'), ('_'), ('a%'), ('%z'), ('\%'), ('\\'), ('%é_%'), ('%a%b%'), ('%%%'),
  (repeat('%z', 100)), (repeat('%z', 100) || 'y'), (repeat('_', 1000));
CREATE TABLE vc_fields (field text, date_too boolean);
INSERT INTO vc_fields SELECT f, true FROM unnest('{year, month, day, quarter, week, doy, dow, isodow, isoyear, decade, century, millennium, epoch, julian}'::text[]) f;
INSERT INTO vc_fields SELECT f, false FROM unnest('{hour, minute, second, milliseconds, microseconds}'::text[]) f;
CREATE TABLE vc_collations (rule text, coll text);
INSERT INTO vc_collations VALUES ('total', NULL), ('divisor', NULL), ('extract_date', NULL), ('extract_timestamp', NULL),
  ('width_bucket', NULL);
INSERT INTO vc_collations SELECT r, c FROM unnest('{collated, deterministic, like}'::text[]) r,
  unnest('{"\"C\"", "\"default\"", vc_icu, vc_libc}'::text[]) c;
INSERT INTO vc_collations VALUES ('collated', 'vc_ci');

CREATE TABLE vc_results AS
SELECT v.fn, v.rule, c.coll,
       CASE v.rule
         WHEN 'divisor' THEN vc_run(v.fn, NULL, ARRAY[NULL, format('SELECT literal::%s AS v FROM vc_divisors WHERE type = %s',
                                       (SELECT p.proargtypes[1]::regtype FROM pg_proc p WHERE p.oid = v.fn),   -- the second, from 0
                                       (SELECT p.proargtypes[1] FROM pg_proc p WHERE p.oid = v.fn))])
         WHEN 'like' THEN vc_run(v.fn, c.coll, ARRAY[NULL, 'SELECT pattern AS v FROM vc_patterns'])
         WHEN 'extract_date' THEN vc_run(v.fn, NULL, ARRAY['SELECT field AS v FROM vc_fields WHERE date_too'])
         WHEN 'extract_timestamp' THEN vc_run(v.fn, NULL, ARRAY['SELECT field AS v FROM vc_fields'])
         WHEN 'width_bucket' THEN 'below'
         ELSE vc_run(v.fn, c.coll) END AS outcome
  FROM dpm_internal.vetted_calls() v JOIN vc_collations c ON c.rule = v.rule;

-- width_bucket over the sorted extreme values of every type whose comparison is on the list, as
-- thresholds, of each of them (GREATEST and LEAST use the same comparisons)
CREATE FUNCTION vc_buckets(type regtype, coll text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
BEGIN
  EXECUTE format('SELECT count(width_bucket(a.v%3$s, (SELECT array_agg(e.literal::%1$s ORDER BY e.literal::%1$s%3$s) FROM vc_extremes e WHERE e.type = %2$s)))
                          + count(greatest(a.v%3$s, a.v)) + count(least(a.v%3$s, a.v)) + count(*)
                     FROM (SELECT e.literal::%1$s AS v FROM vc_extremes e WHERE e.type = %2$s) a',
                 type, type::oid, CASE WHEN coll IS NOT NULL THEN ' COLLATE ' || coll ELSE '' END) INTO n;
  RETURN CASE WHEN n > 0 THEN 'ok' ELSE 'no values' END;
EXCEPTION WHEN OTHERS THEN
  RETURN SQLERRM;
END
$$;
INSERT INTO vc_results
SELECT 'width_bucket(anycompatible,anycompatiblearray)'::regprocedure, 'width_bucket', t.typname || coalesce(' ' || c.coll, ''),
       vc_buckets(t.oid::regtype, c.coll)
  FROM pg_type t JOIN pg_opclass o ON o.opcintype = t.oid AND o.opcdefault
  JOIN pg_am a ON a.oid = o.opcmethod AND a.amname = 'btree'
  JOIN pg_amproc p ON p.amprocfamily = o.opcfamily AND p.amproclefttype = t.oid AND p.amprocrighttype = t.oid AND p.amprocnum = 1
  JOIN dpm_internal.vetted_calls() v ON v.fn = p.amproc
  LEFT JOIN vc_collations c ON c.rule = v.rule AND t.typcollation <> 0
 WHERE t.typtype = 'b';

-- every entry returned a value for every combination: no failure, nothing untested
SELECT count(DISTINCT fn) AS entries_run, count(*) AS runs FROM vc_results WHERE outcome = 'ok';
SELECT fn, rule, coll, outcome FROM vc_results WHERE outcome NOT IN ('ok', 'below') ORDER BY 1, 3;
SELECT v.fn, v.rule FROM dpm_internal.vetted_calls() v
 WHERE v.rule <> 'refused' AND NOT EXISTS (SELECT 1 FROM vc_results r WHERE r.fn = v.fn AND r.outcome = 'ok');
-- each type whose comparison is on the list was tried as width_bucket's thresholds
SELECT string_agg(DISTINCT split_part(coll, ' ', 1), ', ' ORDER BY split_part(coll, ' ', 1)) AS threshold_types
  FROM vc_results WHERE rule = 'width_bucket' AND outcome = 'ok';
-- what the list leaves out of PostgreSQL's LEAKPROOF functions, and why (doc/guide/domains.md,
-- "What a condition may contain"): hashes (md5 fails in FIPS mode), system and geometric types,
-- random values.  Not shown: those PostgreSQL 16 to 18 added (int to bytea casts, bytea_larger and
-- bytea_smaller, crc32 and crc32c, uuid_extract_timestamp and uuid_extract_version), refused there
-- as they do not exist on 15, and gen_random_uuid, LEAKPROOF on 15 only
SELECT p.oid::regprocedure AS leakproof_not_vetted
  FROM pg_proc p WHERE p.proleakproof AND p.oid NOT IN (SELECT fn FROM dpm_internal.vetted_calls() WHERE rule <> 'refused')
   AND p.proname NOT IN ('bytea', 'bytea_larger', 'bytea_smaller', 'crc32', 'crc32c', 'uuid_extract_timestamp',
                         'uuid_extract_version', 'gen_random_uuid')
 ORDER BY p.oid;
-- and what it refuses with a reason of its own actually fails on some value
SELECT v.fn, left(vc_run(v.fn, NULL), 60) AS outcome FROM dpm_internal.vetted_calls() v WHERE v.rule = 'refused' ORDER BY 1;

-- The expressions the vetting accepts and refuses, on a source (nothing is released).  Each refusal
-- below was accepted before: the query after it shows PostgreSQL failing on one row of it.
CREATE ROLE regress_vc_custodian IN ROLE dpm_admin;
CREATE TABLE vc_t (id int, a int[], b int[], x int, y int, big bigint, t text, t_c text COLLATE "C",
                   t_ci text COLLATE vc_ci, p point);
INSERT INTO vc_t SELECT i, ARRAY[i], ARRAY[i + 1], i, i, i, 'v' || i, 'v' || i, 'v' || i, point(i, i)
  FROM generate_series(1, 100) i;
GRANT SELECT ON vc_t TO regress_vc_custodian;
SET ROLE regress_vc_custodian;
SELECT dpm.register_source('vc_t', epsilon => 1) IS NOT NULL AS registered;
CREATE FUNCTION pg_temp.vc_domain(condition text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM dpm.create_domain('vc_d', 'vc_t', jsonb_build_array(jsonb_build_object('name', 'c', 'column', 'id', 'bins',
            jsonb_build_array(jsonb_build_object('label', 'x', 'condition', condition),
                              jsonb_build_object('label', 'rest', 'condition', 'true')))));
  PERFORM dpm.drop_domain('vc_d');
  RETURN 'accepted';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLERRM;
END
$$;
-- the review's reproducer: ARRAY[a, b] over array columns fails on a row whose arrays differ in size
SELECT pg_temp.vc_domain('ARRAY[a, b] IS NULL');
RESET ROLE;
INSERT INTO vc_t VALUES (1000, '{1}', '{1,2}', 0, 0, 0, '', '', '');
SELECT count(*) FROM vc_t WHERE ARRAY[a, b] IS NULL;
DELETE FROM vc_t WHERE id = 1000;
SET ROLE regress_vc_custodian;
-- ARRAY[...] and ROW(...) of fixed-length values are built alike on every row: accepted
SELECT pg_temp.vc_domain('x = ANY (ARRAY[y, 3])');
SELECT pg_temp.vc_domain('coalesce(ROW(x, y), ROW(1, 2)) IS NULL');
-- of text they can pass 1 GB on one row; a whole row detoasts every column; an array cast doubles
-- an int[] into a bigint[]; jsonb and other subscripts are not an array's
SELECT pg_temp.vc_domain('coalesce(ROW(t, t), ROW(''a'', ''b'')) IS NULL');
SELECT pg_temp.vc_domain('ARRAY[t, t_c] IS NULL');
SELECT pg_temp.vc_domain('vc_t IS NULL');
SELECT pg_temp.vc_domain('a::bigint[] IS NULL');
SELECT pg_temp.vc_domain('a[1] > 3 AND p[0] > 2');
SELECT pg_temp.vc_domain('(''{"k": 1}''::jsonb || jsonb_build_object(''k'', x))[''k''] IS NULL');
-- conversions: widening accepted, narrowing and numeric to float refused with their reasons
SELECT pg_temp.vc_domain('x::bigint > big AND x::float8 > 2.5 AND big::numeric < 10 AND big::float4 < 3');
SELECT pg_temp.vc_domain('big::int > 3');
SELECT pg_temp.vc_domain('x::numeric::float8 > 3');
-- LIKE: at most 100 % wildcards (each one passed is a recursive call of the matcher)
SELECT pg_temp.vc_domain('t LIKE ''' || repeat('%v', 100) || '''');
SELECT pg_temp.vc_domain('t LIKE ''' || repeat('%v', 101) || '''');

-- Nondeterministic collations.  Comparisons under them cannot fail (= and < call ICU's
-- comparison, as GREATEST and CASE do): accepted.  starts_with raises under them (and LIKE did up
-- to PostgreSQL 17), on the first row only, so whether a release failed would tell whether any row
-- exists: refused on every version, with COLLATE "C" as the way out.  An IN list is hashed
-- through ICU sort keys, whose size follows the value's: refused, OR of equalities instead.
SELECT pg_temp.vc_domain('t_ci = ''V1'' AND t_ci < ''w'' AND greatest(t_ci, ''m'') = ''V2''');
SELECT pg_temp.vc_domain('CASE t_ci WHEN ''V1'' THEN true WHEN ''V2'' THEN false END');
SELECT pg_temp.vc_domain('t_ci LIKE ''v1%''');
SELECT pg_temp.vc_domain('t_ci COLLATE "C" LIKE ''v1%''');
SELECT pg_temp.vc_domain('starts_with(t_ci, ''v'')');
SELECT pg_temp.vc_domain('t_ci IN (''v1'', ''v2'')');
SELECT pg_temp.vc_domain('t_ci = ''v1'' OR t_ci = ''v2''');
-- two columns of different collations compared have no collation: PostgreSQL fails on a row
SELECT pg_temp.vc_domain('t_c = t_ci');
SELECT pg_temp.vc_domain('t_c = t_ci COLLATE "C"');
RESET ROLE;
SELECT count(*) FROM vc_t WHERE starts_with(t_ci, 'v1');
SELECT count(*) FROM vc_t WHERE t_c = t_ci;
SELECT count(*) FROM vc_t WHERE id < 0 AND starts_with(t_ci, 'v1');
SELECT count(*) AS domains_left FROM dpm.domains WHERE name = 'vc_d' AND dropped_at IS NULL;

DROP FUNCTION pg_temp.vc_domain;
DELETE FROM dpm.domains WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation = 'vc_t'::regclass);
DELETE FROM dpm.sources WHERE relation = 'vc_t'::regclass;
DROP TABLE vc_t, vc_extremes, vc_divisors, vc_patterns, vc_fields, vc_collations, vc_results;
DROP FUNCTION vc_run, vc_buckets;
DROP COLLATION vc_ci, vc_icu, vc_libc;
DROP ROLE regress_vc_custodian;
