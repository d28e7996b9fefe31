-- Domains: the cells of a frequency vector, from the custodian's definition.

CREATE OR REPLACE FUNCTION dpm_internal.max_cells() RETURNS int
AS 'MODULE_PATHNAME', 'dpm_max_cells_fn' LANGUAGE C STABLE PARALLEL SAFE;

-- One attribute of a domain definition -> its bins and the CASE expression giving the bin index
-- (src/domain/attribute.c).  The search_path is the one format_type and regclass print names for.
CREATE OR REPLACE FUNCTION dpm_internal.attribute_bins(source regclass, attr jsonb,
                                    OUT aname text, OUT labels text[], OUT lo float8[], OUT hi float8[],
                                    OUT expr text)
AS 'MODULE_PATHNAME', 'dpm_attribute_bins'
LANGUAGE C STABLE SET search_path = pg_catalog, pg_temp;

-- A row's bins, one per attribute, as an int[] expression (NULL elements: in no bin of that attribute).
CREATE OR REPLACE FUNCTION dpm_internal.bins_expr(attr_exprs text[]) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$ SELECT format('ARRAY[%s]::int4[]', array_to_string(ARRAY(SELECT format('(%s)', e) FROM unnest(attr_exprs) e), ', ')) $$;

-- What a domain covers of its source, read as run_as (a custodian), every row counted: per
-- attribute its rows in each bin, the rest being in none of them.  Never shown to analysts: it
-- is the data itself.
CREATE OR REPLACE FUNCTION dpm_internal.coverage(dom dpm.domains, run_as regrole)
RETURNS TABLE(attribute text, rows bigint, rows_in_no_bin bigint, empty_bins text[])
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  src dpm.sources;
  counts float8[];
  off int := 0;
BEGIN
  SELECT * INTO src FROM dpm.sources s WHERE s.id = dom.source_id;
  -- one scan: the number of rows, then each attribute's bin counts (dpm.histogram skips NULL
  -- bins); grouped by the row's bins where the rows live elsewhere (dpm_internal.scan_sql)
  counts := dpm_internal.exec_as(run_as, dpm_internal.scan_sql(src, dom, run_as, false, NULL,
              'ARRAY[count(*)::float8] || ' || (SELECT string_agg(format('coalesce(dpm.histogram((%s), %s), array_fill(0::float8, ARRAY[%s]))',
                                        dom.attr_exprs[k], dom.attr_sizes[k], dom.attr_sizes[k]), ' || ' ORDER BY k)
                 FROM generate_subscripts(dom.attr_names, 1) k),
              dpm_internal.bins_expr(dom.attr_exprs), NULL,
              'ARRAY[sum(g.c)::float8] || ' || (SELECT string_agg(format('coalesce(dpm_internal.histogram_groups(g.k[%s], %s, ARRAY[g.c]), array_fill(0::float8, ARRAY[%s]))',
                                        k, dom.attr_sizes[k], dom.attr_sizes[k]), ' || ' ORDER BY k)
                 FROM generate_subscripts(dom.attr_names, 1) k)));
  FOR k IN 1 .. cardinality(dom.attr_names) LOOP
    attribute := dom.attr_names[k];
    rows := counts[1]::bigint;
    rows_in_no_bin := rows - (SELECT sum(counts[1 + off + i]) FROM generate_series(1, dom.attr_sizes[k]) i)::bigint;
    -- the labels read once (labels[i] of a text[] costs O(i): 100,000 bins took 18 s)
    empty_bins := ARRAY(SELECT u.l FROM unnest(dom.bin_labels[off + 1:off + dom.attr_sizes[k]]) WITH ORDINALITY u(l, i)
                         WHERE counts[1 + off + i] = 0 ORDER BY u.i);
    off := off + dom.attr_sizes[k];
    RETURN NEXT;
  END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION dpm.domain_coverage(domain text)
RETURNS TABLE(attribute text, rows bigint, rows_in_no_bin bigint, empty_bins text[])
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  dom dpm.domains := dpm_internal.domain(domain);
BEGIN
  PERFORM dpm_internal.check_can_read(dpm_internal.source_table((SELECT s FROM dpm.sources s WHERE s.id = dom.source_id),
                                                               dom.name));
  RETURN QUERY SELECT * FROM dpm_internal.coverage(dom, dpm_internal.invoker());
END
$$;
COMMENT ON FUNCTION dpm.domain_coverage(text) IS
  'custodian: what a domain covers of its source now, every row counted (no privacy): per attribute the rows, those in no bin and the empty bins';

-- A domain of source made and stored from its attributes' definition, as run_as (who scans the
-- source for its releases): every expression planned against the source with run_as's rights
-- and checked to be unable to fail on any row; no row is read.
CREATE OR REPLACE FUNCTION dpm_internal.make_domain(name text, src dpm.sources, source regclass, attributes jsonb,
                                                    run_as regrole) RETURNS dpm.domains
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  attr jsonb;
  r record;
  names text[] := '{}'; sizes int[] := '{}'; exprs text[] := '{}';
  labels text[] := '{}'; los float8[] := '{}'; his float8[] := '{}';
  expr text;
  ncells numeric := 1;
  d dpm.domains;
BEGIN
  IF jsonb_typeof(attributes) IS DISTINCT FROM 'array' OR jsonb_array_length(attributes) = 0 THEN
    RAISE EXCEPTION 'attributes must be a non-empty JSON array of attribute definitions'
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  FOR attr IN SELECT value FROM jsonb_array_elements(attributes) LOOP
    -- "values": {"selection": release_id}: the keys that partition selection released
    attr := dpm_internal.selected_values(src, attr);
    r := dpm_internal.attribute_bins(source, attr);
    IF r.aname = ANY (names) THEN
      RAISE EXCEPTION 'attribute "%" appears twice', r.aname USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- every table a release reads must fit dpm.max_cells, so each attribute must (its bins are
    -- counted again here: the attribute's own check rounds a numeric count of width bins)
    IF cardinality(r.labels) > dpm_internal.max_cells() THEN
      RAISE EXCEPTION 'attribute "%" has % bins, more than dpm.max_cells (%)', r.aname, cardinality(r.labels),
        dpm_internal.max_cells()
        USING ERRCODE = 'program_limit_exceeded', HINT = 'Use coarser bins, or raise dpm.max_cells.';
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
    -- no dense cell index: only what a workload of marginals needs is ever built over it
    expr := NULL;
    RAISE NOTICE 'domain "%" has % cells, more than dpm.max_cells (%): it is kept without a dense cell index',
      name, ncells, dpm_internal.max_cells()
      USING DETAIL = 'Its workloads are specs of marginals (Marginal(a, b), Marginals(k)), whose attributes may carry other blocks (Prefix(a) * Identity(b)), answered by method residual.',
            HINT = 'For any other workload, use coarser bins or fewer attributes, or raise dpm.max_cells.';
  END IF;
  -- parse and plan the expressions against the source now, with run_as's own rights, so a bad
  -- condition fails here, and one that could fail on some row is refused (a release's outcome
  -- must not depend on the rows); releases scan the source with the same rights
  PERFORM dpm_internal.plan_cells(coalesce(expr, format('num_nulls(VARIADIC %s)', dpm_internal.bins_expr(exprs))), source, run_as);
  PERFORM dpm_internal.check_cells(run_as, source, name, names, exprs);
  PERFORM dpm_internal.check_foreign_columns(run_as, source);
  BEGIN
    INSERT INTO dpm.domains (name, source_id, attributes, attr_names, attr_sizes, bin_labels, bin_lo, bin_hi, attr_exprs,
                             cell_expr, n, cells, created_by)
    VALUES (name, src.id, attributes, names, sizes, labels, los, his, exprs, expr, CASE WHEN expr IS NOT NULL THEN ncells::int END,
            ncells, run_as)
    RETURNING * INTO d;
  EXCEPTION WHEN unique_violation THEN    -- a concurrent creation committed after the check
    RAISE EXCEPTION 'domain "%" already exists', name USING ERRCODE = 'duplicate_object';
  END;
  RETURN d;
END
$$;

CREATE OR REPLACE FUNCTION dpm.create_domain(name text, source regclass, attributes jsonb) RETURNS float8
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  src dpm.sources;
  d dpm.domains;
  outside text;
  empty text;
BEGIN
  IF name IS NULL OR name = '' THEN
    RAISE EXCEPTION 'domain name must not be empty' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  src := dpm_internal.source(source);
  PERFORM dpm_internal.check_can_read(source);
  IF EXISTS (SELECT 1 FROM dpm.domains d WHERE d.name = name AND d.dropped_at IS NULL) THEN
    RAISE EXCEPTION 'domain "%" already exists', name USING ERRCODE = 'duplicate_object';
  END IF;
  d := dpm_internal.make_domain(name, src, source, attributes, dpm_internal.invoker());
  -- the custodian sees what the bins miss now, before any budget is spent on them
  SELECT string_agg(format('%s rows of %s fall in no bin of attribute "%s"', c.rows_in_no_bin, c.rows, c.attribute), '; ')
           FILTER (WHERE c.rows_in_no_bin > 0),
         string_agg(format('attribute "%s": %s%s', c.attribute, array_to_string(c.empty_bins[1:10], ', '),
                           CASE WHEN cardinality(c.empty_bins) > 10
                                THEN format(' and %s more', cardinality(c.empty_bins) - 10) END), '; ')
           FILTER (WHERE cardinality(c.empty_bins) > 0)
    INTO outside, empty
    FROM dpm_internal.coverage(d, dpm_internal.invoker()) c;
  IF outside IS NOT NULL THEN
    RAISE NOTICE 'domain "%": %', name, outside
      USING DETAIL = 'Those rows are dropped from every count: NULLs, and values no bin lists (values are compared exactly, case included).'
                     || CASE WHEN empty IS NOT NULL THEN format(' Empty bins: %s.', empty) ELSE '' END,
            HINT = format('dpm.domain_coverage(%L) shows this again at any time.', name);
  END IF;
  PERFORM dpm_internal.bound_notice(src, d, dpm_internal.invoker());
  RETURN d.cells::float8;    -- exact to 2^53; dpm.domains.cells holds it exactly
END
$$;
COMMENT ON FUNCTION dpm.create_domain(text, regclass, jsonb) IS
  'custodian: define the cells of a frequency vector over a source, attributes of value, interval or condition bins; returns the number of cells';

-- The true answers of a workload, every row counted (no per-unit limit, no noise): counts, or a
-- measure's sums (each value clamped to its bounds and rounded to its grid, as a release sums it)
-- or averages (those sums over the rows counted, NULL where none is); and beside each, the same
-- over the rows a release keeps in expectation (each privacy unit's at most max_contributions,
-- chosen at random: dpm_internal.capped_vector), which a release's answer estimates without bias
-- and its interval is about (NULL over a wide domain).
CREATE OR REPLACE FUNCTION dpm.exact_answers(workload text, measure text DEFAULT NULL, aggregate text DEFAULT NULL)
RETURNS TABLE(query int, label text, answer float8, capped_answer float8)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
  wl dpm.workloads := dpm_internal.workload(exact_answers.workload);
  dom dpm.domains;
  src dpm.sources;
  m dpm.measures;
  agg text := coalesce(exact_answers.aggregate, CASE WHEN exact_answers.measure IS NULL THEN 'count' ELSE 'sum' END);
  avg boolean := agg = 'avg';
  x float8[];
  xc float8[];
  k int;
  sets int[];
BEGIN
  IF agg NOT IN ('count', 'sum', 'avg') THEN
    RAISE EXCEPTION 'unknown aggregate "%"', agg
      USING ERRCODE = 'invalid_parameter_value', HINT = 'Valid: count, sum (of a measure), avg (of a measure).';
  END IF;
  IF (agg = 'count') <> (exact_answers.measure IS NULL) THEN
    RAISE EXCEPTION '%', CASE agg WHEN 'count' THEN 'aggregate count counts rows: it takes no measure'
                                  ELSE format('aggregate %s needs a measure', agg) END
      USING ERRCODE = 'invalid_parameter_value', HINT = 'Measures are listed in dpm.measures.';
  END IF;
  SELECT * INTO dom FROM dpm.domains d WHERE d.id = wl.domain_id;
  SELECT * INTO src FROM dpm.sources s WHERE s.id = dom.source_id;
  IF exact_answers.measure IS NOT NULL THEN
    m := dpm_internal.measure(src, exact_answers.measure);
  END IF;
  PERFORM dpm_internal.check_can_read(dpm_internal.source_table(src, dom.name));
  -- every row counts here, without the per-unit contribution limit the mechanism applies
  -- zipped with the labels, as in dpm_internal.release_fill (labels[i] costs O(i) a row)
  IF dom.n IS NULL THEN    -- a wide domain: its marginals from their tables
    sets := dpm_internal.residual_table_sets(wl.spec, dom);
    IF m.id IS NULL THEN
      x := dpm_internal.marginal_tables(src, dom, dpm_internal.invoker(), false, sets);
    ELSE
      x := dpm_internal.measure_tables(src, dom, m, dpm_internal.invoker(), false, sets, avg);
    END IF;
    k := cardinality(x) / CASE WHEN avg THEN 2 ELSE 1 END;
    RETURN QUERY
      SELECT e.query, l, dpm_internal.exact_ratio(e.answer, c.answer, m, avg), NULL::float8
        FROM ROWS FROM (dpm_internal.residual_exact(wl.spec, dom, x[1:k]),
                        dpm_internal.workload_labels(wl.labels, wl.spec, dom)) AS e(query, answer, stderr, ci_low, ci_high, ci_draws, l)
        LEFT JOIN dpm_internal.residual_exact(wl.spec, dom, CASE WHEN avg THEN x[k + 1:] END) c ON c.query = e.query;
    RETURN;
  END IF;
  IF m.id IS NULL THEN
    x := dpm_internal.frequency_vector(src, dom, dpm_internal.invoker(), false);
  ELSE
    x := dpm_internal.measure_vector(src, dom, m, dpm_internal.invoker(), false, avg);
  END IF;
  xc := dpm_internal.capped_vector(src, dom, m, dpm_internal.invoker(), avg);
  RETURN QUERY
    SELECT i::int, l, dpm_internal.exact_ratio(v, c, m, avg), dpm_internal.exact_ratio(vc, cc, m, avg)
      FROM unnest(dpm_internal.workload_answers(wl, dom, x[1:dom.n]),
                  CASE WHEN avg THEN dpm_internal.workload_answers(wl, dom, x[dom.n + 1:]) END,
                  wl.labels,
                  dpm_internal.workload_answers(wl, dom, xc[1:dom.n]),
                  CASE WHEN avg THEN dpm_internal.workload_answers(wl, dom, xc[dom.n + 1:]) END)
           WITH ORDINALITY AS t(v, c, l, vc, cc, i);
END
$$;
COMMENT ON FUNCTION dpm.exact_answers(text, text, text) IS
  'custodian: the true, noise-free answers of a workload (counts, or a measure''s sums or averages), and over the rows a release keeps in expectation (no privacy)';

-- A dense workload's answers on a vector of its domain's cells: W x (src/api/pure_api.c).
CREATE OR REPLACE FUNCTION dpm_internal.workload_answers(wl dpm.workloads, dom dpm.domains, x float8[]) RETURNS float8[]
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN wl.matrix IS NOT NULL THEN dpm_internal.matvec(wl.matrix, x)
              ELSE dpm_internal.spec_matvec(wl.spec, dom, x) END
$$;

-- An exact answer in the unit of its aggregate: a count as it is, a sum of measure m (in units of
-- its grid) times its grid, an average that over count c (NULL unless c > 0).
CREATE OR REPLACE FUNCTION dpm_internal.exact_ratio(v float8, c float8, m dpm.measures, avg boolean) RETURNS float8
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN m.id IS NULL THEN v
              WHEN NOT avg THEN v * 2::float8 ^ m.grid_exp
              WHEN c > 0 THEN v * 2::float8 ^ m.grid_exp / c END
$$;

CREATE OR REPLACE FUNCTION dpm_internal.domain(dname text) RETURNS dpm.domains
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  d dpm.domains;
BEGIN
  SELECT * INTO d FROM dpm.domains x WHERE x.name = dname AND x.dropped_at IS NULL;
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
-- only functions that cannot fail on any value (src/security/safe_expr.c), and the capping can compare
-- every value of the privacy unit column (src/security/privacy_unit.c).  No row is read.
CREATE OR REPLACE FUNCTION dpm_internal.check_domain(dom dpm.domains, src dpm.sources) RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF NOT has_table_privilege(dom.created_by, dpm_internal.source_table(src, dom.name), 'SELECT') THEN
    RAISE EXCEPTION 'domain "%" cannot be computed: its creator % can no longer read %', dom.name, dom.created_by, src.relation
      USING ERRCODE = 'insufficient_privilege', HINT = 'Ask the custodian to restore the privilege or redefine the domain.';
  END IF;
  PERFORM dpm_internal.plan_cells(coalesce(dom.cell_expr, format('num_nulls(VARIADIC %s)', dpm_internal.bins_expr(dom.attr_exprs))),
                                  src.relation, dom.created_by);
  PERFORM dpm_internal.check_cells(dom.created_by, src.relation, dom.name, dom.attr_names, dom.attr_exprs);
  PERFORM dpm_internal.check_foreign_columns(dom.created_by, src.relation);
  PERFORM dpm_internal.check_periods(src, dom.created_by);
  PERFORM dpm_internal.check_source_unit(src);
END
$$;

-- A custodian who may read the domain's source (any custodian once its table is gone) drops or
-- renames it.
CREATE OR REPLACE FUNCTION dpm_internal.domain_for_change(dname text) RETURNS dpm.domains
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  dom dpm.domains := dpm_internal.domain(dname);
  rel regclass := (SELECT s.relation FROM dpm.sources s WHERE s.id = dom.source_id);
BEGIN
  IF EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = rel) THEN
    PERFORM dpm_internal.check_can_read(rel);
  END IF;
  RETURN dom;
END
$$;

-- Gone by name; its row stays for the releases made over it, which keep their answers.
CREATE OR REPLACE FUNCTION dpm.drop_domain(domain text, cascade boolean DEFAULT false) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  dom dpm.domains := dpm_internal.domain_for_change(domain);
  live text[];
BEGIN
  PERFORM 1 FROM dpm.domains d WHERE d.id = dom.id FOR UPDATE;
  live := ARRAY(SELECT w.name FROM dpm.workloads w WHERE w.domain_id = dom.id AND w.dropped_at IS NULL ORDER BY w.name);
  IF cardinality(live) > 0 AND NOT cascade THEN
    RAISE EXCEPTION 'domain "%" has % workloads', domain, cardinality(live)
      USING ERRCODE = 'dependent_objects_still_exist',
            DETAIL = format('Workloads: %s%s.', array_to_string(live[1:10], ', '),
                            CASE WHEN cardinality(live) > 10 THEN format(' and %s more', cardinality(live) - 10) ELSE '' END),
            HINT = 'Drop them first, or pass cascade => true to drop them with it; their releases are kept.';
  END IF;
  UPDATE dpm.workloads w SET dropped_at = now() WHERE w.domain_id = dom.id AND w.dropped_at IS NULL;
  UPDATE dpm.domains d SET dropped_at = now() WHERE d.id = dom.id;
END
$$;
COMMENT ON FUNCTION dpm.drop_domain(text, boolean) IS
  'custodian: drop a domain (with cascade, its workloads too); its releases, answers and ledger rows are kept';

CREATE OR REPLACE FUNCTION dpm.rename_domain(domain text, new_name text) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  dom dpm.domains := dpm_internal.domain_for_change(domain);
BEGIN
  IF new_name IS NULL OR new_name = '' THEN
    RAISE EXCEPTION 'domain name must not be empty' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  UPDATE dpm.domains d SET name = new_name WHERE d.id = dom.id;
EXCEPTION WHEN unique_violation THEN
  RAISE EXCEPTION 'domain "%" already exists', new_name USING ERRCODE = 'duplicate_object';
END
$$;
COMMENT ON FUNCTION dpm.rename_domain(text, text) IS 'custodian: rename a domain';

-- One column's privacy domain, checked as a domain's attribute is, and kept to a grid: a plain
-- column of the source with "values" (listed, or {"selection": id}) or "bins" {min, max, width}
-- (numbers, or dates and times: calendar bins).  Returns the row dpm.column_domains keeps.
CREATE OR REPLACE FUNCTION dpm_internal.column_domain(src dpm.sources, source regclass, def jsonb,
                                                      OUT column_name name, OUT kind text, OUT attribute jsonb,
                                                      OUT bins int)
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  col text := CASE WHEN jsonb_typeof(def) = 'object' THEN def->>'column' END;
  typ regtype;
  extra text;
  r record;
BEGIN
  IF col IS NULL THEN
    RAISE EXCEPTION 'a column''s domain is an object naming its "column": %', def
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'For example {"column": "age", "bins": {"min": 0, "max": 100, "width": 5}} or {"column": "sex", "values": ["F", "M"]}.';
  END IF;
  SELECT a.atttypid::regtype INTO typ FROM pg_attribute a
   WHERE a.attrelid = source AND a.attname = col AND a.attnum > 0 AND NOT a.attisdropped;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'column "%" of "%" does not exist', col, source USING ERRCODE = 'undefined_column';
  END IF;
  SELECT string_agg(k, ', ' ORDER BY k) INTO extra FROM jsonb_object_keys(def) k WHERE k NOT IN ('column', 'values', 'bins');
  IF extra IS NOT NULL OR (def ? 'values') = (def ? 'bins') THEN
    RAISE EXCEPTION 'the domain of column "%" must give either "values" or "bins" {min, max, width}%', col,
      CASE WHEN extra IS NOT NULL THEN format(', not %s', extra) ELSE '' END
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Expressions, conditions and bins of unequal widths belong to dpm.create_domain; a column''s domain is a grid the front door filters and groups on.';
  END IF;
  IF def ? 'bins' AND (jsonb_typeof(def->'bins') IS DISTINCT FROM 'object' OR NOT def->'bins' ?& ARRAY['min', 'max', 'width']) THEN
    RAISE EXCEPTION 'the bins of column "%" must be {"min": ..., "max": ..., "width": ...}', col
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Explicit intervals and conditions belong to dpm.create_domain.';
  END IF;
  column_name := col;
  kind := CASE WHEN def ? 'values' THEN 'values'
               WHEN typ IN ('date'::regtype, 'timestamp'::regtype, 'timestamptz'::regtype) THEN 'calendar'
               ELSE 'range' END;
  attribute := jsonb_build_object('name', col, 'column', col) || (def - 'column');
  -- checked as dpm.create_domain checks an attribute: its bins, and its expression planned
  -- against the source with the custodian's rights, reading no row
  r := dpm_internal.attribute_bins(source, dpm_internal.selected_values(src, attribute));
  bins := cardinality(r.labels);
  IF bins > dpm_internal.max_cells() THEN
    RAISE EXCEPTION 'column "%" has % bins, more than dpm.max_cells (%)', col, bins, dpm_internal.max_cells()
      USING ERRCODE = 'program_limit_exceeded', HINT = 'Use coarser bins, or raise dpm.max_cells.';
  END IF;
  PERFORM dpm_internal.plan_cells(format('num_nulls(VARIADIC %s)', dpm_internal.bins_expr(ARRAY[r.expr])), source,
                                  dpm_internal.invoker());
  PERFORM dpm_internal.check_cells(dpm_internal.invoker(), source, col, ARRAY[r.aname], ARRAY[r.expr]);
END
$$;

-- The privacy domains of a source's columns, for the SQL front door: each column of columns (a
-- JSON array of {"column": ..., "values" | "bins": ...}, or {"column": ..., "measure": {"lo",
-- "hi"}} for a measure of that name), and each attribute of domain from_domain that is a plain
-- column on a grid.  A column declared again is replaced; all or nothing.
CREATE OR REPLACE FUNCTION dpm.set_column_domains(source regclass, columns jsonb DEFAULT NULL, from_domain text DEFAULT NULL)
RETURNS TABLE(column_name name, kind text, bins int)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  src dpm.sources;
  def jsonb;
  defs jsonb := '[]';
  d dpm.domains;
  c record;
  m dpm.measures;
  skipped text[] := '{}';
BEGIN
  IF source IS NULL OR (columns IS NULL AND from_domain IS NULL) THEN
    RAISE EXCEPTION 'give a source and its columns, or a domain of it to take them from' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  src := dpm_internal.source(source);
  PERFORM dpm_internal.check_can_read(source);
  IF columns IS NOT NULL THEN
    IF jsonb_typeof(columns) IS DISTINCT FROM 'array' OR jsonb_array_length(columns) = 0 THEN
      RAISE EXCEPTION 'columns must be a non-empty JSON array of column domains' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    defs := columns;
  END IF;
  IF from_domain IS NOT NULL THEN
    d := dpm_internal.domain(from_domain);
    IF d.source_id <> src.id THEN
      RAISE EXCEPTION 'domain "%" is of another source', from_domain USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- its attributes on a grid of a plain column; the others are named
    FOR def IN SELECT a FROM jsonb_array_elements(d.attributes) a LOOP
      IF def ? 'column' AND NOT def ? 'expression' AND (def ? 'values' OR jsonb_typeof(def->'bins') = 'object') THEN
        defs := defs || jsonb_build_array(jsonb_build_object('column', def->'column')
                                          || jsonb_strip_nulls(jsonb_build_object('values', def->'values', 'bins', def->'bins')));
      ELSE
        skipped := skipped || coalesce(def->>'name', def->>'column');
      END IF;
    END LOOP;
    IF cardinality(skipped) > 0 THEN
      RAISE NOTICE 'domain "%": attributes % are not a plain column on a grid, and were not taken', from_domain,
        array_to_string(skipped, ', ')
        USING HINT = 'Declare those columns with values or bins {min, max, width} in columns.';
    END IF;
  END IF;
  FOR def IN SELECT a FROM jsonb_array_elements(defs) a LOOP
    IF jsonb_typeof(def) = 'object' AND def ? 'measure' THEN
      -- a measure named after its column, clamped to its bounds
      IF jsonb_typeof(def->'measure'->'lo') IS DISTINCT FROM 'number' OR jsonb_typeof(def->'measure'->'hi') IS DISTINCT FROM 'number'
         OR (SELECT count(*) FROM jsonb_object_keys(def) k WHERE k NOT IN ('column', 'measure')) > 0 THEN
        RAISE EXCEPTION 'a measure column is {"column": ..., "measure": {"lo": number, "hi": number}}: %', def
          USING ERRCODE = 'invalid_parameter_value';
      END IF;
      SELECT * INTO m FROM dpm.measures x
       WHERE x.source_id = src.id AND x.name = def->>'column' AND x.dropped_at IS NULL;
      IF m.id IS NULL THEN
        PERFORM dpm.create_measure(def->>'column', source, quote_ident(def->>'column'), (def->'measure'->>'lo')::float8,
                                   (def->'measure'->>'hi')::float8);
      ELSIF m.expression <> quote_ident(def->>'column') OR m.lo <> (def->'measure'->>'lo')::float8
            OR m.hi <> (def->'measure'->>'hi')::float8 THEN
        RAISE EXCEPTION 'source "%" already has a measure "%" of other bounds or expression', source, def->>'column'
          USING ERRCODE = 'duplicate_object',
                HINT = 'Releases keep the measures they summed: drop it first (dpm.drop_measure), then declare it again.';
      END IF;
      column_name := def->>'column'; kind := 'measure'; bins := NULL;
      RETURN NEXT;
      CONTINUE;
    END IF;
    c := dpm_internal.column_domain(src, source, def);
    INSERT INTO dpm.column_domains AS x (source_id, column_name, kind, attribute, bins)
    VALUES (src.id, c.column_name, c.kind, c.attribute, c.bins)
    ON CONFLICT ON CONSTRAINT column_domains_pkey DO UPDATE
      SET kind = EXCLUDED.kind, attribute = EXCLUDED.attribute, bins = EXCLUDED.bins,
          declared_by = EXCLUDED.declared_by, declared_at = EXCLUDED.declared_at;
    column_name := c.column_name; kind := c.kind; bins := c.bins;
    RETURN NEXT;
  END LOOP;
END
$$;
COMMENT ON FUNCTION dpm.set_column_domains(regclass, jsonb, text) IS
  'custodian: declare what analysts may group and filter each column of a source by (values, or bins of a finest width), and its measures';

CREATE OR REPLACE FUNCTION dpm.drop_column_domain(source regclass, column_name name) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  src dpm.sources := dpm_internal.source(source);
BEGIN
  IF column_name IS NULL THEN
    RAISE EXCEPTION 'give the column whose domain to drop' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  PERFORM dpm_internal.check_can_read(source);
  DELETE FROM dpm.column_domains x WHERE x.source_id = src.id AND x.column_name = column_name;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'column "%" of "%" has no declared domain', column_name, source
      USING ERRCODE = 'undefined_object', HINT = 'The declared ones are in dpm.column_domains.';
  END IF;
END
$$;
COMMENT ON FUNCTION dpm.drop_column_domain(regclass, name) IS
  'custodian: withdraw a column''s privacy domain; its measures stay (dpm.drop_measure)';
