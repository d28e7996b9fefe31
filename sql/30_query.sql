-- The SQL front door (issue 44): an analyst's SELECT, compiled to the matrix mechanism.
--
-- dpm.answer_query(sql) and dpm.explain_query(sql) are thin C entry points (src/api/query_api.c): the
-- statement is parsed and analyzed as the caller, with the caller's search_path (so its names
-- mean what they mean to her, and analysis runs nothing with the owner's rights), then handed
-- as a description to the functions here and in sql/31_query_answer.sql, which run as the
-- extension's owner.  Only the compiler writes descriptions (analysts cannot call dpm_internal),
-- and it lets through only PostgreSQL's own functions, operators and types, which these
-- functions evaluate; everything a description names is checked against the catalog as if the
-- analyst had written it, and every decision depends on the description and the catalog alone,
-- never on the rows.

-- The statement parsed and analyzed by PostgreSQL, described as the front door maps it (source,
-- grouping columns, aggregates, the WHERE condition), or refused naming what is not supported
-- (src/query/compile.c).  SECURITY INVOKER: analysis runs as the caller.
CREATE OR REPLACE FUNCTION dpm_internal.compile_query(sql text) RETURNS jsonb
AS 'MODULE_PATHNAME', 'dpm_compile_query' LANGUAGE C VOLATILE STRICT;

-- Refusals of the front door: feature_not_supported, with what it supports.
CREATE OR REPLACE FUNCTION dpm_internal.query_refuse(what text, hint text DEFAULT NULL) RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  RAISE EXCEPTION 'the SQL front door does not support %', what
    USING ERRCODE = 'feature_not_supported',
          HINT = coalesce(hint, 'Group and filter by the columns the custodian declared (dpm.column_domains), and aggregate with count(*), or sum and avg of a measure.');
END
$$;

-- The bins of attribute j of dom (a column's domain of this kind, over a column of type typ),
-- as values of the column's type, in text: lo and sup the least and greatest value a bin holds
-- (sup NULL for a range of a continuous type: numbers other than integers), hi its open end.
-- Dates and integers are discrete, and times to the microsecond.
CREATE OR REPLACE FUNCTION dpm_internal.query_bins(dom dpm.domains, j int, typ regtype, kind text)
RETURNS TABLE(bin int, label text, lo text, sup text, hi text)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  off int := coalesce((SELECT sum(s) FROM unnest(dom.attr_sizes[1:j - 1]) s), 0)::int;
  -- the attribute's labels, read once (labels[k] of a text[] costs O(k): 100,000 bins took seconds)
  labels text[] := dom.bin_labels[off + 1:off + dom.attr_sizes[j]];
BEGIN
  IF kind = 'values' THEN
    RETURN QUERY SELECT (u.k - 1)::int, u.l, u.l, u.l, NULL::text FROM unnest(labels) WITH ORDINALITY u(l, k) ORDER BY u.k;
  ELSIF kind = 'calendar' THEN
    -- bin_intervals: days since 2000-01-01; bounds are midnights, in UTC for timestamptz
    RETURN QUERY
      SELECT i.bin, u.l, e.lo, e.sup, e.hi
        FROM dpm_internal.bin_intervals(dom, j) i
        JOIN unnest(labels) WITH ORDINALITY u(l, k) ON u.k = i.bin + 1,
             LATERAL (SELECT date '2000-01-01' + i.lo::int AS dlo, date '2000-01-01' + i.hi::int AS dhi) d,
             LATERAL (SELECT CASE typ WHEN 'date'::regtype THEN d.dlo::text
                                      WHEN 'timestamptz'::regtype THEN (d.dlo::timestamp AT TIME ZONE 'UTC')::text
                                      ELSE d.dlo::timestamp::text END AS lo,
                             CASE typ WHEN 'date'::regtype THEN (d.dhi - 1)::text
                                      WHEN 'timestamptz'::regtype THEN (d.dhi::timestamp AT TIME ZONE 'UTC' - interval '1 microsecond')::text
                                      ELSE (d.dhi::timestamp - interval '1 microsecond')::text END AS sup,
                             CASE typ WHEN 'date'::regtype THEN d.dhi::text
                                      WHEN 'timestamptz'::regtype THEN (d.dhi::timestamp AT TIME ZONE 'UTC')::text
                                      ELSE d.dhi::timestamp::text END AS hi) e
       ORDER BY i.bin;
  ELSE
    RETURN QUERY
      SELECT i.bin, u.l,
             CASE WHEN typ IN ('smallint'::regtype, 'integer'::regtype, 'bigint'::regtype) THEN ceil(i.lo::numeric)::text
                  ELSE i.lo::numeric::text END,
             CASE WHEN typ IN ('smallint'::regtype, 'integer'::regtype, 'bigint'::regtype) THEN (ceil(i.hi::numeric) - 1)::text END,
             i.hi::numeric::text
        FROM dpm_internal.bin_intervals(dom, j) i JOIN unnest(labels) WITH ORDINALITY u(l, k) ON u.k = i.bin + 1 ORDER BY i.bin;
  END IF;
END
$$;

-- The column's bins as the front door reads them: its type, kind and bins (query_bins) in JSON.
CREATE OR REPLACE FUNCTION dpm_internal.query_column(dom dpm.domains, j int, typ regtype, kind text) RETURNS jsonb
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT jsonb_build_object('column', dom.attr_names[j], 'type', typ::text, 'kind', kind, 'size', dom.attr_sizes[j],
                            'labels', jsonb_agg(b.label ORDER BY b.bin), 'lo', jsonb_agg(b.lo ORDER BY b.bin),
                            'sup', jsonb_agg(b.sup ORDER BY b.bin), 'hi', jsonb_agg(b.hi ORDER BY b.bin))
    FROM dpm_internal.query_bins(dom, j, typ, kind) b
$$;

CREATE OR REPLACE FUNCTION dpm_internal.query_texts(a jsonb) RETURNS text[]
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$ SELECT coalesce(array_agg(x ORDER BY o), '{}') FROM jsonb_array_elements_text(a) WITH ORDINALITY t(x, o) $$;

-- The bins of column a (query_column) in which every value satisfies "column op value" (value of
-- type vtype, compared as the statement compares them); refused, with the nearest comparisons on
-- the grid, when a bin holds values on both sides.
CREATE OR REPLACE FUNCTION dpm_internal.query_leaf(a jsonb, op text, value text, vtype text) RETURNS int[]
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  t text := (a->>'type')::regtype::text;
  ct text := vtype::regtype::text;
  discrete boolean := a->>'kind' = 'values' OR jsonb_typeof(a->'sup'->0) = 'string';
  lo text := format('b.lo::%s', t);
  sup text := format('b.sup::%s', t);
  hi text := format('b.hi::%s', t);
  c text := format('$5::%s', ct);
  upper text;               -- the bin's values are all below this: sup <= c, or hi <= c
  whole text;
  none text;
  sel int[];
  part int;
  col text := a->>'column';
  lit text := CASE WHEN a->>'kind' = 'range' THEN '%s' ELSE '%L' END;   -- how a bound reads in the hint
BEGIN
  upper := CASE WHEN discrete THEN format('%s %%s %s', sup, c) ELSE format('%s <= %s', hi, c) END;
  CASE op
    WHEN '<' THEN whole := format(upper, '<'); none := format('%s >= %s', lo, c);
    WHEN '<=' THEN whole := format(upper, '<='); none := format('%s > %s', lo, c);
    WHEN '>' THEN whole := format('%s > %s', lo, c); none := format(upper, '<=');
    WHEN '>=' THEN whole := format('%s >= %s', lo, c); none := format(upper, '<');
    WHEN '=', '<>' THEN
      whole := CASE WHEN discrete THEN format('%s = %s AND %s = %s', lo, c, sup, c) ELSE 'false' END;
      none := format('%s > %s OR %s', lo, c, format(upper, '<'));
      IF op = '<>' THEN
        SELECT none, whole INTO whole, none;
      END IF;
    ELSE
      PERFORM dpm_internal.query_refuse(format('the comparison %s', op));
  END CASE;
  EXECUTE format('SELECT coalesce(array_agg(b.bin ORDER BY b.bin) FILTER (WHERE %s), ''{}''),
                         min(b.bin) FILTER (WHERE NOT (%s) AND NOT (%s))
                    FROM unnest($1, $2, $3, $4) AS b(bin, lo, sup, hi)', whole, whole, none)
    INTO sel, part
    USING ARRAY(SELECT generate_series(0, (a->>'size')::int - 1)), dpm_internal.query_texts(a->'lo'),
          dpm_internal.query_texts(a->'sup'), dpm_internal.query_texts(a->'hi'), value;
  IF part IS NOT NULL THEN
    RAISE EXCEPTION 'the SQL front door cannot answer % % %: bin % of column "%" holds values on both sides', col, op, quote_literal(value),
      a->'labels'->>part, col
      USING ERRCODE = 'feature_not_supported',
            HINT = CASE WHEN op IN ('=', '<>') AND a->>'kind' <> 'values'
                        THEN format('Select whole bins: %s >= %s AND %s < %s is bin %s.', col, format(lit, a->'lo'->>part),
                                    col, format(lit, a->'hi'->>part), a->'labels'->>part)
                        ELSE format('Compare with the edges of bins (dpm.column_domains), such as %s %s %s or %s %s %s.',
                                    col, CASE WHEN op IN ('<', '<=') THEN '<' ELSE '>=' END, format(lit, a->'lo'->>part),
                                    col, CASE WHEN op IN ('<', '<=') THEN '<' ELSE '>=' END, format(lit, a->'hi'->>part)) END;
  END IF;
  RETURN sel;
END
$$;

-- The rows a condition on one column keeps ({"column": [bins]}, columns not named keeping every
-- bin; dpm_internal.query_split gives only such conditions here): the bins of column cond's
-- column (query_column, in cols by name) in which every value satisfies it.  IS NOT NULL keeps
-- every bin, as count(column) counts the rows whose value is in one.
CREATE OR REPLACE FUNCTION dpm_internal.query_where(cond jsonb, cols jsonb) RETURNS jsonb
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  a jsonb;
  parts jsonb[];
  res jsonb := '{}';
  kcol text;
  x jsonb;
  sel int[];
  v text;
BEGIN
  IF cond IS NULL THEN
    RETURN '{}';
  ELSIF cond ? 'column' THEN
    a := cols->(cond->>'column');
    IF cond ? 'is_null' THEN
      sel := ARRAY(SELECT generate_series(0, (a->>'size')::int - 1));
    ELSIF cond ? 'in' OR cond ? 'not_in' THEN
      sel := CASE WHEN cond ? 'in' THEN '{}' ELSE ARRAY(SELECT generate_series(0, (a->>'size')::int - 1)) END;
      FOR v IN SELECT jsonb_array_elements_text(coalesce(cond->'in', cond->'not_in')) LOOP
        IF cond ? 'in' THEN
          sel := ARRAY(SELECT DISTINCT unnest(sel || dpm_internal.query_leaf(a, '=', v, cond->>'type')) ORDER BY 1);
        ELSE
          sel := ARRAY(SELECT unnest(sel) INTERSECT SELECT unnest(dpm_internal.query_leaf(a, '<>', v, cond->>'type')) ORDER BY 1);
        END IF;
      END LOOP;
    ELSE
      sel := dpm_internal.query_leaf(a, cond->>'op', cond->>'value', cond->>'type');
    END IF;
    RETURN jsonb_build_object(cond->>'column', to_jsonb(sel));
  END IF;
  parts := ARRAY(SELECT dpm_internal.query_where(c, cols) FROM jsonb_array_elements(coalesce(cond->'and', cond->'or', cond->'not')) c);
  IF cond ? 'and' THEN
    -- a product of products: intersect column by column
    FOREACH x IN ARRAY parts LOOP
      FOR kcol IN SELECT jsonb_object_keys(x) LOOP
        res := res || jsonb_build_object(kcol, to_jsonb(ARRAY(
                 SELECT b::int FROM jsonb_array_elements_text(x->kcol) b
                  WHERE NOT res ? kcol OR res->kcol @> to_jsonb(b::int) ORDER BY 1)));
      END LOOP;
    END LOOP;
    RETURN res;
  END IF;
  -- OR and NOT of conditions on the one column
  kcol := (SELECT min(k) FROM unnest(parts) p, jsonb_object_keys(p) k);
  a := cols->kcol;
  IF cond ? 'or' THEN
    sel := ARRAY(SELECT DISTINCT b::int FROM unnest(parts) p, jsonb_array_elements_text(p->kcol) b ORDER BY 1);
  ELSE
    sel := ARRAY(SELECT b FROM generate_series(0, (a->>'size')::int - 1) b
                 EXCEPT SELECT y::int FROM jsonb_array_elements_text(parts[1]->kcol) y ORDER BY 1);
  END IF;
  RETURN jsonb_build_object(kcol, to_jsonb(sel));
END
$$;

-- A WHERE condition split in two: "product", the conjunction of its conjuncts that each keep a
-- set of bins of one column (query_where), and "filter", the conjunction of the others (OR and
-- NOT across columns, IS NULL), kept by an attribute of its own (query_filter); each NULL when it
-- has no conjunct.  IS NOT NULL of a column alone is a product's: its bins.  With only_of given,
-- a product's columns are among those (the others' conditions are the filter's).  (jit off: the
-- planner's guesses for its JSON path functions, a thousand rows each, JIT-compiled this query
-- over a few conditions at 27 ms a call, twice a statement.)
CREATE OR REPLACE FUNCTION dpm_internal.query_split(cond jsonb, only_of text[] DEFAULT NULL) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp SET jit = off
AS $$
  WITH RECURSIVE conj(c) AS (
    SELECT cond WHERE jsonb_typeof(cond) = 'object'
    UNION ALL SELECT x FROM conj, jsonb_array_elements(conj.c->'and') x),
  leaves AS (
    SELECT c, (SELECT count(DISTINCT l #>> '{}') FROM jsonb_path_query(c, 'lax $.**.column') l) AS ncols,
           jsonb_path_exists(c, 'lax $.** ? (exists(@.is_null))') AS nulls
      FROM conj WHERE NOT c ? 'and'),
  kinds AS (
    SELECT c, CASE WHEN ncols = 1 AND (NOT nulls OR c->>'is_null' = 'false')
                        AND (only_of IS NULL OR (SELECT min(l #>> '{}') FROM jsonb_path_query(c, 'lax $.**.column') l) = ANY (only_of))
                   THEN 'product' ELSE 'filter' END AS kind
      FROM leaves)
  SELECT jsonb_strip_nulls(jsonb_build_object(
    'product', (SELECT CASE WHEN count(*) = 1 THEN min(c::text)::jsonb ELSE jsonb_build_object('and', jsonb_agg(c)) END
                  FROM kinds WHERE kind = 'product' HAVING count(*) > 0),
    'filter', (SELECT CASE WHEN count(*) = 1 THEN min(c::text)::jsonb ELSE jsonb_build_object('and', jsonb_agg(c)) END
                 FROM kinds WHERE kind = 'filter' HAVING count(*) > 0)))
$$;

-- The columns a condition compares with its domain (every leaf but IS NULL: a row counts when its
-- value of each is in a bin), or tests for NULL (IS NULL leaves).
CREATE OR REPLACE FUNCTION dpm_internal.query_where_columns(cond jsonb, is_null boolean) RETURNS SETOF text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT DISTINCT l->>'column'
    FROM jsonb_path_query(coalesce(cond, 'null'), 'strict $.** ? (exists(@.column))') l
   WHERE (l->>'is_null' IS NOT DISTINCT FROM 'true') = is_null
$$;

-- A condition as an SQL boolean of a source's row, total (never an error, never NULL): each leaf
-- as membership of the row's bin (exprs: each column's bin expression, by name) in the bins the
-- leaf keeps (query_where), IS NULL of the column itself; AND, OR and NOT as SQL has them.
CREATE OR REPLACE FUNCTION dpm_internal.query_filter(cond jsonb, cols jsonb, exprs jsonb, top boolean DEFAULT true) RETURNS text
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  f text;
BEGIN
  IF cond->>'is_null' = 'true' THEN
    f := format('(%I IS NULL)', cond->>'column');
  ELSIF cond ? 'column' THEN
    f := (SELECT '{' || string_agg(b, ',') || '}' FROM jsonb_array_elements_text(dpm_internal.query_where(cond, cols)->(cond->>'column')) b);
    f := CASE WHEN f IS NULL THEN 'false' ELSE format('((%s) = ANY (%L::int4[]))', exprs->>(cond->>'column'), f) END;
  ELSIF cond ? 'not' THEN
    f := format('(NOT %s)', dpm_internal.query_filter(cond->'not'->0, cols, exprs, false));
  ELSE
    f := '(' || (SELECT string_agg(dpm_internal.query_filter(x, cols, exprs, false), CASE WHEN cond ? 'and' THEN ' AND ' ELSE ' OR ' END ORDER BY o)
                   FROM jsonb_array_elements(coalesce(cond->'and', cond->'or')) WITH ORDINALITY t(x, o)) || ')';
  END IF;
  RETURN CASE WHEN top THEN format('coalesce(%s, false)', f) ELSE f END;
END
$$;

-- Each bin's key under the grouping items on column a (query_column): a JSON object, the value
-- of each item under its position in the statement's GROUP BY ("item"), each the statement's own
-- expression evaluated at the bin (its values all give the same, or the grouping is refused
-- naming the bin, with forms that fall on the grid).
CREATE OR REPLACE FUNCTION dpm_internal.query_keys(a jsonb, items jsonb) RETURNS jsonb[]
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  t text := (a->>'type')::regtype::text;
  discrete boolean := a->>'kind' = 'values' OR jsonb_typeof(a->'sup'->0) = 'string';
  col text := a->>'column';
  item jsonb;
  f text;
  at_lo text;
  aligned text;
  field text;
  unit text;
  vals jsonb[];
  keys jsonb[] := array_fill('{}'::jsonb, ARRAY[(a->>'size')::int]);
  bad int;
  wb text[];
BEGIN
  FOR item IN SELECT x FROM jsonb_array_elements(items) x LOOP
    f := coalesce(item->>'expression', '$1');
    at_lo := replace(f, '$1', format('(b.lo::%s)', t));
    IF NOT item ? 'expression' THEN
      -- the column itself: a bin of one value
      aligned := CASE WHEN discrete THEN format('b.lo::%s = b.sup::%s', t, t) ELSE 'false' END;
    ELSIF item ? 'floor_width' AND NOT discrete THEN
      aligned := format('b.hi::numeric <= (%s)::numeric + %L::numeric', at_lo, item->>'floor_width');
    ELSIF item ? 'width_bucket' AND NOT discrete THEN
      wb := dpm_internal.query_texts(item->'width_bucket');
      IF wb[1]::numeric >= wb[2]::numeric THEN
        PERFORM dpm_internal.query_refuse('width_bucket with a lower bound not below the upper one');
      END IF;
      aligned := format('CASE WHEN (%1$s) = 0 THEN b.hi::numeric <= %2$L::numeric WHEN (%1$s) > %4$L::int THEN true
                              ELSE b.hi::numeric * %4$L::numeric <= %2$L::numeric * %4$L::numeric + (%1$s) * (%3$L::numeric - %2$L::numeric) END',
                        at_lo, wb[1], wb[2], wb[3]);
    ELSIF NOT discrete THEN
      aligned := 'false';
    ELSE
      aligned := format('(%s) IS NOT DISTINCT FROM (%s)', at_lo, replace(f, '$1', format('(b.sup::%s)', t)));
      -- a field that repeats (the month of every year) must also keep to one unit of its period
      field := lower(item->>'extract');
      unit := CASE WHEN field IN ('month') THEN 'month' WHEN field IN ('quarter') THEN 'quarter' WHEN field IN ('week') THEN 'week'
                   WHEN field IN ('day', 'dow', 'isodow', 'doy') THEN 'day' WHEN field = 'hour' THEN 'hour'
                   WHEN field = 'minute' THEN 'minute' WHEN field IN ('second', 'milliseconds', 'microseconds') THEN 'second' END;
      IF unit IS NOT NULL THEN
        aligned := format('%s AND date_trunc(%L, b.lo::%s::timestamp) = date_trunc(%L, b.sup::%s::timestamp)', aligned, unit, t, unit, t);
      END IF;
    END IF;
    EXECUTE format('SELECT array_agg(to_jsonb(%s) ORDER BY b.bin), min(b.bin) FILTER (WHERE NOT (%s))
                      FROM unnest($1, $2, $3, $4) AS b(bin, lo, sup, hi)', at_lo, aligned)
      INTO vals, bad
      USING ARRAY(SELECT generate_series(0, (a->>'size')::int - 1)), dpm_internal.query_texts(a->'lo'),
            dpm_internal.query_texts(a->'sup'), dpm_internal.query_texts(a->'hi');
    IF bad IS NOT NULL THEN
      RAISE EXCEPTION 'the SQL front door cannot group by %: bin % of column "%" holds values of more than one group',
        CASE WHEN item ? 'expression' THEN replace(f, '$1', col) ELSE col END, a->'labels'->>bad, col
        USING ERRCODE = 'feature_not_supported',
              HINT = format('Column "%s" is declared in bins of %s (dpm.column_domains): group by %s.', col,
                            CASE a->>'kind' WHEN 'values' THEN 'values' ELSE format('[%s, %s)', a->'lo'->>bad, a->'hi'->>bad) END,
                            CASE a->>'kind' WHEN 'calendar' THEN format('date_trunc of "%s" to a grain the bins nest in', col)
                                 ELSE format('floor("%s" / w) * w or width_bucket, with w a multiple of the bins'' width', col) END);
    END IF;
    keys := ARRAY(SELECT k || jsonb_build_object(item->>'item', v) FROM unnest(keys, vals) x(k, v));
  END LOOP;
  RETURN keys;
END
$$;

-- A set of bins (0-based, ascending) of column a as one item of Ranges: runs of labels.
CREATE OR REPLACE FUNCTION dpm_internal.query_range(a jsonb, bins int[]) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN count(*) = 1 THEN min(item) ELSE '{' || string_agg(item, ', ' ORDER BY first) || '}' END
    FROM (SELECT min(b) AS first,
                 CASE WHEN min(b) = max(b) THEN quote_literal(a->'labels'->>min(b))
                      ELSE quote_literal(a->'labels'->>min(b)) || ':' || quote_literal(a->'labels'->>max(b)) END AS item
            FROM (SELECT b, b - row_number() OVER (ORDER BY b) AS run FROM unnest(bins) b) r
           GROUP BY run) runs
$$;

-- The front door's domain ({"domain": {"name", "attributes"}}: over those attributes, made by the
-- source's custodian, who scans it) or workload ({"workload": {"name", "domain_id", "spec"}}),
-- found or made and committed (the worker's transaction, src/release/queue.h: a release's worker
-- sees only committed rows, and the caller's transaction cannot commit).  Returns the domain.
CREATE OR REPLACE FUNCTION dpm_internal.store_catalog(req dpm_internal.planned_release) RETURNS bigint
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  src dpm.sources := (SELECT s FROM dpm.sources s WHERE s.id = req.source_id);
  d jsonb := req.options->'domain';
  w jsonb := req.options->'workload';
  dname text;
  wname text;
BEGIN
  IF d IS NOT NULL AND NOT EXISTS (SELECT 1 FROM dpm.domains x
                                    WHERE x.source_id = src.id AND x.attributes = d->'attributes' AND x.dropped_at IS NULL
                                      AND x.created_by = src.registered_by) THEN
    dname := d->>'name';
    IF EXISTS (SELECT 1 FROM dpm.domains x WHERE x.name = dname AND x.dropped_at IS NULL) THEN
      dname := dname || ' ' || left(md5((d->'attributes')::text), 8);
    END IF;
    PERFORM dpm_internal.make_domain(dname, src, src.relation, d->'attributes', src.registered_by);
  END IF;
  IF w IS NOT NULL AND NOT EXISTS (SELECT 1 FROM dpm.workloads x
                                    WHERE x.domain_id = (w->>'domain_id')::int AND x.spec = w->>'spec' AND x.dropped_at IS NULL) THEN
    wname := w->>'name';
    PERFORM dpm.create_workload(wname, (SELECT x.name FROM dpm.domains x WHERE x.id = (w->>'domain_id')::int), w->>'spec');
  END IF;
  RETURN 0;
END
$$;

CREATE OR REPLACE FUNCTION dpm_internal.query_catalog(src dpm.sources, what jsonb) RETURNS dpm.domains
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  found boolean;
  dom dpm.domains;
BEGIN
  FOR i IN 1 .. 2 LOOP
    IF what ? 'domain' THEN
      SELECT * INTO dom FROM dpm.domains d
       WHERE d.source_id = src.id AND d.attributes = what->'domain'->'attributes' AND d.dropped_at IS NULL
         AND d.created_by = src.registered_by ORDER BY d.id LIMIT 1;
      found := dom.id IS NOT NULL;
    ELSE
      found := EXISTS (SELECT 1 FROM dpm.workloads x WHERE x.domain_id = (what->'workload'->>'domain_id')::int
                                                       AND x.spec = what->'workload'->>'spec' AND x.dropped_at IS NULL);
    END IF;
    IF found OR i = 2 THEN
      EXIT;
    END IF;
    -- a snapshot of the transaction's start would not see what the worker commits
    PERFORM dpm_internal.require_read_committed('the SQL front door over columns or groupings not asked before');
    PERFORM dpm_internal.run_release(ROW('catalog', src.id, NULL, NULL, NULL, what, NULL, NULL, NULL, NULL, NULL, NULL,
                                         NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::dpm_internal.planned_release,
                                     '{}'::dpm.strategies[]);
  END LOOP;
  IF NOT found THEN
    RAISE EXCEPTION 'the % of this statement was made, but is not visible to this transaction', CASE WHEN what ? 'domain' THEN 'domain' ELSE 'workload' END
      USING ERRCODE = 'object_not_in_prerequisite_state', HINT = 'Run the statement again.';
  END IF;
  RETURN dom;
END
$$;

-- The compiled statement, or statements (a JSON array: a dashboard, answered by one workload and
-- one release): their source, the domain over the columns they touch (their declared grids, in
-- column order), the workload (one term per statement and grouping set), per answer row the
-- values of its grouping columns (by position in its statement's GROUP BY), and the number of
-- rows of each statement, in order.
CREATE OR REPLACE FUNCTION dpm_internal.query_plan(qs jsonb,
  OUT src dpm.sources, OUT dom dpm.domains, OUT wl dpm.workloads, OUT measure dpm.measures, OUT aggregate text,
  OUT keys jsonb[], OUT counts int[], OUT cdf jsonb, OUT parts jsonb, OUT statements jsonb, OUT variants int[])
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  m dpm.measures;
  ms jsonb := '{}';           -- each measure column: {"id", "drop": whether its NULLs are left out, "name"}
  extra jsonb;
  stmts jsonb := CASE WHEN jsonb_typeof(qs) = 'array' THEN qs ELSE jsonb_build_array(qs) END;
  q jsonb;
  rel regclass := (stmts->0->>'source')::regclass;
  allcols jsonb := (SELECT jsonb_agg(c) FROM jsonb_array_elements(stmts) x, jsonb_array_elements(x->'columns') c);
  touched text[];
  nulled text[];
  filters text[] := '{}';     -- the conditions kept by attributes of their own, and those attributes
  fnames text[] := '{}';
  sfilters jsonb := '[]';     -- each statement's, or null
  cells_of text[];       -- counts of units: the columns grouped by, all the domain has (others' conditions are filters)
  vcols text[] := '{}';       -- the columns counted by variants (after the conditions' attributes, from vfirst + 1)
  vfirst int;
  vcol text;
  sblocks text[];             -- a statement's blocks on the touched columns, per grouping set
  f jsonb;
  sk int;
  declared record;
  attrs jsonb;
  cols jsonb := '{}';
  sel jsonb := '{}';
  j int;
  typ regtype;
  kind text;
  a jsonb;
  items jsonb;
  bkeys jsonb[];
  pbins int[];
  groups jsonb;           -- per attribute: [[key, [bins]], ...]
  blocks text[];
  terms text[] := '{}';
  gset jsonb;
  tkeys jsonb[];
  wspec text;
  aggs text[];
  mcols text[];
  pcol text;
  has_count boolean;
  count_cols text[];
BEGIN
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(stmts) x WHERE (x->>'source')::regclass <> rel) THEN
    PERFORM dpm_internal.query_refuse('statements over several sources in one call',
      'A dashboard''s statements share one release, of one source: ask each source''s in a call of its own.');
  END IF;
  src := dpm_internal.source(rel);
  -- count(DISTINCT unit): the privacy units with a row in each group (each counted in at most
  -- max_contributions of its cells), a release of their counts (dpm.answer's aggregate units)
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(allcols) x WHERE x->>'aggregate' = 'count_distinct') THEN
    IF EXISTS (SELECT 1 FROM jsonb_array_elements(allcols) x
                WHERE x->>'aggregate' = 'count_distinct' AND x->>'column' IS DISTINCT FROM src.privacy_unit::text) THEN
      PERFORM dpm_internal.query_refuse(format('count(DISTINCT %s) of a column other than the privacy unit',
                                               (SELECT min(x->>'column') FROM jsonb_array_elements(allcols) x
                                                 WHERE x->>'aggregate' = 'count_distinct')),
        CASE WHEN src.privacy_unit IS NULL THEN 'Each row of this source is its own privacy unit: count(*) counts them.'
             ELSE format('count(DISTINCT %s) counts the privacy units of each group; other columns'' distinct values would depend on single people.', src.privacy_unit) END);
    END IF;
    IF EXISTS (SELECT 1 FROM jsonb_array_elements(allcols) x WHERE x ? 'aggregate' AND x->>'aggregate' <> 'count_distinct') THEN
      PERFORM dpm_internal.query_refuse(format('count(DISTINCT %s) beside other aggregates in one release', src.privacy_unit),
        'Ask the counts of privacy units in a statement (or call) of their own.');
    END IF;
    -- each answer one cell, so that a unit counts once in it: the groups are the cells of the
    -- columns grouped by, and the other conditions a filter
    IF EXISTS (SELECT 1 FROM jsonb_array_elements(stmts) x WHERE jsonb_typeof(x->'grouping_sets') = 'array')
       OR EXISTS (SELECT 1 FROM jsonb_array_elements(stmts) x, jsonb_array_elements(x->'group_by') g WHERE g - 'column' <> '{}') THEN
      PERFORM dpm_internal.query_refuse(format('count(DISTINCT %s) over groups of several cells (GROUPING SETS, or a grouping such as date_trunc or floor of a column)', src.privacy_unit),
        'A unit is counted once in each cell it has rows in: group by the declared columns themselves.');
    END IF;
    cells_of := ARRAY(SELECT DISTINCT g->>'column' FROM jsonb_array_elements(stmts) x, jsonb_array_elements(x->'group_by') g);
    aggregate := 'units';
  END IF;
  -- the aggregates: count(*), and sum, avg (and count) of one measure, answered by one release
  aggs := ARRAY(SELECT x->>'aggregate' FROM jsonb_array_elements(allcols) x WHERE x ? 'aggregate');
  mcols := ARRAY(SELECT DISTINCT x->>'column' FROM jsonb_array_elements(allcols) x
                  WHERE x->>'aggregate' IN ('sum', 'avg') ORDER BY 1);
  count_cols := ARRAY(SELECT DISTINCT x->>'column' FROM jsonb_array_elements(allcols) x
                       WHERE x->>'aggregate' = 'count' AND x->>'column' IS NOT NULL);
  has_count := 'count' = ANY (aggs);
  -- percentiles of one column: a release of its cumulative counts (in the groups), nothing else
  pcol := (SELECT min(x->>'column') FROM jsonb_array_elements(allcols) x WHERE x->>'aggregate' LIKE 'percentile%');
  IF pcol IS NOT NULL THEN
    -- and counts, sums and averages: a group's are those of its last cumulative row, the rows in
    -- the column's bins
    IF EXISTS (SELECT 1 FROM jsonb_array_elements(allcols) x
                WHERE NOT (x->>'aggregate' LIKE 'percentile%' AND x->>'column' = pcol)
                  AND NOT (x->>'aggregate' = 'count' AND coalesce(x->>'column', pcol) = pcol)
                  AND NOT x->>'aggregate' IN ('sum', 'avg')) THEN
      PERFORM dpm_internal.query_refuse('percentiles beside counts of other columns, or percentiles of several columns, in one release',
        format('Beside percentiles of "%s", ask count(*) or count(%s), and sums and averages of measures; the others in a call of their own.', pcol, pcol));
    END IF;
    IF NOT EXISTS (SELECT 1 FROM dpm.column_domains cd WHERE cd.source_id = src.id AND cd.column_name = pcol AND cd.kind = 'range')
       OR EXISTS (SELECT 1 FROM jsonb_array_elements(stmts) st, jsonb_array_elements(st->'group_by') g WHERE g->>'column' = pcol) THEN
      PERFORM dpm_internal.query_refuse(format('percentiles of "%s" here', pcol),
        'A percentile is of a column declared in numeric bins {min, max, width} (dpm.column_domains), not grouped by in the same call: its bins are where the answer is read.');
    END IF;
    aggregate := 'percentile';
  END IF;
  -- the measures summed or averaged, each declared by the custodian
  FOR j IN 1 .. cardinality(mcols) LOOP
    SELECT * INTO m FROM dpm.measures x
     WHERE x.source_id = src.id AND x.dropped_at IS NULL AND x.expression = quote_ident(mcols[j]) ORDER BY x.id LIMIT 1;
    IF m.id IS NULL THEN
      RAISE EXCEPTION 'column "%" of "%" is not a measure', mcols[j], rel
        USING ERRCODE = 'feature_not_supported',
              HINT = 'Sums and averages are of measures, whose bounds the custodian declares (dpm.set_column_domains with {"column": ..., "measure": {"lo": ..., "hi": ...}}); dpm.measures lists them.';
    END IF;
    ms := ms || jsonb_build_object(mcols[j], jsonb_build_object('id', m.id, 'drop', m.nulls = 'drop', 'name', m.name));
  END LOOP;
  -- one measure: its release (sums, or for an average or beside counts also the counts it divides
  -- by: dpm.answer's average), when its counts are the statement's
  IF cardinality(mcols) = 1 AND aggregate IS NULL AND NOT EXISTS (SELECT 1 FROM unnest(count_cols) c WHERE c <> mcols[1])
     AND NOT (has_count AND EXISTS (
       SELECT 1 FROM jsonb_array_elements(allcols) x
        WHERE x->>'aggregate' = 'count' AND (x->>'column' IS DISTINCT FROM mcols[1]) = (ms->mcols[1]->>'drop')::boolean)) THEN
    SELECT * INTO measure FROM dpm.measures x WHERE x.id = (ms->mcols[1]->>'id')::int;
    aggregate := CASE WHEN 'avg' = ANY (aggs) OR has_count THEN 'avg' END;
    count_cols := ARRAY(SELECT unnest(count_cols) EXCEPT SELECT mcols[1]);
  ELSIF cardinality(mcols) > 0 THEN
    -- several: one release of their sums, and of the counts beside them (count(*), and an average's:
    -- all rows, or its measure's rows with a value when its NULLs are dropped), each part with a
    -- share of the charge (dpm.releases.extra_parts; the shares are set with the budget)
    aggregate := coalesce(aggregate, 'multi');      -- or percentiles, from the same cumulative rows
    IF EXISTS (SELECT 1 FROM jsonb_array_elements(allcols) x
                WHERE x->>'aggregate' = 'count' AND ms ? (x->>'column') AND NOT (ms->(x->>'column')->>'drop')::boolean) THEN
      PERFORM dpm_internal.query_refuse(format('count(%s) of a measure whose NULLs count as 0, beside other measures',
                                               (SELECT min(x->>'column') FROM jsonb_array_elements(allcols) x
                                                 WHERE x->>'aggregate' = 'count' AND ms ? (x->>'column'))),
        'Its rows with a value are not counted apart: ask count(*), which an average of it divides by.');
    END IF;
    count_cols := ARRAY(SELECT c FROM unnest(count_cols) c WHERE NOT ms ? c);
    -- row counts first, when anything needs them; else the first measure's sums
    IF aggregate = 'percentile'
       OR has_count AND EXISTS (SELECT 1 FROM jsonb_array_elements(allcols) x WHERE x->>'aggregate' = 'count' AND NOT ms ? coalesce(x->>'column', ''))
       OR EXISTS (SELECT 1 FROM jsonb_array_elements(allcols) x WHERE x->>'aggregate' = 'avg' AND NOT (ms->(x->>'column')->>'drop')::boolean) THEN
      measure := NULL;
    ELSE
      SELECT * INTO measure FROM dpm.measures x WHERE x.id = (ms->mcols[1]->>'id')::int;
    END IF;
    extra := (SELECT jsonb_agg(jsonb_build_object('quantity', q.kind || ':' || q.id, 'measure_id', q.id) ORDER BY q.c, q.kind DESC)
                FROM (SELECT c, (ms->c->>'id')::int AS id, 'sums' AS kind FROM unnest(mcols) c WHERE (ms->c->>'id')::int IS DISTINCT FROM measure.id
                      UNION ALL
                      SELECT c, (ms->c->>'id')::int, 'counts' FROM unnest(mcols) c
                       WHERE (ms->c->>'drop')::boolean
                         AND EXISTS (SELECT 1 FROM jsonb_array_elements(allcols) x WHERE x->>'column' = c AND x->>'aggregate' IN ('avg', 'count'))) q);
  END IF;
  parts := jsonb_strip_nulls(jsonb_build_object('measures', ms, 'extra', extra));
  -- count(column): the rows whose value of it is in a bin (as IS NOT NULL keeps).  Alone, or of a
  -- column the statements group, filter or take percentiles of anyway, the column is touched;
  -- beside count(*), other columns' counts or measures, a column they do not touch is counted by a
  -- variant of each statement's queries, which an attribute of its own (whether the row's value is
  -- in a bin) selects
  IF cardinality(count_cols) > 1 OR cardinality(mcols) > 0
     OR EXISTS (SELECT 1 FROM jsonb_array_elements(allcols) x WHERE x->>'aggregate' = 'count' AND x->>'column' IS NULL) THEN
    vcols := ARRAY(SELECT c FROM unnest(count_cols) c
                    WHERE NOT EXISTS (SELECT 1 FROM jsonb_array_elements(stmts) st, jsonb_array_elements(st->'group_by') g WHERE g->>'column' = c)
                      AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(stmts) st, dpm_internal.query_where_columns(st->'where', false) w WHERE w = c)
                      AND c IS DISTINCT FROM pcol ORDER BY 1);
    count_cols := ARRAY(SELECT unnest(count_cols) EXCEPT SELECT unnest(vcols));
  END IF;
  statements := (SELECT jsonb_agg(st.x || jsonb_build_object('columns', (
                   SELECT jsonb_agg(c || CASE WHEN c->>'aggregate' = 'count' AND c->>'column' = ANY (vcols)
                                              THEN jsonb_build_object('variant', (
                                                     SELECT count(DISTINCT c2->>'column') FROM jsonb_array_elements(st.x->'columns') c2
                                                      WHERE c2->>'aggregate' = 'count' AND c2->>'column' = ANY (vcols) AND c2->>'column' <= c->>'column'))
                                              ELSE '{}' END ORDER BY o)
                     FROM jsonb_array_elements(st.x->'columns') WITH ORDINALITY cc(c, o))) ORDER BY st.o)
                   FROM jsonb_array_elements(stmts) WITH ORDINALITY st(x, o));
  variants := ARRAY(SELECT coalesce(max((c->>'variant')::int), 0) FROM jsonb_array_elements(statements) WITH ORDINALITY st(x, o)
                      LEFT JOIN LATERAL jsonb_array_elements(st.x->'columns') c ON true GROUP BY st.o ORDER BY st.o);

  -- the columns it touches, each declared by the custodian
  touched := ARRAY(SELECT DISTINCT x FROM (
                     SELECT g->>'column' AS x FROM jsonb_array_elements(stmts) st, jsonb_array_elements(st->'group_by') g
                     UNION ALL SELECT c FROM jsonb_array_elements(stmts) st, dpm_internal.query_where_columns(st->'where', false) c
                     UNION ALL SELECT unnest(count_cols)
                     UNION ALL SELECT pcol WHERE pcol IS NOT NULL) s ORDER BY 1);
  -- a column tested with IS NULL is read as it is: in no bin when NULL, it is no attribute
  nulled := ARRAY(SELECT DISTINCT c FROM jsonb_array_elements(stmts) st, dpm_internal.query_where_columns(st->'where', true) c ORDER BY 1);
  IF nulled && touched THEN
    PERFORM dpm_internal.query_refuse(format('IS NULL of column "%s" where it is also grouped by, compared or counted',
                                             (SELECT min(c) FROM unnest(nulled) c WHERE c = ANY (touched))),
      'A row whose value is NULL is in no bin of the column''s domain, so the other uses of the column never count it: ask IS NULL in a call of its own.');
  END IF;
  FOR declared IN SELECT t.col, cd.kind, cd.attribute FROM unnest(touched || nulled || vcols) t(col)
                    LEFT JOIN dpm.column_domains cd ON cd.source_id = src.id AND cd.column_name = t.col LOOP
    IF declared.kind IS NULL THEN
      RAISE EXCEPTION 'column "%" of "%" has no privacy domain', declared.col, rel
        USING ERRCODE = 'feature_not_supported',
              HINT = coalesce('The columns analysts may group and filter by are ' ||
                              (SELECT string_agg(cd.column_name, ', ' ORDER BY cd.column_name) FROM dpm.column_domains cd WHERE cd.source_id = src.id)
                              || ' (dpm.column_domains).', 'No column of it is declared yet: its custodian declares them with dpm.set_column_domains.');
    END IF;
  END LOOP;
  attrs := coalesce((SELECT jsonb_agg(cd.attribute ORDER BY cd.column_name) FROM dpm.column_domains cd
                      WHERE cd.source_id = src.id AND cd.column_name = ANY (touched)),
                    -- no column: one cell of every row
                    '[{"name": "rows", "expression": "true", "values": [true]}]');

  -- the domain: one of these attributes, as the source's custodian scans it; made once
  dom := dpm_internal.query_catalog(src, jsonb_build_object('domain', jsonb_build_object(
           'name', format('query %s(%s)', rel, array_to_string(touched, ', ')), 'attributes', attrs)));

  FOR j IN 1 .. cardinality(touched) LOOP
    SELECT a2.atttypid::regtype, cd.kind INTO typ, kind
      FROM dpm.column_domains cd JOIN pg_attribute a2 ON a2.attrelid = rel AND a2.attname = cd.column_name
     WHERE cd.source_id = src.id AND cd.column_name = touched[j];
    cols := cols || jsonb_build_object(touched[j], dpm_internal.query_column(dom, j, typ, kind));
  END LOOP;

  -- the conditions no set of bins of one column keeps (OR and NOT across columns, IS NULL): each
  -- an attribute of its own, whether a row meets it (query_filter), which its statements select;
  -- the domain then one of these attributes too
  FOR q IN SELECT x FROM jsonb_array_elements(stmts) x LOOP
    f := dpm_internal.query_split(q->'where', cells_of)->'filter';
    f := CASE WHEN f IS NOT NULL THEN to_jsonb(dpm_internal.query_filter(f, cols, (
                SELECT jsonb_object_agg(t, dom.attr_exprs[o]) FROM unnest(touched) WITH ORDINALITY u(t, o)))) END;
    sfilters := sfilters || coalesce(f, 'null');
    IF f IS NOT NULL AND NOT (f #>> '{}') = ANY (filters) THEN
      filters := filters || (f #>> '{}');
      fnames := fnames || (SELECT n FROM generate_series(1, cardinality(touched) + 1) i, LATERAL (SELECT 'where_' || cardinality(filters) || repeat('_', i - 1) AS n) x
                            WHERE NOT n = ANY (touched) ORDER BY i LIMIT 1);
    END IF;
  END LOOP;
  -- and each column counted by a variant: whether the row's value is in one of its bins
  vfirst := cardinality(filters);
  FOR j IN 1 .. cardinality(vcols) LOOP
    filters := filters || format('coalesce((%s) IS NOT NULL, false)', (
                 SELECT (dpm_internal.attribute_bins(rel, dpm_internal.selected_values(src, cd.attribute))).expr
                   FROM dpm.column_domains cd WHERE cd.source_id = src.id AND cd.column_name = vcols[j]));
    fnames := fnames || (SELECT n FROM generate_series(1, cardinality(touched) + 1) i, LATERAL (SELECT 'count_' || j || repeat('_', i - 1) AS n) x
                          WHERE NOT n = ANY (touched) ORDER BY i LIMIT 1);
  END LOOP;
  IF cardinality(filters) > 0 OR cells_of IS NOT NULL AND NOT touched <@ cells_of THEN
    attrs := CASE WHEN cells_of IS NOT NULL
                  THEN coalesce((SELECT jsonb_agg(cd.attribute ORDER BY cd.column_name) FROM dpm.column_domains cd
                                  WHERE cd.source_id = src.id AND cd.column_name = ANY (touched) AND cd.column_name = ANY (cells_of)), '[]')
                  WHEN cardinality(touched) > 0 THEN attrs ELSE '[]' END
             || (SELECT jsonb_agg(jsonb_build_object('name', fnames[i], 'expression', filters[i], 'values', '[false, true]'::jsonb) ORDER BY i)
                   FROM generate_subscripts(filters, 1) i);
    dom := dpm_internal.query_catalog(src, jsonb_build_object('domain', jsonb_build_object(
             'name', format('query %s(%s) where %s', rel, array_to_string(touched, ', '), left(md5(array_to_string(filters, ' ')), 8)),
             'attributes', attrs)));
  END IF;

  -- a term per grouping set (one without GROUPING SETS), one block per attribute: the groups it
  -- is cut into (among the bins the WHERE keeps), or the one set of bins the WHERE keeps; the
  -- answer rows: each term's groups, the last attribute's varying fastest
  keys := '{}';
  counts := '{}';
  FOR q, sk IN SELECT x, o FROM jsonb_array_elements(statements) WITH ORDINALITY t(x, o) LOOP
    sel := coalesce(dpm_internal.query_where(dpm_internal.query_split(q->'where', cells_of)->'product', cols), '{}');
    counts := counts || 0;
    sblocks := '{}';
    FOR gset IN SELECT x FROM jsonb_array_elements(coalesce(nullif(q->'grouping_sets', 'null'),
                                                             jsonb_build_array((SELECT coalesce(jsonb_agg(o - 1), '[]')
                                                                                  FROM jsonb_array_elements(q->'group_by') WITH ORDINALITY g(e, o))))) x LOOP
      blocks := '{}';
      tkeys := ARRAY['{}'::jsonb];
      FOR j IN 1 .. cardinality(touched) LOOP
        CONTINUE WHEN NOT touched[j] = ANY (coalesce(cells_of, touched));   -- a column only a filter reads
        a := cols->touched[j];
        items := (SELECT jsonb_agg(jsonb_build_object('item', o - 1) || e ORDER BY o) FROM jsonb_array_elements(q->'group_by') WITH ORDINALITY g(e, o)
                   WHERE e->>'column' = touched[j] AND gset @> to_jsonb(o - 1));
        IF touched[j] = pcol THEN
          -- the cumulative counts over the bins the WHERE keeps, an answer row each ({"_cdf": t})
          pbins := ARRAY(SELECT x::int FROM jsonb_array_elements_text(coalesce(sel->pcol, to_jsonb(ARRAY(SELECT generate_series(0, (a->>'size')::int - 1))))) x);
          IF cardinality(pbins) = 0 THEN
            RAISE EXCEPTION 'the WHERE of this statement keeps no bin of column "%"', pcol USING ERRCODE = 'feature_not_supported';
          END IF;
          blocks := blocks || CASE WHEN cardinality(pbins) = (a->>'size')::int THEN format('Prefix(%s)', quote_ident(pcol))
                                   ELSE format('Ranges(%s, %s)', quote_ident(pcol),
                                               (SELECT string_agg(dpm_internal.query_range(a, pbins[1:t]), ', ' ORDER BY t)
                                                  FROM generate_series(1, cardinality(pbins)) t)) END;
          tkeys := ARRAY(SELECT k || jsonb_build_object('_cdf', t) FROM unnest(tkeys) WITH ORDINALITY x(k, o1),
                                                                        generate_series(1, cardinality(pbins)) t ORDER BY o1, t);
          cdf := jsonb_build_object('column', pcol, 'lo', (SELECT jsonb_agg((a->'lo'->>b)::float8 ORDER BY t) FROM unnest(pbins) WITH ORDINALITY u(b, t)),
                                    'hi', (SELECT jsonb_agg((a->'hi'->>b)::float8 ORDER BY t) FROM unnest(pbins) WITH ORDINALITY u(b, t)));
          CONTINUE;
        END IF;
        IF items IS NULL THEN
          IF NOT sel ? touched[j] OR jsonb_array_length(sel->touched[j]) = (a->>'size')::int THEN
            blocks := blocks || format('Total(%s)', quote_ident(touched[j]));
          ELSIF jsonb_array_length(sel->touched[j]) = 0 THEN
            RAISE EXCEPTION 'the WHERE of this statement keeps no bin of column "%"', touched[j]
              USING ERRCODE = 'feature_not_supported', HINT = 'Its bins are in dpm.column_domains; every answer would be 0.';
          ELSE
            blocks := blocks || format('Ranges(%s, %s)', quote_ident(touched[j]),
                                       dpm_internal.query_range(a, ARRAY(SELECT x::int FROM jsonb_array_elements_text(sel->touched[j]) x)));
          END IF;
          CONTINUE;
        END IF;
        bkeys := dpm_internal.query_keys(a, items);
        -- groups in order of their first bin, of the bins kept
        SELECT jsonb_agg(jsonb_build_array(g.k, g.bins) ORDER BY g.first) INTO groups
          FROM (SELECT k, min(b) AS first, jsonb_agg(b ORDER BY b) AS bins
                  FROM unnest(bkeys) WITH ORDINALITY x(k, o), LATERAL (SELECT (o - 1)::int AS b) bb
                 WHERE NOT sel ? touched[j] OR sel->touched[j] @> to_jsonb(b)
                 GROUP BY k) g;
        IF groups IS NULL THEN
          RAISE EXCEPTION 'the WHERE of this statement keeps no bin of column "%"', touched[j]
            USING ERRCODE = 'feature_not_supported', HINT = 'Its bins are in dpm.column_domains; there would be no group.';
        END IF;
        IF jsonb_array_length(groups) = (a->>'size')::int THEN
          blocks := blocks || format('Identity(%s)', quote_ident(touched[j]));
        ELSE
          blocks := blocks || format('Ranges(%s, %s)', quote_ident(touched[j]),
                                     (SELECT string_agg(dpm_internal.query_range(a, ARRAY(SELECT x::int FROM jsonb_array_elements_text(g->1) x)), ', ' ORDER BY o)
                                        FROM jsonb_array_elements(groups) WITH ORDINALITY y(g, o)));
        END IF;
        tkeys := ARRAY(SELECT k || (g->0) FROM unnest(tkeys) WITH ORDINALITY x(k, o1), jsonb_array_elements(groups) WITH ORDINALITY y(g, o2)
                        ORDER BY o1, o2);
      END LOOP;
      sblocks := sblocks || coalesce(array_to_string(nullif(blocks, '{}'), ' * '), '');
      keys := keys || tkeys;
      counts[cardinality(counts)] := counts[cardinality(counts)] + cardinality(tkeys);
    END LOOP;
    -- the statement's terms, then as many again for each column it counts by a variant: its own
    -- condition, if it has one, selects its rows, and the variant's attribute the rows counted;
    -- the other attributes of conditions take all
    -- (each variant's rows have the statement's keys too, so that rows and keys keep one numbering)
    keys := keys || ARRAY(SELECT k FROM generate_series(1, variants[sk]) v, unnest(keys[cardinality(keys) - counts[sk] + 1:]) WITH ORDINALITY u(k, o)
                           ORDER BY v, o);
    FOR v IN 0 .. variants[sk] LOOP
      vcol := (SELECT c->>'column' FROM jsonb_array_elements(q->'columns') c WHERE (c->>'variant')::int = v LIMIT 1);
      terms := terms || ARRAY(
        SELECT coalesce(nullif(array_to_string(ARRAY[nullif(b, '')] || ARRAY(
                 SELECT format(CASE WHEN sfilters->>(sk - 1) = filters[i] OR i = vfirst + array_position(vcols, vcol)
                                    THEN 'Ranges(%s, ''true'')' ELSE 'Total(%s)' END, quote_ident(fnames[i]))
                   FROM generate_subscripts(filters, 1) i ORDER BY i), ' * '), ''), 'Total(rows)')
          FROM unnest(sblocks) WITH ORDINALITY u(b, o) ORDER BY o);
    END LOOP;
  END LOOP;
  wspec := array_to_string(terms, ' + ');
  PERFORM dpm_internal.query_catalog(src, jsonb_build_object('workload', jsonb_build_object(
            'name', 'query ' || left(md5(dom.id || ' ' || wspec), 16), 'domain_id', dom.id, 'spec', wspec)));
  SELECT * INTO wl FROM dpm.workloads w WHERE w.domain_id = dom.id AND w.spec = wspec AND w.dropped_at IS NULL ORDER BY w.id LIMIT 1;
END
$$;
