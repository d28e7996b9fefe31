#!/usr/bin/env bash
# dump.sh -- pg_dump of a database using dpmatrix restores into a fresh cluster with its
# catalog intact: sources, domains, workloads, strategies, releases, answers, the ledger and a
# published view; the budget left is the same, old releases replay, and new releases continue
# the sequences and are charged on top of the restored ledger.  The fresh cluster is a second
# throw-away one (pg_virtualenv inside the one scripts/test.sh made); test/lib/dump_restore.sh runs
# there.  Prints "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."

export DPM_DUMP_DB=dpm_dump
DPM_DUMP_DIR=$(mktemp -d -t dpmatrix-dump.XXXXXX)
export DPM_DUMP_DIR
chmod 755 "$DPM_DUMP_DIR"
trap 'rm -rf "${DPM_DUMP_DIR:?}"' EXIT

psql -X -q -v ON_ERROR_STOP=1 -d postgres \
	-c "DROP DATABASE IF EXISTS $DPM_DUMP_DB" -c "CREATE DATABASE $DPM_DUMP_DB"
psql -X -q -v ON_ERROR_STOP=1 -d "$DPM_DUMP_DB" -o /dev/null -c "SET client_min_messages = warning" \
	-c "CREATE EXTENSION dpmatrix" \
	-c "CREATE TABLE people AS SELECT g AS id, g % 50 AS age, CASE WHEN g % 3 = 0 THEN 'F' ELSE 'M' END AS sex FROM generate_series(1, 2000) g" \
	-c "SELECT dpm.register_source('people', epsilon => 4)" \
	-c "SELECT dpm.create_domain('age_sex', 'people', '[{\"name\": \"age\", \"bins\": {\"min\": 0, \"max\": 50, \"width\": 10}}, {\"name\": \"sex\", \"values\": [\"F\", \"M\"]}]')" \
	-c "SELECT dpm.create_workload('ranges', 'age_sex', 'AllRange(age) * Identity(sex)')" \
	-c "SELECT dpm.create_workload('cells', 'age_sex', ARRAY[[1,0,0,0,0,0,0,0,0,0], [0,1,0,0,0,0,0,0,0,0]]::float8[])" \
	-c "SELECT count(*) FROM dpm.answer('ranges', epsilon => 1, method => 'hierarchical')" \
	-c "SELECT count(*) FROM dpm.answer('cells', epsilon => 0.5, method => 'identity')" \
	-c "CREATE SCHEMA reporting" \
	-c "SELECT dpm.publish(1, 'reporting.ranges')"

bash test/lib/dump_restore.sh snapshot >"$DPM_DUMP_DIR/before"
# roles without passwords: the fresh cluster keeps its own superuser password
pg_dumpall -g --no-role-passwords >"$DPM_DUMP_DIR/globals.sql"
pg_dump -Fc -d "$DPM_DUMP_DB" -f "$DPM_DUMP_DIR/db.dump"
psql -X -q -d postgres -c "DROP DATABASE $DPM_DUMP_DB"
chmod 644 "${DPM_DUMP_DIR:?}"/*

restore_ok=1
# the inner cluster must not inherit the outer one's settings
env -u PGHOST -u PGPORT -u PGUSER -u PGPASSWORD -u PGDATABASE -u PG_CLUSTER_CONF_ROOT -u PGSYSCONFDIR \
	pg_virtualenv -t -v 15 -c "--locale=C.UTF-8 --encoding=UTF8" bash test/lib/dump_restore.sh restore \
	>"$DPM_DUMP_DIR/restore.log" 2>&1 || restore_ok=0

. "$(dirname "$0")/lib/check.sh"
has() { grep -qxF "$1" "$2" 2>/dev/null && echo 1 || echo 0; }

check "the dump restores into a fresh cluster" "$restore_ok"
[ "$restore_ok" = 1 ] || tail -n 40 "$DPM_DUMP_DIR/restore.log"
while IFS= read -r line; do
	name=${line%%|*}
	check "$name intact after restore" "$(has "$line" "$DPM_DUMP_DIR/after")"
	if [ "$(has "$line" "$DPM_DUMP_DIR/after")" = 0 ]; then
		echo "    before: $line"
		echo "    after:  $(grep "^$name|" "$DPM_DUMP_DIR/after" 2>/dev/null || true)"
	fi
done <"$DPM_DUMP_DIR/before"
check "a new release continues the sequences (release 3 of 3)" "$(has 'new release|3|3' "$DPM_DUMP_DIR/new")"
check "the restored ledger counts toward the budget (2 of 4 spent)" "$(has 'spent|2.0' "$DPM_DUMP_DIR/new")"
check "the restored budget still refuses overspending" \
	"$(grep -q 'privacy budget of source "public.people" is exhausted' "$DPM_DUMP_DIR/restore.log" && echo 1 || echo 0)"
report
