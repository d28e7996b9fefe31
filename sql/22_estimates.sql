-- Estimates from every measurement kept: the best linear unbiased estimate of a workload from all
-- the releases of its domain and of finer ones (src/mechanism/gls.h), post-processing at no cost.

-- Coarser domains.  A domain's cells may be unions of another domain's cells (its "refinement"):
-- ages by 20 years over ages by 10, or sex alone over age x sex.  Measurements of the finer
-- domain then determine queries of the coarser one, through the map of each fine cell to the
-- coarse cell holding it.  The map is read from the definitions alone (never from the data, so
-- that what is reused does not depend on the rows), attribute by attribute: the same bins, or
-- bins over the same column or expression that nest exactly (intervals tiled by finer ones,
-- values among the finer domain's values); an attribute of the finer domain only is allowed
-- when it puts every row in some bin.

-- Attribute j (1-based) of dom: its bins as intervals [lo, hi) of one number line (dates as days
-- since 2000-01-01), bin 0-based; no rows when its bins are not all intervals.
CREATE OR REPLACE FUNCTION dpm_internal.bin_intervals(dom dpm.domains, j int)
RETURNS TABLE(bin int, lo float8, hi float8)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  off int := coalesce((SELECT sum(s) FROM unnest(dom.attr_sizes[1:j - 1]) s), 0);
  size int := dom.attr_sizes[j];
  spec jsonb := dom.attributes->(j - 1)->'bins';
  vmin date;
  vmax date;
  width interval;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM generate_series(off + 1, off + size) k
                  WHERE dom.bin_lo[k] = 'NaN' OR dom.bin_hi[k] = 'NaN') THEN
    RETURN QUERY SELECT k - off - 1, dom.bin_lo[k], dom.bin_hi[k] FROM generate_series(off + 1, off + size) k;
  ELSIF jsonb_typeof(spec) = 'object' AND jsonb_typeof(spec->'min') = 'string'
        AND spec->>'min' ~ '^\d{4}-\d{2}-\d{2}$' AND spec->>'max' ~ '^\d{4}-\d{2}-\d{2}$'
        AND spec->>'width' ~ '^\d{1,5} +(day|week|month|year)s?$' THEN
    -- calendar bins, made as src/domain/attribute.c makes them: min + k widths, the last cut at max
    vmin := (spec->>'min')::date;
    vmax := (spec->>'max')::date;
    width := (spec->>'width')::interval;
    RETURN QUERY
      SELECT k, ((vmin + k * width)::date - date '2000-01-01')::float8,
             (least((vmin + (k + 1) * width)::date, vmax) - date '2000-01-01')::float8
        FROM generate_series(0, size - 1) k
       WHERE (vmin + (size - 1) * width)::date < vmax AND (vmin + size * width)::date >= vmax;
  END IF;
END
$$;

-- Does attribute j of dom put every row in some bin, by its definition and the source's NOT NULL
-- constraints: a condition that is always true; intervals from -Infinity to Infinity, or both
-- values of a boolean, over a NOT NULL column?
CREATE OR REPLACE FUNCTION dpm_internal.attribute_total(dom dpm.domains, j int) RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(x.a->'bins') = 'array' THEN x.a->'bins' END) b
                  WHERE lower(btrim(b->>'condition')) = 'true')
      OR coalesce((SELECT CASE WHEN t.oid = 'boolean'::regtype
                               THEN x.labels && ARRAY['true', 't'] AND x.labels && ARRAY['false', 'f']
                               ELSE (SELECT min(i.lo) = '-Infinity' AND max(i.hi) = 'Infinity' AND count(*) = dom.attr_sizes[j]
                                            AND bool_and(i.prev_hi IS NULL OR i.prev_hi = i.lo)
                                       FROM (SELECT y.lo, y.hi, lag(y.hi) OVER (ORDER BY y.lo) AS prev_hi
                                               FROM dpm_internal.bin_intervals(dom, j) y) i) END
                     FROM dpm.sources s
                     JOIN pg_catalog.pg_attribute c ON c.attrelid = s.relation AND NOT c.attisdropped
                     JOIN pg_catalog.pg_type t ON t.oid = c.atttypid
                    WHERE s.id = dom.source_id AND NOT x.a ? 'expression' AND c.attnotnull
                      AND c.attname = coalesce(x.a->>'column', x.a->>'name')), false)
    FROM (SELECT dom.attributes->(j - 1) AS a,
                 ARRAY(SELECT lower(l) FROM unnest(dom.bin_labels[o.off + 1:o.off + dom.attr_sizes[j]]) l) AS labels
            FROM (SELECT coalesce(sum(z), 0)::int AS off FROM unnest(dom.attr_sizes[1:j - 1]) z) o) x
$$;

-- The bins of attribute i of coarse holding each bin of attribute j of fine (0-based, -1: in
-- none), when every coarse bin is exactly a union of fine bins; else NULL.
CREATE OR REPLACE FUNCTION dpm_internal.bin_map(fine dpm.domains, j int, coarse dpm.domains, i int) RETURNS int[]
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  fa jsonb := fine.attributes->(j - 1);
  ca jsonb := coarse.attributes->(i - 1);
  foff int := coalesce((SELECT sum(s) FROM unnest(fine.attr_sizes[1:j - 1]) s), 0);
  coff int := coalesce((SELECT sum(s) FROM unnest(coarse.attr_sizes[1:i - 1]) s), 0);
  flabels text[] := fine.bin_labels[foff + 1:foff + fine.attr_sizes[j]];
  clabels text[] := coarse.bin_labels[coff + 1:coff + coarse.attr_sizes[i]];
  m int[];
BEGIN
  IF fine.attr_exprs[j] = coarse.attr_exprs[i] THEN           -- the same bins
    RETURN ARRAY(SELECT k FROM generate_series(0, fine.attr_sizes[j] - 1) k);
  END IF;
  -- otherwise bins of the same column or expression
  IF (fa->>'expression') IS DISTINCT FROM (ca->>'expression')
     OR (NOT fa ? 'expression' AND coalesce(fa->>'column', fa->>'name') <> coalesce(ca->>'column', ca->>'name')) THEN
    RETURN NULL;
  END IF;
  IF fa ? 'values' AND ca ? 'values' THEN
    -- one bin per value: each coarse value must be a fine one (labels are the values as written;
    -- repeated labels would leave bins empty by the first-match rule, so none is mapped then)
    IF (SELECT count(DISTINCT l) FROM unnest(flabels) l) <> cardinality(flabels)
       OR (SELECT count(DISTINCT l) FROM unnest(clabels) l) <> cardinality(clabels)
       OR NOT clabels <@ flabels THEN
      RETURN NULL;
    END IF;
    RETURN ARRAY(SELECT coalesce(array_position(clabels, l), 0) - 1 FROM unnest(flabels) WITH ORDINALITY f(l, k) ORDER BY k);
  END IF;
  -- intervals, each side computed once: both sets disjoint, each fine one inside a coarse one or
  -- outside them all, and each coarse one tiled by the fine ones inside it
  WITH f AS (SELECT x.bin, x.lo, x.hi, lag(x.hi) OVER (ORDER BY x.lo) AS prev_hi FROM dpm_internal.bin_intervals(fine, j) x),
       c AS (SELECT x.bin, x.lo, x.hi, lag(x.hi) OVER (ORDER BY x.lo) AS prev_hi FROM dpm_internal.bin_intervals(coarse, i) x)
  SELECT CASE WHEN (SELECT count(*) FROM f) = fine.attr_sizes[j] AND (SELECT count(*) FROM c) = coarse.attr_sizes[i]
                   AND NOT EXISTS (SELECT 1 FROM f WHERE f.prev_hi > f.lo)
                   AND NOT EXISTS (SELECT 1 FROM c WHERE c.prev_hi > c.lo)
                   -- a fine interval overlapping a coarse one without being inside it
                   AND NOT EXISTS (SELECT 1 FROM f, c WHERE f.lo < c.hi AND c.lo < f.hi AND NOT (c.lo <= f.lo AND f.hi <= c.hi))
                   -- a coarse interval not tiled: its fine intervals, in order, must run from its lo to its hi
                   AND NOT EXISTS (SELECT 1 FROM c
                                    WHERE (SELECT min(t.lo) IS DISTINCT FROM c.lo OR max(t.hi) IS DISTINCT FROM c.hi
                                                  OR bool_or(t.prev_hi IS NOT NULL AND t.prev_hi <> t.lo)
                                             FROM (SELECT f.lo, f.hi, lag(f.hi) OVER (ORDER BY f.lo) AS prev_hi
                                                     FROM f WHERE c.lo <= f.lo AND f.hi <= c.hi) t))
              THEN ARRAY(SELECT coalesce((SELECT c.bin FROM c WHERE c.lo <= f.lo AND f.hi <= c.hi), -1) FROM f ORDER BY f.bin) END
    INTO m;
  RETURN m;
END
$$;

-- Each cell of fine's coarse cell (0-based, -1: in none) when coarse's cells are unions of
-- fine's (every attribute of coarse matched by one of fine, fine's others putting every row in
-- some bin), or '{}' then if not cells; else NULL.  Both dense, of one source, scanned as one role (row security), so that
-- they count the same rows.
CREATE OR REPLACE FUNCTION dpm_internal.cell_map(fine dpm.domains, coarse dpm.domains, cells boolean DEFAULT true)
RETURNS int[]
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  nf int := cardinality(fine.attr_sizes);
  nc int := cardinality(coarse.attr_sizes);
  matched int[] := array_fill(0, ARRAY[nc]);        -- the fine attribute of each coarse one
  bins int[] := array_fill(-1, ARRAY[nc, greatest((SELECT max(s) FROM unnest(fine.attr_sizes) s), 1)]);
  fstride int[] := array_fill(1, ARRAY[nf]);
  cstride int[] := array_fill(1, ARRAY[nc]);
  m int[];
BEGIN
  IF fine.source_id <> coarse.source_id OR fine.n IS NULL OR coarse.n IS NULL OR fine.created_by <> coarse.created_by THEN
    RETURN NULL;
  END IF;
  IF fine.id = coarse.id THEN
    RETURN CASE WHEN cells THEN ARRAY(SELECT k FROM generate_series(0, fine.n - 1) k) ELSE '{}' END;
  END IF;
  FOR i IN 1..nc LOOP
    FOR j IN 1..nf LOOP
      CONTINUE WHEN j = ANY (matched);
      m := dpm_internal.bin_map(fine, j, coarse, i);
      IF m IS NOT NULL THEN
        matched[i] := j;
        FOR k IN 1..cardinality(m) LOOP
          bins[i][k] := m[k];
        END LOOP;
        EXIT;
      END IF;
    END LOOP;
    IF matched[i] = 0 THEN
      RETURN NULL;
    END IF;
  END LOOP;
  FOR j IN 1..nf LOOP
    IF NOT j = ANY (matched) AND NOT dpm_internal.attribute_total(fine, j) THEN
      RETURN NULL;
    END IF;
  END LOOP;
  IF NOT cells THEN
    RETURN '{}';
  END IF;
  -- mixed radix, the last attribute fastest
  FOR j IN REVERSE nf - 1..1 LOOP
    fstride[j] := fstride[j + 1] * fine.attr_sizes[j + 1];
  END LOOP;
  FOR i IN REVERSE nc - 1..1 LOOP
    cstride[i] := cstride[i + 1] * coarse.attr_sizes[i + 1];
  END LOOP;
  -- fine cell c is in bin (c / fstride[j]) % size[j] of fine attribute j, so in coarse bin
  -- bins[i][that + 1] of the coarse attribute i matched to j
  RETURN ARRAY(
    SELECT CASE WHEN bool_or(b.cb < 0) THEN -1 ELSE sum(b.cb * cstride[b.i])::int END
      FROM generate_series(0, fine.n - 1) c,
           LATERAL (SELECT i, bins[i][(c / fstride[matched[i]]) % fine.attr_sizes[matched[i]] + 1] AS cb
                      FROM generate_series(1, nc) i) b
     GROUP BY c ORDER BY c);
END
$$;


-- The estimates of w's queries from these releases' measurements of one quantity (counts or
-- sums), in the measurements' units, with interval half-widths at confidence (NULL: none).  With
-- w_map and maps (one row a release), all are taken to a base domain whose cells each map sends
-- to the cells of the workload's or the release's domain (dpm_internal.cell_map).
CREATE OR REPLACE FUNCTION dpm_internal.gls(w float8[], release_ids bigint[], quantity text, confidence float8,
                                            w_map int[] DEFAULT NULL, maps int[] DEFAULT NULL, OUT query int, OUT answer float8, OUT stderr float8, OUT half float8,
                                            OUT determined boolean, OUT ci_draws int)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dpm_gls' LANGUAGE C VOLATILE;

-- Can an estimate write strategy st of a release over dom out as a matrix
-- (dpm_internal.strategy_matrix): a stored one, or one kept by its parameters over a dense domain?
CREATE OR REPLACE FUNCTION dpm_internal.strategy_dense(st dpm.strategies, dom dpm.domains) RETURNS boolean
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$ SELECT st.matrix IS NOT NULL OR dom.n IS NOT NULL $$;

-- The releases of a source an estimate can use for role caller: released answers (not keys) the
-- caller may see (as dpm.releases shows them), of the same quantity (counts; or sums of measure
-- m, from sum and average releases alike) and of periods among those asked for (those of other
-- periods measured other rows); dense: through a strategy written out as a matrix
-- (strategy_dense), which estimates combine.
CREATE OR REPLACE FUNCTION dpm_internal.estimate_releases(source_id int, m dpm.measures, caller regrole, periods int4range)
RETURNS TABLE(id bigint, domain_id int, dense boolean, release_periods int4range)
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT r.id, w.domain_id, dpm_internal.strategy_dense(s, d), r.periods
    FROM dpm.releases r
    JOIN dpm.workloads w ON w.id = r.workload_id
    JOIN dpm.domains d ON d.id = w.domain_id
    JOIN dpm.strategies s ON s.id = r.strategy_id
   WHERE r.source_id = estimate_releases.source_id AND r.kind = 'answers' AND r.status = 'released'
     AND r.counted = 'rows'         -- counts of units are no counts of rows
     AND dpm_internal.bounds_combine(r)     -- under other bounds other rows were counted
     AND (r.periods <@ estimate_releases.periods OR (r.periods IS NULL AND estimate_releases.periods IS NULL))
     AND CASE WHEN m.id IS NULL THEN r.measure_id IS NULL ELSE r.measure_id = m.id END
     AND EXISTS (SELECT 1 FROM dpm.release_measurements x
                  WHERE x.release_id = r.id AND x.quantity = CASE WHEN m.id IS NULL THEN 'counts' ELSE 'sums' END)
     AND (pg_has_role(caller, r.released_by, 'USAGE') OR pg_has_role(caller, 'dpm_admin', 'USAGE'))
$$;

-- The same over a wide domain (no dense cells), from residual releases only, combined residual by
-- residual (src/api/residual_release_api.c); spec is the workload's, of marginals.
CREATE OR REPLACE FUNCTION dpm_internal.wide_gls(spec text, dom dpm.domains, release_ids bigint[], quantity text,
                                                 confidence float8, OUT query int, OUT answer float8, OUT stderr float8,
                                                 OUT half float8, OUT determined boolean, OUT ci_draws int)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dpm_wide_gls' LANGUAGE C VOLATILE;

-- What an estimate over dom uses, for role caller: a base domain (dom, or a finer domain whose
-- releases determine more), the dense releases of every domain it refines (dom's own among them)
-- and of the periods asked for, with their cells' maps from the base (one row a release), and
-- the map of the base to dom.  Periods are disjoint rows: with releases of some of the periods
-- asked for, the cells mapped are the base's in each segment of periods.
-- skipped: the releases of those domains measured through strategies not written out.  Domains of the
-- same definition have the same cells: refinement is decided once per definition.
CREATE OR REPLACE FUNCTION dpm_internal.estimate_plan(dom dpm.domains, m dpm.measures, caller regrole, periods int4range,
                                                      OUT base dpm.domains, OUT ids bigint[], OUT maps int[],
                                                      OUT w_map int[], OUT skipped int)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  -- the releases (estimate_releases), column by column
  rel_ids bigint[];
  rel_domains int[];
  rel_dense boolean[];
  rel_periods int4range[];
  -- one domain per definition measured (dom's own first), with its releases
  defs dpm.domains[];
  dense int[];
  covers boolean[];          -- covers[j]: a candidate base refines definition j
  refines boolean[];         -- the base's row
  nd int;
  dk int;                    -- dom's definition
  best int := -1;
  uses int;
  b int;
  bounds int[];
  nseg int;
BEGIN
  skipped := 0;
  IF dom.n IS NULL THEN
    -- a wide domain: the residual releases of its definition, of the same periods, combined in
    -- the residual basis (dpm_internal.wide_gls); no finer domain, no map
    base := dom;
    SELECT array_agg(r.id ORDER BY r.id) FILTER (WHERE (s.residual).attribute_sets IS NOT NULL AND w.spec IS NOT NULL),
           count(*) FILTER (WHERE (s.residual).attribute_sets IS NULL OR w.spec IS NULL)
      INTO ids, skipped
      FROM dpm_internal.estimate_releases(dom.source_id, m, caller, periods) r
      JOIN dpm.domains d ON d.id = r.domain_id
      JOIN dpm.releases x ON x.id = r.id JOIN dpm.strategies s ON s.id = x.strategy_id JOIN dpm.workloads w ON w.id = x.workload_id
     WHERE d.attr_exprs = dom.attr_exprs AND d.created_by = dom.created_by AND d.n IS NULL
       AND r.release_periods IS NOT DISTINCT FROM estimate_plan.periods;
    RETURN;
  END IF;
  SELECT array_agg(r.id), array_agg(r.domain_id), array_agg(r.dense), array_agg(r.release_periods)
    INTO rel_ids, rel_domains, rel_dense, rel_periods
    FROM dpm_internal.estimate_releases(dom.source_id, m, caller, periods) r;
  SELECT array_agg(x.d ORDER BY (x.d).id <> dom.id, (x.d).id) INTO defs
    FROM (SELECT DISTINCT ON (d.attr_exprs, d.created_by) d
            FROM dpm.domains d
           WHERE d.n IS NOT NULL AND (d.id = dom.id OR d.id = ANY (rel_domains))
           ORDER BY d.attr_exprs, d.created_by, d.id <> dom.id, d.id) x(d);
  nd := cardinality(defs);
  dk := 1;                   -- dom sorts first
  -- the dense releases of each definition
  dense := ARRAY(SELECT count(r.id) FILTER (WHERE r.dense)
                   FROM generate_series(1, nd) k
                   JOIN dpm.domains d ON d.attr_exprs = (defs[k]).attr_exprs AND d.created_by = (defs[k]).created_by
                                     AND d.source_id = dom.source_id
                   LEFT JOIN unnest(rel_ids, rel_domains, rel_dense) r(id, domain_id, dense) ON r.domain_id = d.id
                  GROUP BY k ORDER BY k);
  -- the base: the definition refining dom's that refines the most releases, dom's own on a tie,
  -- then the fewest cells (a coarser domain has at most as many cells as a finer one)
  FOR i IN 1..nd LOOP
    CONTINUE WHEN i <> dk AND ((defs[i]).n > dpm_internal.max_cells() OR (defs[i]).n < dom.n
                               OR dpm_internal.cell_map(defs[i], dom, false) IS NULL);
    covers := ARRAY(SELECT j = i OR ((defs[i]).n >= (defs[j]).n AND dpm_internal.cell_map(defs[i], defs[j], false) IS NOT NULL)
                   FROM generate_series(1, nd) j ORDER BY j);
    uses := (SELECT sum(dense[j]) FROM generate_series(1, nd) j WHERE covers[j]);
    IF uses > best OR (uses = best AND b <> dk AND (defs[i]).n < base.n) THEN
      best := uses;
      base := defs[i];
      b := i;
      refines := covers;
    END IF;
  END LOOP;
  -- periods read apart: the estimate's cells are the base's in each segment between the bounds
  -- of the periods asked for and those of the releases (disjoint rows), a release reading the
  -- segments within its periods
  bounds := ARRAY(SELECT DISTINCT x.b FROM unnest(ARRAY[lower(periods), upper(periods)]
                                                  || ARRAY(SELECT lower(p) FROM unnest(rel_periods) p)
                                                  || ARRAY(SELECT upper(p) FROM unnest(rel_periods) p)) x(b)
                   WHERE x.b IS NOT NULL ORDER BY x.b);
  nseg := greatest(cardinality(bounds) - 1, 1);
  WITH ds AS MATERIALIZED (
    SELECT d.id, dpm_internal.cell_map(base, defs[j]) AS map
      FROM generate_series(1, nd) j
      JOIN dpm.domains d ON d.attr_exprs = (defs[j]).attr_exprs AND d.created_by = (defs[j]).created_by
                        AND d.source_id = dom.source_id
     WHERE refines[j])
  SELECT array_agg(r.id ORDER BY r.id) FILTER (WHERE r.dense),
         array_agg(CASE WHEN nseg = 1 THEN ds.map
                        ELSE ARRAY(SELECT CASE WHEN int4range(bounds[g], bounds[g + 1]) <@ r.release_periods THEN ds.map[c] ELSE -1 END
                                     FROM generate_series(1, nseg) g, generate_series(1, base.n) c ORDER BY g, c) END
                   ORDER BY r.id) FILTER (WHERE r.dense),
         count(*) FILTER (WHERE NOT r.dense)
    INTO ids, maps, skipped
    FROM ds JOIN unnest(rel_ids, rel_domains, rel_dense, rel_periods) r(id, domain_id, dense, release_periods) ON r.domain_id = ds.id;
  w_map := dpm_internal.cell_map(base, dom);
  IF nseg > 1 THEN
    w_map := ARRAY(SELECT w_map[c] FROM generate_series(1, nseg) g, generate_series(1, base.n) c ORDER BY g, c);
  END IF;
END
$$;

-- The estimate of workload wl (over dom) from these releases (dpm_internal.estimate_plan), in the
-- units of its queries (the sums of measure m are kept on its grid).
CREATE OR REPLACE FUNCTION dpm_internal.estimate_from(wl dpm.workloads, dom dpm.domains, m dpm.measures, ids bigint[],
                                                      w_map int[], maps int[], confidence float8)
RETURNS TABLE(query int, label text, answer float8, stderr float8, ci_low float8, ci_high float8, determined boolean)
LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT g.query, g.label, g.answer * u.u, g.stderr * u.u, (g.answer - g.half) * u.u, (g.answer + g.half) * u.u, g.determined
    FROM (SELECT CASE WHEN m.id IS NULL THEN 1 ELSE 2::float8 ^ m.grid_exp END AS u) u,
         LATERAL ROWS FROM (dpm_internal.gls(coalesce(wl.matrix, (dpm_internal.workload_matrix(wl.spec, dom, true, false)).matrix),
                                             ids, CASE WHEN m.id IS NULL THEN 'counts' ELSE 'sums' END, confidence, w_map, maps),
                            dpm_internal.workload_labels(wl.labels, wl.spec, dom))
           AS g(query, answer, stderr, half, determined, ci_draws, label)
   WHERE dom.n IS NOT NULL
  UNION ALL
  SELECT g.query, g.label, g.answer * u.u, g.stderr * u.u, (g.answer - g.half) * u.u, (g.answer + g.half) * u.u, g.determined
    FROM (SELECT CASE WHEN m.id IS NULL THEN 1 ELSE 2::float8 ^ m.grid_exp END AS u) u,
         LATERAL ROWS FROM (dpm_internal.wide_gls(wl.spec, dom, ids, CASE WHEN m.id IS NULL THEN 'counts' ELSE 'sums' END, confidence),
                            dpm_internal.workload_labels(wl.labels, wl.spec, dom))
           AS g(query, answer, stderr, half, determined, ci_draws, label)
   WHERE dom.n IS NULL
$$;

-- The best estimate of a workload's queries from every release of its domain that the caller may
-- see, at no cost: generalized least squares over all their measurements, each weighted by its
-- noise variance, so that releases through different strategies combine.  A query is determined
-- when those measurements fix it; the others get no answer.  Measurements describe the table at
-- their release (its charge): the estimate is as of them.
CREATE OR REPLACE FUNCTION dpm.estimate(workload text, confidence float8 DEFAULT 0.95, measure text DEFAULT NULL,
                                         period_from date DEFAULT NULL, period_to date DEFAULT NULL)
RETURNS TABLE(query int, label text, answer float8, stderr float8, ci_low float8, ci_high float8, determined boolean)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
  wl dpm.workloads;
  dom dpm.domains;
  src dpm.sources;
  meas dpm.measures;
  plan record;
  periods int4range;
BEGIN
  -- every argument before anything else (the plan and the estimate take seconds on large domains)
  IF NOT (estimate.confidence > 0 AND estimate.confidence < 1) THEN
    RAISE EXCEPTION 'confidence must be between 0 and 1 (exclusive), got %', estimate.confidence
      USING ERRCODE = 'invalid_parameter_value', HINT = 'Pass NULL for no intervals.';
  END IF;
  wl := dpm_internal.workload(estimate.workload);
  SELECT * INTO dom FROM dpm.domains d WHERE d.id = wl.domain_id;
  SELECT * INTO src FROM dpm.sources s WHERE s.id = dom.source_id;
  periods := dpm_internal.period_range(src, estimate.period_from, estimate.period_to);
  IF estimate.measure IS NOT NULL THEN
    meas := dpm_internal.measure(src, estimate.measure);
  END IF;
  plan := dpm_internal.estimate_plan(dom, meas, dpm_internal.invoker(), periods);
  IF plan.ids IS NULL THEN
    RAISE EXCEPTION 'no release of domain "%" or of a finer one that you may see has measured its % through a strategy estimates combine', dom.name,
      CASE WHEN meas.id IS NULL THEN 'counts' ELSE format('sums of "%s"', meas.name) END || dpm_internal.in_periods(src, periods)
      USING ERRCODE = 'no_data_found',
            DETAIL = CASE WHEN plan.skipped > 0
                          THEN format('%s release(s) measured it over a domain too wide to write its strategy out.', plan.skipped)
                          ELSE 'Estimates combine the releases of this domain and of finer ones, of the same quantity and periods.' END,
            HINT = 'Release a workload of this domain first (dpm.answer).';
  END IF;
  IF plan.skipped > 0 THEN
    RAISE NOTICE 'the estimate leaves out % release(s) of domain "%" whose strategies cannot be written out',
      plan.skipped, (plan.base).name;
  END IF;
  RETURN QUERY SELECT * FROM dpm_internal.estimate_from(wl, dom, meas, plan.ids, plan.w_map, plan.maps, estimate.confidence);
END
$$;
COMMENT ON FUNCTION dpm.estimate(text, float8, text, date, date) IS
  'the best estimate of a workload from every release of its domain you may see, at no cost: determined queries answered, with errors';

-- What earlier releases give of a workload at no cost, for dpm.answer's reuse: dpm.estimate's
-- rows with the number of releases used and their times, or none when nothing can be reused (an average, a
-- non-negative inference, no release kept); reuse 'only' refuses those cases instead.  With
-- reuse 'auto' and the privacy asked for (epsilon or rho), determined also asks for an answer at
-- least as accurate as the simplest release would give, the workload measured through itself
-- (method workload): a query determined only through measurements of great noise (an HDMM
-- strategy's lightly weighted rows, say) is measured rather than answered that badly for free.
CREATE OR REPLACE FUNCTION dpm_internal.reuse_answers(workload text, measure text, aggregate text, inference text,
                                       confidence float8, mode text, period_from date, period_to date,
                                       epsilon float8 DEFAULT NULL, delta float8 DEFAULT NULL, rho float8 DEFAULT NULL)
RETURNS TABLE(query int, label text, answer float8, stderr float8, ci_low float8, ci_high float8, determined boolean,
              releases int, oldest timestamptz, newest timestamptz)
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
  wl dpm.workloads := dpm_internal.workload(reuse_answers.workload);
  dom dpm.domains := (SELECT d FROM dpm.domains d WHERE d.id = wl.domain_id);
  src dpm.sources := (SELECT s FROM dpm.sources s WHERE s.id = dom.source_id);
  meas dpm.measures;
  periods int4range;
  plan record;
  ids bigint[];             -- the releases reused, none when nothing is
  why text := 'check the arguments with reuse => ''never''';
  cost record;
  np record;
  wm float8[];
  scale float8;
  naive float8;             -- the variance of each answer of the workload measured through itself
BEGIN
  IF reuse_answers.measure IS NOT NULL THEN
    meas := dpm_internal.measure(src, reuse_answers.measure);
  END IF;
  IF coalesce(reuse_answers.aggregate, '') = 'avg' THEN
    why := 'averages are measured afresh';
  ELSIF reuse_answers.aggregate = 'units' THEN
    why := 'counts of distinct privacy units are measured afresh';
  ELSIF coalesce(reuse_answers.inference, 'ls') <> 'ls' THEN
    why := 'only least-squares estimates are reused';
  ELSIF reuse_answers.confidence IS NULL OR (reuse_answers.confidence > 0 AND reuse_answers.confidence < 1) THEN
    periods := dpm_internal.period_range(src, reuse_answers.period_from, reuse_answers.period_to);
    plan := dpm_internal.estimate_plan(dom, meas, dpm_internal.invoker(), periods);
    ids := plan.ids;
    IF ids IS NULL THEN
      why := 'no earlier release of its domain or of a finer one (and of its periods) that you may see measured it through a strategy estimates combine';
    ELSIF reuse_answers.mode = 'auto' AND cardinality(plan.w_map) > 1024 THEN
      -- the estimate decomposes an n x n matrix (seconds past a few thousand cells): not on every
      -- dpm.answer by default; dpm.estimate and reuse 'only' take any size
      why := 'domains of more than 1,024 cells are reused when asked: reuse => ''only'', or dpm.estimate';
      ids := NULL;
    END IF;
  END IF;
  IF ids IS NULL THEN
    IF reuse_answers.mode = 'only' THEN
      RAISE EXCEPTION 'workload "%" cannot be answered from earlier releases: %', wl.name, why
        USING ERRCODE = 'no_data_found', DETAIL = 'Nothing was charged.';
    END IF;
    RETURN;
  END IF;
  -- (over a wide domain W is too large to write out; its residual releases have no lightly weighted rows)
  IF reuse_answers.mode = 'auto' AND (reuse_answers.epsilon IS NOT NULL OR reuse_answers.rho IS NOT NULL) AND dom.n IS NOT NULL THEN
    cost := dpm_internal.privacy_cost(src, reuse_answers.epsilon, coalesce(reuse_answers.delta, 0), reuse_answers.rho);
    np := dpm_internal.noise_params(cost.noise, cost.c_epsilon, cost.c_delta, cost.c_rho);
    wm := coalesce(wl.matrix, (dpm_internal.workload_matrix(wl.spec, dom, true, false)).matrix);
    -- (what a unit adds to W's answers: by its cells too, dpm_internal.unit_rows)
    scale := dpm_internal.unit_scale(src, meas, dpm_internal.strategy_rows(src, 'rows', wm, NULL, NULL, cost.noise, NULL, NULL, cost.noise));
    -- in the answers' units (a sum's are its grid's)
    naive := dpm_internal.noise_variance(cost.noise, scale * dpm.sensitivity(wm, 'l1'), scale * dpm.sensitivity(wm, 'l2'),
                                         np.epsilon, np.delta, np.rho)
             * CASE WHEN meas.id IS NULL THEN 1 ELSE (2::float8 ^ meas.grid_exp) ^ 2 END;
  END IF;
  RETURN QUERY SELECT e.query, e.label, e.answer, e.stderr, e.ci_low, e.ci_high,
                      e.determined AND (naive IS NULL OR e.stderr ^ 2 <= naive * (1 + 1e-9)),
                      cardinality(ids), t.oldest, t.newest
                 FROM dpm_internal.estimate_from(wl, dom, meas, plan.ids, plan.w_map, plan.maps, reuse_answers.confidence) e,
                      (SELECT min(r.released_at) AS oldest, max(r.released_at) AS newest
                         FROM dpm.releases r WHERE r.id = ANY (ids)) t;
END
$$;

-- The remainder of a workload: the queries of parent (1-based) that earlier releases do not
-- determine, a workload of its own that dpm.answer's reuse auto measures (with a strategy
-- optimized for it) instead of the whole.  Stored with this id (the release worker stores the one
-- its caller planned with), or a new one; an existing remainder of the same queries is returned
-- when no id is given.  Its matrix is those rows of the parent's, over the same domain.
CREATE OR REPLACE FUNCTION dpm_internal.remainder_store(parent int, queries int[], id int, created_by regrole) RETURNS int
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  p dpm.workloads := (SELECT w FROM dpm.workloads w WHERE w.id = parent);
  dom dpm.domains := (SELECT d FROM dpm.domains d WHERE d.id = p.domain_id);
  wm float8[];
  wid int := remainder_store.id;
BEGIN
  IF wid IS NULL THEN
    SELECT w.id INTO wid FROM dpm.workloads w
     WHERE w.remainder_of = parent AND w.queries = remainder_store.queries AND w.dropped_at IS NULL ORDER BY w.id LIMIT 1;
    IF FOUND THEN
      RETURN wid;
    END IF;
    wid := nextval(pg_get_serial_sequence('dpm.workloads', 'id'));
  ELSIF EXISTS (SELECT 1 FROM dpm.workloads w WHERE w.id = wid) THEN
    RETURN wid;
  END IF;
  wm := coalesce(p.matrix, (dpm_internal.workload_matrix(p.spec, dom, true, false)).matrix);
  INSERT INTO dpm.workloads (id, name, domain_id, matrix, labels, m, n, created_by, weights, remainder_of, queries)
  SELECT wid, format('%s (remainder %s)', p.name, wid), p.domain_id,
         (SELECT array_agg(ARRAY(SELECT unnest(wm[q.q:q.q][1:dom.n])) ORDER BY q.k)
            FROM unnest(remainder_store.queries) WITH ORDINALITY q(q, k)),
         (SELECT array_agg(l.l ORDER BY q.k)
            FROM unnest(remainder_store.queries) WITH ORDINALITY q(q, k)
            JOIN dpm_internal.workload_labels(p.labels, p.spec, dom) WITH ORDINALITY l(l, i) ON l.i = q.q),
         cardinality(remainder_store.queries), dom.n, remainder_store.created_by,
         CASE WHEN p.weights IS NOT NULL THEN ARRAY(SELECT p.weights[q] FROM unnest(remainder_store.queries) q) END,
         parent, remainder_store.queries;
  RETURN wid;
END
$$;

-- The release worker's first step (src/release/worker.c): the remainder workload a request
-- measures, when its plan made one, then the strategies the plan built.
CREATE OR REPLACE FUNCTION dpm_internal.store_built(built dpm.strategies[], req dpm_internal.planned_release) RETURNS bigint
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF req.remainder_of IS NOT NULL THEN
    PERFORM dpm_internal.remainder_store(req.remainder_of, req.queries, req.workload_id, built[1].created_by);
  END IF;
  RETURN (SELECT count(dpm_internal.strategy_store(s)) FROM unnest(built) s);
END
$$;
