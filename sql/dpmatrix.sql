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

------------------------------------------------------------------------------------------------
-- Catalog.  Rows are kept by pg_dump (pg_extension_config_dump) and written only through the
-- functions below.  Budgets and charges are numeric so that sums are exact.
------------------------------------------------------------------------------------------------

CREATE TABLE dpm.sources (
  id                serial PRIMARY KEY,
  relation          regclass NOT NULL UNIQUE,
  privacy_unit      name,
  max_contributions int NOT NULL DEFAULT 1 CHECK (max_contributions >= 1),
  -- 'pure': epsilon-DP, Laplace only, sequential composition.
  -- 'approx': (epsilon, delta)-DP by basic composition; Laplace or Gaussian.
  model             text NOT NULL CHECK (model IN ('pure', 'approx')),
  budget_epsilon    numeric NOT NULL CHECK (budget_epsilon > 0),
  budget_delta      numeric NOT NULL DEFAULT 0 CHECK (budget_delta >= 0 AND budget_delta < 1),
  registered_by     name NOT NULL DEFAULT current_user,
  registered_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE dpm.sources IS 'protected relations, their privacy unit and total privacy budget';

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
  cell_expr   text NOT NULL,             -- SQL expression giving a row's cell index (NULL: no cell)
  n           int NOT NULL CHECK (n >= 1),
  created_by  name NOT NULL DEFAULT current_user,
  created_at  timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE dpm.domains IS 'the cells of a frequency vector over a source; cell_expr is built from the custodian''s definition';

CREATE TABLE dpm.workloads (
  id          serial PRIMARY KEY,
  name        text NOT NULL UNIQUE,
  domain_id   int NOT NULL REFERENCES dpm.domains ON DELETE CASCADE,
  spec        text,                      -- NULL for an explicit matrix
  matrix      float8[] NOT NULL,         -- m x n, one query a row
  labels      text[] NOT NULL,
  m           int NOT NULL,
  n           int NOT NULL,
  created_by  name NOT NULL DEFAULT current_user,
  created_at  timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE dpm.workloads IS 'batches of linear counting queries over a domain';

CREATE TABLE dpm.strategies (
  id              serial PRIMARY KEY,
  workload_id     int NOT NULL REFERENCES dpm.workloads ON DELETE CASCADE,
  method          text NOT NULL,
  options         jsonb NOT NULL DEFAULT '{}',
  noise           text NOT NULL CHECK (noise IN ('laplace', 'gaussian')),
  matrix          float8[] NOT NULL,
  rows            int NOT NULL,
  sensitivity_l1  float8 NOT NULL,
  sensitivity_l2  float8 NOT NULL,
  -- sum over the workload of w (A^T A)^+ w^T: total error = noise variance * profile_trace
  profile_trace   float8 NOT NULL,
  optimize_ms     float8 NOT NULL,
  created_by      name NOT NULL DEFAULT current_user,
  created_at      timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT strategies_cache_key UNIQUE (workload_id, method, options, noise)
);
COMMENT ON TABLE dpm.strategies IS 'strategy matrices chosen for workloads; reused by dpm.optimize and dpm.answer';

CREATE TABLE dpm.releases (
  id              bigserial PRIMARY KEY,
  source_id       int NOT NULL REFERENCES dpm.sources,
  workload_id     int NOT NULL REFERENCES dpm.workloads,
  strategy_id     int NOT NULL REFERENCES dpm.strategies,
  noise           text NOT NULL,
  epsilon         numeric NOT NULL,
  delta           numeric NOT NULL,
  released_by     name NOT NULL DEFAULT current_user,
  released_at     timestamptz NOT NULL DEFAULT clock_timestamp()
);
COMMENT ON TABLE dpm.releases IS 'one row per run of a mechanism on a source';

CREATE TABLE dpm.release_answers (
  release_id  bigint NOT NULL REFERENCES dpm.releases ON DELETE CASCADE,
  query       int NOT NULL,
  label       text NOT NULL,
  answer      float8 NOT NULL,
  stderr      float8 NOT NULL,
  PRIMARY KEY (release_id, query)
);
COMMENT ON TABLE dpm.release_answers IS 'the noisy answers of each release, replayable at no cost';

-- Append-only record of every charge.  Kept apart from releases so that a later version can make
-- the charge durable before the release exists (a charge with no release is spent budget).
CREATE TABLE dpm.ledger (
  id          bigserial PRIMARY KEY,
  source_id   int NOT NULL REFERENCES dpm.sources,
  release_id  bigint,
  epsilon     numeric NOT NULL CHECK (epsilon >= 0),
  delta       numeric NOT NULL CHECK (delta >= 0),
  charged_by  name NOT NULL DEFAULT current_user,
  charged_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
COMMENT ON TABLE dpm.ledger IS 'every charge against a source''s privacy budget, append-only';
CREATE INDEX ON dpm.ledger (source_id);

SELECT pg_catalog.pg_extension_config_dump('dpm.sources', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.domains', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.workloads', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.strategies', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.releases', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.release_answers', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.ledger', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.sources_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.domains_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.workloads_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.strategies_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.releases_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.ledger_id_seq', '');

REVOKE ALL ON ALL TABLES IN SCHEMA dpm FROM PUBLIC;
GRANT USAGE ON SCHEMA dpm TO PUBLIC;

------------------------------------------------------------------------------------------------
-- Internal helpers
------------------------------------------------------------------------------------------------

CREATE FUNCTION dpm._max_cells() RETURNS int
AS 'MODULE_PATHNAME', 'dpm_max_cells_fn' LANGUAGE C STABLE PARALLEL SAFE;

CREATE FUNCTION dpm._matvec(w float8[], x float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_matvec' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- true for finite numbers (float8 NaN compares greater than everything, so "x > 0" is not enough)
CREATE FUNCTION dpm._finite(x float8) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT x IS NOT NULL AND x NOT IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8) $$;

-- A charge in exact decimal: the float's shortest decimal form rounded UP at 1e-18, so that ten
-- charges of 0.1 spend exactly 1 and no charge is ever below what the noise was calibrated for.
CREATE FUNCTION dpm._charge(x float8) RETURNS numeric
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT trim_scale(ceil(x::text::numeric * 1e18) / 1e18) $$;

-- The parameter handed to the noise calibration: strictly below the charge (a float8 conversion
-- is within half an ulp, about 1.1e-16 relative), so the privacy spent never exceeds the charge.
CREATE FUNCTION dpm._below(c numeric) RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT c::float8 * (1 - 1e-15) $$;

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

-- The source's frequency vector over a domain.  Runs as the extension owner; the cell expression
-- was built by dpm.create_domain from the custodian's definition, never from analyst input.
CREATE FUNCTION dpm._frequency_vector(src dpm.sources, dom dpm.domains) RETURNS float8[]
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  x float8[];
BEGIN
  IF src.privacy_unit IS NULL THEN
    EXECUTE format('SELECT dpm.histogram((%s)::int4, %s) FROM %s', dom.cell_expr, dom.n, src.relation)
      INTO x;
  ELSE
    -- user-level privacy: keep at most max_contributions rows per unit, chosen at random
    EXECUTE format('SELECT dpm.histogram((%s)::int4, %s) FROM '
                   '(SELECT *, row_number() OVER (PARTITION BY %I ORDER BY random()) AS dpm_rank__ FROM %s) s '
                   'WHERE dpm_rank__ <= %s',
                   dom.cell_expr, dom.n, src.privacy_unit, src.relation, src.max_contributions)
      INTO x;
  END IF;
  RETURN coalesce(x, array_fill(0::float8, ARRAY[dom.n]));
END
$$;

------------------------------------------------------------------------------------------------
-- Custodian: sources and domains
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
  IF rho IS NOT NULL THEN
    RAISE EXCEPTION 'zCDP budgets (rho) are not supported yet'
      USING ERRCODE = 'feature_not_supported',
            HINT = 'Register the source with epsilon, and delta > 0 to allow Gaussian noise.';
  END IF;
  IF NOT dpm._finite(epsilon) OR epsilon <= 0 THEN
    RAISE EXCEPTION 'epsilon budget must be a positive finite number, got %', coalesce(epsilon::text, 'NULL')
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF NOT dpm._finite(delta) OR delta < 0 OR delta >= 1 THEN
    RAISE EXCEPTION 'delta budget must be in [0, 1), got %', coalesce(delta::text, 'NULL')
      USING ERRCODE = 'invalid_parameter_value';
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
  INSERT INTO dpm.sources (relation, privacy_unit, max_contributions, model, budget_epsilon, budget_delta)
  VALUES (relation, privacy_unit, max_contributions,
          CASE WHEN delta > 0 THEN 'approx' ELSE 'pure' END,
          dpm._charge(epsilon), dpm._charge(delta));
END
$$;
COMMENT ON FUNCTION dpm.register_source(regclass, name, int, float8, float8, float8) IS
  'register a protected relation with its privacy unit and total budget (epsilon, and delta > 0 to allow Gaussian noise)';

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
      conds := conds || format('%I >= %s AND %I < %s', col, v, col, vhi);
      v := vhi;
    END LOOP;
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
  names text[] := '{}'; sizes int[] := '{}';
  labels text[] := '{}'; los float8[] := '{}'; his float8[] := '{}';
  expr text;
  ncells numeric := 1;
  did int;
BEGIN
  IF name IS NULL OR name = '' THEN
    RAISE EXCEPTION 'domain name must not be empty' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  SELECT * INTO src FROM dpm.sources s WHERE s.relation = source;
  IF NOT FOUND THEN
    RAISE EXCEPTION '"%" is not a registered source', source
      USING ERRCODE = 'undefined_object', HINT = 'Register it first with dpm.register_source.';
  END IF;
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
  -- parse and plan the expression against the source now, so a bad condition fails here
  EXECUTE format('SELECT (%s)::int4 FROM %s LIMIT 0', expr, source);
  INSERT INTO dpm.domains (name, source_id, attributes, attr_names, attr_sizes, bin_labels, bin_lo, bin_hi, cell_expr, n)
  VALUES (name, src.id, attributes, names, sizes, labels, los, his, expr, ncells::int)
  RETURNING id INTO did;
  RETURN ncells::int;
END
$$;
COMMENT ON FUNCTION dpm.create_domain(text, regclass, jsonb) IS
  'define the cells of a frequency vector over a source: attributes with value, interval or condition bins (first match wins); returns the number of cells';

------------------------------------------------------------------------------------------------
-- Analysts: workloads, strategies, answers
------------------------------------------------------------------------------------------------

CREATE FUNCTION dpm._store_workload(wname text, dom dpm.domains, spec text, matrix float8[], labels text[])
RETURNS int
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  m int := array_length(matrix, 1);
BEGIN
  IF wname IS NULL OR wname = '' THEN
    RAISE EXCEPTION 'workload name must not be empty' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF EXISTS (SELECT 1 FROM dpm.workloads w WHERE w.name = wname) THEN
    RAISE EXCEPTION 'workload "%" already exists', wname USING ERRCODE = 'duplicate_object';
  END IF;
  INSERT INTO dpm.workloads (name, domain_id, spec, matrix, labels, m, n)
  VALUES (wname, dom.id, spec, matrix, labels, m, dom.n);
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
  r := dpm._workload_matrix(spec, dom.attr_names, dom.attr_sizes, dom.bin_labels, dom.bin_lo, dom.bin_hi);
  RETURN dpm._store_workload(name, dom, spec, r.matrix, r.labels);
END
$$;
COMMENT ON FUNCTION dpm.create_workload(text, text, text) IS
  'define a workload over a domain with the spec algebra (Identity, Total, Prefix, AllRange, Ranges, Hierarchical, Marginal; * Kronecker product, + union); returns the number of queries';

CREATE FUNCTION dpm.create_workload(name text, domain text, w float8[]) RETURNS int
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
  RETURN dpm._store_workload(name, dom, NULL, w,
    ARRAY(SELECT 'query ' || i FROM generate_series(1, array_length(w, 1)) i));
END
$$;
COMMENT ON FUNCTION dpm.create_workload(text, text, float8[]) IS
  'define a workload over a domain by an explicit matrix, one query a row and one column per cell';

CREATE FUNCTION dpm.optimize(workload text, method text DEFAULT 'auto', epsilon float8 DEFAULT NULL,
                             delta float8 DEFAULT 0, options jsonb DEFAULT '{}')
RETURNS int
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  wl dpm.workloads := dpm._workload(workload);
  noise text;
  sid int;
  best int;
  best_err float8;
  err float8;
  st dpm.strategies;
  t0 timestamptz;
  a float8[];
  l1 float8;
  cand text;
BEGIN
  IF method IS NULL OR options IS NULL THEN
    RAISE EXCEPTION 'method and options must not be NULL' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF epsilon IS NOT NULL AND (NOT dpm._finite(epsilon) OR epsilon <= 0) THEN
    RAISE EXCEPTION 'epsilon must be a positive finite number, got %', epsilon USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF NOT dpm._finite(delta) OR delta < 0 OR delta >= 1 THEN
    RAISE EXCEPTION 'delta must be in [0, 1), got %', coalesce(delta::text, 'NULL') USING ERRCODE = 'invalid_parameter_value';
  END IF;
  noise := CASE WHEN delta > 0 THEN 'gaussian' ELSE 'laplace' END;

  IF method = 'auto' THEN
    -- every candidate is data independent, so choosing by expected error spends no budget.
    -- Total error is (Laplace) 2 (Delta_1/eps)^2 trace or (Gaussian) sigma(eps, delta, 1)^2 Delta_2^2 trace.
    IF options <> '{}' THEN
      RAISE EXCEPTION 'method auto takes no options' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOREACH cand IN ARRAY ARRAY['identity', 'hierarchical', 'wavelet', 'workload'] LOOP
      BEGIN
        sid := dpm.optimize(workload, cand, epsilon, delta, '{}');
      EXCEPTION WHEN invalid_parameter_value OR program_limit_exceeded THEN
        CONTINUE;   -- e.g. the workload as a strategy is too large
      END;
      SELECT * INTO st FROM dpm.strategies s WHERE s.id = sid;
      err := st.profile_trace * CASE noise WHEN 'laplace' THEN st.sensitivity_l1 ^ 2 ELSE st.sensitivity_l2 ^ 2 END;
      IF best IS NULL OR err < best_err THEN
        best := sid; best_err := err;
      END IF;
    END LOOP;
    RETURN best;
  END IF;

  SELECT s.id INTO sid FROM dpm.strategies s
   WHERE s.workload_id = wl.id AND s.method = method AND s.options = options AND s.noise = noise;
  IF FOUND THEN
    RETURN sid;
  END IF;

  t0 := clock_timestamp();
  a := dpm.strategy(wl.matrix, method, options);
  l1 := dpm.sensitivity(a, 'l1');
  INSERT INTO dpm.strategies (workload_id, method, options, noise, matrix, rows, sensitivity_l1, sensitivity_l2,
                              profile_trace, optimize_ms)
  VALUES (wl.id, method, options, noise, a, array_length(a, 1), l1, dpm.sensitivity(a, 'l2'),
          -- Laplace total error at epsilon = 1 is 2 Delta_1^2 trace
          dpm.total_error(wl.matrix, a, 1.0) / (2 * l1 ^ 2),
          extract(epoch FROM clock_timestamp() - t0) * 1000)
  ON CONFLICT ON CONSTRAINT strategies_cache_key DO NOTHING
  RETURNING id INTO sid;
  IF sid IS NULL THEN    -- a concurrent session stored the same strategy first
    SELECT s.id INTO sid FROM dpm.strategies s
     WHERE s.workload_id = wl.id AND s.method = method AND s.options = options AND s.noise = noise;
  END IF;
  RETURN sid;
END
$$;
COMMENT ON FUNCTION dpm.optimize(text, text, float8, float8, jsonb) IS
  'choose (method auto: the lowest expected error among identity, hierarchical, wavelet, workload) or build a strategy for a workload; reads no data, spends no budget; cached';

CREATE FUNCTION dpm.answer(workload text, epsilon float8 DEFAULT NULL, delta float8 DEFAULT 0,
                           rho float8 DEFAULT NULL, strategy int DEFAULT NULL)
RETURNS TABLE(query int, label text, answer float8, stderr float8)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
  wl dpm.workloads := dpm._workload(answer.workload);
  dom dpm.domains;
  src dpm.sources;
  st dpm.strategies;
  sid int := answer.strategy;
  noise text;
  eps_c numeric;
  del_c numeric;
  spent_e numeric;
  spent_d numeric;
  rel_id bigint;
  x float8[];
BEGIN
  SELECT * INTO dom FROM dpm.domains d WHERE d.id = wl.domain_id;
  SELECT * INTO src FROM dpm.sources s WHERE s.id = dom.source_id;

  -- privacy parameters, checked against the source's model before anything is charged
  IF answer.rho IS NOT NULL THEN
    RAISE EXCEPTION 'zCDP (rho) releases are not supported yet' USING ERRCODE = 'feature_not_supported';
  END IF;
  IF NOT dpm._finite(answer.epsilon) OR answer.epsilon <= 0 THEN
    RAISE EXCEPTION 'epsilon must be a positive finite number, got %', coalesce(answer.epsilon::text, 'NULL')
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF NOT dpm._finite(answer.delta) OR answer.delta < 0 OR answer.delta >= 1 THEN
    RAISE EXCEPTION 'delta must be in [0, 1), got %', coalesce(answer.delta::text, 'NULL')
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF src.model = 'pure' AND answer.delta > 0 THEN
    RAISE EXCEPTION 'source "%" is registered for pure epsilon-differential privacy; Gaussian noise (delta > 0) is not allowed',
      src.relation
      USING ERRCODE = 'invalid_parameter_value', HINT = 'Answer with delta => 0 (Laplace noise).';
  END IF;
  noise := CASE WHEN answer.delta > 0 THEN 'gaussian' ELSE 'laplace' END;
  eps_c := dpm._charge(answer.epsilon);
  del_c := dpm._charge(answer.delta);

  IF sid IS NULL THEN
    sid := dpm.optimize(answer.workload, 'auto', answer.epsilon, answer.delta);
  END IF;
  SELECT * INTO st FROM dpm.strategies s WHERE s.id = sid;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'strategy % does not exist', sid USING ERRCODE = 'undefined_object';
  END IF;
  IF st.workload_id <> wl.id THEN
    RAISE EXCEPTION 'strategy % was built for another workload', sid
      USING ERRCODE = 'invalid_parameter_value', HINT = 'Use dpm.optimize on this workload to get a strategy for it.';
  END IF;

  -- the budget check: one charge at a time per source (row lock), exact numeric sums
  PERFORM 1 FROM dpm.sources s WHERE s.id = src.id FOR UPDATE;
  SELECT coalesce(sum(l.epsilon), 0), coalesce(sum(l.delta), 0) INTO spent_e, spent_d
    FROM dpm.ledger l WHERE l.source_id = src.id;
  IF spent_e + eps_c > src.budget_epsilon OR spent_d + del_c > src.budget_delta THEN
    RAISE EXCEPTION 'privacy budget of source "%" is exhausted', src.relation
      USING ERRCODE = 'Y1001',
            DETAIL = format('Spent epsilon %s of %s and delta %s of %s; this release needs epsilon %s and delta %s.',
                            spent_e, src.budget_epsilon, spent_d, src.budget_delta, eps_c, del_c),
            HINT = 'Ask for less epsilon or delta, or ask the custodian for more budget.';
  END IF;
  INSERT INTO dpm.releases (source_id, workload_id, strategy_id, noise, epsilon, delta)
  VALUES (src.id, wl.id, st.id, noise, eps_c, del_c)
  RETURNING id INTO rel_id;
  INSERT INTO dpm.ledger (source_id, release_id, epsilon, delta) VALUES (src.id, rel_id, eps_c, del_c);

  x := dpm._frequency_vector(src, dom);
  -- noise is calibrated for parameters strictly below the charge (dpm._below)
  INSERT INTO dpm.release_answers (release_id, query, label, answer, stderr)
  SELECT rel_id, m.query, wl.labels[m.query], m.answer, m.stderr
    FROM dpm.mechanism(wl.matrix, st.matrix, x, dpm._below(eps_c),
                       CASE WHEN del_c > 0 THEN dpm._below(del_c) ELSE 0 END,
                       src.max_contributions) m;
  RETURN QUERY
    SELECT r.query, r.label, r.answer, r.stderr FROM dpm.release_answers r
     WHERE r.release_id = rel_id ORDER BY r.query;
END
$$;
COMMENT ON FUNCTION dpm.answer(text, float8, float8, float8, int) IS
  'answer a workload on its source with the matrix mechanism: Laplace noise (delta = 0) or Gaussian noise (delta > 0); charges the source''s budget';

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
  -- every row counts here, without the per-unit contribution limit the mechanism applies
  src.privacy_unit := NULL;
  RETURN QUERY
    SELECT i::int, wl.labels[i], v
      FROM unnest(dpm._matvec(wl.matrix, dpm._frequency_vector(src, dom))) WITH ORDINALITY AS t(v, i);
END
$$;
COMMENT ON FUNCTION dpm.exact_answers(text) IS
  'custodian only: the true, noise-free answers of a workload (no privacy; not granted to analysts)';

CREATE FUNCTION dpm.budget(source regclass)
RETURNS TABLE(model text, epsilon_budget numeric, epsilon_spent numeric, epsilon_remaining numeric,
              delta_budget numeric, delta_spent numeric, delta_remaining numeric, releases bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
  IF NOT EXISTS (SELECT 1 FROM dpm.sources s WHERE s.relation = budget.source) THEN
    RAISE EXCEPTION '"%" is not a registered source', budget.source USING ERRCODE = 'undefined_object';
  END IF;
  RETURN QUERY
    SELECT s.model, s.budget_epsilon, coalesce(sum(l.epsilon), 0), s.budget_epsilon - coalesce(sum(l.epsilon), 0),
           s.budget_delta, coalesce(sum(l.delta), 0), s.budget_delta - coalesce(sum(l.delta), 0),
           count(l.release_id)
      FROM dpm.sources s LEFT JOIN dpm.ledger l ON l.source_id = s.id
     WHERE s.relation = budget.source
     GROUP BY s.id;
END
$$;
COMMENT ON FUNCTION dpm.budget(regclass) IS 'privacy budget of a source: total, spent and remaining';

-- Custodian-only functions: reading true data or defining what SQL runs against a source.
REVOKE ALL ON FUNCTION dpm.register_source(regclass, name, int, float8, float8, float8) FROM PUBLIC;
REVOKE ALL ON FUNCTION dpm.create_domain(text, regclass, jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION dpm.exact_answers(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION dpm._frequency_vector(dpm.sources, dpm.domains) FROM PUBLIC;
REVOKE ALL ON FUNCTION dpm._attribute_bins(regclass, jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION dpm._store_workload(text, dpm.domains, text, float8[], text[]) FROM PUBLIC;
GRANT SELECT ON dpm.sources, dpm.domains, dpm.workloads, dpm.strategies, dpm.releases,
                dpm.release_answers, dpm.ledger TO PUBLIC;
