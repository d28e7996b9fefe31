-- Parsing a long workload spec (issue 41, item 6): the seconds dpm_internal.spec_term_rows takes
-- (the parse and a count per term, the first thing dpm.create_workload does with a spec) on specs
-- of n terms 'Identity(age) * Total(sex) + ...' over a two-attribute domain, for n from 1,000 to
-- 40,000; best of 3 each.  Linear parsing keeps the time per 1,000 terms flat.
\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = warning;

CREATE TEMP TABLE spec_results (n int, bytes int, seconds float8);
CREATE PROCEDURE pg_temp.timed(n int) LANGUAGE plpgsql AS $$
DECLARE
  spec text := (SELECT string_agg('Identity(age) * Total(sex)', ' + ') FROM generate_series(1, n));
  dom dpm.domains := dpm_internal.domain_of('{age,sex}', '{3,2}', '{20s,30s,40s,F,M}',
                                            '{20,30,40,NaN,NaN}', '{30,40,50,NaN,NaN}');
  t0 timestamptz;
  best float8;
BEGIN
  FOR run IN 1..3 LOOP
    t0 := clock_timestamp();
    PERFORM dpm_internal.spec_term_rows(spec, dom);
    best := least(best, extract(epoch FROM clock_timestamp() - t0));
  END LOOP;
  INSERT INTO spec_results VALUES (n, octet_length(spec), best);
END
$$;

CALL pg_temp.timed(1000);
CALL pg_temp.timed(2000);
CALL pg_temp.timed(5000);
CALL pg_temp.timed(10000);
CALL pg_temp.timed(20000);
CALL pg_temp.timed(40000);

SELECT n AS terms, round(bytes / 1024.0) AS "spec KB", round(seconds::numeric, 3) AS seconds,
       round((seconds * 1000 / (n / 1000.0))::numeric, 2) AS "ms per 1,000 terms"
  FROM spec_results ORDER BY n;
