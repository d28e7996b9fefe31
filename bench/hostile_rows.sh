#!/usr/bin/env bash
# hostile_rows.sh -- the long run of test/hostile_rows.sh (issue 41, item 2): every form of every
# column type (FZ_PER_KIND=1000), every source variant per table, a domain over every scalar type,
# longer values, for each seed in SEEDS.  Prints each seed's stages, failures and checks, then the
# total time.  Run against a cluster where dpmatrix is installed (libpq variables set):
#     SEEDS="1 2 3" HUGE=4000000 bench/hostile_rows.sh
set -uo pipefail
cd "$(dirname "$0")/.."
SEEDS=${SEEDS:-"1 2 3"}
start=$(date +%s)
status=0
for seed in $SEEDS; do
	echo "== seed $seed =="
	FZ_SEED=$seed FZ_HUGE=${HUGE:-2000000} FZ_PER_KIND=${PER_KIND:-1000} FZ_DOMAINS=1 FZ_ALL_VARIANTS=true \
		FZ_DB=dpm_hostile_bench bash test/hostile_rows.sh || status=1
done
echo "seeds $SEEDS: $(( $(date +%s) - start )) s in all"
exit $status
