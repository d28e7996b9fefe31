-- Per-marginal variance targets for method residual (issue 21): the least privacy cost at which
-- every cell of marginal j has variance at most target j, charged accuracy-first like method
-- fitness (neither epsilon nor rho: the targets decide the charge).
\set SHOW_CONTEXT never
SET client_min_messages = warning;

CREATE TABLE tg AS SELECT g AS id, g % 5 AS a, (g / 5) % 3 AS b, (g / 15) % 4 AS c FROM generate_series(1, 600) g;
SELECT dpm.register_source('tg', 'id', 1, rho => 100);

-- By hand: one marginal of 5 cells with target t.  Identity with noise variance t meets it at
-- squared L2 sensitivity 1/t, and no strategy does better (each cell's own answer needs variance
-- <= t), so rho = 1/(2t): 0.125 for t = 4.  Tolerance: the solve's gap (tol 1e-6).
SELECT dpm.create_domain('tg1', 'tg', '[{"name": "a", "values": [0,1,2,3,4]}]');
SELECT dpm.create_workload('tg1_m', 'tg1', 'Marginal(a)');
SELECT abs(charge_rho / 0.125 - 1) < 1e-6 AS rho_by_hand, max_stderr ^ 2 <= 4 AS target_met,
       max_stderr ^ 2 > 4 * (1 - 1e-6) AS target_reached, charge_epsilon IS NULL AS zcdp
  FROM dpm.explain('tg1_m', method => 'residual', options => '{"targets": 4}');

-- Against method fitness, which solves the same problem over all strategies of the 60-cell domain
-- (fitness-for-use paper); for marginals the residual basis loses nothing, so the two charges agree
-- to the solvers' tolerances, and every marginal meets its own target.
SELECT dpm.create_domain('tg3', 'tg', '[{"name": "a", "values": [0,1,2,3,4]}, {"name": "b", "values": [0,1,2]},
                                       {"name": "c", "values": [0,1,2,3]}]');
SELECT dpm.create_workload('tg3_m', 'tg3', 'Marginal(a, b) + Marginal(b, c) + Marginal(a)');
SELECT abs(r.charge_rho / f.charge_rho - 1) < 1e-5 AS same_charge
  FROM dpm.explain('tg3_m', method => 'residual', options => '{"targets": [1, 2, 0.5]}') r,
       dpm.explain('tg3_m', method => 'fitness', options => '{"targets": [1, 2, 0.5]}') f;
SELECT t.marginal, max(q.stderr ^ 2) <= t.target AS met, max(q.stderr ^ 2) > t.target * (1 - 1e-4) AS tight
  FROM dpm.explain_queries('tg3_m', method => 'residual', options => '{"targets": [1, 2, 0.5]}') q
  JOIN (VALUES (1, 1, 15, 1.0), (2, 16, 27, 2.0), (3, 28, 32, 0.5)) t(marginal, first, last, target)
    ON q.query BETWEEN t.first AND t.last
 GROUP BY t.marginal, t.target ORDER BY t.marginal;

-- A release charges what explain said, once, and its answers are within 6 standard errors
SELECT charge_rho AS explained FROM dpm.explain('tg3_m', method => 'residual', options => '{"targets": [1, 2, 0.5]}') \gset
CREATE TEMP TABLE r1 AS SELECT * FROM dpm.answer('tg3_m', method => 'residual', options => '{"targets": [1, 2, 0.5]}');
SELECT abs((dpm.budget('tg')).rho_spent / :explained - 1) < 1e-12 AS charged_as_explained,
       count(*) AS answers, max(abs(a.answer - e.answer) / a.stderr) < 6 AS within_6_se
  FROM r1 a JOIN dpm.exact_answers('tg3_m') e USING (query);
SELECT count(*) AS releases FROM dpm.ledger l JOIN dpm.sources s ON s.id = l.source_id WHERE s.relation = 'tg'::regclass;
-- the stored strategy is reused, and with it the targets: a release by strategy id, no budget given
SELECT count(*) AS answers FROM dpm.answer('tg3_m', strategy => (SELECT s.id FROM dpm.strategies s
         JOIN dpm.workloads w ON w.id = s.workload_id WHERE w.name = 'tg3_m' AND s.method = 'residual'));

-- (epsilon, delta) sources: the epsilon that gives, with the delta asked for, the noise rho gave
-- (the same sigma: dpm.gaussian_sigma inverts it)
CREATE TABLE tg_approx AS SELECT * FROM tg;
SELECT dpm.register_source('tg_approx', 'id', 1, epsilon => 100, delta => 1e-5);
SELECT dpm.create_domain('tg1a', 'tg_approx', '[{"name": "a", "values": [0,1,2,3,4]}]');
SELECT dpm.create_workload('tg1a_m', 'tg1a', 'Marginal(a)');
SELECT abs(dpm.gaussian_sigma(charge_epsilon::float8, 1e-5) / 2 - 1) < 1e-6 AS sigma_2, charge_delta = 1e-5 AS delta,
       max_stderr ^ 2 <= 4 AS target_met
  FROM dpm.explain('tg1a_m', delta => 1e-5, method => 'residual', options => '{"targets": 4}');

-- A wide domain (10^30 cells): targets per marginal, met, on a release
CREATE TABLE tg_wide AS
  SELECT g AS id, (SELECT array_agg((g * (7 + 2 * k) + k * k) % 10 ORDER BY k) FROM generate_series(1, 30) k) AS v
    FROM generate_series(1, 400) g;
SELECT format('CREATE TABLE tg30 AS SELECT id, %s FROM tg_wide', string_agg(format('v[%s] AS a%s', k, k), ', ' ORDER BY k))
  FROM generate_series(1, 30) k \gexec
SELECT dpm.register_source('tg30', 'id', 1, rho => 1000);
SELECT dpm.create_domain('tg30', 'tg30',
  (SELECT jsonb_agg(jsonb_build_object('name', 'a' || k, 'values', jsonb_build_array(0,1,2,3,4,5,6,7,8,9)) ORDER BY k)
     FROM generate_series(1, 30) k));
SELECT dpm.create_workload('tg30_m', 'tg30', 'Marginal(a1, a2) + Marginal(a2, a3) + Marginal(a30) + Marginals(0)');
CREATE TEMP TABLE r30 AS
  SELECT * FROM dpm.answer('tg30_m', method => 'residual', options => '{"targets": [100, 100, 10, 1]}');
SELECT t.marginal, max(q.stderr ^ 2) <= t.target AS met, max(abs(q.answer - e.answer) / q.stderr) < 6 AS within_6_se
  FROM r30 q JOIN dpm.exact_answers('tg30_m') e USING (query)
  JOIN (VALUES (1, 1, 100, 100.0), (2, 101, 200, 100.0), (3, 201, 210, 10.0), (4, 211, 211, 1.0)) t(marginal, first, last, target)
    ON q.query BETWEEN t.first AND t.last
 GROUP BY t.marginal, t.target ORDER BY t.marginal;

-- bad input, refused before any charge
SELECT (dpm.budget('tg')).rho_spent AS spent_before \gset
SELECT * FROM dpm.explain('tg3_m', method => 'residual', options => '{"targets": [1, 2]}');
SELECT * FROM dpm.explain('tg3_m', method => 'residual', options => '{"targets": [1, -2, 0.5]}');
SELECT * FROM dpm.explain('tg3_m', method => 'residual', options => '{"targets": "1"}');
SELECT * FROM dpm.explain('tg3_m', method => 'residual', options => '{"targets": 1, "loss": "max"}');
SELECT * FROM dpm.explain('tg3_m', epsilon => 1, method => 'residual', options => '{"targets": 1}');
SELECT * FROM dpm.answer('tg1a_m', method => 'residual', options => '{"targets": 4}');
SELECT dpm.create_workload('tg3_prefix', 'tg3', 'Prefix(a) * Identity(b)');
SELECT * FROM dpm.explain('tg3_prefix', method => 'residual', options => '{"targets": 1}');
CREATE TABLE tg_pure AS SELECT * FROM tg;
SELECT dpm.register_source('tg_pure', 'id', 1, epsilon => 10);
SELECT dpm.create_domain('tg1p', 'tg_pure', '[{"name": "a", "values": [0,1,2,3,4]}]');
SELECT dpm.create_workload('tg1p_m', 'tg1p', 'Marginal(a)');
SELECT * FROM dpm.answer('tg1p_m', method => 'residual', options => '{"targets": 4}');
SELECT (dpm.budget('tg')).rho_spent = :spent_before AS nothing_charged, (dpm.budget('tg_approx')).epsilon_spent AS approx_spent,
       (dpm.budget('tg_pure')).epsilon_spent AS pure_spent;
