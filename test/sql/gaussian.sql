-- Analytic Gaussian calibration (Xiao et al., PVLDB 2020, Theorem 1): the smallest sigma with
\set SHOW_CONTEXT never
-- Phi(D/2s - eps s/D) - e^eps Phi(-D/2s - eps s/D) <= delta.  Reference values were computed
-- independently with scipy (norm.cdf, brentq to 1e-14) from the same condition.
SELECT eps, delta, abs(dpm.gaussian_sigma(eps, delta) / ref - 1) < 1e-9 AS sigma_ok
  FROM (VALUES (1.0, 1e-5, 3.730631634815946),
               (0.1, 1e-6, 36.30469042619545),
               (5.0, 1e-9, 1.2117124661345835),
               (0.5, 1e-3, 4.610127950728141),
               (20.0, 1e-10, 0.3751454261717903)) v(eps, delta, ref);

-- sigma scales linearly with the L2 sensitivity
SELECT abs(dpm.gaussian_sigma(1, 1e-5, 7.5) / (7.5 * dpm.gaussian_sigma(1, 1e-5)) - 1) < 1e-12 AS linear_ok;

-- never more noise than the classical sqrt(2 ln(1.25/delta))/eps calibration where that one is valid
SELECT bool_and(dpm.gaussian_sigma(e, d) <= sqrt(2 * ln(1.25 / d)) / e) AS below_classical
  FROM unnest(ARRAY[0.05, 0.2, 0.5, 0.9]) e, unnest(ARRAY[1e-3, 1e-6, 1e-9, 1e-12]) d;

-- every epsilon is valid, and sigma decreases as epsilon or delta grows
SELECT bool_and(s > 0 AND s < 'Infinity') AS finite,
       bool_and(s <= lag_s OR lag_s IS NULL) AS decreasing_in_epsilon
  FROM (SELECT e, dpm.gaussian_sigma(e, 1e-8) s, lag(dpm.gaussian_sigma(e, 1e-8)) OVER (ORDER BY e) lag_s
          FROM unnest(ARRAY[0.01, 0.1, 1, 2, 5, 10, 50, 200]) e) t;
SELECT dpm.gaussian_sigma(1, 1e-12) > dpm.gaussian_sigma(1, 1e-6) AS decreasing_in_delta,
       dpm.gaussian_sigma(1, 1e-200) < 'Infinity' AS tiny_delta_finite;

-- the Gaussian expected error is sigma^2 times the profile term: I4 on a unit query
SELECT abs(variance - dpm.gaussian_sigma(2, 1e-7) ^ 2) < 1e-9 AS gaussian_error_ok
  FROM dpm.expected_error('{{1,0,0,0}}', '{{1,0,0,0},{0,1,0,0},{0,0,1,0},{0,0,0,1}}', 2, 1e-7);

-- bad input
SELECT dpm.gaussian_sigma(1, 0);
SELECT dpm.gaussian_sigma(0, 1e-5);
SELECT dpm.gaussian_sigma(-1, 1e-5);
SELECT dpm.gaussian_sigma('NaN', 1e-5);
SELECT dpm.gaussian_sigma('Infinity', 1e-5);
SELECT dpm.gaussian_sigma(1, 1);
SELECT dpm.gaussian_sigma(1, 1e-5, 0);
SELECT dpm.gaussian_sigma(1, 'NaN');
