-- Publication of releases as plain views for BI tools.

-- Publication for BI tools: a view with one column per attribute, owned by the extension owner
-- (so it reads the catalog whatever the reader may do) and granted to a reporting role, which
-- needs no other dpmatrix right.  security_barrier: a reader's own predicates run after the
-- view's filter, so a leaky function cannot see other releases' rows.
-- A view name as given to dpm.publish: its schema (public when none) and name.
CREATE OR REPLACE FUNCTION dpm_internal.view_name(view_name text, OUT schema_name text, OUT rel_name text)
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  parts text[] := parse_ident(coalesce(view_name, ''));
BEGIN
  IF cardinality(parts) = 1 THEN
    parts := ARRAY['public'] || parts;
  ELSIF cardinality(parts) <> 2 THEN
    RAISE EXCEPTION 'view name "%" must be a name or schema.name', view_name
      USING ERRCODE = 'invalid_name';
  END IF;
  schema_name := parts[1];
  rel_name := parts[2];
END
$$;

-- The + terms of a spec as written, in order: split at each + outside parentheses, brackets and
-- quotes (a doubled quote inside quotes toggles twice).
CREATE OR REPLACE FUNCTION dpm_internal.spec_summands(spec text) RETURNS TABLE(term int, text text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  depth int := 0;
  quote text;
  start int := 1;
  c text;
BEGIN
  term := 0;
  FOR i IN 1 .. length(spec) LOOP
    c := substr(spec, i, 1);
    IF quote IS NOT NULL THEN
      IF c = quote THEN
        quote := NULL;
      END IF;
    ELSIF c IN ('"', '''') THEN
      quote := c;
    ELSIF c IN ('(', '[') THEN
      depth := depth + 1;
    ELSIF c IN (')', ']') THEN
      depth := depth - 1;
    ELSIF c = '+' AND depth = 0 THEN
      term := term + 1;
      text := btrim(substr(spec, start, i - start));
      RETURN NEXT;
      start := i + 1;
    END IF;
  END LOOP;
  term := term + 1;
  text := btrim(substr(spec, start));
  RETURN NEXT;
END
$$;

-- The terms of a spec as a published view names them, in order, with their rows: its + terms,
-- each Marginals(k [, a, ...]) as its marginals, one term each (Marginal(a, b)), in the order the
-- workload lists them (src/workload/spec.c: the k-subsets of the attributes in lexicographic order
-- of their positions), so that a dashboard finds the genre x stars table by its term.
CREATE OR REPLACE FUNCTION dpm_internal.publish_terms(spec text, dom dpm.domains)
RETURNS TABLE(term int, text text, rows int)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  s record;
  counts int[];
  m text[];
  attrs text[];
  pick int[];
  i int;
BEGIN
  term := 0;
  FOR s IN SELECT x.term, x.text FROM dpm_internal.spec_summands(spec) x ORDER BY x.term LOOP
    counts := dpm_internal.spec_term_rows(s.text, dom);
    m := regexp_match(s.text, '^\s*(?:(.*?)\s*\*\s*)?marginals\s*\(\s*(\d+)\s*(,.*)?\)\s*$', 'i');
    IF m IS NULL OR cardinality(counts) < 2 THEN
      term := term + 1;
      text := s.text;
      rows := (SELECT sum(c) FROM unnest(counts) c);
      RETURN NEXT;
      CONTINUE;
    END IF;
    attrs := CASE WHEN m[3] IS NULL THEN dom.attr_names
                  ELSE ARRAY(SELECT btrim(btrim(a), '"') FROM unnest(string_to_array(substr(m[3], 2), ',')) a) END;
    i := 0;
    FOR pick IN WITH RECURSIVE c(p) AS (SELECT ARRAY[j] FROM generate_series(1, cardinality(attrs)) j
                                         UNION ALL
                                         SELECT c.p || j FROM c, generate_series(c.p[cardinality(c.p)] + 1, cardinality(attrs)) j
                                          WHERE cardinality(c.p) < m[2]::int)
                SELECT c.p FROM c WHERE cardinality(c.p) = m[2]::int ORDER BY c.p LOOP
      i := i + 1;
      term := term + 1;
      text := coalesce(m[1] || ' * ', '') || 'Marginal('
              || (SELECT string_agg(quote_ident(attrs[j]), ', ' ORDER BY o) FROM unnest(pick) WITH ORDINALITY u(j, o)) || ')';
      rows := counts[i];
      RETURN NEXT;
    END LOOP;
  END LOOP;
END
$$;

-- The columns of a published view for attribute k of dom (its bins after the first off): the bin
-- when the query counts one, the first and last of a run of bins (<a>_from, <a>_to), NULL when
-- the query puts no condition on it (or is an explicit matrix's row).  A BI tool charts them by
-- type: an attribute of values of a column has that column's type (every label read as one, at
-- publication); an attribute of numeric or calendar bins gains the run's typed bounds, <a>_lo
-- (its first bin's lower edge, numeric, or date or timestamp as the column) and <a>_hi (its last
-- bin's upper edge, exclusive).  Otherwise its labels are text.
CREATE OR REPLACE FUNCTION dpm_internal.publish_columns(dom dpm.domains, k int, off int) RETURNS text
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  a text := dom.attr_names[k];
  def jsonb := dom.attributes->(k - 1);
  typ regtype;
  kind text;
  lo text[];
  hi text[];
  cast_to text := '';
  label text;
BEGIN
  IF NOT def ? 'expression' THEN
    SELECT c.atttypid::regtype INTO typ
      FROM dpm.sources s JOIN pg_catalog.pg_attribute c ON c.attrelid = s.relation AND NOT c.attisdropped
     WHERE s.id = dom.source_id AND c.attname = coalesce(def->>'column', def->>'name');
  END IF;
  IF def ? 'values' AND typ IS NOT NULL AND typ <> 'text'::regtype THEN
    cast_to := '::' || typ::text;
    BEGIN
      FOREACH label IN ARRAY dom.bin_labels[off + 1:off + dom.attr_sizes[k]] LOOP
        EXECUTE format('SELECT %L%s', label, cast_to);
      END LOOP;
    EXCEPTION WHEN OTHERS THEN
      cast_to := '';
    END;
  END IF;
  IF EXISTS (SELECT 1 FROM dpm_internal.bin_intervals(dom, k)) THEN
    kind := CASE WHEN typ IN ('date'::regtype, 'timestamp'::regtype, 'timestamptz'::regtype) THEN 'calendar' ELSE 'range' END;
    lo := ARRAY(SELECT b.lo FROM dpm_internal.query_bins(dom, k, CASE kind WHEN 'calendar' THEN typ ELSE 'numeric' END, kind) b ORDER BY b.bin);
    hi := ARRAY(SELECT b.hi FROM dpm_internal.query_bins(dom, k, CASE kind WHEN 'calendar' THEN typ ELSE 'numeric' END, kind) b ORDER BY b.bin);
  END IF;
  RETURN format(
    $f$       CASE WHEN q.spans[%1$s] > 0 AND q.spans[%1$s] = q.spans[%2$s] THEN d.bin_labels[%3$s + q.spans[%1$s]]%7$s END AS %4$I,
       CASE WHEN q.spans[%1$s] > 0 THEN d.bin_labels[%3$s + q.spans[%1$s]]%7$s END AS %5$I,
       CASE WHEN q.spans[%1$s] > 0 THEN d.bin_labels[%3$s + q.spans[%2$s]]%7$s END AS %6$I,
$f$, 2 * k - 1, 2 * k, off, a, a || '_from', a || '_to', cast_to)
    || CASE WHEN lo IS NOT NULL THEN format(
    $f$       CASE WHEN q.spans[%1$s] > 0 THEN (%3$L::%4$s[])[q.spans[%1$s]] END AS %5$I,
       CASE WHEN q.spans[%1$s] > 0 THEN (%6$L::%4$s[])[q.spans[%2$s]] END AS %7$I,
$f$, 2 * k - 1, 2 * k, lo::text, CASE kind WHEN 'calendar' THEN typ::text ELSE 'numeric' END, a || '_lo', hi::text, a || '_hi')
       ELSE '' END;
END
$$;

CREATE OR REPLACE FUNCTION dpm.publish(release bigint, view_name text, reader regrole DEFAULT NULL)
RETURNS regclass
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  r dpm.releases;
  wl dpm.workloads;
  dom dpm.domains;
  schema_name text;
  rel_name text;
  qualified text;
  pub dpm.publications;
  cols text := '';
  off int := 0;
  a text;
BEGIN
  SELECT * INTO r FROM dpm.releases x WHERE x.id = publish.release;
  IF NOT FOUND OR r.status <> 'released' THEN
    RAISE EXCEPTION 'release % does not exist or has no answers', publish.release
      USING ERRCODE = 'undefined_object', HINT = 'Releases are listed in dpm.releases.';
  END IF;
  IF r.kind = 'keys' THEN
    RAISE EXCEPTION 'release % selected keys and answers no workload: there is nothing to publish', r.id
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  SELECT * INTO wl FROM dpm.workloads w WHERE w.id = r.workload_id;
  SELECT * INTO dom FROM dpm.domains d WHERE d.id = wl.domain_id;
  SELECT v.schema_name, v.rel_name INTO schema_name, rel_name FROM dpm_internal.view_name(publish.view_name) v;
  qualified := format('%I.%I', schema_name, rel_name);
  IF NOT EXISTS (SELECT 1 FROM pg_namespace n WHERE n.nspname = schema_name) THEN
    RAISE EXCEPTION 'schema "%" does not exist', schema_name USING ERRCODE = 'invalid_schema_name';
  END IF;
  IF NOT has_schema_privilege(dpm_internal.invoker(), schema_name, 'CREATE') THEN
    RAISE EXCEPTION 'permission denied to create "%"', qualified
      USING ERRCODE = 'insufficient_privilege', HINT = format('You need CREATE on schema %I.', schema_name);
  END IF;
  IF NOT EXISTS (SELECT 1 FROM dpm.query_spans q WHERE q.workload_id = wl.id) THEN
    -- a wide domain's workload keeps no spans: made from its spec now
    IF wl.spans IS NULL AND wl.spec IS NOT NULL AND dom.n IS NULL THEN
      INSERT INTO dpm.query_spans (workload_id, query, spans)
      SELECT wl.id, q.query, q.spans FROM dpm_internal.workload_queries(wl.spec, dom, true) q;
    ELSE
      INSERT INTO dpm.query_spans (workload_id, query, spans)
      SELECT wl.id, (i - 1) / (2 * cardinality(dom.attr_names)) + 1, array_agg(v ORDER BY i)
        FROM unnest(wl.spans) WITH ORDINALITY u(v, i) GROUP BY 2;
    END IF;
  END IF;
  IF wl.spec IS NOT NULL AND NOT EXISTS (SELECT 1 FROM dpm.workload_terms t WHERE t.workload_id = wl.id) THEN
    -- each term's queries: the rows of the term alone, one term after the other
    INSERT INTO dpm.workload_terms (workload_id, term, first_query, last_query, spec)
    SELECT wl.id, s.term, (sum(s.rows) OVER w - s.rows + 1)::int, (sum(s.rows) OVER w)::int, s.text
      FROM dpm_internal.publish_terms(wl.spec, dom) s
    WINDOW w AS (ORDER BY s.term);
  END IF;
  SELECT * INTO pub FROM dpm.publications p WHERE p.view_name = qualified;
  IF FOUND THEN
    IF pub.domain_id <> dom.id THEN
      RAISE EXCEPTION 'view % shows releases over domain %, not %', qualified,
        (SELECT d.name FROM dpm.domains d WHERE d.id = pub.domain_id), dom.name
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'Its columns are that domain''s attributes: publish under another name, or dpm.unpublish it first.';
    END IF;
    UPDATE dpm.publications p SET release_id = r.id, published_by = dpm_internal.invoker(), published_at = now()
     WHERE p.view_name = qualified;
  ELSE
    IF to_regclass(qualified) IS NOT NULL THEN
      RAISE EXCEPTION 'relation % already exists', qualified USING ERRCODE = 'duplicate_table';
    END IF;
    -- per attribute, its columns (publish_columns)
    FOR k IN 1 .. cardinality(dom.attr_names) LOOP
      a := dom.attr_names[k];
      IF a IN ('release_id', 'released_at', 'query', 'label', 'term', 'term_spec', 'aggregate', 'measure', 'answer', 'stderr', 'ci_low',
               'ci_high', 'confidence') OR EXISTS (SELECT 1 FROM unnest(dom.attr_names) o
                                                    WHERE a IN (o || '_from', o || '_to', o || '_lo', o || '_hi')) THEN
        RAISE EXCEPTION 'attribute "%" would clash with a column of the view', a USING ERRCODE = 'duplicate_column';
      END IF;
      cols := cols || dpm_internal.publish_columns(dom, k, off);
      off := off + dom.attr_sizes[k];
    END LOOP;
    INSERT INTO dpm.publications (view_name, domain_id, release_id) VALUES (qualified, dom.id, r.id);
    -- its owner's view, reading the answers' blocks: row-level security of dpm.release_answers
    -- would show a reader no row
    EXECUTE format($v$CREATE VIEW %s WITH (security_barrier) AS
SELECT ra.release_id, r.released_at, ra.query, ra.label, t.term, t.spec AS term_spec,
%s       CASE WHEN r.sum_share IS NOT NULL THEN 'avg' WHEN r.measure_id IS NOT NULL THEN 'sum' ELSE 'count' END AS aggregate,
       m.name AS measure, ra.answer, ra.stderr, ra.ci_low, ra.ci_high, r.confidence
  FROM dpm.publications p
  JOIN (SELECT b.release_id, (b.first_query + u.i - 1)::int AS query, u.label, u.answer, u.stderr, u.ci_low, u.ci_high
          FROM dpm.release_answer_blocks b,
               unnest(b.label, b.answer, b.stderr, b.ci_low, b.ci_high) WITH ORDINALITY u(label, answer, stderr, ci_low, ci_high, i)) ra
    ON ra.release_id = p.release_id
  JOIN dpm.releases r ON r.id = ra.release_id
  JOIN dpm.domains d ON d.id = p.domain_id
  LEFT JOIN dpm.measures m ON m.id = r.measure_id
  LEFT JOIN dpm.query_spans q ON q.workload_id = r.workload_id AND q.query = ra.query
  LEFT JOIN dpm.workload_terms t ON t.workload_id = r.workload_id AND ra.query BETWEEN t.first_query AND t.last_query
 WHERE p.view_name = %L$v$, qualified, cols, qualified);
    EXECUTE format('COMMENT ON VIEW %s IS %L', qualified,
                   format('dpmatrix release of workload %s over domain %s (dpm.publish); one row per query, one column per attribute', wl.name, dom.name));
  END IF;
  IF publish.reader IS NOT NULL THEN
    EXECUTE format('GRANT SELECT ON %s TO %s', qualified, publish.reader);
  END IF;
  RETURN qualified::regclass;
END
$$;
COMMENT ON FUNCTION dpm.publish(bigint, text, regrole) IS
  'custodian: publish a release as a view, one column per attribute, for a reader role and BI tools';

CREATE OR REPLACE FUNCTION dpm.unpublish(view_name text) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  v record := dpm_internal.view_name(unpublish.view_name);
  qualified text := format('%I.%I', v.schema_name, v.rel_name);
BEGIN
  IF NOT EXISTS (SELECT 1 FROM dpm.publications p WHERE p.view_name = qualified) THEN
    RAISE EXCEPTION 'view % is not a dpmatrix publication', qualified
      USING ERRCODE = 'undefined_object', HINT = 'Publications are listed in dpm.publications.';
  END IF;
  IF NOT has_schema_privilege(dpm_internal.invoker(), v.schema_name, 'CREATE') THEN
    RAISE EXCEPTION 'permission denied to drop %', qualified USING ERRCODE = 'insufficient_privilege';
  END IF;
  EXECUTE format('DROP VIEW IF EXISTS %s', qualified);
  DELETE FROM dpm.publications p WHERE p.view_name = qualified;
END
$$;
COMMENT ON FUNCTION dpm.unpublish(text) IS 'drop a view made by dpm.publish';
