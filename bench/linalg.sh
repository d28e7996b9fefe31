#!/usr/bin/env bash
# Dense linear algebra at n = 2048: GFLOP/s of the eigendecomposition (whole and by stage, as the
# extension runs it) and of the optimizers' inner loops, against this machine's dgemm rate measured
# in the same run through the same OpenBLAS with the same two threads.  Flop counts are nominal
# (bench/rates.c): 10/3 n^3 for an eigendecomposition, 12 n^3 for an SVD, 4 n^2 for eigen_design's
# two matrix-vector products a step.  Run by bench/run with PGDATABASE set.
set -euo pipefail
n=2048
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cc -O2 -o "$dir/rates" bench/rates.c -lopenblas
OPENBLAS_NUM_THREADS=2 "$dir/rates" "$n" >"$dir/rates.txt"

# the optimizers: seconds per step of the whole call (each gaussian_optimal step is one
# eigendecomposition plus O(n^2) work, each eigen_design step two matrix-vector products)
psql -X -q -At -F ' ' -v n="$n" >"$dir/loops.txt" <<'SQL'
SET dpm.blas_threads = 2;
SET dpm.max_matrix_mb = 4096;
SET dpm.progress_interval = 0;
CREATE TEMP TABLE roots AS
  SELECT s, dpm.gram_root(dpm_internal.workload_gram(s || '(x)', dpm_internal.domain_of('{x}', ARRAY[:n],
           ARRAY(SELECT i::text FROM generate_series(1, :n) i), array_fill('NaN'::float8, ARRAY[:n]),
           array_fill('NaN'::float8, ARRAY[:n])))) AS w
    FROM (VALUES ('Prefix'), ('AllRange')) v(s);
CREATE FUNCTION pg_temp.timed(w float8[], m text, OUT seconds float8, OUT iterations int) LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz := clock_timestamp();
BEGIN
  SELECT r.iterations INTO iterations FROM dpm_internal.strategy_report(w, m, '{}') r;
  seconds := extract(epoch FROM clock_timestamp() - t0);
END $$;
SELECT 'gaussian_optimal_step', t.seconds / greatest(t.iterations, 1), t.iterations
  FROM roots, pg_temp.timed(w, 'gaussian_optimal') t WHERE s = 'Prefix';
SELECT 'eigen_design_step', t.seconds / greatest(t.iterations, 1), t.iterations
  FROM roots, pg_temp.timed(w, 'eigen_design') t WHERE s = 'AllRange';
SELECT 'eigen_call', t.seconds, 1 FROM roots, pg_temp.timed(w, 'eigen') t WHERE s = 'AllRange';
SQL

echo
echo "== dense linear algebra at n = $n, 2 OpenBLAS threads: GFLOP/s against dgemm's, measured in this run"
awk -v n="$n" '
	FNR == NR { secs[$1] = $3; rate[$1] = $4; next }
	{ step[$1] = $2; iters[$1] = $3 }
	END {
		n3 = n * n * n; d = rate["dgemm"]
		printf "%-44s | %9s | %7s | %8s\n", "what", "seconds", "GFLOP/s", "vs_dgemm"
		row("dgemm (reference, 2 n^3)", secs["dgemm"], 2 * n3)
		row("eigendecomposition, dsyevd in one call", secs["dsyevd"], 10 / 3 * n3)
		row("  stage 1: dsytrd, tridiagonal reduction", secs["dsytrd"], 4 / 3 * n3)
		printf "%-44s | %9.3f | %7s | %8s\n", "  stage 2: dstedc, divide and conquer", secs["dstedc"], "-", "-"
		row("  stage 3: dormtr, back-transformation", secs["dormtr"], 2 * n3)
		row("SVD, dgesdd (12 n^3)", secs["dgesdd"], 12 * n3)
		row("gaussian_optimal step (Prefix, " iters["gaussian_optimal_step"] " steps)", step["gaussian_optimal_step"], 10 / 3 * n3)
		row("eigen (AllRange, one call)", step["eigen_call"], 10 / 3 * n3)
		row("eigen_design step (AllRange, " iters["eigen_design_step"] " steps)", step["eigen_design_step"], 4 * n * n)
	}
	function row(what, s, flops) { printf "%-44s | %9.4f | %7.1f | %8.2f\n", what, s, flops / s / 1e9, flops / s / 1e9 / d }
' "$dir/rates.txt" "$dir/loops.txt"
