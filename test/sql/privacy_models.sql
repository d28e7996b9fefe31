-- Privacy models: pure epsilon, (epsilon, delta) and zCDP sources, what each accepts and
-- charges, the conversions between them; user-level privacy with a privacy unit.
\set SHOW_CONTEXT never
SET client_min_messages = warning;   -- repeated answers of one workload say so in a NOTICE
CREATE TABLE pm_people AS SELECT g AS id, g % 4 AS kind FROM generate_series(1, 4000) g;  -- 1000 of each kind

-- a zCDP budget is rho alone
SELECT dpm.register_source('pm_people', rho => 0);
SELECT dpm.register_source('pm_people', rho => 'NaN');
SELECT dpm.register_source('pm_people', rho => 'Infinity');
SELECT dpm.register_source('pm_people', rho => 0.5, epsilon => 1);
-- a zCDP source may carry a delta budget, which only selecting keys spends (keys.sql)
SELECT dpm.register_source('pm_people', rho => 0.5, delta => 1e-6);
SELECT model, budget_epsilon, budget_delta, budget_rho FROM dpm.sources WHERE relation = 'pm_people'::regclass;
SELECT dpm.create_domain('pm_kind', 'pm_people', '[{"name": "kind", "values": [0, 1, 2, 3]}]');
SELECT dpm.create_workload('pm_cells', 'pm_kind', 'Identity(kind)');

-- Gaussian noise under zCDP: sigma = Delta_2 / sqrt(2 rho), Delta_2 = 1 for the identity
SELECT query, abs(answer - 1000) < 6 * stderr AS near_truth,
       abs(stderr * sqrt(2 * 0.1) - 1) < 1e-6 AS zcdp_sigma_ok
  FROM dpm.answer('pm_cells', rho => 0.1, method => 'identity');
-- Laplace noise under zCDP is charged rho = epsilon^2 / 2 (epsilon-DP implies it)
SELECT query, abs(stderr * 0.5 / sqrt(2) - 1) < 1e-6 AS laplace_ok
  FROM dpm.answer('pm_cells', epsilon => 0.5, method => 'identity');
SELECT model, rho_budget, rho_spent, rho_remaining, epsilon_spent, releases FROM dpm.budget('pm_people');
SELECT noise, epsilon, delta, rho FROM dpm.releases r JOIN dpm.sources s ON s.id = r.source_id
 WHERE s.relation = 'pm_people'::regclass ORDER BY r.id;
-- the (epsilon, delta) that rho-zCDP implies: rho + 2 sqrt(rho ln(1/delta)), rounded up
SELECT implied_epsilon >= 0.225 + 2 * sqrt(0.225 * ln(1e6)) AS not_below,
       implied_epsilon - (0.225 + 2 * sqrt(0.225 * ln(1e6))) < 1e-9 AS tight
  FROM dpm.budget('pm_people', delta => 1e-6);
SELECT implied_epsilon FROM dpm.budget('pm_people');
SELECT * FROM dpm.budget('pm_people', delta => 0);
SELECT * FROM dpm.budget('pm_people', delta => 1);

-- what a zCDP source refuses; nothing is charged
SELECT * FROM dpm.answer('pm_cells', epsilon => 0.1, delta => 1e-6);
SELECT * FROM dpm.answer('pm_cells', epsilon => 0.1, rho => 0.1);
SELECT * FROM dpm.answer('pm_cells');
SELECT * FROM dpm.answer('pm_cells', rho => 0);
SELECT * FROM dpm.answer('pm_cells', rho => -1);
SELECT * FROM dpm.answer('pm_cells', rho => 'NaN');
SELECT * FROM dpm.answer('pm_cells', rho => 'Infinity');
SELECT * FROM dpm.answer('pm_cells', rho => 0.3);
SELECT rho_spent, releases FROM dpm.budget('pm_people');

-- rho composes additively and exactly: ten charges of 0.01 spend 0.1
SELECT count(*) FROM generate_series(1, 10) i, LATERAL dpm.answer('pm_cells', rho => 0.01 + 0 * i, method => 'identity');
SELECT rho_spent, rho_remaining, releases FROM dpm.budget('pm_people');

-- the custodian changes a budget, never below what was spent, never across models
SELECT dpm.set_budget('pm_people', rho => 0.3);
SELECT dpm.set_budget('pm_people', epsilon => 1);
SELECT dpm.set_budget('pm_people');
SELECT dpm.set_budget('pm_people', rho => 'NaN');
-- only under READ COMMITTED: an older snapshot would not see charges that committed meanwhile
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT dpm.set_budget('pm_people', rho => 1);
ROLLBACK;
SELECT dpm.set_budget('pm_people', rho => 1);
SELECT rho_budget, rho_remaining FROM dpm.budget('pm_people');

-- a pure source refuses Gaussian noise in any form; an (epsilon, delta) source refuses rho
CREATE TABLE pm_pure AS SELECT * FROM pm_people;
CREATE TABLE pm_approx AS SELECT * FROM pm_people;
SELECT dpm.register_source('pm_pure', epsilon => 1);
SELECT dpm.register_source('pm_approx', epsilon => 1, delta => 1e-6);
SELECT dpm.create_domain('pm_pure_kind', 'pm_pure', '[{"name": "kind", "values": [0, 1, 2, 3]}]');
SELECT dpm.create_domain('pm_approx_kind', 'pm_approx', '[{"name": "kind", "values": [0, 1, 2, 3]}]');
SELECT dpm.create_workload('pm_pure_cells', 'pm_pure_kind', 'Identity(kind)');
SELECT dpm.create_workload('pm_approx_cells', 'pm_approx_kind', 'Identity(kind)');
SELECT * FROM dpm.answer('pm_pure_cells', rho => 0.1);
SELECT * FROM dpm.answer('pm_pure_cells', epsilon => 0.1, delta => 1e-7);
SELECT * FROM dpm.answer('pm_approx_cells', rho => 0.1);
SELECT * FROM dpm.answer('pm_approx_cells', epsilon => 0.1, delta => 1e-5);
SELECT count(*) FROM dpm.answer('pm_approx_cells', epsilon => 0.1, delta => 1e-7);
SELECT count(*) FROM dpm.answer('pm_approx_cells', epsilon => 0.1);
SELECT model, epsilon_spent, delta_spent, rho_spent, releases FROM dpm.budget('pm_approx');
SELECT model, epsilon_spent, delta_spent, rho_spent, releases FROM dpm.budget('pm_pure');
SELECT dpm.set_budget('pm_pure', delta => 1e-6);
SELECT dpm.set_budget('pm_approx', epsilon => 0.1);
SELECT dpm.set_budget('pm_approx', epsilon => 2, delta => 1e-5);
SELECT epsilon_budget, delta_budget FROM dpm.budget('pm_approx');

-- User-level privacy.  Person 0 has 1000 rows, half in cell 0 and half in cell 1; persons 1..99
-- have one row each, in cell 2.  With max_contributions = 3 every release counts exactly 3 of
-- person 0's rows, chosen anew at random each time, and the noise scales by 3.
CREATE TABLE pm_visits AS
  SELECT 0 AS person, g % 2 AS cell FROM generate_series(1, 1000) g
  UNION ALL SELECT g, 2 FROM generate_series(1, 99) g;
SELECT dpm.register_source('pm_visits', privacy_unit => 'person', max_contributions => 3, epsilon => 1e6);
SELECT dpm.create_domain('pm_cell', 'pm_visits', '[{"name": "cell", "values": [0, 1, 2]}]');
SELECT dpm.create_workload('pm_visit_cells', 'pm_cell', 'Identity(cell)');
SELECT * FROM dpm.exact_answers('pm_visit_cells');          -- the custodian's view counts every row
-- 20 releases at epsilon = 1000: the noise (standard error 3 sqrt(2) / 1000) rounds away.  The
-- split of person 0's three rows between cells 0 and 1 is hypergeometric (1/8, 3/8, 3/8, 1/8);
-- the chance that all 20 releases keep the same split is below 1e-8.
CREATE TEMP TABLE pm_runs AS
  SELECT i, a.query, round(a.answer) AS v, a.stderr
    FROM generate_series(1, 20) i, LATERAL dpm.answer('pm_visit_cells', epsilon => 1000 + 0 * i, method => 'identity') a;
SELECT count(DISTINCT i) AS releases,
       bool_and(abs(stderr * 1000 / (3 * sqrt(2)) - 1) < 1e-6) AS stderr_scaled_by_3
  FROM pm_runs;
SELECT bool_and(person0 = 3) AS person0_counts_3, bool_and(others = 99) AS others_count_99,
       count(DISTINCT split) >= 2 AS split_varies
  FROM (SELECT i, sum(v) FILTER (WHERE query <= 2) AS person0, sum(v) FILTER (WHERE query = 3) AS others,
               sum(v) FILTER (WHERE query = 1) AS split
          FROM pm_runs GROUP BY i) r;
