-- Method residual under pure epsilon-DP (src/strategy/residual/laplace.c: weighted marginal tables, HDMM's
-- marginals template, solved in the residual basis) against HDMM's own optimizers in the same run,
-- on the workloads of issue 21: all <= 2-way marginals of d attributes of 10 values, and 5
-- attributes of 16 values with all 2-way marginals plus AllRange on each attribute.  Total
-- expected squared error over the workload at epsilon = 1 (2 Delta_1^2 times the trace of the
-- error profile; the same for both), planning time, and the ratio residual / HDMM.  HDMM's code
-- needs a workload of at most 2^31 cells: for d = 14 the row has no baseline in this run (see
-- bench/RESULTS.md for HDMM's reference implementation on it).
\set ON_ERROR_STOP 1
SET dpm.progress_interval = 0;
-- HDMM runs on domains of up to 2^31 cells
SET dpm.max_cells = 2147483647;
\pset footer off

CREATE FUNCTION bench_dom(d int, k int) RETURNS dpm.domains LANGUAGE sql AS $$
  SELECT dpm_internal.domain_of(ARRAY(SELECT 'a' || a FROM generate_series(1, d) a), array_fill(k, ARRAY[d]),
                                ARRAY(SELECT v::text FROM generate_series(1, d) a, generate_series(1, k) v),
                                array_fill('NaN'::float8, ARRAY[k * d]), array_fill('NaN'::float8, ARRAY[k * d])) $$;
CREATE TABLE bench_cases (name text, d int, k int, spec text, hdmm_options jsonb);
INSERT INTO bench_cases VALUES
  ('<= 2-way marginals, d = 6', 6, 10, 'Marginals(2) + Marginals(1) + Marginals(0)', '{"parameterization": "marginals"}'),
  ('<= 2-way marginals, d = 8', 8, 10, 'Marginals(2) + Marginals(1) + Marginals(0)', '{"parameterization": "marginals"}'),
  ('<= 2-way marginals, d = 14', 14, 10, 'Marginals(2) + Marginals(1) + Marginals(0)', NULL),
  ('2-way marginals, d = 14', 14, 10, 'Marginals(2)', NULL),
  ('<= 3-way marginals, d = 50', 50, 10, 'Marginals(3) + Marginals(2) + Marginals(1) + Marginals(0)', NULL),
  ('<= 2-way marginals, d = 8 binary', 8, 2, 'Marginals(2) + Marginals(1) + Marginals(0)', '{"parameterization": "marginals"}'),
  ('2-way + AllRange, 5 x 16 values', 5, 16,
   'Marginals(2) + AllRange(a1) + AllRange(a2) + AllRange(a3) + AllRange(a4) + AllRange(a5)', '{"parameterization": "kronecker"}');

CREATE TABLE bench_out (name text, queries float8, residual_total float8, residual_ms float8, tables int,
                        hdmm_total float8, hdmm_ms float8);
DO $$
DECLARE
  c record;
  t0 timestamptz;
  rb record;
  ms float8;
  h float8;
  hms float8;
BEGIN
  FOR c IN SELECT * FROM bench_cases LOOP
    t0 := clock_timestamp();
    rb := dpm_internal.residual_build(c.spec, bench_dom(c.d, c.k), '{"noise": "laplace"}');
    ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
    h := NULL; hms := NULL;
    IF c.hdmm_options IS NOT NULL THEN
      t0 := clock_timestamp();
      h := (dpm_internal.hdmm(c.spec, bench_dom(c.d, c.k), c.hdmm_options || '{"noise": "laplace"}')).objective;
      hms := extract(epoch FROM clock_timestamp() - t0) * 1000;
    END IF;
    INSERT INTO bench_out VALUES (c.name, NULL, 2 * rb.sensitivity_l1 ^ 2 * rb.profile_trace, ms,
                                  cardinality(rb.variances), 2 * h, hms);
  END LOOP;
END $$;

\echo
\echo Laplace (epsilon = 1): method residual against HDMM (marginals parameterization, or Kronecker where it refuses a mixed workload)
SELECT o.name, round(o.residual_total::numeric, 1) AS residual_total, round(o.residual_ms::numeric, 1) AS residual_ms,
       o.tables, c.hdmm_options->>'parameterization' AS hdmm, round(o.hdmm_total::numeric, 1) AS hdmm_total,
       round(o.hdmm_ms::numeric, 1) AS hdmm_ms, to_char(o.residual_total / o.hdmm_total, 'FM0.0000') AS residual_over_hdmm
  FROM bench_out o JOIN bench_cases c USING (name) ORDER BY c.d, c.k, o.name;
DROP TABLE bench_out, bench_cases;
DROP FUNCTION bench_dom;
