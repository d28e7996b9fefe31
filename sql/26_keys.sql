-- Group keys from the data: the values of a column chosen by differentially private partition
-- selection (src/mechanism/partition.h), released as a release of kind 'keys' and charged to the
-- source's budget, for a domain's value list ("values": {"selection": release_id}).

CREATE OR REPLACE FUNCTION dpm_internal.exec_as_text(role regrole, sql text) RETURNS text[]
AS 'MODULE_PATHNAME', 'dpm_exec_as' LANGUAGE C VOLATILE STRICT;

-- Which keys pass the noisy threshold (NULL counts: the checks alone), with the threshold and the
-- noise's scale: each key's count of units plus Laplace noise (epsilon) or Gaussian noise (rho) for
-- keys_per_unit keys per unit.
CREATE OR REPLACE FUNCTION dpm_internal.partition_select(counts float8[], keys_per_unit int, epsilon float8, delta float8,
                                      rho float8 DEFAULT NULL,
                                      OUT selected boolean[], OUT threshold float8, OUT scale float8)
AS 'MODULE_PATHNAME', 'dpm_partition_select' LANGUAGE C VOLATILE;

-- The probability that a key held by each of these numbers of units passes partition_select's
-- threshold, drawing nothing (exact under Laplace noise, the normal law's under Gaussian noise).
CREATE OR REPLACE FUNCTION dpm_internal.partition_chance(units float8[], keys_per_unit int, epsilon float8, delta float8,
                                                        rho float8 DEFAULT NULL) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_partition_chance' LANGUAGE C IMMUTABLE;

-- A column whose values can be selected: a text or integer column of the source's table, which
-- the source's registrant (who scans it) can still read.
CREATE OR REPLACE FUNCTION dpm_internal.check_keys_column(src dpm.sources, column_name text) RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  rel regclass := dpm_internal.source_table(src);
  type regtype;
BEGIN
  SELECT a.atttypid INTO type FROM pg_attribute a
   WHERE a.attrelid = rel AND a.attname = column_name AND a.attnum > 0 AND NOT a.attisdropped;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'source "%" has no column "%"', rel, column_name USING ERRCODE = 'undefined_column';
  END IF;
  IF type NOT IN ('text'::regtype, 'character varying'::regtype, 'character'::regtype, 'smallint'::regtype,
                  'integer'::regtype, 'bigint'::regtype) THEN
    RAISE EXCEPTION 'column "%" is of type %: keys are selected from text or integer columns', column_name, type
      USING ERRCODE = 'datatype_mismatch',
            HINT = 'Bin a numeric or date column with "bins" in dpm.create_domain instead: its range is public.';
  END IF;
  IF NOT has_table_privilege(src.registered_by, rel, 'SELECT') THEN
    RAISE EXCEPTION 'the keys of "%" cannot be selected: the source''s registrant % can no longer read it', rel, src.registered_by
      USING ERRCODE = 'insufficient_privilege', HINT = 'Ask the custodian to restore the privilege.';
  END IF;
  PERFORM dpm_internal.check_source(src.registered_by, rel);   -- as a domain's scan is (src/security/safe_expr.c)
  PERFORM dpm_internal.check_foreign_columns(src.registered_by, rel);
END
$$;

-- The keys a selection may release, one at a time (src/api/keys_api.c): the rows (key, units) of
-- sql, run as role, whose noisy count of units passes the threshold, in the query's order.
CREATE OR REPLACE FUNCTION dpm_internal.keys_scan(role regrole, sql text, keys_per_unit int, epsilon float8,
                                                  delta float8, rho float8)
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'dpm_keys_scan' LANGUAGE C VOLATILE;

-- The query a selection reads: each key with its count of privacy units (max_contributions rows
-- per unit, as releases read them, or max_groups keys: dpm_internal.keys_per_unit), in the
-- column's order.  A key is the value's exact text, grouped bytewise (COLLATE "C"): under a
-- nondeterministic collation spellings that compare equal are different keys, each counted and
-- released on its own, so a spelling only one unit wrote is never released for the others'.
-- Values longer than max_bytes are left out where the row is read: octet_length reads a stored
-- value's size without detoasting it, so they never reach the grouping (a character(n) value is
-- measured without its padding, detoasted only when its padding could bring it under the bound).
CREATE OR REPLACE FUNCTION dpm_internal.keys_sql(src dpm.sources, col name, periods int4range, max_bytes int)
RETURNS text
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  a pg_attribute;
  units text := CASE WHEN src.privacy_unit IS NULL THEN '*' ELSE 'DISTINCT u' END;
  rows text := format('(SELECT s.%I AS k%s FROM %s) x', col,
                      CASE WHEN src.privacy_unit IS NULL THEN '' ELSE format(', s.%I AS u', src.privacy_unit) END,
                      dpm_internal.source_rows(src, true, periods, NULL, format('s.%I', col)));
BEGIN
  SELECT * INTO a FROM pg_attribute x
   WHERE x.attrelid = dpm_internal.source_table(src) AND x.attname = col AND x.attnum > 0 AND NOT x.attisdropped;
  IF a.atttypid IN ('smallint'::regtype, 'integer'::regtype, 'bigint'::regtype) THEN
    -- integers: equal values have one text; in the column's order (named key, so that ORDER BY k
    -- is the integer, not the text output column a bare k::text would be named after)
    RETURN format('SELECT k::text AS key, count(%s) AS n FROM %s WHERE k IS NOT NULL GROUP BY k ORDER BY k', units, rows);
  END IF;
  RETURN format('SELECT key, n FROM (SELECT k::text COLLATE "C" AS key, count(%s) AS n, min(k) AS o FROM %s WHERE %s GROUP BY 1) g '
                'ORDER BY o, key', units, rows,
                CASE WHEN a.atttypid = 'character'::regtype
                     -- the padding of a character(n) is at most n bytes; unbounded, at most 64 kB are read
                     THEN format('CASE WHEN octet_length(k) <= %1$s THEN true WHEN octet_length(k) <= %1$s + %2$s '
                                 'THEN octet_length(k::text) <= %1$s ELSE false END',
                                 max_bytes, CASE WHEN a.atttypmod > 4 THEN a.atttypmod - 4 ELSE 65536 END)
                     ELSE format('octet_length(k) <= %s', max_bytes) END);
END
$$;

-- Step 2 of a partition selection, in the release worker: the keys whose noisy count of units
-- passes the threshold, judged as the scan finds them (dpm_internal.keys_scan), so that memory
-- holds only the keys released, as the release's answers' labels.
CREATE OR REPLACE FUNCTION dpm_internal.keys_fill(r dpm.releases) RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  src dpm.sources := dpm_internal.release_source(r);     -- under the bounds it was charged under
  rk dpm.release_keys := (SELECT x FROM dpm.release_keys x WHERE x.release_id = r.id);
  -- the charge's epsilon or rho, and delta, strictly below it (dpm_internal.below); the
  -- auditor's planted defect (dpm_internal.audit_sensitivity_scale, 1 but in test/audit.sh) scales
  -- the noise as a sensitivity would: epsilon / s, rho / s^2
  eps float8 := CASE WHEN r.noise = 'laplace' THEN dpm_internal.below(r.epsilon) / dpm_internal.audit_sensitivity_scale() END;
  dlt float8 := dpm_internal.below(r.delta);
  rho float8 := CASE WHEN r.noise = 'gaussian' THEN dpm_internal.below(r.rho) / dpm_internal.audit_sensitivity_scale() ^ 2 END;
  sel record;
  stored bigint;
  selected refcursor;
BEGIN
  -- the column was checked at the charge (dpm_internal.release_charge), as a domain is
  sel := dpm_internal.partition_select(NULL, dpm_internal.keys_per_unit(src), eps, dlt, rho);
  -- at most the keys its role's answer quota left it at the charge (rk.keys), the first in the
  -- column's order: a cut of what the selection chose, post-processing at no privacy cost
  OPEN selected FOR
    SELECT s.i::int, s.key, NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::int
      FROM dpm_internal.keys_scan(src.registered_by, dpm_internal.keys_sql(src, rk.column_name, r.periods, rk.max_key_bytes),
                                  dpm_internal.keys_per_unit(src), eps, dlt, rho) WITH ORDINALITY s(key, i)
     LIMIT rk.keys;
  SELECT s.stored INTO stored FROM dpm_internal.store_answers(r.id, selected) s;
  CLOSE selected;
  UPDATE dpm.release_keys x SET threshold = sel.threshold, noise_scale = sel.scale, keys = stored
   WHERE x.release_id = r.id;
  UPDATE dpm.releases x SET status = 'released' WHERE x.id = r.id;
END
$$;

-- A partition selection's request, every argument checked as dpm.answer_keys and dpm.explain_keys
-- check it, before anything is scanned or charged: the source, its charge (epsilon or rho in the
-- source's model, and delta), the periods it reads and the bound on a key's bytes; and the
-- mechanism's law (epsilon, delta, rho of its noise, strictly below the charge, as the worker
-- draws it: dpm_internal.keys_fill).
CREATE OR REPLACE FUNCTION dpm_internal.keys_request(source regclass, column_name name, epsilon float8, delta float8,
                                                    rho float8, period_from date, period_to date, INOUT max_key_bytes int,
                                                    OUT src dpm.sources, OUT c_epsilon numeric, OUT c_delta numeric,
                                                    OUT c_rho numeric, OUT periods int4range, OUT law_epsilon float8,
                                                    OUT law_delta float8, OUT law_rho float8)
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  cost record;
BEGIN
  IF source IS NULL OR column_name IS NULL THEN
    RAISE EXCEPTION 'source and column_name must not be NULL' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  src := dpm_internal.source(source);
  max_key_bytes := coalesce(max_key_bytes, src.max_key_bytes);
  IF max_key_bytes NOT BETWEEN 1 AND src.max_key_bytes THEN
    RAISE EXCEPTION 'max_key_bytes must be between 1 and %, the bound of source "%", got %', src.max_key_bytes, source, max_key_bytes
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Values longer than max_key_bytes bytes are read as no key; the source''s custodian sets the bound (dpm.set_max_key_bytes).';
  END IF;
  IF src.model = 'pure' OR (src.model = 'zcdp' AND src.budget_delta = 0) THEN
    RAISE EXCEPTION 'source "%" is registered for %, and selecting keys needs delta > 0', src.relation,
      CASE src.model WHEN 'pure' THEN 'pure epsilon-differential privacy' ELSE 'zCDP without a delta budget' END
      USING ERRCODE = 'invalid_parameter_value',
            DETAIL = 'A key held by a single privacy unit can be hidden only up to a probability delta.',
            HINT = CASE src.model WHEN 'pure'
                   THEN 'Register the source with epsilon and delta > 0, or with rho and delta > 0 (zCDP), to select keys; or list the values in dpm.create_domain.'
                   ELSE 'Give the source a delta budget, which only selecting keys spends: dpm.set_budget(source, delta => ...).' END;
  END IF;
  IF NOT coalesce(delta > 0, false) THEN
    RAISE EXCEPTION 'selecting keys needs delta > 0, got %', coalesce(delta::text, 'NULL')
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'delta bounds the probability that a key held by a single privacy unit is released.';
  END IF;
  PERFORM dpm_internal.check_privacy_args(epsilon, delta, rho);
  -- epsilon or rho in the source's model, as a release's; delta on top
  cost := dpm_internal.privacy_cost(src, epsilon, CASE WHEN src.model = 'approx' THEN delta ELSE 0 END, rho);
  c_epsilon := cost.c_epsilon;
  c_rho := cost.c_rho;
  c_delta := dpm_internal.charge(delta);
  PERFORM dpm_internal.check_keys_column(src, column_name);
  periods := dpm_internal.period_range(src, period_from, period_to);
  law_epsilon := CASE WHEN rho IS NULL THEN dpm_internal.below(c_epsilon) END;
  law_delta := dpm_internal.below(c_delta);
  law_rho := CASE WHEN rho IS NOT NULL THEN dpm_internal.below(c_rho) END;
  -- the mechanism's own checks, drawing nothing
  PERFORM dpm_internal.partition_select(NULL, dpm_internal.keys_per_unit(src), law_epsilon, law_delta, law_rho);
END
$$;

-- Analysts with budget and custodians: the values of a text or integer column that enough privacy
-- units hold, chosen by partition selection and charged to the source: (epsilon, delta) on an
-- (epsilon, delta) source; rho (Gaussian noise) or epsilon (Laplace, charged rho = epsilon^2 / 2)
-- with delta on a zCDP source that has a delta budget.  Each value's count of units gets noise
-- for the values one unit holds (dpm_internal.keys_per_unit), and passes a threshold above which a
-- value held by a single unit lands with probability below delta over them (src/mechanism/partition.h).
-- Charged and computed by a release worker, like dpm.answer; the release (kind 'keys') lists the
-- keys as its answers' labels.  Values longer than max_key_bytes are read as no key: the bound
-- changes no privacy (a row's own value decides, alike in neighbouring tables) but only which keys
-- can come out, and it bounds what a selection holds, a key at a time, whatever the table.  The
-- custodian sets it for the source (dpm.set_max_key_bytes, 256 bytes unless set, at most 64 kB);
-- a caller may ask for less, never more, so no value can make a selection fail after its charge.
CREATE OR REPLACE FUNCTION dpm.answer_keys(source regclass, column_name name, epsilon float8 DEFAULT NULL,
                                delta float8 DEFAULT NULL, rho float8 DEFAULT NULL, period_from date DEFAULT NULL,
                                period_to date DEFAULT NULL, max_key_bytes int DEFAULT NULL)
RETURNS text[]
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  req record := dpm_internal.keys_request(source, column_name, epsilon, delta, rho, period_from, period_to, max_key_bytes);
  src dpm.sources := req.src;
  rel_id bigint;
  size bigint;
  n bigint;
  pr record;
BEGIN
  pr := dpm_internal.period_request(src, req.periods);
  rel_id := dpm_internal.run_release(ROW('keys', src.id, NULL, NULL, NULL, NULL, NULL,
                                         CASE WHEN rho IS NULL THEN 'laplace' ELSE 'gaussian' END, req.c_epsilon, req.c_delta,
                                         req.c_rho, NULL, NULL, NULL, NULL, NULL, pr.period_from, pr.period_to, NULL, NULL,
                                         column_name, req.max_key_bytes, NULL, NULL)::dpm_internal.planned_release, '{}');
  -- one array, well below the 1 GB a value may take: decided on the keys released alone, which
  -- dpm.release(id) shows anyway
  size := (SELECT sum(octet_length(a.label) + 16) FROM dpm.release_answers a WHERE a.release_id = rel_id);
  IF size > 268435456 THEN
    RAISE EXCEPTION 'release % selected keys of % MB in all, too many to return as one array', rel_id, size / 1048576
      USING ERRCODE = 'program_limit_exceeded',
            HINT = format('They are its answers'' labels: SELECT label FROM dpm.release(%s).', rel_id);
  END IF;
  -- it stored as many keys as the answer quotas let it (dpm_internal.release_charge): more may have passed
  n := (SELECT count(*) FROM dpm.release_answers a WHERE a.release_id = rel_id);
  IF n = 0 THEN
    -- what the caller sees anyway, {}: said, with how many units a key needs
    RAISE NOTICE 'no value of column "%" passed the threshold of % privacy units', column_name,
      (SELECT round(k.threshold::numeric, 1) FROM dpm.release_keys k WHERE k.release_id = rel_id)
      USING HINT = 'A value held by about that many privacy units passes half the time; dpm.explain_keys shows the chance for each number of units before anything is charged. More budget lowers the threshold.';
  END IF;
  IF n > 0 AND (n >= current_setting('dpm.max_answers_per_release')::bigint
                OR dpm_internal.stored_answers(dpm_internal.invoker()) >= current_setting('dpm.max_answers_per_role')::bigint) THEN
    RAISE WARNING 'this selection kept % keys, as many as dpm.max_answers_per_release or what dpm.max_answers_per_role left your role: more may have passed the threshold', n
      USING HINT = format('They are the first in the column''s order (release %s); ask a superuser to raise the limit to keep more.', rel_id);
  END IF;
  RETURN (SELECT coalesce(array_agg(a.label ORDER BY a.query), '{}') FROM dpm.release_answers a WHERE a.release_id = rel_id);
END
$$;
COMMENT ON FUNCTION dpm.answer_keys(regclass, name, float8, float8, float8, date, date, int) IS
  'the values of a column held by enough privacy units, chosen by differentially private partition selection: spends budget (a release of kind keys)';

-- What dpm.answer_keys would do with the same arguments, checked alike, charging nothing and
-- reading no row: the charge, the threshold a value's noisy count of units must reach and the
-- noise's scale, and the probability that a value held by n privacy units passes, for n from 1
-- up to where it passes almost surely (and at the threshold, where it passes about half the time).
CREATE OR REPLACE FUNCTION dpm.explain_keys(source regclass, column_name name, epsilon float8 DEFAULT NULL,
                                delta float8 DEFAULT NULL, rho float8 DEFAULT NULL, period_from date DEFAULT NULL,
                                period_to date DEFAULT NULL, max_key_bytes int DEFAULT NULL)
RETURNS TABLE(units bigint, pass_probability float8, threshold float8, noise_scale float8, charge_epsilon numeric,
              charge_delta numeric, charge_rho numeric)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  req record := dpm_internal.keys_request(source, column_name, epsilon, delta, rho, period_from, period_to, max_key_bytes);
  law record := dpm_internal.partition_select(NULL, dpm_internal.keys_per_unit(req.src), req.law_epsilon, req.law_delta, req.law_rho);
  -- 1, 2, 5, 10, ... up to 1e12 units, and the threshold's
  ladder bigint[] := ARRAY(SELECT DISTINCT n FROM (SELECT (10::numeric ^ e * f)::bigint AS n FROM generate_series(0, 11) e, unnest(ARRAY[1, 2, 5]) f
                                                   UNION ALL SELECT ceil(law.threshold)::bigint) x ORDER BY n);
  chances float8[] := dpm_internal.partition_chance(ladder::float8[], dpm_internal.keys_per_unit(req.src), req.law_epsilon, req.law_delta,
                                                    req.law_rho);
BEGIN
  RETURN QUERY
    SELECT l.n, l.p, law.threshold, law.scale, req.c_epsilon, req.c_delta, req.c_rho
      FROM unnest(ladder, chances) l(n, p)
     -- the rungs up to the first where a value passes with probability 0.999
     WHERE l.n <= coalesce((SELECT min(x.n) FROM unnest(ladder, chances) x(n, p) WHERE x.p >= 0.999), l.n)
     ORDER BY l.n;
END
$$;
COMMENT ON FUNCTION dpm.explain_keys(regclass, name, float8, float8, float8, date, date, int) IS
  'what dpm.answer_keys would charge and the chance that a value held by n privacy units passes its threshold, charging nothing';

-- An attribute definition whose "values" names a selection ({"selection": release_id}) with those
-- keys in their place: the selection must be of this source and of the attribute's column, and
-- visible to the caller.  Integer columns get numbers, others strings.
CREATE OR REPLACE FUNCTION dpm_internal.selected_values(src dpm.sources, attr jsonb) RETURNS jsonb
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  rel_id bigint;
  k dpm.release_keys;
  r dpm.releases;
  col text := coalesce(attr->>'column', attr->>'name');
  numeric_keys boolean;
BEGIN
  IF jsonb_typeof(attr->'values') IS DISTINCT FROM 'object' OR NOT attr->'values' ? 'selection' THEN
    RETURN attr;     -- a list of values, or a mistake that dpm_internal.attribute_bins names
  END IF;
  IF (SELECT count(*) FROM jsonb_object_keys(attr->'values')) <> 1 OR attr->'values'->>'selection' !~ '^[0-9]{1,18}$' THEN
    RAISE EXCEPTION 'attribute "%": "values" is a list, or {"selection": release_id}', attr->>'name'
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  rel_id := (attr->'values'->>'selection')::bigint;
  PERFORM dpm_internal.check_release(rel_id);
  SELECT * INTO r FROM dpm.releases x WHERE x.id = rel_id;
  SELECT * INTO k FROM dpm.release_keys x WHERE x.release_id = rel_id;
  IF k.release_id IS NULL OR r.status <> 'released' THEN
    RAISE EXCEPTION 'release % is not a completed selection of keys', rel_id
      USING ERRCODE = 'invalid_parameter_value', HINT = 'dpm.answer_keys makes one.';
  END IF;
  IF r.source_id <> src.id THEN
    RAISE EXCEPTION 'release % selected the keys of another source, not of "%"', rel_id, src.relation
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF k.column_name <> col THEN
    RAISE EXCEPTION 'release % selected the keys of column "%", not of "%"', rel_id, k.column_name, col
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  numeric_keys := (SELECT a.atttypid IN ('smallint'::regtype, 'integer'::regtype, 'bigint'::regtype)
                     FROM pg_attribute a WHERE a.attrelid = dpm_internal.source_table(src) AND a.attname = col);
  IF NOT EXISTS (SELECT 1 FROM dpm.release_answers a WHERE a.release_id = rel_id) THEN
    RAISE EXCEPTION 'release % selected no keys: no value of "%" is held by enough privacy units', rel_id, col
      USING ERRCODE = 'invalid_parameter_value', HINT = 'Select again with a larger epsilon, or list the values.';
  END IF;
  RETURN jsonb_set(attr, '{values}',
                   (SELECT jsonb_agg(CASE WHEN numeric_keys THEN to_jsonb(a.label::numeric) ELSE to_jsonb(a.label) END ORDER BY a.query)
                      FROM dpm.release_answers a WHERE a.release_id = rel_id));
END
$$;
