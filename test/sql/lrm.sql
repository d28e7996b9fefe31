-- The Low-Rank Mechanism (Yuan et al., PVLDB 2012): W = B L with L's columns in the unit L1 ball,
-- measured as L x + Laplace noise.  On the paper's WRange and WRelated workloads (section 6,
-- generated as it describes, with fixed seeds) it beats identity (noise on the data) and the
-- workload itself (noise on the results), and its reported error is what the mechanism delivers.
\set SHOW_CONTEXT never

-- WRange: each query the interval between two uniformly drawn cells
CREATE FUNCTION pg_temp.wrange(m int, n int, seed float8) RETURNS float8[] LANGUAGE plpgsql AS $$
DECLARE w float8[];
BEGIN
  PERFORM setseed(seed);
  CREATE TEMP TABLE ends ON COMMIT DROP AS
    SELECT q, floor(random() * n)::int AS a, floor(random() * n)::int AS b FROM generate_series(1, m) q;
  SELECT array_agg(r ORDER BY q) INTO w FROM (
    SELECT q, array_agg((j BETWEEN least(a, b) AND greatest(a, b))::int::float8 ORDER BY j) r
      FROM ends, generate_series(0, n - 1) j GROUP BY q) t;
  DROP TABLE ends;
  RETURN w;
END $$;
-- WRelated: C (m x s) times A_base (s x n), entries iid N(0, 1) (Box-Muller), rank s
CREATE FUNCTION pg_temp.wrelated(m int, n int, s int, seed float8) RETURNS float8[] LANGUAGE plpgsql AS $$
DECLARE w float8[];
BEGIN
  PERFORM setseed(seed);
  CREATE TEMP TABLE g ON COMMIT DROP AS
    SELECT which, i, j, sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) AS v
      FROM (SELECT 'c' AS which, i, j FROM generate_series(1, m) i, generate_series(1, s) j
            UNION ALL
            SELECT 'a', i, j FROM generate_series(1, s) i, generate_series(1, n) j ORDER BY 1, 2, 3) x;
  SELECT array_agg(r ORDER BY i) INTO w FROM (
    SELECT i, array_agg(v ORDER BY j) r FROM (
      SELECT c.i, a.j, sum(c.v * a.v) AS v FROM g c JOIN g a ON a.which = 'a' AND a.i = c.j
       WHERE c.which = 'c' GROUP BY c.i, a.j) p GROUP BY i) t;
  DROP TABLE g;
  RETURN w;
END $$;
CREATE TEMP TABLE paper (name text, w float8[]);
INSERT INTO paper VALUES ('WRange 64 x 256', pg_temp.wrange(64, 256, 0.25)),
                         ('WRelated 64 x 256, s = 12', pg_temp.wrelated(64, 256, 12, 0.5));
CREATE TEMP TABLE lrm AS SELECT name, w, dpm.strategy(w, 'lrm') AS a FROM paper;

-- total expected squared error at epsilon = 1 (Laplace) against identity and the workload; the
-- strategy has the paper's default 1.2 rank(W) rows (eigen's rows are W's singular vectors:
-- rank(W) of them) and L1 sensitivity 1, up to the final correction that makes B L = W exact
SELECT name,
       array_length(a, 1) = ceil(1.2 * array_length(dpm.strategy(w, 'eigen'), 1)) AS default_rank,
       abs(dpm.sensitivity(a, 'l1') - 1) < 0.01 AS sensitivity_1,
       dpm.total_error(w, a, 1) < 0.6 * dpm.total_error(w, dpm.strategy(w, 'identity'), 1) AS beats_identity,
       dpm.total_error(w, a, 1) < 0.1 * dpm.total_error(w, w, 1) AS beats_workload
  FROM lrm ORDER BY name;

-- the reported error is what the mechanism delivers: 2000 releases on a fixed data vector, the
-- mean total squared error within 5 standard errors of the expectation (normal approximation
-- for the mean of 2000 draws: false alarm 5.7e-7), and the answers unbiased
SELECT a AS a_rel, w AS w_rel FROM lrm WHERE name LIKE 'WRelated%' \gset
CREATE TEMP TABLE x AS SELECT array_agg((i * 37 % 101)::float8 ORDER BY i) AS x FROM generate_series(1, 256) i;
CREATE TEMP TABLE truth AS
  SELECT q AS query, v AS answer FROM x, unnest(dpm_internal.matvec(:'w_rel', x.x)) WITH ORDINALITY t(v, q);
CREATE TEMP TABLE draws AS
  SELECT d, sum((m.answer - t.answer) ^ 2) AS sq, sum(m.answer - t.answer) AS bias
    FROM x, generate_series(1, 2000) d,
         LATERAL dpm.mechanism(:'w_rel', :'a_rel', x.x, 1 + 0 * d) m
    JOIN truth t USING (query)
   GROUP BY d;
SELECT abs(avg(sq) - e.total) < 5 * stddev_samp(sq) / sqrt(count(*)) AS error_as_reported,
       abs(avg(bias)) < 5 * stddev_samp(bias) / sqrt(count(*)) AS unbiased
  FROM draws, (SELECT sum(variance) AS total FROM dpm.expected_error(:'w_rel', :'a_rel', 1)) e
 GROUP BY e.total;

-- options: a larger rank works too; below rank(W) no L can reproduce W
SELECT array_length(dpm.strategy(:'w_rel', 'lrm', '{"rank": 20}'), 1) = 20 AS rank_option,
       dpm.total_error(:'w_rel', dpm.strategy(:'w_rel', 'lrm', '{"rank": 20}'), 1)
         < dpm.total_error(:'w_rel', dpm.strategy(:'w_rel', 'identity'), 1) AS still_beats_identity;
SELECT dpm.strategy(:'w_rel', 'lrm', '{"rank": 11}');
SELECT dpm.strategy(:'w_rel', 'lrm', '{"gamma": 0}');
SELECT dpm.strategy(:'w_rel', 'lrm', '{"tol": 1e-3}');
SELECT dpm.strategy('{{0,0},{0,0}}', 'lrm');
-- repeated and dependent queries, zero columns: the strategy answers exactly what is asked
SELECT '{{1,1,0,0},{1,1,0,0},{0,0,2,0},{1,1,2,0}}'::float8[] AS wd \gset
SELECT dpm.strategy(:'wd', 'lrm') AS ad \gset
SELECT abs(e1.variance - e2.variance) < 1e-9 * e1.variance AS repeated_query_same_error,
       abs(e4.variance - (sqrt(e1.variance) + sqrt(e3.variance)) ^ 2) < 1e-6 * e4.variance
         OR e4.variance <= (sqrt(e1.variance) + sqrt(e3.variance)) ^ 2 AS sum_no_worse_than_parts,
       (SELECT bool_and(v = 0) FROM unnest((:'ad'::float8[])[:][4:4]) v) AS unasked_cell_unmeasured
  FROM dpm.expected_error(:'wd', :'ad', 1) e1, dpm.expected_error(:'wd', :'ad', 1) e2,
       dpm.expected_error(:'wd', :'ad', 1) e3, dpm.expected_error(:'wd', :'ad', 1) e4
 WHERE e1.query = 1 AND e2.query = 2 AND e3.query = 3 AND e4.query = 4;

-- a long run stops on statement_timeout
CREATE TEMP TABLE big AS SELECT pg_temp.wrange(128, 1024, 0.75) AS w;
SET statement_timeout = '300ms';
SELECT array_length(dpm.strategy(w, 'lrm'), 1) FROM big;
RESET statement_timeout;
