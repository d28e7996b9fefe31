-- dpmatrix: differentially private linear counting queries with the matrix mechanism.
-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION dpmatrix" to load this file. \quit

-- The extension creates its own schema: a schema planted in advance makes the install fail
-- instead of being trusted.
CREATE SCHEMA dpm;
COMMENT ON SCHEMA dpm IS 'dpmatrix: differentially private answers to linear counting queries';

------------------------------------------------------------------------------------------------
-- Pure functions: matrices in, numbers out; no data, no budget.
------------------------------------------------------------------------------------------------

CREATE FUNCTION dpm.sensitivity(a float8[], norm text DEFAULT 'l1') RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_sensitivity' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpm.sensitivity(float8[], text) IS
  'largest L1 (norm => ''l1'') or L2 (''l2'') column norm of a query matrix: how much one record can move its answers';

CREATE FUNCTION dpm.error_profile(a float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_error_profile' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpm.error_profile(float8[]) IS
  'the error profile (A^T A)^+ of a strategy: the covariance of its least-squares cell estimates per unit noise variance';

CREATE FUNCTION dpm.gaussian_sigma(epsilon float8, delta float8, sensitivity float8 DEFAULT 1)
RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_gaussian_sigma' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpm.gaussian_sigma(float8, float8, float8) IS
  'smallest noise standard deviation that makes the Gaussian mechanism (epsilon, delta)-DP for the given L2 sensitivity (analytic Gaussian mechanism, exact for every epsilon)';

CREATE FUNCTION dpm.gaussian_epsilon(delta float8, sigma float8, sensitivity float8 DEFAULT 1)
RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_gaussian_epsilon' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpm.gaussian_epsilon(float8, float8, float8) IS
  'least epsilon at which Gaussian noise of standard deviation sigma on queries of the given L2 sensitivity is (epsilon, delta)-DP; exact (fitness-for-use Corollary 1), computed with erfc so it holds for tiny delta';

CREATE FUNCTION dpm.gaussian_delta(epsilon float8, sigma float8, sensitivity float8 DEFAULT 1)
RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_gaussian_delta' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpm.gaussian_delta(float8, float8, float8) IS
  'least delta at which Gaussian noise of standard deviation sigma on queries of the given L2 sensitivity is (epsilon, delta)-DP (fitness-for-use Corollary 1): one point of the mechanism''s privacy curve';

-- Internal: the standard deviation the secure sampler really adds for sigma (its grid allowance
-- included), and the L2 norm of each column of a matrix (the privacy profile of unit noise on it).
CREATE FUNCTION dpm._gaussian_actual_sd(m int, sensitivity float8, sigma float8) RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_gaussian_actual_sd_sql' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpm._column_norms(a float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_column_norms' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION dpm.expected_error(w float8[], a float8[], epsilon float8, delta float8 DEFAULT 0)
RETURNS TABLE(query int, variance float8)
AS 'MODULE_PATHNAME', 'dpm_expected_error' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 100;
COMMENT ON FUNCTION dpm.expected_error(float8[], float8[], float8, float8) IS
  'expected squared error of each workload query answered with strategy a: Laplace noise when delta = 0, Gaussian otherwise';

CREATE FUNCTION dpm.total_error(w float8[], a float8[], epsilon float8, delta float8 DEFAULT 0)
RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_total_error' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpm.total_error(float8[], float8[], float8, float8) IS
  'sum of dpm.expected_error over the workload';

CREATE FUNCTION dpm.reconstruct(a float8[], y float8[], inference text DEFAULT 'ls') RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_reconstruct' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpm.reconstruct(float8[], float8[], text) IS
  'estimate x from strategy answers y: ls, the least-squares x minimizing ||a x - y|| (SVD based, minimum norm when a is rank deficient); nnls, the same over x >= 0; nnls_integer, that rounded to integers';

CREATE FUNCTION dpm.strategy(w float8[], method text, options jsonb DEFAULT '{}') RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_strategy' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpm.strategy(float8[], text, jsonb) IS
  'a strategy matrix for workload w: method identity, workload, hierarchical (option "branching", default 2), wavelet, eigen, eigen_design or gaussian_optimal (options "tol", "max_iter"), min_sensitivity (options "base", "max_sweeps"); option "augment": "l1" or "l2" completes deficient columns';

CREATE FUNCTION dpm.svd_bound(w float8[], epsilon float8 DEFAULT NULL, delta float8 DEFAULT 0) RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_svd_bound' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dpm.svd_bound(float8[], float8, float8) IS
  'lower bound on the total squared error of any strategy for w: (sum of singular values)^2 / n over nonzero columns, times the noise variance at sensitivity 1 (analytic Gaussian when delta > 0; Laplace 2/epsilon^2, valid but loose, when delta = 0; none when epsilon is NULL)';

CREATE FUNCTION dpm.gram_root(g float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_gram_root' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpm.gram_root(float8[]) IS
  'R with R^T R = g (g = W^T W symmetric positive semidefinite): a workload of at most n queries with the same total error and SVD bound as W under every strategy';

-- Internal: a strategy with its optimizer's report, for dpm.optimize.
CREATE FUNCTION dpm._strategy_report(w float8[], method text, options jsonb,
                                     OUT matrix float8[], OUT iterations int, OUT objective float8,
                                     OUT lower_bound float8)
AS 'MODULE_PATHNAME', 'dpm_strategy_report' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Runs the mechanism on a data vector the caller already has: no catalog data, no budget.
-- Useful to study a strategy on synthetic data; dpm.answer is the same mechanism on a source.
CREATE FUNCTION dpm.mechanism(w float8[], a float8[], x float8[], epsilon float8 DEFAULT NULL,
                              delta float8 DEFAULT 0, sensitivity_scale float8 DEFAULT 1,
                              rho float8 DEFAULT NULL, inference text DEFAULT 'ls',
                              confidence float8 DEFAULT 0.95)
RETURNS TABLE(query int, answer float8, stderr float8, ci_low float8, ci_high float8, ci_draws int)
AS 'MODULE_PATHNAME', 'dpm_mechanism' LANGUAGE C VOLATILE PARALLEL RESTRICTED ROWS 100;
-- The same with a stored strategy's cache (dpm._strategy_cache): no factorization per release.
CREATE FUNCTION dpm._mechanism_cached(w float8[], a float8[], pinv float8[], profile float8[], x float8[],
                                      epsilon float8 DEFAULT NULL, delta float8 DEFAULT 0,
                                      sensitivity_scale float8 DEFAULT 1, rho float8 DEFAULT NULL,
                                      inference text DEFAULT 'ls', confidence float8 DEFAULT 0.95)
RETURNS TABLE(query int, answer float8, stderr float8, ci_low float8, ci_high float8, ci_draws int)
AS 'MODULE_PATHNAME', 'dpm_mechanism_cached' LANGUAGE C VOLATILE PARALLEL RESTRICTED ROWS 100;
-- Internal, for tests (src/mechanism/exact.c): what the mechanism measures before any noise.
CREATE FUNCTION dpm._exact_matvec(a float8[], x float8[], grid_exp int,
                                  OUT units numeric[], OUT l1 float8, OUT l2 float8)
AS 'MODULE_PATHNAME', 'dpm_exact_matvec' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpm._exact_matvec(float8[], float8[], int) IS
  'internal to dpmatrix (tests), not a stable interface: the exact strategy answers a x that the mechanism adds noise to, a quantized as measured and x integer counts, rounded to the grid 2^grid_exp (halves up) in grid units, and the L1 and L2 sensitivity bounds the noise is calibrated for';
CREATE FUNCTION dpm._hdmm_exact_matvec(sizes int[], kind text, p int[], theta float8[], weights float8[],
                                       x float8[], grid_exp int,
                                       OUT units numeric[], OUT l1 float8, OUT l2 float8)
AS 'MODULE_PATHNAME', 'dpm_hdmm_exact_matvec' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dpm._hdmm_exact_matvec(int[], text, int[], float8[], float8[], float8[], int) IS
  'internal to dpmatrix (tests), not a stable interface: dpm._exact_matvec for an HDMM strategy (sizes, kind, p, theta, weights as in dpm.hdmm_strategy)';
CREATE FUNCTION dpm._strategy_memory_mb(method text, m int, n int) RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_strategy_memory_mb' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpm._strategy_cache(w float8[], a float8[], OUT pinv float8[], OUT profile float8[])
AS 'MODULE_PATHNAME', 'dpm_strategy_cache' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpm.mechanism(float8[], float8[], float8[], float8, float8, float8, float8, text, float8) IS
  'answers workload w on the caller''s own vector x through strategy a with fresh noise: Laplace (epsilon, delta = 0), Gaussian ((epsilon, delta > 0)-DP) or Gaussian (rho-zCDP); ci_low and ci_high bound each answer''s noise at the given confidence (NULL: none), exactly for Gaussian noise and from ci_draws simulated draws of the noise for Laplace';

CREATE FUNCTION dpm.noise(distribution text, scale float8, count int) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_noise' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION dpm.noise(text, float8, int) IS
  'count draws of the secure noise used by the mechanisms: ''laplace'' (scale b) or ''gaussian'' (standard deviation)';

-- Internal: parses a workload spec over a domain's attributes (see dpm.create_workload).
CREATE FUNCTION dpm._workload_matrix(spec text, attr_names text[], attr_sizes int[],
                                     bin_labels text[], bin_lo float8[], bin_hi float8[],
                                     dense boolean DEFAULT true,
                                     OUT matrix float8[], OUT labels text[], OUT weights float8[],
                                     OUT spans int[])
AS 'MODULE_PATHNAME', 'dpm_workload_matrix' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpm._scale_rows(w float8[], weights float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_scale_rows' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Internal: W^T W of a workload spec without building W (the closed forms of src/workload/gram.c).
CREATE FUNCTION dpm._workload_gram(spec text, attr_names text[], attr_sizes int[],
                                   bin_labels text[], bin_lo float8[], bin_hi float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_workload_gram' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Fitness for use (src/fitness): the noise covariance Sigma on B x meeting per-query variance
-- targets at the least privacy cost, with its basis B and the strategy C^-1 B (Sigma = C C^T) that
-- method fitness stores.  For tests and inspection; options as for dpm.optimize.
CREATE FUNCTION dpm._fitness(w float8[], options jsonb,
                             OUT sigma float8[], OUT basis float8[], OUT strategy float8[],
                             OUT privacy_cost float8, OUT iterations int)
AS 'MODULE_PATHNAME', 'dpm_fitness' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- HDMM strategies for a spec (src/api/hdmm_api.c): optimized from the factors of W^T W
CREATE FUNCTION dpm._hdmm(spec text, attr_names text[], attr_sizes int[], bin_labels text[],
                          bin_lo float8[], bin_hi float8[], options jsonb DEFAULT '{}',
                          OUT kind text, OUT objective float8, OUT evaluations int, OUT sizes int[],
                          OUT p int[], OUT theta float8[], OUT weights float8[])
AS 'MODULE_PATHNAME', 'dpm_hdmm' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpm._hdmm_matrix(sizes int[], kind text, p int[], theta float8[], weights float8[])
RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_hdmm_matrix' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dpm._hdmm_sensitivity(sizes int[], kind text, p int[], theta float8[], weights float8[],
                                      norm int) RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_hdmm_matrix' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dpm._hdmm_rows(sizes int[], kind text, p int[], theta float8[], weights float8[])
RETURNS int
AS 'MODULE_PATHNAME', 'dpm_hdmm_rows' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dpm._hdmm_profile(spec text, attr_names text[], attr_sizes int[], bin_labels text[],
                                  bin_lo float8[], bin_hi float8[], kind text, p int[], theta float8[],
                                  weights float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_hdmm_profile' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dpm._hdmm_reconstruct(spec text, attr_names text[], attr_sizes int[], bin_labels text[],
                                      bin_lo float8[], bin_hi float8[], kind text, p int[],
                                      theta float8[], weights float8[], y float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_hdmm_reconstruct' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dpm._hdmm_mechanism(spec text, attr_names text[], attr_sizes int[], bin_labels text[],
                                    bin_lo float8[], bin_hi float8[], kind text, p int[], theta float8[],
                                    weights float8[], x float8[], epsilon float8 DEFAULT NULL,
                                    delta float8 DEFAULT 0, sensitivity_scale float8 DEFAULT 1,
                                    rho float8 DEFAULT NULL, inference text DEFAULT 'ls',
                                    confidence float8 DEFAULT 0.95)
RETURNS TABLE(query int, answer float8, stderr float8, ci_low float8, ci_high float8, ci_draws int)
AS 'MODULE_PATHNAME', 'dpm_hdmm_mechanism' LANGUAGE C VOLATILE PARALLEL RESTRICTED ROWS 100;
CREATE FUNCTION dpm._spec_term_rows(spec text, attr_names text[], attr_sizes int[], bin_labels text[],
                                    bin_lo float8[], bin_hi float8[]) RETURNS int[]
AS 'MODULE_PATHNAME', 'dpm_spec_term_rows' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpm._spec_svd_bound(spec text, attr_names text[], attr_sizes int[], bin_labels text[],
                                    bin_lo float8[], bin_hi float8[]) RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_spec_svd_bound' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpm._spec_matvec(spec text, attr_names text[], attr_sizes int[], bin_labels text[],
                                 bin_lo float8[], bin_hi float8[], x float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_spec_matvec' LANGUAGE C IMMUTABLE PARALLEL SAFE;

------------------------------------------------------------------------------------------------
-- The frequency-vector aggregate: counts of cell indexes 0 .. n-1 (NULL cells are skipped).
------------------------------------------------------------------------------------------------

CREATE FUNCTION dpm.histogram_transfn(internal, int, int) RETURNS internal
AS 'MODULE_PATHNAME', 'dpm_histogram_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dpm.histogram_combinefn(internal, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'dpm_histogram_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dpm.histogram_serialfn(internal) RETURNS bytea
AS 'MODULE_PATHNAME', 'dpm_histogram_serialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpm.histogram_deserialfn(bytea, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'dpm_histogram_deserialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dpm.histogram_finalfn(internal) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_histogram_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE dpm.histogram(cell int, n int) (
  SFUNC = dpm.histogram_transfn,
  STYPE = internal,
  COMBINEFUNC = dpm.histogram_combinefn,
  SERIALFUNC = dpm.histogram_serialfn,
  DESERIALFUNC = dpm.histogram_deserialfn,
  FINALFUNC = dpm.histogram_finalfn,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpm.histogram(int, int) IS
  'frequency vector: element i+1 counts the rows whose cell is i (0 <= i < n); NULL cells are skipped';
COMMENT ON FUNCTION dpm.histogram_transfn(internal, int, int) IS 'support function of the aggregate dpm.histogram: adds one row''s cell';
COMMENT ON FUNCTION dpm.histogram_combinefn(internal, internal) IS 'support function of the aggregate dpm.histogram: merges the counts of two parallel workers';
COMMENT ON FUNCTION dpm.histogram_serialfn(internal) IS 'support function of the aggregate dpm.histogram: counts to bytes, between parallel workers';
COMMENT ON FUNCTION dpm.histogram_deserialfn(bytea, internal) IS 'support function of the aggregate dpm.histogram: bytes to counts, between parallel workers';
COMMENT ON FUNCTION dpm.histogram_finalfn(internal) IS 'support function of the aggregate dpm.histogram: the counts as float8[]';

------------------------------------------------------------------------------------------------
-- Roles.  Cluster-wide, so created only if missing (another database may already have them);
-- they outlive DROP EXTENSION.  dpm_admin: custodians; dpm_analyst: analysts.  Grant them to
-- login roles; every right they carry is granted at the end of this file.
------------------------------------------------------------------------------------------------

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'dpm_analyst') THEN
    CREATE ROLE dpm_analyst NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'dpm_admin') THEN
    CREATE ROLE dpm_admin NOLOGIN;
  END IF;
  IF NOT pg_catalog.pg_has_role('dpm_admin', 'dpm_analyst', 'MEMBER') THEN
    GRANT dpm_analyst TO dpm_admin;
  END IF;
END
$$;

-- The role the session acts as outside any SECURITY DEFINER function (login role or SET ROLE):
-- whom catalog rows are attributed to and whose privileges custodian functions check.
CREATE FUNCTION dpm._invoker() RETURNS regrole
AS 'MODULE_PATHNAME', 'dpm_invoker' LANGUAGE C STABLE PARALLEL SAFE;

------------------------------------------------------------------------------------------------
-- Catalog.  Rows are kept by pg_dump (pg_extension_config_dump) and written only through the
-- functions below (they run as the extension owner).  Budgets and charges are numeric so that
-- sums are exact.
------------------------------------------------------------------------------------------------

CREATE TABLE dpm.sources (
  id                serial PRIMARY KEY,
  relation          regclass NOT NULL UNIQUE,
  privacy_unit      name,
  max_contributions int NOT NULL DEFAULT 1 CHECK (max_contributions >= 1),
  -- 'pure': epsilon-DP, Laplace only, sequential composition.
  -- 'approx': (epsilon, delta)-DP by basic composition; Laplace or Gaussian.
  -- 'zcdp': rho-zCDP, additive; Gaussian (rho) or Laplace (epsilon, charged rho = epsilon^2 / 2).
  model             text NOT NULL CHECK (model IN ('pure', 'approx', 'zcdp')),
  budget_epsilon    numeric CHECK (budget_epsilon > 0),
  budget_delta      numeric NOT NULL DEFAULT 0 CHECK (budget_delta >= 0 AND budget_delta < 1),
  budget_rho        numeric CHECK (budget_rho > 0),
  registered_by     regrole NOT NULL DEFAULT dpm._invoker(),
  registered_at     timestamptz NOT NULL DEFAULT now(),
  CHECK (CASE model WHEN 'zcdp' THEN budget_rho IS NOT NULL AND budget_epsilon IS NULL AND budget_delta = 0
                    WHEN 'pure' THEN budget_epsilon IS NOT NULL AND budget_rho IS NULL AND budget_delta = 0
                    ELSE budget_epsilon IS NOT NULL AND budget_rho IS NULL AND budget_delta > 0 END)
);
COMMENT ON TABLE dpm.sources IS 'protected relations, their privacy unit, privacy model and total budget';

CREATE TABLE dpm.domains (
  id          serial PRIMARY KEY,
  name        text NOT NULL UNIQUE,
  source_id   int NOT NULL REFERENCES dpm.sources ON DELETE CASCADE,
  attributes  jsonb NOT NULL,            -- the definition as given
  attr_names  text[] NOT NULL,
  attr_sizes  int[] NOT NULL,
  bin_labels  text[] NOT NULL,           -- flat, attribute by attribute
  bin_lo      float8[] NOT NULL,         -- interval bounds, NaN for value and condition bins
  bin_hi      float8[] NOT NULL,
  -- per attribute, the SQL expression giving a row's bin (0-based; NULL: no bin), built from the
  -- custodian's definition and checked to be unable to fail on any row (dpm._check_cells)
  attr_exprs  text[] NOT NULL,
  cell_expr   text NOT NULL,             -- SQL expression giving a row's cell index (NULL: no cell)
  n           int NOT NULL CHECK (n >= 1),
  -- the source is scanned with this role's privileges: it wrote the conditions in cell_expr
  created_by  regrole NOT NULL DEFAULT dpm._invoker(),
  created_at  timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE dpm.domains IS 'the cells of a frequency vector over a source; cell_expr is built from the custodian''s definition';

CREATE TABLE dpm.workloads (
  id          serial PRIMARY KEY,
  name        text NOT NULL UNIQUE,
  domain_id   int NOT NULL REFERENCES dpm.domains ON DELETE CASCADE,
  spec        text,                      -- NULL for an explicit matrix
  matrix      float8[],                  -- m x n, one query a row; NULL when too large (spec only)
  labels      text[] NOT NULL,
  m           int NOT NULL,
  n           int NOT NULL,
  created_by  regrole NOT NULL DEFAULT dpm._invoker(),
  created_at  timestamptz NOT NULL DEFAULT now(),
  -- how much each query matters to the optimizers (3 * Total(a)); NULL: all 1.  Answers are
  -- always in the queries' own units.
  weights     float8[] CHECK (weights IS NULL OR cardinality(weights) = m),
  -- m x 2 per attribute: the first and last bin (1-based) each query counts on each attribute,
  -- 0 and 0 for no condition, -1 and -1 for one that is not a run of bins; NULL for an explicit
  -- matrix.  Gives published releases one column per attribute (dpm.publish).
  spans       int[]
);
COMMENT ON TABLE dpm.workloads IS 'batches of linear counting queries over a domain';

-- An HDMM strategy kept by its parameters (src/api/hdmm_api.c): never a matrix over all cells.
CREATE TYPE dpm.hdmm_strategy AS (kind text, p int[], theta float8[], weights float8[]);
COMMENT ON TYPE dpm.hdmm_strategy IS
  'HDMM strategy: kind kronecker (one p-Identity factor per attribute, theta = the p_a x n_a matrices column-major, one after the other), factors (the same with the factor matrices themselves, p_a rows each) or marginals (weights[b] on the marginal keeping the attributes of bit set b)';

CREATE TABLE dpm.strategies (
  id              serial PRIMARY KEY,
  workload_id     int NOT NULL REFERENCES dpm.workloads ON DELETE CASCADE,
  method          text NOT NULL,
  options         jsonb NOT NULL DEFAULT '{}',
  noise           text NOT NULL CHECK (noise IN ('laplace', 'gaussian')),
  matrix          float8[],              -- the strategy, one measurement a row; or
  hdmm            dpm.hdmm_strategy,     -- its parameters, for HDMM strategies over large domains
  rows            int NOT NULL,
  sensitivity_l1  float8 NOT NULL,
  sensitivity_l2  float8 NOT NULL,
  -- sum over the workload of weight^2 w (A^T A)^+ w^T: weighted total error = noise variance * profile_trace
  profile_trace   float8 NOT NULL,
  max_profile     float8 NOT NULL,       -- the largest term: max error = noise variance * max_profile
  -- total error / the SVD bound's, at any epsilon: sensitivity^2 profile_trace / svd_bound(W),
  -- with the L1 sensitivity for Laplace noise and L2 for Gaussian
  ratio_to_bound  float8,                -- NULL when the bound is 0 (a workload of zero queries)
  iterations      int NOT NULL DEFAULT 0,
  -- a proven lower bound on L2 sensitivity^2 profile_trace over all strategies: the dual value
  -- of gaussian_optimal, the SVD bound for eigen and eigen_design (src/strategy/gram.c); NULL
  -- for the other methods
  lower_bound     float8,
  optimize_ms     float8 NOT NULL,
  -- dense strategies: A's pseudo-inverse and each query's w (A^T A)^+ w^T, so that a release
  -- needs no factorization (NULL: computed per release).  pinv is stored transposed (m x n), so
  -- its array data is the column-major matrix LAPACK reads, with no reordering.
  pinv            float8[],
  profile         float8[],
  created_by      regrole NOT NULL DEFAULT dpm._invoker(),
  created_at      timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT strategies_cache_key UNIQUE (workload_id, method, options, noise),
  CONSTRAINT strategies_one_form CHECK ((matrix IS NULL) <> (hdmm IS NULL))
);
COMMENT ON TABLE dpm.strategies IS 'strategy matrices chosen for workloads; reused by dpm.optimize and dpm.answer';

-- Every release reads the workload, the strategy and its pseudo-inverse (tens of MB at n = 1024):
-- lz4 decompresses them several times faster than the default pglz.  Servers built without lz4
-- keep pglz.
DO $$
BEGIN
  ALTER TABLE dpm.workloads ALTER COLUMN matrix SET COMPRESSION lz4;
  ALTER TABLE dpm.strategies ALTER COLUMN matrix SET COMPRESSION lz4,
                             ALTER COLUMN pinv SET COMPRESSION lz4,
                             ALTER COLUMN profile SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END $$;

-- A release is inserted, with its ledger rows, in a transaction that commits before any noise
-- is drawn (status 'charged'); its answers follow in a second one (status 'released').
CREATE TABLE dpm.releases (
  id              bigserial PRIMARY KEY,
  source_id       int NOT NULL REFERENCES dpm.sources,
  workload_id     int NOT NULL REFERENCES dpm.workloads,
  strategy_id     int NOT NULL REFERENCES dpm.strategies,
  noise           text NOT NULL CHECK (noise IN ('laplace', 'gaussian')),
  epsilon         numeric,               -- the charge, in the source's model (see dpm.ledger)
  delta           numeric NOT NULL DEFAULT 0,
  rho             numeric,
  -- 'interrupted': its worker stopped (crash, kill) between the charge and the answers
  status          text NOT NULL DEFAULT 'charged' CHECK (status IN ('charged', 'released', 'failed', 'interrupted')),
  released_by     regrole NOT NULL,
  released_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- how x was estimated from the noisy strategy answers (post-processing, no privacy cost)
  inference       text NOT NULL DEFAULT 'ls' CHECK (inference IN ('ls', 'nnls', 'nnls_integer')),
  -- the answers' confidence intervals: their confidence (NULL: none) and, for Laplace noise, the
  -- simulated draws of the noise behind them (coverage sd about sqrt(c (1 - c) / ci_draws))
  confidence      float8 CHECK (confidence > 0 AND confidence < 1),
  ci_draws        int
);
COMMENT ON TABLE dpm.releases IS 'one row per run of a mechanism on a source; an analyst sees the releases of the roles it belongs to';

CREATE TABLE dpm.release_answers (
  release_id  bigint NOT NULL REFERENCES dpm.releases ON DELETE CASCADE,
  query       int NOT NULL,
  label       text NOT NULL,
  answer      float8 NOT NULL,
  stderr      float8 NOT NULL,
  ci_low      float8,
  ci_high     float8,
  PRIMARY KEY (release_id, query)
);
COMMENT ON TABLE dpm.release_answers IS 'the noisy answers of each release, replayable at no cost (dpm.release)';

-- Append-only record of every charge: epsilon and delta for 'pure' and 'approx' sources, rho
-- (and the epsilon of a Laplace release) for 'zcdp' sources.
CREATE TABLE dpm.ledger (
  id          bigserial PRIMARY KEY,
  source_id   int NOT NULL REFERENCES dpm.sources,
  release_id  bigint REFERENCES dpm.releases,
  epsilon     numeric CHECK (epsilon > 0),
  delta       numeric NOT NULL DEFAULT 0 CHECK (delta >= 0),
  rho         numeric CHECK (rho > 0),
  charged_by  regrole NOT NULL,
  charged_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
COMMENT ON TABLE dpm.ledger IS 'every charge against a source''s privacy budget, append-only';

-- Releases published as plain views for reporting roles (dpm.publish).  The view reads the
-- release named here, so republishing under the same name is one update.
CREATE TABLE dpm.publications (
  view_name     text PRIMARY KEY,        -- schema-qualified, quoted as needed
  domain_id     int NOT NULL REFERENCES dpm.domains,
  release_id    bigint NOT NULL REFERENCES dpm.releases,
  published_by  regrole NOT NULL DEFAULT dpm._invoker(),
  published_at  timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE dpm.publications IS 'views made by dpm.publish and the release each one shows';

-- dpm.workloads.spans one query a row, for the views' joins: made by the first dpm.publish of a
-- workload (a subscript of the whole array per row would detoast it per row).
CREATE TABLE dpm.query_spans (
  workload_id  int NOT NULL REFERENCES dpm.workloads ON DELETE CASCADE,
  query        int NOT NULL,
  spans        int[] NOT NULL,           -- first and last bin per attribute, as in dpm.workloads.spans
  PRIMARY KEY (workload_id, query)
);
COMMENT ON TABLE dpm.query_spans IS 'the bins each query of a published workload counts, per attribute';
CREATE INDEX ON dpm.ledger (source_id);
CREATE INDEX ON dpm.releases (workload_id);
-- every charge looks for the source's releases left 'charged' (dpm._release_charge)
CREATE INDEX ON dpm.releases (source_id) WHERE status = 'charged';

SELECT pg_catalog.pg_extension_config_dump('dpm.sources', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.domains', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.workloads', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.strategies', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.releases', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.release_answers', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.ledger', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.publications', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.query_spans', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.sources_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.domains_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.workloads_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.strategies_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.releases_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.ledger_id_seq', '');

-- Analysts see the releases and charges of the roles they belong to; custodians see all.  The
-- functions run as the table owner, which row-level security does not restrict.
ALTER TABLE dpm.releases ENABLE ROW LEVEL SECURITY;
ALTER TABLE dpm.release_answers ENABLE ROW LEVEL SECURITY;
ALTER TABLE dpm.ledger ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_releases ON dpm.releases FOR SELECT
  USING (pg_catalog.pg_has_role(current_user, released_by, 'USAGE')
         OR pg_catalog.pg_has_role(current_user, 'dpm_admin', 'USAGE'));
CREATE POLICY own_answers ON dpm.release_answers FOR SELECT
  USING (EXISTS (SELECT 1 FROM dpm.releases r WHERE r.id = release_answers.release_id));
CREATE POLICY own_charges ON dpm.ledger FOR SELECT
  USING (pg_catalog.pg_has_role(current_user, charged_by, 'USAGE')
         OR pg_catalog.pg_has_role(current_user, 'dpm_admin', 'USAGE'));

------------------------------------------------------------------------------------------------
-- Internal helpers
------------------------------------------------------------------------------------------------

CREATE FUNCTION dpm._max_cells() RETURNS int
AS 'MODULE_PATHNAME', 'dpm_max_cells_fn' LANGUAGE C STABLE PARALLEL SAFE;

CREATE FUNCTION dpm._matvec(w float8[], x float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_matvec' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Runs a query built from the catalog as the given role (see src/api/access.c).
CREATE FUNCTION dpm._exec_as(role regrole, sql text) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_exec_as' LANGUAGE C VOLATILE STRICT;

-- 63 secure random bits: picks the rows a privacy unit keeps.
CREATE FUNCTION dpm._random_key() RETURNS bigint
AS 'MODULE_PATHNAME', 'dpm_random_key' LANGUAGE C VOLATILE PARALLEL SAFE;

-- Queues a planned release for a release worker (src/release/queue.h), with the strategies its
-- plan built (the worker caches them); returns the release's id once it is computed.
CREATE FUNCTION dpm._run_release(req jsonb, built dpm.strategies[]) RETURNS bigint
AS 'MODULE_PATHNAME', 'dpm_run_release' LANGUAGE C VOLATILE STRICT;

-- Is a release being computed by a live worker (src/release/worker.c holds a lock per release
-- from its charge to its answers)?
CREATE FUNCTION dpm._release_in_progress(release_id bigint) RETURNS boolean
AS 'MODULE_PATHNAME', 'dpm_release_in_progress' LANGUAGE C VOLATILE STRICT;

-- Did this transaction (or one of its subtransactions) write the row with this xmin?  Such a
-- row is invisible to the release worker's own transactions.
CREATE FUNCTION dpm._in_this_transaction(x xid) RETURNS boolean
AS 'MODULE_PATHNAME', 'dpm_in_this_transaction' LANGUAGE C STABLE STRICT;

-- The sampler's checks for a release of this many strategy answers and these (scaled)
-- sensitivities and parameters, by the code the release runs, drawing nothing that is kept: a
-- request the sampler would refuse is refused before its charge.
CREATE FUNCTION dpm._check_noise(rows int, l1 float8, l2 float8, epsilon float8, delta float8, rho float8)
RETURNS void
AS 'MODULE_PATHNAME', 'dpm_check_noise' LANGUAGE C VOLATILE;

-- Refuses attribute expressions (and a source definition) that could raise an error on some row,
-- checked as run_as, who scans the source (src/api/safe_expr.c).
CREATE FUNCTION dpm._check_cells(run_as regrole, relation regclass, domain_name text, attr_names text[],
                                 exprs text[]) RETURNS void
AS 'MODULE_PATHNAME', 'dpm_check_cells' LANGUAGE C VOLATILE STRICT;

-- true for finite numbers (float8 NaN compares greater than everything, so "x > 0" is not enough)
CREATE FUNCTION dpm._finite(x float8) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT x IS NOT NULL AND x NOT IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8) $$;

-- An exact decimal rounded UP at 1e-18.  A charge is the float's shortest decimal form so
-- rounded, so that ten charges of 0.1 spend exactly 1 and no charge is ever below what the
-- noise was calibrated for.
CREATE FUNCTION dpm._ceil18(x numeric) RETURNS numeric
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT trim_scale(ceil(x * 1e18) / 1e18) $$;

CREATE FUNCTION dpm._charge(x float8) RETURNS numeric
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT dpm._ceil18(x::text::numeric) $$;

-- The parameter handed to the noise calibration: strictly below the charge (a float8 conversion
-- is within half an ulp, about 1.1e-16 relative), so the privacy spent never exceeds the charge.
CREATE FUNCTION dpm._below(c numeric) RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT c::float8 * (1 - 1e-15) $$;

-- rho-zCDP implies (rho + 2 sqrt(rho ln(1/delta)), delta)-DP for every delta in (0, 1)
-- (Bun & Steinke 2016, Proposition 1.3); rounded up.
CREATE FUNCTION dpm._zcdp_epsilon(rho numeric, delta float8) RETURNS numeric
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT dpm._ceil18((rho::float8 + 2 * sqrt(rho::float8 * ln(1 / delta)))::numeric * (1 + 1e-12)) $$;

CREATE FUNCTION dpm._workload(wname text) RETURNS dpm.workloads
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  wl dpm.workloads;
BEGIN
  SELECT * INTO wl FROM dpm.workloads w WHERE w.name = wname;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'workload "%" does not exist', wname
      USING ERRCODE = 'undefined_object', HINT = 'Create it with dpm.create_workload; existing ones are in dpm.workloads.';
  END IF;
  RETURN wl;
END
$$;

CREATE FUNCTION dpm._source(relation regclass) RETURNS dpm.sources
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  src dpm.sources;
BEGIN
  SELECT * INTO src FROM dpm.sources s WHERE s.relation = _source.relation;
  IF NOT FOUND THEN
    RAISE EXCEPTION '"%" is not a registered source', relation
      USING ERRCODE = 'undefined_object', HINT = 'Registered sources are listed in dpm.sources.';
  END IF;
  RETURN src;
END
$$;

-- The caller (dpm._invoker()) must be able to read the relation itself.
CREATE FUNCTION dpm._check_can_read(relation regclass) RETURNS void
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF NOT has_table_privilege(dpm._invoker(), relation, 'SELECT') THEN
    RAISE EXCEPTION 'permission denied: role % cannot read %', dpm._invoker(), relation
      USING ERRCODE = 'insufficient_privilege',
            HINT = 'Only a custodian who may SELECT from a table can register it, define domains over it or read its true values.';
  END IF;
END
$$;

-- The source's frequency vector over a domain, scanned with run_as's privileges (the domain's
-- creator for a release, the calling custodian for exact answers).  With capped, each privacy
-- unit keeps at most max_contributions rows, chosen with the secure generator.  The SQL is built
-- from the catalog only: the custodian's cell expression, the relation and the unit column.
CREATE FUNCTION dpm._frequency_vector(src dpm.sources, dom dpm.domains, run_as regrole, capped boolean)
RETURNS float8[]
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  q text;
BEGIN
  IF src.privacy_unit IS NULL OR NOT capped THEN
    q := format('SELECT dpm.histogram((%s)::int4, %s) FROM %s', dom.cell_expr, dom.n, src.relation);
  ELSE
    q := format('SELECT dpm.histogram((%s)::int4, %s) FROM '
                '(SELECT *, row_number() OVER (PARTITION BY %I ORDER BY dpm._random_key()) AS dpm_rank__ FROM %s) s '
                'WHERE dpm_rank__ <= %s',
                dom.cell_expr, dom.n, src.privacy_unit, src.relation, src.max_contributions);
  END IF;
  RETURN coalesce(dpm._exec_as(run_as, q), array_fill(0::float8, ARRAY[dom.n]));
END
$$;

-- Plans (and so checks the privileges of run_as on everything it reads) a cell expression over
-- a relation, without reading a row: errors here cannot depend on the data.  The expression is
-- in the target list so that the planner cannot drop it.
CREATE FUNCTION dpm._plan_cells(cell_expr text, relation regclass, run_as regrole) RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  PERFORM dpm._exec_as(run_as, format('SELECT ARRAY[(%s)::float8] FROM %s LIMIT 0', cell_expr, relation));
END
$$;

-- The privacy arguments every function takes, each in its range (NULL epsilon or rho: not given).
CREATE FUNCTION dpm._check_privacy_args(epsilon float8, delta float8, rho float8) RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF epsilon IS NOT NULL AND (NOT dpm._finite(epsilon) OR epsilon <= 0) THEN
    RAISE EXCEPTION 'epsilon must be a positive finite number, got %', epsilon
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF NOT dpm._finite(delta) OR delta < 0 OR delta >= 1 THEN
    RAISE EXCEPTION 'delta must be in [0, 1), got %', coalesce(delta::text, 'NULL')
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF rho IS NOT NULL AND (NOT dpm._finite(rho) OR rho <= 0) THEN
    RAISE EXCEPTION 'rho must be a positive finite number, got %', rho
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
END
$$;

-- What a release costs in its source's privacy model: the noise it uses and the exact charge.
-- Every inconsistent or invalid combination is refused here, before anything is charged.
CREATE FUNCTION dpm._privacy_cost(src dpm.sources, epsilon float8, delta float8, rho float8,
                                  OUT noise text, OUT c_epsilon numeric, OUT c_delta numeric,
                                  OUT c_rho numeric)
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  PERFORM dpm._check_privacy_args(epsilon, delta, rho);
  IF (epsilon IS NULL) = (rho IS NULL) THEN
    RAISE EXCEPTION 'give either epsilon (Laplace noise, or Gaussian with delta > 0) or rho (zCDP Gaussian noise)'
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  c_delta := 0;
  CASE src.model
  WHEN 'pure' THEN
    IF rho IS NOT NULL OR delta > 0 THEN
      RAISE EXCEPTION 'source "%" is registered for pure epsilon-differential privacy: Gaussian noise (delta > 0 or rho) is not allowed',
        src.relation
        USING ERRCODE = 'invalid_parameter_value', HINT = 'Answer with epsilon alone (Laplace noise).';
    END IF;
    noise := 'laplace';
    c_epsilon := dpm._charge(epsilon);
  WHEN 'approx' THEN
    IF rho IS NOT NULL THEN
      RAISE EXCEPTION 'source "%" is registered for (epsilon, delta)-differential privacy: give epsilon and delta, not rho',
        src.relation
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'Gaussian noise is calibrated exactly for (epsilon, delta) with delta > 0.';
    END IF;
    noise := CASE WHEN delta > 0 THEN 'gaussian' ELSE 'laplace' END;
    c_epsilon := dpm._charge(epsilon);
    c_delta := dpm._charge(delta);
  WHEN 'zcdp' THEN
    IF delta > 0 THEN
      RAISE EXCEPTION 'source "%" is registered for zCDP: give rho for Gaussian noise, not delta', src.relation
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'Answer with rho, or with epsilon alone for Laplace noise (charged rho = epsilon^2 / 2).';
    END IF;
    IF rho IS NOT NULL THEN
      noise := 'gaussian';
      c_rho := dpm._charge(rho);
    ELSE
      -- epsilon-DP implies (epsilon^2 / 2)-zCDP (Bun & Steinke 2016, Proposition 1.4)
      noise := 'laplace';
      c_epsilon := dpm._charge(epsilon);
      c_rho := dpm._ceil18(c_epsilon * c_epsilon / 2);
    END IF;
  END CASE;
END
$$;

------------------------------------------------------------------------------------------------
-- Custodian (dpm_admin): sources, budgets and domains
------------------------------------------------------------------------------------------------

CREATE FUNCTION dpm.register_source(relation regclass, privacy_unit name DEFAULT NULL,
                                    max_contributions int DEFAULT 1, epsilon float8 DEFAULT NULL,
                                    delta float8 DEFAULT 0, rho float8 DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
  IF relation IS NULL THEN
    RAISE EXCEPTION 'relation must not be NULL' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = relation AND c.relkind IN ('r', 'p', 'v', 'm', 'f')) THEN
    RAISE EXCEPTION '"%" is not a table or view', relation USING ERRCODE = 'wrong_object_type';
  END IF;
  IF EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = relation AND c.relpersistence = 't') THEN
    RAISE EXCEPTION '"%" is a temporary table', relation
      USING ERRCODE = 'wrong_object_type', HINT = 'Releases are computed in a session of their own, which cannot see it.';
  END IF;
  PERFORM dpm._check_can_read(relation);
  IF rho IS NOT NULL THEN
    IF NOT dpm._finite(rho) OR rho <= 0 THEN
      RAISE EXCEPTION 'rho budget must be a positive finite number, got %', rho USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF epsilon IS NOT NULL OR delta IS DISTINCT FROM 0 THEN
      RAISE EXCEPTION 'give a zCDP budget (rho) or an epsilon budget (with delta), not both'
        USING ERRCODE = 'invalid_parameter_value';
    END IF;
  ELSE
    IF NOT dpm._finite(epsilon) OR epsilon <= 0 THEN
      RAISE EXCEPTION 'epsilon budget must be a positive finite number, got %', coalesce(epsilon::text, 'NULL')
        USING ERRCODE = 'invalid_parameter_value', HINT = 'Give epsilon (and delta > 0 to allow Gaussian noise), or rho for zCDP.';
    END IF;
    IF NOT dpm._finite(delta) OR delta < 0 OR delta >= 1 THEN
      RAISE EXCEPTION 'delta budget must be in [0, 1), got %', coalesce(delta::text, 'NULL')
        USING ERRCODE = 'invalid_parameter_value';
    END IF;
  END IF;
  IF max_contributions IS NULL OR max_contributions < 1 THEN
    RAISE EXCEPTION 'max_contributions must be at least 1' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF privacy_unit IS NULL AND max_contributions <> 1 THEN
    RAISE EXCEPTION 'max_contributions needs a privacy_unit column'
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Without a privacy unit every row is its own unit and contributes once.';
  END IF;
  IF privacy_unit IS NOT NULL AND NOT EXISTS (
       SELECT 1 FROM pg_attribute a
        WHERE a.attrelid = relation AND a.attname = privacy_unit AND a.attnum > 0 AND NOT a.attisdropped) THEN
    RAISE EXCEPTION 'column "%" of "%" does not exist', privacy_unit, relation USING ERRCODE = 'undefined_column';
  END IF;
  IF EXISTS (SELECT 1 FROM dpm.sources s WHERE s.relation = relation) THEN
    RAISE EXCEPTION '"%" is already registered', relation USING ERRCODE = 'duplicate_object';
  END IF;
  INSERT INTO dpm.sources (relation, privacy_unit, max_contributions, model, budget_epsilon, budget_delta, budget_rho)
  VALUES (relation, privacy_unit, max_contributions,
          CASE WHEN rho IS NOT NULL THEN 'zcdp' WHEN delta > 0 THEN 'approx' ELSE 'pure' END,
          dpm._charge(epsilon), coalesce(dpm._charge(delta), 0), dpm._charge(rho));
END
$$;
COMMENT ON FUNCTION dpm.register_source(regclass, name, int, float8, float8, float8) IS
  'custodian: protect a relation the caller can read, with its privacy unit and total budget: epsilon (pure), epsilon and delta > 0 (approximate DP) or rho (zCDP)';

-- Budget checks lock the source row, then sum the ledger in a fresh snapshot; under REPEATABLE READ
-- or SERIALIZABLE the sum would come from the transaction's first snapshot and miss charges that
-- committed while we waited for the lock.
CREATE FUNCTION dpm._require_read_committed(what text) RETURNS void
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION '% needs a READ COMMITTED transaction, not %', what, upper(current_setting('transaction_isolation'))
      USING ERRCODE = 'invalid_transaction_state',
            HINT = 'Run it in its own transaction, or after SET TRANSACTION ISOLATION LEVEL READ COMMITTED.';
  END IF;
END
$$;

CREATE FUNCTION dpm.set_budget(source regclass, epsilon float8 DEFAULT NULL, delta float8 DEFAULT NULL,
                               rho float8 DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  src dpm.sources := dpm._source(source);
  b dpm.sources;
  spent record;
BEGIN
  PERFORM dpm._check_can_read(source);
  IF epsilon IS NULL AND delta IS NULL AND rho IS NULL THEN
    RAISE EXCEPTION 'give the new epsilon, delta or rho budget' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF (src.model = 'zcdp') <> (rho IS NOT NULL) OR (src.model = 'zcdp' AND (epsilon IS NOT NULL OR delta IS NOT NULL))
     OR (src.model = 'pure' AND delta IS NOT NULL) THEN
    RAISE EXCEPTION 'source "%" has a % budget', source,
      CASE src.model WHEN 'zcdp' THEN 'zCDP (rho)' WHEN 'pure' THEN 'pure epsilon' ELSE 'epsilon and delta' END
      USING ERRCODE = 'invalid_parameter_value', HINT = 'The privacy model of a source cannot change.';
  END IF;
  IF (epsilon IS NOT NULL AND (NOT dpm._finite(epsilon) OR epsilon <= 0))
     OR (delta IS NOT NULL AND (NOT dpm._finite(delta) OR delta <= 0 OR delta >= 1))
     OR (rho IS NOT NULL AND (NOT dpm._finite(rho) OR rho <= 0)) THEN
    RAISE EXCEPTION 'budgets must be positive finite numbers (delta below 1)' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  -- the same row lock as a release's charge, so the two cannot interleave; the sum of the
  -- ledger after it must see every committed charge (a snapshot older than the lock would not)
  PERFORM dpm._require_read_committed('dpm.set_budget');
  SELECT * INTO b FROM dpm.sources s WHERE s.id = src.id FOR UPDATE;
  b.budget_epsilon := coalesce(dpm._charge(epsilon), b.budget_epsilon);
  b.budget_delta := coalesce(dpm._charge(delta), b.budget_delta);
  b.budget_rho := coalesce(dpm._charge(rho), b.budget_rho);
  SELECT coalesce(sum(l.epsilon), 0) AS e, coalesce(sum(l.delta), 0) AS d, coalesce(sum(l.rho), 0) AS r
    INTO spent FROM dpm.ledger l WHERE l.source_id = src.id;
  IF (b.model <> 'zcdp' AND (spent.e > b.budget_epsilon OR spent.d > b.budget_delta))
     OR (b.model = 'zcdp' AND spent.r > b.budget_rho) THEN
    RAISE EXCEPTION 'the new budget of "%" is below what was already spent', source
      USING ERRCODE = 'invalid_parameter_value',
            DETAIL = CASE b.model WHEN 'zcdp' THEN format('Spent: rho %s.', spent.r)
                     ELSE format('Spent: epsilon %s, delta %s.', spent.e, spent.d) END;
  END IF;
  UPDATE dpm.sources s SET budget_epsilon = b.budget_epsilon, budget_delta = b.budget_delta,
                           budget_rho = b.budget_rho
   WHERE s.id = src.id;
END
$$;
COMMENT ON FUNCTION dpm.set_budget(regclass, float8, float8, float8) IS
  'custodian: change the total budget of a source (never below what was spent)';

-- One attribute of a domain definition -> its bins and the CASE expression giving the bin index.
CREATE FUNCTION dpm._attribute_bins(source regclass, attr jsonb,
                                    OUT aname text, OUT labels text[], OUT lo float8[], OUT hi float8[],
                                    OUT expr text)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  col text;
  coltype text;
  bins jsonb;
  b jsonb;
  k text;
  conds text[] := '{}';
  v numeric; vmin numeric; vmax numeric; vw numeric; vlo numeric; vhi numeric;
BEGIN
  IF jsonb_typeof(attr) <> 'object' THEN
    RAISE EXCEPTION 'each attribute must be a JSON object, got %', attr USING ERRCODE = 'invalid_parameter_value';
  END IF;
  FOR k IN SELECT jsonb_object_keys(attr) LOOP
    IF k NOT IN ('name', 'column', 'values', 'bins') THEN
      RAISE EXCEPTION 'unknown attribute key "%"', k
        USING ERRCODE = 'invalid_parameter_value', HINT = 'Valid keys: name, column, values, bins.';
    END IF;
  END LOOP;
  aname := attr->>'name';
  IF aname IS NULL OR aname !~ '^[A-Za-z_][A-Za-z0-9_]*$' THEN
    RAISE EXCEPTION 'attribute name % is not a valid identifier', coalesce(quote_literal(aname), 'NULL')
      USING ERRCODE = 'invalid_parameter_value', HINT = 'Use letters, digits and underscores, starting with a letter.';
  END IF;
  col := coalesce(attr->>'column', aname);
  SELECT format_type(a.atttypid, a.atttypmod) INTO coltype
    FROM pg_attribute a WHERE a.attrelid = source AND a.attname = col AND a.attnum > 0 AND NOT a.attisdropped;
  IF coltype IS NULL THEN
    RAISE EXCEPTION 'column "%" of "%" does not exist', col, source USING ERRCODE = 'undefined_column';
  END IF;
  IF (attr ? 'values') = (attr ? 'bins') THEN
    RAISE EXCEPTION 'attribute "%" needs exactly one of "values" or "bins"', aname USING ERRCODE = 'invalid_parameter_value';
  END IF;
  labels := '{}'; lo := '{}'; hi := '{}';

  IF attr ? 'values' THEN
    IF jsonb_typeof(attr->'values') <> 'array' OR jsonb_array_length(attr->'values') = 0 THEN
      RAISE EXCEPTION 'values of attribute "%" must be a non-empty JSON array', aname USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR b IN SELECT value FROM jsonb_array_elements(attr->'values') LOOP
      IF jsonb_typeof(b) NOT IN ('string', 'number', 'boolean') THEN
        RAISE EXCEPTION 'values of attribute "%" must be strings, numbers or booleans, got %', aname, b
          USING ERRCODE = 'invalid_parameter_value';
      END IF;
      labels := labels || (b #>> '{}');
      lo := lo || 'NaN'::float8; hi := hi || 'NaN'::float8;
      conds := conds || format('%I = %L::%s', col, b #>> '{}', coltype);
    END LOOP;
  ELSIF jsonb_typeof(attr->'bins') = 'object' THEN
    bins := attr->'bins';
    FOR k IN SELECT jsonb_object_keys(bins) LOOP
      IF k NOT IN ('min', 'max', 'width') THEN
        RAISE EXCEPTION 'unknown key "%" in bins of attribute "%"', k, aname
          USING ERRCODE = 'invalid_parameter_value', HINT = 'Valid keys: min, max, width.';
      END IF;
    END LOOP;
    IF jsonb_typeof(bins->'min') IS DISTINCT FROM 'number' OR jsonb_typeof(bins->'max') IS DISTINCT FROM 'number'
       OR jsonb_typeof(bins->'width') IS DISTINCT FROM 'number' THEN
      RAISE EXCEPTION 'bins of attribute "%" need numeric min, max and width', aname USING ERRCODE = 'invalid_parameter_value';
    END IF;
    vmin := (bins->>'min')::numeric; vmax := (bins->>'max')::numeric; vw := (bins->>'width')::numeric;
    IF vw <= 0 OR vmax <= vmin THEN
      RAISE EXCEPTION 'bins of attribute "%" need width > 0 and max > min', aname USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF (vmax - vmin) / vw > dpm._max_cells() THEN
      RAISE EXCEPTION 'attribute "%" would have % bins, more than dpm.max_cells (%)', aname,
        ceil((vmax - vmin) / vw), dpm._max_cells()
        USING ERRCODE = 'program_limit_exceeded';
    END IF;
    v := vmin;
    WHILE v < vmax LOOP
      vhi := least(v + vw, vmax);
      labels := labels || format('[%s,%s)', trim_scale(v), trim_scale(vhi));
      lo := lo || v::float8; hi := hi || vhi::float8;
      conds := conds || v::text;
      v := vhi;
    END LOOP;
    -- contiguous bins: a binary search over the lower bounds of all but the first, which is the
    -- 0-based bin (width_bucket compares with the same literals, in the same types, as a WHEN per
    -- bin would, in log time instead of linear; and with no arithmetic that could fail)
    expr := format('CASE WHEN %I >= %s AND %I < %s THEN %s END', col, vmin, col, vmax,
                   CASE WHEN cardinality(conds) = 1 THEN '0'
                        ELSE format('width_bucket(%I, ARRAY[%s])', col, array_to_string(conds[2:], ', ')) END);
    RETURN;
  ELSIF jsonb_typeof(attr->'bins') = 'array' AND jsonb_array_length(attr->'bins') > 0 THEN
    FOR b IN SELECT value FROM jsonb_array_elements(attr->'bins') LOOP
      IF jsonb_typeof(b) <> 'object' THEN
        RAISE EXCEPTION 'each bin of attribute "%" must be a JSON object, got %', aname, b USING ERRCODE = 'invalid_parameter_value';
      END IF;
      FOR k IN SELECT jsonb_object_keys(b) LOOP
        IF k NOT IN ('label', 'lo', 'hi', 'condition') THEN
          RAISE EXCEPTION 'unknown key "%" in a bin of attribute "%"', k, aname
            USING ERRCODE = 'invalid_parameter_value', HINT = 'A bin is {"label", "lo", "hi"} or {"label", "condition"}.';
        END IF;
      END LOOP;
      IF b ? 'condition' THEN
        IF b ? 'lo' OR b ? 'hi' OR jsonb_typeof(b->'condition') <> 'string' OR NOT b ? 'label' THEN
          RAISE EXCEPTION 'a condition bin of attribute "%" is {"label": text, "condition": text}', aname
            USING ERRCODE = 'invalid_parameter_value';
        END IF;
        labels := labels || (b->>'label');
        lo := lo || 'NaN'::float8; hi := hi || 'NaN'::float8;
        conds := conds || format('(%s)', b->>'condition');
      ELSE
        IF (b ? 'lo' AND jsonb_typeof(b->'lo') <> 'number') OR (b ? 'hi' AND jsonb_typeof(b->'hi') <> 'number')
           OR NOT (b ? 'lo' OR b ? 'hi') THEN
          RAISE EXCEPTION 'an interval bin of attribute "%" needs numeric "lo" and/or "hi"', aname
            USING ERRCODE = 'invalid_parameter_value';
        END IF;
        vlo := (b->>'lo')::numeric; vhi := (b->>'hi')::numeric;
        IF vlo >= vhi THEN
          RAISE EXCEPTION 'bin [%, %) of attribute "%" is empty', vlo, vhi, aname USING ERRCODE = 'invalid_parameter_value';
        END IF;
        labels := labels || coalesce(b->>'label', format('[%s,%s)', coalesce(trim_scale(vlo)::text, '-inf'), coalesce(trim_scale(vhi)::text, 'inf')));
        lo := lo || coalesce(vlo::float8, '-Infinity'); hi := hi || coalesce(vhi::float8, 'Infinity');
        conds := conds || concat_ws(' AND ', CASE WHEN vlo IS NOT NULL THEN format('%I >= %s', col, vlo) END,
                                             CASE WHEN vhi IS NOT NULL THEN format('%I < %s', col, vhi) END);
      END IF;
    END LOOP;
  ELSE
    RAISE EXCEPTION 'bins of attribute "%" must be {"min", "max", "width"} or a non-empty array of bins', aname
      USING ERRCODE = 'invalid_parameter_value';
  END IF;

  -- first matching bin wins; a row matching none gets NULL and is not counted
  SELECT 'CASE' || string_agg(format(' WHEN %s THEN %s', c, i - 1), '' ORDER BY i) || ' END'
    INTO expr FROM unnest(conds) WITH ORDINALITY AS t(c, i);
END
$$;

CREATE FUNCTION dpm.create_domain(name text, source regclass, attributes jsonb) RETURNS int
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  src dpm.sources;
  attr jsonb;
  r record;
  names text[] := '{}'; sizes int[] := '{}'; exprs text[] := '{}';
  labels text[] := '{}'; los float8[] := '{}'; his float8[] := '{}';
  expr text;
  ncells numeric := 1;
BEGIN
  IF name IS NULL OR name = '' THEN
    RAISE EXCEPTION 'domain name must not be empty' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  src := dpm._source(source);
  PERFORM dpm._check_can_read(source);
  IF EXISTS (SELECT 1 FROM dpm.domains d WHERE d.name = name) THEN
    RAISE EXCEPTION 'domain "%" already exists', name USING ERRCODE = 'duplicate_object';
  END IF;
  IF jsonb_typeof(attributes) IS DISTINCT FROM 'array' OR jsonb_array_length(attributes) = 0 THEN
    RAISE EXCEPTION 'attributes must be a non-empty JSON array of attribute definitions'
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  FOR attr IN SELECT value FROM jsonb_array_elements(attributes) LOOP
    r := dpm._attribute_bins(source, attr);
    IF r.aname = ANY (names) THEN
      RAISE EXCEPTION 'attribute "%" appears twice', r.aname USING ERRCODE = 'invalid_parameter_value';
    END IF;
    names := names || r.aname;
    sizes := sizes || cardinality(r.labels);
    labels := labels || r.labels; los := los || r.lo; his := his || r.hi;
    exprs := exprs || r.expr;
    ncells := ncells * cardinality(r.labels);
    -- mixed radix, last attribute fastest: cell = (...(i1 * n2 + i2) * n3 + i3 ...)
    expr := CASE WHEN expr IS NULL THEN r.expr
                 ELSE format('(%s) * %s + (%s)', expr, cardinality(r.labels), r.expr) END;
  END LOOP;
  IF ncells > dpm._max_cells() THEN
    RAISE EXCEPTION 'domain "%" would have % cells, more than dpm.max_cells (%)', name, ncells,
      dpm._max_cells()
      USING ERRCODE = 'program_limit_exceeded', HINT = 'Use coarser bins or fewer attributes, or raise dpm.max_cells.';
  END IF;
  -- parse and plan the expressions against the source now, with the custodian's own rights, so
  -- a bad condition fails here, and one that could fail on some row is refused (a release's
  -- outcome must not depend on the rows); releases scan the source with the same rights
  PERFORM dpm._plan_cells(expr, source, dpm._invoker());
  PERFORM dpm._check_cells(dpm._invoker(), source, name, names, exprs);
  INSERT INTO dpm.domains (name, source_id, attributes, attr_names, attr_sizes, bin_labels, bin_lo, bin_hi, attr_exprs,
                           cell_expr, n)
  VALUES (name, src.id, attributes, names, sizes, labels, los, his, exprs, expr, ncells::int);
  RETURN ncells::int;
END
$$;
COMMENT ON FUNCTION dpm.create_domain(text, regclass, jsonb) IS
  'custodian: define the cells of a frequency vector over a source: attributes with value, interval or condition bins (first match wins); returns the number of cells';

CREATE FUNCTION dpm.exact_answers(workload text)
RETURNS TABLE(query int, label text, answer float8)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
  wl dpm.workloads := dpm._workload(exact_answers.workload);
  dom dpm.domains;
  src dpm.sources;
BEGIN
  SELECT * INTO dom FROM dpm.domains d WHERE d.id = wl.domain_id;
  SELECT * INTO src FROM dpm.sources s WHERE s.id = dom.source_id;
  PERFORM dpm._check_can_read(src.relation);
  -- every row counts here, without the per-unit contribution limit the mechanism applies
  -- zipped with the labels, as in dpm._release_fill (labels[i] costs O(i) a row)
  RETURN QUERY
    SELECT i::int, l, v
      FROM unnest(CASE WHEN wl.matrix IS NOT NULL
                       THEN dpm._matvec(wl.matrix, dpm._frequency_vector(src, dom, dpm._invoker(), false))
                       ELSE dpm._spec_matvec(wl.spec, dom.attr_names, dom.attr_sizes, dom.bin_labels, dom.bin_lo,
                                             dom.bin_hi, dpm._frequency_vector(src, dom, dpm._invoker(), false)) END,
                  wl.labels)
           WITH ORDINALITY AS t(v, l, i);
END
$$;
COMMENT ON FUNCTION dpm.exact_answers(text) IS
  'custodian: the true, noise-free answers of a workload (no privacy; needs SELECT on the source)';

------------------------------------------------------------------------------------------------
-- Analysts (dpm_analyst): workloads, strategies, answers, budgets
------------------------------------------------------------------------------------------------

CREATE FUNCTION dpm._store_workload(wname text, dom dpm.domains, spec text, matrix float8[], labels text[],
                                    weights float8[], spans int[] DEFAULT NULL)
RETURNS int
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  m int := coalesce(array_length(labels, 1), 0);
BEGIN
  IF wname IS NULL OR wname = '' THEN
    RAISE EXCEPTION 'workload name must not be empty' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF EXISTS (SELECT 1 FROM dpm.workloads w WHERE w.name = wname) THEN
    RAISE EXCEPTION 'workload "%" already exists', wname USING ERRCODE = 'duplicate_object';
  END IF;
  INSERT INTO dpm.workloads (name, domain_id, spec, matrix, labels, m, n, weights, spans)
  VALUES (wname, dom.id, spec, matrix, labels, m, dom.n, weights, spans);
  RETURN m;
END
$$;

CREATE FUNCTION dpm._domain(dname text) RETURNS dpm.domains
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  d dpm.domains;
BEGIN
  SELECT * INTO d FROM dpm.domains x WHERE x.name = dname;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'domain "%" does not exist', dname
      USING ERRCODE = 'undefined_object', HINT = 'Existing domains are listed in dpm.domains.';
  END IF;
  RETURN d;
END
$$;

CREATE FUNCTION dpm.create_workload(name text, domain text, spec text) RETURNS int
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  dom dpm.domains := dpm._domain(domain);
  r record;
BEGIN
  BEGIN
    r := dpm._workload_matrix(spec, dom.attr_names, dom.attr_sizes, dom.bin_labels, dom.bin_lo, dom.bin_hi);
  EXCEPTION WHEN program_limit_exceeded THEN
    -- too large as a matrix: kept as its spec and labels, for the implicit (hdmm) strategies
    r := dpm._workload_matrix(spec, dom.attr_names, dom.attr_sizes, dom.bin_labels, dom.bin_lo, dom.bin_hi, false);
  END;
  RETURN dpm._store_workload(name, dom, spec, r.matrix, r.labels, r.weights, r.spans);
END
$$;
COMMENT ON FUNCTION dpm.create_workload(text, text, text) IS
  'define a workload over a domain with the spec algebra (Identity, Total, Prefix, AllRange, Ranges, Hierarchical, Marginal; * Kronecker product, + union); returns the number of queries';

CREATE FUNCTION dpm.create_workload(name text, domain text, w float8[], weights float8[] DEFAULT NULL)
RETURNS int
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  dom dpm.domains := dpm._domain(domain);
BEGIN
  IF w IS NULL THEN
    RAISE EXCEPTION 'workload matrix must not be NULL' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  PERFORM dpm.sensitivity(w);        -- rejects empty, NULL-containing, NaN/Inf and oversized input
  IF array_ndims(w) <> 2 OR array_length(w, 2) <> dom.n THEN
    RAISE EXCEPTION 'workload matrix must have one column per cell: domain "%" has % cells, the matrix has % columns',
      domain, dom.n, coalesce(array_length(w, array_ndims(w)), 0)
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF weights IS NOT NULL AND (array_ndims(weights) <> 1 OR array_length(weights, 1) <> array_length(w, 1)
                              OR EXISTS (SELECT 1 FROM unnest(weights) v
                                          WHERE v IS NULL OR NOT dpm._finite(v) OR v < 1e-100 OR v > 1e100)) THEN
    RAISE EXCEPTION 'weights must be one number in [1e-100, 1e100] per query (%)', array_length(w, 1)
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  RETURN dpm._store_workload(name, dom, NULL, w,
    ARRAY(SELECT 'query ' || i FROM generate_series(1, array_length(w, 1)) i),
    CASE WHEN EXISTS (SELECT 1 FROM unnest(weights) v WHERE v <> 1) THEN weights END);
END
$$;
COMMENT ON FUNCTION dpm.create_workload(text, text, float8[], float8[]) IS
  'define a workload over a domain by an explicit matrix, one query a row and one column per cell; weights (optional, one per query) say how much each query matters to the optimizers';

-- Fitness targets may be given per block of the spec (one per + term): spread over its queries.
CREATE FUNCTION dpm._fitness_options(wl dpm.workloads, options jsonb) RETURNS jsonb
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
    term_rows := dpm._spec_term_rows(wl.spec, dom.attr_names, dom.attr_sizes, dom.bin_labels, dom.bin_lo, dom.bin_hi);
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

-- The methods method auto tries, in order.  lrm is tried only where it factors W through fewer
-- rows than cells (1.2 rank(W) < n, the rank read from the eigen strategy tried before it): that
-- is the low-rank case the mechanism is for, and elsewhere its iterations cost far more than the
-- other methods'.
CREATE FUNCTION dpm._auto_methods() RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT ARRAY['identity', 'hierarchical', 'wavelet', 'workload', 'eigen', 'eigen_design',
                   'gaussian_optimal', 'min_sensitivity', 'lrm', 'hdmm'] $$;

-- The noise a strategy is built for: fitness targets are variances of Gaussian noise, whatever
-- privacy is given.
CREATE FUNCTION dpm._noise_kind(method text, delta float8, rho float8) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT CASE WHEN delta > 0 OR rho IS NOT NULL OR method = 'fitness' THEN 'gaussian' ELSE 'laplace' END $$;

-- A cached strategy's row without its matrices (megabytes, which a row variable would detoast).
CREATE FUNCTION dpm._strategy_head(sid int) RETURNS dpm.strategies
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT s.id, s.workload_id, s.method, s.options, s.noise, NULL::float8[], s.hdmm, s.rows, s.sensitivity_l1,
         s.sensitivity_l2, s.profile_trace, s.max_profile, s.ratio_to_bound, s.iterations, s.lower_bound,
         s.optimize_ms, NULL::float8[], NULL::float8[], s.created_by, s.created_at
    FROM dpm.strategies s WHERE s.id = sid
$$;

-- A strategy for a workload, built (the optimization runs here, in the caller's backend) but not
-- stored: its id is NULL.  Reads no data.
CREATE FUNCTION dpm._strategy_build(workload_id int, method text, noise text, options jsonb)
RETURNS dpm.strategies
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  wl dpm.workloads;
  st dpm.strategies;
  t0 timestamptz := clock_timestamp();
  dom dpm.domains;
  hd record;
  rep record;
  bound float8;
  wopt float8[];
  pinv float8[];
  profile float8[];
  trace float8;
  maxp float8;
BEGIN
  SELECT * INTO wl FROM dpm.workloads w WHERE w.id = workload_id;
  st.workload_id := wl.id;
  st.method := method;
  st.options := options;
  st.noise := noise;
  st.created_by := dpm._invoker();
  st.created_at := now();
  IF method = 'hdmm' AND wl.spec IS NOT NULL THEN
    -- implicit: optimized and evaluated from the spec's blocks, never a matrix over the cells
    SELECT * INTO dom FROM dpm.domains d WHERE d.id = wl.domain_id;
    hd := dpm._hdmm(wl.spec, dom.attr_names, dom.attr_sizes, dom.bin_labels, dom.bin_lo, dom.bin_hi,
                    options || jsonb_build_object('noise', noise));
    st.optimize_ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
    st.hdmm := ROW(hd.kind, hd.p, hd.theta, hd.weights)::dpm.hdmm_strategy;
    st.sensitivity_l1 := dpm._hdmm_sensitivity(dom.attr_sizes, hd.kind, hd.p, hd.theta, hd.weights, 1);
    st.sensitivity_l2 := dpm._hdmm_sensitivity(dom.attr_sizes, hd.kind, hd.p, hd.theta, hd.weights, 2);
    SELECT sum(coalesce(wl.weights[i], 1) ^ 2 * v), max(v) INTO trace, maxp
      FROM unnest(dpm._hdmm_profile(wl.spec, dom.attr_names, dom.attr_sizes, dom.bin_labels, dom.bin_lo,
                                    dom.bin_hi, hd.kind, hd.p, hd.theta, hd.weights)) WITH ORDINALITY t(v, i);
    st.rows := dpm._hdmm_rows(dom.attr_sizes, hd.kind, hd.p, hd.theta, hd.weights);
    st.iterations := hd.evaluations;
    bound := dpm._spec_svd_bound(wl.spec, dom.attr_names, dom.attr_sizes, dom.bin_labels, dom.bin_lo, dom.bin_hi);
  ELSIF wl.matrix IS NULL THEN
    RAISE EXCEPTION 'workload "%" has % queries over % cells: too large for a dense strategy', wl.name, wl.m, wl.n
      USING ERRCODE = 'program_limit_exceeded',
            HINT = 'Use method hdmm, which works from the spec without a matrix over the cells, or raise dpm.max_matrix_mb.';
  ELSE
    -- what the optimizers see: the rows scaled by their weights, if any
    wopt := CASE WHEN wl.weights IS NULL THEN wl.matrix ELSE dpm._scale_rows(wl.matrix, wl.weights) END;
    -- the augmentation norm follows the noise unless the caller chose one
    IF method = 'eigen_design' AND NOT options ? 'augment' THEN
      rep := dpm._strategy_report(wopt, method,
                                  options || jsonb_build_object('augment', CASE noise WHEN 'laplace' THEN 'l1' ELSE 'l2' END));
    ELSIF method = 'fitness' THEN
      rep := dpm._strategy_report(wl.matrix, method, dpm._fitness_options(wl, options));
    ELSE
      rep := dpm._strategy_report(wopt, method, options);
    END IF;
    st.optimize_ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
    st.matrix := rep.matrix;
    st.sensitivity_l1 := dpm.sensitivity(rep.matrix, 'l1');
    st.sensitivity_l2 := dpm.sensitivity(rep.matrix, 'l2');
    -- Laplace error at epsilon = 1 is 2 Delta_1^2 times the profile; the trace weighs each query
    -- by its weight^2, as the optimizers do, the largest term is in the query's own units
    SELECT c.pinv, c.profile INTO pinv, profile FROM dpm._strategy_cache(wl.matrix, rep.matrix) c;
    st.pinv := pinv;
    st.profile := profile;
    SELECT sum(coalesce(wl.weights[i], 1) ^ 2 * v), max(v) INTO trace, maxp
      FROM unnest(profile) WITH ORDINALITY t(v, i);
    st.rows := array_length(rep.matrix, 1);
    st.iterations := rep.iterations;
    st.lower_bound := rep.lower_bound;
    bound := dpm.svd_bound(wopt);
  END IF;
  st.profile_trace := trace;
  st.max_profile := maxp;
  st.ratio_to_bound := CASE noise WHEN 'laplace' THEN st.sensitivity_l1 ^ 2 ELSE st.sensitivity_l2 ^ 2 END
                       * trace / nullif(bound, 0);
  RETURN st;
END
$$;

-- Caches a built strategy; the id of the cached row with its key (a concurrent session may have
-- stored the same one first).
CREATE FUNCTION dpm._strategy_store(st dpm.strategies) RETURNS int
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  sid int;
BEGIN
  INSERT INTO dpm.strategies (workload_id, method, options, noise, matrix, hdmm, rows, sensitivity_l1, sensitivity_l2,
                              profile_trace, max_profile, ratio_to_bound, iterations, lower_bound, optimize_ms,
                              pinv, profile, created_by, created_at)
  VALUES (st.workload_id, st.method, st.options, st.noise, st.matrix, st.hdmm, st.rows, st.sensitivity_l1,
          st.sensitivity_l2, st.profile_trace, st.max_profile, st.ratio_to_bound, st.iterations, st.lower_bound,
          st.optimize_ms, st.pinv, st.profile, st.created_by, st.created_at)
  ON CONFLICT ON CONSTRAINT strategies_cache_key DO NOTHING
  RETURNING id INTO sid;
  IF sid IS NULL THEN
    SELECT s.id INTO sid FROM dpm.strategies s
     WHERE s.workload_id = st.workload_id AND s.method = st.method AND s.options = st.options AND s.noise = st.noise;
  END IF;
  RETURN sid;
END
$$;

-- The strategy for a workload: the cached one with this method, options and noise, or a new one
-- built now; for method auto, the lowest expected error of the candidates (every one is data
-- independent, so choosing by expected error spends no budget; the total error is
-- (Laplace) 2 (Delta_1/eps)^2 trace or (Gaussian) sigma(eps, delta, 1)^2 Delta_2^2 trace).
-- store: cache what is built at once (dpm.optimize, dpm.explain).  Otherwise (dpm.answer) this
-- transaction writes nothing: the new strategies come back in built, st among them with a NULL
-- id, for the release worker to cache in a transaction of its own, which could not see them
-- here.  A cached strategy that this transaction made cannot be used so either.
CREATE FUNCTION dpm._choose_strategy(wl dpm.workloads, method text, noise text, options jsonb, store boolean,
                                     OUT st dpm.strategies, OUT built dpm.strategies[])
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  cand text;
  c dpm.strategies;
  sid int;
  mine boolean;
  found_one boolean := false;
  err float8;
  best_err float8;
  eigen_rows int;
  why text[] := '{}';
  msg text;
BEGIN
  built := '{}';
  IF method = 'auto' AND options <> '{}' THEN
    RAISE EXCEPTION 'method auto takes no options' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  FOREACH cand IN ARRAY CASE WHEN method = 'auto' THEN dpm._auto_methods() ELSE ARRAY[method] END LOOP
    IF method = 'auto' AND cand = 'lrm' AND NOT coalesce(1.2 * eigen_rows < wl.n, false) THEN
      why := why || format('lrm: W is not of low rank (it applies when 1.2 rank(W) < n = %s)', wl.n);
      CONTINUE;
    END IF;
    IF method = 'auto' AND cand = 'hdmm' AND wl.spec IS NULL THEN
      why := why || 'hdmm: the workload is an explicit matrix, not a spec'::text;
      CONTINUE;
    END IF;
    SELECT s.id, dpm._in_this_transaction(s.xmin) INTO sid, mine FROM dpm.strategies s
     WHERE s.workload_id = wl.id AND s.method = cand AND s.options = options AND s.noise = noise;
    IF sid IS NOT NULL THEN
      IF mine AND NOT store THEN
        RAISE EXCEPTION 'strategy % (method %) is not committed yet', sid, cand
          USING ERRCODE = 'object_not_in_prerequisite_state',
                HINT = 'dpm.answer charges in a transaction of its own, which cannot see what this transaction has not committed: commit first.';
      END IF;
      c := dpm._strategy_head(sid);
    ELSE
      BEGIN
        c := dpm._strategy_build(wl.id, cand, noise, options);
      EXCEPTION WHEN invalid_parameter_value OR program_limit_exceeded OR feature_not_supported THEN
        IF method <> 'auto' THEN
          RAISE;
        END IF;
        GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT;
        why := why || (cand || ': ' || msg);
        CONTINUE;
      END;
      IF store THEN
        c.id := dpm._strategy_store(c);
        c.matrix := NULL; c.pinv := NULL; c.profile := NULL;
      ELSE
        built := built || c;
      END IF;
    END IF;
    IF cand = 'eigen' THEN
      eigen_rows := c.rows;
    END IF;
    err := c.profile_trace * CASE noise WHEN 'laplace' THEN c.sensitivity_l1 ^ 2 ELSE c.sensitivity_l2 ^ 2 END;
    IF NOT found_one OR err < best_err THEN
      st := c;
      best_err := err;
      found_one := true;
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
            DETAIL = 'Method auto ruled out ' || array_to_string(why, '; ') || '.',
            HINT = 'Try the methods one by one with dpm.optimize to see their errors, or change the workload.';
  END IF;
  st.matrix := NULL; st.pinv := NULL; st.profile := NULL;   -- the plan reads the matrices by id
END
$$;

CREATE FUNCTION dpm.optimize(workload text, method text DEFAULT 'auto', epsilon float8 DEFAULT NULL,
                             delta float8 DEFAULT 0, options jsonb DEFAULT '{}', rho float8 DEFAULT NULL)
RETURNS int
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  wl dpm.workloads := dpm._workload(workload);
BEGIN
  IF method IS NULL OR options IS NULL THEN
    RAISE EXCEPTION 'method and options must not be NULL' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  PERFORM dpm._check_privacy_args(epsilon, delta, rho);
  RETURN (dpm._choose_strategy(wl, method, dpm._noise_kind(method, delta, rho), options, true)).st.id;
END
$$;
COMMENT ON FUNCTION dpm.optimize(text, text, float8, float8, jsonb, float8) IS
  'choose (method auto: the lowest expected error among identity, hierarchical, wavelet, workload, eigen, eigen_design, gaussian_optimal, min_sensitivity, and lrm where rank(W) is low; an error says why each was ruled out when none applies) or build a strategy for a workload; rho selects Gaussian noise like delta > 0; reads no data, spends no budget; cached with its errors and ratio to the SVD bound';

CREATE FUNCTION dpm.compare_strategies(workload text, epsilon float8 DEFAULT 1, delta float8 DEFAULT 0,
                                       rho float8 DEFAULT NULL)
RETURNS TABLE(method text, strategy int, rows int, sensitivity float8, total_error float8, max_error float8,
              rms_error float8, ratio_to_bound float8, iterations int, optimize_ms float8)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
  wl dpm.workloads := dpm._workload(compare_strategies.workload);
  m text;
  st dpm.strategies;
  eigen_rows int;
  var float8;
BEGIN
  PERFORM dpm._check_privacy_args(compare_strategies.epsilon, compare_strategies.delta, compare_strategies.rho);
  FOREACH m IN ARRAY dpm._auto_methods() LOOP
    CONTINUE WHEN m = 'lrm' AND NOT coalesce(1.2 * eigen_rows < wl.n, false);
    CONTINUE WHEN m = 'hdmm' AND wl.spec IS NULL;
    BEGIN
      st := (dpm._choose_strategy(wl, m, dpm._noise_kind(m, compare_strategies.delta, compare_strategies.rho),
                                  '{}', true)).st;
    EXCEPTION WHEN invalid_parameter_value OR program_limit_exceeded OR feature_not_supported THEN
      CONTINUE;
    END;
    IF m = 'eigen' THEN
      eigen_rows := st.rows;
    END IF;
    -- the noise variance on each strategy answer
    var := CASE WHEN st.noise = 'laplace' THEN 2 * (st.sensitivity_l1 / compare_strategies.epsilon) ^ 2
                WHEN compare_strategies.rho IS NOT NULL THEN st.sensitivity_l2 ^ 2 / (2 * compare_strategies.rho)
                ELSE dpm.gaussian_sigma(compare_strategies.epsilon, compare_strategies.delta, st.sensitivity_l2) ^ 2 END;
    method := m; strategy := st.id; rows := st.rows;
    sensitivity := CASE st.noise WHEN 'laplace' THEN st.sensitivity_l1 ELSE st.sensitivity_l2 END;
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
COMMENT ON FUNCTION dpm.compare_strategies(text, float8, float8, float8) IS
  'one row per strategy method for a workload: sensitivity, expected total, max and root-mean-square error at the given privacy, ratio to the SVD bound, optimization effort; reads no data, spends no budget';

-- The privacy a fitness strategy needs to meet its targets (prioritizing accuracy): unit noise
-- on its rows meets them, so ask for the largest sigma <= 1 whose noise, as the secure sampler
-- really adds it (grid allowance included), stays <= 1, and for epsilon (or rho) with margins that
-- survive the charge's rounding and dpm._below.
CREATE FUNCTION dpm._fitness_need(src dpm.sources, st dpm.strategies, delta float8,
                                  OUT epsilon float8, OUT rho float8)
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  sens float8 := st.sensitivity_l2 * src.max_contributions;
  s float8 := 1;
BEGIN
  WHILE dpm._gaussian_actual_sd(st.rows, sens, s) > 1 LOOP
    s := s / dpm._gaussian_actual_sd(st.rows, sens, s) * (1 - 1e-12);
  END LOOP;
  s := s * (1 - 1e-9);
  CASE src.model
  WHEN 'zcdp' THEN
    rho := (sens / s) ^ 2 / 2 * (1 + 1e-12);
  WHEN 'approx' THEN
    IF NOT delta > 0 THEN
      RAISE EXCEPTION 'give delta > 0: the epsilon a fitness strategy needs is computed for it'
        USING ERRCODE = 'invalid_parameter_value';
    END IF;
    epsilon := greatest(dpm.gaussian_epsilon(delta * (1 - 1e-12), s, sens) * (1 + 1e-12), 1e-15);
  ELSE
    RAISE EXCEPTION 'source "%" is registered for pure epsilon-differential privacy: a fitness strategy needs Gaussian noise',
      src.relation USING ERRCODE = 'invalid_parameter_value';
  END CASE;
END
$$;

CREATE FUNCTION dpm._strategy(sid int) RETURNS dpm.strategies
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  st dpm.strategies;
BEGIN
  SELECT * INTO st FROM dpm.strategies s WHERE s.id = sid;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'strategy % does not exist', sid USING ERRCODE = 'undefined_object';
  END IF;
  RETURN st;
END
$$;

-- Both problems of the fitness-for-use paper for a stored fitness strategy.  Without epsilon and
-- rho (prioritizing accuracy): every target met exactly (variance_scale 1) at privacy cost Delta,
-- which is rho = Delta^2 / 2 zCDP and (epsilon, delta)-DP for the exact epsilon of Corollary 1.
-- With epsilon and delta, or rho (prioritizing privacy): the smallest k with every variance
-- <= k * target (Theorem 5: Sigma scaled by k).  Per record (max_contributions 1).
CREATE FUNCTION dpm.fitness_privacy(strategy int, epsilon float8 DEFAULT NULL, delta float8 DEFAULT NULL,
                                    rho float8 DEFAULT NULL)
RETURNS TABLE(privacy_cost float8, zcdp_rho float8, dp_epsilon float8, dp_delta float8, variance_scale float8)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  st dpm.strategies := dpm._strategy(strategy);
  cost float8 := st.sensitivity_l2;
  sigma float8;
BEGIN
  IF st.method <> 'fitness' THEN
    RAISE EXCEPTION 'strategy % was built by method %, not fitness', strategy, st.method
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF delta IS NOT NULL AND NOT (delta > 0 AND delta < 1) THEN
    RAISE EXCEPTION 'delta must be in (0, 1), got %', delta USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF epsilon IS NOT NULL AND rho IS NOT NULL THEN
    RAISE EXCEPTION 'give epsilon (with delta) or rho, not both' USING ERRCODE = 'invalid_parameter_value';
  ELSIF epsilon IS NOT NULL THEN
    IF delta IS NULL THEN
      RAISE EXCEPTION 'epsilon needs delta > 0: fitness strategies add Gaussian noise' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    sigma := dpm.gaussian_sigma(epsilon, delta, cost);
  ELSIF rho IS NOT NULL THEN
    IF NOT dpm._finite(rho) OR rho <= 0 THEN
      RAISE EXCEPTION 'rho must be a positive finite number, got %', rho USING ERRCODE = 'invalid_parameter_value';
    END IF;
    sigma := cost / sqrt(2 * rho);
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
  'privacy of a fitness strategy: without epsilon and rho, what meeting every target costs (privacy cost, zCDP rho = cost^2/2, the exact epsilon for a given delta); with epsilon and delta or rho, the smallest k such that every variance is at most k times its target';

CREATE FUNCTION dpm.privacy_profile(strategy int)
RETURNS TABLE(cell int, privacy_cost float8)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  st dpm.strategies := dpm._strategy(strategy);
BEGIN
  IF st.matrix IS NULL THEN
    RAISE EXCEPTION 'strategy % is implicit (method %): its profile is not available per cell', strategy, st.method
      USING ERRCODE = 'feature_not_supported';
  END IF;
  RETURN QUERY SELECT i::int, v FROM unnest(dpm._column_norms(st.matrix)) WITH ORDINALITY AS t(v, i);
END
$$;
COMMENT ON FUNCTION dpm.privacy_profile(int) IS
  'personalized privacy cost of each cell under a strategy with unit Gaussian noise (fitness-for-use Definition 4: sqrt(b_i^T Sigma^-1 b_i)); its maximum is the privacy cost, and a cell below it could be queried more at no extra cost';

-- The parameters a release's noise is calibrated for, from its charge: strictly below it
-- (dpm._below), so the privacy spent never exceeds what is charged.
CREATE FUNCTION dpm._noise_params(noise text, c_epsilon numeric, c_delta numeric, c_rho numeric,
                                  OUT epsilon float8, OUT delta float8, OUT rho float8)
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN NOT zcdp_gauss THEN dpm._below(c_epsilon) END,
         CASE WHEN noise = 'gaussian' AND NOT zcdp_gauss THEN dpm._below(c_delta) ELSE 0 END,
         CASE WHEN zcdp_gauss THEN dpm._below(c_rho) END
    FROM (SELECT noise = 'gaussian' AND c_rho IS NOT NULL AS zcdp_gauss) z
$$;

-- The scan a release of this domain runs must work, and its outcome must not depend on the rows:
-- the domain's creator may still read the source (the scan runs with its rights), and every
-- attribute's expression, with the source's own definition (views, row-level security), calls
-- only functions that cannot fail on any value (src/api/safe_expr.c).  No row is read.
CREATE FUNCTION dpm._check_domain(dom dpm.domains, src dpm.sources) RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF NOT has_table_privilege(dom.created_by, src.relation, 'SELECT') THEN
    RAISE EXCEPTION 'domain "%" cannot be computed: its creator % can no longer read %', dom.name, dom.created_by, src.relation
      USING ERRCODE = 'insufficient_privilege', HINT = 'Ask the custodian to restore the privilege or redefine the domain.';
  END IF;
  PERFORM dpm._plan_cells(dom.cell_expr, src.relation, dom.created_by);
  PERFORM dpm._check_cells(dom.created_by, src.relation, dom.name, dom.attr_names, dom.attr_exprs);
END
$$;

-- What a release would be, from its request: workload, strategy, noise and charge in the
-- source's model, with every check that needs neither data nor a lock, the sampler's own among
-- them.  Shared by dpm.answer and the dry run (dpm.explain), so that both refuse the same
-- requests before anything is charged.  Runs in the caller's backend, under its
-- statement_timeout and cancel: a strategy that must be optimized is optimized here.  store: see
-- dpm._choose_strategy (dpm.answer passes false: the worker caches what is built here).
CREATE FUNCTION dpm._release_plan(args jsonb, store boolean, OUT wl dpm.workloads, OUT dom dpm.domains,
                                  OUT src dpm.sources, OUT st dpm.strategies, OUT built dpm.strategies[],
                                  OUT noise text, OUT c_epsilon numeric, OUT c_delta numeric, OUT c_rho numeric,
                                  OUT ci_draws int)
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  k text;
  cost record;
  sid int := (args->>'strategy')::int;
  method text := args->>'method';
  delta float8 := CASE WHEN args ? 'delta' THEN (args->>'delta')::float8 ELSE 0 END;
  confidence float8 := (args->>'confidence')::float8;
  accuracy_first boolean;
  need record;
  chosen record;
  mine boolean;
  np record;
BEGIN
  FOR k IN SELECT jsonb_object_keys(args) LOOP
    IF k NOT IN ('workload', 'epsilon', 'delta', 'rho', 'strategy', 'method', 'options', 'inference',
                 'confidence', 'ci_draws') THEN
      RAISE EXCEPTION 'unknown release argument "%"', k USING ERRCODE = 'invalid_parameter_value';
    END IF;
  END LOOP;
  IF coalesce(args->>'inference', 'ls') NOT IN ('ls', 'nnls', 'nnls_integer') THEN
    RAISE EXCEPTION 'unknown inference "%"', args->>'inference'
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Valid: ls (least squares), nnls (non-negative least squares), nnls_integer (the same, rounded to integers).';
  END IF;
  IF confidence IS NOT NULL AND NOT (confidence > 0 AND confidence < 1) THEN
    RAISE EXCEPTION 'confidence must be between 0 and 1 (exclusive), got %', confidence
      USING ERRCODE = 'invalid_parameter_value', HINT = 'Pass NULL for no intervals.';
  END IF;
  ci_draws := coalesce((args->>'ci_draws')::int, 1000);   -- the caller's dpm.ci_draws
  IF ci_draws NOT BETWEEN 100 AND 100000 THEN
    RAISE EXCEPTION 'ci_draws must be between 100 and 100000, got %', ci_draws
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  SELECT w.id, dpm._in_this_transaction(w.xmin) INTO wl.id, mine FROM dpm.workloads w WHERE w.name = args->>'workload';
  IF NOT FOUND THEN
    PERFORM dpm._workload(args->>'workload');    -- its error
  END IF;
  IF mine AND NOT store THEN
    RAISE EXCEPTION 'workload "%" is not committed yet', args->>'workload'
      USING ERRCODE = 'undefined_object',
            HINT = 'dpm.answer works in a transaction of its own: commit the transaction that created the workload first.';
  END IF;
  -- the row without its matrix (megabytes, which a row variable would detoast)
  SELECT w.id, w.name, w.domain_id, w.spec, NULL, w.labels, w.m, w.n, w.created_by, w.created_at, w.weights, NULL
    INTO wl FROM dpm.workloads w WHERE w.id = wl.id;
  SELECT * INTO dom FROM dpm.domains d WHERE d.id = wl.domain_id;
  SELECT * INTO src FROM dpm.sources s WHERE s.id = dom.source_id;
  -- neither epsilon nor rho, with a fitness strategy: its targets decide the charge
  accuracy_first := args->>'epsilon' IS NULL AND args->>'rho' IS NULL
                    AND (coalesce(method = 'fitness', false) OR sid IS NOT NULL);
  IF NOT accuracy_first THEN
    cost := dpm._privacy_cost(src, (args->>'epsilon')::float8, delta, (args->>'rho')::float8);
  END IF;

  IF sid IS NULL THEN
    method := coalesce(method, 'auto');
    chosen := dpm._choose_strategy(wl, method, dpm._noise_kind(method, delta, (args->>'rho')::float8),
                                   coalesce(nullif(args->'options', 'null'), '{}'), store);
    st := chosen.st;
    built := chosen.built;
  ELSIF method IS NOT NULL THEN
    RAISE EXCEPTION 'give a strategy or a method, not both' USING ERRCODE = 'invalid_parameter_value';
  ELSE
    SELECT dpm._in_this_transaction(s.xmin) INTO mine FROM dpm.strategies s WHERE s.id = sid;
    IF NOT FOUND THEN
      PERFORM dpm._strategy(sid);                -- its error
    END IF;
    IF mine AND NOT store THEN
      RAISE EXCEPTION 'strategy % is not committed yet', sid
        USING ERRCODE = 'undefined_object',
              HINT = 'dpm.answer works in a transaction of its own: pass method => ... (and options) instead of strategy => dpm.optimize(...), or commit first.';
    END IF;
    st := dpm._strategy_head(sid);
    built := '{}';
  END IF;
  IF st.workload_id <> wl.id THEN
    RAISE EXCEPTION 'strategy % was built for another workload', sid
      USING ERRCODE = 'invalid_parameter_value', HINT = 'Use dpm.optimize on this workload to get a strategy for it.';
  END IF;
  IF accuracy_first THEN
    IF st.method <> 'fitness' THEN
      cost := dpm._privacy_cost(src, NULL, delta, NULL);    -- refused: give epsilon or rho
    END IF;
    need := dpm._fitness_need(src, st, delta);
    cost := dpm._privacy_cost(src, need.epsilon, delta, need.rho);
  ELSIF st.method = 'fitness' AND cost.noise <> 'gaussian' THEN
    RAISE EXCEPTION 'a fitness strategy meets variance targets with Gaussian noise, not Laplace'
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Give delta > 0 or rho, or neither epsilon nor rho to be charged what the targets need.';
  END IF;
  -- Laplace intervals take ceil(c (N + 1)) <= N simulated draws (src/mechanism/interval.h)
  IF cost.noise = 'laplace' AND confidence IS NOT NULL AND ceil(confidence * (ci_draws + 1)) > ci_draws THEN
    RAISE EXCEPTION 'confidence % needs more than dpm.ci_draws = % simulated draws of the noise', confidence, ci_draws
      USING ERRCODE = 'invalid_parameter_value', HINT = 'Raise dpm.ci_draws, or ask for a lower confidence.';
  END IF;
  noise := cost.noise;
  c_epsilon := cost.c_epsilon;
  c_delta := cost.c_delta;
  c_rho := cost.c_rho;
  -- the sampler's own checks (its grid must fit these parameters), by the code the release runs
  np := dpm._noise_params(noise, c_epsilon, c_delta, c_rho);
  PERFORM dpm._check_noise(st.rows, src.max_contributions * st.sensitivity_l1,
                           src.max_contributions * st.sensitivity_l2, np.epsilon, np.delta, np.rho);
  PERFORM dpm._check_domain(dom, src);
END
$$;

-- Step 1 of a release, in the worker's first transaction (src/release/worker.c): check and record
-- the charge of the request dpm.answer planned.  Commits before any noise exists.
CREATE FUNCTION dpm._release_charge(caller regrole, req jsonb) RETURNS bigint
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  wl_id int := (req->>'workload_id')::int;
  sid int := (req->>'strategy_id')::int;
  c_epsilon numeric := (req->>'epsilon')::numeric;
  c_delta numeric := (req->>'delta')::numeric;
  c_rho numeric := (req->>'rho')::numeric;
  dom dpm.domains;
  src dpm.sources;
  spent record;
  rel_id bigint;
BEGIN
  IF sid IS NULL THEN    -- built by the caller, cached by this worker just before
    SELECT s.id INTO sid FROM dpm.strategies s
     WHERE s.workload_id = wl_id AND s.method = req->>'method' AND s.options = req->'options'
       AND s.noise = req->>'strategy_noise';
    IF NOT FOUND THEN
      RAISE EXCEPTION 'the strategy chosen for this release could not be stored'
        USING ERRCODE = 'object_not_in_prerequisite_state', HINT = 'Retry; nothing was charged.';
    END IF;
  END IF;
  SELECT d.* INTO dom FROM dpm.workloads w JOIN dpm.domains d ON d.id = w.domain_id WHERE w.id = wl_id;
  SELECT * INTO src FROM dpm.sources s WHERE s.id = dom.source_id;
  -- the catalog may have changed since the plan: refuse now rather than fail after the charge
  PERFORM dpm._check_domain(dom, src);

  -- the budget check: one charge at a time per source (row lock), exact numeric sums.  The sum
  -- after the lock must see every charge committed before it, which only READ COMMITTED gives.
  PERFORM dpm._require_read_committed('a release''s charge');
  SELECT * INTO src FROM dpm.sources s WHERE s.id = src.id FOR UPDATE;
  -- a release left 'charged' by a worker that stopped (crash, kill -9) will never get answers
  UPDATE dpm.releases r SET status = 'interrupted'
   WHERE r.source_id = src.id AND r.status = 'charged' AND NOT dpm._release_in_progress(r.id);
  SELECT coalesce(sum(l.epsilon), 0) AS e, coalesce(sum(l.delta), 0) AS d, coalesce(sum(l.rho), 0) AS r
    INTO spent FROM dpm.ledger l WHERE l.source_id = src.id;
  IF (src.model = 'zcdp' AND spent.r + c_rho > src.budget_rho)
     OR (src.model <> 'zcdp' AND (spent.e + c_epsilon > src.budget_epsilon OR spent.d + c_delta > src.budget_delta)) THEN
    RAISE EXCEPTION 'privacy budget of source "%" is exhausted', src.relation
      USING ERRCODE = 'Y1001',
            DETAIL = CASE src.model
                     WHEN 'zcdp' THEN format('Spent rho %s of %s; this release needs rho %s.', spent.r, src.budget_rho, c_rho)
                     WHEN 'pure' THEN format('Spent epsilon %s of %s; this release needs epsilon %s.', spent.e, src.budget_epsilon, c_epsilon)
                     ELSE format('Spent epsilon %s of %s and delta %s of %s; this release needs epsilon %s and delta %s.',
                                 spent.e, src.budget_epsilon, spent.d, src.budget_delta, c_epsilon, c_delta) END,
            HINT = 'Ask for less, or ask the custodian for more budget.';
  END IF;
  INSERT INTO dpm.releases (source_id, workload_id, strategy_id, noise, epsilon, delta, rho, released_by, inference,
                            confidence, ci_draws)
  VALUES (src.id, wl_id, sid, req->>'noise', c_epsilon, c_delta, c_rho, caller, req->>'inference',
          (req->>'confidence')::float8, (req->>'ci_draws')::int)
  RETURNING id INTO rel_id;
  INSERT INTO dpm.ledger (source_id, release_id, epsilon, delta, rho, charged_by)
  VALUES (src.id, rel_id, c_epsilon, c_delta, c_rho, caller);
  RETURN rel_id;
END
$$;

-- The mechanism a release r runs, on the data vector x: its strategy (dense or HDMM), noise
-- calibrated for parameters strictly below the charge (dpm._noise_params), inference and intervals.
CREATE FUNCTION dpm._release_mechanism(r dpm.releases, x float8[])
RETURNS TABLE(query int, answer float8, stderr float8, ci_low float8, ci_high float8, ci_draws int)
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  form text;
  scale int := (SELECT s.max_contributions FROM dpm.sources s WHERE s.id = r.source_id);
  np record := dpm._noise_params(r.noise, r.epsilon, r.delta, r.rho);
  eps float8 := np.epsilon;
  del float8 := np.delta;
  rh float8 := np.rho;
BEGIN
  -- the matrices go straight from the catalog to the mechanism: a PL/pgSQL row variable would
  -- detoast megabytes of them once more
  SELECT CASE WHEN s.pinv IS NOT NULL THEN 'cached' WHEN s.matrix IS NOT NULL THEN 'dense' ELSE 'hdmm' END
    INTO form FROM dpm.strategies s WHERE s.id = r.strategy_id;
  IF r.ci_draws IS NOT NULL THEN
    PERFORM set_config('dpm.ci_draws', r.ci_draws::text, true);
  END IF;
  IF form = 'cached' THEN
    RETURN QUERY SELECT m.* FROM dpm.workloads w, dpm.strategies s,
                        LATERAL dpm._mechanism_cached(w.matrix, s.matrix, s.pinv, s.profile, x, eps, del, scale, rh,
                                                      r.inference, r.confidence) m
                  WHERE w.id = r.workload_id AND s.id = r.strategy_id;
  ELSIF form = 'dense' THEN
    RETURN QUERY SELECT m.* FROM dpm.workloads w, dpm.strategies s,
                        LATERAL dpm.mechanism(w.matrix, s.matrix, x, eps, del, scale, rh, r.inference, r.confidence) m
                  WHERE w.id = r.workload_id AND s.id = r.strategy_id;
  ELSE
    RETURN QUERY SELECT m.* FROM dpm.workloads w, dpm.domains d, dpm.strategies s,
                        LATERAL dpm._hdmm_mechanism(w.spec, d.attr_names, d.attr_sizes, d.bin_labels, d.bin_lo, d.bin_hi,
                                                    (s.hdmm).kind, (s.hdmm).p, (s.hdmm).theta, (s.hdmm).weights, x,
                                                    eps, del, scale, rh, r.inference, r.confidence) m
                  WHERE w.id = r.workload_id AND d.id = w.domain_id AND s.id = r.strategy_id;
  END IF;
END
$$;

-- Step 2, in the worker's second transaction: scan the source, add the noise, store the answers.
CREATE FUNCTION dpm._release_fill(rel_id bigint) RETURNS bigint
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  r dpm.releases;
  labels text[];
  dom dpm.domains;
  src dpm.sources;
  draws int;
BEGIN
  SELECT * INTO r FROM dpm.releases x WHERE x.id = rel_id AND x.status = 'charged' FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'release % is not waiting for its answers', rel_id;
  END IF;
  -- not the workload's row: its matrix would be detoasted for nothing
  SELECT d.* INTO dom FROM dpm.workloads w JOIN dpm.domains d ON d.id = w.domain_id WHERE w.id = r.workload_id;
  SELECT w.labels INTO labels FROM dpm.workloads w WHERE w.id = r.workload_id;
  SELECT * INTO src FROM dpm.sources s WHERE s.id = r.source_id;
  -- the answers come in query order, zipped with the labels (labels[query] costs O(query) a row)
  WITH m AS MATERIALIZED (
         SELECT * FROM ROWS FROM (dpm._release_mechanism(r, dpm._frequency_vector(src, dom, dom.created_by, true)),
                                  unnest(labels)) AS m(query, answer, stderr, ci_low, ci_high, ci_draws, label)),
       ins AS (INSERT INTO dpm.release_answers (release_id, query, label, answer, stderr, ci_low, ci_high)
               SELECT rel_id, m.query, m.label, m.answer, m.stderr, m.ci_low, m.ci_high FROM m)
  SELECT max(m.ci_draws) INTO draws FROM m;
  -- an HDMM simulation may stop early (dpm.ci_max_seconds): record the draws it used
  UPDATE dpm.releases x SET status = 'released', ci_draws = CASE WHEN x.ci_draws IS NOT NULL THEN draws END
   WHERE x.id = rel_id;
  RETURN rel_id;
END
$$;

CREATE FUNCTION dpm.release(release_id bigint)
RETURNS TABLE(query int, label text, answer float8, stderr float8, ci_low float8, ci_high float8)
AS 'MODULE_PATHNAME', 'dpm_release' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION dpm.release(bigint) IS
  'replay a release: its stored noisy answers, at no cost (your own releases; custodians see all)';

-- The request of a release (dpm.answer) or of its dry run (dpm.explain), as dpm._release_plan
-- reads it; it carries the caller's dpm.ci_draws, which the worker does not see.
CREATE FUNCTION dpm._release_request(workload text, epsilon float8, delta float8, rho float8, strategy int,
                                     method text, options jsonb, inference text, confidence float8)
RETURNS jsonb LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT jsonb_build_object('workload', workload, 'epsilon', epsilon, 'delta', delta, 'rho', rho,
                            'strategy', strategy, 'method', method, 'options', options, 'inference', inference,
                            'confidence', confidence, 'ci_draws', current_setting('dpm.ci_draws', true))
$$;

-- The release is planned here, in the caller's backend (strategy optimization included, under
-- the caller's statement_timeout and cancel), then charged and computed by a release worker (see
-- src/release/queue.h for why), which attributes it to dpm._invoker().  SECURITY DEFINER: the
-- internal functions it calls are not the analysts' to call.
CREATE FUNCTION dpm.answer(workload text, epsilon float8 DEFAULT NULL, delta float8 DEFAULT 0,
                           rho float8 DEFAULT NULL, strategy int DEFAULT NULL, method text DEFAULT NULL,
                           options jsonb DEFAULT NULL, inference text DEFAULT 'ls',
                           confidence float8 DEFAULT 0.95)
RETURNS TABLE(query int, label text, answer float8, stderr float8, ci_low float8, ci_high float8)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  p record := dpm._release_plan(dpm._release_request(answer.workload, answer.epsilon, answer.delta, answer.rho,
                                                     answer.strategy, answer.method, answer.options,
                                                     answer.inference, answer.confidence), false);
  prior bigint;
  rel_id bigint;
BEGIN
  SELECT max(r.id) INTO prior FROM dpm.releases r
   WHERE r.workload_id = (p.wl).id AND r.status = 'released' AND pg_has_role(dpm._invoker(), r.released_by, 'USAGE');
  rel_id := dpm._run_release(
    jsonb_build_object('workload_id', (p.wl).id, 'strategy_id', (p.st).id, 'method', (p.st).method,
                       'options', (p.st).options, 'strategy_noise', (p.st).noise, 'noise', p.noise,
                       'epsilon', p.c_epsilon, 'delta', p.c_delta, 'rho', p.c_rho,
                       'inference', coalesce(answer.inference, 'ls'), 'confidence', answer.confidence,
                       'ci_draws', CASE WHEN p.noise = 'laplace' AND answer.confidence IS NOT NULL THEN p.ci_draws END),
    p.built);
  IF coalesce(answer.inference, 'ls') <> 'ls' THEN
    RAISE NOTICE 'release % estimates by non-negative least squares: stderr and the interval''s width are least squares'', a reference', rel_id
      USING DETAIL = 'The error of non-negative estimates depends on the data and has no closed form; over the strategy''s own queries it is never larger in total than least squares''.';
  END IF;
  IF prior IS NOT NULL THEN
    RAISE NOTICE 'release % answers workload "%" again with fresh noise, and was charged again', rel_id, answer.workload
      USING DETAIL = format('Release %s already answered it; dpm.release(%s) replays it at no cost.', prior, prior);
  END IF;
  RETURN QUERY SELECT * FROM dpm.release(rel_id);
END
$$;
COMMENT ON FUNCTION dpm.answer(text, float8, float8, float8, int, text, jsonb, text, float8) IS
  'answer a workload on its source with the matrix mechanism and charge the source''s budget: epsilon (Laplace), epsilon and delta > 0 (Gaussian), or rho (zCDP Gaussian); a stored strategy, or a method (default auto) optimized and cached; inference ls (least squares), nnls or nnls_integer (non-negative, no extra cost; stderr is then the least-squares reference); ci_low and ci_high at the given confidence (NULL: none), exact for Gaussian noise and simulated from dpm.ci_draws draws of the noise for Laplace; the charge is committed before any noise is drawn and survives rollback';

-- The dry run.  The release dpm.answer would make with these arguments is planned (strategy,
-- noise, charge) and its mechanism run on a vector of zeros: no row of the source is read and
-- nothing is charged, and the standard errors and intervals are exactly those the release
-- would report, since the noise does not depend on the data.  SECURITY DEFINER to sum every
-- charge of the source, as dpm.budget does.
CREATE FUNCTION dpm._explain(args jsonb)
RETURNS TABLE(r dpm.releases, query int, label text, stderr float8, ci_half_width float8)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
  p record := dpm._release_plan(args, true);
  rel dpm.releases;
BEGIN
  rel.source_id := (p.src).id;
  rel.workload_id := (p.wl).id;
  rel.strategy_id := (p.st).id;
  rel.noise := p.noise;
  rel.epsilon := p.c_epsilon;
  rel.delta := p.c_delta;
  rel.rho := p.c_rho;
  rel.inference := 'ls';
  rel.confidence := (args->>'confidence')::float8;
  rel.ci_draws := CASE WHEN p.noise = 'laplace' AND rel.confidence IS NOT NULL THEN p.ci_draws END;
  -- zipped with the labels, as in dpm._release_fill
  RETURN QUERY
    SELECT rel, m.query, m.label, m.stderr, (m.ci_high - m.ci_low) / 2
      FROM ROWS FROM (dpm._release_mechanism(rel, array_fill(0::float8, ARRAY[(p.wl).n])), unnest((p.wl).labels))
           AS m(query, answer, stderr, ci_low, ci_high, ci_draws, label);
END
$$;

CREATE FUNCTION dpm.explain(workload text, epsilon float8 DEFAULT NULL, delta float8 DEFAULT 0,
                            rho float8 DEFAULT NULL, strategy int DEFAULT NULL, method text DEFAULT NULL,
                            options jsonb DEFAULT NULL, confidence float8 DEFAULT 0.95)
RETURNS TABLE(strategy_id int, strategy_method text, noise text, measurements int, sensitivity float8,
              charge_epsilon numeric, charge_delta numeric, charge_rho numeric,
              queries int, total_variance float8, rms_error float8, max_stderr float8,
              mean_ci_half_width float8, max_ci_half_width float8, ratio_to_bound float8,
              epsilon_remaining numeric, delta_remaining numeric, rho_remaining numeric, within_budget boolean)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
  args jsonb := dpm._release_request(explain.workload, explain.epsilon, explain.delta, explain.rho, explain.strategy,
                                     explain.method, explain.options, 'ls', explain.confidence);
  agg record;
  rel dpm.releases;
  st dpm.strategies;
  src dpm.sources;
  spent record;
BEGIN
  SELECT (array_agg(e.r))[1] AS rel, count(*) AS n, sum(e.stderr ^ 2) AS total, max(e.stderr) AS max_se,
         avg(e.ci_half_width) AS mean_ci, max(e.ci_half_width) AS max_ci
    INTO agg FROM dpm._explain(args) e;
  rel := agg.rel;
  SELECT * INTO st FROM dpm.strategies s WHERE s.id = rel.strategy_id;
  SELECT * INTO src FROM dpm.sources s WHERE s.id = rel.source_id;
  SELECT coalesce(sum(l.epsilon), 0) AS e, coalesce(sum(l.delta), 0) AS d, coalesce(sum(l.rho), 0) AS r
    INTO spent FROM dpm.ledger l WHERE l.source_id = src.id;
  strategy_id := st.id;
  strategy_method := st.method;
  noise := rel.noise;
  measurements := st.rows;
  sensitivity := src.max_contributions * CASE rel.noise WHEN 'laplace' THEN st.sensitivity_l1 ELSE st.sensitivity_l2 END;
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
  IF src.model = 'zcdp' THEN
    rho_remaining := src.budget_rho - spent.r - rel.rho;
    within_budget := rho_remaining >= 0;
  ELSE
    epsilon_remaining := src.budget_epsilon - spent.e - rel.epsilon;
    delta_remaining := CASE WHEN src.model = 'approx' THEN src.budget_delta - spent.d - rel.delta END;
    within_budget := epsilon_remaining >= 0 AND coalesce(delta_remaining >= 0, true);
  END IF;
  RETURN NEXT;
END
$$;
COMMENT ON FUNCTION dpm.explain(text, float8, float8, float8, int, text, jsonb, float8) IS
  'dry run of dpm.answer with the same arguments: reads no data and spends nothing; the strategy that would be used, its sensitivity, the charge in the source''s privacy model, the expected error (total variance, RMS, largest standard error, confidence interval half-widths), the ratio to the SVD lower bound and the budget that would remain';

CREATE FUNCTION dpm.explain_queries(workload text, epsilon float8 DEFAULT NULL, delta float8 DEFAULT 0,
                                    rho float8 DEFAULT NULL, strategy int DEFAULT NULL, method text DEFAULT NULL,
                                    options jsonb DEFAULT NULL, confidence float8 DEFAULT 0.95)
RETURNS TABLE(query int, label text, stderr float8, ci_half_width float8)
LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
  SELECT e.query, e.label, e.stderr, e.ci_half_width
    FROM dpm._explain(dpm._release_request(workload, epsilon, delta, rho, strategy, method, options, 'ls',
                                           confidence)) e
   ORDER BY e.query
$$;
COMMENT ON FUNCTION dpm.explain_queries(text, float8, float8, float8, int, text, jsonb, float8) IS
  'dry run of dpm.answer, query by query: the standard error and confidence interval half-width each answer would have; reads no data and spends nothing';

-- Publication for BI tools: a view with one column per attribute, owned by the extension owner
-- (so it reads the catalog whatever the reader may do) and granted to a reporting role, which
-- needs no other dpmatrix right.  security_barrier: a reader's own predicates run after the
-- view's filter, so a leaky function cannot see other releases' rows.
-- A view name as given to dpm.publish: its schema (public when none) and name.
CREATE FUNCTION dpm._view_name(view_name text, OUT schema_name text, OUT rel_name text)
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  parts text[] := parse_ident(coalesce(view_name, ''));
BEGIN
  IF cardinality(parts) = 1 THEN
    parts := ARRAY['public'] || parts;
  ELSIF cardinality(parts) <> 2 THEN
    RAISE EXCEPTION 'view name "%" must be a name or schema.name', view_name
      USING ERRCODE = 'invalid_name';
  END IF;
  schema_name := parts[1];
  rel_name := parts[2];
END
$$;

CREATE FUNCTION dpm.publish(release_id bigint, view_name text, reader regrole DEFAULT NULL)
RETURNS regclass
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  r dpm.releases;
  wl dpm.workloads;
  dom dpm.domains;
  schema_name text;
  rel_name text;
  qualified text;
  pub dpm.publications;
  cols text := '';
  off int := 0;
  a text;
BEGIN
  SELECT * INTO r FROM dpm.releases x WHERE x.id = publish.release_id;
  IF NOT FOUND OR r.status <> 'released' THEN
    RAISE EXCEPTION 'release % does not exist or has no answers', publish.release_id
      USING ERRCODE = 'undefined_object', HINT = 'Releases are listed in dpm.releases.';
  END IF;
  SELECT * INTO wl FROM dpm.workloads w WHERE w.id = r.workload_id;
  SELECT * INTO dom FROM dpm.domains d WHERE d.id = wl.domain_id;
  SELECT v.schema_name, v.rel_name INTO schema_name, rel_name FROM dpm._view_name(publish.view_name) v;
  qualified := format('%I.%I', schema_name, rel_name);
  IF NOT EXISTS (SELECT 1 FROM pg_namespace n WHERE n.nspname = schema_name) THEN
    RAISE EXCEPTION 'schema "%" does not exist', schema_name USING ERRCODE = 'invalid_schema_name';
  END IF;
  IF NOT has_schema_privilege(dpm._invoker(), schema_name, 'CREATE') THEN
    RAISE EXCEPTION 'permission denied to create "%"', qualified
      USING ERRCODE = 'insufficient_privilege', HINT = format('You need CREATE on schema %I.', schema_name);
  END IF;
  IF wl.spans IS NOT NULL AND NOT EXISTS (SELECT 1 FROM dpm.query_spans q WHERE q.workload_id = wl.id) THEN
    INSERT INTO dpm.query_spans (workload_id, query, spans)
    SELECT wl.id, (i - 1) / (2 * cardinality(dom.attr_names)) + 1, array_agg(v ORDER BY i)
      FROM unnest(wl.spans) WITH ORDINALITY u(v, i) GROUP BY 2;
  END IF;
  SELECT * INTO pub FROM dpm.publications p WHERE p.view_name = qualified;
  IF FOUND THEN
    IF pub.domain_id <> dom.id THEN
      RAISE EXCEPTION 'view % shows releases over domain %, not %', qualified,
        (SELECT d.name FROM dpm.domains d WHERE d.id = pub.domain_id), dom.name
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'Its columns are that domain''s attributes: publish under another name, or dpm.unpublish it first.';
    END IF;
    UPDATE dpm.publications p SET release_id = r.id, published_by = dpm._invoker(), published_at = now()
     WHERE p.view_name = qualified;
  ELSE
    IF to_regclass(qualified) IS NOT NULL THEN
      RAISE EXCEPTION 'relation % already exists', qualified USING ERRCODE = 'duplicate_table';
    END IF;
    -- per attribute: the bin when the query counts one, the first and last of a run of bins,
    -- NULL when the query puts no condition on it (or is an explicit matrix's row)
    FOR k IN 1 .. cardinality(dom.attr_names) LOOP
      a := dom.attr_names[k];
      IF a IN ('release_id', 'released_at', 'query', 'label', 'answer', 'stderr', 'ci_low', 'ci_high', 'confidence') THEN
        RAISE EXCEPTION 'attribute "%" would clash with a column of the view', a USING ERRCODE = 'duplicate_column';
      END IF;
      cols := cols || format(
        $f$       CASE WHEN q.spans[%1$s] > 0 AND q.spans[%1$s] = q.spans[%2$s] THEN d.bin_labels[%3$s + q.spans[%1$s]] END AS %4$I,
       CASE WHEN q.spans[%1$s] > 0 THEN d.bin_labels[%3$s + q.spans[%1$s]] END AS %5$I,
       CASE WHEN q.spans[%1$s] > 0 THEN d.bin_labels[%3$s + q.spans[%2$s]] END AS %6$I,
$f$, 2 * k - 1, 2 * k, off, a, a || '_from', a || '_to');
      off := off + dom.attr_sizes[k];
    END LOOP;
    INSERT INTO dpm.publications (view_name, domain_id, release_id) VALUES (qualified, dom.id, r.id);
    EXECUTE format($v$CREATE VIEW %s WITH (security_barrier) AS
SELECT ra.release_id, r.released_at, ra.query, ra.label,
%s       ra.answer, ra.stderr, ra.ci_low, ra.ci_high, r.confidence
  FROM dpm.publications p
  JOIN dpm.release_answers ra ON ra.release_id = p.release_id
  JOIN dpm.releases r ON r.id = ra.release_id
  JOIN dpm.domains d ON d.id = p.domain_id
  LEFT JOIN dpm.query_spans q ON q.workload_id = r.workload_id AND q.query = ra.query
 WHERE p.view_name = %L$v$, qualified, cols, qualified);
    EXECUTE format('COMMENT ON VIEW %s IS %L', qualified,
                   format('dpmatrix release of workload %s over domain %s (dpm.publish); one row per query, one column per attribute', wl.name, dom.name));
  END IF;
  IF publish.reader IS NOT NULL THEN
    EXECUTE format('GRANT SELECT ON %s TO %s', qualified, publish.reader);
  END IF;
  RETURN qualified::regclass;
END
$$;
COMMENT ON FUNCTION dpm.publish(bigint, text, regrole) IS
  'publish a release as a plain view (one row per query; per attribute of the domain a column with the bin, and _from and _to columns for a run of bins; answer, stderr, ci_low, ci_high, release id and time) and grant SELECT on it to a reporting role that needs no other right; publishing again under the same name switches the view to the new release';

CREATE FUNCTION dpm.unpublish(view_name text) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  v record := dpm._view_name(unpublish.view_name);
  qualified text := format('%I.%I', v.schema_name, v.rel_name);
BEGIN
  IF NOT EXISTS (SELECT 1 FROM dpm.publications p WHERE p.view_name = qualified) THEN
    RAISE EXCEPTION 'view % is not a dpmatrix publication', qualified
      USING ERRCODE = 'undefined_object', HINT = 'Publications are listed in dpm.publications.';
  END IF;
  IF NOT has_schema_privilege(dpm._invoker(), v.schema_name, 'CREATE') THEN
    RAISE EXCEPTION 'permission denied to drop %', qualified USING ERRCODE = 'insufficient_privilege';
  END IF;
  EXECUTE format('DROP VIEW IF EXISTS %s', qualified);
  DELETE FROM dpm.publications p WHERE p.view_name = qualified;
END
$$;
COMMENT ON FUNCTION dpm.unpublish(text) IS 'drop a view made by dpm.publish';

CREATE FUNCTION dpm.budget(source regclass, delta float8 DEFAULT NULL)
RETURNS TABLE(model text, epsilon_budget numeric, epsilon_spent numeric, epsilon_remaining numeric,
              delta_budget numeric, delta_spent numeric, delta_remaining numeric,
              rho_budget numeric, rho_spent numeric, rho_remaining numeric,
              implied_epsilon numeric, releases bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
  src dpm.sources := dpm._source(budget.source);
BEGIN
  IF budget.delta IS NOT NULL AND (NOT dpm._finite(budget.delta) OR budget.delta <= 0 OR budget.delta >= 1) THEN
    RAISE EXCEPTION 'delta must be in (0, 1), got %', budget.delta USING ERRCODE = 'invalid_parameter_value';
  END IF;
  RETURN QUERY
    SELECT src.model,
           src.budget_epsilon, CASE WHEN src.model <> 'zcdp' THEN e END, src.budget_epsilon - e,
           src.budget_delta, CASE WHEN src.model <> 'zcdp' THEN d END, src.budget_delta - d,
           src.budget_rho, r, src.budget_rho - r,
           CASE WHEN src.model = 'zcdp' AND r > 0 THEN dpm._zcdp_epsilon(r, budget.delta) END,
           n
      FROM (SELECT coalesce(sum(l.epsilon), 0) AS e, coalesce(sum(l.delta), 0) AS d,
                   CASE WHEN src.model = 'zcdp' THEN coalesce(sum(l.rho), 0) END AS r,
                   count(l.release_id) AS n
              FROM dpm.ledger l WHERE l.source_id = src.id) s;
END
$$;
COMMENT ON FUNCTION dpm.budget(regclass, float8) IS
  'privacy budget of a source: total, spent and remaining; for a zCDP source and a given delta, the epsilon its spending implies';

-- Every internal function (name starting with "_") says so in \df+ and a BI catalog browser.
DO $$
DECLARE
  f regprocedure;
BEGIN
  FOR f IN SELECT p.oid FROM pg_catalog.pg_proc p
            WHERE p.pronamespace = 'dpm'::regnamespace AND p.proname ~ '^_'
              AND pg_catalog.obj_description(p.oid, 'pg_proc') IS NULL LOOP
    EXECUTE pg_catalog.format('COMMENT ON FUNCTION %s IS %L', f,
                              'internal to dpmatrix (called by its public functions); not a stable interface');
  END LOOP;
END
$$;

-- Long work in progress, every session's (needs dpmatrix in shared_preload_libraries, see
-- src/progress/progress.h; empty with a NOTICE otherwise).
-- Each role sees the work done for the roles it belongs to (its own optimizations, and the release
-- workers serving its releases); custodians see all.
CREATE FUNCTION dpm.progress_rows()
RETURNS TABLE(pid int, activity text, iteration int, objective float8, gap float8,
              started timestamptz, updated timestamptz)
AS 'MODULE_PATHNAME', 'dpm_progress' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION dpm.progress_rows() IS 'the rows of the view dpm.progress: long work running now for the roles the caller belongs to (custodians: every role)';
CREATE VIEW dpm.progress AS
  SELECT p.pid, p.activity, p.iteration, p.objective, p.gap, p.started, p.updated,
         p.updated - p.started AS elapsed
    FROM dpm.progress_rows() p;
COMMENT ON VIEW dpm.progress IS
  'optimizations and simulations running now in any session: backend pid (join pg_stat_activity), activity, iteration, objective, gap, start and last update; needs dpmatrix in shared_preload_libraries, NOTICE lines (dpm.progress_interval) work without it';

------------------------------------------------------------------------------------------------
-- Privileges.  Nothing is granted to PUBLIC except the pure functions, which read no data.
------------------------------------------------------------------------------------------------

REVOKE ALL ON ALL TABLES IN SCHEMA dpm FROM PUBLIC;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA dpm FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA dpm FROM PUBLIC;
GRANT USAGE ON SCHEMA dpm TO PUBLIC;
GRANT EXECUTE ON FUNCTION
  dpm.sensitivity(float8[], text), dpm.error_profile(float8[]), dpm.gaussian_sigma(float8, float8, float8),
  dpm.gaussian_epsilon(float8, float8, float8), dpm.gaussian_delta(float8, float8, float8),
  dpm.expected_error(float8[], float8[], float8, float8), dpm.total_error(float8[], float8[], float8, float8),
  dpm.reconstruct(float8[], float8[], text), dpm.strategy(float8[], text, jsonb),
  dpm.svd_bound(float8[], float8, float8), dpm.gram_root(float8[]),
  dpm.mechanism(float8[], float8[], float8[], float8, float8, float8, float8, text, float8), dpm.noise(text, float8, int),
  dpm.histogram(int, int)
  TO PUBLIC;
GRANT SELECT ON dpm.sources, dpm.domains, dpm.workloads, dpm.strategies, dpm.releases,
                dpm.release_answers, dpm.ledger, dpm.publications, dpm.progress TO dpm_analyst;
GRANT EXECUTE ON FUNCTION
  dpm.create_workload(text, text, text), dpm.create_workload(text, text, float8[], float8[]),
  dpm.optimize(text, text, float8, float8, jsonb, float8),
  dpm.compare_strategies(text, float8, float8, float8),
  dpm.fitness_privacy(int, float8, float8, float8), dpm.privacy_profile(int),
  dpm.answer(text, float8, float8, float8, int, text, jsonb, text, float8), dpm.release(bigint),
  dpm.budget(regclass, float8),
  dpm.explain(text, float8, float8, float8, int, text, jsonb, float8),
  dpm.explain_queries(text, float8, float8, float8, int, text, jsonb, float8),
  dpm.progress_rows()
  TO dpm_analyst;
GRANT EXECUTE ON FUNCTION
  dpm.register_source(regclass, name, int, float8, float8, float8),
  dpm.set_budget(regclass, float8, float8, float8),
  dpm.create_domain(text, regclass, jsonb), dpm.exact_answers(text),
  dpm.publish(bigint, text, regrole), dpm.unpublish(text),
  -- a release's scan runs as the domain's creator, a custodian: it picks each privacy unit's rows
  dpm._random_key()
  TO dpm_admin;
