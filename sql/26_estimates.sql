-- Estimates from every measurement kept: the best linear unbiased estimate of a workload from all
-- the releases of its domain (src/inference/gls.h), post-processing at no cost.

-- The estimates of w's queries from these releases' measurements of one quantity (counts or
-- sums), in the measurements' units, with interval half-widths at confidence (NULL: none).
CREATE OR REPLACE FUNCTION dpm_internal.gls(w float8[], release_ids bigint[], quantity text, confidence float8,
                                            OUT query int, OUT answer float8, OUT stderr float8, OUT half float8,
                                            OUT determined boolean, OUT ci_draws int)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dpm_gls' LANGUAGE C VOLATILE;

-- The releases an estimate over domain dom can use for role caller, oldest first: released
-- answers (not keys) the caller may see (as dpm.releases shows them), of the same quantity (counts;
-- or sums of measure m, from sum and average releases alike), measured through a dense strategy,
-- of the same periods (those of other periods measured other rows).
CREATE OR REPLACE FUNCTION dpm_internal.estimate_releases(dom dpm.domains, m dpm.measures, caller regrole, dense boolean,
                                                          periods int4range)
RETURNS bigint[]
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT array_agg(r.id ORDER BY r.id)
    FROM dpm.releases r
    JOIN dpm.workloads w ON w.id = r.workload_id
    JOIN dpm.strategies s ON s.id = r.strategy_id
   WHERE w.domain_id = dom.id AND r.kind = 'answers' AND r.status = 'released' AND r.periods IS NOT DISTINCT FROM estimate_releases.periods
     AND CASE WHEN m.id IS NULL THEN r.measure_id IS NULL ELSE r.measure_id = m.id END
     AND (s.matrix IS NOT NULL) = dense
     AND EXISTS (SELECT 1 FROM dpm.release_measurements x
                  WHERE x.release_id = r.id AND x.quantity = CASE WHEN m.id IS NULL THEN 'counts' ELSE 'sums' END)
     AND (pg_has_role(caller, r.released_by, 'USAGE') OR pg_has_role(caller, 'dpm_admin', 'USAGE'))
$$;

-- The best estimate of a workload's queries from every release of its domain that the caller may
-- see, at no cost: generalized least squares over all their measurements, each weighted by its
-- noise variance, so that releases through different strategies combine.  A query is determined
-- when those measurements fix it; the others get no answer.  Measurements describe the table at
-- their release (its charge): the estimate is as of them.
CREATE OR REPLACE FUNCTION dpm.estimate(workload text, measure text DEFAULT NULL, confidence float8 DEFAULT 0.95,
                                         period_from date DEFAULT NULL, period_to date DEFAULT NULL)
RETURNS TABLE(query int, label text, answer float8, stderr float8, ci_low float8, ci_high float8, determined boolean)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
  wl dpm.workloads := dpm_internal.workload(estimate.workload);
  dom dpm.domains;
  src dpm.sources;
  meas dpm.measures;
  ids bigint[];
  skipped bigint[];
  u float8 := 1;
  periods int4range;
BEGIN
  IF NOT (estimate.confidence > 0 AND estimate.confidence < 1) THEN
    RAISE EXCEPTION 'confidence must be between 0 and 1 (exclusive), got %', estimate.confidence
      USING ERRCODE = 'invalid_parameter_value', HINT = 'Pass NULL for no intervals.';
  END IF;
  SELECT * INTO dom FROM dpm.domains d WHERE d.id = wl.domain_id;
  SELECT * INTO src FROM dpm.sources s WHERE s.id = dom.source_id;
  periods := dpm_internal.period_range(src, estimate.period_from, estimate.period_to);
  IF estimate.measure IS NOT NULL THEN
    meas := dpm_internal.measure(src, estimate.measure);
    u := 2::float8 ^ meas.grid_exp;
  END IF;
  ids := dpm_internal.estimate_releases(dom, meas, dpm_internal.invoker(), true, periods);
  skipped := dpm_internal.estimate_releases(dom, meas, dpm_internal.invoker(), false, periods);
  IF ids IS NULL THEN
    RAISE EXCEPTION 'no release of domain "%" that you may see has measured its % through a dense strategy', dom.name,
      CASE WHEN meas.id IS NULL THEN 'counts' ELSE format('sums of "%s"', meas.name) END || dpm_internal.in_periods(src, periods)
      USING ERRCODE = 'no_data_found',
            DETAIL = format('%s release(s) measured it through implicit strategies (hdmm, residual), which estimates do not combine yet.',
                            coalesce(cardinality(skipped), 0)),
            HINT = 'Release a workload of this domain first (dpm.answer).';
  END IF;
  IF skipped IS NOT NULL THEN
    RAISE NOTICE 'the estimate leaves out % release(s) of domain "%" measured through implicit strategies (hdmm, residual)',
      cardinality(skipped), dom.name;
  END IF;
  RETURN QUERY
    SELECT g.query, g.label, g.answer * u, g.stderr * u, (g.answer - g.half) * u, (g.answer + g.half) * u, g.determined
      FROM dpm.workloads w,
           LATERAL ROWS FROM (dpm_internal.gls(coalesce(w.matrix, (dpm_internal.workload_matrix(w.spec, dom, true, false)).matrix),
                                               ids, CASE WHEN meas.id IS NULL THEN 'counts' ELSE 'sums' END, estimate.confidence),
                              dpm_internal.workload_labels(w.labels, w.spec, dom))
             AS g(query, answer, stderr, half, determined, ci_draws, label)
     WHERE w.id = wl.id;
END
$$;
COMMENT ON FUNCTION dpm.estimate(text, text, float8, date, date) IS
  'at no cost, the best estimate of a workload''s queries (counts, or sums of measure) from every release of its domain you may see (of a source with periods, those of the same periods as period_from to period_to, chosen as dpm.answer does), combined by generalized least squares weighted by each release''s noise; determined: whether those measurements fix the query (if not, no answer); stderr exact, intervals exact for Gaussian noise and simulated for Laplace; as of the releases'' times';

-- What earlier releases give of a workload at no cost, for dpm.answer's reuse: dpm.estimate's
-- rows with the number of releases used and their times, or none when nothing can be reused (an average, a
-- non-negative inference, no release kept); reuse 'only' refuses those cases instead.
CREATE OR REPLACE FUNCTION dpm_internal.reuse_answers(workload text, measure text, aggregate text, inference text,
                                       confidence float8, mode text, period_from date, period_to date)
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
  ids bigint[];
  why text := 'check the arguments with reuse => ''never''';
BEGIN
  IF reuse_answers.measure IS NOT NULL THEN
    meas := dpm_internal.measure(src, reuse_answers.measure);
  END IF;
  IF coalesce(reuse_answers.aggregate, '') = 'avg' THEN
    why := 'averages are measured afresh';
  ELSIF coalesce(reuse_answers.inference, 'ls') <> 'ls' THEN
    why := 'only least-squares estimates are reused';
  ELSIF reuse_answers.mode = 'auto' AND dom.n > 1024 THEN
    -- the estimate decomposes an n x n matrix (seconds past a few thousand cells): not on every
    -- dpm.answer by default; dpm.estimate and reuse 'only' take any size
    why := 'domains of more than 1,024 cells are reused when asked: reuse => ''only'', or dpm.estimate';
  ELSIF reuse_answers.confidence IS NULL OR (reuse_answers.confidence > 0 AND reuse_answers.confidence < 1) THEN
    ids := dpm_internal.estimate_releases(dom, meas, dpm_internal.invoker(), true,
                                          dpm_internal.period_range(src, reuse_answers.period_from, reuse_answers.period_to));
    IF ids IS NULL THEN
      why := 'no earlier release of its domain (and periods) that you may see measured it through a dense strategy';
    END IF;
  END IF;
  IF ids IS NULL THEN
    IF reuse_answers.mode = 'only' THEN
      RAISE EXCEPTION 'workload "%" cannot be answered from earlier releases: %', wl.name, why
        USING ERRCODE = 'no_data_found', DETAIL = 'Nothing was charged.';
    END IF;
    RETURN;
  END IF;
  RETURN QUERY SELECT e.*, cardinality(ids), t.oldest, t.newest
                 FROM dpm.estimate(wl.name, reuse_answers.measure, reuse_answers.confidence, reuse_answers.period_from,
                                   reuse_answers.period_to) e,
                      (SELECT min(r.released_at) AS oldest, max(r.released_at) AS newest
                         FROM dpm.releases r WHERE r.id = ANY (ids)) t;
END
$$;
