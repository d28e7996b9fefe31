-- Releases: planned in the caller, charged and computed by a release worker (src/release).

-- Queues a planned release for a release worker (src/release/queue.h), with the strategies its
-- plan built (the worker caches them); returns the release's id once it is computed.
CREATE OR REPLACE FUNCTION dpm_internal.run_release(req dpm_internal.planned_release, built dpm.strategies[]) RETURNS bigint
AS 'MODULE_PATHNAME', 'dpm_run_release' LANGUAGE C VOLATILE STRICT;

-- Is a release being computed by a live worker (src/release/worker.c holds a lock per release
-- from its charge to its answers)?
CREATE OR REPLACE FUNCTION dpm_internal.release_in_progress(release_id bigint) RETURNS boolean
AS 'MODULE_PATHNAME', 'dpm_release_in_progress' LANGUAGE C VOLATILE STRICT;

-- Orders the charges of one role, on every source, until its transaction ends (src/release/queue.c):
-- its answer quota is checked and its release recorded by one charge at a time.
CREATE OR REPLACE FUNCTION dpm_internal.lock_answer_quota(role regrole) RETURNS void
AS 'MODULE_PATHNAME', 'dpm_lock_answer_quota' LANGUAGE C VOLATILE STRICT;

-- Did this transaction (or one of its subtransactions) write the row with this xmin?  Such a
-- row is invisible to the release worker's own transactions.
CREATE OR REPLACE FUNCTION dpm_internal.in_this_transaction(x xid) RETURNS boolean
AS 'MODULE_PATHNAME', 'dpm_in_this_transaction' LANGUAGE C STABLE STRICT;

-- The sampler's checks for a release of this many strategy answers and these (scaled)
-- sensitivities and parameters, by the code the release runs, drawing nothing that is kept: a
-- request the sampler would refuse is refused before its charge.
CREATE OR REPLACE FUNCTION dpm_internal.check_noise(rows int, l1 float8, l2 float8, epsilon float8, delta float8, rho float8)
RETURNS void
AS 'MODULE_PATHNAME', 'dpm_check_noise' LANGUAGE C VOLATILE;

-- What a release measures, one row per part, in order: counts, or sums of a measure; an average
-- (sum_share given) both, its sums with that share of the charge and its counts with the rest;
-- then its extra parts (dpm.releases.extra_parts: the sums of other measures, the counts of their
-- rows with a value), each with its own share, the parts before sharing what they leave.  scale:
-- what one privacy unit adds to one cell of the part, in units of the strategy's largest column
-- norm (dpm_internal.unit_scale of rows, dpm_internal.release_rows: max_contributions unless
-- given; 1 for a count of units each in one cell, counted 'profile'); measure_id: the measure
-- summed, or whose rows with a value are counted (an average's counts).
CREATE OR REPLACE FUNCTION dpm_internal.release_parts(src dpm.sources, m dpm.measures, sum_share float8, extra jsonb DEFAULT NULL,
                                                      counted text DEFAULT NULL, rows float8 DEFAULT NULL,
                                                      OUT quantity text, OUT scale float8, OUT share float8, OUT measure_id int)
RETURNS SETOF record
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  WITH rest AS (SELECT 1 - coalesce((SELECT sum((e->>'share')::float8) FROM jsonb_array_elements(extra) e), 0) AS f)
  SELECT p.quantity, p.scale, p.share, p.measure_id
    FROM (SELECT 0 AS o, CASE WHEN m.id IS NULL THEN 'counts' ELSE 'sums' END AS quantity,
                 CASE WHEN counted = 'profile' THEN 1 ELSE dpm_internal.unit_scale(src, m, rows) END AS scale,
                 coalesce(sum_share, 1) * rest.f AS share, m.id AS measure_id FROM rest
          UNION ALL
          SELECT 1, 'counts', dpm_internal.unit_scale(src, NULL, rows), (1 - sum_share) * rest.f, m.id FROM rest WHERE sum_share IS NOT NULL
          UNION ALL
          SELECT 1 + e.o, e.x->>'quantity',
                 dpm_internal.unit_scale(src, CASE WHEN e.x->>'quantity' LIKE 'sums:%' THEN em END, rows), (e.x->>'share')::float8, em.id
            FROM jsonb_array_elements(extra) WITH ORDINALITY e(x, o)
            JOIN dpm.measures em ON em.id = (e.x->>'measure_id')::int) p
   ORDER BY p.o
$$;

-- What a release of this request counts (dpm.releases.counted): as it says, or units for
-- dpm.answer's aggregate units, else rows.
CREATE OR REPLACE FUNCTION dpm_internal.request_counted(req dpm_internal.answer_request) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$ SELECT coalesce(req.counted, CASE WHEN req.aggregate = 'units' THEN 'units' ELSE 'rows' END) $$;

-- What a release would be, from its request: workload, strategy, noise and charge in the
-- source's model, with every check that needs neither data nor a lock, the sampler's own among
-- them.  Shared by dpm.answer and the dry run (dpm.explain), so that both refuse the same
-- requests before anything is charged.  Runs in the caller's backend, under its
-- statement_timeout and cancel: a strategy that must be optimized is optimized here.  store: see
-- dpm_internal.choose_strategy (dpm.answer passes false: the worker caches what is built here).
CREATE OR REPLACE FUNCTION dpm_internal.release_plan(req dpm_internal.answer_request, store boolean, OUT wl dpm.workloads, OUT dom dpm.domains,
                                  OUT src dpm.sources, OUT st dpm.strategies, OUT built dpm.strategies[],
                                  OUT noise text, OUT c_epsilon numeric, OUT c_delta numeric, OUT c_rho numeric,
                                  OUT ci_draws int, OUT measure dpm.measures, OUT sum_share float8,
                                  OUT periods int4range, OUT skipped text[])
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  a record := dpm_internal.release_args(req);       -- every argument checked, first
  sid int := req.strategy;
  method text := req.method;
  delta float8 := a.delta;
  confidence float8 := req.confidence;
  accuracy_first boolean := a.accuracy_first;
  cost record;
  need record;
  chosen record;
  mine boolean;
  np record;
  part record;
  parent_id int;
  remainder int[];
  rid int;
  fresh boolean := false;
  counted text := dpm_internal.request_counted(req);
  unit_rows float8;
BEGIN
  ci_draws := a.ci_draws;
  sum_share := a.sum_share;
  dom := a.dom;
  src := a.src;
  measure := a.measure;
  periods := a.periods;
  noise := a.noise;
  c_epsilon := a.c_epsilon;
  c_delta := a.c_delta;
  c_rho := a.c_rho;
  wl.id := a.wl_id;
  SELECT dpm_internal.in_this_transaction(w.xmin) INTO mine FROM dpm.workloads w WHERE w.id = wl.id;
  IF mine AND NOT store THEN
    RAISE EXCEPTION 'workload "%" is not committed yet', req.workload
      USING ERRCODE = 'undefined_object',
            HINT = 'dpm.answer works in a transaction of its own: commit the transaction that created the workload first.';
  END IF;
  -- queries: only these queries of the workload, its remainder (dpm.answer's reuse auto), a
  -- workload of its own; one this transaction cannot store is planned below and stored by the worker
  IF req.queries IS NOT NULL THEN
    parent_id := wl.id;
    remainder := req.queries;
    SELECT w.id, dpm_internal.in_this_transaction(w.xmin) INTO rid, mine FROM dpm.workloads w
     WHERE w.remainder_of = parent_id AND w.queries = remainder AND w.dropped_at IS NULL ORDER BY w.id LIMIT 1;
    IF rid IS NOT NULL AND (store OR NOT mine) THEN
      wl.id := rid;
    ELSIF store THEN
      wl.id := dpm_internal.remainder_store(parent_id, remainder, NULL, dpm_internal.invoker());
    ELSE
      fresh := true;
    END IF;
  END IF;
  -- the row without its matrix (megabytes, which a row variable would detoast)
  SELECT w.id, w.name, w.domain_id, w.spec, NULL, w.labels, w.m, w.n, w.created_by, w.created_at, w.weights, NULL, w.dropped_at,
         w.remainder_of, w.queries
    INTO wl FROM dpm.workloads w WHERE w.id = wl.id;
  IF measure.id IS NOT NULL THEN
    -- a sum per cell: the release scans the measure as the domain's creator, who must be able to
    -- evaluate it on every row
    PERFORM dpm_internal.check_measure(dom.created_by, dpm_internal.source_table(src, dom.name), measure.name,
                                       measure.expression);
  END IF;

  IF sid IS NULL THEN
    method := coalesce(method, 'auto');
    IF fresh THEN
      -- a new remainder, stored and optimized for in a subtransaction that is then undone (this
      -- transaction writes nothing); the worker stores it again, with the same id
      BEGIN
        -- a new id, even if this transaction holds an uncommitted remainder of the same queries
        rid := dpm_internal.remainder_store(parent_id, remainder, nextval(pg_get_serial_sequence('dpm.workloads', 'id'))::int,
                                            dpm_internal.invoker());
        SELECT w.id, w.name, w.domain_id, w.spec, NULL, w.labels, w.m, w.n, w.created_by, w.created_at, w.weights, NULL,
               w.dropped_at, w.remainder_of, w.queries
          INTO wl FROM dpm.workloads w WHERE w.id = rid;
        chosen := dpm_internal.choose_strategy(wl, method, dpm_internal.noise_kind(method, delta, req.rho, req.options),
                                               coalesce(req.options, '{}'), store, true, dpm_internal.unit_groups(src, counted));
        RAISE SQLSTATE 'DPM00';      -- undoes the subtransaction, keeps the plan
      EXCEPTION WHEN SQLSTATE 'DPM00' THEN
        NULL;
      END;
    ELSE
      chosen := dpm_internal.choose_strategy(wl, method, dpm_internal.noise_kind(method, delta, req.rho, req.options),
                                             coalesce(req.options, '{}'), store, true, dpm_internal.unit_groups(src, counted));
    END IF;
    st := chosen.st;
    built := chosen.built;
    skipped := chosen.skipped;
  ELSE
    SELECT dpm_internal.in_this_transaction(s.xmin) INTO mine FROM dpm.strategies s WHERE s.id = sid;
    IF mine AND NOT store THEN
      RAISE EXCEPTION 'strategy % is not committed yet', sid
        USING ERRCODE = 'undefined_object',
              HINT = 'dpm.answer works in a transaction of its own: pass method => ... (and options) instead of strategy => dpm.optimize(...), or commit first.';
    END IF;
    st := dpm_internal.strategy_head(sid);
    built := '{}';
    skipped := '{}';
  END IF;
  IF accuracy_first THEN
    -- the charge the targets need (Gaussian noise, in the source's model: dpm_internal.release_args
    -- refused the others)
    need := dpm_internal.fitness_need(src, st, delta);
    cost := dpm_internal.privacy_cost(src, need.epsilon, delta, need.rho);
    noise := cost.noise;
    c_epsilon := cost.c_epsilon;
    c_delta := cost.c_delta;
    c_rho := cost.c_rho;
  END IF;
  -- the sampler's own checks (its grid must fit these parameters), by the code the release runs
  PERFORM dpm_internal.check_measure(dom.created_by, dpm_internal.source_table(src, dom.name), m.name, m.expression)
     FROM dpm.measures m WHERE m.id IN (SELECT (e->>'measure_id')::int FROM jsonb_array_elements(req.extra_parts) e);
  -- what one unit adds, through the strategy as stored or built here (its matrices read only when
  -- a bound by cells needs them: dpm_internal.release_rows)
  SELECT dpm_internal.strategy_rows(src, counted, s.matrix, s.kronecker, s.residual, s.noise, wl.spec, dom, release_plan.noise)
    INTO unit_rows
    FROM (SELECT x.* FROM dpm.strategies x WHERE x.id = st.id
          UNION ALL
          SELECT b.* FROM unnest(built) b WHERE st.id IS NULL AND b.method = st.method) s;
  FOR part IN SELECT * FROM dpm_internal.release_parts(src, measure, sum_share, req.extra_parts, counted, unit_rows) LOOP
    np := dpm_internal.noise_params(noise, c_epsilon, c_delta, c_rho, part.share);
    -- the strategy as stored, or as built here for the worker to store (among built); its
    -- matrix goes straight to the check, never into a row variable
    PERFORM dpm_internal.strategy_check(s.matrix, s.kronecker, s.residual, s.noise, s.rows, s.sensitivity_l1,
                                        s.sensitivity_l2, wl.spec, dom, np.epsilon, np.delta, part.scale, np.rho,
                                        confidence, release_plan.noise)
       FROM (SELECT x.* FROM dpm.strategies x WHERE x.id = st.id
             UNION ALL
             SELECT b.* FROM unnest(built) b WHERE st.id IS NULL AND b.method = st.method) s;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'the strategy of this release is neither stored nor built';
    END IF;
  END LOOP;
  PERFORM dpm_internal.check_answer_quota(dpm_internal.invoker(), wl.name, wl.m);
  PERFORM dpm_internal.check_domain(dom, src);
END
$$;

-- What one role may keep stored (issue 41): a release of m answers is refused, before its charge,
-- past dpm.max_answers_per_release or when the role's releases would then keep more than
-- dpm.max_answers_per_role answers, counted from their workloads (not from dpm.release_answers,
-- which a charge must not wait for).  A selection of keys stores one answer per key, a number that
-- depends on the data: it is refused once the role's answers reach the limit (m = 0), and while it
-- is computed it counts as the most it may store, what the role has left (at most
-- dpm.max_answers_per_release), then as the keys it stored (dpm.release_keys.keys).  A release
-- stores one row per answer, about 120 bytes; a charge of epsilon 1e-4 is accepted, so without
-- these a budget of 1 would pay for 10,000 releases of 4 M answers, 0.8 TB.  Both are the caller's
-- settings (the worker is handed them, as dpm.max_cells): a superuser sets them per role with ALTER
-- ROLE.  The worker checks again at the charge, under the role's lock
-- (dpm_internal.lock_answer_quota), so that charges of one role on different sources, or at once on
-- one, each count the others.  Returns what the role may still store after these m answers.
CREATE OR REPLACE FUNCTION dpm_internal.stored_answers(caller regrole) RETURNS bigint
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  -- 'charged' ones are being computed and will store theirs; 'failed' and 'interrupted' store none
  SELECT coalesce(sum(coalesce(w.m, k.keys)), 0)::bigint
    FROM dpm.releases r LEFT JOIN dpm.workloads w ON w.id = r.workload_id
         LEFT JOIN dpm.release_keys k ON k.release_id = r.id
   WHERE r.released_by = caller AND r.status IN ('charged', 'released')
$$;

CREATE OR REPLACE FUNCTION dpm_internal.check_answer_quota(caller regrole, wl_name text, m bigint) RETURNS bigint
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  per_release bigint := current_setting('dpm.max_answers_per_release')::bigint;
  per_role bigint := current_setting('dpm.max_answers_per_role')::bigint;
  stored bigint;
BEGIN
  IF m > per_release THEN
    RAISE EXCEPTION 'a release of workload "%" would store % answers, the limit is % (dpm.max_answers_per_release)',
      wl_name, m, per_release
      USING ERRCODE = 'program_limit_exceeded', DETAIL = 'Nothing was charged.',
            HINT = 'Ask fewer queries at once (a smaller workload, or several), or ask a superuser to raise dpm.max_answers_per_release.';
  END IF;
  stored := dpm_internal.stored_answers(caller);
  IF stored + m > per_role OR stored >= per_role THEN
    RAISE EXCEPTION 'role % keeps % stored answers, and % more would pass the limit of % (dpm.max_answers_per_role)',
      caller, stored, m, per_role
      USING ERRCODE = 'configuration_limit_exceeded', DETAIL = 'Nothing was charged.',
            HINT = 'Every release keeps its answers (a selection of keys one per key), for dpm.release to replay them at no cost: ask fewer queries, or ask a superuser to raise dpm.max_answers_per_role for your role (ALTER ROLE ... SET).';
  END IF;
  RETURN per_role - stored - m;
END
$$;

-- Step 1 of a release, in the worker's first transaction (src/release/worker.c): check and record
-- the charge of the request dpm.answer (or dpm.answer_keys) planned.  Commits before any noise
-- exists.
CREATE OR REPLACE FUNCTION dpm_internal.release_charge(caller regrole, req dpm_internal.planned_release) RETURNS bigint
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  wl_id int := req.workload_id;
  sid int := req.strategy_id;
  c_epsilon numeric := req.epsilon;
  c_delta numeric := req.delta;
  c_rho numeric := req.rho;
  dom dpm.domains;
  src dpm.sources;
  spent record;
  rel_id bigint;
  detail text;
  keys boolean := req.kind = 'keys';
  periods int4range;
  left_after bigint;
BEGIN
  IF keys THEN          -- a partition selection (sql/26_keys.sql)
    SELECT * INTO src FROM dpm.sources s WHERE s.id = req.source_id;
    PERFORM dpm_internal.check_keys_column(src, req.column_name);
    PERFORM dpm_internal.check_source_unit(src);
    PERFORM dpm_internal.check_periods(src, src.registered_by);
  ELSE
    IF sid IS NULL THEN    -- built by the caller, cached by this worker just before
      SELECT s.id INTO sid FROM dpm.strategies s
       WHERE s.workload_id = wl_id AND s.method = req.method AND s.options = req.options
         AND s.noise = req.strategy_noise AND s.dropped_at IS NULL;
      IF NOT FOUND THEN
        RAISE EXCEPTION 'the strategy chosen for this release could not be stored'
          USING ERRCODE = 'object_not_in_prerequisite_state', HINT = 'Retry; nothing was charged.';
      END IF;
    END IF;
    SELECT d.* INTO dom FROM dpm.workloads w JOIN dpm.domains d ON d.id = w.domain_id WHERE w.id = wl_id;
    SELECT * INTO src FROM dpm.sources s WHERE s.id = dom.source_id;
    -- the catalog may have changed since the plan: refuse now rather than fail after the charge
    PERFORM dpm_internal.check_domain(dom, src);
    PERFORM dpm_internal.check_measure(dom.created_by, src.relation, m.name, m.expression) FROM dpm.measures m
      WHERE m.id = req.measure_id OR m.id IN (SELECT (e->>'measure_id')::int FROM jsonb_array_elements(req.extra_parts) e);
  END IF;

  -- the budget check: one charge at a time per source (row lock), exact numeric sums.  The sum
  -- after the lock must see every charge committed before it, which only READ COMMITTED gives.
  PERFORM dpm_internal.require_read_committed('a release''s charge');
  src := dpm_internal.lock_budget(src);
  -- under the role's lock, taken after the source's (never before: no deadlock), which orders the
  -- role's charges on every source until this one commits with its release
  PERFORM dpm_internal.lock_answer_quota(caller);
  left_after := dpm_internal.check_answer_quota(caller, (SELECT w.name FROM dpm.workloads w WHERE w.id = wl_id),
                                                coalesce((SELECT w.m FROM dpm.workloads w WHERE w.id = wl_id), 0));
  -- the periods it reads, as the source counts them now (NULL: the whole table)
  periods := dpm_internal.period_range(src, req.period_from, req.period_to);
  -- a release left 'charged' by a worker that stopped (crash, kill -9) will never get answers
  UPDATE dpm.releases r SET status = 'interrupted'
   WHERE r.source_id = src.id AND r.status = 'charged' AND NOT dpm_internal.release_in_progress(r.id);
  -- with periods, each period read pays the whole charge: the most spent of them decides
  SELECT * INTO spent FROM dpm_internal.spent(src.id, periods);
  IF (src.model = 'zcdp' AND spent.rho + c_rho > src.budget_rho) OR spent.delta + c_delta > src.budget_delta
     OR (src.model <> 'zcdp' AND spent.epsilon + c_epsilon > src.budget_epsilon) THEN
    detail := CASE WHEN src.model = 'zcdp' AND c_delta > 0
                THEN format('Spent rho %s of %s and delta %s of %s; this release needs rho %s and delta %s.',
                            spent.rho, src.budget_rho, spent.delta, src.budget_delta, c_rho, c_delta)
              WHEN src.model = 'zcdp' THEN format('Spent rho %s of %s; this release needs rho %s.', spent.rho, src.budget_rho, c_rho)
              WHEN src.model = 'pure' THEN format('Spent epsilon %s of %s; this release needs epsilon %s.', spent.epsilon, src.budget_epsilon, c_epsilon)
              ELSE format('Spent epsilon %s of %s and delta %s of %s; this release needs epsilon %s and delta %s.',
                          spent.epsilon, src.budget_epsilon, spent.delta, src.budget_delta, c_epsilon, c_delta) END
              || CASE WHEN periods IS NOT NULL THEN format(' Each period has its own budget: the figures are the most spent%s.',
                                                           dpm_internal.in_periods(src, periods)) ELSE '' END;
    -- "exhausted" only when nothing is left: otherwise what is left is too little for this release
    IF (src.model = 'zcdp' AND spent.rho >= src.budget_rho) OR (c_delta > 0 AND spent.delta >= src.budget_delta)
       OR (src.model <> 'zcdp' AND spent.epsilon >= src.budget_epsilon) THEN
      RAISE EXCEPTION 'privacy budget of source "%" is exhausted%', src.relation, dpm_internal.in_periods(src, periods)
        USING ERRCODE = 'Y1001', DETAIL = detail, HINT = 'Ask the custodian for more budget.';
    END IF;
    RAISE EXCEPTION 'source "%" cannot pay for this release%: less budget is left than it needs', src.relation,
      dpm_internal.in_periods(src, periods)
      USING ERRCODE = 'Y1001', DETAIL = detail, HINT = 'Ask for less, or ask the custodian for more budget.';
  END IF;
  -- and the role's own budget on the source, when a privacy policy gives it one
  PERFORM dpm_internal.check_policy(src, caller, c_epsilon, c_delta, c_rho);
  INSERT INTO dpm.releases (source_id, kind, workload_id, strategy_id, noise, epsilon, delta, rho, released_by, inference,
                            confidence, ci_draws, measure_id, sum_share, periods, extra_parts, counted, bounds)
  VALUES (src.id, CASE WHEN keys THEN 'keys' ELSE 'answers' END, wl_id, sid, req.noise, c_epsilon, c_delta, c_rho,
          caller, coalesce(req.inference, 'ls'), req.confidence, req.ci_draws,
          req.measure_id, req.sum_share, periods, req.extra_parts, coalesce(req.counted, 'rows'), dpm_internal.source_bounds(src))
  RETURNING id INTO rel_id;
  IF keys THEN
    -- the most keys it may store: what the role has left, at most dpm.max_answers_per_release
    INSERT INTO dpm.release_keys (release_id, column_name, max_key_bytes, keys)
    VALUES (rel_id, req.column_name, req.max_key_bytes,
            least(left_after, current_setting('dpm.max_answers_per_release')::bigint));
  END IF;
  INSERT INTO dpm.ledger (source_id, release_id, epsilon, delta, rho, charged_by, periods)
  VALUES (src.id, rel_id, c_epsilon, c_delta, c_rho, caller, periods);
  RETURN rel_id;
END
$$;

-- What a release reads from its source: the frequency vector, or for a residual strategy the
-- marginal tables it measures (never the vector: memory grows with the tables); for a sum, the
-- same of its measure; for an average, the sums followed by the counts, from one scan.
CREATE OR REPLACE FUNCTION dpm_internal.release_data(r dpm.releases, src dpm.sources, dom dpm.domains) RETURNS float8[]
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  RETURN CASE r.counted WHEN 'units' THEN dpm_internal.units_data(r, src, dom) WHEN 'profile' THEN dpm_internal.profile_data(r, src, dom)
              ELSE dpm_internal.part_data(r, src, dom, (SELECT x FROM dpm.measures x WHERE x.id = r.measure_id), r.sum_share IS NOT NULL) END;
END
$$;

-- The same for measure m (NULL: counts) and, for an average (avg), the counts it divides by after
-- its sums.
CREATE OR REPLACE FUNCTION dpm_internal.part_data(r dpm.releases, src dpm.sources, dom dpm.domains, m dpm.measures, avg boolean)
RETURNS float8[]
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  sets int[];
BEGIN
  SELECT dpm_internal.strategy_tables(s.matrix, s.kronecker, s.residual, s.noise, w.spec, dom) INTO sets
    FROM dpm.strategies s, dpm.workloads w WHERE s.id = r.strategy_id AND w.id = r.workload_id;
  IF sets IS NOT NULL THEN
    IF m.id IS NOT NULL THEN
      RETURN dpm_internal.measure_tables(src, dom, m, dom.created_by, true, sets, avg, r.periods);
    END IF;
    RETURN dpm_internal.marginal_tables(src, dom, dom.created_by, true, sets, r.periods);
  END IF;
  IF m.id IS NOT NULL THEN
    RETURN dpm_internal.measure_vector(src, dom, m, dom.created_by, true, avg, r.periods);
  END IF;
  RETURN dpm_internal.frequency_vector(src, dom, dom.created_by, true, r.periods);
END
$$;

-- What one privacy unit adds to what a release measures, in units of the strategy's largest column
-- norm: rows (dpm_internal.release_rows; max_contributions when NULL) rows of one count, or of at
-- most dpm_internal.measure_units grid units of a measure.  The mechanism scales the strategy's
-- sensitivity by it.
CREATE OR REPLACE FUNCTION dpm_internal.unit_scale(src dpm.sources, m dpm.measures, rows float8 DEFAULT NULL) RETURNS float8
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$ SELECT coalesce(rows, src.max_contributions) * CASE WHEN m.id IS NULL THEN 1 ELSE dpm_internal.measure_units(m) END $$;

-- The unit of what release r measures in the unit of its answers: 1 for counts, the grid of its
-- measure for sums (a power of two: the scaling is exact).
CREATE OR REPLACE FUNCTION dpm_internal.release_unit(r dpm.releases) RETURNS float8
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$ SELECT coalesce((SELECT 2::float8 ^ m.grid_exp FROM dpm.measures m WHERE m.id = r.measure_id), 1) $$;

-- What release r measures on the data vector x (for a residual strategy, its marginal tables:
-- dpm_internal.release_data): the strategy's answers plus noise calibrated for parameters
-- strictly below the charge (dpm_internal.noise_params), or below its share of it for one part
-- of an average (quantity, one of dpm_internal.release_parts; NULL: the first).  The matrices go
-- straight from the catalog to the mechanism: a PL/pgSQL row variable would detoast megabytes of
-- them once more.  Generic plans (here, in release_infer, release_derive and release_fill): a
-- custom plan holds each value passed to its statement as a constant for as long as the plan is
-- cached, a copy of the data vector or the measurements each (9 MB at 1.16 M answers, 157 MB at
-- 19.7 M).
CREATE OR REPLACE FUNCTION dpm_internal.release_measure(r dpm.releases, x float8[], quantity text DEFAULT NULL)
RETURNS dpm.release_measurements
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
  part record;
  scale float8;
  np record;
  m dpm.release_measurements;
BEGIN
  SELECT p.* INTO part
    FROM (SELECT dpm_internal.release_source(r) AS s) src,
         (SELECT w.spec, d FROM dpm.workloads w, dpm.domains d WHERE w.id = r.workload_id AND d.id = w.domain_id) w,
         dpm_internal.release_parts(src.s, (SELECT ms FROM dpm.measures ms WHERE ms.id = r.measure_id), r.sum_share, r.extra_parts,
                                    r.counted, dpm_internal.release_rows(src.s, r.counted, r.strategy_id, w.spec, w.d, r.noise)) p
   WHERE release_measure.quantity IS NULL OR p.quantity = release_measure.quantity
   LIMIT 1;
  scale := part.scale;
  np := dpm_internal.noise_params(r.noise, r.epsilon, r.delta, r.rho, part.share);
  -- in FROM, so that it runs once: "(f(...)).*" calls f once per column of its result, and drew
  -- the noise seven times (six draws thrown away, seven times the time and memory)
  SELECT mm.* INTO m
    FROM dpm.workloads w, dpm.domains d, dpm.strategies s,
         LATERAL dpm_internal.strategy_measure(s.matrix, s.kronecker, s.residual, s.noise, s.sensitivity_l2, w.spec, d, x,
                                               np.epsilon, np.delta, scale, np.rho, r.confidence) mm
   WHERE w.id = r.workload_id AND d.id = w.domain_id AND s.id = r.strategy_id;
  m.release_id := r.id;
  m.quantity := part.quantity;
  RETURN m;
END
$$;

-- The answers of release r's workload from its measurements m, by this inference, with
-- intervals at this confidence (NULL: none), in the units of what it counts or sums:
-- post-processing, at no cost.  W is made from the spec when the workload keeps none
-- (sql/18_workloads.sql).  In SQL: a PL/pgSQL function copies a composite argument, here all the
-- measurements (115 MB for a release of 19.7 M answers), and so would each caller in PL/pgSQL.
CREATE OR REPLACE FUNCTION dpm_internal.release_infer(r dpm.releases, m dpm.release_measurements, inference text,
                                   confidence float8)
RETURNS TABLE(query int, answer float8, stderr float8, ci_low float8, ci_high float8, ci_draws int)
LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
AS $$
  SELECT i.query, dpm_internal.times(i.answer, g.u), dpm_internal.times(i.stderr, g.u),
         dpm_internal.times(i.ci_low, g.u), dpm_internal.times(i.ci_high, g.u), i.ci_draws
    -- a sum's grid: answers in the measure's units, scaled without an error (dpm_internal.times);
    -- once (OFFSET 0: not pulled up into the expression of every row)
    FROM (SELECT CASE WHEN (release_infer.m).quantity LIKE 'counts%' THEN 1
                      WHEN (release_infer.m).quantity = 'sums' THEN dpm_internal.release_unit(release_infer.r)
                      ELSE (SELECT 2::float8 ^ x.grid_exp FROM dpm.measures x
                             WHERE x.id = split_part((release_infer.m).quantity, ':', 2)::int) END AS u OFFSET 0) g,
         dpm.workloads w, dpm.domains d, dpm.strategies s,
         LATERAL dpm_internal.strategy_infer(s.matrix, s.kronecker, s.residual, s.noise, w.matrix, s.pinv,
                                             s.profile, w.spec, d, release_infer.m, release_infer.inference,
                                             release_infer.confidence) i
   WHERE w.id = (release_infer.r).workload_id AND s.id = (release_infer.r).strategy_id AND d.id = w.domain_id
$$;

-- Step 2, in the worker's second transaction: scan the source, measure, keep the measurements,
-- store the answers (for a partition selection, the keys: dpm_internal.keys_fill).
CREATE OR REPLACE FUNCTION dpm_internal.release_fill(rel_id bigint) RETURNS bigint
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
  r dpm.releases;
  labels text[];
  spec text;
  dom dpm.domains;
  src dpm.sources;
  m dpm.release_measurements;
  mp dpm.release_measurements;
  draws int;
  x float8[];
  xe float8[];
  xe_of int;
  k int;
  part record;
  answers refcursor;
BEGIN
  SELECT * INTO r FROM dpm.releases x WHERE x.id = rel_id AND x.status = 'charged' FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'release % is not waiting for its answers', rel_id;
  END IF;
  IF r.kind = 'keys' THEN
    PERFORM dpm_internal.keys_fill(r);
    RETURN rel_id;
  END IF;
  -- not the workload's row: its matrix would be detoasted for nothing
  SELECT d.* INTO dom FROM dpm.workloads w JOIN dpm.domains d ON d.id = w.domain_id WHERE w.id = r.workload_id;
  SELECT w.labels, w.spec INTO labels, spec FROM dpm.workloads w WHERE w.id = r.workload_id;
  src := dpm_internal.release_source(r);     -- under the bounds it was charged under
  -- the caller's dpm.ci_draws, which this worker does not see
  IF r.ci_draws IS NOT NULL THEN
    PERFORM set_config('dpm.ci_draws', r.ci_draws::text, true);
  END IF;
  -- a dense strategy chosen for dpm.answer gets its pseudo-inverse here, once
  PERFORM dpm_internal.cache_strategy(r.strategy_id);
  -- each part (an average has two: sums, then counts, from one scan) with its share of the charge
  x := dpm_internal.release_data(r, src, dom);
  FOR part IN SELECT * FROM dpm_internal.release_parts(src, (SELECT ms FROM dpm.measures ms WHERE ms.id = r.measure_id),
                                                       r.sum_share, r.extra_parts, r.counted) WITH ORDINALITY p(quantity, scale, share, measure_id, i) LOOP
    IF part.quantity LIKE '%:%' THEN
      -- an extra part: the sums of its measure, and the counts of its rows with a value, from one scan
      IF xe_of IS DISTINCT FROM part.measure_id THEN
        xe := dpm_internal.part_data(r, src, dom, (SELECT ms FROM dpm.measures ms WHERE ms.id = part.measure_id),
                                     r.extra_parts @> jsonb_build_array(jsonb_build_object('quantity', 'counts:' || part.measure_id)));
        xe_of := part.measure_id;
      END IF;
      k := cardinality(xe) / CASE WHEN r.extra_parts @> jsonb_build_array(jsonb_build_object('quantity', 'counts:' || part.measure_id))
                                  THEN 2 ELSE 1 END;
      mp := dpm_internal.release_measure(r, CASE WHEN part.quantity LIKE 'sums:%' THEN xe[1:k] ELSE xe[k + 1:2 * k] END,
                                         part.quantity);
      INSERT INTO dpm.release_measurements SELECT mp.*;
      mp := NULL;     -- one copy of the measurements at a time
    ELSE
      k := cardinality(x) / CASE WHEN r.sum_share IS NULL THEN 1 ELSE 2 END;
      -- the answers stored are its own parts'
      m := dpm_internal.release_measure(r, CASE WHEN k = cardinality(x) THEN x ELSE x[(part.i - 1) * k + 1:part.i * k] END,
                                        part.quantity);
      INSERT INTO dpm.release_measurements SELECT m.*;
    END IF;
  END LOOP;
  -- the answers come in query order, zipped with the labels (labels[query] costs O(query) a row),
  -- and are stored in blocks as they come; the data is not needed any more
  x := NULL;
  xe := NULL;
  OPEN answers FOR
    SELECT a.query, a.label, a.answer, a.stderr, a.ci_low, a.ci_high, a.ci_draws
      FROM ROWS FROM (dpm_internal.release_derive(r, m, r.inference, r.confidence),
                      dpm_internal.workload_labels(labels, spec, dom)) AS a(query, answer, stderr, ci_low, ci_high, ci_draws, label);
  m := NULL;     -- the cursor keeps its own copy
  SELECT s.ci_draws INTO draws FROM dpm_internal.store_answers(rel_id, answers) s;
  CLOSE answers;
  -- an HDMM simulation may stop early (dpm.ci_max_seconds): record the draws it used
  UPDATE dpm.releases x SET status = 'released', ci_draws = CASE WHEN x.ci_draws IS NOT NULL THEN draws END
   WHERE x.id = rel_id;
  RETURN rel_id;
END
$$;

-- The rows of the open cursor answers (query, label, answer, stderr, ci_low, ci_high, ci_draws), in
-- query order, stored as the release's answers in blocks (src/release/answers.c): how many, and the
-- most draws an interval's simulation used.
CREATE OR REPLACE FUNCTION dpm_internal.store_answers(release_id bigint, answers refcursor, OUT stored bigint, OUT ci_draws int)
AS 'MODULE_PATHNAME', 'dpm_store_answers' LANGUAGE C VOLATILE STRICT;

-- As the session's role sees them (row-level security), by the latest snapshot (src/release/replay.c):
-- a release's stored answers, and the check that it is visible and has answers.
CREATE OR REPLACE FUNCTION dpm_internal.stored_answers(release_id bigint)
RETURNS TABLE(query int, label text, answer float8, stderr float8, ci_low float8, ci_high float8)
AS 'MODULE_PATHNAME', 'dpm_stored_answers' LANGUAGE C VOLATILE STRICT;

CREATE OR REPLACE FUNCTION dpm_internal.check_release(release_id bigint) RETURNS void
AS 'MODULE_PATHNAME', 'dpm_check_release' LANGUAGE C VOLATILE STRICT;

-- A release's answers: as stored, or derived again from its measurements by another inference or
-- at another confidence.  Post-processing of what was released: no charge, whatever is asked.
-- SECURITY DEFINER for the derivation's internal functions; who may see which release is decided
-- for the session's role (dpm_internal.check_release).
CREATE OR REPLACE FUNCTION dpm.release(release bigint, inference text DEFAULT NULL, confidence float8 DEFAULT NULL)
RETURNS TABLE(query int, label text, answer float8, stderr float8, ci_low float8, ci_high float8)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
  r dpm.releases;
  m dpm.release_measurements;
  as_released boolean;
BEGIN
  IF release.inference NOT IN ('ls', 'nnls', 'nnls_integer') THEN
    RAISE EXCEPTION 'unknown inference "%"', release.inference
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Valid: ls (least squares), nnls (non-negative least squares), nnls_integer (the same, rounded to integers).';
  END IF;
  IF NOT (release.confidence > 0 AND release.confidence < 1) THEN
    RAISE EXCEPTION 'confidence must be between 0 and 1 (exclusive), got %', release.confidence
      USING ERRCODE = 'invalid_parameter_value', HINT = 'Pass NULL for the release''s own.';
  END IF;
  IF release.release IS NULL THEN
    RAISE EXCEPTION 'release must not be NULL' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF release.inference IS NULL AND release.confidence IS NULL THEN
    RETURN QUERY SELECT * FROM dpm_internal.stored_answers(release.release);
    RETURN;
  END IF;

  PERFORM dpm_internal.check_release(release.release);
  SELECT * INTO r FROM dpm.releases x WHERE x.id = release.release;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'release % was made after this transaction''s snapshot', release.release
      USING ERRCODE = 'object_not_in_prerequisite_state',
            HINT = 'Derive its answers in a new transaction, or replay them as released: dpm.release(' || release.release || ').';
  END IF;
  IF r.kind = 'keys' THEN
    RAISE EXCEPTION 'release % selected keys: there is nothing to derive from it', r.id
      USING ERRCODE = 'invalid_parameter_value', HINT = 'Its keys are its answers'' labels: dpm.release(' || r.id || ').';
  END IF;
  SELECT * INTO m FROM dpm.release_measurements x WHERE x.release_id = r.id AND x.quantity IN ('counts', 'sums') ORDER BY x.quantity LIMIT 1;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'release % keeps no measurements to derive answers from', r.id
      USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = 'It was made before dpmatrix 0.2, which kept only the answers.',
            HINT = 'Replay its answers as released: dpm.release(' || r.id || ').';
  END IF;
  -- at the release's confidence, its intervals' half-widths as stored: they do not depend on the
  -- inference (nnls reports least squares' as a reference), and a Laplace simulation is not redone.
  -- An average's intervals are not symmetric and depend on the estimates: derived afresh.
  as_released := coalesce(release.confidence = r.confidence, release.confidence IS NULL) AND r.sum_share IS NULL;
  RETURN QUERY
    SELECT i.query, a.label, i.answer, i.stderr,
           CASE WHEN as_released THEN i.answer - (a.ci_high - a.ci_low) / 2 ELSE i.ci_low END,
           CASE WHEN as_released THEN i.answer + (a.ci_high - a.ci_low) / 2 ELSE i.ci_high END
      FROM dpm_internal.release_derive(r, m, coalesce(release.inference, r.inference),
                                       CASE WHEN NOT as_released THEN coalesce(release.confidence, r.confidence) END) i
      JOIN dpm.release_answers a ON a.release_id = r.id AND a.query = i.query
     ORDER BY i.query;
END
$$;
COMMENT ON FUNCTION dpm.release(bigint, text, float8) IS
  'a release''s answers at no cost: as released, or derived again from its measurements by another inference or at another confidence';

-- A call's reuse mode: its argument, else the session's dpm.reuse, else auto; checked.
CREATE OR REPLACE FUNCTION dpm_internal.reuse_mode(reuse text) RETURNS text
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  mode text := lower(coalesce(reuse, current_setting('dpm.reuse', true), 'auto'));
BEGIN
  IF mode NOT IN ('auto', 'only', 'never') THEN
    RAISE EXCEPTION 'unknown reuse "%"', mode
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Valid: auto (answer from earlier releases at no cost when they determine every query), only (and refuse otherwise), never.';
  END IF;
  RETURN mode;
END
$$;

-- The request of a release (dpm.answer) or of its dry run (dpm.explain), as dpm_internal.release_plan
-- reads it; it carries the caller's dpm.ci_draws, which the worker does not see.
CREATE OR REPLACE FUNCTION dpm_internal.release_request(workload text, epsilon float8, delta float8, rho float8, strategy int,
                                     method text, options jsonb, inference text, confidence float8, measure text,
                                     aggregate text DEFAULT NULL, sum_share float8 DEFAULT NULL,
                                     period_from date DEFAULT NULL, period_to date DEFAULT NULL)
RETURNS dpm_internal.answer_request LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  -- delta not given is 0: pure or zCDP; options null (JSON) none; the caller's dpm.ci_draws,
  -- which the worker does not see
  SELECT ROW(workload, epsilon, coalesce(delta, 0), rho, strategy, method, nullif(options, 'null'), inference, confidence,
             nullif(current_setting('dpm.ci_draws', true), '')::int, measure, aggregate, sum_share, period_from,
             period_to, NULL, NULL, NULL)::dpm_internal.answer_request
$$;

-- The release is planned here, in the caller's backend (strategy optimization included, under
-- the caller's statement_timeout and cancel), then charged and computed by a release worker (see
-- src/release/queue.h for why), which attributes it to dpm_internal.invoker().  SECURITY DEFINER: the
-- internal functions it calls are not the analysts' to call.
CREATE OR REPLACE FUNCTION dpm.answer(workload text, epsilon float8 DEFAULT NULL, delta float8 DEFAULT NULL,
                           rho float8 DEFAULT NULL, strategy int DEFAULT NULL, method text DEFAULT NULL,
                           options jsonb DEFAULT NULL, inference text DEFAULT 'ls',
                           confidence float8 DEFAULT 0.95, measure text DEFAULT NULL, aggregate text DEFAULT NULL,
                           sum_share float8 DEFAULT NULL, reuse text DEFAULT NULL, period_from date DEFAULT NULL,
                           period_to date DEFAULT NULL)
RETURNS TABLE(query int, label text, answer float8, stderr float8, ci_low float8, ci_high float8)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  p record;
  mode text;
  e record;
  determined bigint := 0;    -- queries earlier releases determine
  prior bigint;
  rel_id bigint;
  args dpm_internal.answer_request := dpm_internal.release_request(answer.workload, answer.epsilon, answer.delta, answer.rho, answer.strategy,
                                              answer.method, answer.options, answer.inference, answer.confidence,
                                              answer.measure, answer.aggregate, answer.sum_share, answer.period_from,
                                              answer.period_to);
  remainder int[];       -- the queries measured, when earlier releases determine the others
  plan record;
  pr record;
BEGIN
  mode := dpm_internal.reuse_mode(answer.reuse);
  PERFORM dpm_internal.release_args(args);     -- every argument, before earlier releases are looked at
  IF mode <> 'never' THEN
    -- what earlier releases determine, at no cost (sql/22_estimates.sql)
    SELECT array_agg(x.query ORDER BY x.query) AS q, array_agg(x.label ORDER BY x.query) AS l,
           array_agg(x.answer ORDER BY x.query) AS a, array_agg(x.stderr ORDER BY x.query) AS se,
           array_agg(x.ci_low ORDER BY x.query) AS lo, array_agg(x.ci_high ORDER BY x.query) AS hi,
           count(*) AS queries, count(*) FILTER (WHERE x.determined) AS determined, max(x.releases) AS releases,
           array_agg(x.query ORDER BY x.query) FILTER (WHERE NOT x.determined) AS undetermined,
           min(x.oldest) AS oldest, max(x.newest) AS newest
      INTO e
      FROM dpm_internal.reuse_answers(answer.workload, answer.measure, answer.aggregate, answer.inference,
                                      answer.confidence, mode, answer.period_from, answer.period_to,
                                      answer.epsilon, coalesce(answer.delta, 0), answer.rho) x;
    determined := coalesce(e.determined, 0);
    IF e.queries > 0 AND e.determined = e.queries THEN
      RAISE NOTICE 'workload "%" answered at no cost from % earlier release(s): nothing was charged and no release was made', answer.workload, e.releases
        USING DETAIL = format('The answers describe the table as it was at those releases, from %s to %s.', e.oldest, e.newest),
              HINT = 'dpm.estimate gives the same answers; reuse => ''never'' measures the table as it is now, with fresh noise and a charge.';
      RETURN QUERY SELECT * FROM unnest(e.q, e.l, e.a, e.se, e.lo, e.hi);
      RETURN;
    END IF;
    IF mode = 'only' THEN
      RAISE EXCEPTION 'earlier releases determine % of the % queries of workload "%"', coalesce(e.determined, 0), e.queries, answer.workload
        USING ERRCODE = 'no_data_found', DETAIL = 'Nothing was charged.',
              HINT = 'reuse => ''auto'' measures the workload (charged); dpm.estimate shows which queries are determined.';
    END IF;
  END IF;
  -- partly determined: measure only the rest (with a strategy of its own), unless a strategy or
  -- options (per-query targets) were given for the whole, or the domain is wide (a remainder is
  -- rows of a dense workload)
  IF mode = 'auto' AND determined > 0 AND answer.strategy IS NULL AND answer.options IS NULL
     AND (SELECT d.n FROM dpm.workloads w JOIN dpm.domains d ON d.id = w.domain_id
           WHERE w.name = answer.workload AND w.dropped_at IS NULL) IS NOT NULL THEN
    remainder := e.undetermined;
    args.queries := remainder;
  END IF;
  p := dpm_internal.release_plan(args, false);
  pr := dpm_internal.period_request(p.src, p.periods);
  IF remainder IS NOT NULL THEN
    -- the releases the answers combine with this one, as of now
    plan := dpm_internal.estimate_plan(p.dom, p.measure, dpm_internal.invoker(), p.periods);
  END IF;
  SELECT max(r.id) INTO prior FROM dpm.releases r
   WHERE remainder IS NULL AND r.workload_id = (p.wl).id AND r.measure_id IS NOT DISTINCT FROM (p.measure).id AND r.periods IS NOT DISTINCT FROM p.periods
     AND (r.sum_share IS NULL) = (p.sum_share IS NULL) AND r.counted = CASE WHEN answer.aggregate = 'units' THEN 'units' ELSE 'rows' END
     AND r.status = 'released' AND dpm_internal.bounds_combine(r)
     AND pg_has_role(dpm_internal.invoker(), r.released_by, 'USAGE');
  rel_id := dpm_internal.run_release(
    ROW('answers', (p.src).id, (p.wl).id, (p.st).id, (p.st).method, (p.st).options, (p.st).noise, p.noise,
        p.c_epsilon, p.c_delta, p.c_rho, coalesce(answer.inference, 'ls'), answer.confidence,
        CASE WHEN p.noise = 'laplace' AND answer.confidence IS NOT NULL THEN p.ci_draws END, (p.measure).id, p.sum_share,
        pr.period_from, pr.period_to, CASE WHEN remainder IS NOT NULL THEN (p.wl).remainder_of END,
        CASE WHEN remainder IS NOT NULL THEN (p.wl).queries END, NULL, NULL, NULL,
        CASE WHEN answer.aggregate = 'units' THEN 'units' END)::dpm_internal.planned_release,
    p.built);
  IF coalesce(answer.inference, 'ls') <> 'ls' THEN
    RAISE NOTICE 'release % estimates by non-negative least squares: stderr and the interval''s width are least squares'', a reference', rel_id
      USING DETAIL = 'The error of non-negative estimates depends on the data and has no closed form; over the strategy''s own queries it is never larger in total than least squares''.';
  END IF;
  IF prior IS NOT NULL THEN
    RAISE NOTICE 'release % answers workload "%" again with fresh noise, and was charged again', rel_id, answer.workload
      USING DETAIL = format('Release %s already answered it: dpm.release(%s) replays it at no cost, and derives other estimates from it (inference => ...), also at no cost.', prior, prior);
  ELSIF remainder IS NOT NULL THEN
    RAISE NOTICE 'earlier releases determined % of the % queries of workload "%": release % measured the other % alone, and was charged',
      determined, e.queries, answer.workload, rel_id, cardinality(remainder)
      USING DETAIL = format('Release %s is of workload "%s", those queries; each answer combines it with the earlier releases, as dpm.estimate does.',
                            rel_id, (p.wl).name);
    RETURN QUERY SELECT x.query, x.label, x.answer, x.stderr, x.ci_low, x.ci_high
                   FROM dpm_internal.estimate_from(dpm_internal.workload(answer.workload), p.dom, p.measure, plan.ids || rel_id,
                                                   plan.w_map, plan.maps || plan.w_map, answer.confidence) x;
    RETURN;
  ELSIF determined > 0 THEN
    RAISE NOTICE 'earlier releases determined % of the % queries of workload "%"; release % measured them all, and was charged',
      determined, e.queries, answer.workload, rel_id
      USING HINT = 'dpm.estimate combines this release with the earlier ones, at no cost.';
  END IF;

  RETURN QUERY SELECT * FROM dpm.release(rel_id);
END
$$;
COMMENT ON FUNCTION dpm.answer(text, float8, float8, float8, int, text, jsonb, text, float8, text, text, float8, text, date, date) IS
  'answer a workload on its source with the matrix mechanism, charging its budget (unless earlier releases determine it): answers, standard errors, intervals';
