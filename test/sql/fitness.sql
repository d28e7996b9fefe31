-- Fitness for use (Xiao et al., PVLDB 2020): Gaussian noise N(0, Sigma) on B x, answers L (B x + noise),
-- meeting a variance target for every query at the least privacy cost max_i sqrt(b_i^T Sigma^-1 b_i).
\set SHOW_CONTEXT never
SET client_min_messages = warning;
-- identity queries plus the total over d cells
CREATE FUNCTION pg_temp.idsum(d int) RETURNS float8[] LANGUAGE sql AS $$
  SELECT array_cat(ARRAY(SELECT ARRAY(SELECT (i = j)::int::float8 FROM generate_series(1, d) j ORDER BY j)
                           FROM generate_series(1, d) i ORDER BY i),
                   ARRAY[array_fill(1.0::float8, ARRAY[d])]) $$;
-- prefix ranges as the paper writes them: the upper triangle of ones
CREATE FUNCTION pg_temp.prefix(d int) RETURNS float8[] LANGUAGE sql AS $$
  SELECT ARRAY(SELECT ARRAY(SELECT (j >= i)::int::float8 FROM generate_series(1, d) j ORDER BY j)
                 FROM generate_series(1, d) i ORDER BY i) $$;
-- 2d ranges with uniformly random end points (section 7.4), reproducible
CREATE FUNCTION pg_temp.ranges(d int, seed float8) RETURNS float8[] LANGUAGE plpgsql AS $$
DECLARE
  w float8[] := '{}';
  a int;
  b int;
BEGIN
  PERFORM setseed(seed);
  FOR q IN 1 .. 2 * d LOOP
    a := 1 + floor(random() * d);
    b := 1 + floor(random() * d);
    w := w || ARRAY[ARRAY(SELECT (j BETWEEN least(a, b) AND greatest(a, b))::int::float8
                            FROM generate_series(1, d) j ORDER BY j)];
  END LOOP;
  RETURN w;
END $$;
-- diag(W Sigma W^T) for the identity basis: every query's variance
CREATE FUNCTION pg_temp.variances(w float8[], sigma float8[]) RETURNS float8[] LANGUAGE sql AS $$
  SELECT array_agg(v ORDER BY j) FROM (
    SELECT j, sum(w[j][a] * sigma[a][b] * w[j][b]) AS v
      FROM generate_series(1, array_length(w, 1)) j, generate_series(1, array_length(w, 2)) a,
           generate_series(1, array_length(w, 2)) b
     GROUP BY j) t $$;
-- per-query variances under unit Gaussian noise on strategy a: the error profile's terms
CREATE FUNCTION pg_temp.unit_variances(w float8[], a float8[]) RETURNS TABLE(query int, v float8) LANGUAGE sql AS $$
  SELECT e.query, e.variance / dpm.gaussian_sigma(1, 1e-6, dpm.sensitivity(a, 'l2')) ^ 2
    FROM dpm.expected_error(w, a, 1, 1e-6) e $$;
-- the privacy cost strategy a needs to meet every target, its noise rescaled as the paper does:
-- Delta_2(A) sqrt(max_j v_j / c_j)
CREATE FUNCTION pg_temp.rescaled_cost(w float8[], a float8[], c float8[]) RETURNS float8 LANGUAGE sql AS $$
  SELECT dpm.sensitivity(a, 'l2') * sqrt(max(u.v / c[u.query])) FROM pg_temp.unit_variances(w, a) u $$;
-- every target met: variance <= target (1 + 1e-6), and the tightest one reached
CREATE FUNCTION pg_temp.targets_met(w float8[], a float8[], c float8[]) RETURNS boolean LANGUAGE sql AS $$
  SELECT bool_and(u.v <= c[u.query] * (1 + 1e-6)) AND max(u.v / c[u.query]) >= 1 - 1e-6
    FROM pg_temp.unit_variances(w, a) u $$;

-- Section 5.1, Theorem 7: with target gamma for every query, Sigma = a I + b 1 1^T with
-- a = (d + 1) / d gamma, b = -gamma / d, and squared privacy cost 2 d / ((1 + d) gamma): every
-- target met, the identity queries and the total exactly at it.  d = 5, 8, 16; gamma = 1, 2.5.
SELECT d, gamma,
       abs(f.privacy_cost ^ 2 / (2.0 * d / ((1 + d) * gamma)) - 1) < 1e-5 AS cost_theorem_7,
       abs(f.sigma[1][1] - ((d + 1.0) / d * gamma - gamma / d)) < 1e-5 * gamma AS a_plus_b,
       -- the objective is flat to first order around the optimum, so with a tolerance of 1e-6
       -- on it an entry of Sigma is pinned down less tightly (2.4e-5 gamma seen at d = 16)
       abs(f.sigma[1][2] + gamma / d) < 1e-4 * gamma AS b,
       (SELECT bool_and(v <= gamma * (1 + 1e-6)) AND max(v) >= gamma * (1 - 1e-6)
          FROM unnest(pg_temp.variances(pg_temp.idsum(d), f.sigma)) v) AS targets_met
  FROM (VALUES (5, 1.0), (8, 1.0), (16, 2.5)) c(d, gamma),
       dpm_internal.fitness(pg_temp.idsum(d), jsonb_build_object('targets', gamma)) f
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

-- Table 2 of the paper: the squared privacy cost of prefix queries with unit targets, which an
-- interior point method confirmed: 1.33, 1.76, 2.28, 2.91, 4.46 for d = 2, 4, 8, 16, 64.
SELECT d, abs(f.privacy_cost ^ 2 - paper) <= 0.005 AS table_2, f.iterations < 1000 AS converged
  FROM (VALUES (2, 1.33), (4, 1.76), (8, 2.28), (16, 2.91), (64, 4.46)) t(d, paper),
       dpm_internal.fitness(pg_temp.prefix(d), '{"targets": 1}') f
 ORDER BY d;

-- Theorems 2 and 4: the basis is a convenience.  Identity, upper-triangular and the workload's row
-- space give the same mechanism: the same privacy cost and the same privacy profile.
SELECT count(DISTINCT round(f.privacy_cost::numeric, 5)) = 1 AS same_cost,
       max(abs(p.v - f.privacy_cost)) < 1e-5 AS flat_profile
  FROM (VALUES ('identity'), ('upper'), ('workload')) b(basis),
       dpm_internal.fitness(pg_temp.prefix(12), jsonb_build_object('targets', 1, 'basis', b.basis)) f,
       unnest(dpm_internal.column_norms(f.strategy)) p(v);

-- Per-query targets: random ranges over 32 cells (section 7.4, rank 31: the workload basis) with
-- uniform and random (uniform 1 to 10) targets; every target met, and no matrix-mechanism
-- strategy needs less privacy for them, rescaled to meet them: gaussian_optimal (CA),
-- hierarchical (HM), identity (IP).
CREATE TEMP TABLE fr AS
  SELECT pg_temp.ranges(32, 0.25) AS w,
         array_fill(1.0::float8, ARRAY[64]) AS uniform,
         (SELECT array_agg(1 + 9 * random()) FROM (SELECT setseed(0.5)) s, generate_series(1, 64)) AS random;
SELECT kind, pg_temp.targets_met(w, f.strategy, c) AS targets_met,
       f.privacy_cost <= pg_temp.rescaled_cost(w, dpm.strategy(w, 'gaussian_optimal'), c) * (1 + 1e-6) AS beats_ca,
       f.privacy_cost <= pg_temp.rescaled_cost(w, dpm.strategy(w, 'hierarchical'), c) AS beats_hm,
       f.privacy_cost <= pg_temp.rescaled_cost(w, dpm.strategy(w, 'identity'), c) AS beats_ip
  FROM fr, LATERAL (VALUES ('uniform', uniform), ('random', random)) t(kind, c),
       LATERAL dpm_internal.fitness(w, jsonb_build_object('targets', to_jsonb(c))) f;

-- Sections 7.3 and 7.7 through the catalog: a PL-94-like workload (voting age x ethnicity x race,
-- race cut to 7 values: each marginal and the identity) and all one- and two-way marginals of
-- three attributes of 3 values, unit targets.  Targets met, and cheaper than gaussian_optimal,
-- hierarchical and identity rescaled to meet them.
CREATE TABLE ff_census AS
  SELECT g % 2 AS va, (g / 2) % 2 AS eth, (g / 4) % 7 AS race, g % 3 AS a, (g / 3) % 3 AS b, (g / 9) % 3 AS c
    FROM generate_series(1, 500) g;
SELECT dpm.register_source('ff_census', rho => 1);
SELECT dpm.create_domain('ff_pl94', 'ff_census',
  '[{"name": "va", "values": [0, 1]}, {"name": "eth", "values": [0, 1]}, {"name": "race", "values": [0, 1, 2, 3, 4, 5, 6]}]');
SELECT dpm.create_domain('ff_abc', 'ff_census',
  '[{"name": "a", "values": [0, 1, 2]}, {"name": "b", "values": [0, 1, 2]}, {"name": "c", "values": [0, 1, 2]}]');
SELECT dpm.create_workload('ff_pl94', 'ff_pl94', 'Marginal(va) + Marginal(eth) + Marginal(race) + Marginal(va, eth, race)');
SELECT dpm.create_workload('ff_marg', 'ff_abc',
  'Marginal(a) + Marginal(b) + Marginal(c) + Marginal(a, b) + Marginal(a, c) + Marginal(b, c)');
CREATE TEMP TABLE ff_ids AS
  SELECT name, dpm.optimize(name, method => 'fitness', options => '{"targets": 1}') AS f,
         dpm.optimize(name, method => 'gaussian_optimal', rho => 1) AS ca, dpm.optimize(name, method => 'hierarchical', rho => 1) AS hm,
         dpm.strategy(matrix, 'identity') AS ip
    FROM dpm.workloads WHERE name IN ('ff_pl94', 'ff_marg');
SELECT w.name, pg_temp.targets_met(w.matrix, f.matrix, array_fill(1.0::float8, ARRAY[w.m])) AS targets_met,
       f.sensitivity_l2 <= pg_temp.rescaled_cost(w.matrix, ca.matrix, array_fill(1.0::float8, ARRAY[w.m])) * (1 + 1e-6) AS beats_ca,
       f.sensitivity_l2 <= pg_temp.rescaled_cost(w.matrix, hm.matrix, array_fill(1.0::float8, ARRAY[w.m])) AS beats_hm,
       f.sensitivity_l2 <= pg_temp.rescaled_cost(w.matrix, i.ip, array_fill(1.0::float8, ARRAY[w.m])) AS beats_ip
  FROM ff_ids i JOIN dpm.workloads w USING (name)
       JOIN dpm.strategies f ON f.id = i.f JOIN dpm.strategies ca ON ca.id = i.ca
       JOIN dpm.strategies hm ON hm.id = i.hm
 ORDER BY w.name;

-- The total-variance weight lambda: a smaller total for a higher privacy cost, targets still met
SELECT l.privacy_cost >= f.privacy_cost * (1 - 1e-6) AS costs_more,
       (SELECT sum(v) FROM pg_temp.unit_variances(pg_temp.idsum(16), l.strategy))
         < (SELECT sum(v) FROM pg_temp.unit_variances(pg_temp.idsum(16), f.strategy)) * 0.99 AS lower_total,
       pg_temp.targets_met(pg_temp.idsum(16), l.strategy, array_fill(1.0::float8, ARRAY[17])) AS targets_met
  FROM dpm_internal.fitness(pg_temp.idsum(16), '{"targets": 1}') f,
       dpm_internal.fitness(pg_temp.idsum(16), '{"targets": 1, "lambda": 1}') l;

-- long optimizations can be cancelled: a statement timeout stops one that needs seconds
CREATE TEMP TABLE fr_big AS SELECT pg_temp.ranges(128, 0.5) AS w;
SET statement_timeout = '300ms';
SELECT privacy_cost FROM fr_big, dpm_internal.fitness(w, '{"targets": 1}');
RESET statement_timeout;

-- bad input
SELECT privacy_cost FROM dpm_internal.fitness(pg_temp.idsum(3), '{"targets": [1, 2]}');
SELECT privacy_cost FROM dpm_internal.fitness(pg_temp.idsum(3), '{"targets": 0}');
SELECT privacy_cost FROM dpm_internal.fitness(pg_temp.idsum(3), '{"targets": "1"}');
SELECT privacy_cost FROM dpm_internal.fitness(pg_temp.idsum(3), '{"targets": []}');
SELECT privacy_cost FROM dpm_internal.fitness(pg_temp.idsum(3), '{}');
SELECT privacy_cost FROM dpm_internal.fitness('{{1,0},{0,0}}', '{"targets": 1}');
SELECT privacy_cost FROM dpm_internal.fitness(pg_temp.idsum(3), '{"targets": 1, "mu": 1}');
SELECT privacy_cost FROM dpm_internal.fitness(pg_temp.idsum(3), '{"targets": 1, "basis": "lower"}');
SELECT privacy_cost FROM dpm_internal.fitness(pg_temp.idsum(3), '{"targets": 1, "step": 1}');
SELECT privacy_cost FROM dpm_internal.fitness('{{1,1,0},{0,0,1}}', '{"targets": 1, "basis": "identity"}');

-- Exact (epsilon, delta) from the privacy cost (Corollary 1), accurate for tiny delta: the
-- epsilon for a delta gives back that delta, and against values computed independently
-- (scipy's norm.cdf and brentq) for cost 0.5163979 and delta 1e-6: epsilon 2.33548155847.
SELECT delta, abs(dpm.gaussian_delta(dpm.gaussian_epsilon(delta, 1, 0.8), 1, 0.8) / delta - 1) < 1e-9 AS round_trip
  FROM unnest('{1e-3, 1e-6, 1e-12, 1e-30}'::float8[]) delta;
SELECT abs(dpm.gaussian_epsilon(1e-6, 1, 0.5163979017906891) - 2.335481558469) < 1e-9 AS scipy_epsilon;
SELECT dpm.gaussian_epsilon(0, 1, 1);
SELECT dpm.gaussian_delta(-1, 1, 1);

-- Through the catalog.  A zCDP source, an (epsilon, delta) one and a pure one; cells of 8 ages.
CREATE TABLE ff_people AS SELECT g AS id, g % 8 AS age FROM generate_series(1, 8000) g;
CREATE TABLE ff_people_dp AS SELECT * FROM ff_people;
CREATE TABLE ff_people_pure AS SELECT * FROM ff_people;
SELECT dpm.register_source('ff_people', rho => 5);
SELECT dpm.register_source('ff_people_dp', epsilon => 10, delta => 1e-3);
SELECT dpm.register_source('ff_people_pure', epsilon => 10);
SELECT dpm.create_domain('ff_age', 'ff_people', '[{"name": "age", "values": [0, 1, 2, 3, 4, 5, 6, 7]}]');
SELECT dpm.create_domain('ff_age_dp', 'ff_people_dp', '[{"name": "age", "values": [0, 1, 2, 3, 4, 5, 6, 7]}]');
SELECT dpm.create_domain('ff_age_pure', 'ff_people_pure', '[{"name": "age", "values": [0, 1, 2, 3, 4, 5, 6, 7]}]');
SELECT dpm.create_workload('ff_w', 'ff_age', 'Identity(age) + Total(age)');
SELECT dpm.create_workload('ff_w_dp', 'ff_age_dp', 'Identity(age) + Total(age)');
SELECT dpm.create_workload('ff_w_pure', 'ff_age_pure', 'Identity(age) + Total(age)');
-- targets per block of the spec: each age within +-2 (variance 4), the total within +-4 (16)
SELECT dpm.optimize('ff_w', method => 'fitness', options => '{"targets": [4, 16]}') AS fit \gset
SELECT method, noise, rows, iterations > 0 AS iterated FROM dpm.strategies WHERE id = :fit;
SELECT pg_temp.targets_met(w.matrix, s.matrix, array_fill(4.0::float8, ARRAY[8]) || 16.0::float8) AS targets_met
  FROM dpm.strategies s JOIN dpm.workloads w ON w.id = s.workload_id WHERE s.id = :fit;
-- the same targets given per query make the same strategy
SELECT abs(privacy_cost - (SELECT sensitivity_l2 FROM dpm.strategies WHERE id = :fit)) < 1e-6 AS same_as_per_block
  FROM dpm_internal.fitness(pg_temp.idsum(8), '{"targets": [4, 4, 4, 4, 4, 4, 4, 4, 16]}');
SELECT dpm.optimize('ff_w', method => 'fitness', options => '{"targets": [4, 16, 1]}');
-- prioritizing accuracy: rho = cost^2 / 2, the exact epsilon for a delta; the profile's maximum is the cost
SELECT abs(zcdp_rho - privacy_cost ^ 2 / 2) < 1e-12 AS rho_is_half_cost2, variance_scale = 1 AS targets_exact,
       abs(dp_epsilon - dpm.gaussian_epsilon(1e-6, 1, privacy_cost)) < 1e-12 AS exact_epsilon
  FROM dpm.fitness_privacy(:fit, delta => 1e-6);
SELECT abs(max(privacy_cost) - (SELECT sensitivity_l2 FROM dpm.strategies WHERE id = :fit)) < 1e-12 AS max_is_cost,
       count(*) AS cells
  FROM dpm.privacy_profile(:fit);
-- prioritizing privacy (Problem 2, Theorem 5): at rho the variances are k times the targets,
-- k = cost^2 / (2 rho); at (epsilon, delta), k = sigma(epsilon, delta, cost)^2
SELECT abs(p.variance_scale - c.privacy_cost ^ 2 / 2 / 0.05) < 1e-12 AS k_from_rho
  FROM dpm.fitness_privacy(:fit) c, dpm.fitness_privacy(:fit, rho => 0.05) p;
SELECT abs(p.variance_scale - dpm.gaussian_sigma(1, 1e-6, c.privacy_cost) ^ 2) < 1e-9 AS k_from_epsilon_delta
  FROM dpm.fitness_privacy(:fit) c, dpm.fitness_privacy(:fit, epsilon => 1, delta => 1e-6) p;
SELECT * FROM dpm.fitness_privacy(:fit, epsilon => 1);
SELECT * FROM dpm.fitness_privacy(:fit, epsilon => 1, delta => 1e-6, rho => 1);
SELECT * FROM dpm.fitness_privacy(:fit, delta => 2);
SELECT * FROM dpm.fitness_privacy(1000000);

-- Answering with neither epsilon nor rho charges what the targets need: the ledger's rho is
-- cost^2 / 2 (plus the sampler's grid allowance, < 1e-5 relative), and every reported variance
-- is at most its target and within 1e-5 of it.
SELECT query, stderr ^ 2 <= (CASE WHEN query = 9 THEN 16 ELSE 4 END) AND
              stderr ^ 2 >= (CASE WHEN query = 9 THEN 16 ELSE 4 END) * (1 - 1e-5) AS at_target
  FROM dpm.answer('ff_w', strategy => :fit) ORDER BY query;
SELECT l.rho >= c.zcdp_rho AND l.rho <= c.zcdp_rho * (1 + 1e-5) AS charged_cost2_over_2
  FROM dpm.ledger l, dpm.fitness_privacy(:fit) c
 WHERE l.source_id = (SELECT id FROM dpm.sources WHERE relation = 'ff_people'::regclass);
-- ... or, given rho, the variances are k times the targets
SELECT query, abs(stderr ^ 2 / (CASE WHEN query = 9 THEN 16 ELSE 4 END) / p.variance_scale - 1) < 1e-5 AS k_times_target
  FROM dpm.answer('ff_w', rho => 0.05, strategy => :fit), dpm.fitness_privacy(:fit, rho => 0.05) p ORDER BY query;
SELECT count(*) AS releases, sum(rho) < 0.2 AS spent FROM dpm.ledger
 WHERE source_id = (SELECT id FROM dpm.sources WHERE relation = 'ff_people'::regclass);
-- an (epsilon, delta) source is charged the exact epsilon for its delta; the method optimizes on the way
SELECT bool_and(stderr ^ 2 <= CASE WHEN query = 9 THEN 16 ELSE 4 END) AS targets_met
  FROM dpm.answer('ff_w_dp', delta => 1e-6, method => 'fitness', options => '{"targets": [4, 16]}');
SELECT l.epsilon::float8 >= c.dp_epsilon AND l.epsilon::float8 <= c.dp_epsilon * (1 + 1e-5) AS exact_epsilon,
       l.delta = 1e-6 AS delta
  FROM dpm.ledger l, dpm.strategies s, LATERAL dpm.fitness_privacy(s.id, delta => 1e-6) c
 WHERE l.source_id = (SELECT id FROM dpm.sources WHERE relation = 'ff_people_dp'::regclass)
   AND s.workload_id = (SELECT id FROM dpm.workloads WHERE name = 'ff_w_dp') AND s.method = 'fitness';
-- refused, and nothing charged: Laplace noise, no delta on an (epsilon, delta) source, a pure
-- source, neither epsilon nor rho for another method
SELECT * FROM dpm.answer('ff_w_dp', epsilon => 1, method => 'fitness', options => '{"targets": [4, 16]}');
SELECT * FROM dpm.answer('ff_w_dp', method => 'fitness', options => '{"targets": [4, 16]}');
SELECT * FROM dpm.answer('ff_w_pure', method => 'fitness', options => '{"targets": [4, 16]}');
SELECT * FROM dpm.answer('ff_w_dp', delta => 1e-6, method => 'identity');
SELECT s.relation, count(l.release_id) AS charges FROM dpm.sources s LEFT JOIN dpm.ledger l ON l.source_id = s.id
 WHERE s.relation::text LIKE 'ff_people%' GROUP BY s.relation ORDER BY 1;

-- The mechanism's noise, statistically.  At the targets (unit noise on the strategy) each query's
-- answers over 4000 releases are unbiased and their variance is the target, at 5 standard
-- deviations of each statistic (variance of a sample variance of Gaussians: 2 sigma^4 / (N - 1)):
-- false alarm 5.7e-7 per check, below 1.1e-5 for the 18 checks.
CREATE TEMP TABLE fit AS SELECT f.* FROM dpm_internal.fitness(pg_temp.idsum(8), '{"targets": 1}') f;
CREATE TEMP TABLE fx AS SELECT '{5,0,12,3,3,40,1,7}'::float8[] AS x;
CREATE TEMP TABLE fdraws AS
  SELECT d, m.query, m.answer - t.answer AS err, m.stderr
    FROM fit, fx, generate_series(1, 4000) d,
         LATERAL dpm.mechanism(pg_temp.idsum(8), fit.strategy, fx.x, rho => fit.privacy_cost ^ 2 / 2 + 0 * d) m
    JOIN (SELECT i AS query, v AS answer FROM fx, unnest(dpm_internal.matvec(pg_temp.idsum(8), fx.x)) WITH ORDINALITY t(v, i)) t
   USING (query);
SELECT query, abs(max(stderr) ^ 2 - 1) < 1e-3 AS variance_is_target,
       abs(avg(err)) < 5 * max(stderr) / sqrt(count(*)) AS unbiased,
       abs(var_samp(err) / max(stderr) ^ 2 - 1) < 5 * sqrt(2.0 / (count(*) - 1)) AS variance_matches
  FROM fdraws GROUP BY query ORDER BY query;
