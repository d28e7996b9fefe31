-- create_domain on a ZIP-code-like column (issue 47): width-1 bins over a 2,000-row table, 25,000
-- to 1,000,000 bins, each size timed once; the baseline of the same run is the attribute's bins and
-- cell expression alone (dpm_internal.attribute_bins), which create_domain builds first and then
-- checks, stores and scans for its coverage NOTICE.  Linear growth keeps ms per 1,000 bins flat.
\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = warning;

\o /dev/null
CREATE TABLE bench_zip AS SELECT g AS id, g * 97 % 200000 AS zip FROM generate_series(1, 2000) g;
SELECT dpm.register_source('bench_zip', epsilon => 1);
CREATE TEMP TABLE bench_zip_times (bins int, bins_ms float8, create_ms float8);
DO $$
DECLARE
  n int;
  t0 timestamptz;
  t1 timestamptz;
  attr jsonb;
BEGIN
  FOREACH n IN ARRAY ARRAY[25000, 50000, 100000, 200000, 1000000] LOOP
    attr := jsonb_build_object('name', 'zip', 'bins', jsonb_build_object('min', 0, 'max', n, 'width', 1));
    t0 := clock_timestamp();
    PERFORM dpm_internal.attribute_bins('bench_zip', attr);
    t1 := clock_timestamp();
    PERFORM dpm.create_domain('bench_zip_' || n, 'bench_zip', jsonb_build_array(attr));
    INSERT INTO bench_zip_times VALUES (n, 1000 * extract(epoch FROM t1 - t0), 1000 * extract(epoch FROM clock_timestamp() - t1));
  END LOOP;
END
$$;
\o

\echo 'create_domain of width-1 bins over 2,000 rows, against building the bins alone (ms)'
SELECT bins, round(bins_ms::numeric, 1) AS attribute_bins_ms, round(create_ms::numeric, 1) AS create_domain_ms,
       round((create_ms / bins_ms)::numeric, 2) AS vs_bins_alone, round((1000 * create_ms / bins)::numeric, 2) AS ms_per_1000_bins
  FROM bench_zip_times ORDER BY bins;

\o /dev/null
SELECT dpm.drop_domain('bench_zip_' || n) FROM unnest(ARRAY[25000, 50000, 100000, 200000, 1000000]) n;
SELECT dpm.unregister_source('bench_zip');
DROP TABLE bench_zip;
\o
