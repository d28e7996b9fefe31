-- The arguments of a release request, checked before anything else runs.

-- Each argument of a request on its own, before anything reads the catalog (src/api/request_api.c);
-- returns the aggregate.
CREATE OR REPLACE FUNCTION dpm_internal.check_request(req dpm_internal.answer_request) RETURNS text
AS 'MODULE_PATHNAME', 'dpm_check_request' LANGUAGE C STABLE STRICT;

-- Every check of a request to dpm.answer, dpm.explain or dpm.explain_queries (a typed
-- dpm_internal.answer_request, as dpm_internal.release_request writes it), checked in one
-- place, first: by each entry point before its reuse path (what earlier releases determine,
-- sql/22_estimates.sql) and by the plan (dpm_internal.release_plan) before any strategy is
-- built, so that an invalid request is refused whatever earlier releases hold and whatever the
-- optimizer would take.  Only cheap checks: the catalog rows the request names, no scan, no
-- matrix.  What can be decided only once a strategy is chosen (its sampler's limits, a residual
-- plan's tables) is the plan's.  Returns what the plan goes on with: the named workload's id, its
-- domain and source, the measure, the periods, the aggregate with its share of the charge, the
-- draws of Laplace intervals, and the charge (NULL when variance targets decide it:
-- accuracy_first).
CREATE OR REPLACE FUNCTION dpm_internal.release_args(req dpm_internal.answer_request, OUT wl_id int, OUT dom dpm.domains, OUT src dpm.sources,
                                                     OUT measure dpm.measures, OUT periods int4range, OUT aggregate text,
                                                     OUT sum_share float8, OUT ci_draws int, OUT delta float8,
                                                     OUT accuracy_first boolean, OUT noise text, OUT c_epsilon numeric,
                                                     OUT c_delta numeric, OUT c_rho numeric)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  sid int := req.strategy;
  mth text := req.method;
  options jsonb := coalesce(req.options, '{}');
  wl_domain int;
  is_spec boolean;
  st_workload int;
  st_method text;
  st_options jsonb;
  targets boolean;
  cost record;
BEGIN
  -- the arguments alone (src/api/request_api.c)
  aggregate := dpm_internal.check_request(req);
  ci_draws := coalesce(req.ci_draws, 1000);   -- the caller's dpm.ci_draws
  sum_share := req.sum_share;
  delta := coalesce(req.delta, 0);

  -- the catalog rows they name (the workload's without its matrix: megabytes)
  SELECT w.id, w.domain_id, w.spec IS NOT NULL INTO wl_id, wl_domain, is_spec
    FROM dpm.workloads w WHERE w.name = req.workload AND w.dropped_at IS NULL;
  IF NOT FOUND THEN
    PERFORM dpm_internal.workload(req.workload);    -- its error
  END IF;
  -- the method's options, as its builder will read them (some of hdmm's and identity's depend on
  -- whether it builds from the spec: a remainder of some queries is a matrix)
  IF mth <> 'auto' THEN
    PERFORM dpm_internal.check_method_options(mth, options, is_spec AND req.queries IS NULL);
  END IF;
  SELECT * INTO dom FROM dpm.domains d WHERE d.id = wl_domain;
  SELECT * INTO src FROM dpm.sources s WHERE s.id = dom.source_id;
  IF sid IS NOT NULL THEN
    SELECT s.workload_id, s.method, s.options INTO st_workload, st_method, st_options
      FROM dpm.strategies s WHERE s.id = sid AND s.dropped_at IS NULL;
    IF NOT FOUND THEN
      PERFORM dpm_internal.strategy_by_id(sid);                -- its error
    END IF;
    IF st_workload <> wl_id THEN
      RAISE EXCEPTION 'strategy % was built for another workload', sid
        USING ERRCODE = 'invalid_parameter_value', HINT = 'Use dpm.optimize on this workload to get a strategy for it.';
    END IF;
    targets := dpm_internal.has_targets(st_method, st_options);
  ELSE
    targets := coalesce(dpm_internal.has_targets(mth, options), false);
  END IF;
  periods := dpm_internal.period_range(src, req.period_from, req.period_to);
  IF req.measure IS NOT NULL THEN
    measure := dpm_internal.measure(src, req.measure);
    PERFORM dpm_internal.check_measure_bounds(measure.name, measure.lo, measure.hi);
    IF coalesce(req.inference, 'ls') = 'nnls_integer' THEN
      RAISE EXCEPTION 'inference nnls_integer rounds counts; a sum of measure "%" is not one', measure.name
        USING ERRCODE = 'invalid_parameter_value', HINT = 'Use ls, or nnls if the measure''s values are never negative.';
    END IF;
    IF req.inference = 'nnls' AND measure.lo < 0 THEN
      RAISE EXCEPTION 'inference nnls makes every cell''s sum non-negative, but measure "%" can be negative (lo = %)', measure.name, measure.lo
        USING ERRCODE = 'invalid_parameter_value', HINT = 'Use inference ls.';
    END IF;
  END IF;

  -- counts of distinct privacy units: the rows of each unit and cell as one, over the dense cells
  IF aggregate = 'units' AND dom.n IS NULL THEN
    RAISE EXCEPTION 'domain "%" has no dense cell index: counts of distinct privacy units are counted over dense cells', dom.name
      USING ERRCODE = 'feature_not_supported', HINT = 'Count rows (aggregate count), or count units over a domain of fewer cells (dpm.max_cells).';
  END IF;
  -- extra parts (the SQL front door's several measures): sums of measures of this source, and the
  -- counts of their rows with a value, each a share of the charge, together less than all of it
  IF req.extra_parts IS NOT NULL THEN
    IF jsonb_typeof(req.extra_parts) <> 'array' OR jsonb_array_length(req.extra_parts) = 0
       OR EXISTS (SELECT 1 FROM jsonb_array_elements(req.extra_parts) e
                   WHERE NOT coalesce(e->>'quantity' ~ '^(sums|counts):[0-9]+$' AND split_part(e->>'quantity', ':', 2) = e->>'measure_id'
                                      AND (e->>'share')::float8 > 0 AND (e->>'share')::float8 < 1, false)
                      OR NOT EXISTS (SELECT 1 FROM dpm.measures m WHERE m.id = (e->>'measure_id')::int AND m.source_id = src.id
                                                                    AND m.dropped_at IS NULL))
       OR (SELECT sum((e->>'share')::float8) FROM jsonb_array_elements(req.extra_parts) e) >= 1
       OR (SELECT count(DISTINCT e->>'quantity') FROM jsonb_array_elements(req.extra_parts) e) < jsonb_array_length(req.extra_parts)
       OR req.sum_share IS NOT NULL OR coalesce(req.inference, 'ls') <> 'ls' THEN
      RAISE EXCEPTION 'extra parts % are not sums or counts of measures of source "%" with shares below 1 in all', req.extra_parts, src.relation
        USING ERRCODE = 'invalid_parameter_value';
    END IF;
  END IF;

  -- the charge, in the source's model: neither epsilon nor rho, with a strategy built for
  -- variance targets (asked for by method, or given), and the targets decide it (the plan)
  accuracy_first := req.epsilon IS NULL AND req.rho IS NULL AND (targets OR sid IS NOT NULL);
  IF accuracy_first AND NOT targets THEN
    cost := dpm_internal.privacy_cost(src, NULL, delta, NULL);    -- refused: give epsilon or rho
  END IF;
  IF accuracy_first AND measure.id IS NOT NULL THEN
    RAISE EXCEPTION 'variance targets are in counts: a sum of a measure needs epsilon or rho'
      USING ERRCODE = 'feature_not_supported';
  END IF;
  IF accuracy_first THEN
    -- what dpm_internal.fitness_need will refuse once the strategy is built, refused before
    IF src.model = 'pure' THEN
      RAISE EXCEPTION 'source "%" is registered for pure epsilon-differential privacy: a % strategy for variance targets needs Gaussian noise',
        src.relation, coalesce(st_method, mth) USING ERRCODE = 'invalid_parameter_value';
    ELSIF src.model = 'approx' AND NOT delta > 0 THEN
      RAISE EXCEPTION 'give delta > 0: the epsilon a % strategy needs for its targets is computed for it', coalesce(st_method, mth)
        USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN;
  END IF;
  cost := dpm_internal.privacy_cost(src, req.epsilon, delta, req.rho);
  IF targets AND cost.noise <> 'gaussian' THEN
    RAISE EXCEPTION 'a % strategy meets variance targets with Gaussian noise, not Laplace', coalesce(st_method, mth)
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Give delta > 0 or rho, or neither epsilon nor rho to be charged what the targets need.';
  END IF;
  noise := cost.noise;
  c_epsilon := cost.c_epsilon;
  c_delta := cost.c_delta;
  c_rho := cost.c_rho;
  IF aggregate = 'avg' THEN
    sum_share := coalesce(sum_share, dpm_internal.avg_sum_share(noise, c_epsilon, c_delta, c_rho));
  END IF;
  -- Laplace intervals take ceil(c (N + 1)) <= N simulated draws (src/mechanism/interval.h); an
  -- average's take those of its sum and count at 1 - (1 - c) / 2
  IF noise = 'laplace' AND req.confidence IS NOT NULL
     AND ceil(dpm_internal.part_confidence(req.confidence, aggregate = 'avg') * (ci_draws + 1)) > ci_draws THEN
    RAISE EXCEPTION 'confidence % needs more than dpm.ci_draws = % simulated draws of the noise', req.confidence, ci_draws
      USING ERRCODE = 'invalid_parameter_value', HINT = 'Raise dpm.ci_draws, or ask for a lower confidence.';
  END IF;
END
$$;
