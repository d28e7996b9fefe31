-- The SQL front door's answers (issue 44): a compiled statement (sql/30_query.sql) answered
-- under its role's privacy policy, by dpm.answer's release, shaped as the statement's own rows
-- and post-processed by its HAVING, ORDER BY and LIMIT; and its dry run.

-- An expression of a statement's select list over its answers (src/query/evaluate.c): to_json of
-- its value with $1..$n the args, as text of the given types; NULL when it fails on them (after
-- the charge nothing may fail).
CREATE OR REPLACE FUNCTION dpm_internal.query_value(expression text, types regtype[], args text[]) RETURNS json
AS 'MODULE_PATHNAME', 'dpm_query_value' LANGUAGE C VOLATILE;

-- The statement's answer rows: per row its own columns in order (grouping values as the
-- statement computes them, aggregates as numbers, expressions over them evaluated), then each
-- aggregate's standard error and interval (<name>_stderr, <name>_ci_low, <name>_ci_high).
-- parts: per query of the workload, the answers of each quantity ('answers', and for an average's
-- release 'sums' and 'counts').  Aggregates only expressions use are "hidden": not shown.
-- (jit off: the planner's guesses for its nested JSON functions would JIT-compile a query over a
-- few rows, at hundreds of milliseconds a statement)
CREATE OR REPLACE FUNCTION dpm_internal.query_rows(q jsonb, keys jsonb[], aggregate text, parts jsonb,
                                                  expected boolean DEFAULT false)
RETURNS SETOF json
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp SET jit = off
AS $$
  SELECT ('{' || string_agg(f.field, ', ' ORDER BY f.o, f.sub) || '}')::json
    FROM generate_series(1, cardinality(keys)) i,
         LATERAL (
           SELECT c.o, 0 AS sub, to_json(c.x->>'output')::text || ': ' ||
                  CASE WHEN c.x ? 'group'
                       THEN coalesce(keys[i]->(SELECT (min(go) - 1)::text FROM jsonb_array_elements(q->'group_by') WITH ORDINALITY g(e, go)
                                                WHERE g.e = c.x->'group'), 'null')::text
                       WHEN c.x ? 'expression'
                       THEN coalesce(dpm_internal.query_value(c.x->>'expression',
                              ARRAY(SELECT (a->>'type')::regtype FROM jsonb_array_elements(c.x->'args') WITH ORDINALITY t(a, n) ORDER BY n),
                              ARRAY(SELECT CASE WHEN a ? 'group' THEN keys[i]->>(a->>'group')
                                                ELSE (SELECT parts->(dpm_internal.query_part(h, aggregate))->(i - 1)->>'answer'
                                                        FROM jsonb_array_elements(q->'columns') h WHERE h->>'output' = a->>'output') END
                                      FROM jsonb_array_elements(c.x->'args') WITH ORDINALITY t(a, n) ORDER BY n))::text, 'null')
                       ELSE coalesce((parts->(dpm_internal.query_part(c.x, aggregate))->(i - 1)->'answer')::text, 'null') END AS field
             FROM jsonb_array_elements(q->'columns') WITH ORDINALITY c(x, o)
            WHERE NOT (expected AND (c.x ? 'aggregate' OR c.x ? 'expression')) AND NOT c.x ? 'hidden'
           UNION ALL
           SELECT 1000000 + c.o, s.sub, to_json((c.x->>'output') || s.suffix)::text || ': ' ||
                  coalesce((parts->(dpm_internal.query_part(c.x, aggregate))->(i - 1)->s.key)::text, 'null')
             FROM jsonb_array_elements(q->'columns') WITH ORDINALITY c(x, o),
                  (VALUES (1, '_stderr', 'stderr'),
                          (2, CASE WHEN expected THEN '_ci_half_width' ELSE '_ci_low' END, CASE WHEN expected THEN 'ci_half_width' ELSE 'ci_low' END),
                          (3, '_ci_high', 'ci_high')) s(sub, suffix, key)
            WHERE c.x ? 'aggregate' AND NOT c.x ? 'hidden' AND (s.sub < 3 OR NOT expected)) f
   GROUP BY i
   ORDER BY i
$$;

-- "v op c" for a value v of a statement's row (a JSON number compared as a number, else as text)
-- and a constant c of HAVING; NULL when v is.
CREATE OR REPLACE FUNCTION dpm_internal.query_compare(v jsonb, op text, c text) RETURNS boolean
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN jsonb_typeof(v) = 'number'
              THEN CASE op WHEN '=' THEN v::numeric = c::numeric WHEN '<>' THEN v::numeric <> c::numeric
                           WHEN '<' THEN v::numeric < c::numeric WHEN '<=' THEN v::numeric <= c::numeric
                           WHEN '>' THEN v::numeric > c::numeric WHEN '>=' THEN v::numeric >= c::numeric END
              WHEN jsonb_typeof(v) IN ('string', 'boolean')
              THEN CASE op WHEN '=' THEN v #>> '{}' = c WHEN '<>' THEN v #>> '{}' <> c
                           WHEN '<' THEN v #>> '{}' < c WHEN '<=' THEN v #>> '{}' <= c
                           WHEN '>' THEN v #>> '{}' > c WHEN '>=' THEN v #>> '{}' >= c END END
$$;

-- HAVING over a row r (jsonb) as SQL text: the compiled condition's tree.
CREATE OR REPLACE FUNCTION dpm_internal.query_having(cond jsonb, q jsonb) RETURNS text
LANGUAGE sql IMMUTABLE STRICT SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN cond ? 'and' OR cond ? 'or'
              THEN '(' || (SELECT string_agg(dpm_internal.query_having(c, q), CASE WHEN cond ? 'and' THEN ' AND ' ELSE ' OR ' END)
                             FROM jsonb_array_elements(coalesce(cond->'and', cond->'or')) c) || ')'
              WHEN cond ? 'not' THEN '(NOT ' || dpm_internal.query_having(cond->'not'->0, q) || ')'
              WHEN cond ? 'is_null'
              THEN format('(nullif(r->%L, ''null'') IS %sNULL)', q->'columns'->((cond->>'output')::int)->>'output',
                          CASE WHEN (cond->>'is_null')::boolean THEN '' ELSE 'NOT ' END)
              ELSE format('dpm_internal.query_compare(r->%L, %L, %L)', q->'columns'->((cond->>'output')::int)->>'output',
                          cond->>'op', cond->>'value') END
$$;

-- The statement's HAVING, ORDER BY, LIMIT and OFFSET applied to its answer rows: post-processing
-- of what was released, at no cost (ties keep the workload's order).
CREATE OR REPLACE FUNCTION dpm_internal.query_post(q jsonb, rows json[]) RETURNS SETOF json
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  RETURN QUERY EXECUTE format(
    'SELECT x.j FROM unnest($1) WITH ORDINALITY x(j, k), LATERAL (SELECT x.j::jsonb AS r) y
      WHERE %s ORDER BY %s x.k LIMIT %s OFFSET %s',
    coalesce(dpm_internal.query_having(nullif(q->'having', 'null'), q), 'true'),
    (SELECT string_agg(format('nullif(r->%L, ''null'') %s NULLS %s, ', q->'columns'->((o->>'output')::int)->>'output',
                              CASE WHEN (o->>'desc')::boolean THEN 'DESC' ELSE 'ASC' END,
                              CASE WHEN (o->>'nulls_first')::boolean THEN 'FIRST' ELSE 'LAST' END), '' ORDER BY n)
       FROM jsonb_array_elements(coalesce(q->'order_by', '[]')) WITH ORDINALITY z(o, n)),
    coalesce((q->>'limit')::bigint::text, 'ALL'), coalesce((q->>'offset')::bigint, 0))
    USING rows;
END
$$;

-- Which quantity of a release answers an aggregate of the statement.
CREATE OR REPLACE FUNCTION dpm_internal.query_part(col jsonb, aggregate text) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN col ? 'variant' THEN 'count ' || (col->>'column')
              WHEN aggregate = 'percentile' AND col->>'aggregate' IN ('sum', 'avg') THEN (col->>'aggregate') || ' ' || (col->>'column')
              WHEN aggregate = 'multi' AND col->>'aggregate' IN ('sum', 'avg', 'count')
              THEN CASE WHEN col->>'column' IS NULL THEN 'counts' ELSE (col->>'aggregate') || ' ' || (col->>'column') END
              WHEN aggregate = 'avg' AND col->>'aggregate' = 'sum' THEN 'sums'
              WHEN aggregate = 'avg' AND col->>'aggregate' = 'count' THEN 'counts'
              WHEN aggregate = 'percentile' AND col->>'aggregate' = 'count' THEN 'last cumulative counts'
              WHEN col->>'aggregate' LIKE 'percentile%' THEN (col->>'aggregate') || ' ' || (col->>'fraction')
              ELSE 'answers' END
$$;

-- A statement of percentiles, from its rows of cumulative counts (keys with "_cdf": the bin) and
-- their answers with the half-widths of a band that holds for all of a group's bins together
-- (dpm_internal.release_band): per group, each percentile column's value and interval
-- (dpm_internal.quantile_of over the bins' edges in cdf), as query_rows takes them.
-- percentile_cont interpolates in the bin where the CDF crosses; percentile_disc is that bin's
-- lower edge (a value of the column itself when its bins hold one value each).  A count beside
-- them is the group's last cumulative count (plain: the release's rows, with their errors), and a
-- sum or an average the group's last row's of more (query_multi's parts, by name).
CREATE OR REPLACE FUNCTION dpm_internal.query_percentiles(q jsonb, keys jsonb[], band jsonb, cdf jsonb, plain jsonb,
                                                          more jsonb, OUT groups jsonb[], OUT parts jsonb)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  g jsonb;
  a float8[];
  h float8[];
  est float8[];
  c jsonb;
  x record;
  lo float8[] := ARRAY(SELECT jsonb_array_elements_text(cdf->'lo')::float8);
  hi float8[] := ARRAY(SELECT jsonb_array_elements_text(cdf->'hi')::float8);
BEGIN
  groups := ARRAY(SELECT k - '_cdf' FROM unnest(keys) WITH ORDINALITY u(k, o) GROUP BY k - '_cdf' ORDER BY min(o));
  parts := '{}';
  FOREACH g IN ARRAY groups LOOP
    -- its counts (the plain answers, when a count is asked), sums and averages: its last row's
    parts := parts || coalesce((SELECT jsonb_object_agg(mo.name, coalesce(parts->mo.name, '[]') || jsonb_build_array((
                                  SELECT mo.v->(o::int - 1) FROM unnest(keys) WITH ORDINALITY u(k, o) WHERE k - '_cdf' = g
                                   ORDER BY (k->>'_cdf')::int DESC LIMIT 1)))
                                  FROM jsonb_each(more || CASE WHEN EXISTS (SELECT 1 FROM jsonb_array_elements(q->'columns') y
                                                                             WHERE y->>'aggregate' = 'count')
                                                               THEN jsonb_build_object('last cumulative counts', plain) ELSE '{}' END) mo(name, v)),
                               '{}');
    SELECT array_agg((band->(o::int - 1)->>'answer')::float8 ORDER BY (k->>'_cdf')::int),
           array_agg((band->(o::int - 1)->>'half')::float8 ORDER BY (k->>'_cdf')::int)
      INTO a, h
      FROM unnest(keys) WITH ORDINALITY u(k, o) WHERE k - '_cdf' = g;
    est := ARRAY(SELECT greatest(v, 0) FROM unnest(dpm_internal.isotonic(a)) v);
    -- each percentile once, however many columns (or expressions) show it
    FOR c IN SELECT DISTINCT ON (dpm_internal.query_part(y, 'percentile')) y
               FROM jsonb_array_elements(q->'columns') y WHERE y->>'aggregate' LIKE 'percentile%' LOOP
      x := dpm_internal.quantile_of(est, ARRAY(SELECT u.a + u.h FROM unnest(a, h) u(a, h)), ARRAY(SELECT u.a - u.h FROM unnest(a, h) u(a, h)),
                                    h[cardinality(h)], lo, hi, (c->>'fraction')::float8);
      parts := jsonb_set(parts, ARRAY[dpm_internal.query_part(c, 'percentile')],
                         coalesce(parts->dpm_internal.query_part(c, 'percentile'), '[]')
                         || jsonb_build_array(jsonb_build_object(
                              'answer', CASE WHEN c->>'aggregate' = 'percentile_disc' THEN lo[x.bin] ELSE x.value END,
                              'stderr', NULL, 'ci_low', x.ci_low, 'ci_high', x.ci_high)));
    END LOOP;
  END LOOP;
END
$$;

-- The budget of a statement through the front door: as given, or as the session sets it
-- (dpm.statement_epsilon, dpm.statement_delta, dpm.statement_rho), or its role's privacy policy's
-- default (sql/13_sources.sql).  Refused when the role has no policy on the source, unless it may
-- read the source itself (a custodian), or when it asks more than its policy allows a statement.
CREATE OR REPLACE FUNCTION dpm_internal.query_budget(src dpm.sources, INOUT epsilon float8, INOUT delta float8, INOUT rho float8)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  p dpm.privacy_policies;
BEGIN
  -- a statement that names no budget: the session's setting, else its policy's default
  IF epsilon IS NULL AND delta IS NULL AND rho IS NULL THEN
    epsilon := nullif(current_setting('dpm.statement_epsilon', true), '0')::float8;
    rho := nullif(current_setting('dpm.statement_rho', true), '0')::float8;
    delta := CASE WHEN epsilon IS NOT NULL OR rho IS NOT NULL THEN nullif(current_setting('dpm.statement_delta', true), '0')::float8 END;
  END IF;
  SELECT * INTO p FROM dpm.privacy_policies x WHERE x.source_id = src.id AND x.role_name = dpm_internal.invoker();
  IF NOT FOUND THEN
    IF NOT has_table_privilege(dpm_internal.invoker(), src.relation, 'SELECT') THEN
      RAISE EXCEPTION 'role "%" has no privacy policy on source "%"', dpm_internal.invoker(), src.relation
        USING ERRCODE = 'insufficient_privilege',
              HINT = 'The source''s custodian opens the SQL front door to a role with dpm.set_privacy_policy(source, role, ...).';
    END IF;
    RETURN;
  END IF;
  IF epsilon IS NULL AND delta IS NULL AND rho IS NULL THEN
    epsilon := p.statement_epsilon;
    delta := p.statement_delta;
    rho := p.statement_rho;
  END IF;
  IF epsilon > p.max_statement_epsilon OR delta > p.max_statement_delta OR rho > p.max_statement_rho THEN
    RAISE EXCEPTION 'the privacy policy of role "%" on source "%" allows a statement at most %', dpm_internal.invoker(), src.relation,
      concat_ws(' and ', 'epsilon ' || p.max_statement_epsilon, 'delta ' || p.max_statement_delta, 'rho ' || p.max_statement_rho)
      USING ERRCODE = 'invalid_parameter_value', DETAIL = 'Nothing was charged.',
            HINT = 'Ask for less; dpm.privacy_policies shows the policy.';
  END IF;
END
$$;

-- The shares of the charge of a release of several measures (dpm_internal.query_plan's extra
-- parts, and before them the release's own counts, or its first measure's sums when primary_sums),
-- by the rule an average's two parts follow (dpm_internal.avg_sum_share): a part of sums weighs
-- f / (1 - f) where one of counts weighs 1.  Decided on the budget alone.
CREATE OR REPLACE FUNCTION dpm_internal.query_shares(src dpm.sources, extra jsonb, primary_sums boolean, epsilon float8,
                                                    delta float8, rho float8) RETURNS jsonb
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  cost record := dpm_internal.privacy_cost(src, epsilon, coalesce(delta, 0), rho);
  f float8 := dpm_internal.avg_sum_share(cost.noise, cost.c_epsilon, cost.c_delta, cost.c_rho);
  w float8 := f / (1 - f);
  total float8;
BEGIN
  IF extra IS NULL THEN
    RETURN NULL;
  END IF;
  total := CASE WHEN primary_sums THEN w ELSE 1 END
           + (SELECT sum(CASE WHEN e->>'quantity' LIKE 'sums:%' THEN w ELSE 1 END) FROM jsonb_array_elements(extra) e);
  RETURN (SELECT jsonb_agg(e || jsonb_build_object('share', CASE WHEN e->>'quantity' LIKE 'sums:%' THEN w ELSE 1 END / total) ORDER BY o)
            FROM jsonb_array_elements(extra) WITH ORDINALITY x(e, o));
END
$$;

-- What a part of a release with this share of its charge has of the noise the whole charge would
-- give: its standard deviation's ratio (Laplace 1 / share; Gaussian under zCDP 1 / sqrt(share),
-- else the ratio of dpm.gaussian_sigma's).
CREATE OR REPLACE FUNCTION dpm_internal.share_factor(noise text, c_epsilon numeric, c_delta numeric, c_rho numeric, share float8)
RETURNS float8
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN noise = 'laplace' THEN 1 / share
              WHEN c_rho IS NOT NULL THEN 1 / sqrt(share)
              ELSE dpm.gaussian_sigma(c_epsilon::float8 * share, c_delta::float8 * share) / dpm.gaussian_sigma(c_epsilon::float8, c_delta::float8) END
$$;

-- The release of a statement of several measures (query_plan's aggregate 'multi'), planned,
-- checked and charged as dpm.answer's, with its extra parts; earlier releases are not reused
-- (none measured these parts together).  Returns its id.
CREATE OR REPLACE FUNCTION dpm_internal.query_release(args dpm_internal.answer_request) RETURNS bigint
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  p record := dpm_internal.release_plan(args, false);
  pr record := dpm_internal.period_request(p.src, p.periods);
BEGIN
  RETURN dpm_internal.run_release(
    ROW('answers', (p.src).id, (p.wl).id, (p.st).id, (p.st).method, (p.st).options, (p.st).noise, p.noise,
        p.c_epsilon, p.c_delta, p.c_rho, 'ls', args.confidence,
        CASE WHEN p.noise = 'laplace' AND args.confidence IS NOT NULL THEN p.ci_draws END, (p.measure).id, NULL,
        pr.period_from, pr.period_to, NULL, NULL, NULL, NULL, args.extra_parts, args.counted)::dpm_internal.planned_release,
    p.built);
END
$$;

-- A release of several measures' answers under the statements' names (query_part's, aggregate
-- 'multi': "counts", "sum <column>", "count <column>", "avg <column>"), each a JSON array in query
-- order, from its measurements at its confidence (an average by dpm_internal.release_avg).  ms: each
-- measure column's {"id", "drop"} (query_plan).
CREATE OR REPLACE FUNCTION dpm_internal.query_multi(rel dpm.releases, ms jsonb, names text[]) RETURNS jsonb
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  n text;
  c text;
  res jsonb := '{}';
  qs text;
  qc text;
BEGIN
  FOREACH n IN ARRAY names LOOP
    c := substr(n, strpos(n, ' ') + 1);
    -- the quantities: its measure's sums; the counts of its rows with a value, or of all rows
    qs := CASE WHEN (ms->c->>'id')::int = rel.measure_id THEN 'sums' ELSE 'sums:' || (ms->c->>'id') END;
    qc := CASE WHEN (ms->c->>'drop')::boolean THEN 'counts:' || (ms->c->>'id') ELSE 'counts' END;
    IF n = 'counts' OR n LIKE 'sum %' OR n LIKE 'count %' THEN
      res := res || jsonb_build_object(n, (
        SELECT jsonb_agg(to_jsonb(x) ORDER BY x.query)
          FROM dpm.release_measurements m, dpm_internal.release_infer(rel, m, 'ls', rel.confidence) x
         WHERE m.release_id = rel.id AND m.quantity = CASE WHEN n = 'counts' THEN 'counts' WHEN n LIKE 'sum %' THEN qs ELSE qc END));
    ELSE
      res := res || jsonb_build_object(n, (
        SELECT jsonb_agg(to_jsonb(x) ORDER BY x.query)
          FROM dpm_internal.release_avg(rel, 'ls', rel.confidence, qs, qc, (ms->c->>'id')::int) x));
    END IF;
  END LOOP;
  RETURN res;
END
$$;

-- A statement's answers (parts, as query_answer keeps them, its n rows after the first off): those
-- rows' of each quantity, and for each column it counts by a variant (query_plan) the counts of the
-- variant's rows, the n after off + v n (of quantity base), as "count <column>".
CREATE OR REPLACE FUNCTION dpm_internal.query_variants(q jsonb, parts jsonb, off int, n int, base text) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT dpm_internal.query_slice(parts, off, n)
         || coalesce((SELECT jsonb_object_agg('count ' || (c->>'column'), dpm_internal.query_slice(parts, off + (c->>'variant')::int * n, n)->base)
                        FROM jsonb_array_elements(q->'columns') c WHERE c ? 'variant'), '{}')
$$;

-- Each quantity's answers (parts, as query_answer keeps them) of the n queries after the first off.
CREATE OR REPLACE FUNCTION dpm_internal.query_slice(parts jsonb, off int, n int) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT jsonb_object_agg(k, (SELECT coalesce(jsonb_agg(e ORDER BY o), '[]') FROM jsonb_array_elements(v) WITH ORDINALITY t(e, o)
                               WHERE o > off AND o <= off + n))
    FROM jsonb_each(parts) x(k, v)
$$;

-- A statement's arguments, each on its own (dpm_internal.check_request), before its policy, its
-- compilation into the catalog or any earlier release is looked at; returns the reuse mode.
CREATE OR REPLACE FUNCTION dpm_internal.query_args(epsilon float8, delta float8, rho float8, method text, confidence float8,
                                                   reuse text) RETURNS text
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  PERFORM dpm_internal.check_request(dpm_internal.release_request(NULL, epsilon, delta, rho, NULL, method, NULL, 'ls',
                                                                  confidence, NULL));
  RETURN dpm_internal.reuse_mode(reuse);
END
$$;

-- The latest release the caller may read that answered the same workload as a statement of this
-- aggregate would (the same statement asked before): replayed at no cost, identically; within
-- the caller's privacy policy's refresh_after, if it has one.
CREATE OR REPLACE FUNCTION dpm_internal.query_prior(wl dpm.workloads, measure dpm.measures, aggregate text, confidence float8,
                                                   extra jsonb)
RETURNS dpm.releases
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT r FROM dpm.releases r
   WHERE r.workload_id = wl.id AND r.measure_id IS NOT DISTINCT FROM measure.id AND r.periods IS NULL
     AND (r.sum_share IS NOT NULL) = coalesce(aggregate = 'avg', false) AND r.status = 'released' AND r.kind = 'answers'
     AND r.counted = CASE WHEN aggregate = 'units' THEN 'units' ELSE 'rows' END
     AND dpm_internal.bounds_combine(r)
     -- the same parts (their shares follow from the budget)
     AND (SELECT array_agg(e->>'quantity' ORDER BY o) FROM jsonb_array_elements(r.extra_parts) WITH ORDINALITY x(e, o))
         IS NOT DISTINCT FROM (SELECT array_agg(e->>'quantity' ORDER BY o) FROM jsonb_array_elements(extra) WITH ORDINALITY x(e, o))
     AND r.confidence IS NOT DISTINCT FROM query_prior.confidence AND r.inference = 'ls'
     AND pg_has_role(dpm_internal.invoker(), r.released_by, 'USAGE')
     AND r.released_at >= coalesce(now() - (SELECT p.refresh_after FROM dpm.privacy_policies p
                                             WHERE p.source_id = r.source_id AND p.role_name = dpm_internal.invoker()),
                                   '-infinity')
   ORDER BY r.id DESC LIMIT 1
$$;

-- What answers a statement before anything is measured: the release that answered it before
-- (query_prior), unless mode is 'never'; and the reuse mode dpm.answer gets, 'never' when the
-- caller's policy has a refresh_after and no release within it answered the statement (older
-- releases do not answer it through dpm.answer's reuse either).  dpm.answer_query and
-- dpm.explain_query decide alike.
CREATE OR REPLACE FUNCTION dpm_internal.query_reuse(src dpm.sources, wl dpm.workloads, measure dpm.measures, aggregate text,
                                                    confidence float8, extra jsonb, INOUT mode text, OUT prior dpm.releases)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF mode <> 'never' THEN
    prior := dpm_internal.query_prior(wl, measure, aggregate, confidence, extra);
  END IF;
  IF prior.id IS NULL AND mode = 'auto' AND EXISTS (SELECT 1 FROM dpm.privacy_policies x
                                                     WHERE x.source_id = src.id AND x.role_name = dpm_internal.invoker()
                                                       AND x.refresh_after IS NOT NULL) THEN
    mode := 'never';
  END IF;
END
$$;

-- dpm.answer_query of compiled statements (src/api/query_api.c calls it as the extension's owner):
-- every argument checked, then the release that answered the same workload before replayed at
-- no cost (identical answers), or dpm.answer's reuse rules, or a release charged; the rows of
-- each statement in turn, with the release they come from and what this call charged for them
-- (a dashboard's statements share one release and its charge).
CREATE OR REPLACE FUNCTION dpm_internal.query_answer(qs jsonb, epsilon float8, delta float8, rho float8, method text,
                                                     confidence float8, reuse text)
RETURNS TABLE(statement int, result json, release_id bigint, cost text)
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  stmts jsonb := CASE WHEN jsonb_typeof(qs) = 'array' THEN qs ELSE jsonb_build_array(qs) END;
  mode text := dpm_internal.query_args(epsilon, delta, rho, method, confidence, reuse);
  -- the role's policy next: a role without one learns nothing more, and makes nothing
  b record := dpm_internal.query_budget(dpm_internal.source((stmts->0->>'source')::regclass), epsilon, delta, rho);
  p record := dpm_internal.query_plan(qs);
  base text := CASE WHEN p.aggregate = 'multi' THEN 'counts' ELSE 'answers' END;   -- what a variant's rows are of
  parts_needed boolean := EXISTS (SELECT 1 FROM jsonb_array_elements(stmts) x, jsonb_array_elements(x->'columns') c
                                   WHERE dpm_internal.query_part(c, p.aggregate) <> 'answers');
  counts_of text := CASE WHEN p.aggregate IN ('avg', 'units') THEN p.aggregate END;      -- what the release measures
  args dpm_internal.answer_request;
  rel dpm.releases;
  k int;
  off int := 0;
  st jsonb;
  pc record;
  before bigint;
  parts jsonb;
  m dpm.release_measurements;
  quantity text;
  charged text := 'free';
  reused record;
BEGIN
  stmts := p.statements;      -- with the columns counted by variants marked
  epsilon := b.epsilon;
  delta := b.delta;
  rho := b.rho;
  -- every argument, before earlier releases are looked at; several measures' parts with their
  -- shares of the charge
  args := dpm_internal.release_request((p.wl).name, epsilon, delta, rho, NULL, method, NULL, 'ls', confidence, (p.measure).name,
                                       counts_of);
  PERFORM dpm_internal.release_args(args);
  args.extra_parts := dpm_internal.query_shares(p.src, p.parts->'extra', (p.measure).id IS NOT NULL, epsilon, delta, rho);
  PERFORM dpm_internal.release_args(args);
  -- HAVING, ORDER BY and LIMIT run once on the statements' rows with every aggregate 0, before
  -- anything is charged: after the charge they meet the same keys and numbers, and cannot fail
  k := 0;
  FOR st IN SELECT x FROM jsonb_array_elements(stmts) x LOOP
    k := k + 1;
    PERFORM count(*) FROM dpm_internal.query_post(st, ARRAY(
      SELECT dpm_internal.query_rows(st, p.keys[off + 1:off + p.counts[k]], p.aggregate, (
               SELECT jsonb_object_agg(z.part, (SELECT jsonb_agg(jsonb_build_object('answer', 0, 'stderr', 0, 'ci_low', 0, 'ci_high', 0))
                                                  FROM generate_series(1, p.counts[k])))
                 FROM (SELECT DISTINCT dpm_internal.query_part(c, p.aggregate) AS part
                         FROM jsonb_array_elements(st->'columns') c WHERE c ? 'aggregate') z))));
    off := off + p.counts[k] * (1 + p.variants[k]);
  END LOOP;
  off := 0;
  reused := dpm_internal.query_reuse(p.src, p.wl, p.measure, p.aggregate, confidence, p.parts->'extra', mode);
  mode := reused.mode;
  rel := reused.prior;
  IF p.parts ? 'extra' THEN
    -- several measures: a release of their parts, or the one that answered the statement before
    IF rel.id IS NOT NULL THEN
      RAISE NOTICE 'answered at no cost from release %, which answered the same statement at %', rel.id, rel.released_at
        USING HINT = 'reuse => ''never'' measures the table as it is now, with fresh noise and a charge.';
    ELSIF mode = 'only' THEN
      RAISE EXCEPTION 'no earlier release answered this statement' USING ERRCODE = 'no_data_found', DETAIL = 'Nothing was charged.';
    ELSE
      before := dpm_internal.query_release(args);
      SELECT * INTO rel FROM dpm.releases r WHERE r.id = before;
      charged := concat_ws(', ', 'epsilon ' || rel.epsilon, 'delta ' || nullif(rel.delta, 0), 'rho ' || rel.rho);
      RAISE NOTICE 'release % measured %', rel.id,
        (SELECT string_agg(format('%s with %s of its charge', CASE WHEN x.quantity = 'counts' THEN 'the counts'
                                                                   WHEN x.quantity LIKE 'sums%' THEN 'the sums of ' || xm.name
                                                                   ELSE format('the counts of rows where %s is not NULL', xm.name) END,
                                  round(x.share::numeric, 3)), ', ' ORDER BY x.o)
           FROM dpm_internal.release_parts(p.src, p.measure, NULL, rel.extra_parts) WITH ORDINALITY x(quantity, scale, share, measure_id, o)
           LEFT JOIN dpm.measures xm ON xm.id = x.measure_id)
        USING DETAIL = 'Each sum, count and average of the statement comes from these parts, an average from its measure''s sums and counts.';
    END IF;
    parts := dpm_internal.query_multi(rel, p.parts->'measures', ARRAY(
               SELECT DISTINCT dpm_internal.query_part(c, p.aggregate) FROM jsonb_array_elements(stmts) x, jsonb_array_elements(x->'columns') c
                WHERE c ? 'aggregate' AND NOT c->>'aggregate' LIKE 'percentile%'
                  AND NOT (p.aggregate = 'percentile' AND c->>'aggregate' = 'count')));
  ELSIF rel.id IS NOT NULL THEN
    RAISE NOTICE 'answered at no cost from release %, which answered the same statement at %', rel.id, rel.released_at
      USING HINT = 'reuse => ''never'' measures the table as it is now, with fresh noise and a charge.';
    parts := jsonb_build_object('answers', (SELECT jsonb_agg(to_jsonb(x) ORDER BY x.query) FROM dpm.release(rel.id) x));
  ELSE
    IF parts_needed AND mode = 'only' THEN
      RAISE EXCEPTION 'no earlier release answered this statement' USING ERRCODE = 'no_data_found', DETAIL = 'Nothing was charged.';
    END IF;
    SELECT coalesce(max(r.id), 0) INTO before FROM dpm.releases r;
    parts := jsonb_build_object('answers', (
      SELECT jsonb_agg(to_jsonb(x) ORDER BY x.query)
        FROM dpm.answer((p.wl).name, epsilon, delta, rho, NULL, method, NULL, 'ls', confidence, (p.measure).name, counts_of,
                        NULL, CASE WHEN parts_needed THEN 'never' ELSE mode END) x));
    SELECT * INTO rel FROM dpm.releases r
     WHERE r.id > before AND r.workload_id = (p.wl).id AND r.released_by = dpm_internal.invoker() ORDER BY r.id DESC LIMIT 1;
    IF rel.id IS NOT NULL THEN
      charged := concat_ws(', ', 'epsilon ' || rel.epsilon, 'delta ' || nullif(rel.delta, 0), 'rho ' || rel.rho);
    END IF;
  END IF;
  IF p.aggregate = 'avg' AND rel.id IS NOT NULL THEN
    RAISE NOTICE 'release % measured the sums with % of its charge and the counts with the rest', rel.id,
      round(rel.sum_share::numeric, 3)
      USING DETAIL = 'An average is their ratio; sum(...) and count(...) of the statement are those sums and counts.';
    IF parts_needed THEN
      FOREACH quantity IN ARRAY ARRAY['sums', 'counts'] LOOP
        SELECT * INTO m FROM dpm.release_measurements x WHERE x.release_id = rel.id AND x.quantity = quantity;
        parts := parts || jsonb_build_object(quantity, (
          SELECT jsonb_agg(to_jsonb(x) ORDER BY x.query)
            FROM dpm_internal.release_infer(rel, m, rel.inference, rel.confidence) x));
      END LOOP;
    END IF;
  END IF;
  IF p.aggregate = 'percentile' THEN
    -- the cumulative counts with a band that holds for all of a group's bins together, and each
    -- with its own error (a count beside the percentiles)
    parts := coalesce(parts - 'answers', '{}')       -- and the measures' parts, by name
             || jsonb_build_object('answers', (SELECT jsonb_agg(to_jsonb(x) ORDER BY x.query)
                                                 FROM dpm_internal.release_band(rel, confidence, jsonb_array_length(p.cdf->'lo')) x),
                                   'plain', (SELECT jsonb_agg(to_jsonb(x) ORDER BY x.query) FROM dpm.release(rel.id) x));
  END IF;
  k := 0;
  FOR st IN SELECT x FROM jsonb_array_elements(stmts) x LOOP
    k := k + 1;
    IF p.aggregate = 'percentile' THEN
      pc := dpm_internal.query_percentiles(st, p.keys[off + 1:off + p.counts[k]],
                                           dpm_internal.query_slice(parts, off, p.counts[k])->'answers', p.cdf,
                                           dpm_internal.query_slice(parts, off, p.counts[k])->'plain',
                                           dpm_internal.query_slice(parts, off, p.counts[k]) - 'answers' - 'plain');
      RETURN QUERY SELECT k, r, rel.id, charged FROM dpm_internal.query_post(st, ARRAY(
                     SELECT dpm_internal.query_rows(st, pc.groups, p.aggregate, pc.parts))) r;
    ELSE
      RETURN QUERY SELECT k, r, rel.id, charged FROM dpm_internal.query_post(st, ARRAY(
                     SELECT dpm_internal.query_rows(st, p.keys[off + 1:off + p.counts[k]], p.aggregate,
                                                    dpm_internal.query_variants(st, parts, off, p.counts[k], base)))) r;
    END IF;
    off := off + p.counts[k] * (1 + p.variants[k]);
  END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION dpm.answer_query(sql text, epsilon float8 DEFAULT NULL, delta float8 DEFAULT NULL, rho float8 DEFAULT NULL,
                                            method text DEFAULT NULL, confidence float8 DEFAULT 0.95, reuse text DEFAULT NULL)
RETURNS TABLE(result json, release_id bigint, cost text)
AS 'MODULE_PATHNAME', 'dpm_answer_query' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dpm.answer_query(text, float8, float8, float8, text, float8, text) IS
  'answer a SELECT ... GROUP BY over a source, charging its budget unless a release answered it: per row a JSON object with each aggregate''s error, its release and cost';

-- dpm.explain_query of compiled statements: what dpm.answer_query would do, reading no row and
-- charging nothing (dpm.explain of its workload): the domain and workload it compiled to, the
-- strategy and charge, the expected standard error of each answer row, and whether an earlier
-- release answers it at no cost.
CREATE OR REPLACE FUNCTION dpm_internal.query_explain(qs jsonb, epsilon float8, delta float8, rho float8, method text,
                                                      confidence float8, reuse text)
RETURNS TABLE(plan jsonb)
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  stmts jsonb := CASE WHEN jsonb_typeof(qs) = 'array' THEN qs ELSE jsonb_build_array(qs) END;
  mode text := dpm_internal.query_args(epsilon, delta, rho, method, confidence, reuse);
  b record := dpm_internal.query_budget(dpm_internal.source((stmts->0->>'source')::regclass), epsilon, delta, rho);
  p record := dpm_internal.query_plan(qs);
  base text := CASE WHEN p.aggregate = 'multi' THEN 'counts' ELSE 'answers' END;   -- what a variant's rows are of
  counts_of text := CASE WHEN p.aggregate IN ('avg', 'units') THEN p.aggregate END;      -- what the release measures
  expected jsonb;
  extra jsonb;
  cost record;
  prior dpm.releases;
  e jsonb;
  rows jsonb;
  reused record;
BEGIN
  stmts := p.statements;
  epsilon := b.epsilon;
  delta := b.delta;
  rho := b.rho;
  PERFORM dpm_internal.release_args(dpm_internal.release_request((p.wl).name, epsilon, delta, rho, NULL, method, NULL, 'ls',
                                                                 confidence, (p.measure).name, counts_of));
  extra := dpm_internal.query_shares(p.src, p.parts->'extra', (p.measure).id IS NOT NULL, epsilon, delta, rho);
  reused := dpm_internal.query_reuse(p.src, p.wl, p.measure, p.aggregate, confidence, p.parts->'extra', mode);
  -- several measures' parts are measured together or replayed: never estimated from other releases
  mode := CASE WHEN p.parts ? 'extra' THEN 'never' ELSE reused.mode END;
  prior := reused.prior;
  SELECT to_jsonb(x) INTO e
    FROM dpm.explain((p.wl).name, epsilon, delta, rho, NULL, method, NULL, 'ls', confidence, (p.measure).name,
                     counts_of, NULL, mode) x;
  -- the rows dpm.answer_query would return, each aggregate's expected stderr and interval half-width
  -- in place of its answer (an average's depends on the data: NULL)
  expected := jsonb_build_object('answers', (
    SELECT jsonb_agg(jsonb_build_object('stderr', x.stderr, 'ci_half_width', x.ci_half_width) ORDER BY x.query)
      FROM dpm.explain_queries((p.wl).name, epsilon, delta, rho, NULL, method, NULL, 'ls', confidence, (p.measure).name,
                               counts_of, NULL, mode) x));
  IF p.aggregate = 'multi' THEN
    -- each part's errors: those of its quantity at the whole charge, scaled for its share
    cost := dpm_internal.privacy_cost(p.src, epsilon, coalesce(delta, 0), rho);
    expected := (
      SELECT jsonb_object_agg(n.name, CASE WHEN n.name LIKE 'avg %' THEN (
                                SELECT jsonb_agg(jsonb_build_object('stderr', NULL, 'ci_half_width', NULL)) FROM generate_series(1, (p.wl).m))
                              ELSE (
                                SELECT jsonb_agg(jsonb_build_object('stderr', x.stderr * f.f, 'ci_half_width', x.ci_half_width * f.f) ORDER BY x.query)
                                  FROM dpm.explain_queries((p.wl).name, epsilon, delta, rho, NULL, method, NULL, 'ls', confidence,
                                                           CASE WHEN n.name LIKE 'sum %' THEN p.parts->'measures'->substr(n.name, 5)->>'name' END, NULL, NULL, mode) x,
                                       LATERAL (SELECT dpm_internal.share_factor(cost.noise, cost.c_epsilon, cost.c_delta, cost.c_rho, (
                                                  SELECT x2.share FROM dpm_internal.release_parts(p.src, p.measure, NULL, extra) x2
                                                   WHERE x2.quantity = CASE WHEN n.name = 'counts' THEN 'counts'
                                                                            WHEN n.name LIKE 'sum %' AND (p.parts->'measures'->substr(n.name, 5)->>'id')::int
                                                                                                         = (p.measure).id THEN 'sums'
                                                                            WHEN n.name LIKE 'sum %' THEN 'sums:' || (p.parts->'measures'->substr(n.name, 5)->>'id')
                                                                            WHEN (p.parts->'measures'->substr(n.name, 7)->>'drop')::boolean
                                                                            THEN 'counts:' || (p.parts->'measures'->substr(n.name, 7)->>'id')
                                                                            ELSE 'counts' END)) AS f) f) END)
        FROM (SELECT DISTINCT dpm_internal.query_part(c, p.aggregate) AS name
                FROM jsonb_array_elements(stmts) x, jsonb_array_elements(x->'columns') c WHERE c ? 'aggregate') n);
  END IF;
  SELECT jsonb_agg(r.r::jsonb || CASE WHEN jsonb_array_length(stmts) > 1 THEN jsonb_build_object('statement', st.k) ELSE '{}' END
                   ORDER BY st.k, r.n) INTO rows
    FROM jsonb_array_elements(stmts) WITH ORDINALITY st(q, k),
         LATERAL (SELECT coalesce(sum(c * (1 + v)), 0)::int AS off FROM unnest(p.counts[1:st.k - 1], p.variants[1:st.k - 1]) x(c, v)) o,
         -- a percentile's error depends on the data: its groups, without one
         LATERAL (SELECT CASE WHEN p.aggregate = 'percentile'
                              THEN ARRAY(SELECT k - '_cdf' FROM unnest(p.keys[o.off + 1:o.off + p.counts[st.k]]) WITH ORDINALITY u(k, n)
                                          GROUP BY k - '_cdf' ORDER BY min(n))
                              ELSE p.keys[o.off + 1:o.off + p.counts[st.k]] END AS keys) g,
         LATERAL dpm_internal.query_rows(st.q, g.keys, p.aggregate,
                                         dpm_internal.query_variants(st.q, expected, o.off, p.counts[st.k], base), true) WITH ORDINALITY r(r, n);
  RETURN QUERY SELECT jsonb_build_object(
    'source', (p.src).relation::text, 'domain', (p.dom).name, 'workload', (p.wl).name, 'spec', (p.wl).spec,
    'measure', (p.measure).name, 'aggregate', coalesce(p.aggregate, CASE WHEN (p.measure).id IS NOT NULL THEN 'sum' ELSE 'count' END),
    'free', prior.id IS NOT NULL OR (e->>'free_queries')::int = (e->>'queries')::int, 'answered_by', prior.id,
    'release', e, 'rows', rows);
END
$$;

CREATE OR REPLACE FUNCTION dpm.answer_query(sql text[], epsilon float8 DEFAULT NULL, delta float8 DEFAULT NULL, rho float8 DEFAULT NULL,
                                            method text DEFAULT NULL, confidence float8 DEFAULT 0.95, reuse text DEFAULT NULL)
RETURNS TABLE(statement int, result json, release_id bigint, cost text)
AS 'MODULE_PATHNAME', 'dpm_answer_query' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dpm.answer_query(text[], float8, float8, float8, text, float8, text) IS
  'answer a dashboard''s statements over one source from one strategy optimized for them all, with one charge: the rows of each statement in turn';

CREATE OR REPLACE FUNCTION dpm.explain_query(sql text, epsilon float8 DEFAULT NULL, delta float8 DEFAULT NULL, rho float8 DEFAULT NULL,
                                             method text DEFAULT NULL, confidence float8 DEFAULT 0.95, reuse text DEFAULT NULL)
RETURNS TABLE(plan jsonb)
AS 'MODULE_PATHNAME', 'dpm_explain_query' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dpm.explain_query(text, float8, float8, float8, text, float8, text) IS
  'what dpm.answer_query would do with a statement, reading no row and charging nothing: its workload, strategy, charge, expected errors, what is free';

CREATE OR REPLACE FUNCTION dpm.explain_query(sql text[], epsilon float8 DEFAULT NULL, delta float8 DEFAULT NULL, rho float8 DEFAULT NULL,
                                             method text DEFAULT NULL, confidence float8 DEFAULT 0.95, reuse text DEFAULT NULL)
RETURNS TABLE(plan jsonb)
AS 'MODULE_PATHNAME', 'dpm_explain_query' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dpm.explain_query(text[], float8, float8, float8, text, float8, text) IS
  'what dpm.answer_query would do with a dashboard''s statements, reading no row and charging nothing';

-- The first n fields of a row of dpm_internal.query_answer, as text (the statement's own columns,
-- before their errors): what dpm.answer_plain makes values of the columns' types.
CREATE OR REPLACE FUNCTION dpm_internal.query_fields(result json, n int) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT SET search_path = pg_catalog, pg_temp
AS $$
  SELECT array_agg(e.value #>> '{}' ORDER BY e.o) FROM json_each(result) WITH ORDINALITY e(key, value, o) WHERE e.o <= n
$$;

CREATE OR REPLACE FUNCTION dpm.answer_plain(sql text, epsilon float8 DEFAULT NULL, delta float8 DEFAULT NULL, rho float8 DEFAULT NULL,
                                            method text DEFAULT NULL, confidence float8 DEFAULT 0.95, reuse text DEFAULT NULL,
                                            params text[] DEFAULT NULL, param_types regtype[] DEFAULT NULL)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dpm_answer_plain' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dpm.answer_plain(text, float8, float8, float8, text, float8, text, text[], regtype[]) IS
  'dpm.answer_query''s rows as the statement''s own columns with their SQL types, given as a column definition list: what a plain statement over a source is answered by';

CREATE OR REPLACE FUNCTION dpm.last_answers() RETURNS TABLE(result json, release_id bigint, cost text)
AS 'MODULE_PATHNAME', 'dpm_last_answers' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dpm.last_answers() IS
  'the rows of this session''s last plain statement over a source, as dpm.answer_query gives them: each aggregate''s error, the release, the cost';
