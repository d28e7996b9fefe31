-- Matrices at the SQL boundary: every malformed input gets a clear error.
\set SHOW_CONTEXT never
SELECT dpm.sensitivity('{}');                                -- empty
SELECT dpm.sensitivity('{{1,2},{3}}');                       -- ragged (rejected by the array parser)
SELECT dpm.sensitivity('{{1,NULL},{3,4}}');                  -- NULL
SELECT dpm.sensitivity('{{1,NaN},{3,4}}');                   -- NaN
SELECT dpm.sensitivity('{{1,2},{Infinity,4}}');              -- infinite
SELECT dpm.sensitivity('{{-Infinity}}');
SELECT dpm.sensitivity('{{{1}}}');                           -- three dimensions
SELECT dpm.sensitivity(NULL);                                -- strict: NULL in, NULL out
SELECT dpm.sensitivity('{{1,2}}', 'l3');                     -- unknown norm
SELECT dpm.sensitivity('{1,-2,3}');                          -- a flat array is one query
SELECT abs(dpm.sensitivity('{{1},{-2},{3}}', 'L2') - sqrt(14)) < 1e-12 AS l2_ok;
-- oversized: checked against dpm.max_matrix_mb before anything is allocated
SET dpm.max_matrix_mb = 1;
SELECT dpm.sensitivity(array_fill(1::float8, ARRAY[400, 400]));
SELECT dpm.strategy(array_fill(1::float8, ARRAY[1, 400]), 'identity');
RESET dpm.max_matrix_mb;
-- below the setting's range (PostgreSQL's message: 18 writes the range with its unit, so the
-- range is shown from pg_settings instead)
DO $$ BEGIN SET dpm.max_matrix_mb = 0; EXCEPTION WHEN invalid_parameter_value THEN RAISE NOTICE 'refused: %', SQLSTATE; END $$;
SELECT min_val, max_val, unit FROM pg_settings WHERE name = 'dpm.max_matrix_mb';
-- an optimization is refused before it starts when its estimated peak memory, c n^2 + 2 m n
-- doubles (c = 10 for gaussian_optimal) plus 8 MB, is above dpm.max_memory_mb: 9.5 MB at n = 128,
-- 8.4 MB at n = 64
SELECT round(dpm_internal.strategy_memory_mb('gaussian_optimal', 1024, 1024)) AS mb_at_1024;  -- 12 x 8 + 8 MB
SET dpm.max_memory_mb = 9;
SELECT dpm.strategy(array_fill(1::float8, ARRAY[128, 128]), 'gaussian_optimal');
SELECT cardinality(dpm.strategy(array_fill(1::float8, ARRAY[64, 64]), 'gaussian_optimal')) AS fits;
RESET dpm.max_memory_mb;
SET dpm.nonexistent = 1;

-- shapes must agree
SELECT * FROM dpm.expected_error('{{1,1,1}}', '{{1,0},{0,1}}', 1);
SELECT dpm.total_error('{{1,1}}', '{{1,0},{0,1}}', 1, 1e-6) > 0 AS ok;
SELECT dpm.reconstruct('{{1,0},{0,1}}', '{1,2,3}');
SELECT dpm.reconstruct('{{1,0},{0,1}}', '{{1,2}}');
SELECT dpm.reconstruct('{{1,0},{0,1}}', '{1,NaN}');
SELECT * FROM dpm.mechanism('{{1,1}}', '{{1,0},{0,1}}', '{1,2,3}', 1);

-- privacy parameters
SELECT * FROM dpm.expected_error('{{1}}', '{{1}}', 0);
SELECT * FROM dpm.expected_error('{{1}}', '{{1}}', -1);
SELECT * FROM dpm.expected_error('{{1}}', '{{1}}', 'NaN');
SELECT * FROM dpm.expected_error('{{1}}', '{{1}}', 'Infinity');
SELECT * FROM dpm.expected_error('{{1}}', '{{1}}', 1, -0.1);
SELECT * FROM dpm.expected_error('{{1}}', '{{1}}', 1, 1);
SELECT * FROM dpm.mechanism('{{1}}', '{{1}}', '{5}', 0);
SELECT * FROM dpm.mechanism('{{1}}', '{{1}}', '{5}', 1, 0, sensitivity_scale => 0.5);
SELECT * FROM dpm.mechanism('{{1}}', '{{1}}', '{5}');
SELECT * FROM dpm.mechanism('{{1}}', '{{1}}', '{5}', 1, rho => 0.1);
SELECT * FROM dpm.mechanism('{{1}}', '{{1}}', '{5}', rho => 0);
SELECT * FROM dpm.mechanism('{{1}}', '{{1}}', '{5}', rho => 'NaN');
SELECT * FROM dpm.mechanism('{{1}}', '{{1}}', '{5}', rho => 0.1, delta => 1e-6);
-- delta NULL is "not given", 0: Laplace noise, as with no delta (doc/dev/api.md)
SELECT query, round(stderr::numeric, 4) = 1.4142 AS laplace FROM dpm.mechanism('{{1}}', '{{1}}', '{5}', 1, NULL);
SELECT * FROM dpm.mechanism('{{1}}', '{{1}}', '{5}', 1, sensitivity_scale => NULL);
SELECT * FROM dpm.mechanism(NULL, '{{1}}', '{5}', 1);
-- absurd magnitudes: out of the samplers' range, or overflowing the strategy answers
SELECT * FROM dpm.mechanism('{{1,1}}', '{{1e308,1e308}}', '{1,1}', 1);
SELECT * FROM dpm.mechanism('{{1,1}}', '{{1,1}}', '{1e308,1e308}', 1);
-- counts are measured exactly (src/mechanism/exact.c): whole numbers up to 2^53
SELECT * FROM dpm.mechanism('{{1,1}}', '{{1,1}}', '{1e90,1e90}', 1);
SELECT * FROM dpm.mechanism('{{1,1}}', '{{1,1}}', '{1,2.5}', 1);
SELECT query, abs(answer / 2 ^ 54 - 1) < 1e-12 AS large_but_fine
  FROM dpm.mechanism('{{1,1}}', '{{1,1}}', ARRAY[2 ^ 53, 2 ^ 53], 1);
SELECT dpm.sensitivity('{{1e101}}');
SELECT dpm.sensitivity('{{1.0000000000000002e100}}');
SELECT * FROM dpm.mechanism('{{1,1}}', '{{1,1}}', '{1,1}', 1e-300);
-- and below: nonzero magnitudes under 1e-100 in a matrix or a weight are refused where they enter,
-- as those above 1e100 are (squared or times a weight they underflowed float8 arithmetic later,
-- in a raw "value out of range: underflow"); zero is fine, and so is 1e-100 itself
SELECT dpm.sensitivity('{{1,1e-320}}');
SELECT dpm.sensitivity('{{1,-9.99e-101}}');
SELECT dpm.strategy('{{1,0},{1e-320,1}}', 'identity');
SELECT dpm.total_error('{{1,1}}', '{{1,0},{0,1e-101}}', 1);
SELECT abs(dpm.sensitivity('{{1e-100},{-1e-100},{0}}') / 2e-100 - 1) < 1e-12 AS least_magnitude_fine;
SELECT dpm.sensitivity('{{1e-90,0}}') = 1e-90 AS small_fine,
       cardinality(dpm.strategy('{{1,1e-90},{0,1}}', 'gaussian_optimal')) AS strategy_cells;
CREATE TABLE bi_t AS SELECT g % 3 AS k FROM generate_series(1, 30) g;
SELECT dpm.register_source('bi_t', epsilon => 1);
SELECT dpm.create_domain('bi_k', 'bi_t', '[{"name": "k", "values": [0,1,2]}]') > 0 AS domain;
SELECT dpm.create_workload('bi_tiny', 'bi_k', '{{1,1e-320,0},{0,1,0}}'::float8[]);
SELECT dpm.create_workload('bi_tiny', 'bi_k', '{{1,0,0},{0,1,0}}'::float8[], '{1,1e-320}');
SELECT dpm.create_workload('bi_tiny', 'bi_k', '1e-320 * Total(k) + Identity(k)');
-- a product of weights too, whichever way it leaves the range
SELECT dpm.create_workload('bi_tiny', 'bi_k', 'Identity(k) + 1e-60 * (Total(k) * 1e-60)');
SELECT dpm.create_workload('bi_tiny', 'bi_k', 'Identity(k) + 1e60 * (Total(k) * 1e60)');
-- (optimizers.sql optimizes such workloads)
SELECT dpm.create_workload('bi_small', 'bi_k', '{{1,1e-90,0},{0,0,1}}'::float8[]) > 0 AS small_entry,
       dpm.create_workload('bi_small_weights', 'bi_k', '{{1,1,0},{0,0,1}}'::float8[], '{1e-90,1e-90}') > 0 AS small_weights,
       dpm.create_workload('bi_small_spec', 'bi_k', 'Identity(k) + 1e-90 * Total(k)') > 0 AS small_spec;

-- a strategy that cannot answer the workload is refused before any noise is drawn
SELECT * FROM dpm.mechanism('{{1,0}}', '{{1,1}}', '{1,2}', 1);

-- least squares: exact on consistent systems, minimum norm on rank-deficient ones
SELECT bool_and(abs(v - e) < 1e-12) AS exact_ok
  FROM unnest(dpm.reconstruct('{{1,1,1},{1,0,0},{0,1,0},{0,0,1}}', '{6,1,2,3}'), ARRAY[1,2,3]::float8[]) t(v, e);
SELECT bool_and(abs(v - 1.5) < 1e-12) AS min_norm_ok
  FROM unnest(dpm.reconstruct('{{1,1}}', '{3}')) v;
