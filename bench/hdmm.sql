-- High-dimensional workloads (HDMM strategies, implicit): for domains of 16^d cells (d = 3, 4, 5:
-- 4096 to 1,048,576 cells) over a table of 1,000,000 rows, the workload of every 2-way marginal
-- plus all ranges of each attribute.  Per domain: optimization time (dpm.optimize, method hdmm),
-- answering time (dpm.answer end to end: charge, scan, noise, least squares, store) and the
-- mechanism alone on a ready data vector, the backend's peak memory (VmHWM, a fresh session per
-- domain; the optimizer and the mechanism run in it), the RMSE under HDMM's convention (Laplace,
-- epsilon = sqrt(2): RMSE = sqrt(total expected squared error / queries)) against identity's, and
-- the ratio to the SVD bound.  Where the bound needs a matrix over all the cells (a union of
-- non-commuting products over 65,536 cells or more), the bound of the marginals alone is used:
-- a sub-workload's bound is below the whole one's (singular values only grow with rows), so the
-- ratio printed is then an upper bound ("<=").
\set ON_ERROR_STOP 1
SET dpm.progress_interval = 0;
\pset footer off
SET jit = off;
SET dpm.max_matrix_mb = 1024;

CREATE TABLE bench_people AS
  SELECT g AS id, (hashint4(g) & 15) AS a1, (hashint4(g + 7) & 15) AS a2, (hashint4(g + 13) & 15) AS a3,
         (hashint4(g + 29) & 15) AS a4, (hashint4(g + 31) & 15) AS a5
    FROM generate_series(1, 1000000) g;
ANALYZE bench_people;
DO $$ BEGIN PERFORM dpm.register_source('bench_people', epsilon => 1000); END $$;
CREATE TABLE hdmm_results (d int, cells int, queries int, strategy text, optimize_s float8, answer_s float8,
                           mechanism_s float8, peak_mb float8, rmse float8, identity_rmse float8,
                           ratio_to_bound float8, bound_exact boolean);

CREATE FUNCTION bench_spec(d int, marginals_only boolean DEFAULT false) RETURNS text LANGUAGE sql AS $$
  SELECT (SELECT string_agg(format('Identity(a%s) * Identity(a%s)', i, j), ' + ')
            FROM generate_series(1, d) i, generate_series(1, d) j WHERE i < j)
         || CASE WHEN marginals_only THEN ''
                 ELSE ' + ' || (SELECT string_agg(format('AllRange(a%s)', i), ' + ') FROM generate_series(1, d) i) END $$;

\set d 3
\connect
\ir hdmm_domain.sql
\set d 4
\connect
\ir hdmm_domain.sql
\set d 5
\connect
\ir hdmm_domain.sql

\echo
\echo == high-dimensional workloads (hdmm): every 2-way marginal + all ranges per attribute, 1,000,000 rows
SELECT d AS attrs, cells, queries, 'hdmm ' || strategy AS method, round(optimize_s::numeric, 2) AS optimize_s,
       round(answer_s::numeric, 2) AS answer_s, round(mechanism_s::numeric, 2) AS mechanism_s,
       round(peak_mb::numeric) AS peak_mb, round(rmse::numeric, 2) AS rmse,
       round(identity_rmse::numeric, 2) AS identity_rmse, round((rmse / identity_rmse)::numeric, 4) AS vs_identity,
       CASE WHEN bound_exact THEN '' ELSE '<= ' END || round(ratio_to_bound::numeric, 3) AS ratio_to_bound
  FROM hdmm_results ORDER BY d;
