-- Built-in strategies: identity, workload, hierarchical (any n, any branching), wavelet (any n).
\set SHOW_CONTEXT never
CREATE FUNCTION pg_temp.full_rank(a float8[]) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  -- every unit query is supported exactly when A has full column rank
  PERFORM dpm.total_error(dpm.strategy(a, 'identity'), a, 1);
  RETURN true;
EXCEPTION WHEN invalid_parameter_value THEN
  RETURN false;
END
$$;
CREATE FUNCTION pg_temp.ones(n int) RETURNS float8[] LANGUAGE sql AS $$
  SELECT ARRAY[array_fill(1::float8, ARRAY[n])]
$$;
-- a row is a contiguous run of ones
CREATE FUNCTION pg_temp.contiguous_rows(a float8[]) RETURNS boolean LANGUAGE sql AS $$
  SELECT bool_and(regexp_replace(array_to_string(a[i:i][:], ''), '^0*1+0*$', 'ok') = 'ok')
    FROM generate_series(1, array_length(a, 1)) i
$$;

-- hierarchical: full rank, contiguous rows, fewer than 2n rows, and sensitivity equal to the tree
-- height ceil(log_b n) + 1 for every n from 1 to 70 and branching 2, 3, 4
SELECT b, bool_and(pg_temp.full_rank(a)) AS full_rank,
       bool_and(pg_temp.contiguous_rows(a)) AS contiguous,
       bool_and(array_length(a, 1) < 2 * n) AS rows_ok,
       bool_and(dpm.sensitivity(a) = ceil(log(b, n) - 1e-9) + 1) AS height_ok
  FROM generate_series(1, 70) n, (VALUES (2), (3), (4)) v(b),
       LATERAL dpm.strategy(pg_temp.ones(n), 'hierarchical', jsonb_build_object('branching', b)) a
 GROUP BY b ORDER BY b;

-- the default branching is 2; 5 cells split as 3 + 2 then 2 + 1, 1 + 1, listed level by level
SELECT dpm.strategy(pg_temp.ones(5), 'hierarchical') =
       '{{1,1,1,1,1},{1,1,1,0,0},{0,0,0,1,1},{1,1,0,0,0},{0,0,1,0,0},{0,0,0,1,0},{0,0,0,0,1},{1,0,0,0,0},{0,1,0,0,0}}'::float8[]
       AS h5_ok;
SELECT dpm.strategy(pg_temp.ones(9), 'hierarchical', '{"branching": 3}') =
       '{{1,1,1,1,1,1,1,1,1},{1,1,1,0,0,0,0,0,0},{0,0,0,1,1,1,0,0,0},{0,0,0,0,0,0,1,1,1},
         {1,0,0,0,0,0,0,0,0},{0,1,0,0,0,0,0,0,0},{0,0,1,0,0,0,0,0,0},{0,0,0,1,0,0,0,0,0},{0,0,0,0,1,0,0,0,0},
         {0,0,0,0,0,1,0,0,0},{0,0,0,0,0,0,1,0,0},{0,0,0,0,0,0,0,1,0},{0,0,0,0,0,0,0,0,1}}'::float8[] AS h9_b3_ok;

-- wavelet: full rank for every n (Haar on the domain padded to a power of two), sensitivity
-- ceil(log2 n) + 1, and for powers of two the rows are mutually orthogonal
SELECT bool_and(pg_temp.full_rank(a)) AS full_rank,
       bool_and(dpm.sensitivity(a) = ceil(log(2, n) - 1e-9) + 1) AS sensitivity_ok
  FROM generate_series(1, 70) n, LATERAL dpm.strategy(pg_temp.ones(n), 'wavelet') a;
SELECT n, bool_and(dot = 0) AS rows_orthogonal
  FROM (SELECT n, i, j, sum(a[i][k] * a[j][k]) AS dot
          FROM (VALUES (8), (32)) v(n),
               LATERAL dpm.strategy(pg_temp.ones(n), 'wavelet') a,
               generate_series(1, n) i, generate_series(1, n) j, generate_series(1, n) k
         WHERE i < j GROUP BY n, i, j) s
 GROUP BY n ORDER BY n;

-- identity and workload
SELECT dpm.strategy('{{1,2,3},{4,5,6}}', 'workload') = '{{1,2,3},{4,5,6}}'::float8[] AS workload_ok,
       dpm.strategy('{{1,2,3}}', 'identity') = '{{1,0,0},{0,1,0},{0,0,1}}'::float8[] AS identity_ok;

-- a rank-deficient strategy is fine for queries in its row space and refused for others
SELECT round(variance::numeric, 9) AS variance FROM dpm.expected_error('{{2,2}}', '{{1,1}}', 1);
SELECT * FROM dpm.expected_error('{{1,0}}', '{{1,1}}', 1);
-- reconstruction from a rank-deficient strategy is the minimum-norm least-squares estimate: the
-- 1-way marginals of a 2 x 2 domain (rank 3): the residual is orthogonal to A's columns and the
-- estimate to A's null space (1, -1, -1, 1)
SELECT max(abs(r)) < 1e-12 AS normal_equations, abs(x[1] - x[2] - x[3] + x[4]) < 1e-12 AS minimum_norm
  FROM (SELECT dpm.reconstruct('{{1,1,0,0},{0,0,1,1},{1,0,1,0},{0,1,0,1}}', '{1,2,3,5}') AS x) s,
       unnest(dpm_internal.matvec('{{1,0,1,0},{1,0,0,1},{0,1,1,0},{0,1,0,1}}',
                          ARRAY[x[1] + x[2] - 1, x[3] + x[4] - 2, x[1] + x[3] - 3, x[2] + x[4] - 5])) r
 GROUP BY x;

-- the pseudo-inverse cached with a stored strategy comes from an SVD run stage by stage (QR when A
-- has at least 11/6 as many rows as columns, bidiagonalization, divide and conquer, the
-- back-transformations): the Penrose conditions A P A = A and P A P = P hold on a tall matrix
-- (QR path), a nearly square one, a wide one and a tall one of rank 4
CREATE FUNCTION pg_temp.mat(m int, n int, rank int) RETURNS float8[] LANGUAGE sql AS $$
  SELECT array_agg(r ORDER BY i) FROM (
    SELECT i, array_agg((SELECT sum(sin(i * t * 1.3 + t) * cos(j * t * 0.7 + 2 * t)) FROM generate_series(1, rank) t)
                        ORDER BY j) AS r
      FROM generate_series(1, m) i, generate_series(1, n) j GROUP BY i) s $$;
CREATE FUNCTION pg_temp.mul(a float8[], b float8[]) RETURNS float8[] LANGUAGE sql AS $$
  SELECT array_agg(r ORDER BY i) FROM (
    SELECT i, array_agg((SELECT sum(a[i][t] * b[t][j]) FROM generate_series(1, array_length(a, 2)) t)
                        ORDER BY j) AS r
      FROM generate_series(1, array_length(a, 1)) i, generate_series(1, array_length(b, 2)) j
     GROUP BY i) s $$;
-- the cache keeps the pseudo-inverse transposed
CREATE FUNCTION pg_temp.tr(a float8[]) RETURNS float8[] LANGUAGE sql AS $$
  SELECT array_agg(r ORDER BY j) FROM (
    SELECT j, array_agg(a[i][j] ORDER BY i) AS r
      FROM generate_series(1, array_length(a, 1)) i, generate_series(1, array_length(a, 2)) j
     GROUP BY j) s $$;
CREATE FUNCTION pg_temp.maxdiff(a float8[], b float8[]) RETURNS float8 LANGUAGE sql AS $$
  SELECT max(abs(x - y)) FROM unnest(a, b) u(x, y) $$;
SELECT m, n, rank,
       pg_temp.maxdiff(pg_temp.mul(pg_temp.mul(a, p), a), a) < 1e-10 AS apa_is_a,
       pg_temp.maxdiff(pg_temp.mul(pg_temp.mul(p, a), p), p) < 1e-10 AS pap_is_p
  FROM (VALUES (40, 12, 12), (20, 12, 12), (9, 30, 9), (30, 12, 4)) v(m, n, rank),
       LATERAL pg_temp.mat(m, n, rank) a,
       LATERAL (SELECT pg_temp.tr(pinv) AS p FROM dpm_internal.strategy_cache(a[1:1], a)) c
 ORDER BY m, n;
-- the profile alone, as method auto ranks its candidates (dpm_internal.strategy_profile): by a
-- Cholesky factor of A^T A where A has full column rank and A^T A a condition number below 1e6,
-- by the SVD otherwise; the same terms as the cache's either way, on the matrices above (W = A)
-- and on A = diag(1, 1e-4, 1) (A^T A's condition number 1e8), whose second term is 1e8
SELECT m, n, rank,
       (SELECT max(abs(x - y) / y) FROM unnest(dpm_internal.strategy_profile(a, a), (dpm_internal.strategy_cache(a, a)).profile) u(x, y))
         < 1e-9 AS same_profile
  FROM (VALUES (40, 12, 12), (20, 12, 12), (9, 30, 9), (30, 12, 4)) v(m, n, rank),
       LATERAL pg_temp.mat(m, n, rank) a
 ORDER BY m, n;
SELECT (SELECT max(abs(x - y) / y) FROM unnest(dpm_internal.strategy_profile(w, a), (dpm_internal.strategy_cache(w, a)).profile) u(x, y))
         < 1e-9 AS ill_conditioned_same_profile,
       abs((dpm_internal.strategy_profile(w, a))[2] - 1e8) < 1e-1 AS tiny_row_term
  FROM (VALUES ('{{1,1,1},{0,1,0}}'::float8[], '{{1,0,0},{0,1e-4,0},{0,0,1}}'::float8[])) v(w, a);
SELECT dpm_internal.strategy_profile('{{1,0}}', '{{1,1}}');

-- options are checked
SELECT dpm.strategy('{{1,1}}', 'hierarchical', '{"branching": 1}');
SELECT dpm.strategy('{{1,1}}', 'hierarchical', '{"branching": 2.5}');
SELECT dpm.strategy('{{1,1}}', 'hierarchical', '{"branching": "two"}');
SELECT dpm.strategy('{{1,1}}', 'hierarchical', '{"levels": 3}');
SELECT dpm.strategy('{{1,1}}', 'wavelet', '{"branching": 2}');
SELECT dpm.strategy('{{1,1}}', 'hierarchical', '[2]');
SELECT dpm.strategy('{{1,1}}', 'quadtree');

-- the registry of methods (src/strategy/methods.c) is what dpm.strategy, auto and
-- dpm.compare_strategies read: every method it lists builds a strategy for the 3 x 4 Prefix
-- workload with its default options, of full column rank (A^+ A = I); method auto tries them in
-- its order, but never fitness; the memory estimate is the registry's constant
SELECT * FROM dpm.strategy_methods();
-- auto's order (the registry's), but under Gaussian noise up to 128 cells gaussian_optimal right
-- after the two that take no time; a method named is tried alone
SELECT dpm_internal.auto_candidates('auto', 'laplace', 1024) AS laplace_order,
       dpm_internal.auto_candidates('auto', 'gaussian', 129) AS gaussian_order;
SELECT dpm_internal.auto_candidates('auto', 'gaussian', 128) AS small_gaussian_order,
       dpm_internal.auto_candidates('auto', 'gaussian', NULL) AS wide_gaussian_order,
       dpm_internal.auto_candidates('hierarchical', 'gaussian', 10) AS named;
SELECT m.method,
       pg_temp.maxdiff(pg_temp.mul(c.pinv_t, a), '{{1,0,0,0},{0,1,0,0},{0,0,1,0},{0,0,0,1}}') < 1e-9 AS full_rank
  FROM dpm.strategy_methods() m,
       LATERAL (SELECT dpm.strategy('{{1,0,0,0},{1,1,0,0},{1,1,1,0},{1,1,1,1}}', m.method,
                                    CASE m.method WHEN 'fitness' THEN '{"targets": 1}' ELSE '{}' END::jsonb) AS a) s,
       LATERAL (SELECT pg_temp.tr(pinv) AS pinv_t FROM dpm_internal.strategy_cache(s.a[1:1], s.a)) c;
SELECT bool_and(abs(dpm_internal.strategy_memory_mb(method, 100, 1000)
                    - ((memory_per_n2 * 1e6 + 2e5) * 8 / 1048576 + 8)) < 1e-9) AS memory_from_the_registry
  FROM dpm.strategy_methods();
-- which workloads a method applies to, and why not
SELECT dpm_internal.method_rules_out('lrm', 100, false, false, 10, 90) AS lrm_rank_90,
       dpm_internal.method_rules_out('lrm', 100, false, false, 10, 80) AS lrm_rank_80,
       dpm_internal.method_rules_out('hdmm', 100, false, false, 10, NULL) AS hdmm_matrix,
       dpm_internal.method_rules_out('hdmm', 100, true, false, 10, NULL) AS hdmm_spec,
       dpm_internal.method_rules_out('fitness', 100, true, false, 10, NULL) AS fitness;
-- a workload kept as its spec only for the methods that build from it; gaussian_optimal only
-- under Gaussian noise in auto, in every comparison (noise NULL)
SELECT dpm_internal.method_rules_out('eigen', 100, true, true, 10, NULL) AS eigen_kept_as_spec,
       dpm_internal.method_rules_out('hdmm', 100, true, true, 10, NULL) AS hdmm_kept_as_spec;
SELECT dpm_internal.method_rules_out('gaussian_optimal', 100, false, false, 10, NULL, 'laplace') AS auto_laplace,
       dpm_internal.method_rules_out('gaussian_optimal', 100, false, false, 10, NULL, 'gaussian') AS auto_gaussian,
       dpm_internal.method_rules_out('gaussian_optimal', 100, false, false, 10, NULL) AS compared;
-- what auto reads of each method
SELECT m.method, t.* FROM dpm.strategy_methods() m, dpm_internal.method_traits(m.method) t;
SELECT dpm_internal.has_targets('fitness', NULL) AS fitness, dpm_internal.has_targets('residual', '{}') AS residual,
       dpm_internal.has_targets('residual', '{"targets": 1}') AS residual_targets,
       dpm_internal.has_targets('auto', '{}') AS auto;
-- the common option noise: eigen_design is completed in its norm unless augment says otherwise
SELECT dpm.strategy(w, 'eigen_design', '{"noise": "laplace"}') = dpm.strategy(w, 'eigen_design', '{"augment": "l1"}') AS laplace_l1,
       dpm.strategy(w, 'eigen_design') = dpm.strategy(w, 'eigen_design', '{"augment": "l2"}') AS default_l2,
       dpm.strategy(w, 'eigen_design', '{"noise": "laplace", "augment": "none"}') = dpm.strategy(w, 'eigen_design', '{"augment": "none"}') AS augment_wins
  FROM (VALUES ('{{1,0,0},{1,1,0},{0,0,1},{1,1,1}}'::float8[])) v(w);
SELECT dpm.strategy('{{1,1}}', 'identity', '{"noise": "poisson"}');

-- method auto with no method that can answer says why each was ruled out, before any charge
-- (here every dense matrix is above a limit of 1 MB, and hdmm needs a spec)
CREATE TABLE st_people AS SELECT g AS id, g % 400 AS k FROM generate_series(1, 1000) g;
SELECT dpm.register_source('st_people', epsilon => 1);
SELECT dpm.create_domain('st_k', 'st_people', '[{"name": "k", "bins": {"min": 0, "max": 400, "width": 1}}]');
SELECT dpm.create_workload('st_w', 'st_k',
         (SELECT array_agg(r ORDER BY i) FROM (SELECT i, array_agg((j <= i)::int::float8 ORDER BY j) AS r
                                                  FROM generate_series(1, 400) i, generate_series(1, 400) j GROUP BY i) q));
SET dpm.max_matrix_mb = 1;
SELECT dpm.optimize('st_w');
SELECT * FROM dpm.answer('st_w', epsilon => 0.1);
RESET dpm.max_matrix_mb;
SELECT count(*) AS releases FROM dpm.releases r JOIN dpm.workloads w ON w.id = r.workload_id WHERE w.name = 'st_w';
