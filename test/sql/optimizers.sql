-- Optimized strategies (eigen, eigen_design, gaussian_optimal), column completion, and the SVD
-- lower bound (Li & Miklau, ICDT 2013, Definition 4.1) with its hand-checkable values.
\set SHOW_CONTEXT never

-- ratio of a strategy's total error to the bound's, independent of epsilon: the Gaussian total
-- error at (1, 1e-6) divided by sigma(1, 1e-6)^2 is Delta_2^2 trace(W (A^T A)^+ W^T)
CREATE FUNCTION pg_temp.ratio(w float8[], a float8[]) RETURNS float8 LANGUAGE sql AS $$
  SELECT dpm.total_error(w, a, 1, 1e-6) / dpm.gaussian_sigma(1, 1e-6) ^ 2 / dpm.svd_bound(w) $$;
-- all 2^n subsets of n cells, one predicate query each
CREATE FUNCTION pg_temp.allpredicate(n int) RETURNS float8[] LANGUAGE sql AS $$
  SELECT array_agg(r ORDER BY s) FROM (
    SELECT s, array_agg(((s >> c) & 1)::float8 ORDER BY c) AS r
      FROM generate_series(0, (1 << n) - 1) s, generate_series(0, n - 1) c GROUP BY s) q $$;
CREATE FUNCTION pg_temp.allrange(n int) RETURNS float8[] LANGUAGE sql AS $$
  SELECT matrix FROM dpm_internal.workload_matrix('AllRange(x)', dpm_internal.domain_of('{x}', ARRAY[n],
    ARRAY(SELECT i::text FROM generate_series(1, n) i), array_fill('NaN'::float8, ARRAY[n]),
    array_fill('NaN'::float8, ARRAY[n]))) $$;

-- AllRange(2): singular values sqrt(3) and 1, bound (1 + sqrt(3))^2 / 2 = 2 + sqrt(3), attained by eigen
SELECT abs(dpm.svd_bound('{{1,0},{0,1},{1,1}}') - (2 + sqrt(3))) < 1e-12 AS allrange2_bound;
SELECT abs(pg_temp.ratio('{{1,0},{0,1},{1,1}}', dpm.strategy('{{1,0},{0,1},{1,1}}', 'eigen')) - 1) < 1e-9 AS allrange2_eigen_tight;
-- zero columns are dropped, so n is the number of cells asked about
SELECT abs(dpm.svd_bound('{{1,0,0},{0,0,1},{1,0,1}}') - (2 + sqrt(3))) < 1e-12 AS zero_column_dropped;
-- two 1-way marginals on a 2 x 2 domain: 3 + 2 sqrt(2), tight
SELECT abs(dpm.svd_bound('{{1,1,0,0},{0,0,1,1},{1,0,1,0},{0,1,0,1}}') - (3 + 2 * sqrt(2))) < 1e-12 AS marginals_bound,
       abs(pg_temp.ratio('{{1,1,0,0},{0,0,1,1},{1,0,1,0},{0,1,0,1}}',
                         dpm.strategy('{{1,1,0,0},{0,0,1,1},{1,0,1,0},{0,1,0,1}}', 'eigen')) - 1) < 1e-9 AS marginals_tight;
-- AllPredicate(n): 2^(n-2) / n (n - 1 + sqrt(n + 1))^2, tight
SELECT pg_temp.allpredicate(5) AS p5 \gset
SELECT abs(dpm.svd_bound(:'p5') / (2 ^ 3 / 5.0 * (4 + sqrt(6)) ^ 2) - 1) < 1e-12 AS allpredicate5_bound,
       abs(pg_temp.ratio(:'p5', dpm.strategy(:'p5', 'eigen')) - 1) < 1e-9 AS allpredicate5_tight;
SELECT pg_temp.allpredicate(8) AS p8 \gset
SELECT abs(dpm.svd_bound(:'p8') / (2 ^ 6 / 8.0 * (7 + 3) ^ 2) - 1) < 1e-12 AS allpredicate8_bound;
-- times the noise constant: the analytic Gaussian sigma^2, or the Laplace variance 2 / epsilon^2
SELECT abs(dpm.svd_bound('{{1,0},{0,1},{1,1}}', 0.5, 1e-6) / ((2 + sqrt(3)) * dpm.gaussian_sigma(0.5, 1e-6) ^ 2) - 1) < 1e-12 AS gaussian_constant,
       abs(dpm.svd_bound('{{1,0},{0,1},{1,1}}', 0.5) / ((2 + sqrt(3)) * 8) - 1) < 1e-12 AS laplace_constant;

-- AllRange(32): no strategy beats the bound; the optimizers' reports are consistent with the
-- error recomputed from their matrices, their certified lower bounds are at least the SVD bound
-- and below their objectives, and gaussian_optimal is the best of all
SELECT pg_temp.allrange(32) AS w32 \gset
SELECT dpm.svd_bound(:'w32') AS b32 \gset
CREATE TEMP TABLE r32 AS
  SELECT m, r.*, pg_temp.ratio(:'w32', r.matrix) AS ratio
    FROM unnest(ARRAY['identity', 'hierarchical', 'wavelet', 'eigen', 'eigen_design', 'gaussian_optimal']) m,
         LATERAL dpm_internal.strategy_report(:'w32', m, '{}') r;
SELECT m, ratio >= 1 - 1e-9 AS above_bound,
       objective IS NULL OR abs(objective / :b32 - ratio) < 1e-6 * ratio OR m = 'eigen_design' AS report_consistent,
       lower_bound IS NULL OR (lower_bound >= :b32 * (1 - 1e-12) AND lower_bound <= objective * (1 + 1e-12)) AS bound_certified
  FROM r32 ORDER BY m;
-- every reported bound holds for every strategy, not only for its method's own: eigen_design's dual
-- (1.09 times the SVD bound here) bounds only strategies made of W's eigen-queries, and
-- gaussian_optimal reaches 1.02, so eigen and eigen_design report the SVD bound itself
SELECT bool_and(s.ratio * :b32 >= b.lower_bound * (1 - 1e-9)) AS no_strategy_below_a_bound
  FROM r32 s, r32 b WHERE b.lower_bound IS NOT NULL;
SELECT m, abs(lower_bound / :b32 - 1) < 1e-9 AS bound_is_svdb
  FROM r32 WHERE m IN ('eigen', 'eigen_design') ORDER BY m;
-- eigen_design is completed in L2 (its default): never worse than its own objective
SELECT ratio <= objective / :b32 * (1 + 1e-9) AS completion_helps FROM r32 WHERE m = 'eigen_design';
SELECT bool_and(g.ratio <= o.ratio * (1 + 1e-6)) AS gaussian_optimal_best
  FROM r32 g, r32 o WHERE g.m = 'gaussian_optimal';
-- identity's ratio in closed form: ||W||_F^2 = n (n + 1) (n + 2) / 6
SELECT abs(ratio - 32 * 33 * 34 / 6.0 / :b32) < 1e-9 * ratio AS identity_closed_form FROM r32 WHERE m = 'identity';

-- gaussian_optimal reaches a relative gap of 1e-4 with a certificate, on AllRange(256) and on a
-- 2-D range workload, and is never worse than eigen_design there
SELECT pg_temp.allrange(256) AS w256 \gset
SELECT r.objective / r.lower_bound - 1 <= 1e-4 AS gap_ok, r.iterations < 1000 AS converged,
       r.objective <= (SELECT e.objective FROM dpm_internal.strategy_report(:'w256', 'eigen_design', '{"augment": "none"}') e) AS beats_eigen_design
  FROM dpm_internal.strategy_report(:'w256', 'gaussian_optimal', '{"tol": 1e-4}') r;
SELECT matrix AS w2d FROM dpm_internal.workload_matrix('AllRange(a) * AllRange(b)', dpm_internal.domain_of('{a,b}', '{8,6}',
  ARRAY(SELECT i::text FROM generate_series(1, 14) i), array_fill('NaN'::float8, ARRAY[14]),
  array_fill('NaN'::float8, ARRAY[14]))) \gset
SELECT r.objective / r.lower_bound - 1 <= 1e-4 AS gap_ok_2d,
       r.objective <= (SELECT e.objective FROM dpm_internal.strategy_report(:'w2d', 'eigen_design', '{"augment": "none"}') e) AS beats_eigen_design_2d
  FROM dpm_internal.strategy_report(:'w2d', 'gaussian_optimal', '{"tol": 1e-4}') r;

-- completing deficient columns (matrix-mechanism section 5.3): the tree over 5 cells has leaves
-- at two depths; completion keeps the sensitivity and lowers no query's precision
SELECT dpm.strategy(pg_temp.allrange(5), 'hierarchical') AS h5,
       dpm.strategy(pg_temp.allrange(5), 'hierarchical', '{"augment": "l1"}') AS h5a \gset
SELECT array_length(:'h5a'::float8[], 1) > array_length(:'h5'::float8[], 1) AS rows_added,
       dpm.sensitivity(:'h5a') = dpm.sensitivity(:'h5') AS same_sensitivity,
       (SELECT max(l1) - min(l1) < 1e-12
          FROM (SELECT sum(abs(x)) AS l1 FROM unnest(:'h5a'::float8[]) WITH ORDINALITY u(x, k)
                 GROUP BY (k - 1) % 5) c) AS columns_equal;
SELECT bool_and(a.variance <= o.variance * (1 + 1e-12)) AS no_query_worse,
       bool_or(a.variance < o.variance * (1 - 1e-9)) AS some_query_better
  FROM dpm.expected_error(pg_temp.allrange(5), :'h5', 1) o
  JOIN dpm.expected_error(pg_temp.allrange(5), :'h5a', 1) a USING (query);

-- min_sensitivity (matrix-mechanism section 5.4): the same error profile, lower L1 sensitivity;
-- the paper's Figure 4 reaches 2.896 for H4 and 2.210 for Y4 (both 3 before)
SELECT dpm.strategy(pg_temp.allrange(4), 'hierarchical') AS h4,
       dpm.strategy(pg_temp.allrange(4), 'min_sensitivity', '{"base": "hierarchical"}') AS h4m,
       dpm.strategy(pg_temp.allrange(4), 'wavelet') AS y4,
       dpm.strategy(pg_temp.allrange(4), 'min_sensitivity', '{"base": "wavelet"}') AS y4m \gset
SELECT dpm.sensitivity(:'h4') AS h4_before, dpm.sensitivity(:'h4m') <= 2.896 AS h4_at_most_2_896,
       dpm.sensitivity(:'y4') AS y4_before, dpm.sensitivity(:'y4m') <= 2.210 AS y4_at_most_2_210;
SELECT bool_and(abs(a - b) < 1e-9) AS h4_profile_kept
  FROM unnest(dpm.error_profile(:'h4'), dpm.error_profile(:'h4m')) t(a, b);
SELECT bool_and(abs(a - b) < 1e-9) AS y4_profile_kept
  FROM unnest(dpm.error_profile(:'y4'), dpm.error_profile(:'y4m')) t(a, b);
SELECT dpm.strategy('{{1,0},{0,1}}', 'min_sensitivity', '{"base": "min_sensitivity"}');
SELECT dpm.strategy('{{1,0},{0,1}}', 'min_sensitivity', '{"base": "nope"}');
SELECT dpm.strategy('{{1,0},{0,1}}', 'min_sensitivity', '{"base": 3}');

-- the Gram matrix of a spec without W: closed forms for AllRange and Prefix, Kronecker products
-- and unions; and a square root of it, which has the same bound and total errors as W
CREATE FUNCTION pg_temp.gram(spec text, sizes int[]) RETURNS float8[] LANGUAGE sql AS $$
  SELECT dpm_internal.workload_gram(spec, dpm_internal.domain_of((ARRAY['a', 'b'])[1:cardinality(sizes)], sizes,
    ARRAY(SELECT i::text FROM generate_series(1, (SELECT sum(x)::int FROM unnest(sizes) x)) i),
    array_fill('NaN'::float8, ARRAY[(SELECT sum(x)::int FROM unnest(sizes) x)]),
    array_fill('NaN'::float8, ARRAY[(SELECT sum(x)::int FROM unnest(sizes) x)]))) $$;
-- W^T W the long way, from W's entries
CREATE FUNCTION pg_temp.explicit_gram(spec text, sizes int[]) RETURNS float8[] LANGUAGE sql AS $$
  WITH w AS (SELECT matrix, array_length(matrix, 2) AS n
               FROM dpm_internal.workload_matrix(spec, dpm_internal.domain_of((ARRAY['a', 'b'])[1:cardinality(sizes)], sizes,
                 ARRAY(SELECT i::text FROM generate_series(1, (SELECT sum(x)::int FROM unnest(sizes) x)) i),
                 array_fill('NaN'::float8, ARRAY[(SELECT sum(x)::int FROM unnest(sizes) x)]),
                 array_fill('NaN'::float8, ARRAY[(SELECT sum(x)::int FROM unnest(sizes) x)])))),
       e AS (SELECT (k - 1) / n AS r, (k - 1) % n AS c, x FROM w, unnest(matrix) WITH ORDINALITY u(x, k))
  SELECT array_agg(g ORDER BY i, j) FROM (
    SELECT e1.c AS i, e2.c AS j, sum(e1.x * e2.x) AS g FROM e e1 JOIN e e2 USING (r) GROUP BY 1, 2) s $$;
SELECT spec, (SELECT bool_and(x IS NOT DISTINCT FROM y)
                FROM unnest(pg_temp.gram(spec, sizes), pg_temp.explicit_gram(spec, sizes)) t(x, y)) AS gram_matches
  FROM (VALUES ('AllRange(a)', '{7}'::int[]), ('Prefix(a)', '{6}'), ('Identity(a) + Total(a)', '{5}'),
               ('AllRange(a) * Prefix(b) + Identity(a) * Identity(b)', '{3,4}'),
               ('Hierarchical(a, 2) * Total(b) + Ranges(b, ''5'':''6'')', '{4,3}')) v(spec, sizes);
SELECT pg_temp.gram('AllRange(a)', '{32}') AS g32 \gset
SELECT dpm.gram_root(:'g32') AS r32 \gset
SELECT abs(dpm.svd_bound(:'r32') / :b32 - 1) < 1e-10 AS root_same_bound,
       abs(dpm.total_error(:'r32', dpm.strategy(:'w32', 'hierarchical'), 1)
           / dpm.total_error(:'w32', dpm.strategy(:'w32', 'hierarchical'), 1) - 1) < 1e-10 AS root_same_error;
SELECT dpm.gram_root('{{1,2},{3,1}}');
SELECT dpm.gram_root('{{1,2},{2,1}}');
SELECT dpm.gram_root('{{1,2,3}}');

-- bad input
SELECT dpm.strategy('{{0,0},{0,0}}', 'eigen');
SELECT dpm.strategy('{{0,0},{0,0}}', 'gaussian_optimal');
SELECT dpm.strategy('{{1,0},{0,1}}', 'gaussian_optimal', '{"tol": 0}');
SELECT dpm.strategy('{{1,0},{0,1}}', 'eigen_design', '{"max_iter": 0}');
SELECT dpm.strategy('{{1,0},{0,1}}', 'eigen', '{"augment": "l3"}');
SELECT dpm.strategy('{{1,0},{0,1}}', 'eigen', '{"tol": 1e-3}');
SELECT dpm.svd_bound('{{1,0},{0,1}}', 0);
SELECT dpm.svd_bound(NULL);
SELECT dpm.svd_bound('{{1,NaN}}');
-- rank-deficient workloads are fine: the strategy answers exactly the queries asked, and the
-- report describes the strategy returned (objective recomputed, certified bound below it)
SELECT abs(pg_temp.ratio('{{1,1}}', dpm.strategy('{{1,1}}', 'gaussian_optimal')) - 1) < 1e-6 AS total_only;
SELECT '{{1,1,0,0,2},{0,0,1,1,0},{1,1,1,1,2},{2,1,0,1,1},{3,2,1,2,3}}'::float8[] AS wr \gset
SELECT abs(r.objective / dpm.svd_bound(:'wr') - pg_temp.ratio(:'wr', r.matrix)) < 1e-6 * r.objective AS report_is_the_strategy,
       r.lower_bound <= r.objective * (1 + 1e-12) AS bound_below,
       r.lower_bound >= dpm.svd_bound(:'wr') * (1 - 1e-12) AS bound_at_least_svdb
  FROM dpm_internal.strategy_report(:'wr', 'gaussian_optimal', '{}') r;

-- dpm.compare_strategies: one row per method with its figures, for an analyst; reads no data.
-- Prefix over 16 cells (rank 16: lrm is left out, it would not lower the rank) and a workload of
-- rank 2 over 16 cells (lrm tried).  The figures agree with the closed forms: identity's total
-- Laplace error at epsilon = 1 is 2 ||W||_F^2 = 2 * 136 for Prefix(16); every ratio is >= 1.
CREATE TABLE opt_t AS SELECT g % 16 AS k FROM generate_series(1, 100) g;
SELECT dpm.register_source('opt_t', epsilon => 1);
SELECT dpm.create_domain('opt_k', 'opt_t', '[{"name": "k", "values": [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]}]') > 0 AS domain;
SELECT dpm.create_workload('opt_prefix', 'opt_k', 'Prefix(k)') > 0 AS prefix;
SELECT dpm.create_workload('opt_low', 'opt_k', 'Total(k) + Ranges(k, ''0'':''7'')') > 0 AS low_rank;
CREATE ROLE regress_opt_analyst IN ROLE dpm_analyst;
SET ROLE regress_opt_analyst;
SELECT method, sensitivity > 0 AS sensitivity, ratio_to_bound >= 1 - 1e-9 AS above_bound,
       abs(rms_error - sqrt(total_error / 16)) < 1e-9 * rms_error AS rms,
       max_error <= total_error AND max_error * 16 >= total_error AS max_error,
       method <> 'identity' OR abs(total_error - 2 * 136) < 1e-9 AS identity_closed_form
  FROM dpm.compare_strategies('opt_prefix') ORDER BY method;
SELECT string_agg(method, ', ' ORDER BY method) FROM dpm.compare_strategies('opt_low');
SELECT c.method, abs(c.total_error - sq.total) < 1e-6 * sq.total AS total_as_computed
  FROM dpm.compare_strategies('opt_low', 0.5) c
  JOIN dpm.strategies s ON s.id = c.strategy
  JOIN dpm.workloads w ON w.id = s.workload_id,
  LATERAL (SELECT sum(variance) AS total
             FROM dpm.expected_error(w.matrix, coalesce(s.matrix, dpm.strategy(w.matrix, 'identity')), 0.5)) sq
 WHERE c.method IN ('identity', 'lrm', 'eigen') ORDER BY 1;
-- auto picks the lowest expected error among them
SELECT (SELECT method FROM dpm.strategies WHERE id = dpm.optimize('opt_low'))
       = (SELECT method FROM dpm.compare_strategies('opt_low') ORDER BY total_error LIMIT 1) AS auto_is_best;
-- auto tries the cheapest first and stops at a strategy no other can beat, building nothing
-- after it: on a marginal workload under Gaussian noise, residual (the first) is at the SVD bound;
-- on Prefix under Gaussian noise, gaussian_optimal closes its duality gap, so hdmm (the last) is
-- not built; under Laplace noise gaussian_optimal is not tried, and auto still picks the lowest
SELECT dpm.create_workload('opt_auto_marg', 'opt_k', 'Identity(k) + Total(k)') > 0 AS marg,
       dpm.create_workload('opt_auto_gauss', 'opt_k', 'Prefix(k)') > 0 AS gauss,
       dpm.create_workload('opt_auto_lap', 'opt_k', 'Prefix(k)') > 0 AS lap;
SELECT dpm.optimize('opt_auto_marg', delta => 1e-6) AS marg_st, dpm.optimize('opt_auto_gauss', delta => 1e-6) AS gauss_st,
       dpm.optimize('opt_auto_lap') AS lap_st \gset
SELECT w.name, a.method AS picked, a.ratio_to_bound < 1 + 1e-5 AS at_bound,
       string_agg(s.method, ', ' ORDER BY s.id) AS built
  FROM dpm.workloads w JOIN dpm.strategies s ON s.workload_id = w.id
  JOIN dpm.strategies a ON a.id IN (:marg_st, :gauss_st, :lap_st) AND a.workload_id = w.id
 GROUP BY w.name, a.method, a.ratio_to_bound ORDER BY w.name;
SELECT (SELECT method FROM dpm.strategies WHERE id = :lap_st)
       = (SELECT method FROM dpm.compare_strategies('opt_auto_lap') ORDER BY total_error LIMIT 1) AS laplace_auto_is_best;
-- dpm.auto_time_budget (default 30 s; these tests run with -1, no limit, so that no pick depends on
-- the machine's speed): once it has passed, auto builds no further candidate, says which in a
-- NOTICE and picks the best it has; at 0 that is the first candidate that applies.  A cached
-- candidate still counts.  dpm.explain's auto_skipped names each candidate auto did not use and
-- why: ruled out, no time left, or not needed after a proven optimum.
SELECT boot_val, unit, min_val, context FROM pg_settings WHERE name = 'dpm.auto_time_budget';
SELECT dpm.create_workload('opt_budget', 'opt_k', 'Prefix(k)') > 0 AS budget;
SET dpm.auto_time_budget = 0;
SELECT dpm.optimize('opt_budget') AS budget_st \gset
SELECT s.method, s.id = :budget_st AS picked FROM dpm.strategies s JOIN dpm.workloads w ON w.id = s.workload_id
 WHERE w.name = 'opt_budget' ORDER BY s.id;
SELECT strategy_method, unnest(auto_skipped) AS skipped FROM dpm.explain('opt_budget', epsilon => 1);
-- with more time the others are built (in a release, those a spec gives without an n x n
-- optimizer: the rest are dpm.optimize's to build), the cached one still counted, and the pick is
-- the one dpm.optimize made for the same spec without a budget
SET dpm.auto_time_budget = '1h';
SELECT strategy_method, unnest(auto_skipped) AS skipped FROM dpm.explain('opt_budget', epsilon => 1);
SELECT (SELECT strategy_method FROM dpm.explain('opt_budget', epsilon => 1))
       = (SELECT method FROM dpm.strategies WHERE id = :lap_st) AS same_pick_as_without_budget;
-- below -1 is refused (the message's form differs between PostgreSQL versions: its SQLSTATE)
DO $$ BEGIN SET dpm.auto_time_budget = -2; EXCEPTION WHEN invalid_parameter_value THEN RAISE NOTICE 'refused: %', SQLSTATE; END $$;
RESET dpm.auto_time_budget;
-- candidates are ranked by their error profile alone; only the one picked gets the pseudo-inverse a
-- release needs (dpm_internal.cache_strategy: gaussian_optimal under Gaussian noise; under Laplace
-- noise hdmm, which needs none, so no dense candidate has one), and a loser asked for by name gets
-- it at its first release (hierarchical, under Laplace noise)
SELECT s.noise, s.method, s.pinv IS NOT NULL AS has_pinv
  FROM dpm.strategies s WHERE s.workload_id IN (SELECT workload_id FROM dpm.strategies WHERE id IN (:gauss_st, :lap_st))
   AND s.matrix IS NOT NULL ORDER BY s.id;
SELECT count(*) AS answers FROM dpm.answer('opt_auto_lap', epsilon => 0.01, method => 'hierarchical');
SELECT s.method, s.pinv IS NOT NULL AS has_pinv
  FROM dpm.strategies s WHERE s.workload_id = (SELECT workload_id FROM dpm.strategies WHERE id = :lap_st)
   AND s.method IN ('identity', 'hierarchical') ORDER BY s.id;
RESET ROLE;
DROP ROLE regress_opt_analyst;
-- under Gaussian noise on Prefix, gaussian_optimal closes its gap: hdmm, after it, is not needed
SELECT unnest((dpm_internal.choose_strategy(w, 'auto', 'gaussian', '{}', false)).skipped) AS skipped
  FROM dpm.workloads w WHERE w.name = 'opt_auto_gauss';

-- The bounds stored with strategies (dpm.strategies.lower_bound, on Delta_2^2 profile_trace over
-- all strategies) are proven ones: on every workload of these tests, weighted or not, no stored
-- strategy of any method and either noise has a lower sensitivity_l2^2 profile_trace than any
-- stored bound, and every stored bound is at least the SVD bound of the weighted matrix.
SELECT dpm.create_workload('opt_range', 'opt_k', 'AllRange(k)') > 0 AS all_range,
       dpm.create_workload('opt_weighted', 'opt_k', 'Identity(k) + 30 * Total(k) + 3 * Prefix(k)') > 0 AS weighted,
       dpm.create_workload('opt_explicit', 'opt_k',
         ARRAY(SELECT ARRAY(SELECT ((r * 7 + c * 3) % 5 - 1)::float8 FROM generate_series(0, 15) c)
                 FROM generate_series(0, 11) r),
         ARRAY(SELECT 1 + r % 4 * 0.5 FROM generate_series(0, 11) r)::float8[]) > 0 AS explicit_weighted;
-- and at the small end of the supported magnitudes (bad_input.sql): entries and weights of 1e-90,
-- whose squares, 1e-180, still meet the variances without underflow
SELECT dpm.create_workload('opt_tiny_entries', 'opt_k',
         ARRAY(SELECT ARRAY(SELECT CASE WHEN c BETWEEN r AND r + 3 THEN 1e-90 ELSE 0 END::float8
                              FROM generate_series(0, 15) c) FROM generate_series(0, 15) r)) > 0 AS tiny_entries,
       dpm.create_workload('opt_tiny_weights', 'opt_k', '1e-90 * Prefix(k) + 1e-90 * (Total(k) * 3)') > 0 AS tiny_weights;
SELECT count(*) > 0 AS optimized
  FROM unnest(ARRAY['opt_prefix', 'opt_low', 'opt_range', 'opt_weighted', 'opt_explicit', 'opt_tiny_entries',
                    'opt_tiny_weights']) w,
       LATERAL (SELECT * FROM dpm.compare_strategies(w, 1, 1e-6)
                UNION ALL SELECT * FROM dpm.compare_strategies(w)) c;
CREATE TEMP VIEW opt_bounds AS
  SELECT w.name, s.*, dpm.svd_bound(coalesce(dpm_internal.scale_rows(w.matrix, w.weights), w.matrix)) AS svdb
    FROM dpm.workloads w JOIN dpm.strategies s ON s.workload_id = w.id WHERE w.name LIKE 'opt\_%';
SELECT s.name, count(DISTINCT s.id) AS strategies, count(DISTINCT b.id) AS bounds,
       bool_and(s.sensitivity_l2 ^ 2 * s.profile_trace >= b.lower_bound * (1 - 1e-9)) AS none_below_a_bound,
       bool_and(b.lower_bound >= b.svdb * (1 - 1e-9)) AS bounds_at_least_svdb
  FROM opt_bounds s JOIN opt_bounds b ON b.workload_id = s.workload_id AND b.lower_bound IS NOT NULL
 GROUP BY s.name ORDER BY s.name;
-- which methods store one: gaussian_optimal its dual value, eigen and eigen_design the SVD bound
SELECT method, count(*) AS bounds, bool_and(abs(lower_bound / svdb - 1) < 1e-9) AS bound_is_svdb
  FROM opt_bounds WHERE lower_bound IS NOT NULL GROUP BY method ORDER BY method;

-- Above n = 1024 the eigendecomposition runs as LAPACK's stages (cancellable between them).
-- Prefix(1100): its singular values are 1 / (2 sin((2k - 1) pi / (2 (2n + 1)))), k = 1 .. n, so the
-- SVD bound (sum of them)^2 / n is known; and eigen's objective, computed from the eigenvectors,
-- equals the total error of the strategy they build, computed through an SVD of it
SELECT dpm.gram_root(dpm_internal.workload_gram('Prefix(x)', dpm_internal.domain_of('{x}', ARRAY[1100],
         ARRAY(SELECT i::text FROM generate_series(1, 1100) i), array_fill('NaN'::float8, ARRAY[1100]),
         array_fill('NaN'::float8, ARRAY[1100])))) AS p1100 \gset
SELECT abs(dpm.svd_bound(:'p1100') / ((SELECT sum(1 / (2 * sin((2 * k - 1) * pi() / (2 * (2 * 1100 + 1)))))
                                         FROM generate_series(1, 1100) k) ^ 2 / 1100) - 1) < 1e-9 AS bound_closed_form,
       abs(dpm.total_error(:'p1100', r.matrix, 1, 1e-6) / dpm.gaussian_sigma(1, 1e-6) ^ 2 / r.objective - 1) < 1e-9
         AS eigenvectors_consistent
  FROM dpm_internal.strategy_report(:'p1100', 'eigen', '{}') r;
