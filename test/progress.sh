#!/usr/bin/env bash
# progress.sh -- long work reports progress: NOTICE lines every dpm.progress_interval seconds
# (none with 0) from the optimizers and from a caller waiting for its release, and, with dpmatrix in shared_preload_libraries, the view dpm.progress shows
# another session's optimization while it runs and forgets it when it ends, and shows each analyst
# only her own work.  The preload needs a
# restart of the test cluster (pg_ctl), undone at the end.  Prints "N passed, N failed".
set -uo pipefail

DB=dpm_progress
. "$(dirname "$0")/lib/check.sh"
q() { psql -X -q -At -d "$DB" -c "$1"; }

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
q "CREATE EXTENSION dpmatrix" >/dev/null 2>&1
# min_sensitivity on all ranges of 80 cells: several seconds of rotation sweeps
LONG="SELECT iterations FROM dpm_internal.strategy_report((SELECT matrix FROM dpm_internal.workload_matrix('AllRange(x)', '{x}', '{80}',
  (SELECT array_agg(i::text) FROM generate_series(1, 80) i), array_fill('NaN'::float8, ARRAY[80]),
  array_fill('NaN'::float8, ARRAY[80]))), 'min_sensitivity', '{}')"

# the same through the public dpm.strategy, for an analyst
LONG_PUBLIC="SELECT array_length(dpm.strategy((SELECT array_agg(r ORDER BY a, b) FROM
  (SELECT a, b, array_agg((j BETWEEN a AND b)::int::float8 ORDER BY j) AS r
     FROM generate_series(1, 80) a, generate_series(1, 80) b, generate_series(1, 80) j WHERE a <= b GROUP BY a, b) q),
  'min_sensitivity'), 1)"

out=$(psql -X -q -At -d "$DB" -c "SET dpm.progress_interval = 1" -c "$LONG" 2>&1)
check "NOTICE lines while an optimizer runs" \
	"$(grep -qE '^NOTICE:  min_sensitivity: iteration [0-9]+, objective [0-9.]+, [0-9.]+ s$' <<<"$out" && echo 1 || echo 0)"
n=$(grep -c 'min_sensitivity: iteration' <<<"$out")
check "at a steady pace (one a second over several seconds: $n lines)" "$([ "$n" -ge 2 ] && [ "$n" -le 30 ] && echo 1 || echo 0)"
out=$(psql -X -q -At -d "$DB" -c "SET dpm.progress_interval = 0" -c "$LONG" 2>&1)
check "dpm.progress_interval = 0 silences them" "$(grep -q 'iteration' <<<"$out" && echo 0 || echo 1)"
# a release: the caller waits for its worker and says how far it is
q "SET client_min_messages = warning; CREATE TABLE pt AS SELECT g % 4 AS k FROM generate_series(1, 100) g;
   SELECT dpm.register_source('pt', epsilon => 5);
   SELECT dpm.create_domain('pt_d', 'pt', '[{\"name\": \"k\", \"values\": [0, 1, 2, 3]}]');
   SELECT dpm.create_workload('pt_w', 'pt_d', 'Identity(k)')" >/dev/null
out=$(psql -X -q -At -d "$DB" -c "SET dpm.progress_interval = 1" -c "SET dpm.debug_release_delay = 2500" \
	-c "SELECT count(*) FROM dpm.answer('pt_w', epsilon => 1)" 2>&1)
check "a waiting dpm.answer reports its release's progress" \
	"$(grep -qE '^NOTICE:  release [0-9]+ is charged and its answers are being computed \([0-9]+ s\)$' <<<"$out" && grep -qx 4 <<<"$out" && echo 1 || echo 0)"
out=$(psql -X -q -At -d "$DB" -c "SELECT count(*) FROM dpm.progress" 2>&1)
check "without the preload dpm.progress is empty and says why" \
	"$(grep -q 'not in shared_preload_libraries' <<<"$out" && grep -qx 0 <<<"$out" && echo 1 || echo 0)"

# --- with dpmatrix preloaded: another session sees the work -------------------------------
# restart with pg_ctl on the data directory (pg_ctlcluster may misjudge a throw-away cluster's
# state), as the directory's owner
DATADIR=$(q "SHOW data_directory")
OWNER=$(stat -c %U "$DATADIR" 2>/dev/null)
PGCTL="$("${PG_CONFIG:-pg_config}" --bindir)/pg_ctl"
restart() {
	local run=()
	[ "$(id -u)" != 0 ] || [ "$OWNER" = root ] || run=(runuser -u "$OWNER" --)
	"${run[@]}" "$PGCTL" -D "$DATADIR" -w -t 60 -m fast restart >/dev/null 2>&1 || return 1
	for ((i = 0; i < 300; i++)); do pg_isready -q -d "$DB" && return 0; sleep 0.1; done
	return 1
}
if [ -n "$DATADIR" ] && q "ALTER SYSTEM SET shared_preload_libraries = 'dpmatrix'" && restart; then
	check "the cluster restarts with dpmatrix preloaded" 1
	psql -X -q -At -d "$DB" -c "SET application_name = 'dpm_progress_long'" -c "SET dpm.progress_interval = 0" \
		-c "$LONG" >/dev/null 2>&1 &
	long=$!
	seen=
	for ((i = 0; i < 200; i++)); do
		seen=$(q "SELECT p.activity || ' ' || (p.iteration >= 0) || ' ' || (p.elapsed >= '0'::interval)
		            FROM dpm.progress p JOIN pg_stat_activity a USING (pid)
		           WHERE a.application_name = 'dpm_progress_long'" 2>/dev/null)
		[ -n "$seen" ] && break
		sleep 0.1
	done
	check "dpm.progress shows the other session's optimizer ($seen)" "$([ "$seen" = 'min_sensitivity true true' ] && echo 1 || echo 0)"
	wait "$long"
	left=$(q "SELECT count(*) FROM dpm.progress p JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'dpm_progress_long'")
	check "and forgets it when its transaction ends" "$([ "$left" = 0 ] && echo 1 || echo 0)"
	# an analyst sees her own work, not another analyst's; custodians see all
	q "CREATE ROLE dpm_progress_a IN ROLE dpm_analyst; CREATE ROLE dpm_progress_b IN ROLE dpm_analyst" >/dev/null
	psql -X -q -At -d "$DB" -c "SET application_name = 'dpm_progress_a'" -c "SET dpm.progress_interval = 0" \
		-c "SET ROLE dpm_progress_a" -c "$LONG_PUBLIC" >/dev/null 2>&1 &
	long=$!
	for ((i = 0; i < 200; i++)); do
		[ "$(q "SELECT count(*) FROM dpm.progress p JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'dpm_progress_a'")" = 1 ] && break
		sleep 0.1
	done
	as_a=$(psql -X -q -At -d "$DB" -c "SET ROLE dpm_progress_a" -c "SELECT count(*) FROM dpm.progress" 2>&1)
	as_b=$(psql -X -q -At -d "$DB" -c "SET ROLE dpm_progress_b" -c "SELECT count(*) FROM dpm.progress" 2>&1)
	check "an analyst sees her own optimization in dpm.progress ($as_a row)" "$([ "$as_a" = 1 ] && echo 1 || echo 0)"
	check "another analyst does not see it ($as_b rows)" "$([ "$as_b" = 0 ] && echo 1 || echo 0)"
	wait "$long"
	q "DROP ROLE dpm_progress_a; DROP ROLE dpm_progress_b" >/dev/null
else
	check "the cluster restarts with dpmatrix preloaded" 0
fi
q "ALTER SYSTEM RESET shared_preload_libraries" >/dev/null 2>&1
restart || check "the cluster restarts without the preload" 0
psql -X -q -d postgres -c "DROP DATABASE $DB" >/dev/null 2>&1
report
