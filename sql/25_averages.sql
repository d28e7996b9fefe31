-- Averages: a measure's noisy sum over a noisy count per query, from one release that measures
-- both (dpm.answer(..., measure => ..., aggregate => 'avg')).

-- The average of a query from its sum s and count c as estimated (inference/ratio.h): s / c
-- clamped to [lo, hi] (NULL unless c > 0) with a first-order stderr, and the interval of every
-- average in [lo, hi] the noise can explain, Fieller's (exact) when joint (Gaussian noise, halves
-- z stderr at the confidence), else from each half at 1 - (1 - c) / 2 (Laplace, union bound).
CREATE OR REPLACE FUNCTION dpm_internal.ratio_estimate(s float8, s_sd float8, s_half float8, c float8, c_sd float8,
                                    c_half float8, lo float8, hi float8, joint boolean,
                                    OUT answer float8, OUT stderr float8, OUT ci_low float8, OUT ci_high float8)
AS 'MODULE_PATHNAME', 'dpm_ratio_estimate' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- The confidence each of an average's sum and count is inferred at for Laplace noise: half the
-- miss probability each, so that both hold at once with the confidence asked.
CREATE OR REPLACE FUNCTION dpm_internal.part_confidence(confidence float8, avg boolean) RETURNS float8
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$ SELECT CASE WHEN avg THEN 1 - (1 - confidence) / 2 ELSE confidence END $$;

-- The share of an average's charge its sums get by default, chosen without the data: the one that
-- minimizes the first-order variance of s / c, (sd_s^2 + r^2 sd_c^2) / c^2, for an average r at
-- half the measure's largest bound M.  Per unit a sum moves by M and a count by 1 (both times
-- max_contributions, through the same strategy), so with sd the noise for share f that is
-- sd(f)^2 M^2 + (M/2)^2 sd(1 - f)^2, proportional to 4 sd(f)^2 + sd(1 - f)^2:
--   Laplace, sd ~ 1/f: f / (1 - f) = 4^(1/3);  zCDP, sd^2 ~ 1/f: f / (1 - f) = 2;
--   (epsilon, delta) Gaussian (basic composition, no closed form): the best f on a grid of 0.005.
CREATE OR REPLACE FUNCTION dpm_internal.avg_sum_share(noise text, c_epsilon numeric, c_delta numeric, c_rho numeric)
RETURNS float8
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN noise = 'laplace' THEN cbrt(4::float8) / (1 + cbrt(4::float8))
              WHEN c_rho IS NOT NULL THEN 2 / 3::float8
              ELSE (SELECT f FROM generate_series(1, 199) i, LATERAL (SELECT i / 200::float8 AS f) x
                     ORDER BY 4 * dpm.gaussian_sigma(f * c_epsilon::float8, f * c_delta::float8) ^ 2
                              + dpm.gaussian_sigma((1 - f) * c_epsilon::float8, (1 - f) * c_delta::float8) ^ 2
                     LIMIT 1) END
$$;

-- The interval an average lies in: the measure's bounds, widened to 0 when a NULL counts as 0
-- (it adds 0 to the sum and 1 to the count).
CREATE OR REPLACE FUNCTION dpm_internal.avg_bounds(m dpm.measures, OUT lo float8, OUT hi float8)
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN m.nulls = 'zero' THEN least(m.lo, 0) ELSE m.lo END,
         CASE WHEN m.nulls = 'zero' THEN greatest(m.hi, 0) ELSE m.hi END
$$;

-- The answers of average release r from its two measurements, by this inference, with intervals
-- at this confidence (NULL: none), in query order; or of the average of another measure a release
-- measured, from its parts sums and counts (dpm.releases.extra_parts).
CREATE OR REPLACE FUNCTION dpm_internal.release_avg(r dpm.releases, inference text, confidence float8, sums text DEFAULT 'sums',
                                                    counts text DEFAULT 'counts', measure_id int DEFAULT NULL)
RETURNS TABLE(query int, answer float8, stderr float8, ci_low float8, ci_high float8, ci_draws int)
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  ms dpm.release_measurements;
  mc dpm.release_measurements;
  b record := dpm_internal.avg_bounds((SELECT m FROM dpm.measures m WHERE m.id = coalesce(release_avg.measure_id, r.measure_id)));
  gaussian boolean := r.noise = 'gaussian';
  c float8 := CASE WHEN gaussian THEN release_avg.confidence
                   ELSE dpm_internal.part_confidence(release_avg.confidence, true) END;
BEGIN
  SELECT * INTO ms FROM dpm.release_measurements x WHERE x.release_id = r.id AND x.quantity = release_avg.sums;
  SELECT * INTO mc FROM dpm.release_measurements x WHERE x.release_id = r.id AND x.quantity = release_avg.counts;
  IF ms.release_id IS NULL OR mc.release_id IS NULL THEN
    RAISE EXCEPTION 'average release % lacks its % measurements', r.id, CASE WHEN ms.release_id IS NULL THEN 'sum' ELSE 'count' END
      USING ERRCODE = 'data_corrupted';
  END IF;
  RETURN QUERY
    SELECT s.query, e.answer, e.stderr, e.ci_low, e.ci_high, greatest(s.ci_draws, n.ci_draws)
      FROM dpm_internal.release_infer(r, ms, release_avg.inference, c) s
      JOIN dpm_internal.release_infer(r, mc, release_avg.inference, c) n ON n.query = s.query,
           -- half-widths as halves' difference (dpm_internal.times), which cannot overflow
           LATERAL dpm_internal.ratio_estimate(s.answer, s.stderr, dpm_internal.times(s.ci_high, 0.5) - dpm_internal.times(s.ci_low, 0.5),
                                               n.answer, n.stderr, dpm_internal.times(n.ci_high, 0.5) - dpm_internal.times(n.ci_low, 0.5),
                                               b.lo, b.hi, gaussian) e
     ORDER BY s.query;
END
$$;

-- The answers of release r by this inference and confidence: from its measurements m, or for an
-- average from the sums and counts it keeps in dpm.release_measurements (m unused).  In SQL, as
-- dpm_internal.release_infer is (it says why); here, where both exist.
CREATE OR REPLACE FUNCTION dpm_internal.release_derive(r dpm.releases, m dpm.release_measurements, inference text,
                                    confidence float8)
RETURNS TABLE(query int, answer float8, stderr float8, ci_low float8, ci_high float8, ci_draws int)
LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
AS $$
  SELECT * FROM dpm_internal.release_infer(release_derive.r, release_derive.m, release_derive.inference, release_derive.confidence)
   WHERE (release_derive.r).sum_share IS NULL
  UNION ALL
  SELECT * FROM dpm_internal.release_avg(release_derive.r, release_derive.inference, release_derive.confidence)
   WHERE (release_derive.r).sum_share IS NOT NULL
$$;
