#!/usr/bin/env bash
# concurrency.sh -- concurrent analysts can never together exceed a budget.  Eight sessions race
# to spend the last of a budget in fixed charges, each answering until refused; the budget must
# then be spent exactly as far as whole charges allow, never beyond, with the ledger, the releases
# and the clients' own counts agreeing.  Once for an epsilon budget, once for a zCDP one.
set -u
DB=dpm_concurrency
SESSIONS=8
passed=0 failed=0

check() {
	if [ "$2" = t ]; then
		passed=$((passed + 1)); echo "ok: $1"
	else
		failed=$((failed + 1)); echo "FAILED: $1 (got '$2')"
	fi
}
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" -c "$1"; }

# client N WORKLOAD ARGS: answer until the budget is refused; one line per success in $tmp/N.ok,
# anything but the budget error in $tmp/N.err
client() {
	local out
	while :; do
		if out=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" -c "SELECT count(*) FROM dpm.answer('$2', $3)" 2>&1); then
			echo ok >>"$tmp/$1.ok"
		elif grep -q 'is exhausted' <<<"$out"; then
			return 0
		else
			echo "$out" >>"$tmp/$1.err"
			return 1
		fi
	done
}

# race NAME WORKLOAD ARGS SOURCE COLUMN CHARGE EXPECTED
race() {
	local name=$1 workload=$2 args=$3 source=$4 col=$5 charge=$6 expected=$7 i ok
	rm -f "$tmp"/*.ok "$tmp"/*.err
	for ((i = 1; i <= SESSIONS; i++)); do client "$i" "$workload" "$args" & done
	wait
	ok=$(cat "$tmp"/*.ok 2>/dev/null | wc -l)
	check "$name: no client failed otherwise" "$([ -z "$(cat "$tmp"/*.err 2>/dev/null)" ] && echo t || echo f)"
	[ -z "$(cat "$tmp"/*.err 2>/dev/null)" ] || head -n 5 "$tmp"/*.err
	check "$name: exactly $expected answers succeeded (got $ok)" "$([ "$ok" = "$expected" ] && echo t || echo f)"
	check "$name: the ledger is within the budget, short of it by less than one charge" \
		"$(q "SELECT sum(l.$col) <= s.budget_$col AND s.budget_$col - sum(l.$col) < $charge
		        FROM dpm.ledger l JOIN dpm.sources s ON s.id = l.source_id
		       WHERE s.relation = '$source'::regclass GROUP BY s.budget_$col")"
	check "$name: ledger total = releases total = successes x charge" \
		"$(q "SELECT (SELECT sum(l.$col) FROM dpm.ledger l JOIN dpm.sources s ON s.id = l.source_id WHERE s.relation = '$source'::regclass)
		           = (SELECT sum(r.$col) FROM dpm.releases r JOIN dpm.sources s ON s.id = r.source_id WHERE s.relation = '$source'::regclass)
		       AND (SELECT sum(r.$col) FROM dpm.releases r JOIN dpm.sources s ON s.id = r.source_id WHERE s.relation = '$source'::regclass)
		           = $ok * $charge")"
	check "$name: every release was answered" \
		"$(q "SELECT bool_and(r.status = 'released') AND count(*) = $ok
		        FROM dpm.releases r JOIN dpm.sources s ON s.id = r.source_id WHERE s.relation = '$source'::regclass")"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dropdb --if-exists "$DB" >/dev/null 2>&1
createdb "$DB" || exit 1
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" >/dev/null <<'SQL' || exit 1
CREATE EXTENSION dpmatrix;
CREATE TABLE pure_src AS SELECT g AS id, g % 4 AS k FROM generate_series(1, 2000) g;
CREATE TABLE zcdp_src AS SELECT * FROM pure_src;
SELECT dpm.register_source('pure_src', epsilon => 1);
SELECT dpm.register_source('zcdp_src', rho => 0.5);
SELECT dpm.create_domain('pure_k', 'pure_src', '[{"name": "k", "values": [0, 1, 2, 3]}]');
SELECT dpm.create_domain('zcdp_k', 'zcdp_src', '[{"name": "k", "values": [0, 1, 2, 3]}]');
SELECT dpm.create_workload('pure_w', 'pure_k', 'Prefix(k)');
SELECT dpm.create_workload('zcdp_w', 'zcdp_k', 'Prefix(k)');
SQL

# epsilon 1 in charges of 0.07: 14 fit (0.98), a 15th would overspend by 0.05
race "epsilon" pure_w "epsilon => 0.07" pure_src epsilon 0.07 14
# rho 0.5 in charges of 0.03: 16 fit (0.48)
race "zCDP" zcdp_w "rho => 0.03" zcdp_src rho 0.03 16

dropdb "$DB"
echo "concurrency: $passed passed, $failed failed"
[ "$failed" = 0 ]
