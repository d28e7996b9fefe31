#!/usr/bin/env bash
# test_script.sh -- what scripts/test.sh shows of a server log when a test fails: the lines a
# crash leaves, not the warnings and errors the suite raises on purpose (issue 22, item 7).
set -uo pipefail
cd "$(dirname "$0")/.."
. "$(dirname "$0")/lib/check.sh"

fake=$(mktemp -d -t dpmatrix-log.XXXXXX)
trap 'rm -rf "${fake:?}"' EXIT
mkdir -p "$fake/etc" "$fake/log"
cat >"$fake/log/postgresql-15-regress.log" <<'LOG'
2026-11-24 10:00:00 UTC [1] WARNING:  could not find a release worker slot
2026-11-24 10:00:01 UTC [2] ERROR:  cannot pay for this release: less budget is left than it needs
2026-11-24 10:00:02 UTC [3] PANIC:  the test's crash
2026-11-24 10:00:03 UTC [4] LOG:  server process (PID 3) was terminated by signal 11: Segmentation fault
LOG
out=$(PG_CLUSTER_CONF_ROOT="$fake/etc" bash scripts/test.sh --crash-lines)
check "a crash's lines are shown" "$(tf grep -q 'PANIC:  the test' <<<"$out")"
check "a backend killed by a signal is shown" "$(tf grep -q 'terminated by signal 11' <<<"$out")"
check "the warnings and errors tests raise on purpose are not" "$(tf test "$(grep -cE 'WARNING|ERROR' <<<"$out")" = 0)"
rm "$fake/log/postgresql-15-regress.log"
echo "2026-11-24 10:00:00 UTC [1] WARNING:  nothing crashed" >"$fake/log/postgresql-15-regress.log"
out=$(PG_CLUSTER_CONF_ROOT="$fake/etc" bash scripts/test.sh --crash-lines)
check "nothing at all without a crash" "$(tf test -z "$out")"
report
