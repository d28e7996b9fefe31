-- Worked examples of Li et al., PODS 2010 (sections 2-4, 6) and Li & Miklau, ICDT 2013, checked exactly
\set SHOW_CONTEXT never
-- (to 1e-9), so the output does not depend on the BLAS build.
\set I4 '''{{1,0,0,0},{0,1,0,0},{0,0,1,0},{0,0,0,1}}'''
\set H4 '''{{1,1,1,1},{1,1,0,0},{0,0,1,1},{1,0,0,0},{0,1,0,0},{0,0,1,0},{0,0,0,1}}'''
\set Y4 '''{{1,1,1,1},{1,1,-1,-1},{1,-1,0,0},{0,0,1,-1}}'''

-- all range queries over n cells, built independently of the workload parser
CREATE FUNCTION pg_temp.allrange(n int) RETURNS float8[] LANGUAGE sql AS $$
  SELECT array_agg(r ORDER BY i, j)
    FROM (SELECT i, j, ARRAY(SELECT (k BETWEEN i AND j)::int::float8 FROM generate_series(1, n) k ORDER BY k) r
            FROM generate_series(1, n) i, generate_series(1, n) j WHERE i <= j) s
$$;
-- unit vector e_j of length n
CREATE FUNCTION pg_temp.unit(j int, n int) RETURNS float8[] LANGUAGE sql AS $$
  SELECT ARRAY(SELECT (k = j)::int::float8 FROM generate_series(1, n) k ORDER BY k)
$$;

-- Example 4 / Section 4: sensitivities of I4, H4, Y4 are 1, 3, 3
SELECT dpm.sensitivity(:I4) AS i4, dpm.sensitivity(:H4) AS h4, dpm.sensitivity(:Y4) AS y4;

-- dpm.strategy builds exactly the paper's H4 and Y4
SELECT dpm.strategy(:I4, 'hierarchical') = :H4::float8[] AS h4_built,
       dpm.strategy(:I4, 'wavelet') = :Y4::float8[] AS y4_built,
       dpm.strategy(:I4, 'identity') = :I4::float8[] AS i4_built;

-- Figure 2: least-squares weights of x1 under H4 are (3, 5, -2, 13, -8, -1, -1) / 21,
-- the first row of H4^+, read off column by column as reconstruct(H4, e_j)[1]
SELECT j, abs((dpm.reconstruct(:H4, pg_temp.unit(j::int, 7)))[1] - w / 21.0) < 1e-9 AS weight_ok
  FROM unnest(ARRAY[3, 5, -2, 13, -8, -1, -1]) WITH ORDINALITY AS t(w, j);

-- Figure 3: error profiles (A^T A)^-1 of I4, H4 (times 21) and Y4 (times 8)
SELECT name, bool_and(abs(p[i][j] * f - e[i][j]) < 1e-9) AS profile_ok
  FROM (VALUES ('I4', dpm.error_profile(:I4), 1, :I4::float8[]),
               ('H4', dpm.error_profile(:H4), 21,
                '{{13,-8,-1,-1},{-8,13,-1,-1},{-1,-1,13,-8},{-1,-1,-8,13}}'::float8[]),
               ('Y4', dpm.error_profile(:Y4), 8,
                '{{3,-1,0,0},{-1,3,0,0},{0,0,3,-1},{0,0,-1,3}}'::float8[])) v(name, p, f, e),
       generate_series(1, 4) i, generate_series(1, 4) j
 GROUP BY name ORDER BY name;

-- Proposition 4: Error_A(w) = 2/eps^2 Delta_A^2 w (A^T A)^-1 w^T.  For w = [1,1,1,1] under H4 at
-- eps = 0.5: 2/0.25 * 9 * (4*13 - 2*8*2 - 8*1) / 21 = 72 * 12/21 = 864/21
SELECT abs(variance - 864.0 / 21) < 1e-9 AS prop4_ok
  FROM dpm.expected_error('{{1,1,1,1}}', :H4, 0.5);

-- Example 6: the identity strategy's total error is 2/eps^2 trace(W^T W); for AllRange(4) that is
-- 2 * (sum of range lengths = 20) at eps = 1
SELECT abs(dpm.total_error(pg_temp.allrange(4), :I4, 1) - 40) < 1e-9 AS identity_total_ok;

-- Theorem 11: for any query, Error_H(w) / Error_Y(w) lies in [1/2, 2] (binary H_n and Y_n).
-- Checked on every range query and on 300 random 0/1 queries for n = 8 and 16.
SELECT setseed(0.11);
CREATE TEMP TABLE rq AS
  SELECT n, array_agg(r) AS w
    FROM (SELECT n, q, ARRAY(SELECT CASE WHEN k = 1 + q % n THEN 1 ELSE (random() < 0.5)::int END::float8
                               FROM generate_series(1, n) k ORDER BY k) r
            FROM generate_series(1, 300) q, (VALUES (8), (16)) v(n)) s
   GROUP BY n;
SELECT n, kind, count(*) AS queries,
       bool_and(h.variance / y.variance BETWEEN 0.5 AND 2) AS theorem11_holds
  FROM (SELECT n, 'random' AS kind, w FROM rq
        UNION ALL SELECT n, 'allrange', pg_temp.allrange(n) FROM (VALUES (8), (16)) v(n)) ws,
       LATERAL dpm.expected_error(ws.w, dpm.strategy(ws.w, 'hierarchical'), 1) h
       JOIN LATERAL dpm.expected_error(ws.w, dpm.strategy(ws.w, 'wavelet'), 1) y USING (query)
 GROUP BY n, kind ORDER BY n, kind;

-- Li & Miklau, ICDT 2013, hierarchical strategy on AllRange(4): Delta_2^2 = 3 and ||W H^+||_F^2 = 146/21.
-- ||W A^+||_F^2 is the sum of profile terms: total Laplace error / (2 Delta_1^2) at eps = 1.
SELECT abs(dpm.sensitivity(:H4, 'l2') ^ 2 - 3) < 1e-9 AS delta2_sq_ok,
       abs(dpm.total_error(pg_temp.allrange(4), :H4, 1) / (2 * 3 ^ 2) - 146.0 / 21) < 1e-9 AS frob_ok;

-- Li & Miklau, ICDT 2013, Haar wavelet on AllRange(8): ||W Y^+||_F^2 = 187/8 (Y8 has L1 sensitivity 4)
SELECT dpm.sensitivity(dpm.strategy(pg_temp.allrange(8), 'wavelet')) AS y8_sensitivity,
       abs(dpm.total_error(pg_temp.allrange(8), dpm.strategy(pg_temp.allrange(8), 'wavelet'), 1) / (2 * 4 ^ 2)
           - 187.0 / 8) < 1e-9 AS frob_ok;

-- the same Frobenius norm through the Gaussian error: total = sigma^2 ||W A^+||_F^2 with sigma for Delta_2
SELECT abs(dpm.total_error(pg_temp.allrange(4), :H4, 1, 1e-6)
           / dpm.gaussian_sigma(1, 1e-6, sqrt(3)) ^ 2 - 146.0 / 21) < 1e-9 AS gaussian_frob_ok;
