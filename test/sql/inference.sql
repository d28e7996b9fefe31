-- Inference beyond plain least squares (matrix-mechanism slides, "New techniques"): non-negative
-- least squares, and its integral rounding; post-processing of the private answers.
\set SHOW_CONTEXT never
SET client_min_messages = warning;

-- By hand: A = [1 1; 1 0; 0 1], y = (1, 2, -1).  Least squares: x = (2, -1).  With x >= 0 the
-- second cell is 0 and the first minimizes (x - 1)^2 + (x - 2)^2: x = (1.5, 0); the gradient
-- A^T (A x - y) = (0, 1.5) is 0 where x > 0 and >= 0 where x = 0 (KKT).
SELECT abs(x[1] - 2) < 1e-12 AND abs(x[2] + 1) < 1e-12 AS ls FROM dpm.reconstruct('{{1,1},{1,0},{0,1}}', '{1,2,-1}') x;
SELECT abs(x[1] - 1.5) < 1e-8 AS first, x[2] = 0 AS second_exactly_zero
  FROM dpm.reconstruct('{{1,1},{1,0},{0,1}}', '{1,2,-1}', 'nnls') x;
-- an estimate already non-negative is kept
SELECT max(abs(a - b)) < 1e-8 AS unchanged
  FROM unnest(dpm.reconstruct('{{1,1},{1,0},{0,1}}', '{3,1,2}', 'nnls'), dpm.reconstruct('{{1,1},{1,0},{0,1}}', '{3,1,2}')) t(a, b);

-- A larger case: hierarchical strategy over 64 cells, sparse data (8 non-empty cells), Laplace
-- noise at epsilon 0.1.  The estimate is >= 0 exactly; its residual lies between least squares'
-- (the unconstrained optimum) and that of least squares clipped at 0 (a feasible point); the KKT
-- conditions hold to 1e-6 of |A^T y|; rounding gives non-negative integers.  (Some cells are
-- exactly 0 unless the noise pushes all 56 empty cells' estimates above 0: impossible in practice.)
CREATE TEMP TABLE inf AS
  SELECT dpm.strategy(array_fill(0.0::float8, ARRAY[1, 64]) || ARRAY(SELECT ARRAY(SELECT (i = j)::int::float8
           FROM generate_series(1, 64) j ORDER BY j) FROM generate_series(1, 64) i ORDER BY i), 'hierarchical') AS a,
         ARRAY(SELECT CASE WHEN i % 8 = 0 THEN 100.0 ELSE 0.0 END FROM generate_series(1, 64) i ORDER BY i)::float8[] AS x;
ALTER TABLE inf ADD y float8[];
UPDATE inf SET y = ARRAY(SELECT v + e FROM unnest(dpm_internal.matvec(a, x), dpm.noise('laplace', dpm.sensitivity(a) / 0.1,
                                                                       array_length(a, 1))) t(v, e));
CREATE FUNCTION pg_temp.rss(a float8[], x float8[], y float8[]) RETURNS float8 LANGUAGE sql AS $$
  SELECT sum((v - w) ^ 2) FROM unnest(dpm_internal.matvec(a, x), y) t(v, w) $$;
CREATE FUNCTION pg_temp.transpose(a float8[]) RETURNS float8[] LANGUAGE sql AS $$
  SELECT array_agg(r ORDER BY j) FROM (SELECT j, array_agg(a[i][j] ORDER BY i) r
    FROM generate_subscripts(a, 1) i, generate_subscripts(a, 2) j GROUP BY j) t $$;
SELECT min(v) >= 0 AS non_negative, count(*) FILTER (WHERE v = 0) > 0 AS some_cells_exactly_zero
  FROM inf, unnest(dpm.reconstruct(a, y, 'nnls')) v;
SELECT pg_temp.rss(a, dpm.reconstruct(a, y), y) <= pg_temp.rss(a, dpm.reconstruct(a, y, 'nnls'), y) * (1 + 1e-12) AS above_ls,
       pg_temp.rss(a, dpm.reconstruct(a, y, 'nnls'), y)
         <= pg_temp.rss(a, ARRAY(SELECT greatest(v, 0) FROM unnest(dpm.reconstruct(a, y)) v), y) AS below_clipped_ls
  FROM inf;
SELECT bool_and(CASE WHEN xv > 0 THEN abs(g) ELSE greatest(-g, 0) END
                <= 1e-6 * (SELECT max(abs(v)) FROM unnest(dpm_internal.matvec(pg_temp.transpose(a), y)) v)) AS kkt
  FROM inf, LATERAL (SELECT dpm.reconstruct(a, y, 'nnls') AS xh) e,
       LATERAL unnest(xh, dpm_internal.matvec(pg_temp.transpose(a),
                      ARRAY(SELECT p - q FROM unnest(dpm_internal.matvec(a, xh), y) t(p, q)))) k(xv, g);
SELECT bool_and(v >= 0 AND v = round(v)) AS non_negative_integers,
       max(abs(v - w)) <= 0.5 AS rounded_nnls
  FROM inf, unnest(dpm.reconstruct(a, y, 'nnls_integer'), dpm.reconstruct(a, y, 'nnls')) t(v, w);
SELECT dpm.reconstruct('{{1,0},{0,1}}', '{1,2}', 'lasso');
SELECT * FROM dpm.mechanism('{{1,0},{0,1}}', '{{1,0},{0,1}}', '{1,2}', 1, inference => NULL);

-- Through dpm.answer: the estimate's answers are consistent (the total is the sum of the cells,
-- every cell >= 0), the standard errors are least squares' (the reference), the release records
-- its inference, and a misspelt inference is refused before any charge.
CREATE TABLE inf_people AS SELECT g AS id, (g % 4) * 3 AS kind FROM generate_series(1, 400) g;  -- kinds 0, 3, 6, 9 of 0..11
SELECT dpm.register_source('inf_people', epsilon => 10);
SELECT dpm.create_domain('inf_kind', 'inf_people', '[{"name": "kind", "values": [0,1,2,3,4,5,6,7,8,9,10,11]}]');
SELECT dpm.create_workload('inf_w', 'inf_kind', 'Identity(kind) + Total(kind) + Prefix(kind)');
CREATE TEMP TABLE inf_ls AS SELECT * FROM dpm.answer('inf_w', epsilon => 0.5, method => 'hierarchical');
CREATE TEMP TABLE inf_nnls AS SELECT * FROM dpm.answer('inf_w', epsilon => 0.5, method => 'hierarchical', inference => 'nnls');
CREATE TEMP TABLE inf_int AS SELECT * FROM dpm.answer('inf_w', epsilon => 0.5, method => 'hierarchical', inference => 'nnls_integer');
SELECT kind, bool_and(answer >= 0) FILTER (WHERE query <= 12) AS cells_non_negative,
       abs(max(answer) FILTER (WHERE query = 13) - sum(answer) FILTER (WHERE query <= 12)) < 1e-6 AS total_is_sum,
       abs(max(answer) FILTER (WHERE query = 25) - sum(answer) FILTER (WHERE query <= 12)) < 1e-6 AS last_prefix_is_sum
  FROM (SELECT 'nnls' AS kind, * FROM inf_nnls UNION ALL SELECT 'nnls_integer', * FROM inf_int) t GROUP BY kind ORDER BY kind;
-- W x_hat reproduces every answer: the identity rows are x_hat itself
CREATE TEMP TABLE inf_all AS SELECT 'nnls' AS kind, * FROM inf_nnls UNION ALL SELECT 'nnls_integer', * FROM inf_int;
SELECT t.kind, bool_and(abs(t.answer - x.wx) <= 1e-9 * greatest(1, abs(t.answer))) AS w_xhat
  FROM inf_all t, dpm.workloads w,
       LATERAL (SELECT sum(w.matrix[t.query][c.query] * c.answer) AS wx FROM inf_all c
                 WHERE c.kind = t.kind AND c.query <= 12) x
 WHERE w.name = 'inf_w' GROUP BY t.kind ORDER BY t.kind;
SELECT bool_and(answer = round(answer)) AS integers FROM inf_int;
SELECT bool_and(abs(n.stderr - l.stderr) < 1e-9 * l.stderr) AS ls_stderr FROM inf_nnls n JOIN inf_ls l USING (query);
SELECT inference, count(*) FROM dpm.releases r JOIN dpm.workloads w ON w.id = r.workload_id
 WHERE w.name = 'inf_w' GROUP BY 1 ORDER BY 1;
SELECT * FROM dpm.answer('inf_w', epsilon => 0.5, method => 'hierarchical', inference => 'ridge');
SELECT count(*) AS charges FROM dpm.ledger l JOIN dpm.sources s ON s.id = l.source_id WHERE s.relation = 'inf_people'::regclass;
-- implicit (HDMM) strategies too: cells >= 0 and the total their sum
SELECT bool_and(answer >= 0) FILTER (WHERE query <= 12) AS cells_non_negative,
       abs(max(answer) FILTER (WHERE query = 13) - sum(answer) FILTER (WHERE query <= 12)) < 1e-6 AS total_is_sum
  FROM dpm.answer('inf_w', epsilon => 0.5, method => 'hdmm', inference => 'nnls');

-- Weighted workloads (slides, "rows scaled to express how much each query matters"): a weight on
-- a block of the spec, or one per row of an explicit matrix, changes what the optimizers minimize;
-- answers stay in the queries' own units.
SELECT dpm.create_workload('inf_w0', 'inf_kind', 'Identity(kind) + Total(kind)');
SELECT dpm.create_workload('inf_w30', 'inf_kind', 'Identity(kind) + 30 * Total(kind)');
SELECT dpm.create_workload('inf_w2', 'inf_kind', '2 * (Identity(kind) + 3 * Total(kind))');
SELECT name, weights FROM dpm.workloads WHERE name IN ('inf_w0', 'inf_w30', 'inf_w2') ORDER BY name;
-- the total, weighted 30, gets a smaller expected error under gaussian_optimal, the cells larger
CREATE TEMP TABLE inf_ids AS
  SELECT name, dpm.optimize(name, method => 'gaussian_optimal', epsilon => 1, delta => 1e-6) AS sid FROM dpm.workloads WHERE name IN ('inf_w0', 'inf_w30');
CREATE TEMP TABLE inf_err AS
  SELECT w.name, e.query, e.variance
    FROM inf_ids i JOIN dpm.workloads w USING (name) JOIN dpm.strategies s ON s.id = i.sid,
         dpm.expected_error(w.matrix, s.matrix, 1, 1e-6) e;
SELECT (SELECT variance FROM inf_err WHERE name = 'inf_w30' AND query = 13)
         < 0.5 * (SELECT variance FROM inf_err WHERE name = 'inf_w0' AND query = 13) AS total_more_accurate,
       (SELECT max(variance) FROM inf_err WHERE name = 'inf_w30' AND query <= 12)
         > (SELECT max(variance) FROM inf_err WHERE name = 'inf_w0' AND query <= 12) AS cells_less_accurate;
-- the same through hdmm, which optimizes from the spec's weighted factors
SELECT (SELECT stderr FROM dpm.answer('inf_w30', epsilon => 0.5, method => 'hdmm') WHERE query = 13)
         < (SELECT stderr FROM dpm.answer('inf_w0', epsilon => 0.5, method => 'hdmm') WHERE query = 13) AS hdmm_total_more_accurate;
-- answers in the query's own units: the total is nearer 400 people than 30 times that (the gap,
-- 5800, is over 1000 standard errors: by Chebyshev's inequality a false alarm below 1e-6 whatever
-- the noise's shape)
SELECT abs(answer - 400) < 5800 AND 5800 > 1000 * stderr AS own_units
  FROM dpm.answer('inf_w30', epsilon => 0.5, method => 'gaussian_optimal') WHERE query = 13;
-- explicit matrices take one weight per row
SELECT dpm.create_workload('inf_wm', 'inf_kind', ARRAY[array_fill(1.0::float8, ARRAY[12]), array_fill(0.0::float8, ARRAY[12])],
                           '{5, 1}');
SELECT weights FROM dpm.workloads WHERE name = 'inf_wm';
SELECT dpm.create_workload('inf_wm2', 'inf_kind', ARRAY[array_fill(1.0::float8, ARRAY[12])], '{0}');
SELECT dpm.create_workload('inf_wm2', 'inf_kind', ARRAY[array_fill(1.0::float8, ARRAY[12])], '{1, 2}');
SELECT dpm.create_workload('inf_wm2', 'inf_kind', ARRAY[array_fill(1.0::float8, ARRAY[12])], '{NaN}');
SELECT dpm.create_workload('inf_ws', 'inf_kind', '0 * Total(kind)');
SELECT dpm.create_workload('inf_ws', 'inf_kind', '-2 * Total(kind)');
SELECT dpm.create_workload('inf_ws', 'inf_kind', '3 Total(kind)');
SELECT dpm.create_workload('inf_ws', 'inf_kind', '1e200 * Total(kind)');
SELECT count(*) FROM dpm.workloads WHERE name IN ('inf_wm2', 'inf_ws');
