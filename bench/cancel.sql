-- Cancelling long work: each optimizer runs in a second session (dblink, asynchronously), is
-- cancelled with pg_cancel_backend after 2 s, and the time until that session is free again is
-- the latency (target: under 1 s); the same with statement_timeout.  A method that finishes
-- within the delay is reported as such.
\set ON_ERROR_STOP 1
\pset footer off
\o /dev/null
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dblink;
SELECT dblink_connect('cancel', format('host=%s port=%s dbname=%s user=%s',
                                       split_part(current_setting('unix_socket_directories'), ',', 1),
                                       current_setting('port'), current_database(), current_user));
\o

CREATE TEMP TABLE cancel_results (what text, n int, how text, latency_ms float8, finished_first boolean);

CREATE FUNCTION pg_temp.root(spec text, n int) RETURNS text LANGUAGE sql AS $$
  SELECT format('dpm.gram_root(dpm_internal.workload_gram(%L, dpm_internal.domain_of(''{x}'', ARRAY[%s], ARRAY(SELECT i::text FROM generate_series(1, %s) i),
                 array_fill(''NaN''::float8, ARRAY[%s]), array_fill(''NaN''::float8, ARRAY[%s]))))', spec, n, n, n, n) $$;

-- how = 'cancel': pg_cancel_backend after the delay; 'timeout': statement_timeout of the delay.
-- The query returns only the strategy's size, so shipping the matrix is not part of the wait.
CREATE PROCEDURE pg_temp.measure(what text, n int, sql text, how text, delay float8 DEFAULT 2)
LANGUAGE plpgsql AS $$
DECLARE
  pid int := (SELECT p FROM dblink('cancel', 'SELECT pg_backend_pid()') AS t(p int));
  t0 timestamptz;
  done boolean := false;
BEGIN
  PERFORM dblink_exec('cancel', 'SET dpm.max_matrix_mb = 4096');
  PERFORM dblink_exec('cancel', 'SET dpm.blas_threads = 2');
  PERFORM dblink_exec('cancel', format('SET statement_timeout = %s',
                                       CASE how WHEN 'timeout' THEN (delay * 1000)::int ELSE 0 END));
  t0 := clock_timestamp();
  PERFORM dblink_send_query('cancel', sql);
  IF how = 'cancel' THEN
    PERFORM pg_sleep(delay);
    IF dblink_is_busy('cancel') = 0 THEN
      done := true;
    ELSE
      t0 := clock_timestamp();
      PERFORM pg_cancel_backend(pid);
    END IF;
  END IF;
  WHILE dblink_is_busy('cancel') = 1 LOOP
    PERFORM pg_sleep(0.005);
  END LOOP;
  IF how = 'timeout' THEN
    -- the server fires the timeout itself: the latency is what the statement ran beyond it
    done := clock_timestamp() < t0 + make_interval(secs => delay);
    t0 := t0 + make_interval(secs => delay);
  END IF;
  INSERT INTO cancel_results VALUES (what, n, how, CASE WHEN NOT done THEN
                                       extract(epoch FROM clock_timestamp() - t0) * 1000 END, done);
  -- drain the result (the cancellation error, or the size) and the end of results, so the
  -- connection can take the next query
  FOR i IN 1 .. 2 LOOP
    BEGIN
      PERFORM * FROM dblink_get_result('cancel', false) AS t(x int);
    EXCEPTION WHEN OTHERS THEN
      NULL;
    END;
  END LOOP;
  PERFORM dblink_exec('cancel', 'RESET statement_timeout');
END $$;

CREATE FUNCTION pg_temp.q(spec text, n int, method text, options text DEFAULT '{}') RETURNS text
LANGUAGE sql AS $$
  SELECT format('SELECT cardinality(dpm.strategy(%s, %L, %L))', pg_temp.root(spec, n), method, options) $$;

CALL pg_temp.measure('gaussian_optimal, Prefix', 2048, pg_temp.q('Prefix(x)', 2048, 'gaussian_optimal'), 'cancel');
CALL pg_temp.measure('gaussian_optimal, Prefix', 2048, pg_temp.q('Prefix(x)', 2048, 'gaussian_optimal'), 'timeout');
CALL pg_temp.measure('eigen_design, AllRange', 2048, pg_temp.q('AllRange(x)', 2048, 'eigen_design'), 'cancel');
CALL pg_temp.measure('eigen_design, AllRange', 2048, pg_temp.q('AllRange(x)', 2048, 'eigen_design'), 'timeout');
-- eigen is one eigendecomposition after the root's: cancelled during its stages
CALL pg_temp.measure('eigen, AllRange', 2048, pg_temp.q('AllRange(x)', 2048, 'eigen'), 'cancel', 1.2);
CALL pg_temp.measure('eigen, AllRange', 2048, pg_temp.q('AllRange(x)', 2048, 'eigen'), 'timeout', 1.2);
CALL pg_temp.measure('min_sensitivity, AllRange', 256, pg_temp.q('AllRange(x)', 256, 'min_sensitivity'), 'cancel');
CALL pg_temp.measure('lrm, AllRange', 512, pg_temp.q('AllRange(x)', 512, 'lrm', '{"rank": 600}'), 'cancel');
CALL pg_temp.measure('fitness, Prefix', 256, pg_temp.q('Prefix(x)', 256, 'fitness', '{"targets": 1}'), 'cancel');
CALL pg_temp.measure('hdmm, AllRange', 2048, pg_temp.q('AllRange(x)', 2048, 'hdmm'), 'cancel');

\echo
\echo '== cancelling long work: pg_cancel_backend or statement_timeout after 2 s (eigen: 1.2 s), time until the session is free; target: under 1000 ms'
SELECT what, n, how, round(latency_ms::numeric) AS latency_ms,
       CASE WHEN finished_first THEN 'finished before' WHEN latency_ms < 1000 THEN 'ok' ELSE 'over' END AS status
  FROM cancel_results;
SELECT dblink_disconnect('cancel') \gset
