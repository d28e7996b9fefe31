-- HDMM strategies (McKenna et al., VLDB 2018).  Its published convention: epsilon = sqrt(2) and
-- Laplace noise, so the noise variance per unit of squared sensitivity is 2 / epsilon^2 = 1, and
-- RMSE = sqrt(total expected squared error / number of queries).
\set SHOW_CONTEXT never
CREATE FUNCTION pg_temp.allrange(n int) RETURNS float8[] LANGUAGE sql AS $$
  SELECT matrix FROM dpm._workload_matrix('AllRange(x)', '{x}', ARRAY[n],
    ARRAY(SELECT i::text FROM generate_series(1, n) i), array_fill('NaN'::float8, ARRAY[n]),
    array_fill('NaN'::float8, ARRAY[n])) $$;
CREATE FUNCTION pg_temp.rmse(w float8[], a float8[]) RETURNS float8 LANGUAGE sql AS $$
  SELECT sqrt(dpm.total_error(w, a, sqrt(2)) / array_length(w, 1)) $$;

-- 1-D AllRange(256), p-Identity with p = 16: RMSE at most 5.74 (identity: 9.27); the strategy is
-- [I; Theta] D^-1 with Theta >= 0, sensitivity 1, and the optimizer's objective is its error
SELECT pg_temp.allrange(256) AS w \gset
CREATE TEMP TABLE pid AS SELECT * FROM dpm._strategy_report(:'w', 'hdmm', '{"p": 16}');
SELECT pg_temp.rmse(:'w', matrix) <= 5.74 AS rmse_at_most_5_74,
       abs(pg_temp.rmse(:'w', dpm.strategy(:'w', 'identity')) - 9.27) < 0.005 AS identity_9_27,
       array_length(matrix, 1) = 256 + 16 AS rows,
       abs(dpm.sensitivity(matrix, 'l1') - 1) < 1e-12 AS sensitivity_1,
       (SELECT bool_and(v >= 0) FROM unnest(matrix) v) AS nonnegative,
       abs(objective - dpm.total_error(:'w', matrix, sqrt(2))) < 1e-9 * objective AS objective_is_error
  FROM pid;
