-- The public API follows the rules of doc/dev/api.md: every query lists the functions of schema
-- dpm that break one (the expected output is empty lists).  A function planted with every fault
-- shows first that each check can fail.
CREATE FUNCTION pg_temp.api_violations()
RETURNS TABLE(function text, rule text)
LANGUAGE sql STABLE
AS $$
  WITH f AS (
    SELECT p.oid, p.proname::text AS name, p.oid::regprocedure::text AS sig, p.pronargs AS nargs,
           p.pronargdefaults AS ndefaults, p.proargnames[1:p.pronargs] AS args,
           pg_get_function_arguments(p.oid) AS arglist, obj_description(p.oid, 'pg_proc') AS comment, p.prosrc
      FROM pg_proc p WHERE p.pronamespace = 'dpm'::regnamespace AND p.prokind = 'f'
  ), a AS (    -- every argument, with its position and its default (NULL: required)
    SELECT f.name, f.sig, u.arg, u.i::int AS i,
           CASE WHEN u.i > f.nargs - f.ndefaults
                THEN btrim(split_part(split_part(f.arglist, ', ', u.i::int), ' DEFAULT ', 2)) END AS dflt
      FROM f, unnest(f.args) WITH ORDINALITY u(arg, i)
  )
  -- 1. the object first, by the name of its kind (a new object's name first, then its owner)
  SELECT sig, 'the first argument is not the object: ' || args[1] FROM f
   WHERE args && ARRAY['source', 'domain', 'workload', 'measure', 'strategy', 'release']
     AND args[1] NOT IN ('source', 'domain', 'workload', 'measure', 'strategy', 'release', 'name')
  UNION ALL
  SELECT sig, 'a name the API does not use: ' || arg FROM a
   WHERE arg IN ('relation', 'release_id', 'strategy_id', 'source_id', 'workload_id', 'domain_id', 'measure_id')
  -- 3. epsilon, delta, rho together and in that order
  UNION ALL
  SELECT sig, 'privacy arguments not together in the order epsilon, delta, rho' FROM a
   WHERE arg IN ('epsilon', 'delta', 'rho') GROUP BY sig
  HAVING array_agg(arg ORDER BY i) <> (ARRAY['epsilon', 'delta', 'rho'])[1:count(*)]
             AND array_agg(arg ORDER BY i) NOT IN ('{delta}', '{rho}', '{epsilon,rho}', '{delta,rho}')
      OR max(i) - min(i) + 1 <> count(*)
  -- 3. the optional arguments several functions share, in dpm.answer's order
  UNION ALL
  SELECT sig, 'shared optional arguments out of dpm.answer''s order' FROM a
   WHERE arg IN ('strategy', 'method', 'options', 'inference', 'confidence', 'measure', 'aggregate', 'sum_share',
                 'reuse', 'period_from', 'period_to') AND dflt IS NOT NULL
   GROUP BY sig
  HAVING array_agg(array_position(ARRAY['strategy', 'method', 'options', 'inference', 'confidence', 'measure', 'aggregate',
                                        'sum_share', 'reuse', 'period_from', 'period_to'], arg) ORDER BY i)
         <> array_agg(array_position(ARRAY['strategy', 'method', 'options', 'inference', 'confidence', 'measure', 'aggregate',
                                           'sum_share', 'reuse', 'period_from', 'period_to'], arg)
                      ORDER BY array_position(ARRAY['strategy', 'method', 'options', 'inference', 'confidence', 'measure',
                                                    'aggregate', 'sum_share', 'reuse', 'period_from', 'period_to'], arg))
  -- 4. a privacy argument defaults to NULL, or is required in a calculator of it
  UNION ALL
  SELECT sig, arg || ' defaults to ' || coalesce(dflt, 'nothing (required)') FROM a
   WHERE arg IN ('epsilon', 'delta', 'rho') AND coalesce(dflt, '') NOT LIKE 'NULL%'
     AND NOT (dflt IS NULL AND (name LIKE 'gaussian\_%' OR (name IN ('expected_error', 'total_error') AND arg = 'epsilon')))
  -- 5. dpm.explain and dpm.explain_queries take dpm.answer's arguments
  UNION ALL
  SELECT f.sig, 'its arguments are not dpm.answer''s' FROM f, f ans
   WHERE f.name IN ('explain', 'explain_queries') AND ans.name = 'answer' AND f.arglist <> ans.arglist
  UNION ALL      -- and each dpm.explain_query those of a dpm.answer_query
  SELECT f.sig, 'its arguments are not dpm.answer_query''s' FROM f
   WHERE f.name = 'explain_query' AND NOT EXISTS (SELECT 1 FROM f ans WHERE ans.name = 'answer_query' AND ans.arglist = f.arglist)
  -- 6. a call spends budget (charges through dpm_internal.run_release) if and only if it is named
  -- answer; dpm.answer_query's and dpm.answer_plain's C entry points charge through dpm_internal.query_answer (dpm.answer)
  UNION ALL
  SELECT sig, CASE WHEN name ~ '^answer' THEN 'named answer but spends nothing' ELSE 'spends budget but is not named answer' END
    FROM f WHERE (name ~ '^answer(_|$)') <> (prosrc ~ 'run_release' OR prosrc IN ('dpm_answer_query', 'dpm_answer_plain'))
  -- 9. a comment of one line, at most 200 characters
  UNION ALL
  SELECT sig, 'its comment is ' || CASE WHEN comment IS NULL THEN 'missing' WHEN comment ~ E'\n' THEN 'not one line'
                                         ELSE length(comment) || ' characters long' END FROM f
   WHERE comment IS NULL OR comment ~ E'\n' OR length(comment) > 200
  ORDER BY 1, 2
$$;

-- planted: every fault at once, each reported
CREATE FUNCTION dpm.bad_api(epsilon float8, relation regclass, rho float8 DEFAULT 0, delta float8 DEFAULT 1,
                            measure text DEFAULT NULL, confidence float8 DEFAULT 0.95)
RETURNS void LANGUAGE sql AS $$ SELECT dpm_internal.run_release(NULL, NULL) $$;
COMMENT ON FUNCTION dpm.bad_api(float8, regclass, float8, float8, text, float8) IS E'two\nlines';
SELECT * FROM pg_temp.api_violations() WHERE function LIKE 'dpm.bad_api%';
DROP FUNCTION dpm.bad_api(float8, regclass, float8, float8, text, float8);

-- the public functions: none breaks a rule
SELECT * FROM pg_temp.api_violations();
-- and the calls that spend budget
SELECT DISTINCT proname AS spends_budget FROM pg_proc
 WHERE pronamespace = 'dpm'::regnamespace AND (prosrc ~ 'run_release' OR prosrc IN ('dpm_answer_query', 'dpm_answer_plain')) ORDER BY 1;
