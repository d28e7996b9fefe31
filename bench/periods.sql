-- Periods (dpm.set_periods): what a release of one day costs on a table of 365 days, 2 x 10^6
-- rows, 64 cells, against plain SQL counting that day's cells in the same run.  Three sources over
-- the same rows: each row its own unit (the day's rows only are read), and a privacy unit of
-- 200,000 users counted in their first 7 days (a window over every row up to that day finds them),
-- asked for the first and the last day.
\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = warning;
SET jit = off;

\o /dev/null
CREATE TABLE bench_ev AS
SELECT g % 200000 AS user_id, date '2020-01-01' + (g / 5480) AS day, (g::bigint * 7919) % 64 AS kind
  FROM generate_series(0, 1999999) g;
CREATE INDEX ON bench_ev (day);
ANALYZE bench_ev;
CREATE VIEW bench_ev_users AS SELECT * FROM bench_ev;
SELECT dpm.register_source('bench_ev', epsilon => 1000);
SELECT dpm.register_source('bench_ev_users', 'user_id', 1, epsilon => 1000);
SELECT dpm.set_periods('bench_ev', 'day', '1 day', '2020-01-01');
SELECT dpm.set_periods('bench_ev_users', 'day', '1 day', '2020-01-01', max_periods => 7);
SELECT dpm.create_domain('bench_ev_rows', 'bench_ev', '[{"name": "kind", "bins": {"min": 0, "max": 64, "width": 1}}]');
SELECT dpm.create_domain('bench_ev_units', 'bench_ev_users', '[{"name": "kind", "bins": {"min": 0, "max": 64, "width": 1}}]');
SELECT dpm.create_workload('bench_ev_rows_id', 'bench_ev_rows', 'Identity(kind)');
SELECT dpm.create_workload('bench_ev_units_id', 'bench_ev_units', 'Identity(kind)');
-- warm: strategies stored, table cached
SELECT count(*) FROM dpm.answer('bench_ev_rows_id', epsilon => 1, method => 'identity', period_from => '2020-01-01');
SELECT count(*) FROM dpm.answer('bench_ev_units_id', epsilon => 1, method => 'identity', period_from => '2020-01-01');
\o

CREATE TEMP TABLE bench_t (what text, day date, seconds float8);
CREATE PROCEDURE pg_temp.timed(what text, day date, query text) LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz := clock_timestamp();
BEGIN
  EXECUTE query;
  INSERT INTO bench_t VALUES (what, day, extract(epoch FROM clock_timestamp() - t0));
END $$;
DO $$
DECLARE
  d date;
BEGIN
  FOREACH d IN ARRAY ARRAY[date '2020-01-02', date '2020-12-30'] LOOP
    CALL pg_temp.timed('plain GROUP BY of the day', d,
                       format('SELECT count(*) FROM (SELECT kind, count(*) FROM bench_ev WHERE day = %L GROUP BY 1) x', d));
    CALL pg_temp.timed('release, rows as units', d,
                       format('SELECT count(*) FROM dpm.answer(''bench_ev_rows_id'', epsilon => 1, method => ''identity'', period_from => %L)', d));
    CALL pg_temp.timed('release, users in their first 7 days', d,
                       format('SELECT count(*) FROM dpm.answer(''bench_ev_units_id'', epsilon => 1, method => ''identity'', period_from => %L)', d));
  END LOOP;
END $$;
SELECT what, day, round(seconds::numeric, 3) AS seconds,
       round((seconds / (SELECT b.seconds FROM bench_t b WHERE b.day = t.day AND b.what LIKE 'plain%'))::numeric, 1) AS vs_plain
  FROM bench_t t ORDER BY day, what;
