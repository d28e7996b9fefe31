-- One workload of bench/hdmm_ranges.sql: :block over the 1024 bins, in a fresh session (so
-- VmHWM is this workload's).
SET dpm.progress_interval = 0;
SET jit = off;
SELECT 'ranges_' || lower(:'block') AS wname, :'block' || '(x)' AS spec \gset

SELECT clock_timestamp() AS t0 \gset
SELECT dpm.create_workload(:'wname', 'ranges_x', :'spec') AS queries \gset
SELECT extract(epoch FROM clock_timestamp() - :'t0'::timestamptz) AS create_s \gset

SELECT clock_timestamp() AS t0 \gset
SELECT dpm.optimize(:'wname', method => 'hdmm') AS sid \gset
SELECT extract(epoch FROM clock_timestamp() - :'t0'::timestamptz) AS optimize_s \gset

SELECT clock_timestamp() AS t0 \gset
SELECT rms_error FROM dpm.explain(:'wname', epsilon => 1, strategy => :sid) \gset
SELECT extract(epoch FROM clock_timestamp() - :'t0'::timestamptz) AS explain_s \gset

INSERT INTO ranges_results
VALUES (:'block', :queries, :create_s, :optimize_s, :explain_s,
        (SELECT substring(pg_read_file('/proc/self/status') FROM 'VmHWM:\s+(\d+) kB')::float8 / 1024),
        :rms_error);
