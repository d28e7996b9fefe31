#!/usr/bin/env bash
# queue.sh -- releases wait in a queue served by a bounded pool of release workers, and nothing is
# charged for a call that stops before its charge (src/release/queue.h).  Races are pinned with
# locks, never with sleeps: a "holder" session keeps the source's row locked (as a charge does)
# until the test lets it go, so a worker taking a release blocks before the charge.
#   1. a strategy is optimized in the caller's own backend: cancelled while it optimizes, the call
#      charges nothing and no release worker was ever involved;
#   2. a caller cancelled while its release is queued, or taken by a worker that has not charged
#      it yet, is told that nothing was charged, and nothing is;
#   3. at most dpm.release_workers workers serve a database, whatever the number of callers, and
#      every queued release completes;
#   4. a role may have at most dpm.max_releases_per_role releases in flight: one more is refused at
#      once, before anything is charged;
#   5. a caller cancelled after the charge is told which release was charged, and it completes.
set -u
DB=dpm_queue
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"
t_start=$SECONDS
tmp=$(mktemp -d -t dpmatrix-queue.XXXXXX)

. "$(dirname "$0")/lib/check.sh"
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" -c "$1"; }
setting() {	# setting NAME VALUE: server-wide (ALTER SYSTEM), reloaded; VALUE in base units; none: reset
	local p=(psql -X -q -At -d postgres -c "LOAD 'dpmatrix'")
	if [ -n "${2:-}" ]; then "${p[@]}" -c "ALTER SYSTEM SET $1 = '$2'"; else "${p[@]}" -c "ALTER SYSTEM RESET $1"; fi
	"${p[@]}" -c "SELECT pg_reload_conf()" >/dev/null
	# the postmaster reloads asynchronously: wait until a new session has the value
	for ((i = 0; i < 100; i++)); do
		[ "$("${p[@]}" -c "SELECT setting = coalesce(nullif('${2:-}', ''), boot_val) FROM pg_settings WHERE name = '$1'")" = t ] && break
		sleep 0.1
	done
}
cleanup() {
	q "DELETE FROM q_go" 2>/dev/null
	setting dpm.release_workers
	setting dpm.max_releases_per_role
	wait
	rm -rf "$tmp"
}
trap cleanup EXIT

# hold_source: another session locks the source's row until a row appears in q_go
hold_source() {
	q "DELETE FROM q_go"
	PGAPPNAME=q_holder psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" >/dev/null 2>&1 <<SQL &
BEGIN ISOLATION LEVEL READ COMMITTED;
SELECT FROM dpm.sources WHERE relation = 'q_people'::regclass FOR UPDATE;
DO \$\$ BEGIN LOOP EXIT WHEN EXISTS (SELECT FROM q_go); PERFORM pg_sleep(0.05); END LOOP; END \$\$;
COMMIT;
SQL
	holder=$!
	wait_for "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE application_name = 'q_holder' AND query LIKE 'DO %')" 30
}
release_source() { q "INSERT INTO q_go VALUES (1)"; wait "$holder"; }
# answer NAME ROLE [ARGS]: in the background, as ROLE; output in $tmp/NAME.out, status in $tmp/NAME.rc
answer() {
	( PGAPPNAME=$1 psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" \
		-c "SET ROLE $2" -c "SELECT count(*) FROM dpm.answer(${4:-'q_w'}, epsilon => 0.01${3:-})" \
		>"$tmp/$1.out" 2>&1
	  echo $? >"$tmp/$1.rc" ) &
}
pid_of() { q "SELECT pid FROM pg_stat_activity WHERE application_name = '$1'"; }
# waiting NAME: the caller waits for its release (on its latch)
waiting() { wait_for "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE application_name = '$1' AND wait_event = 'Extension')" 30; }
workers_locked() {	# a release worker waits for the source's row lock
	wait_for "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'dpmatrix release' AND datname = '$DB' AND wait_event_type = 'Lock')" 30
}
workers() { q "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'dpmatrix release' AND datname = '$DB'"; }
charges() { q "SELECT count(*) FROM dpm.ledger l JOIN dpm.sources s ON s.id = l.source_id WHERE s.relation = 'q_people'::regclass"; }
done_with() { wait_for "SELECT NOT EXISTS (SELECT FROM pg_stat_activity WHERE application_name = '$1')" 30; }

dropdb --if-exists "$DB" >/dev/null 2>&1
createdb "$DB" || { echo "0 passed, 1 failed"; exit 1; }
q "DROP ROLE IF EXISTS q_alice" 2>/dev/null
q "DROP ROLE IF EXISTS q_bob" 2>/dev/null
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" >/dev/null <<'SQL' || { echo "0 passed, 1 failed"; exit 1; }
CREATE EXTENSION dpmatrix;
CREATE ROLE q_alice IN ROLE dpm_analyst;
CREATE ROLE q_bob IN ROLE dpm_analyst;
CREATE TABLE q_go (x int);
GRANT SELECT ON q_go TO PUBLIC;
CREATE TABLE q_people AS SELECT i AS id, i % 1024 AS v FROM generate_series(1, 20000) i;
SELECT dpm.register_source('q_people', epsilon => 1000);
SELECT dpm.create_domain('q_d', 'q_people', '[{"name": "v", "bins": {"min": 0, "max": 4, "width": 1}}]');
SELECT dpm.create_domain('q_big', 'q_people', '[{"name": "v", "bins": {"min": 0, "max": 1024, "width": 1}}]');
SET ROLE q_alice;
SELECT dpm.create_workload('q_w', 'q_d', 'Prefix(v)');
SELECT dpm.optimize('q_w', 'identity');
SELECT dpm.create_workload('q_bigw', 'q_big', 'Prefix(v)');
SQL

# --- 1. optimization runs in the caller --------------------------------------------------------
# gaussian_optimal over 1024 cells takes seconds.  The source is held, so even an optimization
# that ended before the cancel could not be charged.
setting dpm.release_worker_idle 0
hold_source
answer opt q_alice ", delta => 0, method => 'gaussian_optimal'" "'q_bigw'"
wait_for "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE application_name = 'opt' AND state = 'active' AND wait_event IS NULL)" 30
busy=$(q "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'opt' AND state = 'active' AND wait_event IS NULL")
w=$(workers)
q "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'opt'" >/dev/null
done_with opt
release_source
check "1. optimization: the caller's own backend computes while no release worker exists ($busy busy, $w workers)" \
	"$(tf test "$busy" = 1 -a "$w" = 0)"
check "1. optimization: the cancel stops it with the caller's error" \
	"$(tf grep -q "canceling statement due to user request" "$tmp/opt.out")"
check "1. optimization: nothing was charged, and no strategy was stored" \
	"$(q "SELECT NOT EXISTS (SELECT FROM dpm.releases) AND NOT EXISTS (SELECT FROM dpm.strategies s JOIN dpm.workloads w ON w.id = s.workload_id WHERE w.name = 'q_bigw')")"

# --- 2. cancelled before the charge --------------------------------------------------------------
setting dpm.release_worker_idle 60000
setting dpm.release_workers 1
hold_source
answer taken q_alice
workers_locked
answer queued q_bob
waiting queued
check "2. with one worker busy, a second release is queued (1 worker)" "$(tf test "$(workers)" = 1)"
q "SELECT pg_cancel_backend($(pid_of queued))" >/dev/null
done_with queued
q "SELECT pg_cancel_backend($(pid_of taken))" >/dev/null
done_with taken
release_source
check "2. cancelled while queued: the caller is told nothing was charged" \
	"$(tf grep -q "Nothing was charged: the release was withdrawn before its charge" "$tmp/queued.out")"
check "2. cancelled while its worker waited to charge: the caller is told nothing was charged" \
	"$(tf grep -q "Nothing was charged: the release was withdrawn before its charge" "$tmp/taken.out")"
wait_for "SELECT NOT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'dpmatrix release' AND datname = '$DB' AND wait_event_type = 'Lock')" 30
check "2. and nothing was: no release, no charge" "$(q "SELECT NOT EXISTS (SELECT FROM dpm.releases) AND NOT EXISTS (SELECT FROM dpm.ledger)")"
# the worker, freed, serves the next release
check "2. the next release is served" "$(q "SET ROLE q_alice; SELECT count(*) = 4 FROM dpm.answer('q_w', epsilon => 0.01)")"

# --- 3. a bounded pool ---------------------------------------------------------------------------
setting dpm.release_workers 2
hold_source
for i in 1 2 3 4 5 6 7 8; do answer "many$i" q_bob; done
for i in 1 2 3 4 5 6 7 8; do waiting "many$i"; done
check "3. eight callers, dpm.release_workers = 2: two release workers ($(workers))" "$(tf test "$(workers)" = 2)"
release_source
for i in 1 2 3 4 5 6 7 8; do done_with "many$i"; done
check "3. every queued release completed with its answers" \
	"$(tf test "$(cat "$tmp"/many*.out | grep -cx 4)" = 8)"
check "3. the pool never grew: two release workers ($(workers))" "$(tf test "$(workers)" -le 2)"

# --- 4. a limit per role -------------------------------------------------------------------------
setting dpm.max_releases_per_role 1
before=$(charges)
hold_source
answer first q_alice
workers_locked
out=$(psql -X -q -At -d "$DB" -c "SET ROLE q_alice" -c "SELECT count(*) FROM dpm.answer('q_w', epsilon => 0.01)" 2>&1)
check "4. a second release of the same role is refused at once (53400)" \
	"$(tf grep -q "role q_alice already has 1 releases queued or being computed" <<<"$out")"
answer other q_bob
waiting other
release_source
done_with first
done_with other
check "4. the first release and another role's complete" \
	"$(tf test "$(cat "$tmp/first.out")" = 4 -a "$(cat "$tmp/other.out")" = 4)"
check "4. exactly those two were charged" "$(tf test "$(charges)" = $((before + 2)))"
setting dpm.max_releases_per_role

# --- 5. cancelled after the charge ---------------------------------------------------------------
before=$(charges)
( PGAPPNAME=late psql -X -q -At -d "$DB" -c "SET dpm.debug_release_delay = 3000" -c "SET ROLE q_alice" \
	-c "SELECT count(*) FROM dpm.answer('q_w', epsilon => 0.01)" >"$tmp/late.out" 2>&1 ) &
wait_for "SELECT EXISTS (SELECT FROM dpm.releases WHERE status = 'charged')" 30
rid=$(q "SELECT max(id) FROM dpm.releases WHERE status = 'charged'")
q "SELECT pg_cancel_backend($(pid_of late))" >/dev/null
done_with late
check "5. cancelled after the charge: the caller is told release $rid was charged" \
	"$(tf grep -q "Release $rid was charged before the call stopped" "$tmp/late.out")"
check "5. and it completes" "$(tf wait_for "SELECT status = 'released' FROM dpm.releases WHERE id = $rid" 30)"
check "5. one charge" "$(tf test "$(charges)" = $((before + 1)))"

setting dpm.release_worker_idle
dropdb "$DB" || check "drop the database" f
psql -X -q -d postgres -c "DROP ROLE q_alice" -c "DROP ROLE q_bob" >/dev/null
echo "queue: $((SECONDS - t_start)) s"
report
