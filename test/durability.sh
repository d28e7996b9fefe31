#!/usr/bin/env bash
# durability.sh -- a charge cannot be lost.  dpm.answer charges the budget in a background worker's
# own transaction, committed (synchronously) before any noise is drawn; so no matter what happens
# to the caller afterwards, the charge stays and matches a release:
#   a.  the caller's transaction rolls back (also: ROLLBACK TO SAVEPOINT): the charge stays, and
#       dpm.release(id) replays exactly the numbers the caller saw;
#   b.  an error later in the same statement (in the select list, in the WHERE clause);
#   c.  the caller is cancelled while the worker is between charge and noise (pg_cancel_backend,
#       and statement_timeout): the caller gets an error, the release completes on its own;
#   d.  the caller's backend is terminated (pg_terminate_backend): the same;
#   d2. the release worker itself is terminated between charge and noise: the charge stands, the
#       caller is told so, the release stays 'charged' without answers, a replay says it was
#       interrupted, and the next release on the source works and marks it 'interrupted';
#   e.  the server crashes right after the answer, with synchronous_commit = off as the server
#       default and the WAL writer frozen (so that only WAL flushed by its own transaction can
#       survive; an ordinary commit made just before the crash is checked to be lost): the charge,
#       the release and its answers survive; and the server crashes in the middle of a release
#       (after the charge, before the noise): the charge survives, the release stays 'charged'
#       without answers until the next release on the source marks it 'interrupted'.
# After every case: the source's ledger grew by exactly the charge (sum and row count), and every
# ledger row matches one release row (same source, same epsilon, delta and rho) and vice versa.
#
# Runs inside scripts/test.sh's throw-away cluster (pg_virtualenv: PGHOST, PGPORT, PGUSER, ... set;
# a superuser; the cluster managed by pg_ctlcluster).  The crashes use "pg_ctlcluster stop -m
# immediate" and "kill -9" of a backend (crash recovery by the postmaster), each falling back to
# the other when unusable; the script waits for the server to be back, and on exit (even on
# failure) restores the settings it changed, so the scripts after it find the cluster as before.
set -u
DB=dpm_durability
SRC=dur_people
WL=dur_w
CHARGE=0.25			# every answer here asks for epsilon 0.25
DELAY_MS=3000		# dpm.debug_release_delay for the in-flight cases
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"
t_start=$SECONDS

. "$(dirname "$0")/lib/check.sh"
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" -c "$1"; }

# --- the ledger of the source ------------------------------------------------------------------
SRC_ID=
ledger_state() {	# "SUM COUNT" of the source's ledger
	q "SELECT coalesce(sum(epsilon), 0) || ' ' || count(*) FROM dpm.ledger WHERE source_id = $SRC_ID"
}
max_release() { q "SELECT coalesce(max(id), 0) FROM dpm.releases"; }
# begin_case: remember the ledger and the last release id
asked=0
begin_case() {
	asked=$((asked + 1))
	read -r before_sum before_n <<<"$(ledger_state)"
	before_max=$(max_release)
}
# new_release NAME: the id of the one release made since begin_case (empty, and a failure, if not one)
new_release() {
	local ids
	ids=$(q "SELECT string_agg(id::text, ' ') FROM dpm.releases WHERE id > $before_max")
	check "$1: exactly one new release (ids: ${ids:-none})" "$(tf test "$(wc -w <<<"$ids")" = 1)"
	[ "$(wc -w <<<"$ids")" = 1 ] && rid=$ids || rid=
}
# end_case NAME: the ledger grew by exactly one charge of $CHARGE, and agrees with the releases
end_case() {
	local after_sum after_n
	read -r after_sum after_n <<<"$(ledger_state)"
	check "$1: the ledger grew by exactly one charge ($before_sum/$before_n rows -> $after_sum/$after_n rows)" \
		"$(q "SELECT $after_sum::numeric = $before_sum::numeric + $CHARGE AND $after_n = $before_n + 1")"
	check "$1: every charge matches a release row, and every release one charge" "$(consistent)"
}
consistent() {
	q "SELECT NOT EXISTS (SELECT FROM dpm.ledger l
	                       WHERE NOT EXISTS (SELECT FROM dpm.releases r
	                                          WHERE r.id = l.release_id AND r.source_id = l.source_id
	                                            AND r.epsilon IS NOT DISTINCT FROM l.epsilon AND r.delta = l.delta
	                                            AND r.rho IS NOT DISTINCT FROM l.rho))
	      AND NOT EXISTS (SELECT FROM dpm.releases r
	                       WHERE (SELECT count(*) FROM dpm.ledger l WHERE l.release_id = r.id) <> 1)
	      AND (SELECT sum(epsilon) FROM dpm.ledger) = (SELECT sum(epsilon) FROM dpm.releases)"
}
# replay ID: the stored answers of a release, one "query|label|answer|stderr" line each
replay() { q "SELECT query, label, answer, stderr FROM dpm.release($1) ORDER BY query"; }
# released_ok NAME: the release $rid reaches status 'released' (within 15 s) and replays its M answers
released_ok() {
	check "$1: the release reaches status 'released' without its caller" \
		"$(tf wait_for "SELECT status = 'released' FROM dpm.releases WHERE id = $rid" 15)"
	check "$1: dpm.release($rid) replays its $M answers" \
		"$(q "SELECT count(*) = $M AND bool_and(answer IS NOT NULL AND stderr > 0) FROM dpm.release($rid)" 2>&1)"
}

# interrupted NAME ID: release ID, left 'charged' by a worker that stopped, replays as interrupted
# (charging nothing); the next answer on the source returns its M rows, is charged once, and marks
# ID 'interrupted' with its charge kept
interrupted() {
	local id=$2
	check "$1: replaying it says it was interrupted (its worker holds it no more)" \
		"$(tf grep -q "It was interrupted after it was charged" <<<"$(q "SELECT * FROM dpm.release($id)" 2>&1)")"
	begin_case
	check "$1: the next answer gets a worker and returns its $M rows" \
		"$(q "SELECT count(*) = $M FROM dpm.answer('$WL', epsilon => $CHARGE)")"
	new_release "$1: the next answer"
	end_case "$1: the next answer"
	check "$1: the next answer on the source marked the release 'interrupted', its charge kept" \
		"$(q "SELECT r.status = 'interrupted' AND l.epsilon = $CHARGE
		        FROM dpm.releases r JOIN dpm.ledger l ON l.release_id = r.id WHERE r.id = $id")"
}

# slow_answer NAME [PGOPTIONS...]: in the background, an answer whose worker waits DELAY_MS between
# the charge and the noise; its output in $tmp/NAME.out, its exit status in $tmp/NAME.rc
slow_answer() {
	local name=$1; shift
	( PGOPTIONS="$PGOPTIONS -c dpm.debug_release_delay=$DELAY_MS $*" PGAPPNAME=$name \
		timeout 120 psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" \
		-c "SELECT count(*) FROM dpm.answer('$WL', epsilon => $CHARGE)" >"$tmp/$name.out" 2>&1
	  echo $? >"$tmp/$name.rc" ) &
	bg=$!
}
# wait_charged NAME: wait (30 s at most) until the background answer's release is charged; sets rid
wait_charged() {
	rid=
	if wait_for "SELECT EXISTS (SELECT FROM dpm.releases WHERE id > $before_max)" 30; then
		rid=$(q "SELECT min(id) FROM dpm.releases WHERE id > $before_max")
	fi
	check "$1: the release was charged while the caller waited" "$(tf test -n "$rid")"
	[ -n "$rid" ] || rid=0
}

# --- crashing the server -----------------------------------------------------------------------
# the cluster of this server, for pg_ctlcluster
read -r CL_VERSION CL_NAME <<<"$(pg_lsclusters -h 2>/dev/null | awk -v port="${PGPORT:-5432}" '$3 == port {print $1, $2; exit}')"
ctl_usable() { [ -n "$CL_NAME" ] && pg_ctlcluster "$CL_VERSION" "$CL_NAME" status >/dev/null 2>&1; }
checkpointer() { q "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'" 2>/dev/null; }
# wait_restarted OLD_CHECKPOINTER_PID: the server accepts connections again, with a new checkpointer
# (so it did restart), within 60 s
wait_restarted() {
	local i c
	for ((i = 0; i < 600; i++)); do
		if pg_isready -q -d "$DB" 2>/dev/null; then
			c=$(checkpointer)
			[ -n "$c" ] && [ "$c" != "$1" ] && return 0
		fi
		sleep 0.1
	done
	return 1
}
crash_immediate() {	# an immediate shutdown (no checkpoint, crash recovery at start), then start
	ctl_usable || return 1
	pg_ctlcluster "$CL_VERSION" "$CL_NAME" stop -m immediate >/dev/null || return 1
	pg_ctlcluster "$CL_VERSION" "$CL_NAME" start >/dev/null || pg_ctlcluster "$CL_VERSION" "$CL_NAME" start >/dev/null
}
crash_kill9() {	# kill -9 of a backend (PID, or a session started here): the postmaster resets all
	local pid=${1:-} victim=
	[ "$(q "SHOW restart_after_crash")" = on ] || return 1
	if [ -z "$pid" ]; then
		PGAPPNAME=dpm_dur_victim psql -X -q -d "$DB" -c "SELECT pg_sleep(120)" >/dev/null 2>&1 &
		victim=$!
		wait_for "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE application_name = 'dpm_dur_victim')" 10
		pid=$(q "SELECT pid FROM pg_stat_activity WHERE application_name = 'dpm_dur_victim'")
	fi
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	local rc=$?
	[ -z "$victim" ] || wait "$victim"
	return $rc
}
# crash METHOD [PID]: crash the server by METHOD (immediate or kill9; the other one if it cannot be
# used) and wait until it is back; prints the method used
crash() {
	local old method=$1 used=
	old=$(checkpointer)
	case $method in
	immediate) if crash_immediate; then used="immediate stop"; elif crash_kill9 "${2:-}"; then used="kill -9"; fi ;;
	kill9) if crash_kill9 "${2:-}"; then used="kill -9"; elif crash_immediate; then used="immediate stop"; fi ;;
	esac
	crashed_by=${used:-nothing}
	[ -n "$used" ] && wait_restarted "$old"
}

# settings changed for the crash cases, restored on exit whatever happens
restore() {
	[ -z "${WW:-}" ] || kill -CONT "$WW" 2>/dev/null
	if ! pg_isready -q -d postgres 2>/dev/null; then
		ctl_usable || { [ -n "$CL_NAME" ] && pg_ctlcluster "$CL_VERSION" "$CL_NAME" start >/dev/null 2>&1; }
		for ((i = 0; i < 300; i++)); do pg_isready -q -d postgres && break; sleep 0.1; done
	fi
	psql -X -q -d postgres -c "ALTER SYSTEM RESET synchronous_commit" -c "SELECT pg_reload_conf()" >/dev/null 2>&1
	dropdb --if-exists "$DB" >/dev/null 2>&1
	[ -z "${tmp:-}" ] || rm -rf "$tmp"
}
tmp=$(mktemp -d)
trap restore EXIT

# --- set-up --------------------------------------------------------------------------------------
dropdb --if-exists "$DB" >/dev/null 2>&1
createdb "$DB" || exit 1
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" >/dev/null <<SQL || exit 1
CREATE EXTENSION dpmatrix;
CREATE TABLE $SRC AS SELECT g AS id, g % 5 AS d FROM generate_series(1, 1000) g;
SELECT dpm.register_source('$SRC', epsilon => 100);
SELECT dpm.create_domain('dur_d', '$SRC', '[{"name": "d", "values": [0, 1, 2, 3, 4]}]');
SELECT dpm.create_workload('$WL', 'dur_d', 'Prefix(d)');
-- an ordinary table, written with the server's default commit mode (case e)
CREATE TABLE dur_control (id int);
SQL
SRC_ID=$(q "SELECT id FROM dpm.sources WHERE relation = '$SRC'::regclass")
M=$(q "SELECT m FROM dpm.workloads WHERE name = '$WL'")
echo "set-up: source $SRC (id $SRC_ID, budget epsilon 100), workload $WL ($M queries), charge $CHARGE per answer"

# --- a. rollback ---------------------------------------------------------------------------------
begin_case
answers=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" <<SQL
BEGIN;
SELECT query, label, answer, stderr FROM dpm.answer('$WL', epsilon => $CHARGE) ORDER BY query;
ROLLBACK;
SQL
)
check "a. rollback: the answer returned $M rows" "$(tf test "$(grep -c . <<<"$answers")" = "$M")"
new_release "a. rollback"
end_case "a. rollback"
if [ -n "$rid" ]; then
	check "a. rollback: the release is 'released'" "$(q "SELECT status = 'released' FROM dpm.releases WHERE id = $rid")"
	check "a. rollback: dpm.release($rid) replays exactly the numbers the caller saw" \
		"$(tf test -n "$answers" -a "$answers" = "$(replay "$rid")")"
	read -r s n <<<"$(ledger_state)"
	replay "$rid" >/dev/null
	check "a. rollback: replaying costs nothing" "$(q "SELECT ('$s $n') = '$(ledger_state)'")"
fi

begin_case
answers=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" <<SQL
BEGIN;
SAVEPOINT s;
SELECT query, label, answer, stderr FROM dpm.answer('$WL', epsilon => $CHARGE) ORDER BY query;
ROLLBACK TO SAVEPOINT s;
COMMIT;
SQL
)
new_release "a. rollback to savepoint"
end_case "a. rollback to savepoint"
[ -z "$rid" ] || check "a. rollback to savepoint: dpm.release($rid) replays the numbers the caller saw" \
	"$(tf test -n "$answers" -a "$answers" = "$(replay "$rid")")"

# --- b. an error later in the same statement --------------------------------------------------
begin_case
out=$(q "SELECT a.answer / 0 FROM dpm.answer('$WL', epsilon => $CHARGE) a" 2>&1)
check "b. error in the select list: the statement failed (division by zero)" "$(tf grep -q 'division by zero' <<<"$out")"
new_release "b. error in the select list"
end_case "b. error in the select list"
[ -z "$rid" ] || check "b. error in the select list: the release is replayable" \
	"$(q "SELECT count(*) = $M FROM dpm.release($rid)")"

begin_case
out=$(q "SELECT * FROM dpm.answer('$WL', epsilon => $CHARGE) a WHERE 1 / (a.query - a.query) = 1" 2>&1)
check "b. error in the WHERE clause: the statement failed (division by zero)" "$(tf grep -q 'division by zero' <<<"$out")"
new_release "b. error in the WHERE clause"
end_case "b. error in the WHERE clause"
[ -z "$rid" ] || check "b. error in the WHERE clause: the release is replayable" \
	"$(q "SELECT count(*) = $M FROM dpm.release($rid)")"

# --- c. a cancelled caller -----------------------------------------------------------------------
begin_case
slow_answer dpm_dur_cancel
wait_charged "c. pg_cancel_backend"
check "c. pg_cancel_backend: the caller was cancelled while its release was in flight" \
	"$(q "SELECT bool_and(pg_cancel_backend(a.pid)) AND count(*) = 1
	           AND (SELECT status FROM dpm.releases WHERE id = $rid) = 'charged'
	      FROM pg_stat_activity a WHERE a.application_name = 'dpm_dur_cancel'")"
wait "$bg"
check "c. pg_cancel_backend: the caller got an error (canceling statement due to user request)" \
	"$(tf test "$(cat "$tmp/dpm_dur_cancel.rc")" != 0 -a -n "$(grep 'canceling statement due to user request' "$tmp/dpm_dur_cancel.out")")"
end_case "c. pg_cancel_backend"
released_ok "c. pg_cancel_backend"

begin_case
slow_answer dpm_dur_timeout -c statement_timeout=1500ms
wait "$bg"
check "c. statement_timeout: the caller got an error (canceling statement due to statement timeout)" \
	"$(tf test "$(cat "$tmp/dpm_dur_timeout.rc")" != 0 -a -n "$(grep 'canceling statement due to statement timeout' "$tmp/dpm_dur_timeout.out")")"
wait_charged "c. statement_timeout"
end_case "c. statement_timeout"
released_ok "c. statement_timeout"

# --- d. a terminated caller ---------------------------------------------------------------------
begin_case
slow_answer dpm_dur_kill
wait_charged "d. pg_terminate_backend"
check "d. pg_terminate_backend: the caller's backend was terminated while its release was in flight" \
	"$(q "SELECT bool_and(pg_terminate_backend(a.pid)) AND count(*) = 1
	           AND (SELECT status FROM dpm.releases WHERE id = $rid) = 'charged'
	      FROM pg_stat_activity a WHERE a.application_name = 'dpm_dur_kill'")"
wait "$bg"
check "d. pg_terminate_backend: the caller's session ended with an error" \
	"$(tf test "$(cat "$tmp/dpm_dur_kill.rc")" != 0 -a -n "$(grep 'terminating connection due to administrator command' "$tmp/dpm_dur_kill.out")")"
end_case "d. pg_terminate_backend"
released_ok "d. pg_terminate_backend"

# --- d2. a terminated release worker -------------------------------------------------------------
# The worker (resident or not) is terminated between the charge and the noise: the charge stands,
# the caller is told so, and the next release gets a worker again.
begin_case
slow_answer dpm_dur_worker
wait_charged "d2. worker terminated"
check "d2. worker terminated: the release worker was terminated while the caller waited" \
	"$(q "SELECT bool_and(pg_terminate_backend(a.pid)) AND count(*) >= 1
	      FROM pg_stat_activity a WHERE a.backend_type = 'dpmatrix release' AND a.datname = current_database()")"
wait "$bg"
check "d2. worker terminated: the caller was told the charge stands" \
	"$(tf grep -q "the worker computing release $rid stopped before it finished" "$tmp/dpm_dur_worker.out")"
end_case "d2. worker terminated"
check "d2. worker terminated: the release stays 'charged', without answers" \
	"$(q "SELECT status = 'charged' AND NOT EXISTS (SELECT FROM dpm.release_answers a WHERE a.release_id = r.id)
	        FROM dpm.releases r WHERE id = $rid")"
interrupted "d2. worker terminated" "$rid"

# --- e. server crashes, with asynchronous commit as the server default ---------------------------
# A crash of the server processes (not of the machine) keeps whatever WAL was written to the
# kernel, and the WAL writer writes an asynchronous commit out within milliseconds.  So before each
# crash the WAL writer is frozen (SIGSTOP; the crash kills it): then only a commit that flushed its
# own WAL survives.  The table dur_control, written with the server's default (asynchronous)
# commit just before the crash, shows that the crash does lose such a commit.
q "ALTER SYSTEM SET synchronous_commit = off" && q "SELECT pg_reload_conf()" >/dev/null
check "e. set-up: synchronous_commit = off is the server default" \
	"$(tf wait_for "SELECT current_setting('synchronous_commit') = 'off'" 10)"
WW=
freeze_walwriter() {
	WW=$(q "SELECT pid FROM pg_stat_activity WHERE backend_type = 'walwriter'")
	if [ -n "$WW" ] && kill -STOP "$WW" 2>/dev/null; then
		frozen=t
	else
		frozen=f WW=
		echo "   (cannot freeze the WAL writer: the crash may keep unflushed commits)"
	fi
}
control_lost() {	# NAME: the asynchronous commit into dur_control was lost in the crash
	if [ "$frozen" = t ]; then
		check "$1: the crash lost an ordinary asynchronous commit made just before it (so the test can tell)" \
			"$(q "SELECT count(*) = 0 FROM dur_control")"
	fi
	q "TRUNCATE dur_control"
}

# e1. a crash right after the answer
begin_case
freeze_walwriter
answers=$(q "SELECT query, label, answer, stderr FROM dpm.answer('$WL', epsilon => $CHARGE) ORDER BY query")
q "INSERT INTO dur_control VALUES (1)"
if crash immediate; then
	check "e1. crash after the answer ($crashed_by): the server is back" t
	control_lost "e1. crash after the answer"
	new_release "e1. crash after the answer"
	end_case "e1. crash after the answer"
	if [ -n "$rid" ]; then
		check "e1. crash after the answer: the release is still 'released'" \
			"$(q "SELECT status = 'released' FROM dpm.releases WHERE id = $rid")"
		check "e1. crash after the answer: dpm.release($rid) replays the numbers the caller saw" \
			"$(tf test "$(grep -c . <<<"$answers")" = "$M" -a "$answers" = "$(replay "$rid")")"
	fi
else
	check "e1. crash after the answer ($crashed_by): the server is back" f
fi

# e2. a crash in the middle of a release: after the charge, before the noise.  The postmaster
# resets everything, the worker included; the charge stays, the release never gets answers.
begin_case
freeze_walwriter
slow_answer dpm_dur_crash
wait_charged "e2. crash mid-release"
caller=$(q "SELECT pid FROM pg_stat_activity WHERE application_name = 'dpm_dur_crash'")
q "INSERT INTO dur_control VALUES (2)"
if crash kill9 "$caller"; then
	check "e2. crash mid-release ($crashed_by): the server is back" t
	control_lost "e2. crash mid-release"
	wait "$bg"
	check "e2. crash mid-release: the caller got an error" "$(tf test "$(cat "$tmp/dpm_dur_crash.rc")" != 0)"
	new_release "e2. crash mid-release"
	end_case "e2. crash mid-release"
	if [ -n "$rid" ]; then
		check "e2. crash mid-release: the release is still 'charged', without answers" \
			"$(q "SELECT status = 'charged' AND NOT EXISTS (SELECT FROM dpm.release_answers a WHERE a.release_id = r.id)
			        FROM dpm.releases r WHERE id = $rid")"
		interrupted "e2. crash mid-release" "$rid"
	fi
else
	check "e2. crash mid-release ($crashed_by): the server is back" f
	wait "$bg"
fi

q "ALTER SYSTEM RESET synchronous_commit" && q "SELECT pg_reload_conf()" >/dev/null
check "e. clean-up: synchronous_commit is back to on" \
	"$(tf wait_for "SELECT current_setting('synchronous_commit') = 'on'" 10)"

# --- the whole ledger ----------------------------------------------------------------------------
check "all: the ledger has one charge per answer asked for ($asked), and agrees with the releases" \
	"$(q "SELECT count(*) = $asked AND sum(epsilon) = $asked * $CHARGE FROM dpm.ledger WHERE source_id = $SRC_ID")"
check "all: dpm.budget agrees with the ledger" \
	"$(q "SELECT epsilon_spent = $asked * $CHARGE AND epsilon_remaining = 100 - $asked * $CHARGE AND releases = $asked FROM dpm.budget('$SRC')")"

dropdb "$DB" || check "drop the database" f
echo "durability: $((SECONDS - t_start)) s"
echo "durability: $passed passed, $failed failed"
[ "$failed" = 0 ]
