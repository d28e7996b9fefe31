-- dpm.noise: the secure discrete samplers behind the mechanisms.
-- Statistical checks print booleans; each states its false-alarm probability.
-- Variance bounds use Var(s^2) = (mu4 - sigma^4) / N: 20 b^4 / N for
-- Laplace(b) (kurtosis 6), 2 s^4 / N for the Gaussian (kurtosis 3).
-- The KS bound is the Dvoretzky-Kiefer-Wolfowitz-Massart inequality
-- P[D > d] <= 2 exp(-2 N d^2), set to alpha = 1e-4; the discrete laws differ
-- from the continuous CDFs by far less than 1e-9 on these grids.

-- standard normal CDF (Abramowitz & Stegun 26.2.17, error < 7.5e-8; PG 15 has no erf)
CREATE FUNCTION pg_temp.phi(z float8) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN z >= 0 THEN 1 - p ELSE p END
  FROM (SELECT exp(-z * z / 2) / sqrt(2 * pi())
               * (0.319381530 * t - 0.356563782 * t^2 + 1.781477937 * t^3
                  - 1.821255978 * t^4 + 1.330274429 * t^5) AS p
        FROM (SELECT 1 / (1 + 0.2316419 * abs(z)) AS t) s) q
$$;

-- Laplace, b = 2.5, N = 20000: draws on the grid 2^-39 (b/g in [2^40, 2^41))
CREATE TEMP TABLE lap AS
  SELECT x, row_number() OVER (ORDER BY x) AS i
  FROM unnest(dpm.noise('laplace', 2.5, 20000)) AS x;

-- mean within 5 standard errors (2.5 * sqrt(2 / 20000) = 0.025): false alarm 6e-7
SELECT abs(avg(x)) < 5 * 0.025 AS laplace_mean_ok FROM lap;
-- variance within 5 standard errors of 2 b^2 = 12.5 (sqrt(20 * 2.5^4 / 20000) = 0.198):
-- false alarm about 1e-6 (normal approximation of a mean of 20000 terms)
SELECT abs(var_samp(x) - 12.5) < 5 * 0.198 AS laplace_variance_ok FROM lap;
-- Kolmogorov-Smirnov against the continuous Laplace CDF, alpha = 1e-4:
-- D < sqrt(-ln(1e-4 / 2) / 2) / sqrt(20000) = 0.015736
SELECT max(greatest(i / 20000.0 - f, f - (i - 1) / 20000.0)) < 0.015736 AS laplace_ks_ok
FROM (SELECT i, CASE WHEN x < 0 THEN 0.5 * exp(x / 2.5) ELSE 1 - 0.5 * exp(-x / 2.5) END AS f
      FROM lap) c;
-- every draw is a multiple of 2^-41 (the grid is 2^-39): deterministic
SELECT bool_and(x * 2^41 = round(x * 2^41)) AS laplace_on_grid FROM lap;
-- and the grid is fine: a draw lands on 2^-29 with probability 2^-10, so
-- more than 1% of them doing so has probability below 1e-50
SELECT avg((x * 2^29 = round(x * 2^29))::int) < 0.01 AS laplace_grid_fine FROM lap;
-- all distinct: a collision has probability below C(20000, 2) / (4 t) < 4e-5, t = 2.5 * 2^39
SELECT count(DISTINCT x) = 20000 AS laplace_distinct FROM lap;

-- Gaussian, s = 7, N = 20000: draws on the grid 2^-25 (s/g in [2^27, 2^28))
CREATE TEMP TABLE gau AS
  SELECT x, k, row_number() OVER (ORDER BY x) AS i
  FROM unnest(dpm.noise('gaussian', 7, 20000)) WITH ORDINALITY AS u(x, k);

-- mean within 5 standard errors (7 / sqrt(20000) = 0.0495): false alarm 6e-7
SELECT abs(avg(x)) < 5 * 0.0495 AS gaussian_mean_ok FROM gau;
-- variance within 5 standard errors of 49 (49 * sqrt(2 / 20000) = 0.49): false alarm about 1e-6
SELECT abs(var_samp(x) - 49) < 5 * 0.49 AS gaussian_variance_ok FROM gau;
-- Kolmogorov-Smirnov against the normal CDF, alpha = 1e-4
SELECT max(greatest(i / 20000.0 - f, f - (i - 1) / 20000.0)) < 0.015736 AS gaussian_ks_ok
FROM (SELECT i, pg_temp.phi(x / 7) AS f FROM gau) c;
-- every draw is a multiple of 2^-27 (the grid is 2^-25): deterministic
SELECT bool_and(x * 2^27 = round(x * 2^27)) AS gaussian_on_grid FROM gau;
-- on 2^-15 with probability 2^-10 each: more than 1% has probability below 1e-50
SELECT avg((x * 2^15 = round(x * 2^15))::int) < 0.01 AS gaussian_grid_fine FROM gau;
-- the first 300 draws all distinct: collision probability below
-- C(300, 2) / (2 sqrt(pi) 2^27) < 1e-4 (the grid holds at least 2^27 per standard deviation)
SELECT count(DISTINCT x) = 300 AS gaussian_distinct FROM gau WHERE k <= 300;

-- case-insensitive names; the requested number of draws
SELECT cardinality(dpm.noise('Gaussian', 1, 3)) AS n3, cardinality(dpm.noise('LAPLACE', 1e-6, 1)) AS n1;
-- tiny and huge scales stay on their grids (scale 2^-100: grid 2^-141)
SELECT bool_and(x * 2^141 = round(x * 2^141) AND abs(x) < 2^(-90)) AS small_scale_ok
FROM unnest(dpm.noise('laplace', 2^(-100), 100)) AS x;
-- (a draw is 0 with probability below 2e-9, so this fails with probability below 2e-7)
SELECT bool_and(abs(x) < 1e150 AND abs(x) > 0) AS large_scale_ok
FROM unnest(dpm.noise('gaussian', 1e140, 100)) AS x;
-- volatile: two calls never repeat (probability of equal arrays below 1e-60)
SELECT dpm.noise('laplace', 1, 5) <> dpm.noise('laplace', 1, 5) AS fresh_draws;

-- bad input
SELECT dpm.noise('uniform', 1, 10);
SELECT dpm.noise('laplace', 0, 10);
SELECT dpm.noise('laplace', -1, 10);
SELECT dpm.noise('gaussian', 'NaN', 10);
SELECT dpm.noise('gaussian', 'Infinity', 10);
SELECT dpm.noise('laplace', 1e-300, 10);
SELECT dpm.noise('laplace', 1, 0);
SELECT dpm.noise('gaussian', 1, 10000001);
SELECT dpm.noise(NULL, 1, 10) IS NULL AS strict_null;
