#!/usr/bin/env bash
# error_context.sh -- an error raised inside dpmatrix reaches the user without the CONTEXT lines
# and QUERY text of dpmatrix's own functions (src/errors/context.c), keeps the frames of the
# caller's own functions, and dpm.internal_context = on keeps everything (issue 43, item 5).
# psql's stderr is what a user reads; pg_regress cannot show the "on" case without pinning the
# line numbers of internal functions, so the checks read it here.
set -uo pipefail
cd "$(dirname "$0")/.."
. "$(dirname "$0")/lib/check.sh"

db=dpm_error_context
dropdb --if-exists "$db" >/dev/null 2>&1
createdb "$db" || exit 1
trap 'dropdb --if-exists "$db" >/dev/null 2>&1' EXIT
run() { psql -X -q -d "$db" -v VERBOSITY=default -c "$1" 2>&1 >/dev/null; }
psql -X -q -d "$db" -c "SET client_min_messages = warning; CREATE EXTENSION dpmatrix;
  CREATE FUNCTION ask() RETURNS void LANGUAGE plpgsql AS \$\$ BEGIN PERFORM * FROM dpm.answer('no_such', epsilon => 1); END \$\$;" || exit 1

out=$(run "SELECT * FROM dpm.answer('no_such', epsilon => 1)")
check "the error itself is there" "$(tf grep -q 'ERROR:  workload "no_such" does not exist' <<<"$out")"
check "its hint too" "$(tf grep -q '^HINT:  Create it with dpm.create_workload' <<<"$out")"
check "no CONTEXT from dpmatrix's functions" "$(tf test "$(grep -cE 'CONTEXT|PL/pgSQL function dpm|SQL statement' <<<"$out")" = 0)"

out=$(run "SELECT ask()")
check "a caller's function keeps its frame" "$(tf grep -q 'PL/pgSQL function ask() line 1 at PERFORM' <<<"$out")"
check "and the statement it ran" "$(tf grep -q "SQL statement \"SELECT \* FROM dpm.answer('no_such', epsilon => 1)\"" <<<"$out")"
check "but none of dpmatrix's frames" "$(tf test "$(grep -c 'dpm_internal\|PL/pgSQL function dpm\.' <<<"$out")" = 0)"

out=$(run "CREATE TABLE t (a int); SELECT dpm.register_source('t', epsilon => 1);
           SELECT dpm.create_domain('d', 't', '[{\"name\": \"a\", \"bins\": [{\"label\": \"x\", \"condition\": \"no_such_column > 1\"}]}]')")
check "a generated query's error names the column" "$(tf grep -q 'column "no_such_column" does not exist' <<<"$out")"
check "without the generated QUERY text" "$(tf test "$(grep -cE '^(QUERY|LINE 1):' <<<"$out")" = 0)"

out=$(PGOPTIONS='-c dpm.internal_context=on' run "LOAD 'dpmatrix'; SELECT * FROM dpm.answer('no_such', epsilon => 1)")
check "dpm.internal_context = on keeps dpmatrix's frames" "$(tf grep -q 'PL/pgSQL function dpm.answer(' <<<"$out")"
report
