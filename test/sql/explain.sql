-- The dry run: dpm.explain and dpm.explain_queries report what dpm.answer would do with the same
-- arguments, read no row of the source and charge nothing.
\set SHOW_CONTEXT never
CREATE TABLE ex_people AS SELECT g AS id, g % 5 AS kind FROM generate_series(1, 500) g;
SELECT dpm.register_source('ex_people', epsilon => 10, delta => 1e-3);
SELECT dpm.create_domain('ex_kind', 'ex_people', '[{"name": "kind", "values": [0,1,2,3,4]}]');
SELECT dpm.create_workload('ex_w', 'ex_kind', 'AllRange(kind)');
SELECT (SELECT count(*) FROM dpm.releases) AS rel0, (SELECT count(*) FROM dpm.ledger) AS led0 \gset

-- identity at epsilon = 1 (Laplace): a range of k cells has variance 2 k, so the total is
-- 2 * sum_k k (6 - k) = 70 over the 15 ranges; sensitivity 1; the whole budget but 1 remains
BEGIN;
-- the source's scans so far in this backend (create_domain read it to report its coverage), which
-- stay pending inside a transaction block
SELECT coalesce(sum(seq_scan + coalesce(idx_scan, 0)), 0) AS scans0
  FROM pg_stat_xact_user_tables WHERE relname = 'ex_people' \gset
SELECT strategy_method, noise, measurements, sensitivity, charge_epsilon, charge_delta, charge_rho, queries,
       abs(total_variance - 70) < 1e-6 * 70 AS total_variance_70,
       abs(max_stderr - sqrt(10)) < 1e-6 AS max_stderr_sqrt_10,
       max_ci_half_width > max_stderr AS has_intervals,
       epsilon_remaining, delta_remaining, within_budget
  FROM dpm.explain('ex_w', epsilon => 1, method => 'identity');
-- it read nothing: no new scan of the source, no release, no charge
SELECT coalesce(sum(seq_scan + coalesce(idx_scan, 0)), 0) - :scans0 AS source_scans
  FROM pg_stat_xact_user_tables WHERE relname = 'ex_people';
SELECT (SELECT count(*) FROM dpm.releases) - :rel0 AS new_releases, (SELECT count(*) FROM dpm.ledger) - :led0 AS new_charges;
COMMIT;

-- the standard errors are the ones the release then reports, query by query, and the budget
-- left is the one dpm.explain announced
CREATE TEMP TABLE ex_plan AS SELECT * FROM dpm.explain_queries('ex_w', epsilon => 1, method => 'hierarchical');
CREATE TEMP TABLE ex_sum AS SELECT * FROM dpm.explain('ex_w', epsilon => 1, method => 'hierarchical');
CREATE TEMP TABLE ex_ans AS SELECT * FROM dpm.answer('ex_w', epsilon => 1, method => 'hierarchical');
SELECT count(*) AS queries, bool_and(abs(p.stderr - a.stderr) < 1e-12 * a.stderr) AS same_stderr,
       bool_and(p.label = a.label) AS same_labels
  FROM ex_plan p JOIN ex_ans a USING (query);
SELECT s.epsilon_remaining = b.epsilon_remaining AS remaining_as_announced,
       s.strategy_id = (SELECT strategy_id FROM dpm.releases ORDER BY id DESC LIMIT 1) AS same_strategy,
       s.ratio_to_bound = st.ratio_to_bound AS ratio_from_catalog
  FROM ex_sum s, dpm.budget('ex_people') b, dpm.strategies st WHERE st.id = s.strategy_id;

-- Laplace intervals are simulated once per strategy and confidence (dpm.interval_widths) and scaled
-- to the noise: asking again gives the same widths, and half the epsilon twice the widths (the
-- discrete noise's variance follows its scale to far better than 1e-6)
CREATE TEMP TABLE ex_lap1 AS SELECT * FROM dpm.explain_queries('ex_w', epsilon => 1, method => 'wavelet');
CREATE TEMP TABLE ex_lap2 AS SELECT * FROM dpm.explain_queries('ex_w', epsilon => 1, method => 'wavelet');
CREATE TEMP TABLE ex_lap3 AS SELECT * FROM dpm.explain_queries('ex_w', epsilon => 0.5, method => 'wavelet');
SELECT count(*) AS queries, bool_and(a.ci_half_width = b.ci_half_width) AS same_widths_again,
       bool_and(abs(c.ci_half_width / a.ci_half_width - 2) < 1e-6) AS twice_at_half_epsilon,
       bool_and(a.ci_half_width > a.stderr) AS wider_than_stderr,
       (SELECT count(*) FROM dpm.interval_widths i JOIN dpm.strategies st ON st.id = i.strategy_id
         WHERE st.method = 'wavelet' AND st.workload_id = (SELECT id FROM dpm.workloads WHERE name = 'ex_w')) AS simulations
  FROM ex_lap1 a JOIN ex_lap2 b USING (query) JOIN ex_lap3 c USING (query);

-- Gaussian: exact normal half-widths; intervals off with confidence => NULL
SELECT bool_and(abs(ci_half_width / stderr - 1.959963984540054) < 1e-9) AS normal_half_widths
  FROM dpm.explain_queries('ex_w', epsilon => 0.5, delta => 1e-6, method => 'identity');
SELECT noise, charge_epsilon, charge_delta, mean_ci_half_width IS NULL AS no_intervals
  FROM dpm.explain('ex_w', epsilon => 0.5, delta => 1e-6, method => 'identity', confidence => NULL);

-- over budget: reported, not refused (dpm.answer would refuse)
SELECT epsilon_remaining, within_budget FROM dpm.explain('ex_w', epsilon => 9.5, method => 'identity');

-- a zCDP source: the charge and the remainder in rho
CREATE TABLE ex_z AS SELECT g AS id, g % 5 AS kind FROM generate_series(1, 500) g;
SELECT dpm.register_source('ex_z', rho => 1);
SELECT dpm.create_domain('ex_zkind', 'ex_z', '[{"name": "kind", "values": [0,1,2,3,4]}]');
SELECT dpm.create_workload('ex_zw', 'ex_zkind', 'Identity(kind)');
SELECT noise, charge_epsilon, charge_rho, rho_remaining, within_budget,
       abs(total_variance - 5 * 1 / (2 * 0.25)) < 1e-3 AS total_variance_closed_form
  FROM dpm.explain('ex_zw', rho => 0.25, method => 'identity');
SELECT noise, charge_epsilon, charge_rho, rho_remaining FROM dpm.explain('ex_zw', epsilon => 0.5, method => 'identity');

-- the same errors as dpm.answer for bad arguments, and still nothing charged
SELECT * FROM dpm.explain('ex_w', epsilon => -1);
SELECT * FROM dpm.explain('no_such_workload', epsilon => 1);
SELECT * FROM dpm.explain('ex_w', epsilon => 1, rho => 1);
SELECT * FROM dpm.explain('ex_w', epsilon => 1, confidence => 2);
SELECT * FROM dpm.explain('ex_zw', epsilon => 1, delta => 1e-6);
SELECT (SELECT count(*) FROM dpm.releases) - :rel0 AS new_releases, (SELECT count(*) FROM dpm.ledger) - :led0 AS new_charges;

-- one validation: every request dpm.answer refuses, dpm.explain refuses with the same error, and
-- before anything is charged (the sampler's range at a tiny epsilon, the draws a confidence
-- needs, a strategy of another workload, a method that does not exist, ...)
CREATE FUNCTION pg_temp.refusal(fn text, args text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('SELECT count(*) FROM dpm.%s(%s)', fn, args);
  RETURN 'accepted';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
SELECT dpm.optimize('ex_zw', method => 'identity') AS ex_zw_strategy \gset
SELECT regexp_replace(args, 'strategy => [0-9]+', 'strategy => (of ex_zw)') AS args,
       pg_temp.refusal('answer', args) = pg_temp.refusal('explain', args) AS same_refusal,
       regexp_replace(pg_temp.refusal('answer', args), 'strategy [0-9]+', 'strategy N') AS refusal
  FROM unnest(ARRAY[$$'ex_w', epsilon => 1e-18$$, $$'ex_w', epsilon => 1e-300$$, $$'ex_w', epsilon => 'NaN'$$,
                    $$'ex_w', rho => 1$$, $$'ex_w', epsilon => 1, delta => 1$$,
                    $$'ex_w', epsilon => 1, confidence => 0.9995$$, $$'ex_w', epsilon => 1, method => 'no_such_method'$$,
                    $$'ex_w', epsilon => 1, method => 'auto', options => '{"branching": 2}'$$,
                    format($$'ex_w', epsilon => 1, strategy => %s$$, :ex_zw_strategy),
                    format($$'ex_w', epsilon => 1, strategy => %s, method => 'identity'$$, :ex_zw_strategy),
                    $$'ex_w', epsilon => 1, method => 'identity', options => '{"nonsense": 1}'$$]) AS args;
SELECT (SELECT count(*) FROM dpm.releases) - :rel0 AS new_releases, (SELECT count(*) FROM dpm.ledger) - :led0 AS new_charges;

-- an analyst may look before spending, with no privilege on the table
CREATE ROLE regress_ex_analyst IN ROLE dpm_analyst;
SET ROLE regress_ex_analyst;
SELECT strategy_method, charge_epsilon, epsilon_remaining FROM dpm.explain('ex_w', epsilon => 1, method => 'identity');
SELECT count(*) FROM ex_people;
RESET ROLE;
DROP ROLE regress_ex_analyst;

-- A stored dense strategy keeps its pseudo-inverse and each query's profile term, so a release
-- does not factor A again: the cache reconstructs as least squares does and gives the closed-form
-- errors, and a cache that does not fit is refused.  The pseudo-inverse is kept transposed.
SELECT w.matrix AS w, s.matrix AS a, s.pinv AS pinv, s.profile AS profile
  FROM dpm.workloads w JOIN dpm.strategies s ON s.workload_id = w.id
 WHERE w.name = 'ex_w' AND s.method = 'hierarchical' \gset
SELECT (SELECT max(abs(u - v)) FROM unnest(ARRAY(SELECT sum((:'pinv'::float8[])[i][j] * ('{3,1,4,1,5,9,2,6,5}'::float8[])[i])
                                                   FROM generate_series(1, 9) i, generate_series(1, 5) j
                                                  GROUP BY j ORDER BY j),
                                            dpm.reconstruct(:'a', '{3,1,4,1,5,9,2,6,5}')) t(u, v)) < 1e-9 AS pinv_is_least_squares,
       (SELECT bool_and(abs(e.variance / (2 * dpm.sensitivity(:'a') ^ 2) - p) < 1e-9 * p)
          FROM dpm.expected_error(:'w', :'a', 1) e JOIN unnest(:'profile'::float8[]) WITH ORDINALITY t(p, q) ON q = e.query)
         AS profile_is_closed_form;
SELECT bool_and(abs(c.stderr - m.stderr) < 1e-12 * m.stderr) AS cached_same_stderr
  FROM dpm_internal.dense_infer(:'w', :'a', :'pinv', :'profile', dpm_internal.dense_measure(:'a', '{1,2,3,4,5}', 1, 1e-6)) c
  JOIN dpm.mechanism(:'w', :'a', '{1,2,3,4,5}', 1, 1e-6) m USING (query);
SELECT count(*) FROM dpm_internal.dense_infer(:'w', :'a', :'w', :'profile', dpm_internal.dense_measure(:'a', '{1,2,3,4,5}', 1));

-- Asked again, method auto reuses what it built (issue 22, item 4): a second dpm.explain, a
-- dpm.answer and a second dpm.compare_strategies build no strategy, and the release goes through
-- the strategy explain announced.  Each strategy keeps the time it took to build.
SELECT dpm.create_workload('ex_again', 'ex_kind', 'Prefix(kind) + Total(kind)') > 0 AS made;
CREATE TEMP TABLE ex_built AS
  SELECT s.id, s.method, s.optimize_ms FROM dpm.strategies s JOIN dpm.workloads w ON w.id = s.workload_id WHERE w.name = 'ex_again';
SELECT count(*) AS strategies_before FROM ex_built;
CREATE TEMP TABLE ex_first AS SELECT * FROM dpm.explain('ex_again', epsilon => 0.1);
CREATE TEMP TABLE ex_after_explain AS
  SELECT s.id, s.method, s.optimize_ms FROM dpm.strategies s JOIN dpm.workloads w ON w.id = s.workload_id WHERE w.name = 'ex_again';
SELECT count(*) > 0 AS explain_built FROM ex_after_explain;
CREATE TEMP TABLE ex_second AS SELECT * FROM dpm.explain('ex_again', epsilon => 0.2);
CREATE TEMP TABLE ex_answered AS SELECT * FROM dpm.answer('ex_again', epsilon => 0.1);
SELECT (SELECT count(*) FROM dpm.strategies s JOIN dpm.workloads w ON w.id = s.workload_id WHERE w.name = 'ex_again')
         = (SELECT count(*) FROM ex_after_explain) AS nothing_built_again,
       (SELECT bool_and(s.optimize_ms = a.optimize_ms) FROM ex_after_explain a JOIN dpm.strategies s USING (id)) AS same_strategies,
       (SELECT strategy_id FROM ex_second) = (SELECT strategy_id FROM ex_first) AS explain_same_pick,
       (SELECT strategy_id FROM dpm.releases ORDER BY id DESC LIMIT 1) = (SELECT strategy_id FROM ex_first) AS answer_same_pick;
CREATE TEMP TABLE ex_cmp1 AS SELECT * FROM dpm.compare_strategies('ex_again');
CREATE TEMP TABLE ex_after_compare AS
  SELECT s.id, s.optimize_ms FROM dpm.strategies s JOIN dpm.workloads w ON w.id = s.workload_id WHERE w.name = 'ex_again';
CREATE TEMP TABLE ex_cmp2 AS SELECT * FROM dpm.compare_strategies('ex_again');
SELECT (SELECT count(*) FROM dpm.strategies s JOIN dpm.workloads w ON w.id = s.workload_id WHERE w.name = 'ex_again')
         = (SELECT count(*) FROM ex_after_compare) AS compare_built_nothing_again,
       (SELECT bool_and(c1.strategy = c2.strategy AND c1.total_error = c2.total_error)
          FROM ex_cmp1 c1 JOIN ex_cmp2 c2 USING (method)) AS same_comparison,
       (SELECT count(*) FROM ex_cmp1) = (SELECT count(*) FROM ex_cmp2) AS same_methods;
