-- Sources, domains, workloads, strategies and answers through the catalog.
\set SHOW_CONTEXT never
SELECT setseed(0.25);
CREATE TABLE cat_people AS
  SELECT g AS id, g % 500 AS household, (g * 37) % 100 AS age,
         CASE WHEN g % 3 = 0 THEN 'F' ELSE 'M' END AS sex,
         (ARRAY['ND', 'SD', 'CA', 'NY', 'TX'])[1 + g % 5] AS state
    FROM generate_series(1, 5000) g;

-- register_source: checks
SELECT dpm.register_source('cat_people', epsilon => 0);
SELECT dpm.register_source('cat_people', epsilon => 'NaN');
SELECT dpm.register_source('cat_people');
SELECT dpm.register_source('cat_people', epsilon => 1, delta => 1);
SELECT dpm.register_source('cat_people', epsilon => 1, rho => 0.5);
SELECT dpm.register_source('cat_people', privacy_unit => 'nope', epsilon => 1);
SELECT dpm.register_source('cat_people', max_contributions => 2, epsilon => 1);
SELECT dpm.register_source('cat_people', epsilon => 1, max_contributions => 0);
SELECT dpm.register_source('pg_class_oid_index', epsilon => 1);
SELECT dpm.register_source('no_such_table', epsilon => 1);
SELECT dpm.register_source('cat_people', epsilon => 1);
SELECT dpm.register_source('cat_people', epsilon => 2);
SELECT model, budget_epsilon, budget_delta FROM dpm.sources WHERE relation = 'cat_people'::regclass;

-- domains: the four bin forms; a row goes to the first bin it matches
SELECT dpm.create_domain('cat_age', 'cat_people', '[{"name": "age", "bins": {"min": 0, "max": 100, "width": 25}}]');
SELECT dpm.create_domain('cat_mixed', 'cat_people',
  '[{"name": "age", "column": "age", "bins": [{"label": "young", "lo": 0, "hi": 18}, {"lo": 18, "hi": 65}, {"label": "old", "lo": 65}]},
    {"name": "sex", "values": ["F", "M"]},
    {"name": "region", "column": "state", "bins": [{"label": "dakotas", "condition": "state IN (''ND'', ''SD'')"},
                                                   {"label": "north", "condition": "state IN (''ND'', ''NY'')"},
                                                   {"label": "other", "condition": "true"}]}]');
SELECT name, n, attr_names, attr_sizes, bin_labels FROM dpm.domains WHERE name LIKE 'cat_%' ORDER BY name;

-- domain errors
SELECT dpm.create_domain('cat_age', 'cat_people', '[{"name": "age", "values": [1]}]');
SELECT dpm.create_domain('d1', 'pg_class', '[{"name": "age", "values": [1]}]');
SELECT dpm.create_domain('d1', 'cat_people', '{}');
SELECT dpm.create_domain('d1', 'cat_people', '[]');
SELECT dpm.create_domain('d1', 'cat_people', '[{"name": "nope", "values": [1]}]');
SELECT dpm.create_domain('d1', 'cat_people', '[{"name": "age", "values": []}]');
SELECT dpm.create_domain('d1', 'cat_people', '[{"name": "age"}]');
SELECT dpm.create_domain('d1', 'cat_people', '[{"name": "age", "values": [1], "bins": []}]');
SELECT dpm.create_domain('d1', 'cat_people', '[{"name": "age", "bins": {"min": 0, "max": 10, "width": 0}}]');
SELECT dpm.create_domain('d1', 'cat_people', '[{"name": "age", "bins": {"min": 0, "max": 10}}]');
SELECT dpm.create_domain('d1', 'cat_people', '[{"name": "age", "bins": [{"lo": 5, "hi": 5}]}]');
SELECT dpm.create_domain('d1', 'cat_people', '[{"name": "age", "bins": [{"label": "x", "condition": "no_such_column > 1"}]}]');
-- a value its column's type cannot hold is named with its attribute and bin
SELECT dpm.create_domain('d1', 'cat_people', '[{"name": "sex", "values": ["F", "M"]}, {"name": "age", "values": [10, "ten"]}]');
SELECT dpm.create_domain('d1', 'cat_people', '[{"name": "age", "values": [99999999999]}]');
SELECT dpm.create_domain('d1', 'cat_people', '[{"name": "age", "values": [1.5]}]');
SELECT dpm.create_domain('d1', 'cat_people', '[{"name": "age", "values": [1], "colour": "red"}]');
SELECT dpm.create_domain('d1', 'cat_people', '[{"name": "age", "values": [1]}, {"name": "age", "column": "id", "values": [1]}]');
SELECT dpm.create_domain('d1', 'cat_people', '[{"name": "bad name", "column": "age", "values": [1]}]');
SELECT dpm.create_domain('d1', 'cat_people', '[{"name": "age", "bins": {"min": 0, "max": 1e9, "width": 1}}]');
-- past dpm.max_cells cells a domain is wide: no dense cell index (n and cell_expr NULL)
SET dpm.max_cells = 100;
SELECT dpm.create_domain('d1_wide', 'cat_people', '[{"name": "age", "bins": {"min": 0, "max": 100, "width": 1}}, {"name": "sex", "values": ["F", "M"]}]');
SELECT n, cells, cell_expr FROM dpm.domains WHERE name = 'd1_wide';
RESET dpm.max_cells;

-- the frequency vector follows the bins: ages 0..99 evenly; first matching region wins
-- (ND goes to dakotas, NY to north, the rest to other)
SELECT answer FROM dpm.exact_answers('no_such_workload');
SELECT dpm.create_workload('cat_cells', 'cat_mixed', dpm.strategy(array_fill(1::float8, ARRAY[1, 18]), 'identity'));
SELECT query, label, answer FROM dpm.exact_answers('cat_cells') ORDER BY query LIMIT 6;
SELECT sum(answer) AS all_rows FROM dpm.exact_answers('cat_cells');
SELECT sum(answer) FILTER (WHERE (query - 1) % 3 = 0) AS dakotas,
       sum(answer) FILTER (WHERE (query - 1) % 3 = 1) AS north,
       sum(answer) FILTER (WHERE (query - 1) % 3 = 2) AS other
  FROM dpm.exact_answers('cat_cells');

-- workloads from the spec algebra carry readable labels; the true answers follow them
SELECT dpm.create_workload('cat_spec', 'cat_mixed', 'Prefix(age) * Identity(sex) + Marginal(region)');
SELECT l.query, l.label, t.answer
  FROM dpm.workloads w, unnest(w.labels) WITH ORDINALITY l(label, query)
  JOIN dpm.exact_answers('cat_spec') t USING (query)
 WHERE w.name = 'cat_spec' ORDER BY l.query;

-- explicit workloads: shape checks
SELECT dpm.create_workload('cat_cells', 'cat_mixed', '{{1}}'::float8[]);
SELECT dpm.create_workload('w_bad', 'cat_age', '{{1,1,1}}'::float8[]);
SELECT dpm.create_workload('w_bad', 'cat_age', '{{1,1,NaN,1}}'::float8[]);
SELECT dpm.create_workload('w_bad', 'no_domain', '{{1,1,1,1}}'::float8[]);
SELECT dpm.create_workload('cat_total', 'cat_age', '{{1,1,1,1},{1,1,0,0}}'::float8[]);

-- strategies: cached, and auto picks the lowest expected error for the noise model
SELECT dpm.optimize('cat_total', method => 'hierarchical') = dpm.optimize('cat_total', method => 'hierarchical') AS cached;
SELECT dpm.optimize('cat_total') AS auto_id \gset
SELECT s.method = (SELECT c.method FROM dpm.strategies c
                    WHERE c.workload_id = s.workload_id AND c.noise = 'laplace'
                    ORDER BY c.sensitivity_l1 ^ 2 * c.profile_trace LIMIT 1) AS auto_is_lowest,
       (SELECT count(*) FROM dpm.strategies c WHERE c.workload_id = s.workload_id) AS candidates
  FROM dpm.strategies s WHERE s.id = :auto_id;
SELECT dpm.optimize('cat_total', method => 'nope');
SELECT dpm.optimize('nope', method => 'identity');
SELECT dpm.optimize('cat_total', method => 'identity', epsilon => -1);
SELECT dpm.optimize('cat_total', method => 'auto', options => '{"x": 1}');
SELECT method, rows, sensitivity_l1, round(profile_trace::numeric, 9) AS profile_trace
  FROM dpm.strategies WHERE workload_id = (SELECT id FROM dpm.workloads WHERE name = 'cat_total')
   AND method IN ('identity', 'hierarchical', 'wavelet', 'workload') ORDER BY method;

-- answers: stderr is the closed form, labels are the workload's, the budget is charged exactly
-- (near_truth: within 6 standard errors; for these sums of at most 7 Laplace variables the
-- probability of a larger error is below 1e-5 per answer)
SELECT dpm.optimize('cat_total', method => 'hierarchical') AS h_id \gset
SELECT query, label, abs(a.answer - t.answer) < 6 * stderr AS near_truth,
       abs(stderr - sqrt(e.variance)) < 1e-6 * stderr AS stderr_ok
  FROM dpm.answer('cat_total', epsilon => 0.5, strategy => :h_id) a
  JOIN dpm.exact_answers('cat_total') t USING (query, label)
  JOIN dpm.expected_error('{{1,1,1,1},{1,1,0,0}}', dpm.strategy('{{1,1,1,1}}', 'hierarchical'), 0.5) e USING (query);
SELECT epsilon_spent, epsilon_remaining, releases FROM dpm.budget('cat_people');

-- ten charges of 0.05 spend exactly 0.5: the budget of 1 is then used up exactly
-- (each answer after the first says, in a NOTICE, that it is a new charge: silenced here)
SET client_min_messages = warning;
SELECT count(*) FROM generate_series(1, 10) i, LATERAL dpm.answer('cat_total', epsilon => 0.05 + 0 * i) a;
RESET client_min_messages;
SELECT epsilon_budget, epsilon_spent, epsilon_remaining, releases FROM dpm.budget('cat_people');
SELECT count(*) FROM dpm.answer('cat_total', epsilon => 1e-9);
SELECT epsilon_spent FROM dpm.budget('cat_people');
SELECT count(*) AS releases, sum(epsilon) AS released_epsilon,
       (SELECT sum(epsilon) FROM dpm.ledger l JOIN dpm.sources s ON s.id = l.source_id
         WHERE s.relation = 'cat_people'::regclass) AS ledger_epsilon
  FROM dpm.releases r JOIN dpm.sources s ON s.id = r.source_id WHERE s.relation = 'cat_people'::regclass;

-- answer errors change nothing
SELECT * FROM dpm.answer('cat_total');
SELECT * FROM dpm.answer('cat_total', epsilon => 0);
SELECT * FROM dpm.answer('cat_total', epsilon => 'NaN');
SELECT * FROM dpm.answer('cat_total', epsilon => 0.1, delta => 1e-6);
SELECT * FROM dpm.answer('cat_total', epsilon => 0.1, rho => 0.1);
SELECT * FROM dpm.answer('cat_total', epsilon => 0.1, strategy => 99999);
SELECT dpm.optimize('cat_total', method => 'identity') AS total_identity \gset
SELECT * FROM dpm.answer('cat_cells', epsilon => 0.1, strategy => :total_identity);
SELECT * FROM dpm.answer('cat_cells', epsilon => 0.1, strategy => :total_identity, method => 'identity');
-- the release runs in a transaction of its own, which cannot see a strategy this one has not committed
SELECT * FROM dpm.answer('cat_total', epsilon => 0.1, strategy => dpm.optimize('cat_total', method => 'hierarchical', options => '{"branching": 3}'));
BEGIN;
SELECT dpm.create_workload('cat_uncommitted', 'cat_age', 'Total(age)');
SELECT * FROM dpm.answer('cat_uncommitted', epsilon => 0.1);
ROLLBACK;
SELECT * FROM dpm.answer('nope', epsilon => 0.1);
SELECT epsilon_spent, releases FROM dpm.budget('cat_people');
SELECT * FROM dpm.budget('pg_class');

-- Gaussian noise under an (epsilon, delta) source, and user-level privacy: with up to 3 rows per
-- person, the sensitivity and so the standard error triple.  Every person has 4 rows of one kind,
-- so each kind counts 250 persons x 3 kept rows = 750.
CREATE TABLE cat_visits AS SELECT g AS id, g % 1000 AS person, g % 4 AS kind FROM generate_series(1, 4000) g;
SELECT dpm.register_source('cat_visits', privacy_unit => 'person', max_contributions => 3, epsilon => 5, delta => 1e-5);
SELECT dpm.create_domain('cat_kind', 'cat_visits', '[{"name": "kind", "values": [0, 1, 2, 3]}]');
SELECT dpm.create_workload('cat_kinds', 'cat_kind', '{{1,0,0,0},{0,1,0,0},{0,0,1,0},{0,0,0,1}}'::float8[]);
SELECT query, abs(answer - 750) < 6 * stderr AS near_truth,
       abs(stderr - 3 * dpm.gaussian_sigma(1, 1e-6)) < 1e-6 * stderr AS gaussian_stderr_ok
  FROM dpm.answer('cat_kinds', epsilon => 1, delta => 1e-6, method => 'identity');
SELECT query, abs(stderr - 3 * sqrt(2) / 0.5) < 1e-6 * stderr AS laplace_stderr_ok
  FROM dpm.answer('cat_kinds', epsilon => 0.5, method => 'identity');
SELECT model, epsilon_spent, delta_spent, delta_remaining FROM dpm.budget('cat_visits');

-- an analyst needs no privilege on the source, and cannot register, define domains or read true answers
CREATE ROLE regress_cat_analyst IN ROLE dpm_analyst;
SET ROLE regress_cat_analyst;
SELECT count(*) FROM cat_people;
SELECT count(*) FROM dpm.answer('cat_kinds', epsilon => 0.01);
SELECT dpm.register_source('cat_people', epsilon => 100);
SELECT dpm.create_domain('d2', 'cat_people', '[{"name": "age", "values": [1]}]');
SELECT * FROM dpm.exact_answers('cat_total');
INSERT INTO dpm.ledger (source_id, epsilon, delta) VALUES (1, -5, 0);
DELETE FROM dpm.ledger;
RESET ROLE;
DROP ROLE regress_cat_analyst;
