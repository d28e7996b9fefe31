-- Exact measurement (src/mechanism/exact.c, src/strategy/hdmm/exact_measure.c; the argument is section 0 of
-- the proof sketch at the top of src/mechanism/sampler.c).  The mechanism adds its noise to A x
-- computed exactly, for integer counts x and the strategy A quantized to a dyadic grid (entries
-- multiples of 2^K, K = ceil(log2 max |a|) - 40), and calibrates it for that A's sensitivity.  Counts
-- near 10^9 and entries such as 1/3, 1e-7 and 0.1: a double product is off there by thousands of
-- units of the noise grid, which the sensitivity did not cover.
\set SHOW_CONTEXT never

-- 300 cells with counts near 10^9; a 40 x 300 block of awkward entries whose columns are
-- permutations of one another (every column has the same norm); the largest entry is 1, so K = -40
-- and q_ij = round(b_ij 2^40) (halves to even, as float8's round does)
CREATE TEMP TABLE vals AS
  SELECT k, (CASE k WHEN 0 THEN 1 WHEN 1 THEN 1 / 3.0 WHEN 2 THEN 1e-7 WHEN 3 THEN 0.1 WHEN 4 THEN -2 / 7.0
                    ELSE ((k * 37) % 101 - 50) / 51.0 END)::float8 AS v
    FROM generate_series(0, 39) k;
CREATE TEMP TABLE bm AS
  SELECT i, j, v AS b, round(v * 1099511627776::float8)::int8 AS q
    FROM generate_series(0, 39) i, generate_series(0, 299) j, vals WHERE k = (i + j) % 40;
CREATE TEMP TABLE xv AS SELECT j, (1e9 + j * 7919 % 1000)::int8 AS x FROM generate_series(0, 299) j;
SELECT (SELECT array_agg(r ORDER BY i) FROM (SELECT i, array_agg(b ORDER BY j) AS r FROM bm GROUP BY i) s) AS b,
       (SELECT array_agg(x::float8 ORDER BY j) FROM xv) AS x \gset

-- the exact answers S_i = sum_j q_ij x_j (numeric), and R = floor(S 2^(K - e) + 1/2) on grids 2^e
CREATE TEMP TABLE truth AS
  SELECT i, sum(q::numeric * x) AS s FROM bm JOIN xv USING (j) GROUP BY i;
CREATE FUNCTION pg_temp.on_grid(s numeric, shift int) RETURNS numeric LANGUAGE sql AS $$
  -- floor(s 2^shift + 1/2) for an integer s
  SELECT CASE WHEN shift >= 0 THEN s * 2::numeric ^ shift
              ELSE floor((s + 2::numeric ^ (-shift - 1)) / 2::numeric ^ (-shift)) END $$;
SELECT e AS grid_exp, bool_and(u.units[t.i + 1] = pg_temp.on_grid(t.s, -40 - e)) AS exact,
       count(*) AS answers
  FROM unnest(ARRAY[-45, -40, -37, -30, 0, 10, 80]) e,
       LATERAL dpm_internal.exact_matvec(:'b', :'x', e) u, truth t
 GROUP BY e ORDER BY e;

-- the sensitivities the noise is calibrated for: exactly the quantized block's largest column norms
-- (L1 exact in a double here; L2 rounded up, within 2 ulps)
SELECT u.l1 = (SELECT max(c) FROM (SELECT sum(abs(q)) AS c FROM bm GROUP BY j) s)::float8 / 1099511627776 AS l1_exact,
       u.l2 >= sqrt(m2) / 1099511627776 AND u.l2 <= sqrt(m2) / 1099511627776 * (1 + 5e-16) AS l2_bound
  FROM dpm_internal.exact_matvec(:'b', :'x', 0) u,
       (SELECT max(c)::numeric AS m2 FROM (SELECT sum(q::numeric * q) AS c FROM bm GROUP BY j) s) c;

-- The Laplace grid for epsilon = 1: g = 2^e with D / g in [2^40, 2^41)
SELECT u.l1 AS d, floor(log(2, u.l1::numeric))::int - 40 AS e FROM dpm_internal.exact_matvec(:'b', :'x', 0) u \gset

-- The same block computed in doubles (the products and an ordered sum, as a BLAS would) misses the
-- exact answers by more than 10^5 units of that grid (about 10^-7 in values of 10^10)
CREATE FUNCTION pg_temp.units(f float8, e int) RETURNS numeric LANGUAGE sql AS $$
  -- the exact value of the double f in units of 2^e (f a multiple of 2^e, 2^17 <= |f| < 2^78,
  -- e > -47), in two int8 parts: float8 -> numeric keeps only 15 digits
  SELECT trunc(f / 2 ^ 16)::int8 * 2::numeric ^ (16 - e)
         + ((f - trunc(f / 2 ^ 16) * 2 ^ 16) * 2 ^ (-e))::int8 $$;
CREATE TEMP TABLE float_answers AS
  SELECT i, sum(q / 1099511627776::float8 * x::float8 ORDER BY j) AS f FROM bm JOIN xv USING (j) GROUP BY i;
SELECT max(abs(pg_temp.units(f.f, :e) - pg_temp.on_grid(t.s, -40 - :e))) > 100000 AS double_product_off
  FROM float_answers f JOIN truth t USING (i);

-- Neighbours x and x + e_j at that grid: the rounded exact answers are within D / g + m grid units
-- in L1 for every j (the bound of the proof), and nearly reach it (all columns have the norm D);
-- the double product's are not, for some of 30 columns tried.
CREATE TEMP TABLE neighbours AS
  SELECT nb.j, (SELECT sum(abs(n.units[i] - u.units[i])) FROM generate_subscripts(u.units, 1) i) AS l1
    FROM dpm_internal.exact_matvec(:'b', :'x', :e) u, generate_series(0, 299) nb(j),
         LATERAL dpm_internal.exact_matvec(:'b', (SELECT array_agg((x + (xv.j = nb.j)::int)::float8 ORDER BY xv.j) FROM xv), :e) n;
SELECT count(*) AS neighbours,
       bool_and(l1 <= :d * 2 ^ (0 - :e) + 40) AS within_d_over_g_plus_m,
       min(l1) >= :d * 2 ^ (0 - :e) - 40 AS bound_nearly_reached
  FROM neighbours;
CREATE TEMP TABLE float_neighbours AS
  SELECT n.j, sum(abs(pg_temp.units(n.f, :e) - pg_temp.units(f.f, :e))) AS l1
    FROM (SELECT xn.j, b.i, sum(b.q / 1099511627776::float8 * (xv.x + (xv.j = xn.j)::int)::float8 ORDER BY b.j) AS f
            FROM generate_series(0, 290, 10) xn(j), bm b JOIN xv USING (j) GROUP BY xn.j, b.i) n
    JOIN float_answers f USING (i) GROUP BY n.j;
SELECT bool_or(l1 > :d * 2 ^ (0 - :e) + 40) AS double_product_exceeds_bound FROM float_neighbours;

-- Stored strategies are quantized when built: dpm.strategy(a, 'workload') is a on the grid, and
-- measuring it or a gives the same exact answers (quantizing twice changes nothing)
SELECT dpm.strategy(:'b', 'workload') AS bq \gset
SELECT bool_and(v * 1099511627776::float8 = round(v * 1099511627776::float8)) AS on_grid,
       (SELECT units FROM dpm_internal.exact_matvec(:'bq', :'x', -40)) = (SELECT units FROM dpm_internal.exact_matvec(:'b', :'x', -40))
         AS measured_as_stored,
       (SELECT count(*) FROM unnest(:'b'::float8[]) t(v) WHERE v <> round(v * 1099511627776::float8) / 1099511627776::float8) > 0
         AS the_raw_block_was_not
  FROM unnest(:'bq'::float8[]) v;

-- The mechanism on these counts: the strategy [I; block] (quantized as stored), the cells and their
-- total as workload.  Over 300 releases each query's mean error is within 5 standard errors of 0
-- (normal approximation for a mean of 300 draws: false alarm 5.7e-7 per query, below 1.8e-4 for
-- the 301 queries of each noise; test/sql/mechanism_stats.sql checks the variances).
SELECT dpm.strategy(array_cat((SELECT array_agg(r ORDER BY i) FROM (SELECT i, array_agg((i = j)::int::float8 ORDER BY j) AS r
                                FROM generate_series(0, 299) i, generate_series(0, 299) j GROUP BY i) s), :'b'::float8[]),
                    'workload') AS a,
       array_cat((SELECT array_agg(r ORDER BY i) FROM (SELECT i, array_agg((i = j)::int::float8 ORDER BY j) AS r
                    FROM generate_series(0, 299) i, generate_series(0, 299) j GROUP BY i) s),
                 ARRAY[array_fill(1::float8, ARRAY[300])]) AS w \gset
CREATE TEMP TABLE cache AS SELECT * FROM dpm_internal.strategy_cache(:'w', :'a');
CREATE TEMP TABLE wtruth AS
  SELECT j + 1 AS query, x::numeric AS truth FROM xv
  UNION ALL SELECT 301, sum(x) FROM xv;
CREATE TEMP TABLE draws AS
  SELECT n.noise, m.query, m.answer::numeric - t.truth AS err, m.stderr
    FROM (VALUES ('laplace', 1.0::float8, NULL::float8), ('gaussian', NULL, 0.5)) n(noise, eps, rho),
         generate_series(1, 300) d, cache c,
         LATERAL dpm_internal.dense_infer(:'w', :'a', c.pinv, c.profile,
                                          dpm_internal.dense_measure(:'a', :'x', n.eps + 0 * d, rho => n.rho + 0 * d),
                                          confidence => NULL) m
    JOIN wtruth t USING (query);
SELECT noise, count(*) AS queries, min(n) AS releases, bool_and(unbiased) AS unbiased
  FROM (SELECT noise, query, count(*) AS n,
               abs(avg(err)) < 5 * max(stderr) / sqrt(count(*)) AS unbiased
          FROM draws GROUP BY noise, query) s
 GROUP BY noise ORDER BY noise;

-- HDMM: marginals (integer marginal counts times quantized weights) and Kronecker products
-- (modulo primes near 2^62, recovered by Chinese remaindering; here 4 primes) give the exact
-- answers of the same matrix measured densely, with the same sensitivities (the Kronecker L2 bound,
-- a product of rounded-up factors, within 2 ulps).  The factors' entries have few significant bits,
-- so that the dense matrix of their Kronecker product is exact in doubles; some are negative.
CREATE TEMP TABLE hcases AS
  SELECT * FROM (VALUES
    ('marginals', '{4,3,5}'::int[], '{0,0,0}'::int[], '{}'::float8[],
     '{0,0.3333333333333333,0.1,1e-7,1,0.7,0.2857142857142857,0.05}'::float8[]),
    ('factors', '{4,3,2}', '{5,3,2}',
     '{1,0.5,-0.375,3,0, 0,1,0.25,-2.25,1, 0.5,0,1,1,-1, 0,0,0,0.125,3, 1,-0.5,0.75, 0,1,0.25, 2,0,1, 1,0.5,-0.25,1}', NULL)
  ) c(kind, sizes, p, theta, weights);
SELECT c.kind, array_length(h.units, 1) AS answers, h.units = d.units AS exact_as_dense,
       h.l1 = d.l1 AS l1_same, h.l2 >= d.l2 AND h.l2 <= d.l2 * (1 + 5e-16) AS l2_bound
  FROM hcases c,
       LATERAL (SELECT array_agg(((1e9 + i * 7919 % 1000) * CASE WHEN i % 7 = 0 THEN -1 ELSE 1 END)::float8 ORDER BY i) AS x
                  FROM generate_series(1, (SELECT (c.sizes[1] * c.sizes[2] * c.sizes[3]))) i) x,
       LATERAL dpm_internal.hdmm_exact_matvec(c.sizes, c.kind, c.p, c.theta, c.weights, x.x, -60) h,
       LATERAL dpm_internal.exact_matvec(dpm_internal.hdmm_matrix(c.sizes, c.kind, c.p, c.theta, c.weights), x.x, -60) d
 ORDER BY c.kind;

-- An optimized p-Identity Kronecker strategy on 4 x 3 x 5 cells: neighbouring counts near 10^9 give
-- rounded exact answers within D / g + m grid units at the Laplace grid for epsilon = 1; and the
-- HDMM mechanism on them is unbiased over 300 releases (5 standard errors, as above: false alarm
-- 5.7e-7 per query, below 1.2e-5 for the 21 queries).
CREATE FUNCTION pg_temp.dom(sizes int[]) RETURNS TABLE(names text[], labels text[], lo float8[], hi float8[])
LANGUAGE sql AS $$
  SELECT (SELECT array_agg('a' || i ORDER BY i) FROM generate_subscripts(sizes, 1) i),
         (SELECT array_agg(j::text ORDER BY i, j) FROM generate_subscripts(sizes, 1) i, generate_series(1, sizes[i]) j),
         array_fill('NaN'::float8, ARRAY[(SELECT sum(s)::int FROM unnest(sizes) s)]),
         array_fill('NaN'::float8, ARRAY[(SELECT sum(s)::int FROM unnest(sizes) s)]) $$;
SELECT d.names, d.labels, d.lo, d.hi FROM pg_temp.dom('{4,3,5}') d \gset
CREATE TEMP TABLE hk AS
  SELECT h.* FROM dpm_internal.hdmm('AllRange(a1) * Identity(a2) + Prefix(a3) * Total(a1)', dpm_internal.domain_of(:'names', '{4,3,5}', :'labels',
                            :'lo', :'hi'), '{"parameterization": "kronecker", "p": 1}') h;
SELECT array_agg((1e9 + i * 7919 % 1000)::float8 ORDER BY i) AS hx FROM generate_series(1, 60) i \gset
SELECT u.l1 AS hd, floor(log(2, u.l1::numeric))::int - 40 AS he, array_length(u.units, 1) AS hm
  FROM hk, dpm_internal.hdmm_exact_matvec('{4,3,5}', hk.kind, hk.p, hk.theta, hk.weights, :'hx', 0) u \gset
SELECT hk.kind, count(*) AS neighbours,
       bool_and((SELECT sum(abs(n.units[i] - u.units[i])) FROM generate_subscripts(u.units, 1) i)
                <= :hd * 2 ^ (0 - :he) + :hm) AS within_d_over_g_plus_m
  FROM hk, dpm_internal.hdmm_exact_matvec('{4,3,5}', hk.kind, hk.p, hk.theta, hk.weights, :'hx', :he) u,
       generate_series(1, 60) j,
       LATERAL dpm_internal.hdmm_exact_matvec('{4,3,5}', hk.kind, hk.p, hk.theta, hk.weights,
                                      (SELECT array_agg(v + (i = j)::int ORDER BY i) FROM unnest(:'hx'::float8[]) WITH ORDINALITY t(v, i)),
                                      :he) n
 GROUP BY hk.kind;
CREATE TEMP TABLE htruth AS
  SELECT q AS query, v::numeric AS truth
    FROM unnest(dpm_internal.spec_matvec('Identity(a1) * Identity(a3) + Total(a2)', dpm_internal.domain_of(:'names', '{4,3,5}', :'labels', :'lo', :'hi'),
                                 :'hx')) WITH ORDINALITY t(v, q);
CREATE TEMP TABLE hk2 AS
  SELECT h.* FROM dpm_internal.hdmm('Identity(a1) * Identity(a3) + Total(a2)', dpm_internal.domain_of(:'names', '{4,3,5}', :'labels',
                            :'lo', :'hi'), '{"parameterization": "kronecker", "p": 1}') h;
CREATE TEMP TABLE hdraws AS
  SELECT m.query, m.answer::numeric - t.truth AS err, m.stderr
    FROM hk2, generate_series(1, 300) d,
         LATERAL dpm_internal.hdmm_mechanism('Identity(a1) * Identity(a3) + Total(a2)', dpm_internal.domain_of(:'names', '{4,3,5}', :'labels', :'lo', :'hi'),
                                     hk2.kind, hk2.p, hk2.theta, hk2.weights, :'hx', 1 + 0 * d, confidence => NULL) m
    JOIN htruth t USING (query);
SELECT count(DISTINCT query) AS queries, bool_and(unbiased) AS unbiased
  FROM (SELECT query, abs(avg(err)) < 5 * max(stderr) / sqrt(count(*)) AS unbiased FROM hdraws GROUP BY query) s;

-- what the mechanism refuses, before any noise: counts that are not whole, or beyond 2^53
SELECT * FROM dpm.mechanism('{{1,1}}', '{{1,0},{0,1}}', '{3,0.5}', 1);
SELECT * FROM dpm_internal.hdmm_exact_matvec('{2,2}', 'marginals', '{0,0}', '{}', '{0,0,0,1}', '{1,2,3,1e16}', 0);
