#!/usr/bin/env bash
# hostile_rows.sh -- the fuzzer of issue 41 (item 2), short: no release may fail after its charge,
# whatever the rows.  Tables of every column type PostgreSQL 15 ships (and an enum, a composite, a
# float8 range, domains, nondeterministic ICU collations) get ordinary rows; every condition,
# expression, measure and key form the catalog gives for each type is tried (refused ones are
# refusals); releases run; then hostile rows arrive (NaN, infinities, denormals, 1e-400 numerics,
# empty, NULL-holding and mismatched arrays, long values, NULLs, dates at their ends) and the same
# releases run again.  Every release must be answered or refused before its charge, never 'failed',
# and the ledger must hold exactly the charges of the answered ones.  Each failure is printed with
# its type, form, cause and the row values it raises on.  The generator is test/lib/hostile_rows.sql;
# bench/hostile_rows.sh runs it longer.  Fixed seed: FZ_SEED (default 41).
set -uo pipefail
cd "$(dirname "$0")/.."
. test/lib/check.sh

SEED=${FZ_SEED:-41}             # setseed(SEED / 1000.0)
HUGE=${FZ_HUGE:-200000}         # bytes of the long values
PER_KIND=${FZ_PER_KIND:-1}      # forms of each kind per column type (the long run takes all)
DOMAINS=${FZ_DOMAINS:-0.1}      # share of scalar types that also get a domain over them
ALL_VARIANTS=${FZ_ALL_VARIANTS:-false}   # every source variant per table, or the table and one
DB=${FZ_DB:-dpm_hostile}
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"

q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
stage() {   # stage NAME SQL: one top-level statement, timed
	local t0 out
	t0=$(date +%s.%N)
	out=$(q -c "$2") || { echo "stage $1 stopped: the generator itself failed"; check "stage $1 ran" f; report; exit 1; }
	printf '%-10s %6.1f s  %s\n' "$1" "$(echo "$(date +%s.%N) - $t0" | bc)" "$out"
}

psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" || exit 1
psql -X -q -d postgres -c "CREATE ROLE fz_custodian" -c "CREATE ROLE fz_analyst" 2>/dev/null
q -c "CREATE EXTENSION dpmatrix" -c "GRANT dpm_admin TO fz_custodian" -c "GRANT dpm_analyst TO fz_analyst" -f test/lib/hostile_rows.sql >/dev/null || exit 1
start=$(date +%s)
stage setup "SELECT setseed($SEED / 1000.0); SELECT fz.setup($HUGE, $DOMAINS, '{tbl,unit,zcdp,cond,unit_a,period}', $ALL_VARIANTS)"
stage forms "SELECT setseed($SEED / 1000.0 + 0.0001); SELECT fz.make_forms($PER_KIND)"
stage accept "SELECT fz.accept()"
stage combine "SELECT fz.make_combined(256)"
stage before "SELECT fz.release_round('before')"
stage hostile "SELECT 'hostile rows: ' || fz.add_hostile(1)"
stage after "SELECT fz.release_round('after')"
stage prepare "SELECT fz.attribute_prepare()"
stage attribute "SELECT fz.attribute()"
echo "seed $SEED: $(( $(date +%s) - start )) s"

while IFS= read -r line; do
	[ -n "$line" ] && check "$line" f
done < <(q -c "SELECT line FROM fz.failures()")
while IFS='|' read -r name ok; do
	check "$name" "$ok"
done < <(q -c "SELECT name, ok FROM fz.checks()")
[ "${FZ_KEEP:-}" ] || psql -X -q -d postgres -c "DROP DATABASE $DB"
report
