-- Every strategy method on four workload families at n = 64, 256, 1024 and 2048 cells: wall time
-- of the optimizer, the Gaussian ratio of total error to the SVD bound (L2 sensitivity, the
-- bound's own setting) and the Laplace total error relative to identity's (L1 sensitivity, pure
-- epsilon-DP).  Families: AllRange and Prefix over one attribute; all marginals of two attributes
-- (8 x 8, 16 x 16, 32 x 32, 32 x 64: Identity x Identity + Identity x Total + Total x Identity +
-- Total x Total); WRelated of the low-rank-mechanism paper (section 6: C (m x s) A (s x n), iid
-- N(0, 1), m = n / 2 up to 128, s = m / 5, fixed seed).  Spec workloads enter by their n x n
-- Gram root (same errors and bound under every strategy).  min_sensitivity runs to n = 256 (its
-- rotation sweeps are O(n^3) each); lrm only where W has low rank (WRelated), as auto does;
-- eigen_design and gaussian_optimal on WRelated only to n = 256: on a rank-deficient W their dual
-- iterations converge slowly (over 4 minutes at n = 1024; an open performance item).
\set ON_ERROR_STOP 1
SET dpm.progress_interval = 0;
\pset footer off
SET dpm.blas_threads = 2;
SET dpm.max_matrix_mb = 4096;
SET jit = off;

CREATE TEMP TABLE mresults (family text, n int, method text, seconds float8, ratio_l2 float8,
                            laplace_vs_identity float8);

CREATE FUNCTION pg_temp.root(spec text, names text[], sizes int[]) RETURNS float8[] LANGUAGE sql AS $$
  SELECT dpm.gram_root(dpm_internal.workload_gram(spec, dpm_internal.domain_of(names, sizes,
    ARRAY(SELECT j::text FROM generate_subscripts(sizes, 1) i, generate_series(1, sizes[i]) j ORDER BY i, j),
    array_fill('NaN'::float8, ARRAY[(SELECT sum(s)::int FROM unnest(sizes) s)]),
    array_fill('NaN'::float8, ARRAY[(SELECT sum(s)::int FROM unnest(sizes) s)])))) $$;

\ir generators.sql

CREATE PROCEDURE pg_temp.run(family text, w float8[], methods text[]) LANGUAGE plpgsql AS $$
DECLARE
  n int := array_length(w, 2);
  b float8 := dpm.svd_bound(w);
  ident float8 := dpm.total_error(w, dpm.strategy(w, 'identity'), 1);
  m text;
  t0 timestamptz;
  secs float8;
  a float8[];
BEGIN
  FOREACH m IN ARRAY methods LOOP
    CONTINUE WHEN m = 'min_sensitivity' AND n > 256;
    -- on rank-deficient W the dual iterations of these two converge slowly (minutes at n = 1024)
    CONTINUE WHEN m IN ('eigen_design', 'gaussian_optimal') AND family = 'WRelated' AND n > 256;
    t0 := clock_timestamp();
    a := dpm.strategy(w, m);
    secs := extract(epoch FROM clock_timestamp() - t0);
    INSERT INTO mresults VALUES (family, n, m, secs,
      dpm.total_error(w, a, 1, 1e-6) / dpm.gaussian_sigma(1, 1e-6) ^ 2 / b,
      dpm.total_error(w, a, 1) / ident);
    COMMIT;
  END LOOP;
END $$;

\set methods '{identity,hierarchical,wavelet,eigen,eigen_design,gaussian_optimal,min_sensitivity,hdmm}'
CALL pg_temp.run('AllRange', pg_temp.root('AllRange(x)', '{x}', '{64}'), :'methods');
CALL pg_temp.run('AllRange', pg_temp.root('AllRange(x)', '{x}', '{256}'), :'methods');
CALL pg_temp.run('AllRange', pg_temp.root('AllRange(x)', '{x}', '{1024}'), :'methods');
CALL pg_temp.run('AllRange', pg_temp.root('AllRange(x)', '{x}', '{2048}'), :'methods');
CALL pg_temp.run('Prefix', pg_temp.root('Prefix(x)', '{x}', '{64}'), :'methods');
CALL pg_temp.run('Prefix', pg_temp.root('Prefix(x)', '{x}', '{256}'), :'methods');
CALL pg_temp.run('Prefix', pg_temp.root('Prefix(x)', '{x}', '{1024}'), :'methods');
CALL pg_temp.run('Prefix', pg_temp.root('Prefix(x)', '{x}', '{2048}'), :'methods');
\set marg 'Identity(a) * Identity(b) + Identity(a) * Total(b) + Total(a) * Identity(b) + Total(a) * Total(b)'
CALL pg_temp.run('marginals', pg_temp.root(:'marg', '{a,b}', '{8,8}'), :'methods');
CALL pg_temp.run('marginals', pg_temp.root(:'marg', '{a,b}', '{16,16}'), :'methods');
CALL pg_temp.run('marginals', pg_temp.root(:'marg', '{a,b}', '{32,32}'), :'methods');
CALL pg_temp.run('marginals', pg_temp.root(:'marg', '{a,b}', '{32,64}'), :'methods');
\set lowrank '{identity,hierarchical,wavelet,workload,eigen,eigen_design,gaussian_optimal,min_sensitivity,lrm}'
CALL pg_temp.run('WRelated', pg_temp.wrelated(32, 64, 6, 0.1), :'lowrank');
CALL pg_temp.run('WRelated', pg_temp.wrelated(128, 256, 25, 0.2), :'lowrank');
CALL pg_temp.run('WRelated', pg_temp.wrelated(128, 1024, 25, 0.3), :'lowrank');
CALL pg_temp.run('WRelated', pg_temp.wrelated(128, 2048, 25, 0.4), :'lowrank');

\echo
\echo == every method: optimizer seconds, Gaussian ratio to the SVD bound, Laplace error relative to identity
SELECT family, n, method, round(seconds::numeric, 2) AS seconds, round(ratio_l2::numeric, 3) AS ratio_to_bound_l2,
       round(laplace_vs_identity::numeric, 3) AS laplace_vs_identity
  FROM mresults ORDER BY family, n, method;
