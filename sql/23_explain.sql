-- The dry run of a release: its strategy, cost, errors and intervals, charging nothing.

-- The dry run.  The release dpm.answer would make with these arguments is planned (strategy,
-- noise, charge) and its mechanism run on a vector of zeros: no row of the source is read and
-- nothing is charged, and the standard errors and Gaussian intervals are exactly those the
-- release would report, since the noise does not depend on the data; Laplace intervals come from
-- one simulation per strategy and confidence, scaled to the noise (dpm.interval_widths), where
-- the release simulates its own.  SECURITY DEFINER to sum every charge of the source, as
-- dpm.budget does, and to keep those widths.
CREATE OR REPLACE FUNCTION dpm_internal.dry_run(req dpm_internal.answer_request)
RETURNS TABLE(r dpm.releases, query int, label text, stderr float8, ci_half_width float8, skipped text[])
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
  p record := dpm_internal.release_plan(req, true);
  rel dpm.releases;
  zeros float8[];
  meas dpm.release_measurements;
  scale float8;
  unit float8[];
  sets int[];
BEGIN
  rel.source_id := (p.src).id;
  rel.workload_id := (p.wl).id;
  rel.strategy_id := (p.st).id;
  rel.noise := p.noise;
  rel.epsilon := p.c_epsilon;
  rel.delta := p.c_delta;
  rel.rho := p.c_rho;
  rel.inference := 'ls';
  rel.confidence := req.confidence;
  rel.ci_draws := CASE WHEN p.noise = 'laplace' AND rel.confidence IS NOT NULL THEN p.ci_draws END;
  rel.measure_id := (p.measure).id;
  rel.sum_share := p.sum_share;
  rel.periods := p.periods;
  rel.counted := dpm_internal.request_counted(req);     -- what one unit adds depends on it (dpm_internal.unit_rows)
  IF p.sum_share IS NOT NULL THEN
    -- an average: its error depends on its noisy count, that is on the data; the plan and the
    -- charge are known, the errors are not
    RETURN QUERY
      SELECT rel, l.i::int, l.label, NULL::float8, NULL::float8, p.skipped
        FROM dpm_internal.workload_labels((p.wl).labels, (p.wl).spec, p.dom) WITH ORDINALITY AS l(label, i);
    RETURN;
  END IF;
  -- the data a release reads, all zeros: the frequency vector or a residual strategy's tables
  SELECT dpm_internal.strategy_tables(s.matrix, s.kronecker, s.residual, s.noise, (p.wl).spec, p.dom) INTO sets
    FROM dpm.strategies s WHERE s.id = rel.strategy_id;
  zeros := array_fill(0::float8, ARRAY[CASE WHEN sets IS NULL THEN (p.wl).n
                                            ELSE dpm_internal.table_cells((p.dom).attr_sizes, sets) END]);
  meas := dpm_internal.release_measure(rel, zeros);
  IF rel.noise = 'laplace' AND rel.confidence IS NOT NULL THEN
    -- Laplace widths scale with the noise: simulated once per strategy, confidence and draws, at
    -- unit scale (a residual plan's tables have scales in the fixed ratio of its weights; a sum's
    -- noise, in its grid's units, is the same shape)
    scale := sqrt(meas.variance[1] / 2) * dpm_internal.release_unit(rel);   -- in the answers' units
    SELECT c.unit_half INTO unit FROM dpm.interval_widths c
     WHERE c.strategy_id = rel.strategy_id AND c.confidence = rel.confidence AND c.draws = rel.ci_draws;
    IF NOT FOUND THEN
      SELECT array_agg((i.ci_high - i.ci_low) / 2 / scale ORDER BY i.query) INTO unit
        FROM dpm_internal.release_infer(rel, meas, 'ls', rel.confidence) i;
      INSERT INTO dpm.interval_widths VALUES (rel.strategy_id, rel.confidence, rel.ci_draws, unit) ON CONFLICT DO NOTHING;
    END IF;
    RETURN QUERY
      SELECT rel, m.query, m.label, m.stderr, m.unit_half * scale, p.skipped
        FROM ROWS FROM (dpm_internal.release_infer(rel, meas, 'ls', NULL),
                        dpm_internal.workload_labels((p.wl).labels, (p.wl).spec, p.dom), unnest(unit))
             AS m(query, answer, stderr, ci_low, ci_high, ci_draws, label, unit_half);
    RETURN;
  END IF;
  -- zipped with the labels, as in dpm_internal.release_fill
  RETURN QUERY
    SELECT rel, m.query, m.label, m.stderr, (m.ci_high - m.ci_low) / 2, p.skipped
      FROM ROWS FROM (dpm_internal.release_infer(rel, meas, 'ls', rel.confidence),
                      dpm_internal.workload_labels((p.wl).labels, (p.wl).spec, p.dom))
           AS m(query, answer, stderr, ci_low, ci_high, ci_draws, label);
END
$$;

-- The request dpm.answer would plan with these arguments, checked as it checks them, and what the
-- caller's earlier releases determine already (dpm.answer's reuse): with reuse auto dpm.answer
-- measures only the other queries (unless a strategy or options are given for the whole, or the
-- domain is wide), and so does the dry run; with reuse only it refuses unless every query is
-- determined, and so does the dry run; with never it measures the whole.  Returns the request
-- and the number of queries determined (free; counted with reuse never too when count_free, for
-- dpm.explain's free_queries).
CREATE OR REPLACE FUNCTION dpm_internal.explain_request(workload text, epsilon float8, delta float8, rho float8,
                                     strategy int, method text, options jsonb, inference text, confidence float8,
                                     measure text, aggregate text, sum_share float8, reuse text,
                                     period_from date, period_to date, count_free boolean,
                                     OUT args dpm_internal.answer_request, OUT free int)
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
  mode text;
  e record;
BEGIN
  args := dpm_internal.release_request(workload, epsilon, delta, rho, strategy, method, options, inference, confidence,
                                       measure, aggregate, sum_share, period_from, period_to);
  mode := dpm_internal.reuse_mode(explain_request.reuse);
  -- every argument, before earlier releases are looked at
  PERFORM dpm_internal.release_args(args);
  IF mode = 'never' AND NOT count_free THEN
    RETURN;
  END IF;
  SELECT count(*) AS queries, count(*) FILTER (WHERE x.determined) AS free,
         array_agg(x.query ORDER BY x.query) FILTER (WHERE NOT x.determined) AS rest
    INTO e
    FROM dpm_internal.reuse_answers(explain_request.workload, explain_request.measure, explain_request.aggregate,
                                    explain_request.inference, explain_request.confidence,
                                    CASE WHEN mode = 'only' THEN 'only' ELSE 'auto' END,
                                    explain_request.period_from, explain_request.period_to,
                                    explain_request.epsilon, coalesce(explain_request.delta, 0), explain_request.rho) x;
  free := e.free;
  IF mode = 'only' AND e.free < e.queries THEN
    RAISE EXCEPTION 'earlier releases determine % of the % queries of workload "%"', e.free, e.queries, explain_request.workload
      USING ERRCODE = 'no_data_found', DETAIL = 'Nothing was charged.',
            HINT = 'reuse => ''auto'' measures the workload (charged); dpm.estimate shows which queries are determined.';
  END IF;
  IF mode = 'auto' AND e.free > 0 AND e.rest IS NOT NULL AND explain_request.strategy IS NULL
     AND explain_request.options IS NULL
     AND (SELECT d.n FROM dpm.workloads w JOIN dpm.domains d ON d.id = w.domain_id
           WHERE w.name = explain_request.workload AND w.dropped_at IS NULL) IS NOT NULL THEN
    args.queries := e.rest;
  END IF;
END
$$;

CREATE OR REPLACE FUNCTION dpm.explain(workload text, epsilon float8 DEFAULT NULL, delta float8 DEFAULT NULL,
                            rho float8 DEFAULT NULL, strategy int DEFAULT NULL, method text DEFAULT NULL,
                            options jsonb DEFAULT NULL, inference text DEFAULT 'ls', confidence float8 DEFAULT 0.95,
                            measure text DEFAULT NULL, aggregate text DEFAULT NULL, sum_share float8 DEFAULT NULL,
                            reuse text DEFAULT NULL, period_from date DEFAULT NULL, period_to date DEFAULT NULL)
RETURNS TABLE(strategy_id int, strategy_method text, noise text, measurements int, sensitivity float8,
              charge_epsilon numeric, charge_delta numeric, charge_rho numeric,
              queries int, total_variance float8, rms_error float8, max_stderr float8,
              mean_ci_half_width float8, max_ci_half_width float8, ratio_to_bound float8,
              epsilon_remaining numeric, delta_remaining numeric, rho_remaining numeric, within_budget boolean,
              free_queries int, auto_skipped text[])
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
  req record := dpm_internal.explain_request(explain.workload, explain.epsilon, explain.delta, explain.rho,
                                             explain.strategy, explain.method, explain.options, explain.inference,
                                             explain.confidence, explain.measure, explain.aggregate,
                                             explain.sum_share, explain.reuse, explain.period_from, explain.period_to, true);
  agg record;
  rel dpm.releases;
  st dpm.strategies;
  src dpm.sources;
  spent record;
BEGIN
  free_queries := req.free;
  SELECT (array_agg(e.r) FILTER (WHERE e.query = 1))[1] AS rel, max(e.skipped) AS skipped,
         count(*) AS n, sum(e.stderr ^ 2) AS total, max(e.stderr) AS max_se,
         avg(e.ci_half_width) AS mean_ci, max(e.ci_half_width) AS max_ci
    INTO agg FROM dpm_internal.dry_run(req.args) e;
  rel := agg.rel;
  SELECT * INTO st FROM dpm.strategies s WHERE s.id = rel.strategy_id;
  src := dpm_internal.release_source(rel);
  SELECT * INTO spent FROM dpm_internal.spent(src.id, rel.periods);
  strategy_id := st.id;
  strategy_method := st.method;
  noise := rel.noise;
  measurements := st.rows;
  -- in the answers' units: counts, or the measure's (its grid times its units a row)
  sensitivity := dpm_internal.unit_scale(src, (SELECT m FROM dpm.measures m WHERE m.id = rel.measure_id),
                                         (SELECT dpm_internal.release_rows(src, rel.counted, st.id, w.spec, d, rel.noise)
                                            FROM dpm.workloads w, dpm.domains d WHERE w.id = rel.workload_id AND d.id = w.domain_id))
                 * dpm_internal.release_unit(rel) * CASE rel.noise WHEN 'laplace' THEN st.sensitivity_l1 ELSE st.sensitivity_l2 END;
  charge_epsilon := CASE WHEN src.model <> 'zcdp' OR rel.noise = 'laplace' THEN rel.epsilon END;
  charge_delta := CASE WHEN src.model = 'approx' THEN rel.delta END;
  charge_rho := rel.rho;
  queries := agg.n;
  total_variance := agg.total;
  rms_error := sqrt(agg.total / greatest(agg.n, 1));
  max_stderr := agg.max_se;
  mean_ci_half_width := agg.mean_ci;
  max_ci_half_width := agg.max_ci;
  ratio_to_bound := st.ratio_to_bound;
  auto_skipped := agg.skipped;
  IF src.model = 'zcdp' THEN
    rho_remaining := src.budget_rho - spent.rho - rel.rho;
    within_budget := rho_remaining >= 0;
  ELSE
    epsilon_remaining := src.budget_epsilon - spent.epsilon - rel.epsilon;
    delta_remaining := CASE WHEN src.model = 'approx' THEN src.budget_delta - spent.delta - rel.delta END;
    within_budget := epsilon_remaining >= 0 AND coalesce(delta_remaining >= 0, true);
  END IF;
  RETURN NEXT;
END
$$;
COMMENT ON FUNCTION dpm.explain(text, float8, float8, float8, int, text, jsonb, text, float8, text, text, float8, text, date, date) IS
  'dry run of dpm.answer with the same arguments: the strategy (and the candidates method auto did not use, with why), charge, expected errors and budget left; reads no data, spends nothing';

CREATE OR REPLACE FUNCTION dpm.explain_queries(workload text, epsilon float8 DEFAULT NULL, delta float8 DEFAULT NULL,
                                    rho float8 DEFAULT NULL, strategy int DEFAULT NULL, method text DEFAULT NULL,
                                    options jsonb DEFAULT NULL, inference text DEFAULT 'ls',
                                    confidence float8 DEFAULT 0.95, measure text DEFAULT NULL,
                                    aggregate text DEFAULT NULL, sum_share float8 DEFAULT NULL,
                                    reuse text DEFAULT NULL, period_from date DEFAULT NULL, period_to date DEFAULT NULL)
RETURNS TABLE(query int, label text, stderr float8, ci_half_width float8)
LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
  SELECT e.query, e.label, e.stderr, e.ci_half_width
    FROM dpm_internal.explain_request(workload, epsilon, delta, rho, strategy, method, options, inference, confidence,
                                      measure, aggregate, sum_share, reuse, period_from, period_to, false) req,
         dpm_internal.dry_run(req.args) e
   ORDER BY e.query
$$;
COMMENT ON FUNCTION dpm.explain_queries(text, float8, float8, float8, int, text, jsonb, text, float8, text, text, float8, text, date, date) IS
  'dry run of dpm.answer, query by query: the standard error and confidence interval half-width each answer would have; reads no data and spends nothing';
