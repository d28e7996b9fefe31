#!/usr/bin/env bash
# test.sh -- the whole test suite, on each PostgreSQL version of DPM_PG_VERSION (default "15 18":
# the versions dpmatrix supports and tests), one after the other: scripts/setup.sh (packages,
# build, install for that version), then on one throw-away cluster of it (pg_virtualenv) the
# pg_regress suite (test/sql/*.sql against test/expected/*.out, or an alternative NAME_1.out where
# PostgreSQL's own messages differ), the isolation specs (the Makefile's ISOLATION, if any) and
# every extra test script test/*.sh; then the TAP tests (test/t/*.pl, PostgreSQL::Test::Cluster),
# which make clusters of their own.  Prints the regression diffs and the logs of failed TAP tests,
# a line "PostgreSQL V: N passed, N failed" per version, and ends with one line "N passed, N
# failed" counting every version (a pg_regress or isolation test counts once, a TAP test once per
# assertion); exits non-zero if anything failed or if no test ran.
#
# Adding an extra test: write test/NAME.sh (executable, or it is run with bash). It runs from the
# top directory with the libpq variables (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE) and
# PG_CONFIG set for the cluster, where dpmatrix is installed but no database has the extension
# yet. Exit status 0 is a pass. A script that makes several checks may print its own
# "N passed, N failed" line; its last such line then counts instead of one pass or failure.
# A test that must crash or restart a server, change its settings or use a second cluster is a
# TAP test instead: test/t/NNN_NAME.pl, with the helpers of test/perl/DpmatrixTest.pm.
# Each step is stopped after DPM_TEST_TIMEOUT seconds (default 1200).
# As root, pg_virtualenv runs the server as the postgres user, which may not be able to read this
# tree (a clone under /root): tests must not make the server read files from it (COPY FROM a
# file, pg_read_file); psql reads the test files itself, so pg_regress's own files are fine.
# initdb refuses to run as root, so as root the TAP tests run as postgres, in a copy of the
# Makefile and test/ in a temporary directory.
set -uo pipefail

VERSIONS=${DPM_PG_VERSION:-15 18}
PGVERSION=${DPM_PG_VERSION:-15}		# inside a cluster: the one version it runs
PG_CONFIG=/usr/lib/postgresql/$PGVERSION/bin/pg_config
TIMEOUT=${DPM_TEST_TIMEOUT:-1200}
SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"

cd "$(dirname "$SELF")/.." || exit 1

# count_regress OUTPUT: "passed failed" from pg_regress or pg_isolation_regress output, one line
# per test: "test NAME ... ok", or "     NAME ... ok" inside a parallel group (15), or in TAP form
# from 16 on: "ok 3         - NAME", "not ok 3     - NAME" ("+" inside a parallel group)
count_regress()
{
	echo "$(grep -cE '^((test | +)[^ ]+ +\.\.\. (ok|failed \(ignored\))|ok [0-9]+ +[-+] )' "$1")" \
		"$(grep -cE '^((test | +)[^ ]+ +\.\.\. FAILED|not ok [0-9]+ +[-+] )' "$1")"
}

# installcheck NAME DIFFS MAKE_ARGS...: one suite of make installcheck (the others switched off);
# adds to passed and failed, prints DIFFS on failure
installcheck()
{
	local name=$1 diffs=$2 out rc p f
	shift 2
	out=$(mktemp -t dpmatrix-installcheck.XXXXXX)
	rm -f "$diffs"
	timeout "$TIMEOUT" make installcheck PG_CONFIG="$PG_CONFIG" "$@" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	read -r p f <<<"$(count_regress "$out")"
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "$name: make installcheck failed (exit status $rc) without a failed test: counted as one failure"
		f=1
	fi
	if [ -s "$diffs" ]; then
		echo "== $diffs =="
		head -n 5000 "$diffs"
		[ "$(wc -l <"$diffs")" -le 5000 ] || echo "... (cut at 5000 lines; the whole file is $PWD/$diffs)"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	rm -f "$out"
}

# Runs inside pg_virtualenv; writes "passed failed" to the file named by $1.
in_cluster()
{
	local tally=$1 passed=0 failed=0 rc log t p f counts

	echo "== pg_regress: make installcheck (REGRESS) =="
	rm -f regression.out
	installcheck pg_regress regression.diffs ISOLATION= TAP_TESTS=
	echo "== isolation: make installcheck (ISOLATION) =="
	installcheck isolation output_iso/regression.diffs REGRESS= TAP_TESTS=

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
	# What explains a failure is printed above: the diffs, each script's output.  A non-zero exit
	# would make pg_virtualenv add its server log's last 100 lines, errors the suite raises on
	# purpose; from that log only what a crash leaves is worth reading.  The tally carries the result.
	if [ "$failed" != 0 ]; then
		crash_lines
	fi
	return 0
}

# The server log lines a crash or a failed assertion leaves, if any.
crash_lines()
{
	local dir lines

	dir=${PG_CLUSTER_CONF_ROOT:+${PG_CLUSTER_CONF_ROOT%/*}/log}
	lines=$(grep -hE 'PANIC|TRAP:|terminated by signal|was terminated by' "${dir:-/var/log/postgresql}"/*.log 2>/dev/null |
		head -n 40)
	if [ -n "$lines" ]; then
		echo "== what the server log says of a crash =="
		echo "$lines" | sed 's/^/    /'
	fi
}

if [ "${1:-}" = --in-cluster ]; then
	in_cluster "$2"
	exit
fi
# for test/test_script.sh: what a failed run shows of a server log ($PG_CLUSTER_CONF_ROOT's)
if [ "${1:-}" = --crash-lines ]; then
	crash_lines
	exit
fi

# tap: the TAP tests (make installcheck's prove part); adds to passed and failed.  Each assertion
# counts, read from the test's log (tmp_check/log/regress_log_NAME, where every "ok N" and
# "not ok N" line is copied, after a timestamp); a test file that failed without a failed assertion
# (it died, ran a number of tests other than its plan, or exited non-zero) counts one failure.
tap()
{
	local dir out rc t name log p f tp=0 tf=0 run=()
	if [ "$(id -u)" = 0 ]; then
		dir=$(mktemp -d -t dpmatrix-tap.XXXXXX)
		cp -r Makefile test "$dir"/
		chown -R postgres: "$dir"
		run=(runuser -u postgres --)
	else
		dir=$PWD
	fi
	out=$(mktemp -t dpmatrix-prove.XXXXXX)
	(cd "$dir" && timeout "$TIMEOUT" "${run[@]}" make installcheck PG_CONFIG="$PG_CONFIG" REGRESS= ISOLATION= \
		PROVE_FLAGS=--timer </dev/null) 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	shopt -s nullglob
	for t in test/t/*.pl; do
		name=$(basename "$t" .pl)
		log=$dir/tmp_check/log/regress_log_$name
		if [ -f "$log" ]; then
			p=$(grep -cE '^(\[[0-9:.]+\]\([0-9.]+s\) )?ok [0-9]+' "$log")
			f=$(grep -cE '^(\[[0-9:.]+\]\([0-9.]+s\) )?not ok [0-9]+' "$log")
			# prove's summary names each failed file: "test/t/NAME.pl   (Wstat: ..."
			if [ "$f" = 0 ] && grep -qE "^$t +\(Wstat: " "$out"; then f=1; fi
		else
			p=0 f=1
		fi
		if [ "$f" = 0 ]; then
			echo "$t ... ok ($p passed)"
		else
			if [ -f "$log" ]; then
				echo "$t ... FAILED ($p passed, $f failed); the end of its log $log:"
				tail -n 300 "$log" | sed 's/^/    /'
			else
				echo "$t ... FAILED: it did not start (no $log; prove's output above says why)"
			fi
			for log in "$dir/tmp_check/log/${name}_"*.log; do
				echo "  the end of the server log $log:"
				tail -n 40 "$log" | sed 's/^/    /'
			done
		fi
		tp=$((tp + p))
		tf=$((tf + f))
	done
	if [ "$rc" != 0 ] && [ "$tf" = 0 ]; then
		echo "TAP: make installcheck failed (exit status $rc) without a failed test: counted as one failure"
		tf=1
	fi
	if [ "$dir" != "$PWD" ]; then
		if [ "$tf" = 0 ]; then rm -rf "$dir"; else echo "TAP: the tests' files are kept in $dir"; fi
	fi
	rm -f "$out"
	passed=$((passed + tp))
	failed=$((failed + tf))
}

# run_version V: set-up, the cluster's tests and the TAP tests on PostgreSQL V; adds to passed
# and failed, and that version's line to summary
run_version()
{
	local v=$1 tally vp vf p0=$passed f0=$failed t0=$SECONDS
	export DPM_PG_VERSION=$v DPM_WERROR=1
	PGVERSION=$v
	PG_CONFIG=/usr/lib/postgresql/$v/bin/pg_config
	echo "==== PostgreSQL $v ===="
	if ! scripts/setup.sh; then
		echo "test: set-up for PostgreSQL $v failed, no test ran on it"
		failed=$((failed + 1))
		summary+=("PostgreSQL $v: 0 passed, 1 failed (set-up)")
		return
	fi
	# Citus, for test/t/006_scale_out.pl: a test-time dependency no package archive here carries,
	# built for PostgreSQL 15 from the workplace's vendor directory (next to this tree, or
	# DPM_VENDOR); never linked or shipped.  Without it (and on other versions) that test is skipped.
	if [ "$v" = 15 ]; then
		for vendor in "${DPM_VENDOR:-}" ../shared/vendor /work/shared/vendor; do
			if [ -n "$vendor" ] && [ -f "$vendor/install-citus.sh" ]; then
				bash "$vendor/install-citus.sh" "$PG_CONFIG" || echo "test: Citus did not install; test/t/006_scale_out.pl is skipped"
				break
			fi
		done
	fi

	cluster_env "$PG_CONFIG"
	tally=$(mktemp -t dpmatrix-tally.XXXXXX)
	# -t: a private cluster under /tmp even as root, so parallel runs and existing clusters do not clash;
	# dpmatrix loaded in every session, as the README recommends: its parse analysis hook (plain SQL
	# over a source, src/query/plain.c) sees every statement of every suite
	pg_virtualenv -t -v "$v" -o session_preload_libraries=dpmatrix -c "--locale=C.UTF-8 --encoding=UTF8 $CLUSTER_ENV" \
		bash "$SELF" --in-cluster "$tally" </dev/null
	if ! read -r vp vf <"$tally" 2>/dev/null || [ -z "${vf:-}" ]; then
		echo "test: the throw-away cluster of PostgreSQL $v did not run the tests"
		vp=0 vf=1
	fi
	rm -f "$tally"
	passed=$((passed + vp))
	failed=$((failed + vf))

	echo "== TAP: make installcheck (test/t/*.pl) on PostgreSQL $v =="
	tap
	summary+=("PostgreSQL $v: $((passed - p0)) passed, $((failed - f0)) failed in $(((SECONDS - t0) / 60)) min $(((SECONDS - t0) % 60)) s")
}

. "$(dirname "$SELF")/cluster_env.sh"
passed=0 failed=0 summary=()
for v in $VERSIONS; do
	run_version "$v"
done
printf '%s\n' "${summary[@]}"

if [ "$passed" = 0 ] && [ "$failed" = 0 ]; then
	echo "test: no test ran (no test/sql/*.sql, test/t/*.pl or test/*.sh?)"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
