-- Confidence intervals on every answer (src/mechanism/interval.h).  Gaussian noise: answer +- z
-- stderr, z the normal quantile.  Laplace noise: the k-th smallest |error| of N simulated draws of
-- the noise, k = ceil(c (N + 1)), whose coverage is k / (N + 1) >= c on average over the
-- simulation, so over independent releases each interval covers the truth with probability
-- k / (N + 1) exactly.
-- Statistical checks compare a sample statistic with its expectation at 5 standard deviations
-- (normal approximation of a binomial or of a mean): false-alarm probability 5.7e-7 per check,
-- below 2e-5 for the 27 checks of this file together.
\set SHOW_CONTEXT never
\set H4 '''{{1,1,1,1},{1,1,0,0},{0,0,1,1},{1,0,0,0},{0,1,0,0},{0,0,1,0},{0,0,0,1}}'''
\set I3 '''{{1,0,0},{0,1,0},{0,0,1}}'''
CREATE FUNCTION pg_temp.allrange(n int) RETURNS float8[] LANGUAGE sql AS $$
  SELECT array_agg(r ORDER BY i, j)
    FROM (SELECT i, j, ARRAY(SELECT (k BETWEEN i AND j)::int::float8 FROM generate_series(1, n) k ORDER BY k) r
            FROM generate_series(1, n) i, generate_series(1, n) j WHERE i <= j) s
$$;
SELECT pg_temp.allrange(4) AS w \gset

-- Gaussian: z = 1.959963984540054 at 95 %, 2.5758293035489 at 99 %, symmetric, no simulation
SELECT bool_and(abs((ci_high - answer) / stderr - 1.959963984540054) < 1e-9
                AND abs((answer - ci_low) / stderr - 1.959963984540054) < 1e-9) AS z_95,
       bool_and(ci_draws IS NULL) AS exact
  FROM dpm.mechanism(:'w', :H4, '{120,30,0,75}', 0.5, 1e-6);
SELECT bool_and(abs((ci_high - answer) / stderr - 2.5758293035489) < 1e-9) AS z_99
  FROM dpm.mechanism(:'w', :H4, '{120,30,0,75}', rho => 0.1, confidence => 0.99);

-- Laplace on one cell: |noise| / b is Exp(1) (b = stderr / sqrt(2)), and the half-width is its
-- 951st smallest of N = 1000 draws, whose mean is sum_{i=50}^{1000} 1/i = 3.0063 and variance
-- sum_{i=50}^{1000} 1/i^2 = 0.0192 (exponential order statistics).  Mean over 400 releases.
SELECT abs(avg(h) - (SELECT sum(1.0 / i) FROM generate_series(50, 1000) i))
         < 5 * sqrt((SELECT sum(1.0 / i ^ 2) FROM generate_series(50, 1000) i) / count(*)) AS order_statistic_mean,
       bool_and(d = 1000) AS draws_reported
  FROM (SELECT (m.ci_high - m.answer) / (m.stderr / sqrt(2)) AS h, m.ci_draws AS d
          FROM generate_series(1, 400) g, LATERAL dpm.mechanism('{{1}}', '{{1}}', '{10}', 1 + 0 * g) m) s;

-- Coverage over repeated releases on a known vector, per query, against k / (N + 1):
-- identity on 3 cells at 99 %, 10000 releases (each error one Laplace variable: a normal
-- interval, answer +- 2.576 stderr, covers only 1 - exp(-2.576 sqrt 2) = 97.4 %, 7 of its own
-- standard deviations below the threshold of 98.5 % it is shown to fall short of);
CREATE TEMP TABLE cover AS
  SELECT m.query, m.ci_low <= t.v AND t.v <= m.ci_high AS covered,
         abs(m.answer - t.v) <= 2.5758293035489 * m.stderr AS normal_covered
    FROM generate_series(1, 10000) g,
         LATERAL dpm.mechanism(:I3, :I3, '{5,0,7}', 1 + 0 * g, confidence => 0.99) m
    JOIN unnest('{5,0,7}'::float8[]) WITH ORDINALITY t(v, query) USING (query);
SELECT query, abs(avg(covered::int) - 991.0 / 1001) < 5 * sqrt(0.99 * 0.01 / count(*)) AS covers_99,
       avg(normal_covered::int) < 0.99 - 5 * sqrt(0.99 * 0.01 / count(*)) AS normal_falls_short
  FROM cover GROUP BY query ORDER BY query;
DROP TABLE cover;
-- every range of 4 cells through the hierarchical strategy at 90 %, 3000 releases (errors mix up
-- to 7 Laplace variables with unequal weights), Laplace and Gaussian
CREATE TEMP TABLE truth AS
  SELECT i AS query, v FROM unnest(dpm_internal.matvec(:'w', '{120,30,0,75}')) WITH ORDINALITY t(v, i);
CREATE TEMP TABLE cover AS
  SELECT noise, m.query, m.ci_low <= t.v AND t.v <= m.ci_high AS covered
    FROM (VALUES ('laplace', 0::float8), ('gaussian', 1e-6)) n(noise, delta), generate_series(1, 3000) g,
         LATERAL dpm.mechanism(:'w', :H4, '{120,30,0,75}', 1 + 0 * g, n.delta, confidence => 0.9) m
    JOIN truth t USING (query);
SELECT noise, query,
       abs(avg(covered::int) - CASE noise WHEN 'laplace' THEN 901.0 / 1001 ELSE 0.9 END)
         < 5 * sqrt(0.9 * 0.1 / count(*)) AS covers_90
  FROM cover GROUP BY noise, query ORDER BY noise DESC, query;
DROP TABLE cover;

-- HDMM (implicit) strategies simulate draw by draw: the identity as a Kronecker strategy on a
-- 4 x 3 domain, each answer the sum of 3 cells' Laplace noise, coverage at 90 % over 1000 releases
CREATE FUNCTION pg_temp.dom(sizes int[]) RETURNS TABLE(names text[], labels text[], lo float8[], hi float8[])
LANGUAGE sql AS $$
  SELECT (SELECT array_agg('a' || i ORDER BY i) FROM generate_subscripts(sizes, 1) i),
         (SELECT array_agg(j::text ORDER BY i, j) FROM generate_subscripts(sizes, 1) i, generate_series(1, sizes[i]) j),
         array_fill('NaN'::float8, ARRAY[(SELECT sum(s)::int FROM unnest(sizes) s)]),
         array_fill('NaN'::float8, ARRAY[(SELECT sum(s)::int FROM unnest(sizes) s)]) $$;
SELECT d.names, d.labels, d.lo, d.hi FROM pg_temp.dom('{4,3}') d \gset
CREATE TEMP TABLE cover AS
  SELECT m.query, m.ci_draws, m.ci_low <= 3 AND 3 <= m.ci_high AS covered
    FROM generate_series(1, 1000) g,
         LATERAL dpm_internal.hdmm_mechanism('Identity(a1)', dpm_internal.domain_of(:'names', '{4,3}', :'labels', :'lo', :'hi'),
                                     'kronecker', '{0,0}', '{}', NULL, array_fill(1.0::float8, ARRAY[12]),
                                     1 + 0 * g, confidence => 0.9) m;
SELECT query, abs(avg(covered::int) - 901.0 / 1001) < 5 * sqrt(0.9 * 0.1 / count(*)) AS covers_90,
       bool_and(ci_draws = 1000) AS all_draws
  FROM cover GROUP BY query ORDER BY query;
DROP TABLE cover;
-- out of time (dpm.ci_max_seconds = 0) it stops at the fewest draws that can make a 90 %
-- interval, ceil(0.9 / 0.1) = 9, and says so
SET dpm.ci_max_seconds = 0;
SELECT DISTINCT ci_draws FROM dpm_internal.hdmm_mechanism('Identity(a1)', dpm_internal.domain_of(:'names', '{4,3}', :'labels', :'lo', :'hi'),
                                                  'kronecker', '{0,0}', '{}', NULL, array_fill(1.0::float8, ARRAY[12]),
                                                  1, confidence => 0.9);
RESET dpm.ci_max_seconds;

-- bad input: confidence outside (0, 1), or more than the draws can give
SELECT * FROM dpm.mechanism('{{1}}', '{{1}}', '{10}', 1, confidence => 1);
SELECT * FROM dpm.mechanism('{{1}}', '{{1}}', '{10}', 1, confidence => 'NaN');
SELECT * FROM dpm.mechanism('{{1}}', '{{1}}', '{10}', 1, confidence => 0.9995);
SET dpm.ci_draws = 2000;
SELECT count(*) FROM dpm.mechanism('{{1}}', '{{1}}', '{10}', 1, confidence => 0.9995);
RESET dpm.ci_draws;
SET dpm.ci_draws = 10;
RESET dpm.ci_draws;
SELECT ci_low, ci_high, ci_draws FROM dpm.mechanism('{{1}}', '{{1}}', '{10}', 1, confidence => NULL);

-- Through dpm.answer: every row carries its interval, the release records its confidence and
-- draws, a replay returns the same intervals, and bad confidences are refused before any charge
CREATE TABLE ci_people AS SELECT g AS id, g % 5 AS kind FROM generate_series(1, 500) g;
SELECT dpm.register_source('ci_people', epsilon => 10, delta => 1e-3);
SELECT dpm.create_domain('ci_kind', 'ci_people', '[{"name": "kind", "values": [0,1,2,3,4]}]');
SELECT dpm.create_workload('ci_w', 'ci_kind', 'Identity(kind) + Total(kind)');
SET client_min_messages = warning;   -- the notices name release ids
CREATE TEMP TABLE a1 AS SELECT * FROM dpm.answer('ci_w', epsilon => 1, method => 'identity');
SELECT count(*) AS rows, bool_and(ci_low < answer AND answer < ci_high) AS around_answer,
       bool_and(abs((ci_high - answer) - (answer - ci_low)) < 1e-9 * (ci_high - answer)) AS symmetric
  FROM a1;
SELECT noise, confidence, ci_draws FROM dpm.releases ORDER BY id DESC LIMIT 1;
SELECT bool_and(r.ci_low = a1.ci_low AND r.ci_high = a1.ci_high) AS replayed
  FROM dpm.release((SELECT max(id) FROM dpm.releases)) r JOIN a1 USING (query);
SELECT count(*) FILTER (WHERE ci_low IS NULL AND ci_high IS NULL) AS no_intervals
  FROM dpm.answer('ci_w', epsilon => 0.5, delta => 1e-6, method => 'identity', confidence => NULL);
SELECT noise, confidence, ci_draws FROM dpm.releases ORDER BY id DESC LIMIT 1;
SELECT bool_and(abs((ci_high - answer) / stderr - 1.6448536269514722) < 1e-9) AS gaussian_90
  FROM dpm.answer('ci_w', epsilon => 0.5, delta => 1e-6, method => 'identity', confidence => 0.9);
SELECT count(*) AS rel0 FROM dpm.releases \gset
SELECT * FROM dpm.answer('ci_w', epsilon => 1, method => 'identity', confidence => 0);
SELECT * FROM dpm.answer('ci_w', epsilon => 1, method => 'identity', confidence => 0.9995);
SELECT count(*) - :rel0 AS new_releases, (SELECT epsilon_spent FROM dpm.budget('ci_people')) AS spent FROM dpm.releases;
SET dpm.ci_draws = 2000;
SELECT count(*) FROM dpm.answer('ci_w', epsilon => 1, method => 'identity', confidence => 0.9995);
SELECT confidence, ci_draws FROM dpm.releases ORDER BY id DESC LIMIT 1;
RESET dpm.ci_draws;
RESET client_min_messages;
