#!/usr/bin/env bash
# run.sh [SECONDS] -- build the fuzz targets and run both at once (one core each) for SECONDS
# (default 600).  Findings (crash-*, timeout-*, oom-*) land in fuzz/findings/; logs in
# fuzz/build/*.log, whose last lines are libFuzzer's final statistics.
set -eu
cd "$(dirname "$0")"
secs=${1:-600}
make -s
mkdir -p corpus-run/spec corpus-run/matrix findings
common=(-timeout=10 -rss_limit_mb=2048 -max_total_time="$secs" -print_final_stats=1
	-artifact_prefix=findings/ -detect_leaks=0)
./build/fuzz_spec corpus-run/spec corpus/spec -dict=spec.dict -max_len=512 "${common[@]}" \
	>build/spec.log 2>&1 &
./build/fuzz_matrix corpus-run/matrix corpus/matrix -max_len=40000 "${common[@]}" \
	>build/matrix.log 2>&1 &
wait
for t in spec matrix; do
	echo "== $t =="
	grep -E '^(#[0-9]+ +DONE|Done|stat::)' "build/$t.log" || tail -n 30 "build/$t.log"
done
ls findings
