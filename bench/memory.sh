#!/usr/bin/env bash
# Peak memory of each strategy optimizer against the documented estimate (doc/guide/performance-and-settings.md, "Memory";
# dpm_internal.strategy_memory_mb, which dpm.max_memory_mb is checked against).  Each run is a fresh
# backend: its peak resident set (VmHWM) after dpm.strategy on AllRange(n)'s n x n Gram root,
# minus the peak before the call.  Run by bench/run with PGDATABASE set.
set -euo pipefail

psql -X -q <<'SQL'
SET dpm.max_matrix_mb = 8192;
CREATE TABLE mem_root AS
  SELECT n, dpm.gram_root(dpm_internal.workload_gram('AllRange(x)', dpm_internal.domain_of('{x}', ARRAY[n],
           ARRAY(SELECT i::text FROM generate_series(1, n) i), array_fill('NaN'::float8, ARRAY[n]),
           array_fill('NaN'::float8, ARRAY[n])))) AS r
    FROM unnest(ARRAY[1024, 2048]) n;
SQL

echo
echo "== memory: peak resident memory of one optimization (fresh backend, AllRange(n) Gram root as W) against the estimate c n^2 + 2 m n doubles"
printf '%-17s | %5s | %11s | %11s | %5s\n' method n measured_mb estimate_mb ratio
for n in 1024 2048; do
	for m in identity wavelet hierarchical eigen gaussian_optimal eigen_design hdmm; do
		out=$(psql -X -q -At -v n="$n" -v m="$m" <<'SQL'
SET dpm.blas_threads = 2;
SET dpm.max_matrix_mb = 8192;
SET dpm.max_memory_mb = 65536;
SET dpm.progress_interval = 0;
SELECT pg_backend_pid() AS pid \gset
\setenv BPID :pid
\! awk '/VmHWM/ {print $2}' /proc/$BPID/status
SELECT cardinality(dpm.strategy(r, :'m')) > 0 FROM mem_root WHERE n = :n \g /dev/null
\! awk '/VmHWM/ {print $2}' /proc/$BPID/status
SELECT round(dpm_internal.strategy_memory_mb(:'m', :n, :n)::numeric);
SQL
)
		read -r before after estimate <<<"$(echo $out)"
		awk -v m="$m" -v n="$n" -v b="$before" -v a="$after" -v e="$estimate" 'BEGIN {
			mb = (a - b) / 1024; printf "%-17s | %5d | %11.0f | %11.0f | %5.2f\n", m, n, mb, e, mb / e }'
	done
done
psql -X -q -c 'DROP TABLE mem_root'
