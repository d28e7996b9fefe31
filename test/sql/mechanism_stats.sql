-- The mechanism is unbiased and its variance is the closed form, checked over many draws.
-- Each check compares a sample statistic with its expectation at 5 standard deviations of the
-- statistic (normal approximation, N = 10000): false-alarm probability 5.7e-7 per check, below
-- 3e-5 for the 40 checks of this file together.  Var(s^2) ~ sigma^4 (kappa - 1) / N with
-- kurtosis kappa <= 6 for any weighted sum of Laplace variables and kappa = 3 for Gaussian ones.
\set SHOW_CONTEXT never
\set H4 '''{{1,1,1,1},{1,1,0,0},{0,0,1,1},{1,0,0,0},{0,1,0,0},{0,0,1,0},{0,0,0,1}}'''
CREATE FUNCTION pg_temp.allrange(n int) RETURNS float8[] LANGUAGE sql AS $$
  SELECT array_agg(r ORDER BY i, j)
    FROM (SELECT i, j, ARRAY(SELECT (k BETWEEN i AND j)::int::float8 FROM generate_series(1, n) k ORDER BY k) r
            FROM generate_series(1, n) i, generate_series(1, n) j WHERE i <= j) s
$$;
-- the workload is computed once: a SQL function called per draw would be planned (and JIT
-- compiled) per call
SELECT pg_temp.allrange(4) AS w \gset
CREATE TEMP TABLE truth AS
  SELECT i AS query, v AS answer
    FROM unnest(dpm_internal.matvec(:'w', '{120,30,0,75}')) WITH ORDINALITY t(v, i);

-- Laplace, epsilon = 1
CREATE TEMP TABLE draws AS
  SELECT d, m.query, m.answer - t.answer AS err, m.stderr
    FROM generate_series(1, 10000) d,
         LATERAL dpm.mechanism(:'w', :H4, '{120,30,0,75}', 1 + 0 * d) m
    JOIN truth t USING (query);
SELECT query,
       abs(avg(err)) < 5 * max(stderr) / sqrt(count(*)) AS unbiased,
       abs(var_samp(err) / max(stderr) ^ 2 - 1) < 5 * sqrt(5.0 / count(*)) AS variance_ok,
       abs(max(stderr) ^ 2 / e.variance - 1) < 1e-6 AS stderr_is_closed_form
  FROM draws JOIN dpm.expected_error(:'w', :H4, 1) e USING (query)
 GROUP BY query, e.variance ORDER BY query;
DROP TABLE draws;

-- Gaussian, epsilon = 0.5, delta = 1e-6
CREATE TEMP TABLE draws AS
  SELECT d, m.query, m.answer - t.answer AS err, m.stderr
    FROM generate_series(1, 10000) d,
         LATERAL dpm.mechanism(:'w', :H4, '{120,30,0,75}', 0.5 + 0 * d, 1e-6) m
    JOIN truth t USING (query);
SELECT query,
       abs(avg(err)) < 5 * max(stderr) / sqrt(count(*)) AS unbiased,
       abs(var_samp(err) / max(stderr) ^ 2 - 1) < 5 * sqrt(2.0 / count(*)) AS variance_ok,
       abs(max(stderr) ^ 2 / e.variance - 1) < 1e-6 AS stderr_is_closed_form
  FROM draws JOIN dpm.expected_error(:'w', :H4, 0.5, 1e-6) e USING (query)
 GROUP BY query, e.variance ORDER BY query;
DROP TABLE draws;
