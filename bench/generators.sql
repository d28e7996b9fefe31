-- The low-rank-mechanism paper's workload generators (section 6), with fixed seeds, for the
-- benchmarks that use them: WRange (each query the interval between two uniform cells) and
-- WRelated (C (m x s) A (s x n), iid N(0, 1) by Box-Muller on a seeded random(); each row of W is
-- A^T times a row of C).
CREATE FUNCTION pg_temp.wrange(m int, n int, seed float8) RETURNS float8[] LANGUAGE plpgsql AS $$
DECLARE w float8[];
BEGIN
  PERFORM setseed(seed);
  SELECT array_agg(r ORDER BY q) INTO w FROM (
    SELECT q, array_agg((j BETWEEN least(a, b) AND greatest(a, b))::int::float8 ORDER BY j) r
      FROM (SELECT q, floor(random() * n)::int AS a, floor(random() * n)::int AS b
              FROM generate_series(1, m) q) e, generate_series(0, n - 1) j GROUP BY q) t;
  RETURN w;
END $$;
CREATE FUNCTION pg_temp.wrelated(m int, n int, s int, seed float8) RETURNS float8[] LANGUAGE plpgsql AS $$
DECLARE
  at float8[];
  w float8[];
BEGIN
  PERFORM setseed(seed);
  SELECT array_agg(r ORDER BY j) INTO at FROM (
    SELECT j, array_agg(sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) ORDER BY k) r
      FROM generate_series(1, n) j, generate_series(1, s) k GROUP BY j) t;
  SELECT array_agg(dpm_internal.matvec(at, c) ORDER BY i) INTO w FROM (
    SELECT i, array_agg(sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) ORDER BY k) c
      FROM generate_series(1, m) i, generate_series(1, s) k GROUP BY i) t;
  RETURN w;
END $$;
