#!/usr/bin/env bash
# Laplace p-Identity (issue 47, target 5): dpmatrix's method hdmm on one attribute against HDMM's
# reference implementation in the same run.  For AllRange and Prefix over n cells: HDMM's
# templates.PIdentity(n / 16, n) from seeds 0, 1 and 2 (its own start and stopping rule), its best
# total squared error and the three runs' time; then dpm_internal.hdmm on the same workload (the
# best of p = n/16, n/32, n/8 up to 256 cells, n/16 alone past that, each run to its stall), its
# error and time; both single-threaded.
# Errors are tr(W^T W (A^T A)^-1) at L1 sensitivity 1, the objective both minimize.
#
# HDMM is not shipped or installed: HDMM_SRC names a checkout of dpcomp-org/hdmm (its src/ folder is
# put on the path) and python3 needs numpy and scipy (Debian: python3-numpy python3-scipy).  Without
# them only dpmatrix's side runs.  Sizes: BENCH_PIDENTITY_SIZES (256 1024; 2048 takes about an hour).
# Run with PGDATABASE set to a database with dpmatrix.
set -euo pipefail
sizes=${BENCH_PIDENTITY_SIZES:-256 1024}
py=${PYTHON:-/usr/bin/python3}
hdmm=$(mktemp)
trap 'rm -f "$hdmm"' EXIT

if [ -n "${HDMM_SRC:-}" ] && "$py" -c 'import numpy, scipy' 2>/dev/null; then
  OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 "$py" - "$HDMM_SRC/src" $sizes > "$hdmm" <<'PY'
import sys, time
sys.path.insert(0, sys.argv[1])
from hdmm import workload, templates
for name in ['AllRange', 'Prefix']:
    for n in map(int, sys.argv[2:]):
        W = getattr(workload, name)(n)
        best, t0 = float('inf'), time.time()
        for seed in (0, 1, 2):
            best = min(best, templates.PIdentity(max(1, n // 16), n, seed=seed).optimize(W))
        print(f"('{name}', {n}, {best!r}, {time.time() - t0:.3f})", flush=True)
PY
else
  echo "HDMM_SRC unset or numpy/scipy missing: HDMM's columns are empty" >&2
fi

rows=$(paste -s -d, "$hdmm")
psql -X -q -v sizes="{${sizes// /,}}" -v rows="${rows:-(NULL, NULL, NULL, NULL)}" <<'SQL'
\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = warning;
SET dpm.blas_threads = 1;
SET dpm.progress_interval = 0;
CREATE TEMP TABLE hdmm_ref (workload text, n int, best float8, seconds float8);
INSERT INTO hdmm_ref VALUES :rows;
CREATE TEMP TABLE ours (workload text, n int, objective float8, p int, seconds float8);
CREATE FUNCTION pg_temp.run(w text, n int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz := clock_timestamp();
  h record;
BEGIN
  SELECT * INTO h FROM dpm_internal.hdmm(w || '(a1)', dpm_internal.domain_of('{a1}', ARRAY[n],
           ARRAY(SELECT i::text FROM generate_series(1, n) i), array_fill('NaN'::float8, ARRAY[n]),
           array_fill('NaN'::float8, ARRAY[n])));
  INSERT INTO ours VALUES (w, n, h.objective, h.p[1], extract(epoch FROM clock_timestamp() - t0));
END $$;
SELECT pg_temp.run(w, n) FROM unnest('{AllRange,Prefix}'::text[]) w, unnest(:'sizes'::int[]) n \g /dev/null
\echo == Laplace p-Identity on one attribute: dpmatrix, method hdmm, against the best of three HDMM seeds
SELECT o.workload, o.n, round(h.best::numeric, 1) AS hdmm_best_of_3, round(h.seconds::numeric, 1) AS hdmm_s,
       round(o.objective::numeric, 1) AS dpmatrix, o.p, round(o.seconds::numeric, 1) AS dpmatrix_s,
       round((o.objective / h.best)::numeric, 4) AS error_ratio, round((o.seconds / h.seconds)::numeric, 2) AS time_ratio
  FROM ours o LEFT JOIN hdmm_ref h USING (workload, n) ORDER BY o.workload, o.n;
SQL
