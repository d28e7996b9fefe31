-- Matrix functions: matrices in, numbers out; no data, no budget (src/api, src/linalg,
-- src/strategy, src/hdmm, src/mechanism, src/workload).

CREATE OR REPLACE FUNCTION dpm.sensitivity(a float8[], norm text DEFAULT 'l1') RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_sensitivity' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpm.sensitivity(float8[], text) IS
  'largest L1 (norm => ''l1'') or L2 (''l2'') column norm of a query matrix: how much one record can move its answers';

CREATE OR REPLACE FUNCTION dpm.error_profile(a float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_error_profile' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpm.error_profile(float8[]) IS
  'the error profile (A^T A)^+ of a strategy: the covariance of its least-squares cell estimates per unit noise variance';

CREATE OR REPLACE FUNCTION dpm.gaussian_sigma(epsilon float8, delta float8, sensitivity float8 DEFAULT 1)
RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_gaussian_sigma' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpm.gaussian_sigma(float8, float8, float8) IS
  'smallest noise standard deviation that makes the Gaussian mechanism (epsilon, delta)-DP for the given L2 sensitivity (analytic Gaussian mechanism, exact for every epsilon)';

CREATE OR REPLACE FUNCTION dpm.gaussian_epsilon(delta float8, sigma float8, sensitivity float8 DEFAULT 1)
RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_gaussian_epsilon' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpm.gaussian_epsilon(float8, float8, float8) IS
  'least epsilon at which Gaussian noise of standard deviation sigma on queries of this L2 sensitivity is (epsilon, delta)-DP (exact)';

CREATE OR REPLACE FUNCTION dpm.gaussian_delta(epsilon float8, sigma float8, sensitivity float8 DEFAULT 1)
RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_gaussian_delta' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpm.gaussian_delta(float8, float8, float8) IS
  'least delta at which Gaussian noise of standard deviation sigma on queries of the given L2 sensitivity is (epsilon, delta)-DP (fitness-for-use Corollary 1): one point of the mechanism''s privacy curve';

-- Internal: the standard deviation the secure sampler really adds for sigma (its grid allowance
-- included), and the L2 norm of each column of a matrix (the privacy profile of unit noise on it).
CREATE OR REPLACE FUNCTION dpm_internal.gaussian_actual_sd(m int, sensitivity float8, sigma float8) RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_gaussian_actual_sd_sql' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dpm_internal.column_norms(a float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_column_norms' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dpm.expected_error(w float8[], a float8[], epsilon float8, delta float8 DEFAULT NULL)
RETURNS TABLE(query int, variance float8)
AS 'MODULE_PATHNAME', 'dpm_expected_error' LANGUAGE C IMMUTABLE PARALLEL SAFE ROWS 100;
COMMENT ON FUNCTION dpm.expected_error(float8[], float8[], float8, float8) IS
  'expected squared error of each workload query answered with strategy a: Laplace noise when delta = 0, Gaussian otherwise';

CREATE OR REPLACE FUNCTION dpm.total_error(w float8[], a float8[], epsilon float8, delta float8 DEFAULT NULL)
RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_total_error' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dpm.total_error(float8[], float8[], float8, float8) IS
  'sum of dpm.expected_error over the workload';

CREATE OR REPLACE FUNCTION dpm.reconstruct(a float8[], y float8[], inference text DEFAULT 'ls') RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_reconstruct' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpm.reconstruct(float8[], float8[], text) IS
  'estimate x from strategy answers y by inference ls (least squares, minimum norm), nnls (the same over x >= 0) or nnls_integer (that rounded to integers)';

CREATE OR REPLACE FUNCTION dpm.strategy(w float8[], method text, options jsonb DEFAULT '{}') RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_strategy' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpm.strategy(float8[], text, jsonb) IS
  'a strategy matrix for workload w by a method (dpm.strategy_methods lists them and their options)';

CREATE OR REPLACE FUNCTION dpm.svd_bound(w float8[], epsilon float8 DEFAULT NULL, delta float8 DEFAULT NULL) RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_svd_bound' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dpm.svd_bound(float8[], float8, float8) IS
  'lower bound on the total squared error of any strategy for w at the given privacy (none when epsilon is NULL): the SVD bound';

CREATE OR REPLACE FUNCTION dpm.gram_root(g float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_gram_root' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpm.gram_root(float8[]) IS
  'R with R^T R = g (g = W^T W symmetric positive semidefinite): a workload of at most n queries with the same total error and SVD bound as W under every strategy';

-- Internal: a strategy with its optimizer's report, for dpm.optimize.
CREATE OR REPLACE FUNCTION dpm_internal.strategy_report(w float8[], method text, options jsonb,
                                     OUT matrix float8[], OUT iterations int, OUT objective float8,
                                     OUT lower_bound float8)
AS 'MODULE_PATHNAME', 'dpm_strategy_report' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The registry of strategy methods (src/strategy/methods.c), in the order method auto tries them.
CREATE OR REPLACE FUNCTION dpm.strategy_methods()
RETURNS TABLE(method text, in_auto boolean, applies_to text, options text[], memory_per_n2 float8)
AS 'MODULE_PATHNAME', 'dpm_strategy_methods' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 12;
COMMENT ON FUNCTION dpm.strategy_methods() IS
  'the strategy methods, in the order method auto tries them: whether auto tries each and on what, its options and its peak memory per n^2 cells';

-- The decisions the registry makes for dpm.optimize, method auto and dpm.compare_strategies
-- (src/api/methods_api.c), so that no SQL names a method.  Why a method is not tried on a workload
-- of queries over n cells (NULL: a wide domain), given as a spec, kept as its spec without W, of
-- rank rank_w (NULL: not known yet): by auto under noise, or (noise NULL) by compare_strategies;
-- NULL when it is tried.
CREATE OR REPLACE FUNCTION dpm_internal.method_rules_out(method text, n int, is_spec boolean, kept_as_spec boolean,
                                                          queries float8, rank_w int, noise text DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'dpm_method_rules_out' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- The methods tried for method: auto's candidates in its order under noise over n cells, or the one named.
CREATE OR REPLACE FUNCTION dpm_internal.auto_candidates(method text, noise text, n int) RETURNS text[]
AS 'MODULE_PATHNAME', 'dpm_auto_candidates' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- Whether a method's build finds its own lower bound (auto need not compute the workload's for
-- it); whether its strategy has rank(W) rows; whether its lower_bound bounds every strategy's error.
CREATE OR REPLACE FUNCTION dpm_internal.method_traits(method text, OUT own_bound boolean, OUT rows_are_rank boolean,
                                                       OUT certifies boolean)
AS 'MODULE_PATHNAME', 'dpm_method_traits' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Whether a strategy of this method and options is built to meet variance targets (fitness, or
-- residual with option targets), which then decide its charge.
CREATE OR REPLACE FUNCTION dpm_internal.has_targets(method text, options jsonb) RETURNS boolean
AS 'MODULE_PATHNAME', 'dpm_has_targets' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- Runs the mechanism on a data vector the caller already has: no catalog data, no budget.
-- Useful to study a strategy on synthetic data; dpm.answer is the same mechanism on a source.
CREATE OR REPLACE FUNCTION dpm.mechanism(w float8[], a float8[], x float8[], epsilon float8 DEFAULT NULL,
                              delta float8 DEFAULT NULL, rho float8 DEFAULT NULL,
                              sensitivity_scale float8 DEFAULT 1, inference text DEFAULT 'ls',
                              confidence float8 DEFAULT 0.95)
RETURNS TABLE(query int, answer float8, stderr float8, ci_low float8, ci_high float8, ci_draws int)
AS 'MODULE_PATHNAME', 'dpm_mechanism' LANGUAGE C VOLATILE PARALLEL RESTRICTED ROWS 100;

-- The same in two steps, as a release runs it: its noisy measurements through strategy a (kept
-- in dpm.release_measurements), then the answers of w from them, with the strategy's cache
-- (dpm_internal.strategy_cache) as stored (pinv NULL: computed), by any inference, at no cost.
CREATE OR REPLACE FUNCTION dpm_internal.dense_measure(a float8[], x float8[], epsilon float8 DEFAULT NULL,
                                   delta float8 DEFAULT 0, sensitivity_scale float8 DEFAULT 1,
                                   rho float8 DEFAULT NULL)
RETURNS dpm.release_measurements
AS 'MODULE_PATHNAME', 'dpm_dense_measure' LANGUAGE C VOLATILE PARALLEL RESTRICTED;

CREATE OR REPLACE FUNCTION dpm_internal.dense_infer(w float8[], a float8[], pinv float8[], profile float8[],
                                 measurements dpm.release_measurements, inference text DEFAULT 'ls',
                                 confidence float8 DEFAULT 0.95)
RETURNS TABLE(query int, answer float8, stderr float8, ci_low float8, ci_high float8, ci_draws int)
AS 'MODULE_PATHNAME', 'dpm_dense_infer' LANGUAGE C VOLATILE PARALLEL RESTRICTED ROWS 100;

-- Internal, for tests (src/mechanism/exact.c): what the mechanism measures before any noise.
CREATE OR REPLACE FUNCTION dpm_internal.exact_matvec(a float8[], x float8[], grid_exp int,
                                  OUT units numeric[], OUT l1 float8, OUT l2 float8)
AS 'MODULE_PATHNAME', 'dpm_exact_matvec' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpm_internal.exact_matvec(float8[], float8[], int) IS
  'internal to dpmatrix (tests), not a stable interface: the exact strategy answers a x that the mechanism adds noise to, a quantized as measured and x integer counts, rounded to the grid 2^grid_exp (halves up) in grid units, and the L1 and L2 sensitivity bounds the noise is calibrated for';

CREATE OR REPLACE FUNCTION dpm_internal.hdmm_exact_matvec(sizes int[], kind text, p int[], theta float8[], weights float8[],
                                       x float8[], grid_exp int,
                                       OUT units numeric[], OUT l1 float8, OUT l2 float8)
AS 'MODULE_PATHNAME', 'dpm_hdmm_exact_matvec' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dpm_internal.hdmm_exact_matvec(int[], text, int[], float8[], float8[], float8[], int) IS
  'internal to dpmatrix (tests), not a stable interface: dpm_internal.exact_matvec for an HDMM strategy (sizes, kind, p, theta, weights as in dpm.kronecker_strategy)';

CREATE OR REPLACE FUNCTION dpm_internal.strategy_memory_mb(method text, m int, n int) RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_strategy_memory_mb' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- A method's options (names and values) checked as its builder reads them, building nothing: for
-- a workload given as a spec (is_spec) or as a matrix (src/api/strategy_api.c).
CREATE OR REPLACE FUNCTION dpm_internal.check_method_options(method text, options jsonb, is_spec boolean) RETURNS void
AS 'MODULE_PATHNAME', 'dpm_check_method_options' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dpm_internal.strategy_cache(w float8[], a float8[], OUT pinv float8[], OUT profile float8[])
AS 'MODULE_PATHNAME', 'dpm_strategy_cache' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- Its profile alone, by a Cholesky factor of A^T A where A allows (a fraction of the SVD's work):
-- how method auto ranks candidates, of which only the one chosen needs the pseudo-inverse.
CREATE OR REPLACE FUNCTION dpm_internal.strategy_profile(w float8[], a float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_strategy_profile' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpm.mechanism(float8[], float8[], float8[], float8, float8, float8, float8, text, float8) IS
  'answer workload w on your own vector x through strategy a with fresh noise (Laplace, Gaussian or zCDP), with standard errors and intervals; no budget';

CREATE OR REPLACE FUNCTION dpm.noise(distribution text, scale float8, count int) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_noise' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION dpm.noise(text, float8, int) IS
  'count draws of the secure noise used by the mechanisms: ''laplace'' (scale b) or ''gaussian'' (standard deviation)';

-- A domain value with only what the spec functions read (attributes and bins): for tests and
-- benchmarks, which call them without a domain in the catalog.
CREATE OR REPLACE FUNCTION dpm_internal.domain_of(attr_names text[], attr_sizes int[], bin_labels text[],
                                   bin_lo float8[], bin_hi float8[]) RETURNS dpm.domains
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  -- n: the cells, or NULL (wide) past dpm.max_cells, as dpm.create_domain decides
  SELECT ROW(NULL, NULL, NULL, NULL, attr_names, attr_sizes, bin_labels, bin_lo, bin_hi, NULL, NULL,
             CASE WHEN c.cells <= dpm_internal.max_cells() THEN c.cells::int END, NULL, NULL, c.cells, NULL)::dpm.domains
    FROM (SELECT CASE WHEN bool_and(s > 0) THEN coalesce(round(exp(sum(ln(greatest(s, 1))))), 1) ELSE 0 END::numeric AS cells
            FROM unnest(attr_sizes) s) c
$$;

-- Internal: parses a workload spec over a domain's attributes (see dpm.create_workload).  Every
-- function of a spec takes its domain as one value, a row of dpm.domains (src/api/workload_api.h).
CREATE OR REPLACE FUNCTION dpm_internal.workload_matrix(spec text, dom dpm.domains,
                                     dense boolean DEFAULT true, with_spans boolean DEFAULT true,
                                     OUT matrix float8[], OUT labels text[], OUT weights float8[],
                                     OUT spans int[])
AS 'MODULE_PATHNAME', 'dpm_workload_matrix' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Internal: each query's number, label and (with_spans) first and last bin per attribute, made from
-- the spec and streamed: a wide domain's workload keeps none of them (src/api/workload_api.c).
CREATE OR REPLACE FUNCTION dpm_internal.workload_queries(spec text, dom dpm.domains, with_spans boolean DEFAULT false)
RETURNS TABLE(query int, label text, spans int[])
AS 'MODULE_PATHNAME', 'dpm_workload_queries' LANGUAGE C STABLE STRICT;

-- dpm.max_matrix_mb in bytes: what a workload's W may take (sql/18_workloads.sql, strategy_build).
CREATE OR REPLACE FUNCTION dpm_internal.max_matrix_bytes() RETURNS float8
LANGUAGE sql STABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$ SELECT s.setting::float8 * 1048576 FROM pg_settings s WHERE s.name = 'dpm.max_matrix_mb' $$;

CREATE OR REPLACE FUNCTION dpm_internal.scale_rows(w float8[], weights float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_scale_rows' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Internal: W^T W of a workload spec without building W (the closed forms of src/workload/spec_gram.c).
CREATE OR REPLACE FUNCTION dpm_internal.workload_gram(spec text, dom dpm.domains) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_workload_gram' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Fitness for use (src/fitness): the noise covariance Sigma on B x meeting per-query variance
-- targets at the least privacy cost, with its basis B and the strategy C^-1 B (Sigma = C C^T) that
-- method fitness stores.  For tests and inspection; options as for dpm.optimize.
CREATE OR REPLACE FUNCTION dpm_internal.fitness(w float8[], options jsonb,
                             OUT sigma float8[], OUT basis float8[], OUT strategy float8[],
                             OUT privacy_cost float8, OUT iterations int)
AS 'MODULE_PATHNAME', 'dpm_fitness' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- HDMM strategies for a spec (src/api/hdmm_api.c): optimized from the factors of W^T W
CREATE OR REPLACE FUNCTION dpm_internal.hdmm(spec text, dom dpm.domains, options jsonb DEFAULT '{}',
                          OUT kind text, OUT objective float8, OUT evaluations int, OUT sizes int[],
                          OUT p int[], OUT theta float8[], OUT weights float8[])
AS 'MODULE_PATHNAME', 'dpm_hdmm' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- ResidualPlanner's plans (src/strategy/residual/residual.h) for marginals over attributes of the given
-- sizes: row j of marginals lists the attributes (1-based, 0 pads) marginal j keeps.  One row per
-- residual measured: its attributes, dimension, weight mu and noise variance, and the plan's
-- squared L2 sensitivity (cost2), duality gap and iterations.  residual_plan: the closed form for
-- the sum of the cells' variances (weighted by weights^2) at cost2 = 1, where that sum is
-- sum rows * mu * variance.  residual_targets: the least cost2 with every cell of marginal j at
-- variance <= targets[j] (default 1: the least largest variance).
CREATE OR REPLACE FUNCTION dpm_internal.residual_plan(sizes int[], marginals int[], weights float8[] DEFAULT NULL)
RETURNS TABLE(subset int[], rows float8, mu float8, variance float8, cost2 float8, gap float8, iterations int)
AS 'MODULE_PATHNAME', 'dpm_residual_plan' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- The dense strategy a plan stands for (small domains, for tests): for each residual (a row of
-- subsets, 1-based, 0 pads) with noise variance v, the projection of its marginal onto the residual,
-- scaled by 1 / sqrt(v).
CREATE OR REPLACE FUNCTION dpm_internal.residual_matrix(sizes int[], subsets int[], variances float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_residual_matrix' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- One release of the sum plan on the caller's own vector x over a small domain, at rho-zCDP for one
-- record (for tests; a release reads its marginal tables from the source): every cell of every
-- marginal with its answer and variance.
CREATE OR REPLACE FUNCTION dpm_internal.residual_mechanism(sizes int[], marginals int[], weights float8[], x float8[],
                                                           rho float8)
RETURNS TABLE(marginal int, cell int, answer float8, variance float8)
AS 'MODULE_PATHNAME', 'dpm_residual_mechanism' LANGUAGE C VOLATILE PARALLEL RESTRICTED;

CREATE OR REPLACE FUNCTION dpm_internal.residual_targets(sizes int[], marginals int[], targets float8[] DEFAULT NULL,
                                                         tol float8 DEFAULT 1e-9, max_iter int DEFAULT 10000)
RETURNS TABLE(subset int[], rows float8, mu float8, variance float8, cost2 float8, gap float8, iterations int)
AS 'MODULE_PATHNAME', 'dpm_residual_targets' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- Method residual over a spec of marginals (src/api/residual_release_api.c), on any domain, wide
-- ones included.  residual_build: the plan for options' loss (sum or max of the weighted
-- variances), kept as its residuals' attribute sets (1-based, 0 pads) and variances at unit L2
-- sensitivity, with what dpm.strategies records of it (bound: the SVD bound, T^2).
CREATE OR REPLACE FUNCTION dpm_internal.residual_build(spec text, dom dpm.domains, options jsonb DEFAULT '{}',
                                    OUT subsets int[], OUT variances float8[], OUT rows int,
                                    OUT sensitivity_l1 float8, OUT cost2 float8, OUT profile_trace float8,
                                    OUT max_profile float8, OUT bound float8, OUT iterations int, OUT gap float8)
AS 'MODULE_PATHNAME', 'dpm_residual_build' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The attribute sets of the marginal tables a release of the spec reads (dpm_internal.marginal_tables):
-- the workload's, and a Laplace plan's own (sets, NULL for none).
CREATE OR REPLACE FUNCTION dpm_internal.residual_table_sets(spec text, dom dpm.domains, sets int[] DEFAULT NULL)
RETURNS int[]
AS 'MODULE_PATHNAME', 'dpm_residual_table_sets' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- One release of a stored plan from those tables, in two steps: its noisy measurements, at
-- rho-zCDP (rho given), (epsilon, delta)-DP or epsilon-DP (a Laplace plan) for scale records per
-- privacy unit (tables NULL: only the samplers' checks, drawing nothing, and NULL back); then
-- the answers from them, by least squares (ls) or non-negative least squares (nnls).
CREATE OR REPLACE FUNCTION dpm_internal.residual_measure(spec text, dom dpm.domains, subsets int[], plan float8[],
                                      cost2 float8, tables float8[], epsilon float8, delta float8,
                                      scale float8, rho float8, confidence float8)
RETURNS dpm.release_measurements
AS 'MODULE_PATHNAME', 'dpm_residual_measure' LANGUAGE C VOLATILE PARALLEL RESTRICTED;

CREATE OR REPLACE FUNCTION dpm_internal.residual_infer(spec text, dom dpm.domains, subsets int[], plan float8[],
                                    measurements dpm.release_measurements, inference text DEFAULT 'ls',
                                    confidence float8 DEFAULT 0.95)
RETURNS TABLE(query int, answer float8, stderr float8, ci_low float8, ci_high float8, ci_draws int)
AS 'MODULE_PATHNAME', 'dpm_residual_infer' LANGUAGE C VOLATILE PARALLEL RESTRICTED;

-- The spec's true answers from the same tables.
CREATE OR REPLACE FUNCTION dpm_internal.residual_exact(spec text, dom dpm.domains, tables float8[])
RETURNS TABLE(query int, answer float8, stderr float8, ci_low float8, ci_high float8, ci_draws int)
AS 'MODULE_PATHNAME', 'dpm_residual_exact' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- A residual plan's measurements written out over a dense domain, part after part (src/api/residual_release_api.c)
CREATE OR REPLACE FUNCTION dpm_internal.residual_parts_matrix(spec text, dom dpm.domains, subsets int[], plan float8[],
                                                               laplace boolean) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_residual_parts_matrix' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dpm_internal.hdmm_matrix(sizes int[], kind text, p int[], theta float8[], weights float8[])
RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_hdmm_matrix' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dpm_internal.hdmm_sensitivity(sizes int[], kind text, p int[], theta float8[], weights float8[],
                                      norm int) RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_hdmm_matrix' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dpm_internal.hdmm_rows(sizes int[], kind text, p int[], theta float8[], weights float8[])
RETURNS int
AS 'MODULE_PATHNAME', 'dpm_hdmm_rows' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dpm_internal.hdmm_profile(spec text, dom dpm.domains, kind text, p int[], theta float8[],
                                  weights float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_hdmm_profile' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dpm_internal.hdmm_reconstruct(spec text, dom dpm.domains, kind text, p int[],
                                      theta float8[], weights float8[], y float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_hdmm_reconstruct' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dpm_internal.hdmm_mechanism(spec text, dom dpm.domains, kind text, p int[], theta float8[],
                                    weights float8[], x float8[], epsilon float8 DEFAULT NULL,
                                    delta float8 DEFAULT 0, sensitivity_scale float8 DEFAULT 1,
                                    rho float8 DEFAULT NULL, inference text DEFAULT 'ls',
                                    confidence float8 DEFAULT 0.95)
RETURNS TABLE(query int, answer float8, stderr float8, ci_low float8, ci_high float8, ci_draws int)
AS 'MODULE_PATHNAME', 'dpm_hdmm_mechanism' LANGUAGE C VOLATILE PARALLEL RESTRICTED ROWS 100;

-- hdmm_mechanism in two steps (dense_measure, dense_infer)
CREATE OR REPLACE FUNCTION dpm_internal.hdmm_measure(spec text, dom dpm.domains, kind text, p int[], theta float8[],
                                  weights float8[], x float8[], epsilon float8 DEFAULT NULL,
                                  delta float8 DEFAULT 0, sensitivity_scale float8 DEFAULT 1,
                                  rho float8 DEFAULT NULL)
RETURNS dpm.release_measurements
AS 'MODULE_PATHNAME', 'dpm_hdmm_measure' LANGUAGE C VOLATILE PARALLEL RESTRICTED;

CREATE OR REPLACE FUNCTION dpm_internal.hdmm_infer(spec text, dom dpm.domains, kind text, p int[], theta float8[],
                                weights float8[], measurements dpm.release_measurements,
                                inference text DEFAULT 'ls', confidence float8 DEFAULT 0.95)
RETURNS TABLE(query int, answer float8, stderr float8, ci_low float8, ci_high float8, ci_draws int)
AS 'MODULE_PATHNAME', 'dpm_hdmm_infer' LANGUAGE C VOLATILE PARALLEL RESTRICTED ROWS 100;

-- A stored strategy's concerns, whatever its form (dpm.strategies keeps it as matrix, kronecker
-- or residual: exactly one is given, with the noise it was built for).  src/api/strategy_form_api.c
-- hands each call on to the form's own function above; the release's SQL never asks which form.
-- The attribute sets of the marginal tables a release reads (checked against dpm.max_cells), NULL
-- for the frequency vector:
CREATE OR REPLACE FUNCTION dpm_internal.strategy_tables(matrix float8[], kronecker dpm.kronecker_strategy,
                                                         residual dpm.residual_plan, noise text, spec text,
                                                         dom dpm.domains) RETURNS int[]
AS 'MODULE_PATHNAME', 'dpm_strategy_tables' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- the sampler's checks for one part of a release, drawing nothing (release_noise: its noise):
CREATE OR REPLACE FUNCTION dpm_internal.strategy_check(matrix float8[], kronecker dpm.kronecker_strategy,
                                                        residual dpm.residual_plan, noise text, rows int, l1 float8,
                                                        l2 float8, spec text, dom dpm.domains, epsilon float8,
                                                        delta float8, scale float8, rho float8, confidence float8,
                                                        release_noise text) RETURNS void
AS 'MODULE_PATHNAME', 'dpm_strategy_check' LANGUAGE C VOLATILE;

-- the noisy measurements of x (the vector, or the tables strategy_tables names):
CREATE OR REPLACE FUNCTION dpm_internal.strategy_measure(matrix float8[], kronecker dpm.kronecker_strategy,
                                                          residual dpm.residual_plan, noise text, l2 float8, spec text,
                                                          dom dpm.domains, x float8[], epsilon float8, delta float8,
                                                          scale float8, rho float8, confidence float8)
RETURNS dpm.release_measurements
AS 'MODULE_PATHNAME', 'dpm_strategy_measure' LANGUAGE C VOLATILE PARALLEL RESTRICTED;

-- the workload's answers from them (w, pinv, profile: a dense strategy's; w NULL: from the spec):
CREATE OR REPLACE FUNCTION dpm_internal.strategy_infer(matrix float8[], kronecker dpm.kronecker_strategy,
                                                        residual dpm.residual_plan, noise text, w float8[],
                                                        pinv float8[], profile float8[], spec text, dom dpm.domains,
                                                        measurements dpm.release_measurements, inference text,
                                                        confidence float8)
RETURNS TABLE(query int, answer float8, stderr float8, ci_low float8, ci_high float8, ci_draws int)
AS 'MODULE_PATHNAME', 'dpm_strategy_infer' LANGUAGE C VOLATILE PARALLEL RESTRICTED ROWS 100;

-- what it measured, one row a value of its measurements, over dom's dense cells (NULL without):
CREATE OR REPLACE FUNCTION dpm_internal.strategy_matrix(matrix float8[], kronecker dpm.kronecker_strategy,
                                                         residual dpm.residual_plan, noise text, spec text,
                                                         dom dpm.domains) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_strategy_matrix' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- A privacy unit in at most groups cells (dpm.sources.max_groups), by at most c in each, moves what
-- the strategy measures by at most c * factor * its largest column norm, in the norm the release's
-- noise is calibrated for (L1 for Laplace noise, L2 otherwise): the least of the proven bounds of
-- src/mechanism/groups.h, at most groups (src/api/strategy_form_api.c):
CREATE OR REPLACE FUNCTION dpm_internal.strategy_group_factor(matrix float8[], kronecker dpm.kronecker_strategy,
                                                               residual dpm.residual_plan, noise text, spec text,
                                                               dom dpm.domains, groups int, release_noise text)
RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_strategy_group_factor' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- the same for each form (tests check them against every pattern of a unit's cells):
CREATE OR REPLACE FUNCTION dpm_internal.dense_group_factor(a float8[], groups int, norm int) RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_dense_group_factor' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION dpm_internal.hdmm_group_factor(sizes int[], kind text, p int[], theta float8[], weights float8[],
                                                           groups int, norm int) RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_hdmm_group_factor' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION dpm_internal.residual_group_factor(spec text, dom dpm.domains, subsets int[], variances float8[],
                                                               groups int) RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_residual_group_factor' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dpm_internal.spec_term_rows(spec text, dom dpm.domains) RETURNS int[]
AS 'MODULE_PATHNAME', 'dpm_spec_term_rows' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dpm_internal.spec_svd_bound(spec text, dom dpm.domains) RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_spec_svd_bound' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dpm_internal.spec_matvec(spec text, dom dpm.domains, x float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_spec_matvec' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dpm_internal.matvec(w float8[], x float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_matvec' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
