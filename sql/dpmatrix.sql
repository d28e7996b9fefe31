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

CREATE FUNCTION dpm.reconstruct(a float8[], y float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_reconstruct' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpm.reconstruct(float8[], float8[]) IS
  'least-squares estimate x minimizing ||a x - y|| (SVD based, minimum norm when a is rank deficient)';

CREATE FUNCTION dpm.strategy(w float8[], method text, options jsonb DEFAULT '{}') RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_strategy' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dpm.strategy(float8[], text, jsonb) IS
  'a strategy matrix for workload w: method identity, workload, hierarchical (option "branching", default 2) or wavelet';

-- Runs the mechanism on a data vector the caller already has: no catalog data, no budget.
-- Useful to study a strategy on synthetic data; dpm.answer is the same mechanism on a source.
CREATE FUNCTION dpm.mechanism(w float8[], a float8[], x float8[], epsilon float8, delta float8 DEFAULT 0,
                              sensitivity_scale float8 DEFAULT 1)
RETURNS TABLE(query int, answer float8, stderr float8)
AS 'MODULE_PATHNAME', 'dpm_mechanism' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED ROWS 100;
COMMENT ON FUNCTION dpm.mechanism(float8[], float8[], float8[], float8, float8, float8) IS
  'answers workload w on the caller''s own vector x through strategy a with fresh Laplace (delta = 0) or Gaussian noise';

CREATE FUNCTION dpm.noise(distribution text, scale float8, count int) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_noise' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION dpm.noise(text, float8, int) IS
  'count draws of the secure noise used by the mechanisms: ''laplace'' (scale b) or ''gaussian'' (standard deviation)';

-- Internal: parses a workload spec over a domain's attributes (see dpm.create_workload).
CREATE FUNCTION dpm._workload_matrix(spec text, attr_names text[], attr_sizes int[],
                                     bin_labels text[], bin_lo float8[], bin_hi float8[],
                                     OUT matrix float8[], OUT labels text[])
AS 'MODULE_PATHNAME', 'dpm_workload_matrix' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

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
