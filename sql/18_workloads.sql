-- Workloads: linear queries over a domain's cells (analysts).

CREATE OR REPLACE FUNCTION dpm_internal.workload(wname text) RETURNS dpm.workloads
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  wl dpm.workloads;
BEGIN
  SELECT * INTO wl FROM dpm.workloads w WHERE w.name = wname AND w.dropped_at IS NULL;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'workload "%" does not exist', wname
      USING ERRCODE = 'undefined_object', HINT = 'Create it with dpm.create_workload; existing ones are in dpm.workloads.';
  END IF;
  RETURN wl;
END
$$;

-- A name an analyst may give a workload.  Names are one namespace for every role (unique among
-- workloads not dropped), and dpm.answer names the remainders it makes '<workload> (remainder
-- <id>)' (dpm_internal.remainder_store): names of that form are kept for them, so that no
-- analyst can take a remainder's name first and make another's dpm.answer fail.  A form kept out
-- rather than a namespace of their own: a remainder stays a workload like the others, found by
-- the name its release's notice gives (dpm.estimate, dpm.explain).
CREATE OR REPLACE FUNCTION dpm_internal.check_workload_name(wname text) RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF wname IS NULL OR wname = '' THEN
    RAISE EXCEPTION 'workload name must not be empty' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF wname ~ '\(remainder [0-9]+\)$' THEN
    RAISE EXCEPTION 'workload name "%" is of the form dpm.answer names remainders with', wname
      USING ERRCODE = 'invalid_parameter_value', DETAIL = 'Names ending in "(remainder N)" are kept for the remainders dpm.answer makes.',
            HINT = 'Choose another name.';
  END IF;
END
$$;

CREATE OR REPLACE FUNCTION dpm_internal.store_workload(wname text, dom dpm.domains, spec text, matrix float8[], labels text[],
                                    weights float8[], spans int[] DEFAULT NULL, queries bigint DEFAULT NULL)
RETURNS int
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  m bigint := coalesce(queries, array_length(labels, 1), 0);
BEGIN
  IF m > 2147483647 THEN
    RAISE EXCEPTION 'workload of % queries is too large', m
      USING ERRCODE = 'program_limit_exceeded', HINT = 'Ask fewer queries at once.';
  END IF;
  PERFORM dpm_internal.check_workload_name(wname);
  IF EXISTS (SELECT 1 FROM dpm.workloads w WHERE w.name = wname AND w.dropped_at IS NULL) THEN
    RAISE EXCEPTION 'workload "%" already exists', wname USING ERRCODE = 'duplicate_object';
  END IF;
  BEGIN
    INSERT INTO dpm.workloads (name, domain_id, spec, matrix, labels, m, n, weights, spans)
    VALUES (wname, dom.id, spec, matrix, labels, m, dom.n, weights, spans);
  EXCEPTION WHEN unique_violation THEN    -- a concurrent creation committed after the check
    RAISE EXCEPTION 'workload "%" already exists', wname USING ERRCODE = 'duplicate_object';
  END;
  RETURN m;
END
$$;

-- A workload's labels in query order: the kept ones, or made from its spec (a wide domain's).
CREATE OR REPLACE FUNCTION dpm_internal.workload_labels(labels text[], spec text, dom dpm.domains) RETURNS SETOF text
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF labels IS NOT NULL THEN
    RETURN QUERY SELECT unnest(labels);
  ELSE
    RETURN QUERY SELECT q.label FROM dpm_internal.workload_queries(spec, dom) q;
  END IF;
END
$$;

CREATE OR REPLACE FUNCTION dpm.create_workload(name text, domain text, spec text) RETURNS int
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  dom dpm.domains := dpm_internal.domain(domain);
  r record;
BEGIN
  IF dom.n IS NULL THEN
    -- a wide domain answers marginals, from tables that must fit dpm.max_cells: checked now.
    -- Nothing a query is kept: labels, weights and spans are made from the spec when needed.
    PERFORM dpm_internal.residual_table_sets(spec, dom);
    RETURN dpm_internal.store_workload(name, dom, spec, NULL, NULL, NULL,
                                       queries => (SELECT sum(t) FROM unnest(dpm_internal.spec_term_rows(spec, dom)) t));
  ELSE
    -- a matrix past a sixteenth of dpm.max_matrix_mb is not kept: its spec is the workload (the
    -- implicit strategies and exact answers work from it, and a dense strategy builds W when it
    -- runs, faster than reading hundreds of megabytes back from the catalog)
    IF (SELECT sum(t) FROM unnest(dpm_internal.spec_term_rows(spec, dom)) t) * dom.n * 8 * 16
       <= dpm_internal.max_matrix_bytes() THEN
      r := dpm_internal.workload_matrix(spec, dom);
    ELSE
      r := dpm_internal.workload_matrix(spec, dom, false);
    END IF;
  END IF;
  RETURN dpm_internal.store_workload(name, dom, spec, r.matrix, r.labels, r.weights, r.spans);
END
$$;
COMMENT ON FUNCTION dpm.create_workload(text, text, text) IS
  'define a workload over a domain by a spec (Identity, Total, Prefix, AllRange, Range, Marginal, ... combined with * and +); returns its number of queries';

CREATE OR REPLACE FUNCTION dpm.create_workload(name text, domain text, w float8[], weights float8[] DEFAULT NULL)
RETURNS int
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  dom dpm.domains := dpm_internal.domain(domain);
BEGIN
  IF w IS NULL THEN
    RAISE EXCEPTION 'workload matrix must not be NULL' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF dom.n IS NULL THEN
    RAISE EXCEPTION 'domain "%" is too wide for a workload matrix (% cells)', domain, dom.cells
      USING ERRCODE = 'program_limit_exceeded',
            HINT = 'Give the workload as a spec of marginals: Marginal(a, b), Marginals(k).';
  END IF;
  PERFORM dpm.sensitivity(w);        -- rejects empty, NULL-containing, NaN/Inf and oversized input
  IF array_ndims(w) <> 2 OR array_length(w, 2) <> dom.n THEN
    RAISE EXCEPTION 'workload matrix must have one column per cell: domain "%" has % cells, the matrix has % columns',
      domain, dom.n, coalesce(array_length(w, array_ndims(w)), 0)
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF weights IS NOT NULL AND (array_ndims(weights) <> 1 OR array_length(weights, 1) <> array_length(w, 1)
                              OR EXISTS (SELECT 1 FROM unnest(weights) v
                                          WHERE v IS NULL OR NOT dpm_internal.finite(v) OR v < 1e-100 OR v > 1e100)) THEN
    RAISE EXCEPTION 'weights must be one number in [1e-100, 1e100] per query (%)', array_length(w, 1)
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  RETURN dpm_internal.store_workload(name, dom, NULL, w,
    ARRAY(SELECT 'query ' || i FROM generate_series(1, array_length(w, 1)) i),
    CASE WHEN EXISTS (SELECT 1 FROM unnest(weights) v WHERE v <> 1) THEN weights END);
END
$$;
COMMENT ON FUNCTION dpm.create_workload(text, text, float8[], float8[]) IS
  'define a workload over a domain by an explicit matrix, one query a row and one column per cell; weights (optional, one per query) say how much each query matters to the optimizers';

-- Fitness targets may be given per block of the spec (one per + term): spread over its queries.
CREATE OR REPLACE FUNCTION dpm_internal.fitness_options(wl dpm.workloads, options jsonb) RETURNS jsonb
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  t jsonb := options->'targets';
  dom dpm.domains;
  term_rows int[];
BEGIN
  IF jsonb_typeof(t) IS DISTINCT FROM 'array' OR jsonb_array_length(t) = wl.m THEN
    RETURN options;
  END IF;
  IF wl.spec IS NOT NULL THEN
    SELECT * INTO dom FROM dpm.domains d WHERE d.id = wl.domain_id;
    term_rows := dpm_internal.spec_term_rows(wl.spec, dom);
    IF array_length(term_rows, 1) = jsonb_array_length(t) THEN
      RETURN jsonb_set(options, '{targets}',
                       (SELECT jsonb_agg(t->(b - 1) ORDER BY b, r)
                          FROM generate_subscripts(term_rows, 1) b, generate_series(1, term_rows[b]) r));
    END IF;
  END IF;
  RAISE EXCEPTION 'targets must be one variance, one per query (%)%, not an array of %', wl.m,
    CASE WHEN term_rows IS NOT NULL THEN format(' or one per block of the spec (%s)', array_length(term_rows, 1)) ELSE '' END,
    jsonb_array_length(t)
    USING ERRCODE = 'invalid_parameter_value';
END
$$;

-- An analyst changes the workloads and strategies of the roles it belongs to; a custodian, any.
CREATE OR REPLACE FUNCTION dpm_internal.check_owner(owner regrole, what text, action text) RETURNS void
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF NOT pg_has_role(dpm_internal.invoker(), owner, 'USAGE')
     AND NOT pg_has_role(dpm_internal.invoker(), 'dpm_admin', 'USAGE') THEN
    RAISE EXCEPTION 'permission denied: % belongs to %', what, owner
      USING ERRCODE = 'insufficient_privilege', HINT = format('Its creator or a custodian (dpm_admin) can %s it.', action);
  END IF;
END
$$;

CREATE OR REPLACE FUNCTION dpm_internal.workload_for_change(wname text) RETURNS dpm.workloads
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  wl dpm.workloads := dpm_internal.workload(wname);
BEGIN
  PERFORM dpm_internal.check_owner(wl.created_by, format('workload "%s"', wname), 'change');
  RETURN wl;
END
$$;

-- Gone by name, with its strategies; its row stays for the releases made with it.
CREATE OR REPLACE FUNCTION dpm.drop_workload(workload text) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  wl dpm.workloads := dpm_internal.workload_for_change(workload);
BEGIN
  UPDATE dpm.strategies s SET dropped_at = now() WHERE s.workload_id = wl.id AND s.dropped_at IS NULL;
  UPDATE dpm.workloads w SET dropped_at = now() WHERE w.id = wl.id;
END
$$;
COMMENT ON FUNCTION dpm.drop_workload(text) IS
  'analyst: drop a workload of one''s own (custodians: any) and its strategies; its releases and answers are kept';

CREATE OR REPLACE FUNCTION dpm.rename_workload(workload text, new_name text) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  wl dpm.workloads := dpm_internal.workload_for_change(workload);
BEGIN
  PERFORM dpm_internal.check_workload_name(new_name);
  UPDATE dpm.workloads w SET name = new_name WHERE w.id = wl.id;
EXCEPTION WHEN unique_violation THEN
  RAISE EXCEPTION 'workload "%" already exists', new_name USING ERRCODE = 'duplicate_object';
END
$$;
COMMENT ON FUNCTION dpm.rename_workload(text, text) IS
  'analyst: rename a workload of one''s own (custodians: any)';
