#!/usr/bin/env bash
# concurrency.sh -- concurrent analysts can never together exceed a budget.  Eight sessions (each
# a loop of psql calls) race to spend one source's budget in equal charges, each answering until it
# is refused with SQLSTATE Y1001 (budget exhausted).  Then:
#   - no session failed with any other error, and every one ended on Y1001, whose DETAIL shows that
#     the budget really could not pay for one more charge (nobody was refused while budget remained);
#   - the number of answers the sessions got is exactly floor(budget / charge) (nobody overspent,
#     nobody stopped early);
#   - the ledger total is within the budget, and ledger total = sum over the releases = successes x
#     charge, exactly (numeric), with one ledger row per release and per success, each charge
#     matching its release row; dpm.budget reports exactly the remainder;
#   - every release has status 'released' and all its answers.
# Rounds: epsilon 1 in charges of 0.07 (14 fit, 0.02 remains); epsilon 0.6 in charges of 0.06 (10
# fit exactly; summed in float8, nine charges make 0.54 and a tenth 0.6000000000000001, too much);
# zCDP rho 0.5 in charges of rho 0.05 (10 fit exactly); a longer race, epsilon 10 in charges of
# 0.07 (142 fit, 0.06 remains).  At the start of each round another session holds the source row
# (as a charge does) until at least 4 release workers wait for it, so the first charges all come at
# once; that they did is checked too.
# The last two rounds run with default_transaction_isolation = 'repeatable read' on the database;
# DPM_CONCURRENCY_ISOLATION='repeatable read' (or 'serializable') runs all rounds with that default.
# Eight sessions need eight release workers; with max_worker_processes = 8 (one slot taken by the
# logical replication launcher) a caller waits for a free slot, which dpm.answer does (up to 30 s).
set -u
DB=dpm_concurrency
SESSIONS=8
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"
t_start=$SECONDS

. "$(dirname "$0")/lib/check.sh"
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" -c "$1"; }

# client N WORKLOAD ARGS M: after the start signal, answer until refused.  One line per success in
# $tmp/N.ok; the refusal (Y1001, verbose: with its DETAIL) in $tmp/N.end; any other error in $tmp/N.err
client() {
	local n=$1 out rc
	while [ ! -e "$tmp/go" ]; do sleep 0.01; done
	while :; do
		out=$(psql -X -q -At -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -d "$DB" \
			-c "SELECT count(*) FROM dpm.answer('$2', $3)" 2>&1)
		rc=$?
		if [ "$rc" = 0 ] && [ "$out" = "$4" ]; then
			echo ok >>"$tmp/$n.ok"
		elif [ "$rc" != 0 ] && grep -q '^ERROR:  Y1001:' <<<"$out"; then
			echo "$out" >"$tmp/$n.end"
			return 0
		else
			echo "exit status $rc: $out" >>"$tmp/$n.err"
			return 1
		fi
	done
}

# race NAME SOURCE WORKLOAD ARGS COLUMN CHARGE EXPECTED REMAINING
race() {
	local name=$1 src=$2 wl=$3 args=$4 col=$5 charge=$6 expected=$7 remaining=$8
	local i ok sid m t0 spread refusals bad
	echo "== $name: $SESSIONS sessions, $args each, on a budget of $col $(q "SELECT budget_$col FROM dpm.sources WHERE relation = '$src'::regclass")"
	sid=$(q "SELECT id FROM dpm.sources WHERE relation = '$src'::regclass")
	m=$(q "SELECT m FROM dpm.workloads WHERE name = '$wl'")
	rm -f "$tmp"/go "$tmp"/*.ok "$tmp"/*.end "$tmp"/*.err "$tmp"/queued
	# Another session holds the source row (as a charge or dpm.set_budget does) until at least 4
	# release workers queue behind it (10 s at most): the first charges then all come at once.
	PGAPPNAME=dpm_conc_holder psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" >"$tmp/queued" 2>&1 <<SQL &
BEGIN ISOLATION LEVEL READ COMMITTED;
SELECT FROM dpm.sources WHERE id = $sid FOR UPDATE;
DO \$\$
BEGIN
  FOR i IN 1..100 LOOP
    PERFORM pg_stat_clear_snapshot();
    EXIT WHEN (SELECT count(*) FROM pg_stat_activity
                WHERE backend_type = 'dpmatrix release' AND wait_event_type = 'Lock') >= 4;
    PERFORM pg_sleep(0.1);
  END LOOP;
END
\$\$;
SELECT pg_stat_clear_snapshot();
SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'dpmatrix release' AND wait_event_type = 'Lock';
COMMIT;
SQL
	for ((i = 1; i <= SESSIONS; i++)); do client "$i" "$wl" "$args" "$m" & done
	t0=$SECONDS
	# start the sessions once the row is held
	for ((i = 0; i < 100; i++)); do
		[ "$(q "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'dpm_conc_holder' AND query LIKE 'DO %'")" = 1 ] && break
		sleep 0.1
	done
	touch "$tmp/go"
	wait
	ok=$(cat "$tmp"/*.ok 2>/dev/null | wc -l)
	spread=$(for ((i = 1; i <= SESSIONS; i++)); do cat "$tmp/$i.ok" 2>/dev/null | wc -l; done | tr '\n' ' ')
	echo "   $ok answers in $((SECONDS - t0)) s; per session: $spread"
	check "$name: several release workers queued for the source's budget at once ($(tail -n 1 "$tmp/queued"))" \
		"$(tf test "$(tail -n 1 "$tmp/queued")" -ge 4 2>/dev/null)"

	check "$name: no session failed with another error" "$(tf test -z "$(cat "$tmp"/*.err 2>/dev/null)")"
	[ -z "$(cat "$tmp"/*.err 2>/dev/null)" ] || head -n 20 "$tmp"/*.err | sed 's/^/   /'
	refusals=$(cat "$tmp"/*.end 2>/dev/null | grep -c '^ERROR:  Y1001:')
	check "$name: every session ended refused with Y1001 ($refusals of $SESSIONS)" "$(tf test "$refusals" = "$SESSIONS")"
	# DETAIL:  Spent epsilon X of B; this release needs epsilon C.  -> "X + C > B" for each refusal
	bad=$(cat "$tmp"/*.end 2>/dev/null | sed -n "s/^DETAIL:  Spent $col \([0-9.e+-]*\) of \([0-9.e+-]*\); this release needs $col \([0-9.e+-]*\)\..*/\1 \2 \3/p" |
		while read -r spent budget need; do
			[ "$(q "SELECT $spent::numeric + $need::numeric > $budget::numeric AND $need::numeric = $charge")" = t ] || echo "$spent $budget $need"
		done)
	check "$name: each refusal was right: the budget could not pay for one more charge" \
		"$(tf test -z "$bad" -a "$(cat "$tmp"/*.end 2>/dev/null | grep -c "^DETAIL:  Spent $col ")" = "$refusals")"
	check "$name: exactly $expected answers succeeded (the clients counted $ok)" "$(tf test "$ok" = "$expected")"
	check "$name: the ledger is within the budget, and short of it by exactly $remaining" \
		"$(q "SELECT coalesce(sum(l.$col), 0) <= s.budget_$col AND s.budget_$col - coalesce(sum(l.$col), 0) = $remaining
		        FROM dpm.sources s LEFT JOIN dpm.ledger l ON l.source_id = s.id WHERE s.id = $sid GROUP BY s.id")"
	check "$name: ledger total = releases total = successes x $charge, exactly" \
		"$(q "SELECT (SELECT sum($col) FROM dpm.ledger WHERE source_id = $sid) = $ok * $charge::numeric
		         AND (SELECT sum($col) FROM dpm.releases WHERE source_id = $sid) = $ok * $charge::numeric")"
	check "$name: one ledger row and one release per success, each charge matching its release" \
		"$(q "SELECT (SELECT count(*) FROM dpm.ledger WHERE source_id = $sid) = $ok
		         AND (SELECT count(*) FROM dpm.releases WHERE source_id = $sid) = $ok
		         AND NOT EXISTS (SELECT FROM dpm.ledger l WHERE l.source_id = $sid AND l.$col <> $charge)
		         AND NOT EXISTS (SELECT FROM dpm.ledger l
		                          WHERE l.source_id = $sid
		                            AND NOT EXISTS (SELECT FROM dpm.releases r
		                                             WHERE r.id = l.release_id AND r.source_id = l.source_id
		                                               AND r.epsilon IS NOT DISTINCT FROM l.epsilon
		                                               AND r.delta = l.delta AND r.rho IS NOT DISTINCT FROM l.rho))
		         AND NOT EXISTS (SELECT FROM dpm.releases r WHERE r.source_id = $sid
		                            AND (SELECT count(*) FROM dpm.ledger l WHERE l.release_id = r.id) <> 1)")"
	check "$name: dpm.budget reports $remaining remaining" \
		"$(q "SELECT ${col}_remaining = $remaining AND releases = $ok FROM dpm.budget('$src')")"
	check "$name: every release is 'released', with its $m answers" \
		"$(q "SELECT count(*) = $ok AND coalesce(bool_and(r.status = 'released'
		                  AND (SELECT count(*) FROM dpm.release_answers a WHERE a.release_id = r.id) = $m), false)
		        FROM dpm.releases r WHERE r.source_id = $sid")"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; dropdb --if-exists "$DB" >/dev/null 2>&1' EXIT
dropdb --if-exists "$DB" >/dev/null 2>&1
createdb "$DB" || exit 1
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" >/dev/null <<'SQL' || exit 1
CREATE EXTENSION dpmatrix;
CREATE TABLE pure_src AS SELECT g AS id, g % 4 AS k FROM generate_series(1, 2000) g;
CREATE TABLE tenth_src AS SELECT * FROM pure_src;
CREATE TABLE zcdp_src AS SELECT * FROM pure_src;
CREATE TABLE long_src AS SELECT * FROM pure_src;
SELECT dpm.register_source('pure_src', epsilon => 1);
SELECT dpm.register_source('tenth_src', epsilon => 0.6);
SELECT dpm.register_source('zcdp_src', rho => 0.5);
SELECT dpm.register_source('long_src', epsilon => 10);
SELECT dpm.create_domain('pure_k', 'pure_src', '[{"name": "k", "values": [0, 1, 2, 3]}]');
SELECT dpm.create_domain('tenth_k', 'tenth_src', '[{"name": "k", "values": [0, 1, 2, 3]}]');
SELECT dpm.create_domain('zcdp_k', 'zcdp_src', '[{"name": "k", "values": [0, 1, 2, 3]}]');
SELECT dpm.create_domain('long_k', 'long_src', '[{"name": "k", "values": [0, 1, 2, 3]}]');
-- no strategy is stored yet: the first answers also race to optimize and cache one
SELECT dpm.create_workload('pure_w', 'pure_k', 'Prefix(k)');
SELECT dpm.create_workload('tenth_w', 'tenth_k', 'Prefix(k)');
SELECT dpm.create_workload('zcdp_w', 'zcdp_k', 'Prefix(k)');
SELECT dpm.create_workload('long_w', 'long_k', 'Prefix(k)');
SQL
# DPM_CONCURRENCY_ISOLATION (e.g. 'repeatable read', 'serializable'): the database's
# default_transaction_isolation, which the release workers inherit; unset: the server's default
if [ -n "${DPM_CONCURRENCY_ISOLATION:-}" ]; then
	q "ALTER DATABASE $DB SET default_transaction_isolation = '$DPM_CONCURRENCY_ISOLATION'" || exit 1
fi
echo "max_worker_processes = $(q "SHOW max_worker_processes"), default_transaction_isolation = $(q "SHOW default_transaction_isolation")"

# epsilon 1 in charges of 0.07: 14 fit (0.98); a 15th would overspend by 0.05
race "epsilon 0.07" pure_src pure_w "epsilon => 0.07" epsilon 0.07 14 0.02
# epsilon 0.6 in charges of 0.06: exactly 10 (a float8 sum would refuse the tenth)
race "epsilon 0.06" tenth_src tenth_w "epsilon => 0.06" epsilon 0.06 10 0
# The budget check must see charges committed while it waited for the row lock, whatever the
# isolation level the database gives new sessions (release workers force READ COMMITTED): the last
# two rounds run with a REPEATABLE READ default, under which a snapshot taken before the lock
# would overspend.
if [ -z "${DPM_CONCURRENCY_ISOLATION:-}" ]; then
	q "ALTER DATABASE $DB SET default_transaction_isolation = 'repeatable read'" || exit 1
	echo "default_transaction_isolation = repeatable read from here on"
fi
# zCDP: rho 0.5 in charges of rho 0.05: exactly 10
race "zCDP rho 0.05" zcdp_src zcdp_w "rho => 0.05" rho 0.05 10 0
# a longer race: epsilon 10 in charges of 0.07: 142 fit (9.94), 0.06 remains
race "long, epsilon 0.07" long_src long_w "epsilon => 0.07" epsilon 0.07 142 0.06

dropdb "$DB" || check "drop the database" f
echo "concurrency: $((SECONDS - t_start)) s"
echo "concurrency: $passed passed, $failed failed"
[ "$failed" = 0 ]
