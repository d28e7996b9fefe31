#!/usr/bin/env bash
# bench/small_release.sh -- issue 47's first target: a private count of 100 cells over 10^6 rows
# (dpm.answer with its defaults: auto strategy, Laplace noise, intervals) against the plain
# GROUP BY of the same cells, in one session as an analyst in psql would ask, on a quiet server
# and while six other sessions run that GROUP BY over and over.  Each release prints its stages
# (the DEBUG1 line of src/release/request.c): waiting for a release worker, charging, reading the
# source, noise and answers; "caller" is the rest of the statement (checking and planning in the
# caller's backend, the hand-off and the answers' return).  Median of RUNS (default 7) of each,
# taken in turns.  Rows:
#   resident worker  the release after another: the worker of the one before serves it;
#   after a pause    the same after 1.5 s without a release, dpm.release_worker_idle set to 1 s
#                    for the run (and restored at its end): the worker kept for the connected
#                    sessions (dpm.release_worker_keep) serves it, as after any pause;
#   new worker       the worker terminated before each release, so that one starts for it (what
#                    the first release pays once the database had no session for
#                    dpm.release_worker_idle, or after that idle time with dpm.release_worker_keep off);
#   capped           a source whose unit column has no unique index: each unit keeps its first
#                    row (a secure random one), which a GROUP BY does not do (quiet server only),
#                    release after release; against the GROUP BY of the same cells that keeps one
#                    row per unit too ("GROUP BY per unit": a row of each unit's smallest value,
#                    by a hashed grouping of the 10^6 units, which a random row could only cost
#                    more);
#   capped, by a new worker  the same, the first capped release of the worker of "new worker":
#                    the memory of its table of units not yet in the worker's process.
# Target: the release within 1.2 x its GROUP BY + 10 ms quiet, within 2 x under load.  Run by
# bench/run (once as configured by default, once with dpmatrix preloaded), or alone with
# PGDATABASE set to a database where dpmatrix is installed, as a superuser.
set -euo pipefail
RUNS=${RUNS:-7}
LOADERS=${LOADERS:-6}
tmp=$(mktemp -d -t dpmatrix-small-release.XXXXXX)
loaders=()
idle_set= idle_was=
cleanup() {
	for p in "${loaders[@]}"; do kill "$p" 2>/dev/null || true; done
	if [ -n "$idle_set" ]; then
		if [ -n "$idle_was" ]; then set_idle "ALTER SYSTEM SET dpm.release_worker_idle = '$idle_was'"
		else set_idle "ALTER SYSTEM RESET dpm.release_worker_idle"; fi
	fi
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# dpm.release_worker_idle at 1 s for the run, then as it was (a value of ALTER SYSTEM's, or none)
idle_was=$(psql -X -q -At -c "LOAD 'dpmatrix'" -c "SELECT CASE WHEN sourcefile LIKE '%postgresql.auto.conf' THEN setting END
                                                 FROM pg_settings WHERE name = 'dpm.release_worker_idle'")
set_idle() { psql -X -q -c "LOAD 'dpmatrix'" -c "$1" -c "SELECT pg_reload_conf()" >/dev/null; }

psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
SET client_min_messages = warning;
SELECT dpm.drop_domain(name, cascade => true) FROM dpm.domains WHERE name IN ('sr_d', 'sr_ud') AND dropped_at IS NULL;
SELECT dpm.unregister_source(relation) FROM dpm.sources
 WHERE relation IN (to_regclass('sr_rows'), to_regclass('sr_units')) AND unregistered_at IS NULL;
DROP TABLE IF EXISTS sr_rows, sr_units;
CREATE TABLE sr_rows AS SELECT g AS id, floor(random() * 100)::int AS v FROM generate_series(1, 1000000) g;
CREATE TABLE sr_units AS SELECT id, v FROM sr_rows;
VACUUM ANALYZE sr_rows, sr_units;
SELECT dpm.register_source('sr_rows', epsilon => 1e9);
SELECT dpm.create_domain('sr_d', 'sr_rows', '[{"name": "v", "bins": {"min": 0, "max": 100, "width": 1}}]');
SELECT dpm.create_workload('sr_w', 'sr_d', 'Identity(v)');
SELECT dpm.register_source('sr_units', 'id', 1, epsilon => 1e9);
SELECT dpm.create_domain('sr_ud', 'sr_units', '[{"name": "v", "bins": {"min": 0, "max": 100, "width": 1}}]');
SELECT dpm.create_workload('sr_uw', 'sr_ud', 'Identity(v)');
SQL

idle_set=1
set_idle "ALTER SYSTEM SET dpm.release_worker_idle = '1s'"
idle_now() { psql -X -q -At -c "LOAD 'dpmatrix'" -c 'SHOW dpm.release_worker_idle'; }
for _ in $(seq 100); do [ "$(idle_now)" = 1s ] && break; sleep 0.1; done
[ "$(idle_now)" = 1s ] || { echo "dpm.release_worker_idle = 1s was not reloaded" >&2; exit 1; }

groupby="SELECT count(*) FROM (SELECT v, count(*) FROM sr_rows GROUP BY v) g;"
release="SELECT count(*) FROM dpm.answer('sr_w', epsilon => 1);"
capped="SELECT count(*) FROM dpm.answer('sr_uw', epsilon => 1);"
groupby_units="SELECT count(*) FROM (SELECT v, count(*) FROM (SELECT id, min(v) AS v FROM sr_units GROUP BY id) u GROUP BY v) g;"
terminate="SELECT count(pg_terminate_backend(pid, 60000)) >= 0 FROM pg_stat_activity WHERE backend_type = 'dpmatrix release';"

# measure CASE: RUNS turns of (GROUP BY, release after release, after a pause, by a new worker[,
# GROUP BY per unit, the new worker's first capped release]), [then RUNS capped releases in a row];
# appends "case what ms wait charge scan answers" lines to $tmp/rows
measure() {
	local case=$1 script=$tmp/script.sql
	{
		echo "SET jit = off;"
		echo "SET dpm.reuse = never;"
		echo "$release"                     # a resident worker from here on, caches warm
		echo "$groupby"
		echo "\\timing on"
		for _ in $(seq "$RUNS"); do
			echo "\\echo @ GROUP BY"; echo "$groupby"
			echo "\\echo @ resident worker"; echo "$release"
			echo "\\timing off"; echo "SELECT pg_sleep(1.5);"; echo "\\timing on"
			echo "\\echo @ after a pause"; echo "$release"
			echo "\\timing off"; echo "$terminate"; echo "\\timing on"
			echo "\\echo @ new worker"; echo "$release"
			if [ "$case" = quiet ]; then
				echo "\\echo @ GROUP BY per unit"; echo "$groupby_units"
				echo "\\echo @ capped, by a new worker"; echo "$capped"
			fi
		done
		if [ "$case" = quiet ]; then
			echo "$capped"                 # a worker that has capped before, from here on
			for _ in $(seq "$RUNS"); do echo "\\echo @ capped"; echo "$capped"; done
		fi
	} >"$script"
	# line-buffered, so that each release's DEBUG line (stderr) comes before its time (stdout)
	PGOPTIONS="-c client_min_messages=debug1" stdbuf -oL -eL psql -X -q -v ON_ERROR_STOP=1 -f "$script" >"$tmp/out" 2>&1
	awk -v c="$case" '
		/^@ / { what = substr($0, 3); stage = ""; next }
		/DEBUG:  release [0-9]+: / {
			match($0, /: [0-9.]+ ms waiting/); w = substr($0, RSTART + 2, RLENGTH - 13)
			n = split($0, f, /, /)
			split(f[2], a, " "); split(f[3], b, " "); split(f[4], d, " ")
			stage = w " " a[1] " " b[1] " " d[1]
			next
		}
		/^Time: / && what != "" {
			split($0, t, " ")
			print c "|" what "|" t[2] "|" (stage == "" ? "- - - -" : stage)
			what = ""
		}' "$tmp/out" >>"$tmp/rows"
}

measure quiet
for _ in $(seq "$LOADERS"); do
	yes "$groupby" | PGOPTIONS="-c jit=off" psql -X -q >/dev/null 2>&1 &
	loaders+=($!)                                # psql's: yes ends with it
done
sleep 1                                          # the loaders connected and running
measure "loaded, $LOADERS GROUP BY sessions"
for p in "${loaders[@]}"; do kill "$p" 2>/dev/null || true; done
loaders=()
wait 2>/dev/null || true

echo
echo "== a private count of 100 cells over 10^6 rows: median of $RUNS, ms; shared_preload_libraries = '$(psql -X -At -c 'SHOW shared_preload_libraries')'"
echo "   (target: quiet <= 1.2 x GROUP BY + 10 ms, loaded <= 2 x GROUP BY; capped: against GROUP BY per unit)"
psql -X -q <<SQL
CREATE TEMP TABLE sr_rows_in (c text, what text, ms float8, w text);
\copy sr_rows_in FROM '$tmp/rows' WITH (DELIMITER '|')
\pset footer off
WITH r AS (SELECT c, what, ms, CASE WHEN w = '- - - -' THEN NULL ELSE string_to_array(w, ' ')::float8[] END AS s
             FROM sr_rows_in),
     m AS (SELECT c, what, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms,
                  percentile_cont(0.5) WITHIN GROUP (ORDER BY s[1]) AS wait,
                  percentile_cont(0.5) WITHIN GROUP (ORDER BY s[2]) AS charge,
                  percentile_cont(0.5) WITHIN GROUP (ORDER BY s[3]) AS scan,
                  percentile_cont(0.5) WITHIN GROUP (ORDER BY s[4]) AS answers,
                  percentile_cont(0.5) WITHIN GROUP (ORDER BY ms - s[1] - s[2] - s[3] - s[4]) AS caller
             FROM r GROUP BY c, what)
SELECT m.c AS "case", m.what, round(m.ms::numeric, 1) AS ms, round((m.ms / g.ms)::numeric, 2) AS ratio, g.what AS baseline,
       CASE WHEN m.what LIKE 'GROUP BY%' THEN '' WHEN m.c = 'quiet' THEN round((1.2 * g.ms + 10)::numeric, 1)::text
            ELSE round((2 * g.ms)::numeric, 1)::text END AS target_ms,
       round(m.wait::numeric, 1) AS waiting, round(m.charge::numeric, 1) AS charging,
       round(m.scan::numeric, 1) AS reading, round(m.answers::numeric, 1) AS noise_answers,
       round(m.caller::numeric, 1) AS caller
  FROM m JOIN m g ON g.c = m.c
                  AND g.what = CASE WHEN m.what LIKE 'capped%' OR m.what = 'GROUP BY per unit' THEN 'GROUP BY per unit' ELSE 'GROUP BY' END
 ORDER BY m.c DESC, array_position(ARRAY['GROUP BY', 'resident worker', 'after a pause', 'new worker', 'GROUP BY per unit', 'capped, by a new worker', 'capped'], m.what);
SQL

psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
SET client_min_messages = warning;
SELECT dpm.drop_domain('sr_d', cascade => true), dpm.drop_domain('sr_ud', cascade => true);
SELECT dpm.unregister_source('sr_rows'), dpm.unregister_source('sr_units');
DROP TABLE sr_rows, sr_units;
SQL
