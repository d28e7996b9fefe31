-- ResidualPlanner (src/residual): the optimal Gaussian plan for weighted marginals, one residual per
-- attribute subset, whose sum of variances (at unit L2 sensitivity) is T^2 = the SVD bound.
\set SHOW_CONTEXT never
-- the plan's total variance and squared sensitivity: sum r mu tau^2 and sum r / (N_A tau^2)
CREATE FUNCTION pg_temp.plan(sizes int[], marginals int[], weights float8[] DEFAULT NULL,
                             OUT total float8, OUT sensitivity2 float8, OUT residuals bigint)
LANGUAGE sql AS $$
  SELECT sum(p.rows * p.mu * p.variance),
         sum(p.rows / ((SELECT coalesce(exp(sum(ln(sizes[a]))), 1) FROM unnest(p.subset) a) * p.variance)),
         count(*)
    FROM dpm_internal.residual_plan(sizes, marginals, weights) p $$;
-- the same workload as a spec over attributes a1 .. ad (marginal S: Identity on S, Total elsewhere,
-- times its weight), its domain, and its dense matrix with each row scaled by its weight
CREATE FUNCTION pg_temp.spec(sizes int[], marginals int[], weights float8[]) RETURNS text
LANGUAGE sql AS $$
  SELECT string_agg(coalesce(weights[j]::text, '1') || ' * ' ||
                    (SELECT string_agg(CASE WHEN a = ANY (marginals[j:j]) THEN 'Identity' ELSE 'Total' END
                                       || '(a' || a || ')', ' * ' ORDER BY a)
                       FROM generate_subscripts(sizes, 1) a), ' + ' ORDER BY j)
    FROM generate_subscripts(marginals, 1) j $$;
CREATE FUNCTION pg_temp.dom(sizes int[]) RETURNS dpm.domains
LANGUAGE sql AS $$
  SELECT dpm_internal.domain_of(ARRAY(SELECT 'a' || a FROM generate_subscripts(sizes, 1) a), sizes,
                                ARRAY(SELECT v::text FROM generate_subscripts(sizes, 1) a, generate_series(1, sizes[a]) v),
                                array_fill('NaN'::float8, ARRAY[(SELECT sum(s)::int FROM unnest(sizes) s)]),
                                array_fill('NaN'::float8, ARRAY[(SELECT sum(s)::int FROM unnest(sizes) s)])) $$;
CREATE FUNCTION pg_temp.dense(sizes int[], marginals int[], weights float8[]) RETURNS float8[]
LANGUAGE sql AS $$
  SELECT CASE WHEN w.weights IS NULL THEN w.matrix ELSE dpm_internal.scale_rows(w.matrix, w.weights) END
    FROM dpm_internal.workload_matrix(pg_temp.spec(sizes, marginals, weights), pg_temp.dom(sizes)) w $$;

-- By hand, attributes of 2 and 3 values, marginals {1}, {2}, {1,2}: mu (the weight of each residual
-- in the workload) is 1 for the empty set, 4/3 for {1}, 3/2 for {2}, 1 for {1,2}; its dimension is
-- 1, 1, 2, 2; T = sum r sqrt(mu / N_A) = 1 + sqrt(2/3) + sqrt(2) + sqrt(2/3), and tau^2 = T / sqrt(mu N_A)
SELECT subset, rows, round(mu::numeric, 12) AS mu,
       abs(variance - (1 + 2 * sqrt(2.0 / 3) + sqrt(2)) / sqrt(mu * CASE cardinality(subset) WHEN 0 THEN 1
                                                                   WHEN 2 THEN 6 ELSE subset[1] + 1 END)) < 1e-12 AS tau2_by_hand
  FROM dpm_internal.residual_plan('{2,3}', '{{1,0},{2,0},{1,2}}') ORDER BY cardinality(subset), subset;
SELECT abs(total - (1 + 2 * sqrt(2.0 / 3) + sqrt(2)) ^ 2) < 1e-12 AS total_by_hand,
       abs(sensitivity2 - 1) < 1e-12 AS unit_sensitivity
  FROM pg_temp.plan('{2,3}', '{{1,0},{2,0},{1,2}}');

-- The optimum is the SVD bound, computed here from the dense workload by LAPACK (an independent
-- path), and no worse than HDMM's marginals optimizer for Gaussian noise on the same workload
CREATE TEMP TABLE cases(name text, sizes int[], marginals int[], weights float8[]);
INSERT INTO cases VALUES
  ('1-way', '{2,3,4}', '{{1},{2},{3}}', NULL),
  ('2-way', '{2,3,4}', '{{1,2},{1,3},{2,3}}', NULL),
  ('<=2-way weighted', '{2,3,4}', '{{1,0},{2,0},{3,0},{1,2},{1,3},{2,3}}', '{1,2,0.5,3,1,0.25}'),
  ('3-way and total', '{3,2,4}', '{{1,2,3},{0,0,0}}', '{1,5}'),
  ('overlapping', '{4,1,3,2}', '{{1,2,0},{2,3,4},{1,4,0}}', '{2,1,1}');
SELECT c.name, p.residuals,
       abs(p.total - dpm.svd_bound(pg_temp.dense(c.sizes, c.marginals, c.weights)))
         < 1e-9 * p.total AS equals_svd_bound,
       abs(p.sensitivity2 - 1) < 1e-12 AS unit_sensitivity,
       h.objective >= p.total * (1 - 1e-12) AS hdmm_no_better
  FROM cases c, LATERAL pg_temp.plan(c.sizes, c.marginals, c.weights) p,
       LATERAL dpm_internal.hdmm(pg_temp.spec(c.sizes, c.marginals, c.weights), pg_temp.dom(c.sizes),
                                 '{"parameterization": "marginals", "noise": "gaussian"}') h
 ORDER BY c.name;

-- The dense strategy each plan stands for (residual_matrix): its L2 sensitivity is the plan's
-- (1 for the sum plan), and the variance of every query of the dense workload, w (A^T A)^+ w^T
-- computed by LAPACK (dpm.error_profile), is the plan's variance for its marginal:
-- sum over A in S of r_A / N_A / N_{S\A}^2 times A's variance
CREATE FUNCTION pg_temp.cells(sizes int[], s int[]) RETURNS float8 LANGUAGE sql AS $$
  SELECT coalesce(exp(sum(ln(sizes[a]))), 1) FROM unnest(s) a WHERE a > 0 $$;
CREATE FUNCTION pg_temp.cellvar(sizes int[], s int[], p_subset int[], p_rows float8, p_variance float8) RETURNS float8
LANGUAGE sql AS $$
  SELECT CASE WHEN p_subset <@ s THEN p_rows / pg_temp.cells(sizes, p_subset)
                                       / (pg_temp.cells(sizes, s) / pg_temp.cells(sizes, p_subset)) ^ 2 * p_variance
              ELSE 0 END $$;
CREATE TEMP TABLE plan_rows (subset int[], rows float8, variance float8, cost2 float8);
CREATE FUNCTION pg_temp.check_dense(sizes int[], marginals int[], plan text, targets float8[],
                                    OUT sensitivity_is_plans boolean, OUT variances_are_plans boolean)
LANGUAGE plpgsql AS $$
DECLARE
  width int;
  a float8[];
  prof float8[];
  w float8[];
  cost2 float8;
  worst float8 := 0;
  q int := 0;
  v float8;
  dense float8;
BEGIN
  TRUNCATE plan_rows;
  IF plan = 'sum' THEN
    INSERT INTO plan_rows SELECT r.subset, r.rows, r.variance, r.cost2 FROM dpm_internal.residual_plan(sizes, marginals) r;
  ELSE
    INSERT INTO plan_rows SELECT r.subset, r.rows, r.variance, r.cost2 FROM dpm_internal.residual_targets(sizes, marginals, targets) r;
  END IF;
  SELECT greatest(max(cardinality(subset)), 1), max(plan_rows.cost2) INTO width, cost2 FROM plan_rows;
  a := dpm_internal.residual_matrix(sizes,
         (SELECT array_agg(subset || array_fill(0, ARRAY[width - cardinality(subset)])) FROM plan_rows),
         (SELECT array_agg(variance) FROM plan_rows));
  sensitivity_is_plans := abs(dpm.sensitivity(a, 'l2') ^ 2 - cost2) < 1e-9 * cost2;
  prof := dpm.error_profile(a);
  w := pg_temp.dense(sizes, marginals, NULL);
  FOR j IN 1 .. array_length(marginals, 1) LOOP
    SELECT sum(pg_temp.cellvar(sizes, ARRAY(SELECT x FROM unnest(marginals[j:j]) x WHERE x > 0), r.subset, r.rows, r.variance))
      INTO v FROM plan_rows r;
    FOR c IN 1 .. pg_temp.cells(sizes, marginals[j:j])::int LOOP
      q := q + 1;
      SELECT sum(w[q][i] * prof[i][k] * w[q][k]) INTO dense
        FROM generate_subscripts(w, 2) i, generate_subscripts(w, 2) k;
      worst := greatest(worst, abs(dense - v) / v);
    END LOOP;
  END LOOP;
  variances_are_plans := worst < 1e-9;
END
$$;
SELECT c.name, d.* FROM cases c, LATERAL pg_temp.check_dense(c.sizes, c.marginals, 'sum', NULL) d ORDER BY c.name;

-- Releases (residual_mechanism: each residual measured from its marginal table by the exact Gaussian
-- mechanism, then the marginals rebuilt from the residuals), 300 of them at rho = 1 on a fixed x
-- over 2 x 3 x 4 cells, every <= 2-way marginal (35 cells).  Per cell: the mean within 5 standard
-- errors of the truth (W x), the sample variance within [0.6, 1.5] of the reported one (its
-- relative standard deviation is sqrt(2/299) = 0.08); the reported variances add up to the plan's
-- T^2 / (2 rho), inflated by at most 0.1 % for the sampler's grid.  The chance that a correct
-- mechanism fails one of these 71 checks is below 1e-4.  (rho mentions i so that every row draws anew.)
CREATE TEMP TABLE draws AS
  SELECT i, m.* FROM generate_series(1, 300) i,
       LATERAL dpm_internal.residual_mechanism('{2,3,4}', '{{1,0},{2,0},{3,0},{1,2},{1,3},{2,3}}', NULL,
                                               ARRAY(SELECT (g * 7 % 11)::float8 FROM generate_series(0, 23) g), 1 + 0 * i) m;
CREATE TEMP TABLE truth AS
  SELECT row_number() OVER () AS q, t.v
    FROM (SELECT unnest(dpm_internal.matvec(pg_temp.dense('{2,3,4}', '{{1,0},{2,0},{3,0},{1,2},{1,3},{2,3}}', NULL),
                                            ARRAY(SELECT (g * 7 % 11)::float8 FROM generate_series(0, 23) g))) AS v) t;
SELECT count(*) AS cells,
       bool_and(abs(s.mean - t.v) < 5 * sqrt(s.reported / 300)) AS unbiased,
       bool_and(s.sample / s.reported BETWEEN 0.6 AND 1.5) AS variance_as_reported
  FROM (SELECT row_number() OVER (ORDER BY marginal, cell) AS q, avg(answer) AS mean, var_samp(answer) AS sample,
               max(variance) AS reported
          FROM draws GROUP BY marginal, cell) s JOIN truth t USING (q);
SELECT sum(v) / ((SELECT sum(rows * mu * variance) FROM dpm_internal.residual_plan('{2,3,4}', '{{1,0},{2,0},{3,0},{1,2},{1,3},{2,3}}')) / 2)
         BETWEEN 1 AND 1.001 AS total_is_the_plans
  FROM (SELECT max(variance) AS v FROM draws GROUP BY marginal, cell) r;

-- A closed form for all k-way marginals and below of d attributes of n values: a residual of a
-- attributes has (n-1)^a rows and mu = sum_{s = a..k} C(d-a, s-a) n^(a-s), so
-- T = sum_a C(d, a) (n-1)^a sqrt(mu_a / n^a); here d = 30, n = 10, k = 2 (466 residuals)
CREATE FUNCTION pg_temp.choose(n int, k int) RETURNS float8 LANGUAGE sql AS $$
  SELECT (factorial(n) / (factorial(k) * factorial(n - k)))::float8 $$;
CREATE FUNCTION pg_temp.kway(d int, k int) RETURNS int[] LANGUAGE sql AS $$
  SELECT array_agg(ARRAY[coalesce(x, 0), coalesce(y, 0)] ORDER BY x, y)
    FROM (SELECT NULL::int x, NULL::int y
          UNION ALL SELECT i, NULL FROM generate_series(1, d) i
          UNION ALL SELECT i, j FROM generate_series(1, d) i, generate_series(1, d) j WHERE i < j AND k >= 2) s $$;
SELECT p.residuals,
       abs(p.total - (SELECT sum(pg_temp.choose(30, a) * 9 ^ a
                                 * sqrt((SELECT sum(pg_temp.choose(30 - a, s - a) * 10.0 ^ (a - s))
                                           FROM generate_series(a, 2) s) / 10.0 ^ a)) ^ 2
                        FROM generate_series(0, 2) a)) < 1e-9 * p.total AS closed_form,
       abs(p.sensitivity2 - 1) < 1e-12 AS unit_sensitivity
  FROM pg_temp.plan(array_fill(10, ARRAY[30]), pg_temp.kway(30, 2)) p;

-- Variance targets per marginal (residual_targets): the least squared sensitivity meeting them,
-- solved in the dual with a certified gap.  Against the fitness-for-use optimizer (Xiao et al.,
-- PVLDB 2020) on the dense workload with the same target on each cell, which solves the same problem
-- over all Gaussian strategies: the same cost to its own tolerance (1e-5), never above it by more
-- than the gap; and every cell meets its target (its variance from the residuals that make it:
-- sum over A in S of r_A / N_A / N_{S\A}^2 times A's variance)
CREATE FUNCTION pg_temp.pairs(d int) RETURNS int[] LANGUAGE sql AS $$
  SELECT array_agg(ARRAY[i, j] ORDER BY i, j) FROM generate_series(1, d) i, generate_series(1, d) j WHERE i < j $$;
CREATE TEMP TABLE target_cases(name text, sizes int[], marginals int[], targets float8[]);
INSERT INTO target_cases VALUES
  ('1-way and 2-way', '{2,3,4}', '{{1,0},{2,0},{3,0},{1,2},{1,3},{2,3}}', '{1,2,0.5,3,1,0.25}'),
  ('by hand''s workload', '{2,3}', '{{1,0},{2,0},{1,2}}', NULL),
  ('tight total', '{3,2,4}', '{{1,2,3},{0,0,0}}', '{1,0.01}');
SELECT c.name, r.gap <= 1e-9 AS certified,
       abs(r.cost2 - f.privacy_cost ^ 2) < 1e-5 * r.cost2 AS as_fitness,
       r.cost2 <= f.privacy_cost ^ 2 * (1 + 1e-9) AS no_worse,
       (SELECT max((SELECT sum(p.rows / pg_temp.cells(c.sizes, p.subset)
                               / (pg_temp.cells(c.sizes, c.marginals[j:j]) / pg_temp.cells(c.sizes, p.subset)) ^ 2
                               * p.variance)
                      FROM dpm_internal.residual_targets(c.sizes, c.marginals, c.targets) p
                     WHERE p.subset <@ c.marginals[j:j]) / coalesce(c.targets[j], 1))
          FROM generate_subscripts(c.marginals, 1) j) <= 1 + 1e-12 AS targets_met
  FROM target_cases c,
       LATERAL (SELECT DISTINCT p.cost2, p.gap FROM dpm_internal.residual_targets(c.sizes, c.marginals, c.targets) p) r,
       LATERAL (SELECT array_agg(coalesce(c.targets[j], 1) ORDER BY j, k) AS per_cell
                  FROM generate_subscripts(c.marginals, 1) j,
                       generate_series(1, pg_temp.cells(c.sizes, c.marginals[j:j])::int) k) t,
       LATERAL dpm_internal.fitness(pg_temp.dense(c.sizes, c.marginals, NULL), jsonb_build_object('targets', to_jsonb(t.per_cell))) f
 ORDER BY c.name;
SELECT c.name, d.* FROM target_cases c, LATERAL pg_temp.check_dense(c.sizes, c.marginals, 'targets', c.targets) d ORDER BY c.name;
-- The least largest variance (all targets 1) of a symmetric workload, all 2-way marginals of 14
-- attributes of 10 values: every cell has the same variance in the plan for the sum, which is then
-- also the best for the largest: T^2 / 9100 cells
SELECT r.gap <= 1e-9 AS certified,
       abs(r.cost2 - (SELECT sum(p.rows * p.mu * p.variance) / 9100
                        FROM dpm_internal.residual_plan(array_fill(10, ARRAY[14]), pg_temp.pairs(14)) p)) < 1e-9 * r.cost2 AS sum_plan_is_max_plan
  FROM (SELECT DISTINCT cost2, gap FROM dpm_internal.residual_targets(array_fill(10, ARRAY[14]), pg_temp.pairs(14))) r;

-- bad input
SELECT * FROM dpm_internal.residual_targets('{2,3}', '{{1,2}}', '{0}');
SELECT * FROM dpm_internal.residual_targets('{2,3}', '{{1,2}}', NULL, 0);
SELECT * FROM dpm_internal.residual_plan('{2,3}', '{{1,3}}');
SELECT * FROM dpm_internal.residual_plan('{2,3}', '{{1,1}}');
SELECT * FROM dpm_internal.residual_plan('{2,0}', '{{1,2}}');
SELECT * FROM dpm_internal.residual_plan('{2,3}', '{1,2}');
SELECT * FROM dpm_internal.residual_plan('{2,3}', '{{1,2}}', '{1,2}');
SELECT * FROM dpm_internal.residual_plan('{2,3}', '{{1,2}}', '{NaN}');
SELECT * FROM dpm_internal.residual_plan(array_fill(2, ARRAY[17]), ARRAY[ARRAY(SELECT generate_series(1, 17))]);
SELECT * FROM dpm_internal.residual_plan(NULL, '{{1}}');
SELECT dpm_internal.residual_matrix('{2,3}', '{{1},{2}}', '{1}');
SELECT dpm_internal.residual_matrix('{2,3}', '{{1},{2}}', '{1,0}');
SELECT dpm_internal.residual_matrix('{2,3}', '{{3}}', '{1}');
SELECT * FROM dpm_internal.residual_mechanism('{2,3}', '{{1,2}}', NULL, '{1,2,3}', 1);
SELECT * FROM dpm_internal.residual_mechanism('{2,3}', '{{1,2}}', NULL, '{1,2,3,4,5,6.5}', 1);
SELECT * FROM dpm_internal.residual_mechanism('{2,3}', '{{1,2}}', NULL, '{1,2,3,4,5,6}', 0);

-- The plan's ratio to its bound (T^2) is at least 1 and no further from it than a rounding, up to
-- 100 attributes (all <= 3-way marginals of 10 values: 162 million queries, whose variances a
-- plain sum added up to 0.99999999937 of the bound): its sums are compensated
SELECT (SELECT last_value FROM dpm.sources_id_seq) AS rs_src_seq, (SELECT last_value FROM dpm.domains_id_seq) AS rs_dom_seq,
       (SELECT last_value FROM dpm.workloads_id_seq) AS rs_wl_seq, (SELECT last_value FROM dpm.strategies_id_seq) AS rs_st_seq \gset
SET client_min_messages = warning;
SET dpm.max_cells = 2000000000;
CREATE TABLE rs_wide (id int);
SELECT dpm.register_source('rs_wide', epsilon => 1, delta => 1e-6);
DO $$
BEGIN
  EXECUTE format('ALTER TABLE rs_wide %s', (SELECT string_agg(format('ADD COLUMN a%s int', a), ', ') FROM generate_series(1, 100) a));
END $$;
SELECT dpm.create_domain('rs_wide_' || d, 'rs_wide', (SELECT jsonb_agg(jsonb_build_object('name', 'a' || a, 'values', jsonb_build_array(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)) ORDER BY a)
                                                        FROM generate_series(1, d) a)) > 0,
       dpm.create_workload('rs_wide_' || d, 'rs_wide_' || d, 'Marginals(3) + Marginals(2) + Marginals(1) + Marginals(0)') > 0
  FROM unnest(ARRAY[50, 100]) d;
CREATE TEMP TABLE rs_plans AS
  SELECT d, dpm.optimize('rs_wide_' || d, epsilon => 1, delta => 1e-6, method => 'residual') AS id FROM unnest(ARRAY[50, 100]) d;
SELECT p.d, s.ratio_to_bound >= 1 AND s.ratio_to_bound < 1 + 1e-12 AS at_the_bound
  FROM rs_plans p JOIN dpm.strategies s USING (id) ORDER BY p.d;
DELETE FROM dpm.strategies WHERE workload_id IN (SELECT id FROM dpm.workloads WHERE name LIKE 'rs\_wide\_%');
DELETE FROM dpm.workloads WHERE name LIKE 'rs\_wide\_%';
DELETE FROM dpm.domains WHERE name LIKE 'rs\_wide\_%';
DELETE FROM dpm.sources WHERE relation = 'rs_wide'::regclass;
DROP TABLE rs_wide;
RESET dpm.max_cells;
RESET client_min_messages;
SELECT setval('dpm.sources_id_seq', :rs_src_seq) IS NOT NULL AND setval('dpm.domains_id_seq', :rs_dom_seq) IS NOT NULL
       AND setval('dpm.workloads_id_seq', :rs_wl_seq) IS NOT NULL AND setval('dpm.strategies_id_seq', :rs_st_seq) IS NOT NULL AS ids_set_back;
