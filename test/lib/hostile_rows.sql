-- hostile_rows.sql -- the generator behind test/hostile_rows.sh and bench/hostile_rows.sh (issue 41,
-- item 2): tables of every column type PostgreSQL ships, hostile rows, every condition, expression,
-- measure and key form, and releases before and after the hostile rows arrive.  A release that ends
-- 'failed' is a hole: a release's outcome must never depend on the rows.
--
-- Driven by the catalog and a seed (psql variables seed, huge, forms, variants): the column types
-- are pg_catalog's base types, ranges and multiranges, their arrays, and an enum, a composite, a
-- float8 range, domains and nondeterministic collations made here; their values are the literals of
-- one pool (fz.pool) that each type's input accepts, so a new type gets its hostile values without
-- being listed; the forms are built from pg_operator, pg_cast and pg_proc for each type, plus the
-- node types a condition may hold (CASE, COALESCE, arrays, extract, LIKE...).  A form refused when
-- created is a refusal; only a charged release that fails is a failure.
--
-- Stages (each a top-level statement, so that the release workers see what it made):
--   fz.setup(seed, huge)   types, values, one table per 8 types with ordinary rows, roles, sources
--   fz.make_forms(seed, per_kind)   the forms, each tried alone in a domain (or as a measure)
--   fz.make_combined()     domains of the accepted forms together (dense in chunks, and wide)
--   fz.release_round(phase)   every release; between rounds fz.add_hostile() inserts hostile rows
--   fz.attribute()         a failed combined release is replayed form by form, and a failed form's
--                          rows are probed one by one for the value that raises
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS fz CASCADE;
CREATE SCHEMA fz;
GRANT USAGE ON SCHEMA fz TO PUBLIC;

-- column types: ct is the number in the column names a<ct>, b<ct>
CREATE TABLE fz.coltypes (
  ct       serial PRIMARY KEY,
  coltype  text NOT NULL,      -- as in CREATE TABLE, with its COLLATE
  typ      text NOT NULL,      -- as in a cast
  base     regtype NOT NULL,   -- the scalar type whose operators apply (a domain's base)
  elem     int,                -- an array's element column type
  category "char" NOT NULL,
  kind     text NOT NULL,      -- base, array, range, multirange, enum, composite, domain, collated
  tbl      int
);
CREATE TABLE fz.vals (ct int, lit text, mild bool, n int);
CREATE TABLE fz.sources (sid serial PRIMARY KEY, tbl int, variant text, rel text, model text, periods bool DEFAULT false);
-- a form: a domain attribute (jsonb, its name filled in per domain), a measure, or a key column
CREATE TABLE fz.forms (id serial PRIMARY KEY, ct int, tbl int, kind text, attr jsonb, bins int, body text, lo float8, hi float8, nulls text);
-- forms accepted on a source (a domain or a measure made of them alone)
CREATE TABLE fz.accepted (sid int, form int, domain text, measure text, PRIMARY KEY (sid, form));
CREATE TABLE fz.combined (domain text PRIMARY KEY, sid int, wide bool, forms int[]);
CREATE TABLE fz.log (id serial PRIMARY KEY, phase text, sid int, form int, what text, call text, outcome text,
                     sqlstate text, err text, release_id bigint, epsilon float8, delta float8, rho float8);
CREATE TABLE fz.culprits (release_id bigint, sid int, form int, row_id int, detail text, err text);
GRANT ALL ON ALL TABLES IN SCHEMA fz TO PUBLIC;
GRANT ALL ON ALL SEQUENCES IN SCHEMA fz TO PUBLIC;

-- one call as a role, its outcome logged: ok, refused (an error before any charge) or failed (a
-- release charged and not computed).  A release's id is the newest one after the call.
CREATE FUNCTION fz.try(p_role text, p_phase text, p_sid int, p_form int, p_what text, p_sql text,
                       p_eps float8 DEFAULT NULL, p_delta float8 DEFAULT 0, p_rho float8 DEFAULT NULL)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  st text; msg text; outcome text := 'ok'; before bigint; rid bigint;
BEGIN
  SELECT coalesce(max(id), 0) INTO before FROM dpm.releases;
  BEGIN
    EXECUTE format('SET LOCAL ROLE %I', p_role);
    EXECUTE p_sql;
    EXECUTE 'RESET ROLE';
  EXCEPTION WHEN others THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
    outcome := CASE WHEN msg ~ 'charged but could not be computed|stopped before it finished' THEN 'failed' ELSE 'refused' END;
  END;
  SELECT max(id) INTO rid FROM dpm.releases WHERE id > before;
  INSERT INTO fz.log (phase, sid, form, what, call, outcome, sqlstate, err, release_id, epsilon, delta, rho)
  VALUES (p_phase, p_sid, p_form, p_what, left(p_sql, 2000), outcome, st, left(msg, 500), rid, p_eps, p_delta, p_rho);
  RETURN outcome;
END $$;

-- the literals every type's input is offered: numbers at the edges of every numeric type, NaN,
-- infinities, denormals, numerics past float8, dates and times at their ends, geometry with NaN,
-- network and text edge cases; mild ones make the ordinary rows
CREATE FUNCTION fz.pool(huge int) RETURNS TABLE(lit text, mild bool) LANGUAGE sql AS $$
  SELECT x, true FROM unnest(ARRAY['0', '1', '2', '3', '7', '42', 'a', 'b', 'abc', 'true', 'false', '2020-01-05',
    '2020-01-06 10:00:00', '2020-02-01 00:00:00+00', '10:00', '12:30:00+02', '1 day', '2 hours', '(1,2)', '(1,2),(3,4)',
    '((1,2),(3,4))', '<(1,2),3>', '{1,2,3}', '[(0,0),(1,1)]', '((0,0),(1,0),(0,1))', '192.168.0.1', '10.0.0.0/8',
    '08:00:2b:01:02:03', '08:00:2b:01:02:03:04:05', '{"k": 1}', '[1, 2]', '"v"', '$.k', '<a>x</a>',
    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '101', '\x0102', '0/16B3748', '(0,1)', 'fat & rat', 'fat:1 rat:2',
    '[1,5)', '[2020-01-01,2020-02-01)', '{[1,3),[5,7)}', '{[2020-01-01,2020-02-01)}', '1:1:', '10:20:10,14,15', '1 2 3', '=r/postgres',
    'pg_class', 'int4', 'abs(integer)', '+(integer,integer)', 'english', 'simple', 'postgres', 'pg_catalog', '"C"',
    '12.5', '-3.25', '$1.50']) x
  UNION ALL
  SELECT x, false FROM unnest(ARRAY['', ' ', '-0', '-1', 'NaN', 'nan', 'Infinity', '-Infinity', 'infinity', '-infinity', 'inf',
    '4.9e-324', '2.2250738585072014e-308', '1.7976931348623157e308', '-1.7976931348623157e308', '1e308', '1.4e-45',
    '3.4028235e38', '1e-400', '-1e-400', '1e400', '9.99e+400', '-9.99e+400', '1e-16383', '1e131071', '0.' || repeat('0', 1000) || '1',
    '1' || repeat('0', 1000), '123456789012345678901234567890.123456789012345678901234567890', '32767', '-32768', '2147483647', '-2147483648',
    '4294967295', '9223372036854775807', '-9223372036854775808', '18446744073709551615', '-92233720368547758.08',
    '92233720368547758.07', '4713-01-01 BC', '4714-11-24 00:00:00+00 BC', '5874897-12-31', '294276-12-31 23:59:59.999999',
    '294276-12-31 23:59:59.999999+00', '0001-01-01', '1999-12-31 23:59:60', 'epoch', 'allballs', '24:00:00',
    '24:00:00-15:59', '00:00:00+15:59', '23:59:59.999999', '178000000 years', '-178000000 years', '2147483647 days',
    '-2147483648 months', '@ 1 microsecond ago', 'P1Y2M3DT4H5M6S', '(NaN,NaN)', '(Infinity,-Infinity)', '(1e308,1e308)',
    '(1e308,-1e308),(-1e308,1e308)', '((0,0),(NaN,1))', '<(0,0),Infinity>', '<(NaN,0),1>', '<(0,0),0>', '{1,NaN,0}',
    '{0,1,0}', '{1,-1,1e308}', '[(0,0),(0,0)]', '((0,0))', '((1e308,1e308),(-1e308,-1e308),(NaN,0))', '[(Infinity,0),(0,Infinity)]',
    '0.0.0.0/0', '::/0', '255.255.255.255', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128', '::ffff:1.2.3.4', '00:00:00:00:00:00',
    'ff:ff:ff:ff:ff:ff', 'ff:ff:ff:ff:ff:ff:ff:ff', 'null', '{}', '[]', '{"a": 1, "a": 2}', '"\u0000"', '"\ud83d\ude00"',
    '{"k": 1e400}', '[1e-400]', repeat('[', 500) || repeat(']', 500), 'strict $.a ? (@ > 1)', '$ / 0', '$.a[*] like_regex "("',
    '<!DOCTYPE a><a/>', 'x', '<a>' || repeat('<b>', 50) || repeat('</b>', 50) || '</a>',
    '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', repeat('1', 1000), '\x', '\x00', '\xff',
    '0/0', 'FFFFFFFF/FFFFFFFF', '(0,0)', '(4294967295,65535)', '!a', 'a & !b | c <-> d', 'a:1A b:16383D', '-', '4294967295:4294967295:',
    'empty', '(,)', '[-infinity,infinity]', '[1,1]', '(1,2)', '[NaN,NaN]', '[-Infinity,NaN]', '[-2147483648,2147483647)',
    '[-9223372036854775808,9223372036854775807)', '[4713-01-01 BC,5874897-12-31]', '{}', '{empty}', '{(,)}', '{[1,2),[3,4)}',
    '{[-infinity,infinity]}', 'A', 'Z', 'ß', 'SS', 'ss', 'é', 'é', 'İ', 'ǅ', 'ﬃ', '%', '_', '\', E'\t', E'a\nb',
    'SMITH', 'smith', 'Smith', repeat('é', 300), repeat('x', 63), repeat('y', 70), '0000000000', '-0.0', '+0', '00', '1e0',
    '.5', '5.', '0x10', '1_000']) x
  UNION ALL
  -- very long values (the test's size: text, json, bytea, bits, arrays below)
  SELECT x, false FROM unnest(ARRAY[repeat('x', huge), '"' || repeat('w', huge) || '"', '\x' || repeat('ab', huge / 2),
    repeat('10', huge / 2), repeat('k ', huge / 4)]) x WHERE huge > 0
$$;

-- the column types of pg_catalog (base types but arrays, ranges, multiranges), their arrays, and
-- ours: an enum, a composite, a range over float8, domains (with a CHECK), text under a
-- nondeterministic ICU collation and under a deterministic one
CREATE FUNCTION fz.make_types(domains_share float8) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  n int;
BEGIN
  CREATE TYPE fz.e AS ENUM ('a', 'B', 'é', 'zz', 'ß');
  CREATE TYPE fz.c AS (f float8, n numeric, t text, a int4[], p point, d date);
  CREATE TYPE fz.floatrange AS RANGE (subtype = float8);
  CREATE COLLATION fz.ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
  CREATE COLLATION fz.ai (provider = icu, locale = 'und-u-ks-level1-kc-true', deterministic = false);
  INSERT INTO fz.coltypes (coltype, typ, base, category, kind)
  SELECT format_type(t.oid, NULL), format_type(t.oid, NULL), t.oid, t.typcategory,
         CASE t.typtype WHEN 'r' THEN 'range' WHEN 'm' THEN 'multirange' ELSE 'base' END
    FROM pg_type t
   WHERE t.typnamespace = 'pg_catalog'::regnamespace AND t.typtype IN ('b', 'r', 'm') AND t.typisdefined
     AND t.typname NOT LIKE '\_%'
   ORDER BY t.typname;
  INSERT INTO fz.coltypes (coltype, typ, base, category, kind)
  VALUES ('fz.e', 'fz.e', 'fz.e'::regtype, 'E', 'enum'), ('fz.c', 'fz.c', 'fz.c'::regtype, 'C', 'composite'),
         ('fz.floatrange', 'fz.floatrange', 'fz.floatrange'::regtype, 'R', 'range'),
         ('text COLLATE fz.ci', 'text', 'text', 'S', 'collated'), ('character varying COLLATE fz.ci', 'character varying', 'varchar', 'S', 'collated'),
         ('bpchar COLLATE fz.ci', 'bpchar', 'bpchar', 'S', 'collated'), ('text COLLATE fz.ai', 'text', 'text', 'S', 'collated'),
         ('text COLLATE "und-x-icu"', 'text', 'text', 'S', 'collated'), ('text COLLATE "C"', 'text', 'text', 'S', 'collated');
  -- domains over a share of the scalar types (all of them in the long run), and one over
  -- collated text
  FOR n IN SELECT ct FROM fz.coltypes WHERE kind IN ('base', 'range', 'multirange', 'enum')
             AND (random() < domains_share OR base IN ('numeric'::regtype, 'float8'::regtype, 'text'::regtype, 'date'::regtype, 'int4'::regtype))
           ORDER BY ct LOOP
    EXECUTE format('CREATE DOMAIN fz.d%s AS %s CHECK (VALUE IS NULL OR VALUE IS NOT NULL)', n, (SELECT typ FROM fz.coltypes WHERE ct = n));
    INSERT INTO fz.coltypes (coltype, typ, base, category, kind)
    SELECT 'fz.d' || n, 'fz.d' || n, base, category, 'domain' FROM fz.coltypes WHERE ct = n;
  END LOOP;
  CREATE DOMAIN fz.dci AS text COLLATE fz.ci CHECK (length(VALUE) < 100000000);
  INSERT INTO fz.coltypes (coltype, typ, base, category, kind) VALUES ('fz.dci', 'fz.dci', 'text', 'S', 'domain');
  -- arrays of every scalar type, and of text under the collation
  INSERT INTO fz.coltypes (coltype, typ, base, elem, category, kind)
  SELECT format_type(t.typarray, NULL) || CASE WHEN c.kind = 'collated' THEN substring(c.coltype FROM ' COLLATE .*') ELSE '' END,
         format_type(t.typarray, NULL), t.typarray, c.ct, 'A', 'array'
    FROM fz.coltypes c JOIN pg_type t ON t.oid = c.base::oid
   WHERE t.typarray <> 0 AND c.kind IN ('base', 'range', 'multirange', 'enum', 'composite') OR (c.kind = 'collated' AND c.coltype LIKE 'text COLLATE fz.ci')
   ORDER BY c.ct;
  SELECT count(*) INTO n FROM fz.coltypes;
  RETURN n;
END $$;

-- the values of each column type: the pool's literals its input accepts (as it prints them); an
-- array's from its element's values (empty, NULL elements, two dimensions, odd lower bounds, six
-- dimensions, long); a composite's from its fields'
CREATE FUNCTION fz.make_vals(huge int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  c fz.coltypes; p record; v text; e text[]; lits text[];
BEGIN
  FOR c IN SELECT * FROM fz.coltypes WHERE kind NOT IN ('array', 'composite') ORDER BY ct LOOP
    FOR p IN SELECT * FROM fz.pool(huge) LOOP
      BEGIN
        EXECUTE format('SELECT CAST(%L AS %s)::text', p.lit, c.typ) INTO v;
        INSERT INTO fz.vals VALUES (c.ct, v, p.mild);
      EXCEPTION WHEN others THEN NULL;
      END;
    END LOOP;
  END LOOP;
  FOR c IN SELECT * FROM fz.coltypes WHERE kind = 'composite' LOOP
    FOR i IN 1..10 LOOP
      lits := ARRAY(SELECT coalesce('"' || replace(replace(x.lit, '\', '\\'), '"', '\"') || '"', '')
                      FROM unnest(ARRAY['float8', 'numeric', 'text', 'int4[]', 'point', 'date']::regtype[]) WITH ORDINALITY f(t, o)
                      LEFT JOIN LATERAL (SELECT vv.lit FROM fz.vals vv JOIN fz.coltypes cc ON cc.ct = vv.ct
                                          WHERE cc.base = f.t AND cc.kind = 'base' AND length(vv.lit) < 1000 AND (i > 1 OR vv.mild)
                                          ORDER BY random() + 0 * o LIMIT 1) x ON true ORDER BY f.o);
      v := '(' || array_to_string(lits, ',', '') || ')';
      BEGIN
        EXECUTE format('SELECT CAST(%L AS fz.c)::text', v) INTO v;
        INSERT INTO fz.vals VALUES (c.ct, v, i = 1);
      EXCEPTION WHEN others THEN NULL;
      END;
    END LOOP;
  END LOOP;
  FOR c IN SELECT * FROM fz.coltypes WHERE kind = 'array' ORDER BY ct LOOP
    e := ARRAY(SELECT '"' || replace(replace(lit, '\', '\\'), '"', '\"') || '"' FROM fz.vals
                WHERE ct = c.elem AND length(lit) < 1000 ORDER BY mild DESC, random() LIMIT 3);
    CONTINUE WHEN cardinality(e) = 0;
    e := e || e || e;
    FOREACH v IN ARRAY ARRAY['{}', '{NULL}', format('{%s}', e[1]), format('{%s,%s,NULL}', e[2], e[3]), format('{{%s},{%s}}', e[1], e[2]),
                             format('{{%s,%s},{%s,NULL}}', e[1], e[2], e[3]), format('[2147483647:2147483647]={%s}', e[1]),
                             format('[-2147483648:-2147483647]={%s,%s}', e[1], e[2]), format('{{{{{{%s}}}}}}', e[3]),
                             format('[0:1][5:5]={{%s},{NULL}}', e[2]),
                             '{' || array_to_string(array_fill(e[1], ARRAY[greatest(huge / 200, 10)]), ',') || '}'] LOOP
      BEGIN
        EXECUTE format('SELECT CAST(%L AS %s)::text', v, c.typ) INTO v;
        INSERT INTO fz.vals VALUES (c.ct, v, v !~ '^\[|\{\{|^\{\}$|NULL' AND length(v) < 1000);
      EXCEPTION WHEN others THEN NULL;
      END;
    END LOOP;
  END LOOP;
  -- numbered per type: the hostile rows take them in turn
  UPDATE fz.vals v SET n = x.n FROM (SELECT ctid, row_number() OVER (PARTITION BY ct ORDER BY mild DESC, random()) - 1 AS n FROM fz.vals) x
   WHERE x.ctid = v.ctid;
  RETURN (SELECT count(*) FROM fz.vals);
END $$;

-- a literal of a column type, as SQL: hostile mostly, never one of the very long ones (from a
-- per-type list made once)
CREATE TABLE fz.lits (ct int PRIMARY KEY, l text[]);
CREATE FUNCTION fz.lit(p_ct int) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  ls text[];
BEGIN
  IF p_ct IS NULL THEN
    RETURN 'NULL';
  END IF;
  SELECT l INTO ls FROM fz.lits WHERE ct = p_ct;
  IF NOT FOUND THEN
    ls := ARRAY(SELECT format('%L::%s', v.lit, c.typ) FROM fz.vals v, fz.coltypes c WHERE v.ct = p_ct AND c.ct = p_ct AND length(v.lit) < 2000 ORDER BY v.n);
    INSERT INTO fz.lits VALUES (p_ct, ls);
  END IF;
  RETURN coalesce(ls[1 + floor(random() * cardinality(ls))::int], 'NULL');
END $$;

-- a CASE choosing a column type's value number (pos mod their count), each written as a literal:
-- a cast from text would not read every type as its input does (text to regclass looks a name up)
CREATE FUNCTION fz.pick(p_ct int, pos text, mild_only bool) RETURNS text LANGUAGE sql AS $$
  SELECT CASE WHEN count(*) = 0 THEN 'NULL::' || (SELECT typ FROM fz.coltypes WHERE ct = p_ct) ELSE format('CASE (%s) %% %s %s END', pos, count(*),
                         string_agg(format('WHEN %s THEN %L::%s', k, lit, typ), ' ' ORDER BY k)) END
    FROM (SELECT v.lit, c.typ, row_number() OVER (ORDER BY v.n) - 1 AS k FROM fz.vals v JOIN fz.coltypes c USING (ct)
           WHERE v.ct = p_ct AND (v.mild OR NOT mild_only)) x
$$;

-- the sources: per table of 8 column types (columns id, u, day, a<ct>, b<ct>), registered as
-- itself (with a row-level security policy), and through views: a privacy unit u with
-- max_contributions 3, a zCDP source, a view with a WHERE over hostile columns, a privacy unit of a
-- hostile column's type, and periods cut by a date column
CREATE FUNCTION fz.setup(huge int, domains_share float8, variants text[], all_variants bool) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  t int; cols text; c fz.coltypes; v text; rel text; pick int; pcol text; s int;
BEGIN
  PERFORM fz.make_types(domains_share);
  PERFORM fz.make_vals(huge);
  UPDATE fz.coltypes x SET tbl = (y.r - 1) / 8 + 1 FROM (SELECT ct, row_number() OVER (ORDER BY ct) r FROM fz.coltypes) y WHERE y.ct = x.ct;
  FOR t IN SELECT DISTINCT tbl FROM fz.coltypes ORDER BY 1 LOOP
    SELECT string_agg(format('a%1$s %2$s, b%1$s %2$s', ct, coltype), ', ' ORDER BY ct) INTO cols FROM fz.coltypes WHERE tbl = t;
    EXECUTE format('CREATE TABLE fz.t%s (id int, u int, day date, %s)', t, cols);
    EXECUTE format('INSERT INTO fz.t%s (id, u, day) SELECT g, g %% 20, date ''2020-01-01'' + g %% 30 FROM generate_series(1, 60) g', t);
    FOR c IN SELECT * FROM fz.coltypes WHERE tbl = t LOOP
      EXECUTE format('UPDATE fz.t%s SET a%s = CASE WHEN id %% 11 <> 0 THEN %s END, b%2$s = %s', t, c.ct,
                     fz.pick(c.ct, 'id', true), fz.pick(c.ct, 'id * 7', true));
    END LOOP;
    EXECUTE format('GRANT SELECT ON fz.t%s TO fz_custodian', t);
    pick := (SELECT ct FROM fz.coltypes WHERE tbl = t ORDER BY random() LIMIT 1);
    FOREACH v IN ARRAY CASE WHEN all_variants THEN variants
                            ELSE ARRAY['tbl', variants[1 + floor(random() * cardinality(variants))::int]] END LOOP
      CONTINUE WHEN v = 'tbl' AND EXISTS (SELECT FROM fz.sources WHERE tbl = t AND variant = 'tbl');
      rel := CASE v WHEN 'tbl' THEN format('fz.t%s', t) ELSE format('fz.t%s_%s', t, v) END;
      IF v = 'tbl' THEN
        EXECUTE format('ALTER TABLE fz.t%s ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('CREATE POLICY fz_p ON fz.t%1$s FOR SELECT TO fz_custodian USING (u IS NULL OR u >= -1 OR coalesce(a%2$s, b%2$s) IS NULL)', t, pick);
      ELSIF v = 'cond' THEN
        EXECUTE format('CREATE VIEW %s AS SELECT * FROM fz.t%s WHERE coalesce(a%3$s, b%3$s) IS NOT NULL OR u >= 0 OR a%3$s IS NULL', rel, t, pick);
      ELSE
        EXECUTE format('CREATE VIEW %s AS SELECT * FROM fz.t%s', rel, t);
      END IF;
      EXECUTE format('GRANT SELECT ON %s TO fz_custodian', rel);
      INSERT INTO fz.sources (tbl, variant, rel, model) VALUES (t, v, rel, CASE v WHEN 'zcdp' THEN 'zcdp' ELSE 'approx' END) RETURNING sid INTO s;
      PERFORM fz.try('fz_custodian', 'setup', s, NULL, 'register', CASE v
        WHEN 'tbl' THEN format('SELECT dpm.register_source(%L, epsilon => 1e9, delta => 0.5)', rel)
        WHEN 'cond' THEN format('SELECT dpm.register_source(%L, epsilon => 1e9, delta => 0.5)', rel)
        WHEN 'unit' THEN format('SELECT dpm.register_source(%L, %L, 3, epsilon => 1e9, delta => 0.5)', rel, 'u')
        WHEN 'zcdp' THEN format('SELECT dpm.register_source(%L, %L, 2, rho => 1e9, delta => 0.5)', rel, 'u')
        WHEN 'unit_a' THEN format('SELECT dpm.register_source(%L, %L, 2, epsilon => 1e9, delta => 0.5)', rel, 'a' || pick)
        WHEN 'period' THEN format('SELECT dpm.register_source(%L, %L, 2, epsilon => 1e9, delta => 0.5)', rel, 'u') END);
      IF v = 'period' THEN
        pcol := (SELECT x FROM (SELECT 'day' x UNION ALL SELECT 'a' || ct FROM fz.coltypes
                                 WHERE tbl = t AND base IN ('date'::regtype, 'timestamp'::regtype, 'timestamptz'::regtype) AND kind <> 'array') y
                  ORDER BY random() LIMIT 1);
        IF fz.try('fz_custodian', 'setup', s, NULL, 'periods', format('SELECT dpm.set_periods(%L, %L, %L, ''2020-01-01'', 2)', rel, pcol,
                  (ARRAY['1 day', '1 month', '1 week'])[1 + floor(random() * 3)::int])) = 'ok' THEN
          UPDATE fz.sources SET periods = true WHERE sid = s;
        END IF;
      END IF;
    END LOOP;
  END LOOP;
  RETURN format('%s column types, %s values, %s tables, %s sources', (SELECT count(*) FROM fz.coltypes), (SELECT count(*) FROM fz.vals),
                (SELECT count(DISTINCT tbl) FROM fz.coltypes), (SELECT count(*) FROM fz.sources));
END $$;

-- the hostile rows, added after the forms were accepted: row j of a table holds each column's
-- value j (in turn), its twin another one, a unit now new, now shared, now NULL, a day at the
-- ends of date
CREATE FUNCTION fz.add_hostile(rounds int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  t int; n int; c fz.coltypes; total bigint := 0;
BEGIN
  FOR t IN SELECT DISTINCT tbl FROM fz.coltypes ORDER BY 1 LOOP
    SELECT max(cnt) * rounds INTO n FROM (SELECT count(*) cnt FROM fz.vals v JOIN fz.coltypes k USING (ct) WHERE k.tbl = t GROUP BY ct) x;
    EXECUTE format('INSERT INTO fz.t%s (id, u, day) SELECT 1000 + j, CASE WHEN j %% 13 = 0 THEN NULL WHEN j %% 3 = 0 THEN 5 ELSE 1000 + j END,
                      (ARRAY[NULL, ''infinity'', ''-infinity'', ''4713-01-01 BC'', ''5874897-12-31'', ''2020-01-07'', ''2020-01-31''])[1 + j %% 7]::date
                      FROM generate_series(1, %s) j', t, coalesce(n, 1));
    total := total + coalesce(n, 1);
    FOR c IN SELECT * FROM fz.coltypes WHERE tbl = t LOOP
      EXECUTE format('UPDATE fz.t%s SET a%s = %s, b%2$s = %s WHERE id > 1000', t, c.ct,
                     fz.pick(c.ct, 'id - 1001', false), fz.pick(c.ct, '(id - 1001) * 7 + 3', false));
    END LOOP;
  END LOOP;
  RETURN total;
END $$;

-- a JSON value of a literal: a number when it reads as one, else a string
CREATE FUNCTION fz.json(lit text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF lit ~ '^-?[0-9]' THEN
    RETURN lit::jsonb;
  END IF;
  RETURN to_jsonb(lit);
EXCEPTION WHEN others THEN
  RETURN to_jsonb(lit);
END $$;

-- the forms of each column type, from the catalog (its operators, casts and one-argument functions)
-- and the node types conditions may hold; per_kind of each kind, drawn by the seed
CREATE FUNCTION fz.make_forms(per_kind int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  c fz.coltypes; a text; b text; conds text[]; attrs jsonb[]; ms text[]; cond text; x jsonb; e text;
  vals jsonb; nums text[]; s record; f record;
BEGIN
  FOR c IN SELECT * FROM fz.coltypes ORDER BY ct LOOP
    a := 'a' || c.ct; b := 'b' || c.ct;
    conds := ARRAY[format('%s IS NULL', a), format('ARRAY[%s, %s] IS NULL', a, b), format('ARRAY[%s] IS NOT NULL', a),
      format('COALESCE(%s, %s) IS NULL', a, b), format('NULLIF(%s, %s) IS NULL', a, b), format('GREATEST(%s, %s) IS NULL', a, b),
      format('LEAST(%s, %s) IS NULL', a, fz.lit(c.ct)), format('CASE WHEN %1$s IS NULL THEN %2$s IS NULL ELSE %1$s = %3$s END', a, b, fz.lit(c.ct)),
      format('%s IN (%s, %s)', a, fz.lit(c.ct), fz.lit(c.ct)), format('%s NOT IN (%s, %s)', a, fz.lit(c.ct), b),
      format('%s BETWEEN %s AND %s', a, fz.lit(c.ct), fz.lit(c.ct)), format('%s IS DISTINCT FROM %s', a, b),
      format('%s = %s', a, fz.lit(c.ct)), format('%s::text = ''x''', a), format('ROW(%s, %s) IS NULL', a, b),
      format('(%1$s, %2$s) = (%2$s, %1$s)', a, b), format('%s IS NOT DISTINCT FROM %s', a, fz.lit(c.ct))];
    -- operators: against a literal of the right operand's type and against the twin column
    FOR s IN SELECT o.oprname, o.oprleft, o.oprright, o.oprresult,
                    (SELECT min(ct) FROM fz.coltypes r WHERE r.base = o.oprright AND r.kind IN ('base', 'array', 'range', 'multirange', 'enum', 'composite')) AS rct
               FROM pg_operator o WHERE o.oprleft = c.base OR (o.oprleft = 0 AND o.oprright = c.base) LOOP
      IF s.oprleft = 0 THEN
        conds := conds || format('(%s %s) IS NULL', s.oprname, a);
        CONTINUE;
      END IF;
      e := CASE WHEN s.oprright = c.base THEN b ELSE fz.lit(s.rct) END;
      conds := conds || CASE WHEN s.oprresult = 'bool'::regtype THEN format('%s %s %s', a, s.oprname, e)
                             ELSE format('(%s %s %s) IS NULL', a, s.oprname, e) END;
      IF s.oprright = c.base THEN
        conds := conds || CASE WHEN s.oprresult = 'bool'::regtype THEN format('%s %s %s', a, s.oprname, fz.lit(c.ct))
                               ELSE format('(%s %s %s) IS NULL', a, s.oprname, fz.lit(c.ct)) END;
      END IF;
    END LOOP;
    conds := conds || ARRAY(SELECT format('(%s::%s) IS NULL', a, format_type(k.casttarget, NULL)) FROM pg_cast k WHERE k.castsource = c.base);
    conds := conds || ARRAY(SELECT format('(pg_catalog.%I(%s)) IS NULL', p.proname, a) FROM pg_proc p JOIN pg_type r ON r.oid = p.prorettype
                             WHERE p.pronargs = 1 AND p.proargtypes[0] = c.base AND p.prokind = 'f' AND NOT p.proretset AND r.typtype <> 'p');
    IF c.kind = 'array' THEN
      conds := conds || ARRAY[format('%s[1] IS NULL', a), format('%s[1] = %s', a, fz.lit(c.elem)), format('%s[1:2] IS NULL', a),
                              format('%s[1][1] IS NULL', a), format('%s = ANY (%s)', fz.lit(c.elem), a), format('%s[0] IS NULL', a),
                              format('%s[2147483647] IS NULL', a), format('%s[%s[1]] IS NULL', a, b)];
    END IF;
    IF c.kind = 'composite' THEN
      conds := conds || ARRAY[format('(%s).f = ''NaN''::float8', a), format('(%s).n > 1', a), format('(%s).t LIKE ''x%%''', a),
                              format('(%s).a[1] IS NULL', a), format('(%s).p IS NULL', a), format('(%s).d < ''infinity''::date', a),
                              format('(%s).n::float8 > 0', a), format('((%s).f, (%s).n) IS NULL', a, b)];
    END IF;
    IF c.category = 'S' THEN
      conds := conds || ARRAY[format('%s LIKE ''a%%''', a), format('%s NOT LIKE ''%%é_''', a), format('%s ILIKE ''A%%''', a),
                              format('%s LIKE ''a\''', a), format('%s SIMILAR TO ''a%%''', a), format('%s ~ ''^a''', a), format('%s LIKE %s', a, b),
                              format('%s = ''SMITH''', a), format('%s IN (''ß'', ''ss'', '''')', a), format('%s < ''é''', a)];
    END IF;
    IF c.base IN ('int2'::regtype, 'int4'::regtype, 'int8'::regtype, 'numeric'::regtype) THEN
      conds := conds || ARRAY[format('%s %% 7 = 0', a), format('%s / 3 = 1', a), format('%s %% -1 = 0', a), format('%s / -1 = 1', a),
                              format('%s + 1 > 0', a), format('%s %% 7 = %s %% 7', a, b), format('-%s > 0', a), format('%s / 2 > %s', a, b)];
    END IF;
    IF c.category IN ('D', 'T') AND c.kind <> 'array' THEN
      conds := conds || ARRAY(SELECT format('extract(%s from %s) = 1', fl, a) FROM unnest(ARRAY['year', 'month', 'day', 'quarter', 'week', 'doy', 'dow',
                                'isodow', 'isoyear', 'decade', 'century', 'millennium', 'epoch', 'julian', 'hour', 'minute', 'second',
                                'milliseconds', 'microseconds', 'timezone', 'timezone_hour']) fl)
                      || ARRAY(SELECT format('date_part(%L, %s) IS NULL', fl, a) FROM unnest(ARRAY['year', 'epoch', 'julian', 'week', 'hour', 'isoyear']) fl);
    END IF;
    IF c.base = 'bool'::regtype THEN
      conds := conds || ARRAY[a, format('NOT %s', a), format('%s IS TRUE', a), format('%s IS NOT FALSE', a), format('%s AND %s', a, b)];
    END IF;
    FOR cond IN SELECT x2 FROM unnest(conds) x2 ORDER BY random() LIMIT per_kind * 3 LOOP
      INSERT INTO fz.forms (ct, tbl, kind, attr, bins, body)
      VALUES (c.ct, c.tbl, 'condition', jsonb_build_object('column', a, 'bins', jsonb_build_array(jsonb_build_object('label', 'c', 'condition', cond),
                                                                                               jsonb_build_object('label', 'r', 'condition', 'true'))), 2, cond);
    END LOOP;

    -- value lists, width and listed bins, expressions
    vals := (SELECT jsonb_agg(DISTINCT fz.json(lit)) FROM (SELECT lit FROM fz.vals WHERE ct = c.ct AND length(lit) < 2000 ORDER BY random() LIMIT 3) v);
    nums := ARRAY(SELECT lit FROM fz.vals WHERE ct = c.ct AND lit ~ '^-?[0-9.]+(e[-+]?[0-9]+)?$' AND length(lit) < 400 ORDER BY random() LIMIT 2);
    attrs := ARRAY[]::jsonb[];
    IF vals IS NOT NULL THEN
      attrs := attrs || jsonb_build_object('column', a, 'values', vals)
                     || jsonb_build_object('expression', format('coalesce(%s, %s)', a, b), 'values', vals)
                     || jsonb_build_object('expression', format('CASE WHEN %1$s IS NULL THEN %2$s ELSE %1$s END', a, b), 'values', vals)
                     || jsonb_build_object('expression', format('greatest(%s, %s)', a, b), 'values', vals);
    END IF;
    IF c.category = 'N' AND c.kind <> 'array' THEN
      attrs := attrs || jsonb_build_object('column', a, 'bins', '{"min": 0, "max": 100, "width": 25}'::jsonb)
                     || jsonb_build_object('column', a, 'bins', '{"min": -1e300, "max": 1e300, "width": 5e299}'::jsonb)
                     || jsonb_build_object('column', a, 'bins', '{"min": -1e308, "max": 1e308, "width": 1e308}'::jsonb)
                     || jsonb_build_object('column', a, 'bins', '{"min": 0, "max": 1e-300, "width": 2.5e-301}'::jsonb)
                     || jsonb_build_object('expression', format('greatest(%s, %s)', a, b), 'bins', '{"min": -5, "max": 5, "width": 2.5}'::jsonb)
                     || jsonb_build_object('expression', format('%s %% 10', a), 'values', '[0, 1, 2]'::jsonb)
                     || jsonb_build_object('expression', format('%s / 7', a), 'bins', '{"min": -100, "max": 100, "width": 50}'::jsonb);
      IF cardinality(nums) = 2 THEN
        attrs := attrs || jsonb_build_object('column', a, 'bins', jsonb_build_array(jsonb_build_object('hi', least(nums[1]::numeric, nums[2]::numeric)),
                            jsonb_build_object('lo', least(nums[1]::numeric, nums[2]::numeric), 'hi', greatest(nums[1]::numeric, nums[2]::numeric)),
                            jsonb_build_object('lo', greatest(nums[1]::numeric, nums[2]::numeric))));
      END IF;
    END IF;
    IF c.base IN ('date'::regtype, 'timestamp'::regtype, 'timestamptz'::regtype) THEN
      attrs := attrs || jsonb_build_object('column', a, 'bins', '{"min": "2020-01-01", "max": "2021-01-01", "width": "1 month"}'::jsonb)
                     || jsonb_build_object('column', a, 'bins', '{"min": "2019-12-30", "max": "2020-03-02", "width": "1 week"}'::jsonb)
                     || jsonb_build_object('column', a, 'bins', '{"min": "2000-01-01", "max": "2040-01-01", "width": "10 years"}'::jsonb)
                     || jsonb_build_object('expression', format('extract(year from %s)', a), 'bins', '{"min": 2000, "max": 2040, "width": 10}'::jsonb)
                     || jsonb_build_object('expression', format('date_part(''epoch'', %s)', a), 'bins', '{"min": -1e300, "max": 1e300, "width": 5e299}'::jsonb)
                     || jsonb_build_object('expression', format('extract(julian from coalesce(%s, %s))', a, b), 'bins', '{"min": 0, "max": 1e7, "width": 5e6}'::jsonb);
    END IF;
    IF c.kind = 'array' THEN
      attrs := attrs || jsonb_build_object('expression', format('%s[1]', a), 'values',
                          (SELECT jsonb_agg(fz.json(lit)) FROM (SELECT lit FROM fz.vals WHERE ct = c.elem AND length(lit) < 2000 ORDER BY random() LIMIT 2) v));
    END IF;
    IF c.kind = 'composite' THEN
      attrs := attrs || jsonb_build_object('expression', format('(%s).n', a), 'bins', '{"min": 0, "max": 100, "width": 50}'::jsonb)
                     || jsonb_build_object('expression', format('(%s).f', a), 'values', '[0, 1]'::jsonb);
    END IF;
    FOR x IN SELECT y FROM unnest(attrs) y WHERE y IS NOT NULL AND y::text NOT LIKE '%null%' ORDER BY random() LIMIT per_kind LOOP
      INSERT INTO fz.forms (ct, tbl, kind, attr, bins, body)
      VALUES (c.ct, c.tbl, CASE WHEN x ? 'expression' THEN 'expression' ELSE 'bins' END, x,
              CASE WHEN x ? 'values' THEN jsonb_array_length(x -> 'values')
                   WHEN jsonb_typeof(x -> 'bins') = 'array' THEN jsonb_array_length(x -> 'bins') ELSE 64 END,
              coalesce(x ->> 'expression', a));
    END LOOP;

    -- measures: the column and expressions over it, with bounds at the edges of float8
    ms := CASE WHEN c.category = 'N' AND c.kind <> 'array' THEN
                 ARRAY[a, b, format('coalesce(%s, %s)', a, b), format('greatest(%s, %s)', a, b), format('least(%s, %s)', a, b),
                       format('CASE WHEN %1$s IS NULL THEN %2$s ELSE %1$s END', a, b), format('nullif(%s, %s)', a, b),
                       format('%s::float8', a), format('%s::numeric', a), format('%s %% 7', a), format('%s / 2', a), format('-%s', a)]
               WHEN c.kind = 'array' AND (SELECT category FROM fz.coltypes WHERE ct = c.elem) = 'N' THEN ARRAY[format('%s[1]', a), format('coalesce(%s[2], %s[1])', a, b)]
               WHEN c.kind = 'composite' THEN ARRAY[format('(%s).n', a), format('(%s).f', a), format('coalesce((%s).n, (%s).n)', a, b)]
               WHEN c.base = 'bool'::regtype OR c.category IN ('D', 'S') THEN ARRAY[a]
               ELSE ARRAY[]::text[] END;
    FOR f IN SELECT m, bd.lo, bd.hi FROM unnest(ms) m,
               (VALUES (0::float8, 1000::float8), (-1, 1), (-1e308, 1e308), (-1e300, 1e300), (0, 1e-300), (-1e15, 1e15), (0, 4.9e-324),
                       (-1.7976931348623157e308, 1.7976931348623157e308)) bd(lo, hi)
              ORDER BY random() LIMIT per_kind LOOP
      INSERT INTO fz.forms (ct, tbl, kind, body, lo, hi, nulls)
      VALUES (c.ct, c.tbl, 'measure', f.m, f.lo, f.hi, (ARRAY['zero', 'drop'])[1 + floor(random() * 2)::int]);
    END LOOP;

    -- keys: the column and its twin
    INSERT INTO fz.forms (ct, tbl, kind, body) SELECT c.ct, c.tbl, 'keys', k FROM unnest(ARRAY[a, b]) k ORDER BY random() LIMIT greatest(per_kind / 2, 1);
  END LOOP;
  RETURN (SELECT string_agg(format('%s %s', n, kind), ', ' ORDER BY kind) FROM (SELECT kind, count(*) n FROM fz.forms GROUP BY 1) x);
END $$;

-- each domain form alone in a domain over its table (accepted or refused), each measure on every
-- source of its table; and per source the domain its measures are summed over
CREATE FUNCTION fz.accept() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  f fz.forms; s fz.sources; d text;
BEGIN
  FOR f IN SELECT * FROM fz.forms WHERE kind IN ('condition', 'bins', 'expression') ORDER BY id LOOP
    SELECT * INTO s FROM fz.sources WHERE tbl = f.tbl AND variant = 'tbl';
    d := format('fz_s%s_f%s', s.sid, f.id);
    IF fz.try('fz_custodian', 'accept', s.sid, f.id, 'domain', format('SELECT dpm.create_domain(%L, %L, %L)', d, s.rel,
              jsonb_build_array(f.attr || jsonb_build_object('name', 'f' || f.id)))) = 'ok' THEN
      INSERT INTO fz.accepted VALUES (s.sid, f.id, d, NULL);
    END IF;
  END LOOP;
  FOR s IN SELECT * FROM fz.sources ORDER BY sid LOOP
    d := format('fz_s%s_k', s.sid);
    PERFORM fz.try('fz_custodian', 'accept', s.sid, NULL, 'domain', format('SELECT dpm.create_domain(%L, %L, %L)', d, s.rel,
                   '[{"name": "k", "expression": "id % 2", "values": [0, 1]}]'));
    PERFORM fz.try('fz_analyst', 'accept', s.sid, NULL, 'workload', format('SELECT dpm.create_workload(%L, %L, ''Identity(k)'')', d, d));
    FOR f IN SELECT * FROM fz.forms WHERE kind = 'measure' AND tbl = s.tbl ORDER BY id LOOP
      IF fz.try('fz_custodian', 'accept', s.sid, f.id, 'measure', format('SELECT dpm.create_measure(%L, %L, %L, %s, %s, %L)', 'm' || f.id, s.rel,
                f.body, f.lo::numeric, f.hi::numeric, f.nulls)) = 'ok' THEN
        INSERT INTO fz.accepted VALUES (s.sid, f.id, NULL, 'm' || f.id);
      END IF;
    END LOOP;
  END LOOP;
  RETURN format('%s of %s domain forms accepted, %s measures on %s sources',
                (SELECT count(*) FROM fz.accepted WHERE domain IS NOT NULL), (SELECT count(*) FROM fz.forms WHERE kind IN ('condition', 'bins', 'expression')),
                (SELECT count(*) FROM fz.accepted WHERE measure IS NOT NULL), (SELECT count(*) FROM fz.sources));
END $$;

-- the accepted forms of a table together, on each of its sources: dense domains of at most
-- max_dense cells, and one wide domain of all of them; a workload of their marginals each
CREATE FUNCTION fz.make_combined(max_dense int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  s fz.sources; r record; chunk int[] := '{}'; cells bigint := 1; j int; d text; ids int[]; maxbins int;
BEGIN
  FOR s IN SELECT * FROM fz.sources ORDER BY sid LOOP
    j := 0; chunk := '{}'; cells := 1;
    FOR r IN SELECT a.form, dm.attr_sizes[1] AS bins FROM fz.accepted a JOIN fz.sources t ON t.sid = a.sid
               JOIN dpm.domains dm ON dm.name = a.domain AND dm.dropped_at IS NULL
              WHERE t.tbl = s.tbl AND t.variant = 'tbl' AND a.domain IS NOT NULL ORDER BY a.form LOOP
      IF cells * r.bins > max_dense AND cardinality(chunk) > 0 THEN
        PERFORM fz.combine(s, format('fz_s%s_d%s', s.sid, j), chunk, NULL);
        j := j + 1; chunk := '{}'; cells := 1;
      END IF;
      chunk := chunk || r.form; cells := cells * r.bins;
    END LOOP;
    IF cardinality(chunk) > 0 THEN
      PERFORM fz.combine(s, format('fz_s%s_d%s', s.sid, j), chunk, NULL);
    END IF;
    SELECT array_agg(a.form ORDER BY a.form), max(dm.attr_sizes[1]) INTO ids, maxbins
      FROM fz.accepted a JOIN fz.sources t ON t.sid = a.sid JOIN dpm.domains dm ON dm.name = a.domain
     WHERE t.tbl = s.tbl AND t.variant = 'tbl' AND a.domain IS NOT NULL;
    IF cardinality(ids) >= 3 THEN
      PERFORM fz.combine(s, format('fz_s%s_w', s.sid), ids, maxbins);
    END IF;
  END LOOP;
  RETURN format('%s combined domains (%s wide)', (SELECT count(*) FROM fz.combined), (SELECT count(*) FROM fz.combined WHERE wide));
END $$;

CREATE FUNCTION fz.combine(s fz.sources, d text, ids int[], wide_cells int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  ok text;
BEGIN
  IF wide_cells IS NOT NULL THEN
    PERFORM set_config('dpm.max_cells', greatest(wide_cells, 2)::text, true);
  END IF;
  ok := fz.try('fz_custodian', 'accept', s.sid, NULL, 'domain', format('SELECT dpm.create_domain(%L, %L, %L)', d, s.rel,
               (SELECT jsonb_agg(f.attr || jsonb_build_object('name', 'f' || f.id) ORDER BY f.id) FROM fz.forms f WHERE f.id = ANY (ids))));
  PERFORM set_config('dpm.max_cells', '10000000', true);
  IF ok = 'ok' AND fz.try('fz_analyst', 'accept', s.sid, NULL, 'workload', format('SELECT dpm.create_workload(%L, %L, ''Marginals(1)'')', d, d)) = 'ok' THEN
    INSERT INTO fz.combined VALUES (d, s.sid, wide_cells IS NOT NULL, ids);
  END IF;
END $$;

-- one release's arguments on a source, varied by i: Laplace, Gaussian or zCDP noise, methods,
-- periods; the charge asked is logged with the call
CREATE FUNCTION fz.noise(s fz.sources, i int, OUT args text, OUT eps float8, OUT delta float8, OUT rho float8) LANGUAGE plpgsql AS $$
BEGIN
  IF s.model = 'zcdp' THEN
    IF i % 2 = 0 THEN rho := 0.5; args := 'rho => 0.5'; ELSE eps := 1; args := 'epsilon => 1'; END IF;
    delta := 0;
  ELSE
    eps := 1;
    delta := CASE WHEN i % 3 = 1 THEN 1e-6 ELSE 0 END;
    args := format('epsilon => 1, delta => %s', delta);
  END IF;
  IF s.periods AND i % 2 = 0 THEN
    args := args || ', period_from => ''2020-01-05'', period_to => ''2020-01-20''';
  END IF;
END $$;

-- every release of a round: the combined domains' marginals, each accepted measure summed and
-- averaged, keys selected on each key form's column
CREATE FUNCTION fz.release_round(phase text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  s fz.sources; c fz.combined; a fz.accepted; f fz.forms; i int := 0; n record;
BEGIN
  FOR s IN SELECT * FROM fz.sources ORDER BY sid LOOP
    FOR c IN SELECT * FROM fz.combined WHERE sid = s.sid ORDER BY domain LOOP
      i := i + 1; n := fz.noise(s, i);
      PERFORM fz.try('fz_analyst', phase, s.sid, NULL, CASE WHEN c.wide THEN 'wide' ELSE 'dense' END || ' ' || c.domain,
                     format('SELECT count(*) FROM dpm.answer(%L, %s, method => %L, reuse => ''never'')', c.domain, n.args,
                            CASE WHEN c.wide THEN NULL WHEN i % 4 = 0 THEN 'identity' WHEN i % 4 = 1 THEN 'hierarchical' END),
                     n.eps, n.delta, n.rho);
    END LOOP;
    FOR a IN SELECT * FROM fz.accepted WHERE sid = s.sid AND measure IS NOT NULL ORDER BY form LOOP
      i := i + 1; n := fz.noise(s, i);
      PERFORM fz.try('fz_analyst', phase, s.sid, a.form, 'measure ' || a.measure,
                     format('SELECT count(*) FROM dpm.answer(%L, %s, measure => %L, aggregate => %L, method => ''identity'', reuse => ''never'')',
                            format('fz_s%s_k', s.sid), n.args, a.measure, CASE WHEN i % 2 = 0 THEN 'avg' ELSE 'sum' END),
                     n.eps, n.delta, n.rho);
    END LOOP;
    FOR f IN SELECT * FROM fz.forms WHERE tbl = s.tbl AND kind = 'keys' ORDER BY id LOOP
      i := i + 1;
      PERFORM fz.try('fz_analyst', phase, s.sid, f.id, 'keys ' || f.body,
                     format('SELECT dpm.answer_keys(%L, %L, %s, delta => 0.001%s)', s.rel, f.body,
                            CASE WHEN s.model = 'zcdp' THEN 'rho => 0.5' ELSE 'epsilon => 1' END,
                            CASE WHEN s.periods AND i % 2 = 0 THEN ', period_from => ''2020-01-05'', period_to => ''2020-01-20''' ELSE '' END),
                     CASE WHEN s.model <> 'zcdp' THEN 1 END, 0.001, CASE WHEN s.model = 'zcdp' THEN 0.5 END);
    END LOOP;
  END LOOP;
  RETURN (SELECT format('%s: %s answered, %s refused, %s failed', release_round.phase, count(*) FILTER (WHERE outcome = 'ok'),
                        count(*) FILTER (WHERE outcome = 'refused'), count(*) FILTER (WHERE outcome = 'failed'))
            FROM fz.log l WHERE l.phase = release_round.phase);
END $$;

-- why a failed release failed: its computation again, in this session, rolled back
CREATE FUNCTION fz.cause(rid bigint) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  msg text;
BEGIN
  BEGIN
    UPDATE dpm.releases SET status = 'charged' WHERE id = rid;
    PERFORM dpm_internal.release_fill(rid);
    RAISE EXCEPTION 'fz: computed without error in this session';
  EXCEPTION WHEN others THEN
    msg := SQLERRM;
  END;
  RETURN msg;
END $$;

-- the rows of a source on which an expression raises, with their values of the columns it reads
CREATE FUNCTION fz.probe(p_rid bigint, s fz.sources, p_form int, expr text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  r record; found int := 0; cols text; vals text;
BEGIN
  SELECT string_agg(format('%L || left(%I::text, 80)', m || '=', m), ' || '' '' || ' ORDER BY m) INTO cols
    FROM (SELECT DISTINCT m[1] AS m FROM regexp_matches(expr || ' u', '\m([ab][0-9]+|u|day|id)\M', 'g') m) x;
  FOR r IN EXECUTE format('SELECT id FROM %s ORDER BY id', s.rel) LOOP
    BEGIN
      EXECUTE format('SELECT (%s) FROM %s WHERE id = $1', expr, s.rel) USING r.id;
    EXCEPTION WHEN others THEN
      EXECUTE format('SELECT %s FROM %s WHERE id = $1', cols, s.rel) INTO vals USING r.id;
      INSERT INTO fz.culprits VALUES (p_rid, s.sid, p_form, r.id, vals, SQLERRM);
      found := found + 1;
      EXIT WHEN found >= 3;
    END;
  END LOOP;
  RETURN found;
END $$;

-- a failed combined release replayed form by form (each alone in a domain of its own on that
-- source); then every failed release of one form is explained: its cause, and the rows its
-- expression raises on
-- (the domains and workloads first, committed before any release reads them)
CREATE FUNCTION fz.attribute_prepare() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  l fz.log; s fz.sources; f fz.forms; d text; ids int[];
BEGIN
  FOR l IN SELECT * FROM fz.log WHERE outcome = 'failed' AND form IS NULL AND what ~ '^(dense|wide) ' ORDER BY id LOOP
    SELECT * INTO s FROM fz.sources WHERE sid = l.sid;
    ids := (SELECT forms FROM fz.combined WHERE domain = split_part(l.what, ' ', 2));
    FOR f IN SELECT * FROM fz.forms WHERE id = ANY (ids) ORDER BY id LOOP
      d := format('fz_s%s_f%s', s.sid, f.id);
      IF NOT EXISTS (SELECT FROM dpm.domains WHERE name = d) THEN
        PERFORM fz.try('fz_custodian', 'attribute', s.sid, f.id, 'domain', format('SELECT dpm.create_domain(%L, %L, %L)', d, s.rel,
                       jsonb_build_array(f.attr || jsonb_build_object('name', 'f' || f.id))));
      END IF;
      IF NOT EXISTS (SELECT FROM dpm.workloads WHERE name = d) THEN
        PERFORM fz.try('fz_analyst', 'attribute', s.sid, f.id, 'workload', format('SELECT dpm.create_workload(%L, %L, %L)', d, d, 'Identity(f' || f.id || ')'));
      END IF;
    END LOOP;
  END LOOP;
  RETURN (SELECT format('%s single-form domains and workloads', count(*)) FROM fz.log WHERE phase = 'attribute');
END $$;

CREATE FUNCTION fz.attribute() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  l fz.log; s fz.sources; f fz.forms; d text; n record; expr text; i int := 0; ids int[];
BEGIN
  FOR l IN SELECT * FROM fz.log WHERE outcome = 'failed' AND form IS NULL AND what ~ '^(dense|wide) ' ORDER BY id LOOP
    SELECT * INTO s FROM fz.sources WHERE sid = l.sid;
    ids := (SELECT forms FROM fz.combined WHERE domain = split_part(l.what, ' ', 2));
    FOR f IN SELECT * FROM fz.forms WHERE id = ANY (ids) ORDER BY id LOOP
      d := format('fz_s%s_f%s', s.sid, f.id);
      CONTINUE WHEN EXISTS (SELECT FROM fz.log x WHERE x.phase = 'attribute' AND x.what = 'single ' || d);
      i := i + 1; n := fz.noise(s, i);
      PERFORM fz.try('fz_analyst', 'attribute', s.sid, f.id, 'single ' || d,
                     format('SELECT count(*) FROM dpm.answer(%L, %s, method => ''identity'', reuse => ''never'')', d, n.args), n.eps, n.delta, n.rho);
    END LOOP;
  END LOOP;
  FOR l IN SELECT * FROM fz.log WHERE outcome = 'failed' AND release_id IS NOT NULL ORDER BY id LOOP
    SELECT * INTO s FROM fz.sources WHERE sid = l.sid;
    UPDATE fz.log SET err = err || ' -- cause: ' || fz.cause(l.release_id) WHERE id = l.id;
    CONTINUE WHEN l.form IS NULL;
    SELECT * INTO f FROM fz.forms WHERE id = l.form;
    expr := CASE f.kind WHEN 'measure' THEN format('least(greatest((%s)::float8, %s::float8), %s::float8)', f.body, f.lo, f.hi)
                        WHEN 'keys' THEN format('md5(%s::text)', f.body)
                        ELSE (SELECT attr_exprs[1] FROM dpm.domains WHERE name = format('fz_s%s_f%s', s.sid, f.id)) END;
    IF expr IS NOT NULL THEN
      PERFORM fz.probe(l.release_id, s, f.id, expr);
    END IF;
  END LOOP;
  RETURN (SELECT format('attribution: %s single releases, %s failed', count(*), count(*) FILTER (WHERE outcome = 'failed'))
            FROM fz.log WHERE phase = 'attribute' AND what LIKE 'single %');
END $$;

-- what failed, one line each: the release, the source, the type, the form, the cause and the values
CREATE FUNCTION fz.failures() RETURNS TABLE(line text) LANGUAGE sql AS $$
  SELECT format('release %s (%s) on %s [%s]: %s%s: %s%s', l.release_id, l.phase, s.rel, s.variant,
                coalesce('type ' || c.coltype || ', ' || f.kind || ' ' || coalesce(f.attr::text, f.body)
                         || CASE WHEN f.kind = 'measure' THEN format(' [%s, %s] nulls %s', f.lo, f.hi, f.nulls) ELSE '' END, l.what),
                '', l.err,
                coalesce(' -- raises on ' || (SELECT string_agg(format('row %s (%s): %s', k.row_id, k.detail, k.err), '; ')
                                             FROM fz.culprits k WHERE k.release_id = l.release_id), ''))
    FROM fz.log l JOIN fz.sources s ON s.sid = l.sid LEFT JOIN fz.forms f ON f.id = l.form LEFT JOIN fz.coltypes c ON c.ct = f.ct
   WHERE l.outcome = 'failed' ORDER BY l.form IS NULL, c.coltype, l.id
$$;

-- the checks: (name, ok)
CREATE FUNCTION fz.checks() RETURNS TABLE(name text, ok bool) LANGUAGE sql AS $$
  SELECT format('%s releases after hostile rows answered (at least %s expected)', count(*), 10), count(*) >= 10
    FROM fz.log WHERE phase = 'after' AND outcome = 'ok'
  UNION ALL
  SELECT format('no release ended failed (%s did)', count(*)), count(*) = 0 FROM dpm.releases WHERE status <> 'released'
  UNION ALL
  SELECT format('no refused call made a release or a charge (%s did)', count(*)), count(*) = 0
    FROM fz.log l WHERE l.outcome = 'refused' AND l.release_id IS NOT NULL
  UNION ALL
  SELECT format('every answered or failed call was charged once (%s were not)', count(*)), count(*) = 0
    FROM fz.log l WHERE l.outcome IN ('ok', 'failed') AND l.what !~ '^(register|periods|domain|workload|measure)$'
     AND (SELECT count(*) FROM dpm.ledger g WHERE g.release_id = l.release_id) <> 1
  UNION ALL
  SELECT format('the ledger holds only the charges of those calls (%s others)', count(*)), count(*) = 0
    FROM dpm.ledger g WHERE NOT EXISTS (SELECT FROM fz.log l WHERE l.release_id = g.release_id AND l.outcome IN ('ok', 'failed'))
  UNION ALL
  SELECT format('the ledger''s sums are the charges asked (epsilon %s = %s, rho %s = %s, delta %s = %s)',
                round(sum(g.epsilon), 6), round(sum(l.epsilon)::numeric, 6), round(sum(g.rho), 6),
                round(sum(coalesce(l.rho, l.epsilon ^ 2 / 2)) FILTER (WHERE s.model = 'zcdp')::numeric, 6), round(sum(g.delta), 9), round(sum(l.delta)::numeric, 9)),
         abs(coalesce(sum(g.epsilon), 0) - coalesce(sum(l.epsilon), 0)::numeric) < 1e-9
         AND abs(coalesce(sum(g.rho), 0) - coalesce(sum(coalesce(l.rho, l.epsilon ^ 2 / 2)) FILTER (WHERE s.model = 'zcdp'), 0)::numeric) < 1e-9
         AND abs(coalesce(sum(g.delta), 0) - coalesce(sum(l.delta), 0)::numeric) < 1e-9
    FROM dpm.ledger g JOIN fz.log l ON l.release_id = g.release_id AND l.outcome IN ('ok', 'failed') JOIN fz.sources s ON s.sid = l.sid
$$;
