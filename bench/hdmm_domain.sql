-- One domain of bench/hdmm.sql: 16^:d cells, in a fresh session (so VmHWM is this domain's).
SET jit = off;
SET dpm.max_matrix_mb = 1024;
SELECT format('bench_d%s', :d) AS dname \gset
SELECT dpm.create_domain(:'dname', 'bench_people',
  (SELECT jsonb_agg(jsonb_build_object('name', 'a' || i, 'values', (SELECT jsonb_agg(v) FROM generate_series(0, 15) v)))
     FROM generate_series(1, :d) i)) AS cells \gset
SELECT dpm.create_workload(:'dname', :'dname', bench_spec(:d)) AS queries \gset

SELECT clock_timestamp() AS t0 \gset
SELECT dpm.optimize(:'dname', method => 'hdmm') AS sid \gset
SELECT extract(epoch FROM clock_timestamp() - :'t0'::timestamptz) AS optimize_s \gset

SELECT clock_timestamp() AS t0 \gset
SELECT count(*) FROM dpm.answer(:'dname', epsilon => 1, strategy => :sid) \gset
SELECT extract(epoch FROM clock_timestamp() - :'t0'::timestamptz) AS answer_s \gset

-- the mechanism alone, in this backend, on the true data vector
CREATE TEMP TABLE x AS
  SELECT dpm_internal.frequency_vector(s, dm, dm.created_by, false) AS x
    FROM dpm.sources s JOIN dpm.domains dm ON dm.source_id = s.id WHERE dm.name = :'dname';
SELECT clock_timestamp() AS t0 \gset
SELECT count(*)
  FROM dpm.strategies st, dpm.workloads w, dpm.domains dm, x,
       dpm_internal.hdmm_mechanism(w.spec, dm,
                           (st.hdmm).kind, (st.hdmm).p, (st.hdmm).theta, (st.hdmm).weights, x.x, epsilon => 1)
 WHERE st.id = :sid AND w.id = st.workload_id AND dm.id = w.domain_id \gset
SELECT extract(epoch FROM clock_timestamp() - :'t0'::timestamptz) AS mechanism_s \gset

INSERT INTO hdmm_results
SELECT :d, :cells, :queries, (st.hdmm).kind, :optimize_s, :answer_s, :mechanism_s,
       (SELECT substring(pg_read_file('/proc/self/status') FROM 'VmHWM:\s+(\d+) kB')::float8 / 1024),
       sqrt(st.profile_trace * st.sensitivity_l1 ^ 2 / w.m),
       sqrt(ident.objective / w.m),
       coalesce(st.ratio_to_bound,
                st.profile_trace * st.sensitivity_l1 ^ 2
                / dpm_internal.spec_svd_bound(bench_spec(:d, true), dm)),
       st.ratio_to_bound IS NOT NULL
  FROM dpm.strategies st JOIN dpm.workloads w ON w.id = st.workload_id JOIN dpm.domains dm ON dm.id = w.domain_id,
       dpm_internal.hdmm(w.spec, dm,
                 '{"parameterization": "kronecker", "p": 0}') ident
 WHERE st.id = :sid;
