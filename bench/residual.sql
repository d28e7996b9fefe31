-- ResidualPlanner's plan (src/residual) for all marginals of at most 3 attributes over d
-- attributes of 10 values each: planning time, its total variance against the SVD bound, and,
-- where HDMM's marginals parameterization can run (d <= 9: its workload may have at most 2^31 cells), HDMM's
-- optimizer on the same workload in the same run (its time and its total variance against the
-- same bound).  The bound: ResidualPlanner's closed form for this symmetric workload, computed
-- here independently of the plan, and for d <= 9 also dpm_internal.spec_svd_bound (strategy/hdmm/).  Last,
-- the plan for the largest variance instead of the sum (residual_targets): time, iterations, gap.
\set ON_ERROR_STOP 1
SET dpm.progress_interval = 0;
-- HDMM's code and spec_svd_bound need a dense cell index: up to d = 9 (10^9 cells) with this
-- setting, which the wide domains' tables below also need (19.6 million cells at d = 50)
SET dpm.max_cells = 2000000000;
\pset footer off

-- all subsets of at most 3 of d attributes, padded with 0
CREATE FUNCTION bench_kway(d int) RETURNS int[] LANGUAGE sql AS $$
  SELECT array_agg(ARRAY[coalesce(x, 0), coalesce(y, 0), coalesce(z, 0)] ORDER BY x, y, z)
    FROM (SELECT NULL::int x, NULL::int y, NULL::int z
          UNION ALL SELECT i, NULL, NULL FROM generate_series(1, d) i
          UNION ALL SELECT i, j, NULL FROM generate_series(1, d) i, generate_series(1, d) j WHERE i < j
          UNION ALL SELECT i, j, l FROM generate_series(1, d) i, generate_series(1, d) j, generate_series(1, d) l
                     WHERE i < j AND j < l) s $$;
CREATE FUNCTION bench_choose(n int, k int) RETURNS float8 LANGUAGE sql AS $$
  SELECT (factorial(n) / (factorial(k) * factorial(n - k)))::float8 $$;
-- the SVD bound of all <= 3-way marginals of d attributes of 10 values (residual.h's T^2)
CREATE FUNCTION bench_bound(d int) RETURNS float8 LANGUAGE sql AS $$
  SELECT sum(bench_choose(d, a) * 9 ^ a
             * sqrt((SELECT sum(bench_choose(d - a, s - a) * 10.0 ^ (a - s)) FROM generate_series(a, 3) s) / 10.0 ^ a)) ^ 2
    FROM generate_series(0, 3) a $$;
CREATE FUNCTION bench_spec(d int) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg((SELECT string_agg(CASE WHEN a = ANY (m.s) THEN 'Identity' ELSE 'Total' END || '(a' || a || ')',
                                       ' * ' ORDER BY a) FROM generate_series(1, d) a), ' + ')
    FROM (SELECT k[i:i] AS s FROM (SELECT bench_kway(d) k) q, generate_subscripts(q.k, 1) i) m $$;
CREATE FUNCTION bench_dom(d int) RETURNS dpm.domains LANGUAGE sql AS $$
  SELECT dpm_internal.domain_of(ARRAY(SELECT 'a' || a FROM generate_series(1, d) a), array_fill(10, ARRAY[d]),
                                ARRAY(SELECT v::text FROM generate_series(1, d) a, generate_series(1, 10) v),
                                array_fill('NaN'::float8, ARRAY[10 * d]), array_fill('NaN'::float8, ARRAY[10 * d])) $$;

CREATE TABLE bench_residual (d int, marginals int, residuals bigint, plan_ms float8, ratio float8,
                             spec_bound_agrees boolean, hdmm_ms float8, hdmm_ratio float8,
                             max_ms float8, max_iterations int, max_gap float8);
DO $$
DECLARE
  d int;
  m int[];
  t0 timestamptz;
  ms float8;
  total float8;
  n bigint;
  hobj float8;
  hms float8;
  spec_ok boolean;
  mx record;
  mx_ms float8;
BEGIN
  FOREACH d IN ARRAY ARRAY[6, 8, 9, 10, 14, 20, 50] LOOP
    m := bench_kway(d);
    t0 := clock_timestamp();
    SELECT sum(p.rows * p.mu * p.variance), count(*) INTO total, n FROM dpm_internal.residual_plan(array_fill(10, ARRAY[d]), m) p;
    ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
    hobj := NULL; hms := NULL; spec_ok := NULL;
    IF d <= 9 THEN
      spec_ok := abs(dpm_internal.spec_svd_bound(bench_spec(d), bench_dom(d)) - bench_bound(d)) < 1e-9 * bench_bound(d);
      t0 := clock_timestamp();
      hobj := (dpm_internal.hdmm(bench_spec(d), bench_dom(d), '{"parameterization": "marginals", "noise": "gaussian"}')).objective;
      hms := extract(epoch FROM clock_timestamp() - t0) * 1000;
    END IF;
    t0 := clock_timestamp();
    SELECT DISTINCT p.iterations, p.gap INTO mx FROM dpm_internal.residual_targets(array_fill(10, ARRAY[d]), m) p;
    mx_ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
    INSERT INTO bench_residual VALUES (d, cardinality(m) / 3, n, ms, total / bench_bound(d), spec_ok, hms,
                                       hobj / bench_bound(d), mx_ms, mx.iterations, mx.gap);
  END LOOP;
END $$;

\echo
\echo ResidualPlanner against the HDMM marginals optimizer: all marginals of at most 3 attributes, 10 values each, Gaussian, sum of variances
SELECT d, marginals, residuals, round(plan_ms::numeric, 1) AS plan_ms, to_char(ratio, 'FM0.000000000') AS ratio_to_bound,
       spec_bound_agrees, round(hdmm_ms::numeric, 1) AS hdmm_ms, to_char(hdmm_ratio, 'FM0.000000') AS hdmm_ratio_to_bound,
       round(max_ms::numeric, 1) AS largest_ms, max_iterations AS largest_iterations, to_char(max_gap, '9.9EEEE') AS largest_gap
  FROM bench_residual ORDER BY d;
DROP TABLE bench_residual;

-- The same workloads through the public interface over wide domains: the workload kept as its spec
-- only (no label is stored: at d = 50 they are 19.7 million queries), optimized by dpm.optimize.
SET client_min_messages = warning;
CREATE TABLE bench_wide_src (id int);
CREATE TABLE bench_public (d int, queries int, create_ms float8, optimize_ms float8, ratio float8);
DO $$
DECLARE
  d int;
  q int;
  t0 timestamptz;
  c_ms float8;
  o_ms float8;
BEGIN
  PERFORM dpm.register_source('bench_wide_src', 'id', 1, rho => 1);
  FOREACH d IN ARRAY ARRAY[14, 20, 50] LOOP
    EXECUTE format('ALTER TABLE bench_wide_src %s',
                   (SELECT string_agg(format('ADD COLUMN a%s_%s int', d, a), ', ') FROM generate_series(1, d) a));
    PERFORM dpm.create_domain('bench_wide_' || d, 'bench_wide_src',
      (SELECT jsonb_agg(jsonb_build_object('name', format('a%s_%s', d, a), 'values', jsonb_build_array(0,1,2,3,4,5,6,7,8,9)) ORDER BY a)
         FROM generate_series(1, d) a));
    t0 := clock_timestamp();
    q := dpm.create_workload('bench_wide_' || d, 'bench_wide_' || d, 'Marginals(3) + Marginals(2) + Marginals(1) + Marginals(0)');
    c_ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
    t0 := clock_timestamp();
    PERFORM dpm.optimize('bench_wide_' || d, method => 'residual', rho => 1);
    o_ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
    INSERT INTO bench_public SELECT d, q, c_ms, o_ms, s.ratio_to_bound
      FROM dpm.strategies s JOIN dpm.workloads w ON w.id = s.workload_id WHERE w.name = 'bench_wide_' || d;
  END LOOP;
END $$;
\echo
\echo The same, all <= 3-way marginals, through dpm.create_workload and dpm.optimize over wide domains
SELECT d, queries, round(create_ms::numeric, 1) AS create_workload_ms, round(optimize_ms::numeric, 1) AS optimize_ms,
       to_char(ratio, 'FM0.000000000') AS ratio_to_bound
  FROM bench_public ORDER BY d;
DROP TABLE bench_public;
RESET dpm.max_cells;
DROP FUNCTION bench_kway, bench_choose, bench_bound, bench_spec, bench_dom;
