-- The cost of measuring A x exactly (src/mechanism/exact.c, src/strategy/hdmm/exact_measure.c; the argument is
-- section 0 of src/mechanism/sampler.c).  Dense, n = 1024 cells, prefix workload: the float product
-- (dpm_internal.matvec: dgemv, after copying the array) against the exact one (dpm_internal.exact_matvec: the
-- quantized product in 128-bit integers plus its L1 and L2 column sums, rounded to a grid and
-- printed as numeric; absent before the exact mechanism), and the whole mechanism with the stored
-- cache (dpm_internal.dense_measure and dense_infer, Laplace, no intervals), hierarchical (2047 x 1024) and eigen
-- (1024 x 1024).  HDMM: dpm_internal.hdmm_mechanism on 16^4 and 16^5 cells (every 2-way marginal and
-- all ranges of each attribute, Kronecker; the 2-way marginals alone, marginals), on counts near
-- 10^9.  Medians in one backend; run it before and after a change to compare (bench/RESULTS.md).
\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = warning;
SET jit = off;
SET dpm.max_matrix_mb = 1024;

CREATE FUNCTION pg_temp.median_ms(sql text, runs int) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz;
  times float8[] := '{}';
BEGIN
  FOR r IN 1 .. runs LOOP
    t0 := clock_timestamp();
    EXECUTE sql;
    times := times || extract(epoch FROM clock_timestamp() - t0) * 1000;
  END LOOP;
  RETURN round((SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY t) FROM unnest(times) t)::numeric, 1);
END $$;

-- Stored uncompressed (as pinv is, which no compression shrinks), so that both builds read the
-- strategy at the same cost: a quantized dense strategy has zero low-order bits, and pglz then
-- shrinks an eigen strategy to 75% (6.3 of 8.4 MB at n = 1024), which costs about 7 ms per read.
CREATE TEMP TABLE dense (method text, w float8[], a float8[], x float8[], pinv float8[], profile float8[]);
ALTER TABLE dense ALTER COLUMN a SET STORAGE EXTERNAL, ALTER COLUMN w SET STORAGE EXTERNAL;
INSERT INTO dense
  SELECT s.*, c.pinv, c.profile
    FROM (SELECT m AS method, w.matrix AS w, dpm.strategy(w.matrix, m) AS a,
                 (SELECT array_agg((1e9 + i * 7919 % 1000)::float8 ORDER BY i) FROM generate_series(1, 1024) i) AS x
            FROM dpm_internal.workload_matrix('Prefix(v)', dpm_internal.domain_of('{v}', '{1024}', ARRAY(SELECT i::text FROM generate_series(1, 1024) i),
                                      array_fill('NaN'::float8, ARRAY[1024]), array_fill('NaN'::float8, ARRAY[1024]))) w,
                 unnest(ARRAY['hierarchical', 'eigen']) m) s,
         LATERAL dpm_internal.strategy_cache(s.w, s.a) c;
ANALYZE dense;

CREATE TEMP TABLE results (part text, what text, ms numeric);
DO $$
DECLARE
  exact boolean := to_regproc('dpm_internal.exact_matvec') IS NOT NULL;
  m text;
BEGIN
  FOR m IN SELECT method FROM dense ORDER BY method DESC LOOP
    INSERT INTO results VALUES
      (m, 'float product (_matvec)', pg_temp.median_ms(format(
         'SELECT dpm_internal.matvec(a, x) FROM dense WHERE method = %L', m), 21)),
      (m, 'exact product (_exact_matvec)', CASE WHEN exact THEN pg_temp.median_ms(format(
         'SELECT dpm_internal.exact_matvec(a, x, -30) FROM dense WHERE method = %L', m), 21) END),
      (m, 'mechanism (dense_measure + dense_infer)', pg_temp.median_ms(format(
         'SELECT count(*) FROM dense, dpm_internal.dense_infer(w, a, pinv, profile, dpm_internal.dense_measure(a, x, 1), confidence => NULL) WHERE method = %L', m), 21));
  END LOOP;
END $$;

-- HDMM: 16^d cells
CREATE FUNCTION pg_temp.hdmm_case(d int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  names text[] := (SELECT array_agg('a' || i ORDER BY i) FROM generate_series(1, d) i);
  sizes int[] := array_fill(16, ARRAY[d]);
  labels text[] := (SELECT array_agg(j::text ORDER BY i, j) FROM generate_series(1, d) i, generate_series(1, 16) j);
  nans float8[] := array_fill('NaN'::float8, ARRAY[16 * d]);
  marg text := (SELECT string_agg(format('Identity(a%s) * Identity(a%s)', i, j), ' + ')
                  FROM generate_series(1, d) i, generate_series(1, d) j WHERE i < j);
  full_spec text := marg || ' + ' || (SELECT string_agg(format('AllRange(a%s)', i), ' + ') FROM generate_series(1, d) i);
  x float8[] := (SELECT array_agg((1e9 + i::bigint * 7919 % 1000)::float8 ORDER BY i) FROM generate_series(1, (16 ^ d)::int) i);
  h record;
  spec text;
BEGIN
  FOREACH spec IN ARRAY ARRAY[full_spec, marg] LOOP
    SELECT * INTO h FROM dpm_internal.hdmm(spec, dpm_internal.domain_of(names, sizes, labels, nans, nans),
                                   jsonb_build_object('parameterization', CASE WHEN spec = marg THEN 'marginals' ELSE 'kronecker' END));
    CREATE TEMP TABLE IF NOT EXISTS hdmm_args (spec text, names text[], sizes int[], labels text[], nans float8[],
                                               kind text, p int[], theta float8[], weights float8[], x float8[]);
    TRUNCATE hdmm_args;
    INSERT INTO hdmm_args VALUES (spec, names, sizes, labels, nans, h.kind, h.p, h.theta, h.weights, x);
    INSERT INTO results VALUES
      (format('hdmm 16^%s', d), format('%s mechanism (_hdmm_mechanism)', h.kind), pg_temp.median_ms(
         'SELECT count(*) FROM hdmm_args a, dpm_internal.hdmm_mechanism(a.spec, dpm_internal.domain_of(a.names, a.sizes, a.labels, a.nans, a.nans),
                 a.kind, a.p, a.theta, a.weights, a.x, 1, confidence => NULL)', CASE WHEN d = 5 THEN 3 ELSE 7 END));
  END LOOP;
END $$;
\o /dev/null
SELECT pg_temp.hdmm_case(4);
SELECT pg_temp.hdmm_case(5);
\o

\echo
\echo '== exact measurement: median milliseconds; dense n = 1024 (21 runs), HDMM 16^4 (7) and 16^5 (3)'
SELECT part, what, ms FROM results;
