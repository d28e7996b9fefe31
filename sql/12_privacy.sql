-- Privacy models: the arguments every function takes, charges and the noise they pay for.

-- true for finite numbers (float8 NaN compares greater than everything, so "x > 0" is not enough)
CREATE OR REPLACE FUNCTION dpm_internal.finite(x float8) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT x IS NOT NULL AND x NOT IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8) $$;

-- An exact decimal rounded UP at 1e-18.  A charge is the float's shortest decimal form so
-- rounded, so that ten charges of 0.1 spend exactly 1 and no charge is ever below what the
-- noise was calibrated for.
CREATE OR REPLACE FUNCTION dpm_internal.ceil18(x numeric) RETURNS numeric
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT trim_scale(ceil(x * 1e18) / 1e18) $$;

CREATE OR REPLACE FUNCTION dpm_internal.charge(x float8) RETURNS numeric
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT dpm_internal.ceil18(x::text::numeric) $$;

-- The parameter handed to the noise calibration: strictly below the charge (a float8 conversion
-- is within half an ulp, about 1.1e-16 relative), so the privacy spent never exceeds the charge.
CREATE OR REPLACE FUNCTION dpm_internal.below(c numeric) RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT c::float8 * (1 - 1e-15) $$;

-- rho-zCDP implies (rho + 2 sqrt(rho ln(1/delta)), delta)-DP for every delta in (0, 1)
-- (Bun & Steinke 2016, Proposition 1.3); rounded up.
CREATE OR REPLACE FUNCTION dpm_internal.zcdp_epsilon(rho numeric, delta float8) RETURNS numeric
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT dpm_internal.ceil18((rho::float8 + 2 * sqrt(rho::float8 * ln(1 / delta)))::numeric * (1 + 1e-12)) $$;

-- The ranges of the privacy arguments (src/privacy/args.c, which the C functions use too).  NULL
-- epsilon or rho: not given.  use: 'release' (delta in [0, 1), needed), 'budget' (the same, and
-- epsilon or rho needed), 'conversion' (delta in (0, 1) when given).
CREATE OR REPLACE FUNCTION dpm_internal.check_privacy_args(epsilon float8, delta float8, rho float8,
                                                           use text DEFAULT 'release') RETURNS void
AS 'MODULE_PATHNAME', 'dpm_check_privacy_args' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- The variance of the noise a release adds to each strategy answer ('laplace' or 'gaussian', rho
-- for zCDP), by the calibration the mechanism uses (src/mechanism/calibrate.c).
CREATE OR REPLACE FUNCTION dpm_internal.noise_variance(noise text, sensitivity_l1 float8, sensitivity_l2 float8,
                                                       epsilon float8, delta float8, rho float8) RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_noise_variance' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- Testing only: the factor dpm.audit_sensitivity_scale puts on every release's sensitivity (1
-- unless the privacy auditor, test/audit.sh, plants its defect); the mechanisms read it in C
-- (api_privacy_args), the keys' selection here (dpm_internal.keys_fill).  Read in C, so that calling it
-- loads the library, which refuses a value a non-superuser set before.
CREATE OR REPLACE FUNCTION dpm_internal.audit_sensitivity_scale() RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_audit_sensitivity_scale_get' LANGUAGE C STABLE PARALLEL SAFE;

-- What a release costs in its source's privacy model: the noise it uses and the exact charge.
-- Every inconsistent or invalid combination is refused here, before anything is charged.
CREATE OR REPLACE FUNCTION dpm_internal.privacy_cost(src dpm.sources, epsilon float8, delta float8, rho float8,
                                  OUT noise text, OUT c_epsilon numeric, OUT c_delta numeric,
                                  OUT c_rho numeric)
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  PERFORM dpm_internal.check_privacy_args(epsilon, delta, rho);
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
    c_epsilon := dpm_internal.charge(epsilon);
  WHEN 'approx' THEN
    IF rho IS NOT NULL THEN
      RAISE EXCEPTION 'source "%" is registered for (epsilon, delta)-differential privacy: give epsilon and delta, not rho',
        src.relation
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'Gaussian noise is calibrated exactly for (epsilon, delta) with delta > 0.';
    END IF;
    noise := CASE WHEN delta > 0 THEN 'gaussian' ELSE 'laplace' END;
    c_epsilon := dpm_internal.charge(epsilon);
    c_delta := dpm_internal.charge(delta);
  WHEN 'zcdp' THEN
    IF delta > 0 THEN
      RAISE EXCEPTION 'source "%" is registered for zCDP: give rho for Gaussian noise, not delta', src.relation
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'Answer with rho, or with epsilon alone for Laplace noise (charged rho = epsilon^2 / 2).';
    END IF;
    IF rho IS NOT NULL THEN
      noise := 'gaussian';
      c_rho := dpm_internal.charge(rho);
    ELSE
      -- epsilon-DP implies (epsilon^2 / 2)-zCDP (Bun & Steinke 2016, Proposition 1.4)
      noise := 'laplace';
      c_epsilon := dpm_internal.charge(epsilon);
      c_rho := dpm_internal.ceil18(c_epsilon * c_epsilon / 2);
    END IF;
  END CASE;
END
$$;

-- The parameters a release's noise is calibrated for, from its charge: strictly below it
-- (dpm_internal.below), so the privacy spent never exceeds what is charged.  share < 1: one part
-- of a release measured twice (an average), whose parts' shares add up to 1; each part gets that
-- share of every parameter (basic composition for (epsilon, delta), exact for epsilon and for
-- rho), a little less to cover rounding.
CREATE OR REPLACE FUNCTION dpm_internal.noise_params(noise text, c_epsilon numeric, c_delta numeric, c_rho numeric,
                                  share float8 DEFAULT 1,
                                  OUT epsilon float8, OUT delta float8, OUT rho float8)
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN NOT zcdp_gauss THEN dpm_internal.below(c_epsilon) * f END,
         CASE WHEN noise = 'gaussian' AND NOT zcdp_gauss THEN dpm_internal.below(c_delta) * f ELSE 0 END,
         CASE WHEN zcdp_gauss THEN dpm_internal.below(c_rho) * f END
    FROM (SELECT noise = 'gaussian' AND c_rho IS NOT NULL AS zcdp_gauss,
                 CASE WHEN share = 1 THEN 1 ELSE share * (1 - 1e-12) END AS f) z
$$;
