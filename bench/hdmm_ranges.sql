-- HDMM on one attribute of 1024 bins: AllRange (524,800 queries, kept as its spec: its matrix
-- would take 4.1 GB) against Prefix and Identity over the same bins (1024 queries each), measured
-- in the same run.  Per workload, in a fresh session: dpm.create_workload, dpm.optimize (method
-- hdmm, default options: the best of p = 32, 64 and 128), dpm.explain (a dry run with 95 %
-- intervals: the error profile, the mechanism on zeros and the interval simulation), the
-- backend's peak memory (VmHWM), the RMSE at epsilon = 1, and the times against Prefix's.
\set ON_ERROR_STOP 1
SET dpm.progress_interval = 0;
\pset footer off

CREATE TABLE ranges_people AS SELECT g AS id, hashint4(g) & 1023 AS x FROM generate_series(1, 100000) g;
DO $$
BEGIN
  PERFORM dpm.register_source('ranges_people', epsilon => 1000);
  PERFORM dpm.create_domain('ranges_x', 'ranges_people', '[{"name": "x", "bins": {"min": 0, "max": 1024, "width": 1}}]');
END $$;
CREATE TABLE ranges_results (block text, queries int, create_s float8, optimize_s float8, explain_s float8,
                             peak_mb float8, rmse float8);

\set block Identity
\connect
\ir hdmm_ranges_block.sql
\set block Prefix
\connect
\ir hdmm_ranges_block.sql
\set block AllRange
\connect
\ir hdmm_ranges_block.sql

\echo
\echo == hdmm over 1024 bins: AllRange (kept as its spec) against Prefix and Identity, the same run
SELECT r.block || '(x)' AS workload, r.queries, round(r.create_s::numeric, 2) AS create_s,
       round(r.optimize_s::numeric, 2) AS optimize_s, round(r.explain_s::numeric, 2) AS explain_s,
       round((r.optimize_s / p.optimize_s)::numeric, 2) AS optimize_vs_prefix,
       round((r.explain_s / p.explain_s)::numeric, 2) AS explain_vs_prefix,
       round(r.peak_mb::numeric) AS peak_mb, round(r.rmse::numeric, 2) AS rmse
  FROM ranges_results r, ranges_results p
 WHERE p.block = 'Prefix'
 ORDER BY r.queries, r.block;
DROP TABLE ranges_results;
