-- The frequency-vector aggregate, serial and parallel.
\set SHOW_CONTEXT never
SELECT dpm.histogram(c, 4) FROM unnest(ARRAY[0, 1, 1, 3, NULL, 3, 3]) c;
SELECT dpm.histogram(c, 4) FROM unnest(ARRAY[]::int[]) c;                  -- no rows: NULL
SELECT dpm.histogram(c, 3) FROM unnest(ARRAY[NULL, NULL]::int[]) c;        -- no cells: zeros
SELECT dpm.histogram(c, 3) FROM unnest(ARRAY[0, 3]) c;                     -- out of range
SELECT dpm.histogram(c, 3) FROM unnest(ARRAY[0, -1]) c;
SELECT dpm.histogram(c, 0) FROM unnest(ARRAY[0]) c;
SELECT dpm.histogram(c, NULL) FROM unnest(ARRAY[0]) c;
SELECT dpm.histogram(c, n) FROM (VALUES (0, 2), (1, 3)) v(c, n);          -- n must not change
SET dpm.max_cells = 10;
SELECT dpm.histogram(1, 11);
RESET dpm.max_cells;

CREATE TABLE hist_rows AS
  SELECT g, CASE WHEN g % 97 = 0 THEN NULL ELSE ((g::bigint * 7919) % 1000)::int END AS cell
    FROM generate_series(1, 300000) g;
ANALYZE hist_rows;

-- serial
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE serial_x AS SELECT dpm.histogram(cell, 1000) AS x FROM hist_rows;

-- parallel: make the planner choose a parallel plan even for this small table
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT dpm.histogram(cell, 1000) FROM hist_rows;
CREATE TEMP TABLE parallel_x AS SELECT dpm.histogram(cell, 1000) AS x FROM hist_rows;
-- and workers really ran it
CREATE FUNCTION pg_temp.workers_launched() RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) SELECT dpm.histogram(cell, 1000) FROM hist_rows' INTO plan;
  RETURN (plan -> 0 -> 'Plan' -> 'Plans' -> 0 ->> 'Workers Launched')::int;
END
$$;
SELECT pg_temp.workers_launched() >= 1 AS ran_in_parallel;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- the same vector both ways, and the same as GROUP BY
SELECT (SELECT x FROM serial_x) = (SELECT x FROM parallel_x) AS parallel_equals_serial;
SELECT bool_and(x[cell + 1] = cnt) AS matches_group_by, sum(cnt) = (SELECT sum(v) FROM serial_x, unnest(x) v) AS total_ok
  FROM (SELECT cell, count(*) AS cnt FROM hist_rows WHERE cell IS NOT NULL GROUP BY cell) g, serial_x;
DROP TABLE hist_rows;

-- Width bins {"min", "max", "width"} find their cell by a binary search (width_bucket over the
-- bins' lower bounds); the cells are those of one condition "col >= lo AND col < hi" per bin, at
-- every boundary, for float8 and numeric columns, with values outside the range, NULL and NaN
-- (in no cell).
CREATE TABLE wb AS
  SELECT x AS f, x::numeric AS n
    FROM unnest(ARRAY[-1, 0, 0.1, 0.2, 0.25, 0.3, 0.7, 0.9999999999, 1, 1.5, 2.9, 2.95, 3, 1e300,
                      NULL, 'NaN']::float8[]) x;
SELECT dpm.register_source('wb', epsilon => 1);
SELECT dpm.create_domain('wb_f', 'wb', '[{"name": "f", "bins": {"min": 0, "max": 3, "width": 0.1}}]');
SELECT dpm.create_domain('wb_n', 'wb', '[{"name": "n", "bins": {"min": 0, "max": 3, "width": 0.1}}]');
SELECT d.name,
       dpm_internal.frequency_vector(s, d, current_user::regrole, false)
       = ARRAY(SELECT (SELECT count(*) FROM wb
                        WHERE CASE d.name WHEN 'wb_f' THEN f >= d.bin_lo[k] AND f < d.bin_hi[k]
                                          ELSE n >= d.bin_lo[k]::numeric AND n < d.bin_hi[k]::numeric END)::float8
                 FROM generate_series(1, d.n) k) AS same_cells,
       (SELECT sum(c) FROM unnest(dpm_internal.frequency_vector(s, d, current_user::regrole, false)) c) AS counted
  FROM dpm.sources s JOIN dpm.domains d ON d.source_id = s.id
 WHERE s.relation = 'wb'::regclass ORDER BY d.name;
