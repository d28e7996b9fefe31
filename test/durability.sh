#!/usr/bin/env bash
# durability.sh -- a charge cannot be lost: not by a rollback, an error later in the statement, a
# cancelled or killed caller, nor a server crash right after the answer or in the middle of it.
# Runs inside scripts/test.sh's throw-away cluster (pg_virtualenv: libpq variables set, the
# cluster managed by pg_ctlcluster).
set -u
DB=dpm_durability
passed=0 failed=0

check() {	# check NAME VALUE: a pass when VALUE is "t"
	if [ "$2" = t ]; then
		passed=$((passed + 1)); echo "ok: $1"
	else
		failed=$((failed + 1)); echo "FAILED: $1 (got '$2')"
	fi
}
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" -c "$1"; }
spent() { q "SELECT epsilon_spent FROM dpm.budget('people')"; }
# wait_for SQL [SECONDS]: poll until SQL returns t
wait_for() {
	local i
	for ((i = 0; i < ${2:-30} * 10; i++)); do
		[ "$(q "$1" 2>/dev/null)" = t ] && return 0
		sleep 0.1
	done
	return 1
}
# the ledger and the releases agree charge by charge
consistent() {
	q "SELECT (SELECT sum(epsilon) FROM dpm.ledger) = (SELECT sum(epsilon) FROM dpm.releases)
	      AND NOT EXISTS (SELECT FROM dpm.ledger l LEFT JOIN dpm.releases r ON r.id = l.release_id
	                       WHERE r.id IS NULL OR r.epsilon <> l.epsilon)"
}
read -r CLUSTER_VERSION CLUSTER_NAME <<<"$(pg_lsclusters -h | awk 'NR == 1 {print $1, $2}')"
crash_and_restart() {
	pg_ctlcluster "$CLUSTER_VERSION" "$CLUSTER_NAME" stop -m immediate >/dev/null 2>&1
	pg_ctlcluster "$CLUSTER_VERSION" "$CLUSTER_NAME" start >/dev/null 2>&1
	for ((i = 0; i < 300; i++)); do
		pg_isready -q -d "$DB" && return 0
		sleep 0.1
	done
	return 1
}
# slow_answer APPNAME EPSILON: an answer whose worker waits 3 s after the charge, in the background
slow_answer() {
	PGOPTIONS="-c dpm.debug_release_delay=3000" PGAPPNAME=$1 \
		psql -X -q -At -d "$DB" -c "SELECT count(*) FROM dpm.answer('w', epsilon => $2)" \
		>"$tmp/$1.out" 2>&1 &
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dropdb --if-exists "$DB" >/dev/null 2>&1
createdb "$DB" || exit 1
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" >/dev/null <<'SQL' || exit 1
CREATE EXTENSION dpmatrix;
CREATE TABLE people AS SELECT g AS id, g % 10 AS d FROM generate_series(1, 1000) g;
SELECT dpm.register_source('people', epsilon => 100);
SELECT dpm.create_domain('digits', 'people', '[{"name": "d", "values": [0,1,2,3,4,5,6,7,8,9]}]');
SELECT dpm.create_workload('w', 'digits', 'Prefix(d)');
SQL

# a. BEGIN; answer; ROLLBACK: the charge stays, and the release replays the same numbers
answers=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" <<'SQL'
BEGIN;
SELECT string_agg(answer::text, ',' ORDER BY query) FROM dpm.answer('w', epsilon => 0.5);
ROLLBACK;
SQL
)
check "rollback: the charge stays" "$(q "SELECT epsilon_spent = 0.5 FROM dpm.budget('people')")"
rid=$(q "SELECT max(id) FROM dpm.releases")
replay=$(q "SELECT string_agg(answer::text, ',' ORDER BY query) FROM dpm.release($rid)")
check "rollback: dpm.release replays the answers the caller saw" "$([ -n "$answers" ] && [ "$answers" = "$replay" ] && echo t || echo f)"
check "rollback: replaying costs nothing" "$(q "SELECT epsilon_spent = 0.5 FROM dpm.budget('people')")"

# b. an error later in the same statement
q "SELECT answer / 0 FROM dpm.answer('w', epsilon => 0.25)" >/dev/null 2>&1
check "error later in the statement: the charge stays" "$(q "SELECT epsilon_spent = 0.75 FROM dpm.budget('people')")"

# c. a cancelled caller: the charge stays and the release completes without it
slow_answer dpm_cancel 0.5
bg=$!
wait_for "SELECT count(*) = 3 FROM dpm.releases" 30
q "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'dpm_cancel'" >/dev/null
wait "$bg"; rc=$?
check "cancel: the caller got an error" "$([ "$rc" != 0 ] && grep -q 'canceling statement' "$tmp/dpm_cancel.out" && echo t || echo f)"
check "cancel: the charge stays" "$(q "SELECT epsilon_spent = 1.25 FROM dpm.budget('people')")"
wait_for "SELECT status = 'released' FROM dpm.releases ORDER BY id DESC LIMIT 1" 20
rid=$(q "SELECT max(id) FROM dpm.releases")
check "cancel: the release completes and replays" "$(q "SELECT count(*) = 10 FROM dpm.release($rid)")"

# d. a killed caller
slow_answer dpm_kill 0.5
bg=$!
wait_for "SELECT count(*) = 4 FROM dpm.releases" 30
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'dpm_kill'" >/dev/null
wait "$bg"; rc=$?
check "kill: the caller's session ended" "$([ "$rc" != 0 ] && echo t || echo f)"
check "kill: the charge stays" "$(q "SELECT epsilon_spent = 1.75 FROM dpm.budget('people')")"
wait_for "SELECT status = 'released' FROM dpm.releases ORDER BY id DESC LIMIT 1" 20
rid=$(q "SELECT max(id) FROM dpm.releases")
check "kill: the release completes and replays" "$(q "SELECT count(*) = 10 FROM dpm.release($rid)")"

# e. a crash right after the answer, with asynchronous commit as the server default: the
# release forces synchronous commit for the charge, so it is on disk before anyone sees an answer
q "ALTER SYSTEM SET synchronous_commit = off" && q "SELECT pg_reload_conf()" >/dev/null
q "SELECT count(*) FROM dpm.answer('w', epsilon => 0.5)" >/dev/null
if crash_and_restart; then
	check "crash after the answer: the charge survives" "$(q "SELECT epsilon_spent = 2.25 FROM dpm.budget('people')")"
	check "crash after the answer: the release survives" "$(q "SELECT count(*) = 5 FROM dpm.releases WHERE status = 'released'")"
else
	check "crash after the answer: the server restarted" f
fi

# f. a crash in the middle of a release, after the charge and before the noise: the charge stays,
# with a release that never got answers
slow_answer dpm_crash 0.5
bg=$!
wait_for "SELECT count(*) = 6 FROM dpm.releases" 30
if crash_and_restart; then
	wait "$bg"
	check "crash mid-release: the charge survives" "$(q "SELECT epsilon_spent = 2.75 FROM dpm.budget('people')")"
	check "crash mid-release: the release is charged, without answers" \
		"$(q "SELECT status = 'charged' AND NOT EXISTS (SELECT FROM dpm.release_answers a WHERE a.release_id = r.id)
		        FROM dpm.releases r ORDER BY id DESC LIMIT 1")"
	check "crash mid-release: replaying it says it has no answers" \
		"$(q "SELECT * FROM dpm.release((SELECT max(id) FROM dpm.releases))" 2>&1 | grep -q 'has no answers' && echo t || echo f)"
else
	check "crash mid-release: the server restarted" f
fi
q "ALTER SYSTEM RESET synchronous_commit" && q "SELECT pg_reload_conf()" >/dev/null

check "ledger and releases agree, charge by charge" "$(consistent)"
dropdb "$DB"
echo "durability: $passed passed, $failed failed"
[ "$failed" = 0 ]
