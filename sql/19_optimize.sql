-- Strategies: built, chosen, cached and compared (dpm.optimize, dpm.compare_strategies).

-- The noise a strategy is built for: variance targets are variances of Gaussian noise, whatever
-- privacy is given.
CREATE OR REPLACE FUNCTION dpm_internal.noise_kind(method text, delta float8, rho float8, options jsonb DEFAULT NULL)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN delta > 0 OR rho IS NOT NULL OR dpm_internal.has_targets(method, options)
              THEN 'gaussian' ELSE 'laplace' END
$$;

-- The SVD bound of a workload as the optimizers see it (rows scaled by their weights): from the
-- spec's factors where it has one (milliseconds), else from W as stored (the caller's row may
-- leave the matrix out); NULL without a dense cell index.
CREATE OR REPLACE FUNCTION dpm_internal.workload_bound(wl dpm.workloads) RETURNS float8
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN wl.n IS NULL THEN NULL
              WHEN wl.spec IS NOT NULL AND wl.weights IS NULL
                THEN dpm_internal.spec_svd_bound(wl.spec, (SELECT d FROM dpm.domains d WHERE d.id = wl.domain_id))
              ELSE (SELECT dpm.svd_bound(CASE WHEN w.weights IS NULL THEN w.matrix ELSE dpm_internal.scale_rows(w.matrix, w.weights) END)
                      FROM dpm.workloads w WHERE w.id = wl.id AND w.matrix IS NOT NULL)
         END
$$;

-- A cached strategy's row without its matrices (megabytes, which a row variable would detoast).
CREATE OR REPLACE FUNCTION dpm_internal.strategy_head(sid int) RETURNS dpm.strategies
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT s.id, s.workload_id, s.method, s.options, s.noise, NULL::float8[], s.kronecker, s.rows, s.sensitivity_l1,
         s.sensitivity_l2, s.profile_trace, s.max_profile, s.ratio_to_bound, s.iterations, s.lower_bound,
         s.optimize_ms, NULL::float8[], NULL::float8[], s.created_by, s.created_at, s.dropped_at, s.residual
    FROM dpm.strategies s WHERE s.id = sid
$$;

-- A strategy for a workload, built the way the registry says its method builds (src/api/
-- strategy_build_api.c: W and a dense builder, HDMM's optimizers over the spec, a Kronecker
-- product of identities, or ResidualPlanner), in the form it is kept in, with what dpm.strategies
-- records of it; known_bound: the workload's SVD bound when the caller has it (method auto
-- computes it once).
CREATE OR REPLACE FUNCTION dpm_internal.build_strategy(wl dpm.workloads, dom dpm.domains, method text, noise text,
                                                        options jsonb, known_bound float8,
                                                        OUT matrix float8[], OUT kronecker dpm.kronecker_strategy,
                                                        OUT residual dpm.residual_plan, OUT rows int,
                                                        OUT sensitivity_l1 float8, OUT sensitivity_l2 float8,
                                                        OUT profile float8[], OUT profile_trace float8,
                                                        OUT max_profile float8, OUT iterations int,
                                                        OUT lower_bound float8, OUT bound float8, OUT optimize_ms float8)
AS 'MODULE_PATHNAME', 'dpm_build_strategy' LANGUAGE C VOLATILE;

-- The same as a row of dpm.strategies, built (the optimization runs here, in the caller's
-- backend) but not stored: its id is NULL.  Reads no data.
CREATE OR REPLACE FUNCTION dpm_internal.strategy_build(workload_id int, method text, noise text, options jsonb,
                                                       known_bound float8 DEFAULT NULL)
RETURNS dpm.strategies
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  wl dpm.workloads;
  st dpm.strategies;
  b record;
BEGIN
  SELECT * INTO wl FROM dpm.workloads w WHERE w.id = workload_id;
  b := dpm_internal.build_strategy(wl, (SELECT d FROM dpm.domains d WHERE d.id = wl.domain_id), method, noise, options,
                                   known_bound);
  st.workload_id := wl.id;
  st.method := method;
  st.options := options;
  st.noise := noise;
  st.created_by := dpm_internal.invoker();
  st.created_at := now();
  st.matrix := b.matrix;
  st.kronecker := b.kronecker;
  st.residual := b.residual;
  st.rows := b.rows;
  st.sensitivity_l1 := b.sensitivity_l1;
  st.sensitivity_l2 := b.sensitivity_l2;
  st.profile := b.profile;
  st.profile_trace := b.profile_trace;
  st.max_profile := b.max_profile;
  st.iterations := b.iterations;
  st.lower_bound := b.lower_bound;
  st.optimize_ms := b.optimize_ms;
  -- total error over the SVD bound's, in the norm of the noise: at least 1, the bound being one
  -- over every strategy; below it by a few roundings only (the sums are compensated), read as 1
  st.ratio_to_bound := CASE noise WHEN 'laplace' THEN st.sensitivity_l1 ^ 2 ELSE st.sensitivity_l2 ^ 2 END
                       * b.profile_trace / nullif(b.bound, 0);
  IF st.ratio_to_bound < 1 AND st.ratio_to_bound > 1 - 1e-12 THEN
    st.ratio_to_bound := 1;
  END IF;
  RETURN st;
END
$$;

-- Caches a built strategy; the id of the cached row with its key (a concurrent session may have
-- stored the same one first).
CREATE OR REPLACE FUNCTION dpm_internal.strategy_store(st dpm.strategies) RETURNS int
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  sid int;
BEGIN
  INSERT INTO dpm.strategies (workload_id, method, options, noise, matrix, kronecker, residual, rows, sensitivity_l1,
                              sensitivity_l2, profile_trace, max_profile, ratio_to_bound, iterations, lower_bound,
                              optimize_ms, pinv, profile, created_by, created_at)
  VALUES (st.workload_id, st.method, st.options, st.noise, st.matrix, st.kronecker, st.residual, st.rows, st.sensitivity_l1,
          st.sensitivity_l2, st.profile_trace, st.max_profile, st.ratio_to_bound, st.iterations, st.lower_bound,
          st.optimize_ms, st.pinv, st.profile, st.created_by, st.created_at)
  ON CONFLICT (workload_id, method, options, noise) WHERE dropped_at IS NULL DO NOTHING
  RETURNING id INTO sid;
  IF sid IS NULL THEN
    SELECT s.id INTO sid FROM dpm.strategies s
     WHERE s.workload_id = st.workload_id AND s.method = st.method AND s.options = st.options AND s.noise = st.noise
       AND s.dropped_at IS NULL;
  END IF;
  RETURN sid;
END
$$;

-- What a release through a dense strategy needs besides its profile: the pseudo-inverse (from the
-- Cholesky factor of A^T A where it is well conditioned, else by the SVD, robust at any
-- conditioning), computed for the strategy chosen, not for every candidate
-- ranked, and kept.  A row that another transaction holds is left to it (SKIP LOCKED): the
-- mechanism then computes what it needs itself (dpm_internal.dense_infer with pinv NULL).
CREATE OR REPLACE FUNCTION dpm_internal.cache_strategy(sid int) RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  PERFORM 1 FROM dpm.strategies s WHERE s.id = sid AND s.matrix IS NOT NULL AND s.pinv IS NULL FOR UPDATE SKIP LOCKED;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  UPDATE dpm.strategies s
     SET (pinv, profile) = (SELECT c.pinv, c.profile
                              FROM dpm.workloads w JOIN dpm.domains d ON d.id = w.domain_id,
                                   LATERAL dpm_internal.strategy_cache(
                                             coalesce(w.matrix, (dpm_internal.workload_matrix(w.spec, d, true, false)).matrix),
                                             s.matrix) c
                             WHERE w.id = s.workload_id)
   WHERE s.id = sid;
END
$$;

-- The strategy for a workload: the cached one with this method, options and noise, or a new one
-- built now; for method auto, the lowest expected error of the candidates (every one is data
-- independent, so choosing by expected error spends no budget; the total error is
-- (Laplace) 2 (Delta_1/eps)^2 trace or (Gaussian) sigma(eps, delta, 1)^2 Delta_2^2 trace).
-- Auto tries the candidates cheapest first (the registry's order) and stops as soon as the best
-- is within 1e-5 of a lower bound on every strategy's error: the workload's SVD bound, or
-- gaussian_optimal's dual bound (ResidualPlanner's plans for marginals reach the first).  Under
-- Laplace noise it leaves gaussian_optimal, a program for Gaussian noise alone, to be asked for by
-- name.  Every dpm.progress_interval seconds a NOTICE says which candidate is next.  Once
-- dpm.auto_time_budget has passed it builds no further candidate (a cached one still counts) and
-- says so in a NOTICE.  skipped: each candidate auto did not use, with why (ruled out, no time
-- left, or not needed after a proven optimum), for dpm.explain.
-- store: cache what is built at once (dpm.optimize, dpm.explain).  Otherwise (dpm.answer) this
-- transaction writes nothing: the new strategies come back in built, st among them with a NULL
-- id, for the release worker to cache in a transaction of its own, which could not see them
-- here.  A cached strategy that this transaction made cannot be used so either.  cache_pick:
-- the pick, built and stored here, gets its pseudo-inverse (not for dpm.compare_strategies, which
-- only ranks).
CREATE OR REPLACE FUNCTION dpm_internal.choose_strategy(wl dpm.workloads, method text, noise text, options jsonb, store boolean,
                                     cache_pick boolean DEFAULT true, groups int DEFAULT NULL,
                                     OUT st dpm.strategies, OUT built dpm.strategies[], OUT skipped text[])
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  cand text;
  c dpm.strategies;
  sid int;
  mine boolean;
  found_one boolean := false;
  built_here boolean;
  pick_built boolean := false;
  err float8;
  best_err float8;
  eigen_rows int;
  msg text;
  late text[] := '{}';  -- candidates left out for lack of time
  -- the registry's: auto's candidates in its order (or the method named), each one's traits
  cands text[] := dpm_internal.auto_candidates(method, noise, wl.n);
  -- a spec workload without its matrix: one kept as its spec (too large for W), or the row a
  -- release plans with (release_plan leaves the matrix out), where auto keeps to the strategies a
  -- spec gives without an n x n optimizer (dpm.optimize builds the others; strategy => id uses one)
  kept_as_spec boolean := wl.spec IS NOT NULL AND wl.matrix IS NULL;
  in_release boolean := kept_as_spec AND EXISTS (SELECT FROM dpm.workloads w WHERE w.id = wl.id AND w.matrix IS NOT NULL);
  traits record;
  bound float8;       -- the workload's SVD bound, computed once, when a candidate is first built
  certified float8;   -- gaussian_optimal's dual: no strategy's total error at unit noise is lower
  started timestamptz := clock_timestamp();
  noted timestamptz := clock_timestamp();
  every interval := coalesce(nullif(current_setting('dpm.progress_interval', true), ''), '0')::interval;
  -- '30s', '2min', ... or -1 (no limit)
  budget interval := coalesce(nullif(current_setting('dpm.auto_time_budget', true), ''), '30s')::interval;
BEGIN
  built := '{}';
  skipped := '{}';
  IF method = 'auto' AND options <> '{}' THEN
    RAISE EXCEPTION 'method auto takes no options' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  FOR k IN 1 .. cardinality(cands) LOOP
    cand := cands[k];
    -- the rank of W is the eigen strategy's number of rows, which auto builds before lrm
    msg := CASE WHEN method = 'auto' THEN dpm_internal.method_rules_out(cand, wl.n, wl.spec IS NOT NULL, kept_as_spec, wl.m,
                                                                        eigen_rows, noise) END;
    IF in_release AND msg IS NOT NULL THEN
      msg := coalesce(dpm_internal.method_rules_out(cand, wl.n, true, false, wl.m, eigen_rows, noise),
                      'a release builds no n x n strategy for a workload given by its spec (dpm.optimize does: pass its id as strategy)');
    END IF;
    traits := dpm_internal.method_traits(cand);
    IF msg IS NOT NULL THEN
      skipped := skipped || (cand || ': ' || msg);
      CONTINUE;
    END IF;
    SELECT s.id, dpm_internal.in_this_transaction(s.xmin) INTO sid, mine FROM dpm.strategies s
     WHERE s.workload_id = wl.id AND s.method = cand AND s.options = options AND s.noise = noise AND s.dropped_at IS NULL;
    IF sid IS NOT NULL THEN
      IF mine AND NOT store THEN
        RAISE EXCEPTION 'strategy % (method %) is not committed yet', sid, cand
          USING ERRCODE = 'object_not_in_prerequisite_state',
                HINT = 'dpm.answer charges in a transaction of its own, which cannot see what this transaction has not committed: commit first.';
      END IF;
      c := dpm_internal.strategy_head(sid);
      built_here := false;
    ELSIF method = 'auto' AND found_one AND budget >= '0' AND clock_timestamp() - started >= budget THEN
      late := late || cand;
      skipped := skipped || (cand || ': not tried, dpm.auto_time_budget (' || current_setting('dpm.auto_time_budget') || ') was spent');
      CONTINUE;
    ELSE
      built_here := true;
      IF every > '0' AND clock_timestamp() - noted >= every THEN
        noted := clock_timestamp();
        RAISE NOTICE 'auto: trying %, candidate % of %; best so far %, % s', cand, k, cardinality(cands),
          coalesce(st.method, 'none'), round(extract(epoch FROM noted - started)::numeric, 1);
      END IF;
      IF method = 'auto' AND bound IS NULL AND NOT traits.own_bound THEN
        BEGIN
          bound := dpm_internal.workload_bound(wl);
        EXCEPTION WHEN program_limit_exceeded THEN
          NULL;   -- W past dpm.max_matrix_mb: each candidate meets the limit itself, and says so
        END;
      END IF;
      BEGIN
        c := dpm_internal.strategy_build(wl.id, cand, noise, options, bound);
      EXCEPTION WHEN invalid_parameter_value OR program_limit_exceeded OR feature_not_supported THEN
        IF method <> 'auto' THEN
          RAISE;
        END IF;
        GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT;
        skipped := skipped || (cand || ': ' || msg);
        CONTINUE;
      END;
      IF store THEN
        c.id := dpm_internal.strategy_store(c);
        c.matrix := NULL; c.pinv := NULL; c.profile := NULL;
      ELSE
        built := built || c;
      END IF;
    END IF;
    IF traits.rows_are_rank THEN
      eigen_rows := c.rows;
    END IF;
    -- every calibration is linear in the sensitivity: unit privacy ranks as any other would
    err := c.profile_trace * dpm_internal.noise_variance(noise, c.sensitivity_l1, c.sensitivity_l2, 1, NULL, 1);
    IF groups IS NOT NULL THEN
      -- a unit in at most groups cells (dpm_internal.unit_groups): each strategy's own factor
      -- (the matrix of a stored dense one read from the catalog)
      err := err * (SELECT dpm_internal.strategy_group_factor(coalesce(c.matrix, s.matrix), c.kronecker, c.residual, c.noise,
                                                              wl.spec, d, groups, noise) ^ 2
                      FROM dpm.domains d LEFT JOIN dpm.strategies s
                             ON s.id = c.id AND c.matrix IS NULL AND c.kronecker IS NULL AND c.residual IS NULL
                     WHERE d.id = wl.domain_id);
    END IF;
    IF NOT found_one OR err < best_err THEN
      st := c;
      best_err := err;
      found_one := true;
      pick_built := built_here;
    END IF;
    -- at the SVD bound (ratio_to_bound, in the norm of the noise), or at gaussian_optimal's dual
    -- bound, no strategy at all is lower (doc/guide/strategies.md, "How far from the best possible")
    IF traits.certifies THEN
      certified := c.lower_bound;
    END IF;
    IF method = 'auto' AND groups IS NULL AND (st.ratio_to_bound <= 1 + 1e-5
                            OR best_err <= certified * dpm_internal.noise_variance(noise, 1, 1, 1, NULL, 1) * (1 + 1e-5)) THEN
      skipped := skipped || ARRAY(SELECT x || ': not needed, ' || st.method || ' is at a proven lower bound'
                                    FROM unnest(cands[k + 1:]) x);
      EXIT;
    END IF;
    -- the candidates go to the worker in one value: past 64 MB (large domains) only the best is
    -- kept, and the others are built again when asked for
    IF NOT store AND cardinality(built) > 1
       AND (SELECT sum(pg_column_size(b)) FROM unnest(built) b) > 64 * 1024 * 1024 THEN
      built := ARRAY(SELECT b FROM unnest(built) b WHERE st.id IS NULL AND b.method = st.method);
    END IF;
  END LOOP;
  IF NOT found_one THEN
    RAISE EXCEPTION 'no strategy method can answer workload "%"', wl.name
      USING ERRCODE = 'invalid_parameter_value',
            DETAIL = 'Method auto ruled out ' || array_to_string(skipped, '; ') || '.',
            HINT = 'Try the methods one by one with dpm.optimize to see their errors, or change the workload.';
  END IF;
  IF cardinality(late) > 0 THEN
    RAISE NOTICE 'auto picked % without trying %: dpm.auto_time_budget (%) was spent', st.method,
      array_to_string(late, ', '), current_setting('dpm.auto_time_budget')
      USING HINT = 'Raise dpm.auto_time_budget (-1: no limit) to try them, or name a method.';
  END IF;
  -- the pick, stored here, is what a release will read (a pick built for dpm.answer is cached by
  -- its release worker; one already stored and committed is left as it is, so that this
  -- transaction does not take it over)
  IF store AND cache_pick AND pick_built THEN
    PERFORM dpm_internal.cache_strategy(st.id);
  END IF;
  st.matrix := NULL; st.pinv := NULL; st.profile := NULL;   -- the plan reads the matrices by id
END
$$;

CREATE OR REPLACE FUNCTION dpm.optimize(workload text, epsilon float8 DEFAULT NULL, delta float8 DEFAULT NULL,
                             rho float8 DEFAULT NULL, method text DEFAULT 'auto', options jsonb DEFAULT '{}',
                             measure text DEFAULT NULL)
RETURNS int
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  wl dpm.workloads := dpm_internal.workload(workload);
BEGIN
  delta := coalesce(delta, 0);    -- not given: Laplace noise for epsilon, or zCDP for rho
  IF method IS NULL OR options IS NULL THEN
    RAISE EXCEPTION 'method and options must not be NULL' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  PERFORM dpm_internal.check_privacy_args(epsilon, delta, rho);
  -- a sum's strategy is its workload's: every error scales by the same factor, so the choice is the
  -- same; the measure is only checked (it must be one of the workload's source)
  IF measure IS NOT NULL THEN
    PERFORM dpm_internal.measure((SELECT s FROM dpm.sources s JOIN dpm.domains d ON d.source_id = s.id WHERE d.id = wl.domain_id),
                                 measure);
    IF coalesce(dpm_internal.has_targets(method, options), false) THEN
      RAISE EXCEPTION 'variance targets are in counts: a strategy for the sums of a measure is optimized without them'
        USING ERRCODE = 'feature_not_supported';
    END IF;
  END IF;
  -- ranked for the source's units (dpm_internal.unit_groups: two bounds make it the strategy's own)
  RETURN (dpm_internal.choose_strategy(wl, method, dpm_internal.noise_kind(method, delta, rho, options), options, true, true,
                                       (SELECT dpm_internal.unit_groups(s, 'rows') FROM dpm.sources s JOIN dpm.domains d ON d.source_id = s.id
                                         WHERE d.id = wl.domain_id))).st.id;
END
$$;
COMMENT ON FUNCTION dpm.optimize(text, float8, float8, float8, text, jsonb, text) IS
  'choose (method auto) or build a strategy for a workload and cache it with its errors; reads no data, spends no budget; returns its id';

CREATE OR REPLACE FUNCTION dpm.compare_strategies(workload text, epsilon float8 DEFAULT NULL, delta float8 DEFAULT NULL,
                                       rho float8 DEFAULT NULL, measure text DEFAULT NULL)
RETURNS TABLE(method text, strategy int, rows int, sensitivity float8, total_error float8, max_error float8,
              rms_error float8, ratio_to_bound float8, iterations int, optimize_ms float8)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
  wl dpm.workloads := dpm_internal.workload(compare_strategies.workload);
  m text;
  st dpm.strategies;
  eigen_rows int;
  var float8;
  unit float8 := 1;   -- a row's largest value: 1 for counts, a measure's bound (in its grid) for sums
BEGIN
  -- not given: epsilon 1 (errors scale with the noise: the ranking is the same at every epsilon),
  -- delta 0
  IF compare_strategies.epsilon IS NULL AND compare_strategies.rho IS NULL THEN
    compare_strategies.epsilon := 1;
  END IF;
  compare_strategies.delta := coalesce(compare_strategies.delta, 0);
  PERFORM dpm_internal.check_privacy_args(compare_strategies.epsilon, compare_strategies.delta, compare_strategies.rho);
  IF compare_strategies.measure IS NOT NULL THEN
    SELECT dpm_internal.measure_units(x) * 2::float8 ^ x.grid_exp INTO unit
      FROM dpm_internal.measure((SELECT s FROM dpm.sources s JOIN dpm.domains d ON d.source_id = s.id WHERE d.id = wl.domain_id),
                                compare_strategies.measure) x;
  END IF;
  FOR m IN SELECT x.method FROM dpm.strategy_methods() x WHERE x.in_auto LOOP
    CONTINUE WHEN dpm_internal.method_rules_out(m, wl.n, wl.spec IS NOT NULL, wl.matrix IS NULL AND wl.spec IS NOT NULL,
                                                wl.m, eigen_rows) IS NOT NULL;
    BEGIN
      st := (dpm_internal.choose_strategy(wl, m, dpm_internal.noise_kind(m, compare_strategies.delta, compare_strategies.rho),
                                  '{}', true, false)).st;
    EXCEPTION WHEN invalid_parameter_value OR program_limit_exceeded OR feature_not_supported THEN
      CONTINUE;
    END;
    IF (dpm_internal.method_traits(m)).rows_are_rank THEN
      eigen_rows := st.rows;
    END IF;
    -- the noise variance on each strategy answer
    var := dpm_internal.noise_variance(st.noise, unit * st.sensitivity_l1, unit * st.sensitivity_l2, compare_strategies.epsilon,
                                       compare_strategies.delta, compare_strategies.rho);
    method := m; strategy := st.id; rows := st.rows;
    sensitivity := unit * CASE st.noise WHEN 'laplace' THEN st.sensitivity_l1 ELSE st.sensitivity_l2 END;
    total_error := var * st.profile_trace;
    max_error := var * st.max_profile;
    rms_error := sqrt(total_error / wl.m);
    ratio_to_bound := st.ratio_to_bound;
    iterations := st.iterations;
    optimize_ms := st.optimize_ms;
    RETURN NEXT;
  END LOOP;
END
$$;
COMMENT ON FUNCTION dpm.compare_strategies(text, float8, float8, float8, text) IS
  'one row per strategy method for a workload: sensitivity, expected errors at the given privacy, ratio to the SVD bound; reads no data, spends nothing';

-- The privacy a strategy for variance targets (fitness, or residual with targets) needs to meet
-- them (prioritizing accuracy): unit noise on its rows meets them, so ask for the largest sigma <= 1
-- whose noise, as the secure sampler really adds it (grid allowance included), stays <= 1, and for
-- epsilon (or rho) with margins that survive the charge's rounding and dpm_internal.below.
CREATE OR REPLACE FUNCTION dpm_internal.fitness_need(src dpm.sources, st dpm.strategies, delta float8,
                                  OUT epsilon float8, OUT rho float8)
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  -- a unit's noise scale as every release's (counts: a targets strategy measures no measure)
  sens float8 := st.sensitivity_l2 * dpm_internal.unit_scale(src, NULL);
  s float8 := 1;
BEGIN
  WHILE dpm_internal.gaussian_actual_sd(st.rows, sens, s) > 1 LOOP
    s := s / dpm_internal.gaussian_actual_sd(st.rows, sens, s) * (1 - 1e-12);
  END LOOP;
  s := s * (1 - 1e-9);
  CASE src.model
  WHEN 'zcdp' THEN
    rho := (sens / s) ^ 2 / 2 * (1 + 1e-12);
  WHEN 'approx' THEN
    IF NOT delta > 0 THEN
      RAISE EXCEPTION 'give delta > 0: the epsilon a % strategy needs for its targets is computed for it', st.method
        USING ERRCODE = 'invalid_parameter_value';
    END IF;
    epsilon := greatest(dpm.gaussian_epsilon(delta * (1 - 1e-12), s, sens) * (1 + 1e-12), 1e-15);
  ELSE
    RAISE EXCEPTION 'source "%" is registered for pure epsilon-differential privacy: a % strategy for variance targets needs Gaussian noise',
      src.relation, st.method USING ERRCODE = 'invalid_parameter_value';
  END CASE;
END
$$;

CREATE OR REPLACE FUNCTION dpm_internal.strategy_by_id(sid int) RETURNS dpm.strategies
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  st dpm.strategies;
BEGIN
  SELECT * INTO st FROM dpm.strategies s WHERE s.id = sid;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'strategy % does not exist', sid USING ERRCODE = 'undefined_object';
  ELSIF st.dropped_at IS NOT NULL THEN
    RAISE EXCEPTION 'strategy % was dropped', sid
      USING ERRCODE = 'undefined_object', HINT = 'dpm.optimize builds a new one for its workload.';
  END IF;
  RETURN st;
END
$$;

-- Both problems of the fitness-for-use paper for a stored fitness strategy.  Without epsilon and
-- rho (prioritizing accuracy): every target met exactly (variance_scale 1) at privacy cost Delta,
-- which is rho = Delta^2 / 2 zCDP and (epsilon, delta)-DP for the exact epsilon of Corollary 1.
-- With epsilon and delta, or rho (prioritizing privacy): the smallest k with every variance
-- <= k * target (Theorem 5: Sigma scaled by k).  Per record (max_contributions 1).
CREATE OR REPLACE FUNCTION dpm.fitness_privacy(strategy int, epsilon float8 DEFAULT NULL, delta float8 DEFAULT NULL,
                                    rho float8 DEFAULT NULL)
RETURNS TABLE(privacy_cost float8, zcdp_rho float8, dp_epsilon float8, dp_delta float8, variance_scale float8)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  st dpm.strategies := dpm_internal.strategy_by_id(strategy);
  cost float8 := st.sensitivity_l2;
  sigma float8;
BEGIN
  IF st.method <> 'fitness' THEN
    RAISE EXCEPTION 'strategy % was built by method %, not fitness', strategy, st.method
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  PERFORM dpm_internal.check_privacy_args(epsilon, delta, rho, 'conversion');
  IF epsilon IS NOT NULL AND rho IS NOT NULL THEN
    RAISE EXCEPTION 'give epsilon (with delta) or rho, not both' USING ERRCODE = 'invalid_parameter_value';
  ELSIF epsilon IS NOT NULL THEN
    IF delta IS NULL THEN
      RAISE EXCEPTION 'epsilon needs delta > 0: fitness strategies add Gaussian noise' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    sigma := dpm.gaussian_sigma(epsilon, delta, cost);
  ELSIF rho IS NOT NULL THEN
    sigma := sqrt(dpm_internal.noise_variance('gaussian', cost, cost, NULL, NULL, rho));
  ELSE
    sigma := 1;
  END IF;
  RETURN QUERY SELECT cost / sigma, (cost / sigma) ^ 2 / 2,
                      coalesce(epsilon, CASE WHEN delta IS NOT NULL THEN dpm.gaussian_epsilon(delta, sigma, cost) END),
                      coalesce(delta, CASE WHEN epsilon IS NOT NULL THEN dpm.gaussian_delta(epsilon, sigma, cost) END),
                      sigma ^ 2;
END
$$;
COMMENT ON FUNCTION dpm.fitness_privacy(int, float8, float8, float8) IS
  'the privacy a strategy for variance targets needs to meet them, in each model (zCDP rho, epsilon for a delta), and the noise scale at a given privacy';

CREATE OR REPLACE FUNCTION dpm.privacy_profile(strategy int)
RETURNS TABLE(cell int, privacy_cost float8)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  st dpm.strategies := dpm_internal.strategy_by_id(strategy);
BEGIN
  IF st.matrix IS NULL THEN
    RAISE EXCEPTION 'strategy % is implicit (method %): its profile is not available per cell', strategy, st.method
      USING ERRCODE = 'feature_not_supported';
  END IF;
  RETURN QUERY SELECT i::int, v FROM unnest(dpm_internal.column_norms(st.matrix)) WITH ORDINALITY AS t(v, i);
END
$$;
COMMENT ON FUNCTION dpm.privacy_profile(int) IS
  'the privacy cost of unit noise on a strategy, cell by cell (the L2 norm of each column): where it spends most';

-- Strategies have no names: an analyst drops one by id (one of its own roles', or any for a
-- custodian), so that the next dpm.optimize or dpm.answer builds it again; a strategy a release
-- used stays in the catalog, out of reuse.
CREATE OR REPLACE FUNCTION dpm.drop_strategy(strategy int) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  st dpm.strategies := dpm_internal.strategy_head(strategy);
BEGIN
  IF st.id IS NULL OR st.dropped_at IS NOT NULL THEN
    PERFORM dpm_internal.strategy_by_id(strategy);    -- its error
  END IF;
  PERFORM dpm_internal.check_owner(st.created_by, format('strategy %s', strategy), 'drop');
  IF EXISTS (SELECT 1 FROM dpm.releases r WHERE r.strategy_id = strategy) THEN
    UPDATE dpm.strategies s SET dropped_at = now() WHERE s.id = strategy;
  ELSE
    DELETE FROM dpm.strategies s WHERE s.id = strategy;
  END IF;
END
$$;
COMMENT ON FUNCTION dpm.drop_strategy(int) IS
  'analyst: drop a strategy of one''s own (custodians: any), so that it is built again; kept out of reuse if a release used it';
