-- Fitness for use (fitness-for-use.md): the Gaussian noise covariance Sigma on x (identity basis)
-- that meets a variance target for every query at the least privacy cost max_i (Sigma^-1)_ii.
\set SHOW_CONTEXT never
-- identity queries plus the total over d cells
CREATE FUNCTION pg_temp.idsum(d int) RETURNS float8[] LANGUAGE sql AS $$
  SELECT array_cat(ARRAY(SELECT ARRAY(SELECT (i = j)::int::float8 FROM generate_series(1, d) j ORDER BY j)
                           FROM generate_series(1, d) i ORDER BY i),
                   ARRAY[array_fill(1.0::float8, ARRAY[d])]) $$;
-- diag(W Sigma W^T): every query's variance
CREATE FUNCTION pg_temp.variances(w float8[], sigma float8[]) RETURNS float8[] LANGUAGE sql AS $$
  SELECT array_agg(v ORDER BY j) FROM (
    SELECT j, sum(w[j][a] * sigma[a][b] * w[j][b]) AS v
      FROM generate_series(1, array_length(w, 1)) j, generate_series(1, array_length(w, 2)) a,
           generate_series(1, array_length(w, 2)) b
     GROUP BY j) t $$;

-- Section 5.1, Theorem 7: with target gamma for every query, Sigma = a I + b 1 1^T with
-- a = (d + 1) / d gamma, b = -gamma / d, and squared privacy cost 2 d / ((1 + d) gamma): every
-- target met, the identity queries and the total exactly at it.  d = 5, 8, 16; gamma = 1, 2.5.
SELECT d, gamma,
       abs(f.privacy_cost ^ 2 / (2.0 * d / ((1 + d) * gamma)) - 1) < 1e-5 AS cost_theorem_7,
       abs(f.sigma[1][1] - ((d + 1.0) / d * gamma - gamma / d)) < 1e-5 * gamma AS a_plus_b,
       abs(f.sigma[1][2] + gamma / d) < 1e-5 * gamma AS b,
       (SELECT bool_and(v <= gamma * (1 + 1e-6)) AND max(v) >= gamma * (1 - 1e-6)
          FROM unnest(pg_temp.variances(pg_temp.idsum(d), f.sigma)) v) AS targets_met
  FROM (VALUES (5, 1.0), (8, 1.0), (16, 2.5)) c(d, gamma),
       dpm._fitness(pg_temp.idsum(d), ARRAY[gamma]) f
 ORDER BY d;

-- Theorem 8: at the same privacy cost, the sum-squared-error optimum (Theorem 6) misses the
-- target by a factor growing like sqrt(d); fitness for use meets it.  For d = 16, gamma = 1:
-- beta^2 = 2 d / (1 + d); Theorem 6's a, b give the identity queries a + b and the total
-- d a + d^2 b.
SELECT round(greatest(a + b, d * a + d * d * b)::numeric, 3) AS sse_max_ratio, 1 AS fitness_max_ratio
  FROM (SELECT d,
               (d - 3.0) / ((d - 1) - sqrt(d + 1.0)) / beta2 AS a,
               (d - 3.0) * (2 - sqrt(d + 1.0)) / (((d - 1) - sqrt(d + 1.0)) * (-1 - d + (d - 1) * sqrt(d + 1.0))) / beta2 AS b
          FROM (SELECT 16 AS d, 2 * 16.0 / 17 AS beta2) p) s;

-- per-query targets: the total may have a looser target than the cells
SELECT (SELECT bool_and(v <= t * (1 + 1e-6)) FROM unnest(pg_temp.variances(pg_temp.idsum(6), f.sigma), '{1,1,1,1,1,1,4}'::float8[]) u(v, t)) AS targets_met,
       f.privacy_cost ^ 2 < 2 * 6.0 / 7 AS cheaper_than_uniform
  FROM dpm._fitness(pg_temp.idsum(6), '{1,1,1,1,1,1,4}') f;

-- bad input
SELECT privacy_cost FROM dpm._fitness(pg_temp.idsum(3), '{1,2}');
SELECT privacy_cost FROM dpm._fitness(pg_temp.idsum(3), '{0}');
SELECT privacy_cost FROM dpm._fitness('{{1,0},{0,0}}', '{1}');
SELECT privacy_cost FROM dpm._fitness(pg_temp.idsum(3), '{1}', '{"mu": 1}');
SELECT privacy_cost FROM dpm._fitness(pg_temp.idsum(3), '{NaN}');

-- The mechanism: W (x + N(0, s^2 Sigma)), s from the privacy asked for.  At rho = cost^2 / 2
-- (zCDP), s = 1 and every query's variance is its target (1 here, up to the sampler's grid).
-- Over 4000 releases each query's answers are unbiased and their variance matches the reported
-- one, at 5 standard deviations of the statistic (variance of a sample variance of Gaussians:
-- 2 sigma^4 / (N - 1)): false alarm 5.7e-7 per check, below 1.1e-5 for the 18 checks.
CREATE TEMP TABLE fit AS SELECT f.* FROM dpm._fitness(pg_temp.idsum(8), '{1}') f;
CREATE TEMP TABLE fx AS SELECT '{5,0,12,3,3,40,1,7}'::float8[] AS x;
CREATE TEMP TABLE fdraws AS
  SELECT d, m.query, m.answer - t.answer AS err, m.stderr
    FROM fit, fx, generate_series(1, 4000) d,
         LATERAL dpm._fitness_mechanism(pg_temp.idsum(8), fit.sigma, fx.x, rho => fit.privacy_cost ^ 2 / 2 + 0 * d) m
    JOIN (SELECT i AS query, v AS answer FROM fx, unnest(dpm._matvec(pg_temp.idsum(8), fx.x)) WITH ORDINALITY t(v, i)) t
   USING (query);
SELECT query, abs(max(stderr) ^ 2 - 1) < 1e-3 AS variance_is_target,
       abs(avg(err)) < 5 * max(stderr) / sqrt(count(*)) AS unbiased,
       abs(var_samp(err) / max(stderr) ^ 2 - 1) < 5 * sqrt(2.0 / (count(*) - 1)) AS variance_matches
  FROM fdraws GROUP BY query ORDER BY query;
-- Laplace is not this mechanism's noise
SELECT * FROM dpm._fitness_mechanism(pg_temp.idsum(2), '{{1,0},{0,1}}', '{1,2}', 1);
SELECT * FROM dpm._fitness_mechanism(pg_temp.idsum(2), '{{1,2},{0,1}}', '{1,2}', 1, 1e-6);
SELECT * FROM dpm._fitness_mechanism(pg_temp.idsum(2), '{{1,2},{2,1}}', '{1,2}', 1, 1e-6);
