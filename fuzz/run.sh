#!/usr/bin/env bash
# run.sh [SECONDS] [SPEC_MAX_LEN] -- build the fuzz targets, then run fuzz_spec, fuzz_matrix and
# fuzz_domain at once for SECONDS each (default 600).  FUZZ_TARGETS="spec domain" runs (and
# builds) only those: on two cores, two targets get one core each.
#
# The corpus each run grows is kept in fuzz/corpus-run/<target> (seeded from fuzz/corpus/<target>),
# libFuzzer's artifacts (crash-*, timeout-*, oom-*) land in fuzz/findings/, and the logs in
# fuzz/build/<target>.log, whose last lines are libFuzzer's final statistics.  Both are ignored
# by git; copy a finding worth keeping to fuzz/crashes/.
set -eu
cd "$(dirname "$0")"
secs=${1:-600}
spec_max_len=${2:-512}
targets=${FUZZ_TARGETS:-spec matrix domain}
for t in $targets; do
	case $t in
	spec | matrix | domain) ;;
	*) echo "unknown target: $t (spec, matrix, domain)" >&2; exit 2 ;;
	esac
done
# shellcheck disable=SC2046
make -s $(printf 'build/fuzz_%s ' $targets)
mkdir -p findings
# one thread for OpenBLAS: one core a target
export OPENBLAS_NUM_THREADS=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
common=(-timeout=10 -rss_limit_mb=2048 -max_total_time="$secs" -print_final_stats=1
	-artifact_prefix=findings/)
pids=()
for t in $targets; do
	case $t in
	spec) opts=(-dict=spec.dict -max_len="$spec_max_len") ;;
	matrix) opts=(-dict=matrix.dict -max_len=40000) ;;
	# long enough for numbers of hundreds of digits, short enough that width bins over them stay fast
	domain) opts=(-dict=domain.dict -max_len=2048) ;;
	esac
	mkdir -p "corpus-run/$t"
	echo "fuzz_$t: ./build/fuzz_$t corpus-run/$t corpus/$t ${opts[*]} ${common[*]}"
	"./build/fuzz_$t" "corpus-run/$t" "corpus/$t" "${opts[@]}" "${common[@]}" >"build/$t.log" 2>&1 &
	pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
	wait "$pid" || status=1
done
for t in $targets; do
	echo "== fuzz_$t =="
	grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^Done|^stat::|FUZZ FINDING|ERROR: |SUMMARY' "build/$t.log" | tail -n 12
done
echo "== findings =="
ls findings
exit $status
