-- Plain SQL from a BI tool (issue 45): the latency an analyst sees for a private 20-group count
-- over 10^6 rows typed as is, against the plain GROUP BY of the same statement in the same run.
-- Each timed in a PL/pgSQL loop that runs the statement by EXECUTE, as a driver's statement
-- goes through parse analysis (where the front door replaces it); the median of five runs:
--   plain GROUP BY   the custodian's statement over the table;
--   first            the first private statement over its columns: the domain and workload are
--                    made (a release worker's catalog request), the strategy optimized, a release;
--   new              a statement over the same columns not asked before (another filter): a release
--                    (its workload made, its strategy optimized);
--   refresh          a statement asked before (a dashboard's refresh): replayed from its release;
--   scan, capped     the stage of "new" that reads the rows: the release's scan of its domain;
--   scan, uncapped   the same scan where nothing is capped (a unit column with a unique index).
\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = warning;
SET jit = off;
SET dpm.reuse = auto;                          -- a refresh is a replay

\o /dev/null
CREATE TABLE bench_bi AS
SELECT g AS person,
       least(99, floor(100 * (1 - sqrt(random()))))::int AS age,
       (ARRAY['north', 'south', 'east', 'west'])[1 + floor(random() * 4)::int] AS region
  FROM generate_series(1, 1000000) g;
ANALYZE bench_bi;
SELECT dpm.register_source('bench_bi', 'person', 1, epsilon => 1e9);
SELECT * FROM dpm.set_column_domains('bench_bi', '[
  {"column": "age", "bins": {"min": 0, "max": 100, "width": 5}},
  {"column": "region", "values": ["north", "south", "east", "west"]}]');
DROP ROLE IF EXISTS bench_bi_analyst;
CREATE ROLE bench_bi_analyst IN ROLE dpm_analyst;
SELECT dpm.set_privacy_policy('bench_bi', 'bench_bi_analyst', epsilon => 1e8, statement_epsilon => 1, plain_sql => true);
-- milliseconds one run of a statement takes, fetching every row
CREATE FUNCTION pg_temp.ms(statement text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
  t timestamptz := clock_timestamp();
  r record;
BEGIN
  FOR r IN EXECUTE statement LOOP
  END LOOP;
  RETURN 1000 * extract(epoch FROM clock_timestamp() - t);
END
$$;
GRANT EXECUTE ON FUNCTION pg_temp.ms(text) TO bench_bi_analyst;
CREATE TEMP TABLE bi_times (what text, k int, ms float8);
GRANT ALL ON bi_times TO bench_bi_analyst;
SELECT pg_temp.ms($$SELECT floor(age / 5) * 5 AS band, count(*) FROM bench_bi WHERE region <> 'north' GROUP BY 1$$);  -- warm the cache
INSERT INTO bi_times SELECT 'plain GROUP BY', k,
       pg_temp.ms($$SELECT floor(age / 5) * 5 AS band, count(*) FROM bench_bi WHERE region <> 'north' GROUP BY 1$$)
  FROM generate_series(1, 5) k;
SET ROLE bench_bi_analyst;
SET dpm.reuse = never;                         -- each new statement measures: no earlier release answers it
INSERT INTO bi_times SELECT 'first', 1, pg_temp.ms($$SELECT floor(age / 5) * 5 AS band, count(*) FROM bench_bi WHERE region <> 'north' GROUP BY 1$$);
INSERT INTO bi_times SELECT 'new', k, pg_temp.ms(format('SELECT floor(age / 5) * 5 AS band, count(*) FROM bench_bi WHERE region %s GROUP BY 1',
                                                       (ARRAY[$$<> 'south'$$, $$<> 'east'$$, $$<> 'west'$$, $$= 'north'$$, $$= 'east'$$])[k]))
  FROM generate_series(1, 5) k;
SET dpm.reuse = auto;
INSERT INTO bi_times SELECT 'refresh', k, pg_temp.ms($$SELECT floor(age / 5) * 5 AS band, count(*) FROM bench_bi WHERE region <> 'north' GROUP BY 1$$)
  FROM generate_series(1, 5) k;
RESET ROLE;
-- the stages of a new statement: the scan a release runs (the domain of the last one, its rows
-- capped as a release caps them: each person keeps 1 row), and the same scan uncapped (as for a
-- unit column with a unique index); the rest of "new" is compiling the statement, making its
-- workload and strategy, the charge, the noise and storing the answers
CREATE TEMP TABLE bi_domain AS
  SELECT s, d FROM dpm.releases r JOIN dpm.workloads w ON w.id = r.workload_id
    JOIN dpm.domains d ON d.id = w.domain_id JOIN dpm.sources s ON s.id = r.source_id
   ORDER BY r.id DESC LIMIT 1;
CREATE FUNCTION pg_temp.scan_ms(capped boolean) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
  t timestamptz := clock_timestamp();
BEGIN
  PERFORM dpm_internal.frequency_vector(b.s, b.d, current_user::regrole, capped) FROM bi_domain b;
  RETURN 1000 * extract(epoch FROM clock_timestamp() - t);
END
$$;
INSERT INTO bi_times SELECT 'scan, capped', k, pg_temp.scan_ms(true) FROM generate_series(1, 5) k;
INSERT INTO bi_times SELECT 'scan, uncapped', k, pg_temp.scan_ms(false) FROM generate_series(1, 5) k;
\o

\echo 'Plain SQL from a BI tool: a private count of 20 groups over 10^6 rows (median of 5 runs, ms)'
WITH m AS (SELECT what, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms FROM bi_times GROUP BY what)
SELECT m.what AS statement, round(m.ms::numeric, 1) AS ms,
       round((m.ms / b.ms)::numeric, 2) AS vs_plain_group_by
  FROM m, m b WHERE b.what = 'plain GROUP BY'
 ORDER BY array_position(ARRAY['plain GROUP BY', 'first', 'new', 'refresh', 'scan, capped', 'scan, uncapped'], m.what);

\o /dev/null
SELECT dpm.drop_privacy_policy('bench_bi', 'bench_bi_analyst');
SELECT dpm.unregister_source('bench_bi');
DROP TABLE bench_bi;
DROP OWNED BY bench_bi_analyst;
DROP ROLE bench_bi_analyst;
\o
