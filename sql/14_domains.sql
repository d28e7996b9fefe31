-- Domains: the cells of a frequency vector, from the custodian's definition.

CREATE OR REPLACE FUNCTION dpm_internal.max_cells() RETURNS int
AS 'MODULE_PATHNAME', 'dpm_max_cells_fn' LANGUAGE C STABLE PARALLEL SAFE;

-- One attribute of a domain definition -> its bins and the CASE expression giving the bin index.
CREATE OR REPLACE FUNCTION dpm_internal.attribute_bins(source regclass, attr jsonb,
                                    OUT aname text, OUT labels text[], OUT lo float8[], OUT hi float8[],
                                    OUT expr text)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  col text;
  coltype text;
  bins jsonb;
  b jsonb;
  k text;
  conds text[] := '{}';
  v numeric; vmin numeric; vmax numeric; vw numeric; vlo numeric; vhi numeric;
BEGIN
  IF jsonb_typeof(attr) <> 'object' THEN
    RAISE EXCEPTION 'each attribute must be a JSON object, got %', attr USING ERRCODE = 'invalid_parameter_value';
  END IF;
  FOR k IN SELECT jsonb_object_keys(attr) LOOP
    IF k NOT IN ('name', 'column', 'values', 'bins') THEN
      RAISE EXCEPTION 'unknown attribute key "%"', k
        USING ERRCODE = 'invalid_parameter_value', HINT = 'Valid keys: name, column, values, bins.';
    END IF;
  END LOOP;
  aname := attr->>'name';
  IF aname IS NULL OR aname !~ '^[A-Za-z_][A-Za-z0-9_]*$' THEN
    RAISE EXCEPTION 'attribute name % is not a valid identifier', coalesce(quote_literal(aname), 'NULL')
      USING ERRCODE = 'invalid_parameter_value', HINT = 'Use letters, digits and underscores, starting with a letter.';
  END IF;
  col := coalesce(attr->>'column', aname);
  SELECT format_type(a.atttypid, a.atttypmod) INTO coltype
    FROM pg_attribute a WHERE a.attrelid = source AND a.attname = col AND a.attnum > 0 AND NOT a.attisdropped;
  IF coltype IS NULL THEN
    RAISE EXCEPTION 'column "%" of "%" does not exist', col, source USING ERRCODE = 'undefined_column';
  END IF;
  IF (attr ? 'values') = (attr ? 'bins') THEN
    RAISE EXCEPTION 'attribute "%" needs exactly one of "values" or "bins"', aname USING ERRCODE = 'invalid_parameter_value';
  END IF;
  labels := '{}'; lo := '{}'; hi := '{}';

  IF attr ? 'values' THEN
    IF jsonb_typeof(attr->'values') <> 'array' OR jsonb_array_length(attr->'values') = 0 THEN
      RAISE EXCEPTION 'values of attribute "%" must be a non-empty JSON array', aname USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR b IN SELECT value FROM jsonb_array_elements(attr->'values') LOOP
      IF jsonb_typeof(b) NOT IN ('string', 'number', 'boolean') THEN
        RAISE EXCEPTION 'values of attribute "%" must be strings, numbers or booleans, got %', aname, b
          USING ERRCODE = 'invalid_parameter_value';
      END IF;
      labels := labels || (b #>> '{}');
      lo := lo || 'NaN'::float8; hi := hi || 'NaN'::float8;
      conds := conds || format('%I = %L::%s', col, b #>> '{}', coltype);
    END LOOP;
  ELSIF jsonb_typeof(attr->'bins') = 'object' THEN
    bins := attr->'bins';
    FOR k IN SELECT jsonb_object_keys(bins) LOOP
      IF k NOT IN ('min', 'max', 'width') THEN
        RAISE EXCEPTION 'unknown key "%" in bins of attribute "%"', k, aname
          USING ERRCODE = 'invalid_parameter_value', HINT = 'Valid keys: min, max, width.';
      END IF;
    END LOOP;
    IF jsonb_typeof(bins->'min') IS DISTINCT FROM 'number' OR jsonb_typeof(bins->'max') IS DISTINCT FROM 'number'
       OR jsonb_typeof(bins->'width') IS DISTINCT FROM 'number' THEN
      RAISE EXCEPTION 'bins of attribute "%" need numeric min, max and width', aname USING ERRCODE = 'invalid_parameter_value';
    END IF;
    vmin := (bins->>'min')::numeric; vmax := (bins->>'max')::numeric; vw := (bins->>'width')::numeric;
    IF vw <= 0 OR vmax <= vmin THEN
      RAISE EXCEPTION 'bins of attribute "%" need width > 0 and max > min', aname USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF (vmax - vmin) / vw > dpm_internal.max_cells() THEN
      RAISE EXCEPTION 'attribute "%" would have % bins, more than dpm.max_cells (%)', aname,
        ceil((vmax - vmin) / vw), dpm_internal.max_cells()
        USING ERRCODE = 'program_limit_exceeded';
    END IF;
    v := vmin;
    WHILE v < vmax LOOP
      vhi := least(v + vw, vmax);
      labels := labels || format('[%s,%s)', trim_scale(v), trim_scale(vhi));
      lo := lo || v::float8; hi := hi || vhi::float8;
      conds := conds || v::text;
      v := vhi;
    END LOOP;
    -- contiguous bins: a binary search over the lower bounds of all but the first, which is the
    -- 0-based bin (width_bucket compares with the same literals, in the same types, as a WHEN per
    -- bin would, in log time instead of linear; and with no arithmetic that could fail)
    expr := format('CASE WHEN %I >= %s AND %I < %s THEN %s END', col, vmin, col, vmax,
                   CASE WHEN cardinality(conds) = 1 THEN '0'
                        ELSE format('width_bucket(%I, ARRAY[%s])', col, array_to_string(conds[2:], ', ')) END);
    RETURN;
  ELSIF jsonb_typeof(attr->'bins') = 'array' AND jsonb_array_length(attr->'bins') > 0 THEN
    FOR b IN SELECT value FROM jsonb_array_elements(attr->'bins') LOOP
      IF jsonb_typeof(b) <> 'object' THEN
        RAISE EXCEPTION 'each bin of attribute "%" must be a JSON object, got %', aname, b USING ERRCODE = 'invalid_parameter_value';
      END IF;
      FOR k IN SELECT jsonb_object_keys(b) LOOP
        IF k NOT IN ('label', 'lo', 'hi', 'condition') THEN
          RAISE EXCEPTION 'unknown key "%" in a bin of attribute "%"', k, aname
            USING ERRCODE = 'invalid_parameter_value', HINT = 'A bin is {"label", "lo", "hi"} or {"label", "condition"}.';
        END IF;
      END LOOP;
      IF b ? 'condition' THEN
        IF b ? 'lo' OR b ? 'hi' OR jsonb_typeof(b->'condition') <> 'string' OR NOT b ? 'label' THEN
          RAISE EXCEPTION 'a condition bin of attribute "%" is {"label": text, "condition": text}', aname
            USING ERRCODE = 'invalid_parameter_value';
        END IF;
        labels := labels || (b->>'label');
        lo := lo || 'NaN'::float8; hi := hi || 'NaN'::float8;
        conds := conds || format('(%s)', b->>'condition');
      ELSE
        IF (b ? 'lo' AND jsonb_typeof(b->'lo') <> 'number') OR (b ? 'hi' AND jsonb_typeof(b->'hi') <> 'number')
           OR NOT (b ? 'lo' OR b ? 'hi') THEN
          RAISE EXCEPTION 'an interval bin of attribute "%" needs numeric "lo" and/or "hi"', aname
            USING ERRCODE = 'invalid_parameter_value';
        END IF;
        vlo := (b->>'lo')::numeric; vhi := (b->>'hi')::numeric;
        IF vlo >= vhi THEN
          RAISE EXCEPTION 'bin [%, %) of attribute "%" is empty', vlo, vhi, aname USING ERRCODE = 'invalid_parameter_value';
        END IF;
        labels := labels || coalesce(b->>'label', format('[%s,%s)', coalesce(trim_scale(vlo)::text, '-inf'), coalesce(trim_scale(vhi)::text, 'inf')));
        lo := lo || coalesce(vlo::float8, '-Infinity'); hi := hi || coalesce(vhi::float8, 'Infinity');
        conds := conds || concat_ws(' AND ', CASE WHEN vlo IS NOT NULL THEN format('%I >= %s', col, vlo) END,
                                             CASE WHEN vhi IS NOT NULL THEN format('%I < %s', col, vhi) END);
      END IF;
    END LOOP;
  ELSE
    RAISE EXCEPTION 'bins of attribute "%" must be {"min", "max", "width"} or a non-empty array of bins', aname
      USING ERRCODE = 'invalid_parameter_value';
  END IF;

  -- first matching bin wins; a row matching none gets NULL and is not counted
  SELECT 'CASE' || string_agg(format(' WHEN %s THEN %s', c, i - 1), '' ORDER BY i) || ' END'
    INTO expr FROM unnest(conds) WITH ORDINALITY AS t(c, i);
END
$$;

CREATE OR REPLACE FUNCTION dpm.create_domain(name text, source regclass, attributes jsonb) RETURNS int
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  src dpm.sources;
  attr jsonb;
  r record;
  names text[] := '{}'; sizes int[] := '{}'; exprs text[] := '{}';
  labels text[] := '{}'; los float8[] := '{}'; his float8[] := '{}';
  expr text;
  ncells numeric := 1;
BEGIN
  IF name IS NULL OR name = '' THEN
    RAISE EXCEPTION 'domain name must not be empty' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  src := dpm_internal.source(source);
  PERFORM dpm_internal.check_can_read(source);
  IF EXISTS (SELECT 1 FROM dpm.domains d WHERE d.name = name) THEN
    RAISE EXCEPTION 'domain "%" already exists', name USING ERRCODE = 'duplicate_object';
  END IF;
  IF jsonb_typeof(attributes) IS DISTINCT FROM 'array' OR jsonb_array_length(attributes) = 0 THEN
    RAISE EXCEPTION 'attributes must be a non-empty JSON array of attribute definitions'
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  FOR attr IN SELECT value FROM jsonb_array_elements(attributes) LOOP
    r := dpm_internal.attribute_bins(source, attr);
    IF r.aname = ANY (names) THEN
      RAISE EXCEPTION 'attribute "%" appears twice', r.aname USING ERRCODE = 'invalid_parameter_value';
    END IF;
    names := names || r.aname;
    sizes := sizes || cardinality(r.labels);
    labels := labels || r.labels; los := los || r.lo; his := his || r.hi;
    exprs := exprs || r.expr;
    ncells := ncells * cardinality(r.labels);
    -- mixed radix, last attribute fastest: cell = (...(i1 * n2 + i2) * n3 + i3 ...)
    expr := CASE WHEN expr IS NULL THEN r.expr
                 ELSE format('(%s) * %s + (%s)', expr, cardinality(r.labels), r.expr) END;
  END LOOP;
  IF ncells > dpm_internal.max_cells() THEN
    RAISE EXCEPTION 'domain "%" would have % cells, more than dpm.max_cells (%)', name, ncells,
      dpm_internal.max_cells()
      USING ERRCODE = 'program_limit_exceeded', HINT = 'Use coarser bins or fewer attributes, or raise dpm.max_cells.';
  END IF;
  -- parse and plan the expressions against the source now, with the custodian's own rights, so
  -- a bad condition fails here, and one that could fail on some row is refused (a release's
  -- outcome must not depend on the rows); releases scan the source with the same rights
  PERFORM dpm_internal.plan_cells(expr, source, dpm_internal.invoker());
  PERFORM dpm_internal.check_cells(dpm_internal.invoker(), source, name, names, exprs);
  INSERT INTO dpm.domains (name, source_id, attributes, attr_names, attr_sizes, bin_labels, bin_lo, bin_hi, attr_exprs,
                           cell_expr, n)
  VALUES (name, src.id, attributes, names, sizes, labels, los, his, exprs, expr, ncells::int);
  RETURN ncells::int;
END
$$;
COMMENT ON FUNCTION dpm.create_domain(text, regclass, jsonb) IS
  'custodian: define the cells of a frequency vector over a source: attributes with value, interval or condition bins (first match wins); returns the number of cells';

CREATE OR REPLACE FUNCTION dpm.exact_answers(workload text)
RETURNS TABLE(query int, label text, answer float8)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
  wl dpm.workloads := dpm_internal.workload(exact_answers.workload);
  dom dpm.domains;
  src dpm.sources;
BEGIN
  SELECT * INTO dom FROM dpm.domains d WHERE d.id = wl.domain_id;
  SELECT * INTO src FROM dpm.sources s WHERE s.id = dom.source_id;
  PERFORM dpm_internal.check_can_read(src.relation);
  -- every row counts here, without the per-unit contribution limit the mechanism applies
  -- zipped with the labels, as in dpm_internal.release_fill (labels[i] costs O(i) a row)
  RETURN QUERY
    SELECT i::int, l, v
      FROM unnest(CASE WHEN wl.matrix IS NOT NULL
                       THEN dpm_internal.matvec(wl.matrix, dpm_internal.frequency_vector(src, dom, dpm_internal.invoker(), false))
                       ELSE dpm_internal.spec_matvec(wl.spec, dom.attr_names, dom.attr_sizes, dom.bin_labels, dom.bin_lo,
                                             dom.bin_hi, dpm_internal.frequency_vector(src, dom, dpm_internal.invoker(), false)) END,
                  wl.labels)
           WITH ORDINALITY AS t(v, l, i);
END
$$;
COMMENT ON FUNCTION dpm.exact_answers(text) IS
  'custodian: the true, noise-free answers of a workload (no privacy; needs SELECT on the source)';

CREATE OR REPLACE FUNCTION dpm_internal.domain(dname text) RETURNS dpm.domains
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  d dpm.domains;
BEGIN
  SELECT * INTO d FROM dpm.domains x WHERE x.name = dname;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'domain "%" does not exist', dname
      USING ERRCODE = 'undefined_object', HINT = 'Existing domains are listed in dpm.domains.';
  END IF;
  RETURN d;
END
$$;

-- The scan a release of this domain runs must work, and its outcome must not depend on the rows:
-- the domain's creator may still read the source (the scan runs with its rights), and every
-- attribute's expression, with the source's own definition (views, row-level security), calls
-- only functions that cannot fail on any value (src/api/safe_expr.c).  No row is read.
CREATE OR REPLACE FUNCTION dpm_internal.check_domain(dom dpm.domains, src dpm.sources) RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF NOT has_table_privilege(dom.created_by, src.relation, 'SELECT') THEN
    RAISE EXCEPTION 'domain "%" cannot be computed: its creator % can no longer read %', dom.name, dom.created_by, src.relation
      USING ERRCODE = 'insufficient_privilege', HINT = 'Ask the custodian to restore the privilege or redefine the domain.';
  END IF;
  PERFORM dpm_internal.plan_cells(dom.cell_expr, src.relation, dom.created_by);
  PERFORM dpm_internal.check_cells(dom.created_by, src.relation, dom.name, dom.attr_names, dom.attr_exprs);
END
$$;
