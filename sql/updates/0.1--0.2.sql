-- dpmatrix 0.1 -> 0.2: the internal functions leave the public schema dpm for dpm_internal,
-- without their leading underscore.  Moved, not dropped and re-created, so that what refers to
-- them by oid (column defaults calling _invoker, the aggregate's support functions) still does.
-- The parts sql/01_* .. sql/99_* follow this file in the built update script and re-create every
-- function with its 0.2 body.
\echo Use "ALTER EXTENSION dpmatrix UPDATE TO '0.2'" to load this file. \quit

CREATE SCHEMA dpm_internal;
COMMENT ON SCHEMA dpm_internal IS 'dpmatrix internals: called by the functions of schema dpm; not a stable interface';

DO $$
DECLARE
  f oid;
  newname text;
BEGIN
  FOR f, newname IN
    SELECT p.oid,
           CASE p.proname WHEN '_strategy' THEN 'strategy_by_id' WHEN '_explain' THEN 'dry_run'
                          ELSE pg_catalog.ltrim(p.proname, '_') END
      FROM pg_catalog.pg_proc p
      JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_proc'::regclass AND d.objid = p.oid
                                 AND d.refclassid = 'pg_catalog.pg_extension'::regclass AND d.deptype = 'e'
      JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'dpmatrix'
     WHERE p.pronamespace = 'dpm'::regnamespace
       AND (p.proname ~ '^_' OR p.proname ~ '^histogram_.*fn$')
  LOOP
    EXECUTE pg_catalog.format('ALTER FUNCTION %s SET SCHEMA dpm_internal', f::regprocedure);
    IF newname <> (SELECT proname FROM pg_catalog.pg_proc WHERE oid = f) THEN
      EXECUTE pg_catalog.format('ALTER FUNCTION %s RENAME TO %I', f::regprocedure, newname);
    END IF;
  END LOOP;
END
$$;

-- written in C now, with a fourth argument (what the parameters are for)
DROP FUNCTION dpm_internal.check_privacy_args(float8, float8, float8);

-- with one more argument each: the options (variance targets decide the noise) and the number of
-- queries (a wide domain's workload keeps no labels to count)
DROP FUNCTION dpm_internal.noise_kind(text, float8, float8);
DROP FUNCTION dpm_internal.store_workload(text, dpm.domains, text, float8[], text[], float8[], int[]);
-- and the SVD bound, which method auto computes once for all its candidates
DROP FUNCTION dpm_internal.strategy_build(int, text, text, jsonb);
-- and whether the strategy chosen gets its pseudo-inverse now (not for compare_strategies)
DROP FUNCTION dpm_internal.choose_strategy(dpm.workloads, text, text, jsonb, boolean);

-- the functions of a workload spec take their domain as one value (a dpm.domains row) instead of
-- five arrays: their new forms are created by the parts that follow
DO $$
DECLARE
  f regprocedure;
BEGIN
  FOR f IN SELECT p.oid FROM pg_catalog.pg_proc p
            WHERE p.pronamespace = 'dpm_internal'::regnamespace
              AND p.proname IN ('workload_matrix', 'workload_gram', 'hdmm', 'hdmm_profile', 'hdmm_reconstruct',
                                'hdmm_mechanism', 'spec_term_rows', 'spec_svd_bound', 'spec_matvec')
              AND p.proargtypes[1] = 'pg_catalog.text[]'::pg_catalog.regtype LOOP
    EXECUTE pg_catalog.format('DROP FUNCTION %s', f);
  END LOOP;
END
$$;

-- wide domains (more than dpm.max_cells cells) have no dense cell index: n and cell_expr NULL;
-- cells counts any domain's cells, and create_domain returns it (numeric: it may pass 2^63)
ALTER TABLE dpm.domains ALTER COLUMN cell_expr DROP NOT NULL, ALTER COLUMN n DROP NOT NULL,
  ADD COLUMN cells numeric;
UPDATE dpm.domains SET cells = n;
ALTER TABLE dpm.domains ALTER COLUMN cells SET NOT NULL, ADD CHECK ((n IS NULL) = (cell_expr IS NULL));
ALTER TABLE dpm.workloads ALTER COLUMN n DROP NOT NULL, ALTER COLUMN labels DROP NOT NULL;
DROP FUNCTION dpm.create_domain(text, regclass, jsonb);
COMMENT ON TYPE dpm.hdmm_strategy IS
  'strategy kept by its parameters: HDMM kind kronecker (one p-Identity factor per attribute, theta = the p_a x n_a matrices column-major, one after the other), factors (the same with the factor matrices themselves, p_a rows each) or marginals (weights[b] on the marginal keeping the attributes of bit set b); or kind residual (ResidualPlanner: p = the attribute sets measured, one a row, 1-based, 0 pads; theta = their noise variances at unit L2 sensitivity, or for a Laplace plan (noise laplace) the weights of the marginal tables of those sets, summing to 1)';

-- the terms of a published workload's spec, for the views' term and term_spec columns
CREATE TABLE dpm.workload_terms (
  workload_id  int NOT NULL REFERENCES dpm.workloads ON DELETE CASCADE,
  term         int NOT NULL,             -- 1-based, in the order of the spec's + terms
  first_query  int NOT NULL,
  last_query   int NOT NULL,
  spec         text NOT NULL,            -- the term as the spec wrote it
  PRIMARY KEY (workload_id, term)
);
COMMENT ON TABLE dpm.workload_terms IS 'the terms of a published workload''s spec and the queries each gives';
SELECT pg_catalog.pg_extension_config_dump('dpm.workload_terms', '');

-- lifecycle: sources can be unregistered, domains, workloads and strategies dropped; the rows
-- stay (releases and the ledger refer to them), so names are unique among the live ones only
ALTER TABLE dpm.sources ALTER COLUMN relation DROP NOT NULL, DROP CONSTRAINT sources_relation_key,
  ADD COLUMN unregistered_at timestamptz, ADD COLUMN relation_name text,
  ADD CHECK (relation IS NOT NULL OR unregistered_at IS NOT NULL);
CREATE UNIQUE INDEX sources_relation_key ON dpm.sources (relation) WHERE unregistered_at IS NULL;
ALTER TABLE dpm.domains DROP CONSTRAINT domains_name_key, ADD COLUMN dropped_at timestamptz;
CREATE UNIQUE INDEX domains_name_key ON dpm.domains (name) WHERE dropped_at IS NULL;
ALTER TABLE dpm.workloads DROP CONSTRAINT workloads_name_key, ADD COLUMN dropped_at timestamptz;
CREATE UNIQUE INDEX workloads_name_key ON dpm.workloads (name) WHERE dropped_at IS NULL;
ALTER TABLE dpm.strategies DROP CONSTRAINT strategies_cache_key, ADD COLUMN dropped_at timestamptz;
CREATE UNIQUE INDEX strategies_cache_key ON dpm.strategies (workload_id, method, options, noise) WHERE dropped_at IS NULL;

-- What a release measured: the strategy's noisy answers and the law of their noise, from which
-- dpm.release(id, inference => ...) derives answers again at no cost.  A dense or HDMM strategy
-- has one part (its rows, in order); a residual plan one per measured residual (its estimate,
-- Gaussian) or marginal table (Laplace), in the plan's order.  An average measures twice: the
-- sums of its measure and the counts it divides them by.
CREATE TABLE dpm.release_measurements (
  release_id        bigint NOT NULL REFERENCES dpm.releases ON DELETE CASCADE,
  y                 float8[] NOT NULL,   -- the values, part after part
  part_sizes        int[] NOT NULL,      -- values per part
  variance          float8[] NOT NULL,   -- the noise variance of each value, per part
  -- Laplace noise only: part i's noise is 2^laplace_grid_exp[i] DiscreteLaplace(laplace_t[i])
  laplace_t         float8[],
  laplace_grid_exp  int[],
  quantity          text NOT NULL CHECK (quantity IN ('counts', 'sums')),
  PRIMARY KEY (release_id, quantity)
);
COMMENT ON TABLE dpm.release_measurements IS 'the noisy measurements of each release and their noise (dpm.release re-derives answers from them at no cost)';
SELECT pg_catalog.pg_extension_config_dump('dpm.release_measurements', '');
ALTER TABLE dpm.release_measurements ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_measurements ON dpm.release_measurements FOR SELECT
  USING (EXISTS (SELECT 1 FROM dpm.releases r WHERE r.id = release_measurements.release_id));
-- releases are measured and inferred in two steps now (dpm_internal.*_measure, *_infer), and
-- dpm.release takes an inference and a confidence
DROP FUNCTION dpm_internal.mechanism_cached(float8[], float8[], float8[], float8[], float8[], float8, float8, float8, float8, text, float8);
DROP FUNCTION dpm.release(bigint);
DROP FUNCTION dpm_internal.release_mechanism(dpm.releases, float8[]);

-- The half-widths of the Laplace intervals of a strategy's workload at unit noise scale, from one
-- simulation of dpm.ci_draws draws: dpm.explain scales them to the noise of each request rather
-- than simulating again (a release always simulates afresh).  A cache: not dumped.
CREATE TABLE dpm.interval_widths (
  strategy_id  int NOT NULL REFERENCES dpm.strategies ON DELETE CASCADE,
  confidence   float8 NOT NULL,
  draws        int NOT NULL,             -- dpm.ci_draws asked for
  unit_half    float8[] NOT NULL,        -- per query, at Laplace scale 1 (variance 2)
  PRIMARY KEY (strategy_id, confidence, draws)
);
COMMENT ON TABLE dpm.interval_widths IS 'Laplace interval half-widths per strategy at unit noise, simulated once for dpm.explain';

-- Numeric measures of a source that releases sum per cell (dpm.create_measure): a custodian's
-- expression over the source's rows, clamped to the public bounds [lo, hi] and summed in integer
-- units of 2^grid_exp (src/histogram), NULLs counting as 0 ('zero') or leaving their row out of
-- the counts an average divides by ('drop').  Dropped measures stay: releases refer to them.
CREATE TABLE dpm.measures (
  id          serial PRIMARY KEY,
  source_id   int NOT NULL REFERENCES dpm.sources ON DELETE CASCADE,
  name        text NOT NULL CHECK (name <> ''),
  expression  text NOT NULL,
  lo          float8 NOT NULL,
  hi          float8 NOT NULL,
  nulls       text NOT NULL CHECK (nulls IN ('zero', 'drop')),
  grid_exp    int NOT NULL,
  created_by  regrole NOT NULL DEFAULT dpm_internal.invoker(),
  created_at  timestamptz NOT NULL DEFAULT now(),
  dropped_at  timestamptz,
  CHECK (lo <= hi AND lo > '-Infinity' AND hi < 'Infinity' AND (lo <> 0 OR hi <> 0))
);
CREATE UNIQUE INDEX measures_name_key ON dpm.measures (source_id, name) WHERE dropped_at IS NULL;
COMMENT ON TABLE dpm.measures IS 'numeric measures of a source, clamped to public bounds, that releases sum per cell';
SELECT pg_catalog.pg_extension_config_dump('dpm.measures', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.measures_id_seq', '');
ALTER TABLE dpm.releases ADD COLUMN measure_id int REFERENCES dpm.measures,
  -- an average of the measure: the share of the charge its sums were measured with, the rest
  -- going to the counts it is divided by (NULL: not an average)
  ADD COLUMN sum_share float8 CHECK (sum_share > 0 AND sum_share < 1),
  ADD CHECK (sum_share IS NULL OR measure_id IS NOT NULL);
-- an average whose noisy count is not positive has no answer
ALTER TABLE dpm.release_answers ALTER COLUMN answer DROP NOT NULL, ALTER COLUMN stderr DROP NOT NULL;
-- a zCDP source may have a delta budget, which only partition selection spends
ALTER TABLE dpm.sources DROP CONSTRAINT sources_check,
  ADD CHECK (CASE model WHEN 'zcdp' THEN budget_rho IS NOT NULL AND budget_epsilon IS NULL
                        WHEN 'pure' THEN budget_epsilon IS NOT NULL AND budget_rho IS NULL AND budget_delta = 0
                        ELSE budget_epsilon IS NOT NULL AND budget_rho IS NULL AND budget_delta > 0 END);
-- partition selection: releases of keys, without workload or strategy, and what they read
ALTER TABLE dpm.releases
  ADD COLUMN kind text NOT NULL DEFAULT 'answers' CHECK (kind IN ('answers', 'keys')),
  ALTER COLUMN workload_id DROP NOT NULL, ALTER COLUMN strategy_id DROP NOT NULL,
  ADD CHECK (kind = 'keys' OR (workload_id IS NOT NULL AND strategy_id IS NOT NULL));
CREATE TABLE dpm.release_keys (
  release_id   bigint PRIMARY KEY REFERENCES dpm.releases ON DELETE CASCADE,
  column_name  name NOT NULL,
  threshold    float8,                   -- a key passed when its noisy count of units reached it
  noise_scale  float8,                   -- of the Laplace noise on each count
  -- values longer than this (in bytes) were read as no key
  max_key_bytes int NOT NULL DEFAULT 256 CHECK (max_key_bytes BETWEEN 1 AND 65536),
  -- what it counts of its role's answer quota: while it is computed, the most keys it may store
  -- (what the role had left, at most dpm.max_answers_per_release), then the keys it stored
  keys          bigint NOT NULL DEFAULT 0 CHECK (keys >= 0)
);
COMMENT ON TABLE dpm.release_keys IS 'partition selections: the column whose values were selected, the longest value read as a key, the threshold and the noise';
SELECT pg_catalog.pg_extension_config_dump('dpm.release_keys', '');
ALTER TABLE dpm.release_keys ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_keys ON dpm.release_keys FOR SELECT
  USING (EXISTS (SELECT 1 FROM dpm.releases r WHERE r.id = release_keys.release_id));
-- releases sum measures: dpm.answer and the dry runs take one, the plan returns it
DROP FUNCTION dpm.answer(text, float8, float8, float8, int, text, jsonb, text, float8);
DROP FUNCTION dpm.explain(text, float8, float8, float8, int, text, jsonb, float8);
DROP FUNCTION dpm.explain_queries(text, float8, float8, float8, int, text, jsonb, float8);
DROP FUNCTION dpm_internal.release_request(text, float8, float8, float8, int, text, jsonb, text, float8);
DROP FUNCTION dpm_internal.release_plan(jsonb, boolean);
-- a release may be measured in two parts (an average), each with a share of the charge
DROP FUNCTION IF EXISTS dpm_internal.noise_params(text, numeric, numeric, numeric);
DROP FUNCTION dpm.compare_strategies(text, float8, float8, float8);
DROP FUNCTION dpm.optimize(text, text, float8, float8, jsonb, float8);
-- sources that grow by periods, each with a budget of its own, and the periods each release and
-- charge read
ALTER TABLE dpm.sources
  ADD COLUMN period_column name, ADD COLUMN period_width interval, ADD COLUMN period_start date,
  ADD COLUMN period_zone text, ADD COLUMN max_periods int,
  ADD CHECK ((period_column IS NULL) = (period_width IS NULL) AND (period_column IS NULL) = (period_start IS NULL)
             AND (period_column IS NULL) = (period_zone IS NULL) AND (period_column IS NULL) = (max_periods IS NULL)),
  ADD CHECK (max_periods >= 1 AND (max_periods = 1 OR privacy_unit IS NOT NULL));
-- the custodian's bound on the keys dpm.select_keys reads
ALTER TABLE dpm.sources
  ADD COLUMN max_key_bytes int NOT NULL DEFAULT 256 CHECK (max_key_bytes BETWEEN 1 AND 65536);
ALTER TABLE dpm.releases
  ADD COLUMN periods int4range CHECK (NOT isempty(periods) AND lower(periods) >= 0 AND NOT upper_inf(periods));
ALTER TABLE dpm.ledger
  ADD COLUMN periods int4range CHECK (NOT isempty(periods) AND lower(periods) >= 0 AND NOT upper_inf(periods));
-- scans read the periods a release names
DROP FUNCTION dpm_internal.frequency_vector(dpm.sources, dpm.domains, regrole, boolean);

-- remainders of workloads (dpm.answer's reuse auto)
ALTER TABLE dpm.workloads ADD COLUMN remainder_of int REFERENCES dpm.workloads ON DELETE CASCADE, ADD COLUMN queries int[],
  ADD CHECK ((remainder_of IS NULL) = (queries IS NULL));
-- names ending in "(remainder N)" are the remainders' (dpm_internal.check_workload_name): a
-- workload of 0.1 named so is renamed, so that no remainder's name is taken
UPDATE dpm.workloads SET name = name || ' (renamed)' WHERE name ~ '\(remainder [0-9]+\)$';
