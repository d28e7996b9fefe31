#!/usr/bin/env bash
# test.sh -- the whole test suite: scripts/setup.sh (packages, build, install), then on one
# throw-away PostgreSQL 15 cluster (pg_virtualenv) the pg_regress suite (make installcheck:
# test/sql/*.sql against test/expected/*.out) and every extra test script test/*.sh.
# Prints the regression diffs on failure and ends with one line "N passed, N failed";
# exits non-zero if anything failed or if no test ran.
#
# Adding an extra test: write test/NAME.sh (executable, or it is run with bash). It runs from the
# top directory with the libpq variables (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE) and
# PG_CONFIG set for the cluster, where dpmatrix is installed but no database has the extension
# yet. Exit status 0 is a pass. A script that makes several checks may print its own
# "N passed, N failed" line; its last such line then counts instead of one pass or failure.
# Each step is stopped after DPM_TEST_TIMEOUT seconds (default 1200).
# As root, pg_virtualenv runs the server as the postgres user, which may not be able to read this
# tree (a clone under /root): tests must not make the server read files from it (COPY FROM a
# file, pg_read_file); psql reads the test files itself, so pg_regress's own files are fine.
set -uo pipefail

PGVERSION=15
PG_CONFIG=/usr/lib/postgresql/$PGVERSION/bin/pg_config
TIMEOUT=${DPM_TEST_TIMEOUT:-1200}
SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"

cd "$(dirname "$SELF")/.." || exit 1

# Runs inside pg_virtualenv; writes "passed failed" to the file named by $1.
in_cluster()
{
	local tally=$1 passed=0 failed=0 rc out log t p f counts
	out=$(mktemp -t dpmatrix-installcheck.XXXXXX)

	echo "== pg_regress: make installcheck =="
	rm -f regression.diffs regression.out
	timeout "$TIMEOUT" make installcheck PG_CONFIG="$PG_CONFIG" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	# one line per test: "test NAME ... ok", or "     NAME ... ok" inside a parallel group
	p=$(grep -cE '^(test | +)[^ ]+ +\.\.\. (ok|failed \(ignored\))' "$out")
	f=$(grep -cE '^(test | +)[^ ]+ +\.\.\. FAILED' "$out")
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "make installcheck failed (exit status $rc) without a failed test: counted as one failure"
		f=1
	fi
	if [ -s regression.diffs ]; then
		echo "== regression.diffs =="
		head -n 5000 regression.diffs
		[ "$(wc -l <regression.diffs)" -le 5000 ] || echo "... (cut at 5000 lines; the whole file is $PWD/regression.diffs)"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	rm -f "$out"

	shopt -s nullglob
	for t in test/*.sh; do
		echo "== $t =="
		log=$(mktemp -t dpmatrix-test.XXXXXX)
		if [ -x "$t" ]; then
			timeout "$TIMEOUT" "./$t" </dev/null >"$log" 2>&1
		else
			timeout "$TIMEOUT" bash "$t" </dev/null >"$log" 2>&1
		fi
		rc=$?
		counts=$(grep -oE '^([A-Za-z]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1 | grep -oE '[0-9]+ (passed|failed)')
		if [ -n "$counts" ]; then
			p=$(echo "$counts" | awk '/passed/ {print $1}')
			f=$(echo "$counts" | awk '/failed/ {print $1}')
			if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
		elif [ "$rc" = 0 ]; then
			p=1 f=0
		else
			p=0 f=1
		fi
		if [ "$rc" = 0 ] && [ "$f" = 0 ]; then
			echo "$t ... ok ($p passed)"
		else
			echo "$t ... FAILED (exit status $rc; $p passed, $f failed); its output:"
			tail -n 200 "$log" | sed 's/^/    /'
		fi
		passed=$((passed + p))
		failed=$((failed + f))
		rm -f "$log"
	done

	echo "$passed $failed" >"$tally"
	[ "$failed" = 0 ]
}

if [ "${1:-}" = --in-cluster ]; then
	in_cluster "$2"
	exit
fi

if ! scripts/setup.sh; then
	echo "test: set-up failed, no test ran"
	echo "0 passed, 1 failed"
	exit 1
fi

tally=$(mktemp -t dpmatrix-tally.XXXXXX)
# -t: a private cluster under /tmp even as root, so parallel runs and existing clusters do not clash
pg_virtualenv -t -v "$PGVERSION" -c "--locale=C.UTF-8 --encoding=UTF8" \
	bash "$SELF" --in-cluster "$tally" </dev/null
if ! read -r passed failed <"$tally" 2>/dev/null || [ -z "${failed:-}" ]; then
	echo "test: the throw-away cluster did not run the tests"
	passed=0 failed=1
fi
rm -f "$tally"

if [ "$passed" = 0 ] && [ "$failed" = 0 ]; then
	echo "test: no test ran (no test/sql/*.sql and no test/*.sh?)"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
