-- Wide domains (issue 21): past dpm.max_cells cells a domain keeps no dense cell index; its
-- workloads are marginals, answered by method residual (ResidualPlanner) from marginal tables the
-- release computes in one scan of the source.
\set SHOW_CONTEXT never
SET client_min_messages = warning;

-- 30 attributes of 10 values (10^30 cells), 600 rows, each row its own privacy unit
CREATE TABLE wide_people AS
  SELECT g AS id, (SELECT array_agg((g * (7 + 2 * k) + k * k) % 10 ORDER BY k) FROM generate_series(1, 30) k) AS v
    FROM generate_series(1, 600) g;
SELECT format('CREATE TABLE wide30 AS SELECT id, %s FROM wide_people', string_agg(format('v[%s] AS a%s', k, k), ', ' ORDER BY k))
  FROM generate_series(1, 30) k \gexec
SELECT dpm.register_source('wide30', 'id', 1, rho => 1000);
SELECT dpm.create_domain('w30', 'wide30',
  (SELECT jsonb_agg(jsonb_build_object('name', 'a' || k, 'values', jsonb_build_array(0,1,2,3,4,5,6,7,8,9)) ORDER BY k)
     FROM generate_series(1, 30) k));
SELECT n, cells, cell_expr IS NULL AS no_cell_index FROM dpm.domains WHERE name = 'w30';

-- all <= 2-way marginals: C(30,2) * 100 + 30 * 10 + 1 queries; the plan's total is the SVD bound
SELECT dpm.create_workload('w30_2', 'w30', 'Marginals(2) + Marginals(1) + Marginals(0)');
SELECT dpm.optimize('w30_2', rho => 1) > 0 AS optimized;
SELECT method, rows, abs(ratio_to_bound - 1) < 1e-9 AS at_bound, abs(lower_bound / profile_trace - 1) < 1e-9 AS certified,
       abs(sensitivity_l2 - 1) < 1e-12 AS unit_sensitivity
  FROM dpm.strategies s JOIN dpm.workloads w ON w.id = s.workload_id WHERE w.name = 'w30_2';
-- kept implicit: its spec only; labels and spans are made from it when needed
SELECT matrix IS NULL AS no_matrix, spans IS NULL AS no_spans, labels IS NULL AS no_labels, m FROM dpm.workloads WHERE name = 'w30_2';
-- made one term at a time, they are those of the workload's matrix builder (which keeps them all)
WITH d AS (SELECT * FROM dpm.domains WHERE name = 'w30'),
     b AS (SELECT (dpm_internal.workload_matrix('Marginals(2) + Marginals(1) + Marginals(0)', d, false)).* FROM d),
     q AS (SELECT q.* FROM d, dpm_internal.workload_queries('Marginals(2) + Marginals(1) + Marginals(0)', d, true) q)
SELECT (SELECT count(*) FROM q) AS queries,
       (SELECT array_agg(q.query ORDER BY q.query) FROM q) = (SELECT array_agg(i::int) FROM generate_series(1, 43801) i) AS numbered,
       (SELECT array_agg(q.label ORDER BY q.query) FROM q) = (SELECT b.labels FROM b) AS same_labels,
       (SELECT array_agg(v ORDER BY q.query, k) FROM q, unnest(q.spans) WITH ORDINALITY u(v, k))
         = (SELECT array_agg(v ORDER BY i) FROM b, unnest(b.spans) WITH ORDINALITY u(v, i)) AS same_spans;
-- the labels say which cells a query counts
SELECT query, label FROM dpm.exact_answers('w30_2') WHERE query IN (1, 4350, 43500, 43501, 43801) ORDER BY query;

-- a release: every answer, each within 6 standard errors of the truth (false alarm below 1e-9 per
-- answer with Gaussian noise); standard errors as the plan says: the same within a marginal
CREATE TEMP TABLE r1 AS SELECT * FROM dpm.answer('w30_2', rho => 1);
SELECT count(*) AS answers, max(abs(a.answer - e.answer) / a.stderr) < 6 AS within_6_se,
       bool_and(a.ci_low < a.answer AND a.answer < a.ci_high) AS intervals
  FROM r1 a JOIN dpm.exact_answers('w30_2') e USING (query);
SELECT count(DISTINCT round(stderr::numeric, 9)) AS distinct_stderrs FROM r1;
-- replayed from the catalog at no cost: the same answers
SELECT count(*) AS replayed, bool_and(x.answer = a.answer AND x.stderr = a.stderr) AS same
  FROM dpm.release((SELECT max(r.id) FROM dpm.releases r JOIN dpm.workloads w ON w.id = r.workload_id
                     WHERE w.name = 'w30_2')) x JOIN r1 a USING (query);
-- explain reports the same errors, and charges nothing
SELECT strategy_method, noise, charge_rho, queries, abs(max_stderr / (SELECT max(stderr) FROM r1) - 1) < 1e-9 AS same_stderr
  FROM dpm.explain('w30_2', rho => 1);
SELECT (dpm.budget('wide30')).rho_spent;

-- unbiased, with the variance the plan states, over 60 releases of a small workload: for the
-- first cell of a 2-way marginal and for the total, z = (answer - truth) / stderr is N(0, 1).  The
-- mean of 60 z's lies within 4.42 / sqrt(60) and their sum of squares within the chi-square(60)
-- bounds [23, 122] except with probability 1e-5 each: 4e-5 in all for this test.
SELECT dpm.create_workload('w30_small', 'w30', 'Marginal(a1, a2) + Marginal(a2, a3) + Marginals(0)');
CREATE TEMP TABLE truth AS SELECT query, answer FROM dpm.exact_answers('w30_small');
CREATE TEMP TABLE z(release int, query int, z float8);
DO $$
BEGIN
  FOR i IN 1 .. 60 LOOP
    INSERT INTO z SELECT i, a.query, (a.answer - t.answer) / a.stderr
      FROM dpm.answer('w30_small', rho => 0.5) a JOIN truth t USING (query) WHERE a.query IN (1, 201);
  END LOOP;
END
$$;
SELECT query, count(*), abs(avg(z)) < 4.42 / sqrt(60) AS unbiased, sum(z * z) BETWEEN 23 AND 122 AS variance_as_stated
  FROM z GROUP BY query ORDER BY query;

-- inference nnls (post-processing, no budget): no answer is negative, and the marginals still agree
-- on what they share (a2's counts summed out of Marginal(a1, a2) and of Marginal(a2, a3), and the
-- total); the least-squares answers of this sparse table have negative cells
CREATE TEMP TABLE rn AS SELECT * FROM dpm.answer('w30_small', rho => 0.5, inference => 'nnls');
SELECT min(answer) >= 0 AS non_negative,
       (SELECT count(*) FROM r1 WHERE answer < 0) > 0 AS least_squares_had_negatives FROM rn;
SELECT max(abs(x.s - y.s)) < 1e-6 * (SELECT sum(answer) FROM rn WHERE query = 201) AS consistent,
       abs(sum(x.s) - (SELECT answer FROM rn WHERE query = 201)) < 1e-6 * sum(x.s) AS total_consistent
  FROM (SELECT (query - 1) % 10 AS a2, sum(answer) s FROM rn WHERE query <= 100 GROUP BY 1) x
  JOIN (SELECT (query - 101) / 10 AS a2, sum(answer) s FROM rn WHERE query BETWEEN 101 AND 200 GROUP BY 1) y USING (a2);
-- inference nnls_integer: the tables of integer records near the non-negative estimate
-- (src/strategy/residual/integer.c), so every answer is a whole number and the marginals agree exactly
CREATE TEMP TABLE ri AS SELECT * FROM dpm.answer('w30_small', rho => 0.5, inference => 'nnls_integer');
SELECT bool_and(answer = trunc(answer)) AS integers, min(answer) >= 0 AS non_negative FROM ri;
SELECT bool_and(x.s = y.s) AS consistent, sum(x.s) = (SELECT answer FROM ri WHERE query = 201) AS total_consistent
  FROM (SELECT (query - 1) % 10 AS a2, sum(answer) s FROM ri WHERE query <= 100 GROUP BY 1) x
  JOIN (SELECT (query - 101) / 10 AS a2, sum(answer) s FROM ri WHERE query BETWEEN 101 AND 200 GROUP BY 1) y USING (a2);
-- all 435 2-way marginals of the 30 attributes, with almost no noise (rho 10^4 on a source of its
-- own: standard errors about 0.025): each sums to the total exactly, each 1-way marginal is its 2-way
-- tables' margin exactly, and the answers are near the truth (the search for records is a
-- heuristic: their RMSE here is about 0.4, where the non-negative estimate's is about 0.03)
CREATE TABLE wide30_int AS SELECT * FROM wide30;
SELECT dpm.register_source('wide30_int', 'id', 1, rho => 10000);
SELECT dpm.create_domain('w30i', 'wide30_int', (SELECT attributes FROM dpm.domains WHERE name = 'w30'));
SELECT dpm.create_workload('w30i_2', 'w30i', 'Marginals(2) + Marginals(1) + Marginals(0)');
CREATE TEMP TABLE rib AS SELECT * FROM dpm.answer('w30i_2', rho => 10000, inference => 'nnls_integer');
SELECT count(DISTINCT s) = 1 AND min(s) = (SELECT answer FROM rib WHERE query = 43801) AS every_table_sums_to_the_total
  FROM (SELECT (query - 1) / 100 AS marginal, sum(answer) s FROM rib WHERE query <= 43500 GROUP BY 1
        UNION ALL SELECT (query - 43501) / 10 + 1000, sum(answer) FROM rib WHERE query BETWEEN 43501 AND 43800 GROUP BY 1) m;
SELECT bool_and(x.s = y.answer) AS margins_agree
  FROM (SELECT (query - 1) / 10 AS a1, sum(answer) s FROM rib WHERE query <= 100 GROUP BY 1) x
  JOIN rib y ON y.query = 43501 + x.a1;
SELECT sqrt(avg((a.answer - t.answer) ^ 2)) < 2 AS near_the_truth FROM rib a JOIN dpm.exact_answers('w30i_2') t USING (query);

-- the same marginals over a domain with a dense cell index: the same true answers, labels and
-- standard errors (the plan does not depend on the domain's size)
CREATE TABLE narrow AS SELECT id, a1, a2, a3 FROM wide30;
SELECT dpm.register_source('narrow', 'id', 1, rho => 100);
SELECT dpm.create_domain('n3', 'narrow',
  (SELECT jsonb_agg(jsonb_build_object('name', 'a' || k, 'values', jsonb_build_array(0,1,2,3,4,5,6,7,8,9)) ORDER BY k)
     FROM generate_series(1, 3) k));
SELECT dpm.create_workload('n3_small', 'n3', 'Marginal(a1, a2) + Marginal(a2, a3) + Marginals(0)');
SELECT count(*) AS queries, bool_and((n.label = w.label OR n.label LIKE 'total of %') AND n.answer = w.answer) AS same_truth
  FROM dpm.exact_answers('n3_small') n JOIN dpm.exact_answers('w30_small') w USING (query);
SELECT bool_and(abs(n.stderr / w.stderr - 1) < 1e-9) AS same_stderr
  FROM dpm.answer('n3_small', rho => 0.5, method => 'residual') n JOIN dpm.answer('w30_small', rho => 0.5) w USING (query);
-- (epsilon, delta)-DP: the residuals are parts of one Gaussian mechanism calibrated for the plan's
-- sensitivity (sampler.c, section 6), so every standard error is the zCDP one times the analytic
-- Gaussian sigma of (1, 1e-6) over the zCDP sigma of rho 0.5 (which is 1); each answer within 6
-- standard errors of the truth (false alarm below 1e-9 per answer)
CREATE TABLE wide30_approx AS SELECT * FROM wide30;
SELECT dpm.register_source('wide30_approx', 'id', 1, epsilon => 10, delta => 1e-5);
SELECT dpm.create_domain('w30a', 'wide30_approx',
  (SELECT jsonb_agg(jsonb_build_object('name', 'a' || k, 'values', jsonb_build_array(0,1,2,3,4,5,6,7,8,9)) ORDER BY k)
     FROM generate_series(1, 30) k)) > 1e29 AS wide;
SELECT dpm.create_workload('w30a_small', 'w30a', 'Marginal(a1, a2) + Marginal(a2, a3) + Marginals(0)');
CREATE TEMP TABLE ra AS SELECT * FROM dpm.answer('w30a_small', epsilon => 1, delta => 1e-6);
SELECT count(*) AS answers, max(abs(a.answer - t.answer) / a.stderr) < 6 AS within_6_se,
       bool_and(abs(a.stderr / z.stderr / dpm.gaussian_sigma(1, 1e-6) - 1) < 1e-6) AS analytic_gaussian_stderr
  FROM ra a JOIN truth t USING (query) JOIN dpm.explain_queries('w30_small', rho => 0.5) z USING (query);
SELECT noise, charge_epsilon, charge_delta FROM dpm.explain('w30a_small', epsilon => 1, delta => 1e-6);
SELECT (dpm.budget('wide30_approx')).epsilon_spent, (dpm.budget('wide30_approx')).delta_spent;
-- pure epsilon on that source: Laplace noise on weighted marginal tables (HDMM's marginals
-- template, planned and solved in the residual basis; src/strategy/residual/laplace.c).  Each answer within
-- 12 standard errors of the truth (a weighted sum of Laplace draws exceeds k standard deviations
-- with probability below exp(-k sqrt 2), 4e-8 at k = 12, per answer) and inside its interval,
-- whose half-width comes from simulating the noise
CREATE TEMP TABLE rl AS SELECT * FROM dpm.answer('w30a_small', epsilon => 1);
SELECT count(*) AS answers, bool_and(abs(a.answer - t.answer) < 12 * a.stderr) AS within_12_se,
       bool_and(a.ci_low < a.answer AND a.answer < a.ci_high) AS intervals,
       bool_and(a.ci_high - a.answer > a.stderr) AS wider_than_stderr
  FROM rl a JOIN truth t USING (query);
SELECT s.noise, s.method, abs(s.sensitivity_l1 - 1) < 1e-12 AS unit_sensitivity, s.ratio_to_bound >= 1 AS not_below_bound
  FROM dpm.strategies s JOIN dpm.workloads w ON w.id = s.workload_id WHERE w.name = 'w30a_small' ORDER BY noise;
-- integer answers from Laplace measurements too: whole, non-negative, in exact agreement
CREATE TEMP TABLE rli AS SELECT * FROM dpm.answer('w30a_small', epsilon => 1, inference => 'nnls_integer');
SELECT bool_and(answer = trunc(answer)) AS integers, min(answer) >= 0 AS non_negative,
       (SELECT sum(answer) FROM rli WHERE query <= 100) = (SELECT sum(answer) FROM rli WHERE query BETWEEN 101 AND 200)
       AND (SELECT sum(answer) FROM rli WHERE query <= 100) = (SELECT answer FROM rli WHERE query = 201) AS totals_agree
  FROM rli;
-- over 60 Laplace releases at epsilon 0.1, for the first cell of a 2-way marginal and for the total:
-- z = (answer - truth) / stderr has mean 0 (the mean of 60 z's, a sum of many Laplace draws, lies
-- within 4.42 / sqrt(60) except with probability about 1e-5), and the 95% intervals cover the truth
-- in at least 49 of 60 releases (Binomial(60, 0.95): below with probability 3.6e-5): 1e-4 in all
CREATE TEMP TABLE zl(release int, query int, z float8, covered boolean);
DO $$
BEGIN
  FOR i IN 1 .. 60 LOOP
    INSERT INTO zl SELECT i, a.query, (a.answer - t.answer) / a.stderr, t.answer BETWEEN a.ci_low AND a.ci_high
      FROM dpm.answer('w30a_small', epsilon => 0.1) a JOIN truth t USING (query) WHERE a.query IN (1, 201);
  END LOOP;
END
$$;
SELECT query, count(*), abs(avg(z)) < 4.42 / sqrt(60) AS unbiased, count(*) FILTER (WHERE covered) >= 49 AS coverage
  FROM zl GROUP BY query ORDER BY query;
SELECT (dpm.budget('wide30_approx')).epsilon_spent;

-- on a small dense domain, auto compares residual with the dense methods: only it reaches the bound
-- exactly (gaussian_optimal and eigen come within their solvers' tolerance)
SELECT dpm.create_domain('n3_coarse', 'narrow',
  '[{"name": "a1", "values": [0,1]}, {"name": "a2", "values": [0,1,2]}, {"name": "a3", "values": [0,1]}]');
SELECT dpm.create_workload('n3_coarse_m', 'n3_coarse', 'Marginals(2) + Marginals(1)');
SELECT method, abs(ratio_to_bound - 1) < 1e-9 AS at_bound, ratio_to_bound >= 1 - 1e-9 AS not_below
  FROM dpm.compare_strategies('n3_coarse_m', rho => 1) WHERE method IN ('identity', 'residual') ORDER BY method;

-- marginals whose attributes carry other blocks (Prefix, AllRange, Ranges, Hierarchical): the
-- residual strategy measures the same marginal tables and answers each block's rows over them.  On
-- a dense domain its every query's variance is that of the dense strategy the plan stands for,
-- w (A^T A)^+ w^T times cost2 (the noise at rho 0.5), and its total is not below the SVD bound
SELECT dpm.create_domain('n3_mixed', 'narrow',
  '[{"name": "a1", "bins": {"min": 0, "max": 10, "width": 2}}, {"name": "a2", "values": [0, 1, 2]},
    {"name": "a3", "bins": {"min": 0, "max": 8, "width": 2}}]');
SELECT dpm.create_workload('n3_mixed_w', 'n3_mixed',
  'Prefix(a1) * Identity(a2) + AllRange(a3) + Marginal(a1, a3) + 2 * Hierarchical(a1) * Ranges(a3, [0, 4), [2, 8))');
SELECT dpm.optimize('n3_mixed_w', method => 'residual', rho => 1) > 0 AS optimized;
CREATE FUNCTION pg_temp.dense_check(wname text, noise text)
RETURNS TABLE(tables int, queries int, as_dense boolean, not_below_bound boolean)
LANGUAGE plpgsql AS $$
DECLARE
  st dpm.strategies;
  dom dpm.domains;
  a float8[];
  m float8[];
  w float8[];
  prof float8[];
  worst float8 := 0;
  dense float8;
  q int := 0;
  e record;
  spec text;
BEGIN
  SELECT s.* INTO st FROM dpm.strategies s JOIN dpm.workloads x ON x.id = s.workload_id
   WHERE x.name = wname AND s.method = 'residual' AND s.noise = dense_check.noise;
  SELECT d.* INTO dom FROM dpm.domains d JOIN dpm.workloads x ON x.domain_id = d.id WHERE x.name = wname;
  IF noise = 'gaussian' THEN
    a := dpm_internal.residual_matrix(dom.attr_sizes, (st.residual).attribute_sets, (st.residual).variances);
  ELSE
    -- the plan's tables stacked, each marginal matrix times its weight
    FOR i IN 1 .. array_length((st.residual).attribute_sets, 1) LOOP
      SELECT coalesce('Marginal(' || string_agg(dom.attr_names[k], ', ' ORDER BY k) || ')', 'Total(' || dom.attr_names[1] || ')')
        INTO spec FROM unnest(((st.residual).attribute_sets)[i:i]) k WHERE k > 0;
      m := (dpm_internal.workload_matrix(spec, dom)).matrix;
      m := dpm_internal.scale_rows(m, array_fill(((st.residual).table_weights)[i], ARRAY[array_length(m, 1)]));
      a := CASE WHEN a IS NULL THEN m ELSE a || m END;
    END LOOP;
  END IF;
  w := (dpm_internal.workload_matrix((SELECT x.spec FROM dpm.workloads x WHERE x.name = wname), dom)).matrix;
  prof := dpm.error_profile(a);
  -- the noise of rho 0.5 has unit variance per unit of L2 sensitivity; Laplace at epsilon 1, 2 per
  -- unit of L1 sensitivity squared
  FOR e IN SELECT * FROM dpm.explain_queries(wname, epsilon => CASE noise WHEN 'laplace' THEN 1 END,
                                             rho => CASE noise WHEN 'gaussian' THEN 0.5 END,
                                             strategy => st.id, confidence => NULL) LOOP
    q := q + 1;
    SELECT sum(w[q][i] * prof[i][k] * w[q][k]) INTO dense FROM generate_subscripts(w, 2) i, generate_subscripts(w, 2) k;
    worst := greatest(worst, abs(e.stderr ^ 2 / (CASE noise WHEN 'gaussian' THEN st.sensitivity_l2 ^ 2
                                                              ELSE 2 * st.sensitivity_l1 ^ 2 END * dense) - 1));
  END LOOP;
  RETURN QUERY SELECT array_length((st.residual).attribute_sets, 1), q, worst < 1e-6, st.ratio_to_bound >= 1 - 1e-9;
END
$$;
SELECT * FROM pg_temp.dense_check('n3_mixed_w', 'gaussian');
-- Laplace: the plan's tables stacked, each marginal matrix times its weight, are the dense strategy
-- A (L1 sensitivity 1), and every query's variance is 2 / epsilon^2 times w (A^T A)^+ w^T: least
-- squares over all the tables, which the residual basis decouples
SELECT dpm.optimize('n3_mixed_w', method => 'residual') > 0 AS optimized;
SELECT * FROM pg_temp.dense_check('n3_mixed_w', 'laplace');
-- the same blocks over the wide domain and over a dense one with the same attributes: the same
-- true answers and labels, the same standard errors; a release within 6 standard errors of the truth
SELECT dpm.create_workload('n3_blocks', 'n3', 'Prefix(a1) * Identity(a2) + AllRange(a3) + Marginal(a1, a3)');
SELECT dpm.create_workload('w30_blocks', 'w30', 'Prefix(a1) * Identity(a2) + AllRange(a3) + Marginal(a1, a3)');
SELECT count(*) AS queries, bool_and((n.label = w.label OR n.label LIKE 'total of %') AND n.answer = w.answer) AS same_truth
  FROM dpm.exact_answers('n3_blocks') n JOIN dpm.exact_answers('w30_blocks') w USING (query);
SELECT bool_and(abs(n.stderr / w.stderr - 1) < 1e-9) AS same_stderr
  FROM dpm.explain_queries('n3_blocks', rho => 0.5, method => 'residual') n
  JOIN dpm.explain_queries('w30_blocks', rho => 0.5) w USING (query);
SELECT count(*) AS answers, max(abs(a.answer - e.answer) / a.stderr) < 6 AS within_6_se,
       count(DISTINCT round(a.stderr::numeric, 6)) > 3 AS stderrs_per_query
  FROM dpm.answer('w30_blocks', rho => 0.5) a JOIN dpm.exact_answers('w30_blocks') e USING (query);

-- the BI publication of a release over the wide domain: one column per attribute, each query's
-- bins on the attributes it conditions on
SELECT dpm.publish((SELECT max(r.id) FROM dpm.releases r JOIN dpm.workloads w ON w.id = r.workload_id
                     WHERE w.name = 'w30_blocks' AND r.status = 'released'), 'pub_w30') AS published;
SELECT query, label, a1, a2, a3_from, a3_to, a4 IS NULL AS a4_free FROM pub_w30 WHERE query IN (1, 101, 255) ORDER BY query;
SELECT dpm.unpublish('pub_w30');

-- the largest variance (option loss max): no cell above the plan's own maximum, which is below the
-- sum plan's
SELECT dpm.optimize('w30_small', method => 'residual', rho => 1, options => '{"loss": "max"}') > 0 AS optimized;
SELECT s.options, s.max_profile < (SELECT max_profile FROM dpm.strategies x WHERE x.workload_id = s.workload_id AND x.options = '{}')
       AS lower_max
  FROM dpm.strategies s JOIN dpm.workloads w ON w.id = s.workload_id WHERE w.name = 'w30_small' AND s.options <> '{}';

-- bad input: what a wide domain cannot answer, and how it says so
SELECT dpm.optimize('w30_blocks', method => 'residual', rho => 1, options => '{"loss": "max"}');
SELECT dpm.create_workload('w30_dup', 'w30', 'Marginal(a1, a1)');
SELECT dpm.create_workload('w30_matrix', 'w30', ARRAY[[1.0]]);
SET dpm.max_cells = 5000;
SELECT dpm.create_workload('w30_3', 'w30', 'Marginals(3)');
SELECT dpm.create_workload('w30_3', 'w30', 'Marginals(3, a1, a2, a3, a4, a5, a6, a7, a8)');
RESET dpm.max_cells;
-- no labels are kept, so dpm.max_matrix_mb does not bound the number of queries (43,801 labels
-- would need about 2 MB); their marginal tables are bounded by dpm.max_cells, above
SET dpm.max_matrix_mb = 1;
SELECT dpm.create_workload('w30_2b', 'w30', 'Marginals(2) + Marginals(1) + Marginals(0)');
RESET dpm.max_matrix_mb;
SELECT dpm.optimize('w30_2', method => 'hdmm', rho => 1);
SELECT dpm.optimize('w30_2', method => 'identity', rho => 1);
SELECT dpm.answer('w30_2', epsilon => 1, strategy => (SELECT min(s.id) FROM dpm.strategies s JOIN dpm.workloads w
                                                        ON w.id = s.workload_id WHERE w.name = 'w30_2' AND s.noise = 'gaussian'));
SELECT dpm.optimize('w30_2', method => 'residual', rho => 1, options => '{"loss": "median"}');
SELECT dpm.optimize('w30_2', method => 'residual', rho => 1, options => '{"augment": "l2"}');
-- the internal functions refuse malformed attribute sets
SELECT dpm_internal.residual_table_sets('Marginals(1)', d, '{{1,1}}') FROM dpm.domains d WHERE name = 'w30';
SELECT dpm_internal.residual_table_sets('Marginals(1)', d, '{{31}}') FROM dpm.domains d WHERE name = 'w30';
SELECT dpm_internal.residual_table_sets('Marginals(1)', d, '{1,2}') FROM dpm.domains d WHERE name = 'w30';
SELECT dpm_internal.residual_table_sets('Marginals(1)', NULL, '{{1}}');
SELECT dpm_internal.residual_measure('Marginals(1)', d, '{{1}}', '{1}', 1, NULL, 1, 0, 1, NULL, NULL)
  FROM dpm.domains d WHERE name = 'w30';
SELECT dpm_internal.residual_measure('Marginals(1)', d, '{{1}}', '{-1}', 1, NULL, NULL, 0, 1, 1, NULL)
  FROM dpm.domains d WHERE name = 'w30';
SELECT (dpm.budget('wide30')).rho_spent;
