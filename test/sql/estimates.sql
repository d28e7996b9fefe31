-- Estimates from every kept measurement (issue 24, first part): dpm.estimate combines all the
-- releases of a domain by generalized least squares, at no cost.
\set SHOW_CONTEXT never
SET client_min_messages = warning;
CREATE TABLE es_people AS SELECT u AS unit, u % 4 AS kind, (u % 10)::float8 AS score FROM generate_series(1, 400) u;
SELECT dpm.register_source('es_people', 'unit', 1, rho => 1000);
SELECT dpm.create_domain('es_kind', 'es_people', '[{"name": "kind", "values": [0, 1, 2, 3]}]');
SELECT dpm.create_workload('es_id', 'es_kind', 'Identity(kind)');
SELECT dpm.create_workload('es_total', 'es_kind', 'Total(kind)');
SELECT dpm.create_workload('es_prefix', 'es_kind', 'Prefix(kind)');
SELECT count(*) AS ledger_before FROM dpm.ledger \gset

-- nothing measured yet
SELECT * FROM dpm.estimate('es_prefix');
-- the total alone (strategy = the workload): of the prefixes only the last, the total, is
-- determined, and it is that release's answer
SELECT * INTO TEMP es_t FROM dpm.answer('es_total', rho => 0.5, method => 'workload');
SELECT query, label, determined, answer IS NOT NULL AS answered,
       CASE WHEN determined THEN abs(answer - (SELECT answer FROM es_t)) < 1e-9 * 400
                                 AND abs(stderr - (SELECT stderr FROM es_t)) < 1e-12 END AS the_release
  FROM dpm.estimate('es_prefix') ORDER BY query;

-- then every cell (identity): all prefixes are determined; the total combines both releases with
-- weights 1 / variance: var = 4 s^2 t^2 / (t^2 + 4 s^2) for cell stderr s and total stderr t
SELECT * INTO TEMP es_i FROM dpm.answer('es_id', rho => 0.5, method => 'identity');
SELECT bool_and(determined) AS all_determined, count(*) AS queries FROM dpm.estimate('es_prefix');
SELECT abs(e.stderr ^ 2 - 4 * s ^ 2 * t ^ 2 / (t ^ 2 + 4 * s ^ 2)) < 1e-9 * e.stderr ^ 2 AS combined_variance,
       abs(e.answer - ((SELECT sum(answer) FROM es_i) / (4 * s ^ 2) + (SELECT answer FROM es_t) / t ^ 2)
                      / (1 / (4 * s ^ 2) + 1 / t ^ 2)) < 1e-9 * 400 AS combined_answer,
       abs((e.ci_high - e.ci_low) / 2 - 1.959963984540054 * e.stderr) < 1e-9 * e.stderr AS exact_interval
  FROM dpm.estimate('es_total') e, (SELECT max(stderr) AS s FROM es_i) a, (SELECT stderr AS t FROM es_t) b;
-- estimating charged nothing: the two releases did
SELECT count(*) - :ledger_before AS charges FROM dpm.ledger;

-- a workload with a single release is estimated as that release answered it (hierarchical
-- strategy over 16 bins, Laplace noise: the interval is simulated)
CREATE TABLE es_ages AS SELECT u AS unit, u % 16 AS age FROM generate_series(1, 800) u;
SELECT dpm.register_source('es_ages', 'unit', 1, epsilon => 1000);
SELECT dpm.create_domain('es_age', 'es_ages', '[{"name": "age", "bins": {"min": 0, "max": 16, "width": 1}}]');
SELECT dpm.create_workload('es_age_prefix', 'es_age', 'Prefix(age)');
SELECT * INTO TEMP es_h FROM dpm.answer('es_age_prefix', epsilon => 1, method => 'hierarchical');
SELECT bool_and(abs(e.answer - h.answer) < 1e-9 * 800) AS same_answers,
       bool_and(abs(e.stderr - h.stderr) < 1e-9 * h.stderr) AS same_stderr,
       bool_and(e.ci_low < e.answer AND e.answer < e.ci_high) AS simulated_intervals, count(*) AS queries
  FROM dpm.estimate('es_age_prefix') e JOIN es_h h USING (query);

-- unbiased, with its stderr and intervals, over 100 domains each measured twice under Laplace
-- noise (the cells, then the total): for the total, the mean z-score within 5 / sqrt(100) of 0,
-- the mean square within 1 +- 5 sqrt(5 / 100) (a weighted sum of Laplace variables has kurtosis
-- at most 6), and the 90% interval covering at least 75 of 100 (each a false alarm below 1e-5)
CREATE TEMP TABLE es_z (z float8, covered boolean);
\set ECHO none
\o /dev/null
-- (ages 1 to 4, in bins that ages by 1 from 0, domain es_age, do not refine)
SELECT format($s$SELECT dpm.create_domain('es_rep%s', 'es_ages', '[{"name": "age", "bins": {"min": 0.5, "max": 4.5, "width": 1}}]'),
                        dpm.create_workload('es_rep_cells%s', 'es_rep%s', 'Identity(age)'),
                        dpm.create_workload('es_rep_total%s', 'es_rep%s', 'Total(age)')$s$, i, i, i, i, i)
  FROM generate_series(1, 100) i \gexec
SELECT format($s$SELECT count(*) FROM dpm.answer('es_rep_cells%s', epsilon => 0.5, method => 'identity', confidence => NULL)$s$, i),
       format($s$SELECT count(*) FROM dpm.answer('es_rep_total%s', epsilon => 0.5, method => 'workload', confidence => NULL)$s$, i)
  FROM generate_series(1, 100) i \gexec
\o
\set ECHO all
SELECT count(*) AS ledger_mid FROM dpm.ledger \gset
-- (the 100 domains have one definition, so dpm.estimate would combine all 200 releases: each
-- pair is estimated alone here, as dpm.estimate does)
INSERT INTO es_z SELECT (e.answer - 200) / e.stderr, 200 BETWEEN e.answer - e.half AND e.answer + e.half
  FROM generate_series(1, 100) i,
       LATERAL (SELECT array_agg(r.id ORDER BY r.id) AS ids FROM dpm.releases r JOIN dpm.workloads w ON w.id = r.workload_id
                 WHERE w.name IN ('es_rep_cells' || i, 'es_rep_total' || i)) p,
       LATERAL dpm_internal.gls('{{1,1,1,1}}', p.ids, 'counts', 0.9) e;
-- one definition, one set of cells: dpm.estimate combines the releases of all 100 domains, with
-- the variance of the total 1 / (100 (1 / (4 v) + 1 / v)) for Laplace variance v = 8
SELECT abs(stderr - sqrt(1 / (100 * (1 / 32.0 + 1 / 8.0)))) < 1e-9 AS all_domains_combined
  FROM dpm.estimate('es_rep_total7', confidence => NULL);
SELECT count(*) = :ledger_mid AS estimates_charge_nothing FROM dpm.ledger;
SELECT count(*) AS estimates, abs(avg(z)) < 0.5 AS unbiased, abs(avg(z * z) - 1) < 5 * sqrt(5.0 / 100) AS stderr_right,
       count(*) FILTER (WHERE covered) >= 75 AS covers
  FROM es_z;

-- sums of a measure: from sum releases only, in the measure's units
SELECT dpm.create_measure('score', 'es_people', 'score', 0, 10);
SELECT * INTO TEMP es_s FROM dpm.answer('es_id', rho => 0.5, method => 'identity', measure => 'score');
SELECT bool_and(abs(e.answer - s.answer) < 1e-9 * 4000) AS sums_as_released, bool_and(abs(e.stderr - s.stderr) < 1e-9 * s.stderr) AS stderr
  FROM dpm.estimate('es_id', measure => 'score') e JOIN es_s s USING (query);

-- implicit strategies are left out, and said so
SET client_min_messages = notice;
SELECT count(*) FROM dpm.answer('es_prefix', rho => 0.5, method => 'hdmm');
SELECT count(*) FROM dpm.estimate('es_prefix');
SET client_min_messages = warning;

-- an analyst's estimate uses the releases it may see only
CREATE ROLE regress_es_analyst IN ROLE dpm_analyst;
SET ROLE regress_es_analyst;
SELECT * FROM dpm.estimate('es_prefix');
SELECT count(*) FROM dpm.answer('es_total', rho => 0.5, method => 'workload');
SELECT query, determined FROM dpm.estimate('es_prefix') ORDER BY query;
RESET ROLE;

-- dpm.answer reuses them (reuse auto, dpm.reuse's default; this suite runs with never): a
-- workload the earlier releases determine is answered as dpm.estimate does, charging nothing and
-- making no release; reuse only refuses a workload they do not determine, before any charge;
-- auto measures it (charged), saying what was determined
SELECT boot_val FROM pg_settings WHERE name = 'dpm.reuse';
-- dpm.explain counts the queries earlier releases determine
SELECT queries, free_queries FROM dpm.explain('es_prefix', rho => 0.5);
SELECT queries, free_queries FROM dpm.explain('es_age_prefix', epsilon => 0.5);
SELECT count(*) AS ledger_now, max(id) AS last_release FROM dpm.ledger \gset
SELECT bool_and(a.answer = e.answer AND a.stderr = e.stderr AND a.ci_low IS NULL) AS as_estimated, count(*) AS queries
  FROM dpm.answer('es_prefix', rho => 0.5, reuse => 'auto', confidence => NULL) a
  JOIN dpm.estimate('es_prefix', confidence => NULL) e USING (query);
SET dpm.reuse = 'only';
SELECT count(*) FROM dpm.answer('es_total', rho => 0.5);
SELECT count(*) = :ledger_now AS nothing_charged FROM dpm.ledger;
-- every argument is checked before earlier releases are looked at (issue 41, item 5): requests
-- they could answer (es_prefix is determined, its sums too) are refused with reuse only and auto
-- exactly as with never, and dpm.explain refuses them alike; nothing is charged
SELECT (SELECT r.strategy_id FROM dpm.releases r JOIN dpm.workloads w ON w.id = r.workload_id
         WHERE w.name = 'es_total' LIMIT 1) AS es_total_strategy \gset
SELECT count(*) AS charges_before, sum(rho) AS rho_before FROM dpm.ledger \gset
CREATE FUNCTION pg_temp.refusal(fn text, args text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('SELECT count(*) FROM dpm.%s(%s)', fn, args);
  RETURN 'accepted';
EXCEPTION WHEN OTHERS THEN
  RETURN regexp_replace(SQLSTATE || ': ' || SQLERRM, 'strategy [0-9]+', 'strategy N');
END $$;
SELECT regexp_replace(a, 'strategy => [0-9]+', 'strategy => (of es_total)') AS args,
       pg_temp.refusal('answer', a || ', reuse => ''only''') = pg_temp.refusal('answer', a || ', reuse => ''never''')
       AND pg_temp.refusal('answer', a || ', reuse => ''auto''') = pg_temp.refusal('answer', a || ', reuse => ''never''') AS as_never,
       pg_temp.refusal('answer', a || ', reuse => ''never''') AS refusal
  FROM unnest(ARRAY[$$'es_id', rho => 0.5, measure => 'score', aggregate => 'mean'$$,
                    $$'es_prefix', rho => 0.5, aggregate => 'mean'$$,
                    $$'es_prefix', rho => 0.5, aggregate => 'sum'$$,
                    $$'es_prefix', rho => 0.5, sum_share => 0.5$$,
                    $$'es_prefix', rho => 0.5, inference => 'lsq'$$,
                    $$'es_prefix', rho => 0.5, confidence => 1$$,
                    $$'es_prefix'$$,
                    $$'es_prefix', epsilon => 1, rho => 0.5$$,
                    $$'es_prefix', rho => 0.5, delta => 1e-6$$,
                    $$'es_prefix', rho => 1e-5, delta => 2$$,
                    $$'es_prefix', rho => 0.5, method => 'no_such_method'$$,
                    $$'es_prefix', rho => 0.5, options => '{"branching": 2}'$$,
                    format($$'es_prefix', rho => 0.5, strategy => %s$$, :es_total_strategy),
                    format($$'es_prefix', rho => 0.5, method => 'identity', strategy => %s$$, :es_total_strategy),
                    $$'es_prefix', rho => 0.5, period_to => 'infinity'$$,
                    -- a method's options, names and values (each family's own)
                    $$'es_prefix', rho => 0.5, method => 'identity', options => '{"nonsense": 1}'$$,
                    $$'es_prefix', rho => 0.5, method => 'identity', options => '{"augment": "l1"}'$$,
                    $$'es_prefix', rho => 0.5, method => 'identity', options => '[1]'$$,
                    $$'es_prefix', rho => 0.5, method => 'hierarchical', options => '{"branching": 1}'$$,
                    $$'es_prefix', rho => 0.5, method => 'eigen_design', options => '{"max_iter": -5}'$$,
                    $$'es_prefix', rho => 0.5, method => 'eigen_design', options => '{"augment": "l3"}'$$,
                    $$'es_prefix', rho => 0.5, method => 'hdmm', options => '{"nonsense": 1}'$$,
                    $$'es_prefix', rho => 0.5, method => 'hdmm', options => '{"rounds": 0}'$$,
                    $$'es_prefix', rho => 0.5, method => 'hdmm', options => '{"parameterization": "tensor"}'$$,
                    $$'es_prefix', rho => 0.5, method => 'hdmm', options => '{"p": 1.5}'$$,
                    $$'es_prefix', rho => 0.5, method => 'fitness', options => '{}'$$,
                    $$'es_prefix', rho => 0.5, method => 'fitness', options => '{"targets": 1, "mu": 1}'$$,
                    $$'es_prefix', rho => 0.5, method => 'fitness', options => '{"targets": [1, -1, 1]}'$$,
                    $$'es_prefix', rho => 0.5, method => 'fitness', options => '{"targets": 1, "nonsense": 1}'$$,
                    $$'es_prefix', rho => 0.5, method => 'residual', options => '{"loss": "median"}'$$,
                    $$'es_prefix', rho => 0.5, method => 'residual', options => '{"targets": "many"}'$$]) a;
SELECT a AS args, pg_temp.refusal('explain', a) = pg_temp.refusal('answer', a || ', reuse => ''never''') AS as_answer,
       pg_temp.refusal('explain', a) AS refusal
  FROM unnest(ARRAY[$$'es_prefix'$$, $$'es_prefix', rho => 1e-5, delta => 2$$,
                    $$'es_prefix', epsilon => 1, rho => 0.5$$, $$'es_prefix', rho => 0.5, method => 'no_such_method'$$,
                    $$'es_id', rho => 0.5, measure => 'nothing'$$,
                    $$'es_prefix', rho => 0.5, method => 'identity', options => '{"nonsense": 1}'$$,
                    $$'es_prefix', rho => 0.5, method => 'hdmm', options => '{"rounds": 0}'$$,
                    $$'es_prefix', rho => 0.5, method => 'fitness', options => '{"targets": 1, "mu": 1}'$$]) a;
SELECT count(*) = :charges_before AND sum(rho) = :rho_before AS nothing_charged FROM dpm.ledger;
CREATE TABLE es_fresh AS SELECT u AS unit, u % 3 AS kind FROM generate_series(1, 30) u;
SELECT dpm.register_source('es_fresh', 'unit', 1, rho => 10);
SELECT dpm.create_domain('es_fresh_kind', 'es_fresh', '[{"name": "kind", "values": [0, 1, 2]}]');
SELECT dpm.create_workload('es_fresh_total', 'es_fresh_kind', 'Total(kind)');
SELECT dpm.create_workload('es_fresh_cells', 'es_fresh_kind', 'Identity(kind)');
SELECT dpm.create_workload('es_fresh_both', 'es_fresh_kind', 'Identity(kind) + Total(kind)');
SELECT free_queries FROM dpm.explain('es_fresh_cells', rho => 0.5, reuse => 'auto');
-- with reuse only (here dpm.reuse), explain refuses as dpm.answer does: it plans the same
SELECT free_queries FROM dpm.explain('es_fresh_cells', rho => 0.5);
SELECT * FROM dpm.answer('es_fresh_cells', rho => 0.5);
SELECT * FROM dpm.answer('es_fresh_cells', rho => 0.5, aggregate => 'count', inference => 'nnls');
SET dpm.reuse = 'auto';
SELECT count(*) FROM dpm.answer('es_fresh_total', rho => 0.5, method => 'workload');
SET client_min_messages = notice;
\set VERBOSITY terse
SELECT count(*) FROM dpm.answer('es_fresh_both', rho => 0.5, method => 'identity');
SELECT count(*) FROM dpm.answer('es_fresh_total', rho => 0.5);
SELECT count(*) FROM dpm.answer('es_fresh_cells', rho => 0.5);
\set VERBOSITY default
SET client_min_messages = warning;
SELECT * FROM dpm.answer('es_fresh_cells', rho => 0.5, reuse => 'sometimes');
SELECT * FROM dpm.answer('es_fresh_cells', rho => -1);

-- an HDMM release (its strategy kept by its parameters) is written out for the estimate: alone,
-- it estimates its own workload as it answered it
CREATE TABLE es_hd AS SELECT u AS unit, u % 4 AS a, (u / 4) % 4 AS b FROM generate_series(1, 320) u;
SELECT dpm.register_source('es_hd', 'unit', 1, rho => 10);
SELECT dpm.create_domain('es_hd_ab', 'es_hd', '[{"name": "a", "values": [0, 1, 2, 3]}, {"name": "b", "values": [0, 1, 2, 3]}]');
SELECT dpm.create_workload('es_hd_w', 'es_hd_ab', 'Prefix(a) * Identity(b) + Total(a) * Prefix(b)');
SELECT * INTO TEMP es_hda FROM dpm.answer('es_hd_w', rho => 0.5, method => 'hdmm', confidence => NULL);
SELECT s.matrix IS NULL AND (s.kronecker).kind IS NOT NULL AS kept_by_parameters
  FROM dpm.releases r JOIN dpm.strategies s ON s.id = r.strategy_id JOIN dpm.workloads w ON w.id = r.workload_id
 WHERE w.name = 'es_hd_w';
SELECT bool_and(abs(e.answer - h.answer) < 1e-9 * 320 AND abs(e.stderr - h.stderr) < 1e-9 * h.stderr) AS as_released,
       bool_and(e.determined) AS determined, count(*) AS queries
  FROM dpm.estimate('es_hd_w', confidence => NULL) e JOIN es_hda h USING (query);
-- so are ResidualPlanner releases: a Laplace plan (weighted marginal tables) and a Gaussian one
-- (residuals, each with its noise) estimate their workloads as they answered them
CREATE TABLE es_rp3 AS SELECT u AS unit, u % 3 AS a, (u / 3) % 4 AS b, (u / 12) % 2 AS c FROM generate_series(1, 600) u;
SELECT dpm.register_source('es_rp3', 'unit', 1, epsilon => 100);
SELECT dpm.create_domain('es_rp3_abc', 'es_rp3', '[{"name": "a", "values": [0, 1, 2]}, {"name": "b", "values": [0, 1, 2, 3]}, {"name": "c", "values": [0, 1]}]');
SELECT dpm.create_workload('es_rp3_w', 'es_rp3_abc', 'Marginals(2)');
SELECT * INTO TEMP es_rp3a FROM dpm.answer('es_rp3_w', epsilon => 1, method => 'residual', confidence => NULL);
CREATE TABLE es_rp4 AS SELECT * FROM es_rp3;
SELECT dpm.register_source('es_rp4', 'unit', 1, rho => 100);
SELECT dpm.create_domain('es_rp4_abc', 'es_rp4', '[{"name": "a", "values": [0, 1, 2]}, {"name": "b", "values": [0, 1, 2, 3]}, {"name": "c", "values": [0, 1]}]');
SELECT dpm.create_workload('es_rp4_w', 'es_rp4_abc', 'Marginals(2) + Marginal(a)');
SELECT * INTO TEMP es_rp4a FROM dpm.answer('es_rp4_w', rho => 0.5, method => 'residual', confidence => NULL);
SELECT x.plan, bool_and(abs(e.answer - h.answer) < 1e-9 * 600) AS as_released,
       bool_and(abs(e.stderr - h.stderr) < 1e-9 * h.stderr) AS same_stderr, bool_and(e.determined) AS determined, count(*) AS queries
  FROM (VALUES ('laplace', 'es_rp3_w'), ('gaussian', 'es_rp4_w')) x(plan, workload)
 CROSS JOIN LATERAL dpm.estimate(x.workload, confidence => NULL) e
  JOIN (SELECT 'es_rp3_w' AS workload, * FROM es_rp3a UNION ALL SELECT 'es_rp4_w', * FROM es_rp4a) h
    ON h.workload = x.workload AND h.query = e.query
 GROUP BY x.plan ORDER BY x.plan;

-- partly determined: auto measures only the rest, as a workload of its own with a strategy
-- optimized for it, and charges that release alone; the answers combine it with the earlier ones
CREATE TABLE es_rem AS SELECT u AS unit, u % 4 AS kind FROM generate_series(1, 400) u;
SELECT dpm.register_source('es_rem', 'unit', 1, rho => 10);
SELECT dpm.create_domain('es_rem_kind', 'es_rem', '[{"name": "kind", "values": [0, 1, 2, 3]}]');
SELECT dpm.create_workload('es_rem_total', 'es_rem_kind', 'Total(kind)');
SELECT dpm.create_workload('es_rem_prefix', 'es_rem_kind', 'Prefix(kind)');
SELECT * INTO TEMP es_rt FROM dpm.answer('es_rem_total', rho => 0.5, method => 'workload');
SELECT count(*) AS ledger_rem, max(id) AS ledger_last FROM dpm.ledger \gset
-- the plan is the remainder's: 3 queries measured, 1 free
SELECT queries, free_queries, charge_rho FROM dpm.explain('es_rem_prefix', rho => 0.5);
SET client_min_messages = notice;
\set VERBOSITY terse
SELECT * INTO TEMP es_rp FROM dpm.answer('es_rem_prefix', rho => 0.5, confidence => NULL);
\set VERBOSITY default
SET client_min_messages = warning;
-- one charge, the remainder's, of the rho asked for
SELECT count(*) - :ledger_rem AS charges, sum(rho) FILTER (WHERE id > :ledger_last) AS rho FROM dpm.ledger;
SELECT w.name, w.m, w.queries, p.name AS remainder_of, r.rho
  FROM dpm.releases r JOIN dpm.workloads w ON w.id = r.workload_id JOIN dpm.workloads p ON p.id = w.remainder_of
 WHERE p.name = 'es_rem_prefix';
-- the answers are the estimate from both releases (a refit over the same measurements), every
-- query determined; the total no less sharp than the total release alone
SELECT bool_and(abs(a.answer - e.answer) < 1e-9 * 400 AND abs(a.stderr - e.stderr) < 1e-12 * a.stderr) AS as_estimated,
       bool_and(e.determined) AS determined, count(*) AS queries,
       (SELECT stderr FROM es_rp WHERE query = 4) <= (SELECT stderr FROM es_rt) * (1 + 1e-12) AS total_no_worse
  FROM es_rp a JOIN dpm.estimate('es_rem_prefix', confidence => NULL) e USING (query);
-- the remainder's release replays its 3 answers; answering the prefixes again is free
SELECT count(*) AS replayed FROM dpm.release((SELECT max(id) FROM dpm.releases));
SELECT count(*) AS answered FROM dpm.answer('es_rem_prefix', rho => 0.5);
SELECT count(*) - :ledger_rem AS charges FROM dpm.ledger;
-- in a REPEATABLE READ transaction too: the answers combine the release its worker committed
-- after the transaction's snapshot (kinds 0 to 4 refine kinds 0 to 3, whose releases, with the
-- total's, leave 2 of the 6 queries to measure)
SELECT dpm.create_domain('es_rem_kind2', 'es_rem', '[{"name": "kind", "values": [0, 1, 2, 3, 4]}]');
SELECT dpm.create_workload('es_rem_total2', 'es_rem_kind2', 'Total(kind)');
SELECT dpm.create_workload('es_rem_both2', 'es_rem_kind2', 'Identity(kind) + Total(kind)');
SELECT count(*) FROM dpm.answer('es_rem_total2', rho => 0.5, method => 'workload');
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) AS queries, bool_and(a.answer IS NOT NULL AND a.stderr > 0) AS answered
  FROM dpm.answer('es_rem_both2', rho => 0.5, confidence => NULL) a;
COMMIT;
SELECT count(*) - :ledger_rem AS charges FROM dpm.ledger;
SELECT w.m AS measured FROM dpm.workloads w JOIN dpm.workloads p ON p.id = w.remainder_of WHERE p.name = 'es_rem_both2';
RESET dpm.reuse;

-- past 1,024 cells reuse is asked for, not automatic: the estimate decomposes an n x n matrix
SELECT dpm.create_domain('es_wide', 'es_ages', '[{"name": "age", "bins": {"min": 0, "max": 1100, "width": 1}}]');
SELECT dpm.create_workload('es_wide_cells', 'es_wide', 'Identity(age)');
SELECT count(*) FROM dpm.answer('es_wide_cells', epsilon => 1, method => 'identity', confidence => NULL);
SELECT free_queries FROM dpm.explain('es_wide_cells', epsilon => 1, method => 'identity');
SELECT count(*) FILTER (WHERE determined) AS determined FROM dpm.estimate('es_wide_cells', confidence => NULL);

-- refusals
SELECT * FROM dpm.estimate('nothing');
SELECT * FROM dpm.estimate('es_prefix', measure => 'nothing');
SELECT * FROM dpm.estimate('es_prefix', confidence => 1);
SELECT * FROM dpm.estimate('es_prefix', confidence => 'NaN');
SELECT count(*) AS no_intervals FROM dpm.estimate('es_prefix', confidence => NULL) WHERE ci_low IS NULL;

-- The estimate's stderr is its error's: 100 pairs of releases (every cell, and the total) of one
-- domain, each pair combined alone by generalized least squares as reuse combines them.  The
-- second prefix mixes both releases; its errors over the pairs, each over its stderr, square-sum
-- to a chi-square with 100 degrees of freedom (Gaussian noise): between 45 and 186 but with
-- probability about 1e-6 (Wilson-Hilferty), and their mean is within 5 standard errors of 0.
CREATE TABLE es_rep AS SELECT u AS unit, u % 4 AS kind FROM generate_series(1, 400) u;
SELECT dpm.register_source('es_rep', rho => 1000);
SELECT dpm.create_domain('es_rep_kind', 'es_rep', '[{"name": "kind", "values": [0, 1, 2, 3]}]');
SELECT dpm.create_workload('es_rep_id', 'es_rep_kind', 'Identity(kind)');
SELECT dpm.create_workload('es_rep_total', 'es_rep_kind', 'Total(kind)');
DO $$
BEGIN
  FOR i IN 1 .. 100 LOOP
    PERFORM count(*) FROM dpm.answer('es_rep_id', rho => 0.5, method => 'identity', confidence => NULL);
    PERFORM count(*) FROM dpm.answer('es_rep_total', rho => 0.5, method => 'workload', confidence => NULL);
  END LOOP;
END
$$;
WITH r AS (SELECT r.id, w.name, row_number() OVER (PARTITION BY w.name ORDER BY r.id) AS i
             FROM dpm.releases r JOIN dpm.workloads w ON w.id = r.workload_id WHERE w.name LIKE 'es\_rep\_%'),
     e AS (SELECT g.answer - 200 AS err, g.stderr
             FROM r a JOIN r b ON b.i = a.i AND a.name = 'es_rep_id' AND b.name = 'es_rep_total',
                  LATERAL dpm_internal.gls('{{1,0,0,0},{1,1,0,0},{1,1,1,0},{1,1,1,1}}', ARRAY[a.id, b.id], 'counts', NULL) g
            WHERE g.query = 2)
SELECT count(*) AS pairs, sum(err ^ 2 / stderr ^ 2) BETWEEN 45 AND 186 AS variance_matches,
       abs(avg(err)) < 5 * sqrt(avg(stderr ^ 2) / count(*)) AS unbiased,
       max(stderr) - min(stderr) < 1e-12 AS one_stderr
  FROM e;

-- the cell maps of dpm_internal.gls: both or neither, one row a release of the base's cells, each
-- within its domain; identity maps change nothing
SELECT min(r.id) AS rep_release FROM dpm.releases r JOIN dpm.workloads w ON w.id = r.workload_id WHERE w.name = 'es_rep_id' \gset
SELECT count(*) FROM dpm_internal.gls('{{1,1,1,1}}', ARRAY[:rep_release]::bigint[], 'counts', NULL, '{0,1,2,3}', NULL);
SELECT count(*) FROM dpm_internal.gls('{{1,1,1,1}}', ARRAY[:rep_release]::bigint[], 'counts', NULL, '{0,1,2,3}', '{0,1,2,3}');
SELECT count(*) FROM dpm_internal.gls('{{1,1,1,1}}', ARRAY[:rep_release]::bigint[], 'counts', NULL, '{0,1,2,3}', '{{0,1,2}}');
SELECT count(*) FROM dpm_internal.gls('{{1,1,1,1}}', ARRAY[:rep_release]::bigint[], 'counts', NULL, '{0,1,2,3}', '{{0,1,2,7}}');
SELECT count(*) FROM dpm_internal.gls('{{1,1,1,1}}', ARRAY[:rep_release]::bigint[], 'counts', NULL, '{0,1,-2,3}', '{{0,1,2,3}}');
SELECT abs(a.answer - b.answer) < 1e-9 AND abs(a.stderr - b.stderr) < 1e-12 AS identity_maps
  FROM dpm_internal.gls('{{1,1,1,1}}', ARRAY[:rep_release]::bigint[], 'counts', NULL) a,
       dpm_internal.gls('{{1,1,1,1}}', ARRAY[:rep_release]::bigint[], 'counts', NULL, '{0,1,2,3}', '{{0,1,2,3}}') b;

DELETE FROM dpm.ledger WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'es_%');
DELETE FROM dpm.releases WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'es_%');
DELETE FROM dpm.domains WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'es_%');
DELETE FROM dpm.sources WHERE relation::text LIKE 'es_%';
DROP TABLE es_people, es_ages, es_fresh, es_rep, es_rem, es_hd, es_rp3, es_rp4;
DROP ROLE regress_es_analyst;
