#!/usr/bin/env bash
# run.sh [SECONDS] [SPEC_MAX_LEN] -- build the fuzz targets, then run fuzz_spec and fuzz_matrix
# at once (one core each) for SECONDS each (default 600).
#
# The corpus each run grows is kept in fuzz/corpus-run/<target> (seeded from fuzz/corpus/<target>),
# libFuzzer's artifacts (crash-*, timeout-*, oom-*) land in fuzz/findings/, and the logs in
# fuzz/build/<target>.log, whose last lines are libFuzzer's final statistics.  Both are ignored
# by git; copy a finding worth keeping to fuzz/crashes/.
set -eu
cd "$(dirname "$0")"
secs=${1:-600}
spec_max_len=${2:-512}
make -s
mkdir -p corpus-run/spec corpus-run/matrix findings
# one thread for OpenBLAS: the two targets take the two cores
export OPENBLAS_NUM_THREADS=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
common=(-timeout=10 -rss_limit_mb=2048 -max_total_time="$secs" -print_final_stats=1
	-artifact_prefix=findings/)
echo "fuzz_spec:   ./build/fuzz_spec corpus-run/spec corpus/spec -dict=spec.dict -max_len=$spec_max_len ${common[*]}"
./build/fuzz_spec corpus-run/spec corpus/spec -dict=spec.dict -max_len="$spec_max_len" \
	"${common[@]}" >build/spec.log 2>&1 &
spec_pid=$!
echo "fuzz_matrix: ./build/fuzz_matrix corpus-run/matrix corpus/matrix -dict=matrix.dict -max_len=40000 ${common[*]}"
./build/fuzz_matrix corpus-run/matrix corpus/matrix -dict=matrix.dict -max_len=40000 \
	"${common[@]}" >build/matrix.log 2>&1 &
matrix_pid=$!
status=0
wait $spec_pid || status=1
wait $matrix_pid || status=1
for t in spec matrix; do
	echo "== fuzz_$t =="
	grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^Done|^stat::|FUZZ FINDING|ERROR: |SUMMARY' "build/$t.log" | tail -n 12
done
echo "== findings =="
ls findings
exit $status
