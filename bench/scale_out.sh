#!/usr/bin/env bash
# bench/scale_out.sh [ROWS] -- dpm.answer over a source whose rows live on other servers, against
# the pushed-down GROUP BY of the same cells in the same run (issue 25): a Citus cluster of a
# coordinator and two workers, and a partitioned table whose two partitions are postgres_fdw
# foreign tables on two more servers, all on this machine (throw-away clusters in a temporary
# directory).  Prints seconds (median of 3) and the bytes the coordinator receives (Citus's
# EXPLAIN ANALYZE) at ROWS / 10 and at ROWS rows (default 10^7).  Over postgres_fdw, each row is
# its own unit, then ("fdw, capped") the id is a privacy unit capped by the servers.  Needs Citus installed
# (../shared/vendor/install-citus.sh) and dpmatrix installed.
set -euo pipefail
ROWS=${1:-10000000}
BIN=$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)
[ -x "$BIN/initdb" ] || BIN=/usr/lib/postgresql/15/bin
[ -f "$("$BIN/pg_config" --pkglibdir)/citus.so" ] || { echo "scale_out: Citus is not installed"; exit 1; }
run() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
work=$(mktemp -d -t dpmatrix-scale.XXXXXX)
chmod 755 "$work"
[ "$(id -u)" = 0 ] && chown postgres "$work"
PORTS=(5611 5612 5613 5614 5615)	# coordinator, two Citus workers, two postgres_fdw servers
cleanup() {
	for p in "${PORTS[@]}"; do run "$BIN/pg_ctl" -D "$work/n$p" -m immediate stop >/dev/null 2>&1 || true; done
	rm -rf "$work"
}
trap cleanup EXIT
for i in "${!PORTS[@]}"; do
	p=${PORTS[$i]}
	run "$BIN/initdb" -D "$work/n$p" -A trust -U postgres --no-locale -E UTF8 >/dev/null
	{
		echo "port = $p"
		echo "unix_socket_directories = '$work'"
		echo "listen_addresses = ''"
		echo "max_worker_processes = 24"
		[ "$i" -lt 3 ] && echo "shared_preload_libraries = 'citus'" && echo "citus.local_hostname = '$work'"
	} >>"$work/n$p/postgresql.conf"
	run "$BIN/pg_ctl" -D "$work/n$p" -l "$work/n$p.log" -w start >/dev/null
done
q() { local p=$1; shift; PGOPTIONS="-c client_min_messages=error" psql -X -q -At -h "$work" -p "$p" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"; }
for p in 5611 5612 5613; do q $p -c 'CREATE EXTENSION citus' -c 'CREATE EXTENSION dpmatrix'; done
for p in 5614 5615; do q $p -c 'CREATE EXTENSION dpmatrix'; done	# capped_groups runs there
q 5611 -c "SELECT citus_set_coordinator_host('$work', 5611)" -c "SELECT citus_add_node('$work', 5612)" \
	-c "SELECT citus_add_node('$work', 5613)" >/dev/null

for p in 5614 5615; do q $p -c 'CREATE TABLE people (id bigint NOT NULL, age int, sex text, region int, signup date)'; done
cells='[{"name": "age", "bins": {"min": 0, "max": 100, "width": 10}}, {"name": "sex", "values": ["F", "M"]},
        {"name": "region", "bins": {"min": 0, "max": 9, "width": 1}},
        {"name": "signup", "bins": {"min": "2024-01-01", "max": "2025-01-01", "width": "3 months"}}]'
rows() { echo "SELECT i AS id, ((i * 7919) % 100)::int AS age, CASE WHEN i % 3 = 0 THEN 'F' ELSE 'M' END AS sex,
                      (i % 9)::int AS region, date '2024-01-01' + (i % 365)::int AS signup
                 FROM generate_series($1::bigint, $2::bigint) i"; }
q 5611 >/dev/null <<SQL
CREATE TABLE people (id bigint PRIMARY KEY, age int, sex text, region int, signup date);
SELECT create_distributed_table('people', 'id');
SELECT dpm.register_source('people', privacy_unit => 'id', epsilon => 1000);
SELECT dpm.create_domain('d_citus', 'people', '$cells');
SELECT dpm.create_workload('w_citus', 'd_citus', 'Identity(age) * Identity(sex) * Identity(region) * Identity(signup)');
CREATE EXTENSION postgres_fdw;
CREATE SERVER s1 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '$work', port '5614', dbname 'postgres', async_capable 'true');
CREATE SERVER s2 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '$work', port '5615', dbname 'postgres', async_capable 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER s1;
CREATE USER MAPPING FOR CURRENT_USER SERVER s2;
CREATE TABLE people_fdw (id bigint NOT NULL, age int, sex text, region int, signup date) PARTITION BY HASH (id);
CREATE FOREIGN TABLE people_fdw_0 PARTITION OF people_fdw FOR VALUES WITH (MODULUS 2, REMAINDER 0) SERVER s1 OPTIONS (table_name 'people');
CREATE FOREIGN TABLE people_fdw_1 PARTITION OF people_fdw FOR VALUES WITH (MODULUS 2, REMAINDER 1) SERVER s2 OPTIONS (table_name 'people');
-- each row is a person: no privacy unit column to cap by
SELECT dpm.register_source('people_fdw', epsilon => 1000);
SELECT dpm.create_domain('d_fdw', 'people_fdw', '$cells');
SELECT dpm.create_workload('w_fdw', 'd_fdw', 'Identity(age) * Identity(sex) * Identity(region) * Identity(signup)');
-- the same rows with id as a privacy unit: the servers cap (capped_groups) and count
ALTER SERVER s1 OPTIONS (ADD extensions 'dpmatrix');
ALTER SERVER s2 OPTIONS (ADD extensions 'dpmatrix');
CREATE TABLE people_fdwu (id bigint NOT NULL, age int, sex text, region int, signup date) PARTITION BY HASH (id);
CREATE FOREIGN TABLE people_fdwu_0 PARTITION OF people_fdwu FOR VALUES WITH (MODULUS 2, REMAINDER 0) SERVER s1 OPTIONS (table_name 'people');
CREATE FOREIGN TABLE people_fdwu_1 PARTITION OF people_fdwu FOR VALUES WITH (MODULUS 2, REMAINDER 1) SERVER s2 OPTIONS (table_name 'people');
SELECT dpm.register_source('people_fdwu', privacy_unit => 'id', epsilon => 1000);
SELECT dpm.create_domain('d_fdwu', 'people_fdwu', '$cells');
SELECT dpm.create_workload('w_fdwu', 'd_fdwu', 'Identity(age) * Identity(sex) * Identity(region) * Identity(signup)');
SQL

# load FROM TO: rows FROM .. TO into both sources (through the coordinator's partitioned table)
load() {
	q 5611 -c "INSERT INTO people $(rows "$1" "$2")" -c "INSERT INTO people_fdw $(rows "$1" "$2")"
	for p in 5611 5612 5613 5614 5615; do q $p -c 'VACUUM ANALYZE' 2>/dev/null || true; done
}

# seconds of one statement, median of 3 runs (after one to warm up)
secs() {
	q 5611 <<SQL
CREATE OR REPLACE FUNCTION pg_temp.t(s text) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz; x float8[] := '{}';
BEGIN
  EXECUTE s;
  FOR i IN 1 .. 3 LOOP
    t0 := clock_timestamp(); EXECUTE s; x := x || extract(epoch FROM clock_timestamp() - t0)::float8;
  END LOOP;
  RETURN (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v) FROM unnest(x) v);
END \$\$;
SET dpm.reuse = never;
SELECT round(pg_temp.t(\$s\$$1\$s\$)::numeric, 3);
SQL
}
cell() { q 5611 -c "SELECT cell_expr FROM dpm.domains WHERE name = '$1'"; }
# the baseline: the cells' GROUP BY as the servers run it (on the foreign partitions, one each,
# concurrently), fetched
groupby() {
	local c
	c=$(cell "$1")
	if [ "$2" = people ]; then
		echo "SELECT count(*) FROM (SELECT ($c)::int4 AS cell, count(*) FROM people GROUP BY 1) g"
	else
		echo "SELECT count(k), sum(c) FROM (SELECT ($c)::int4 AS k, count(*) AS c FROM people_fdw_0 s GROUP BY 1
		      UNION ALL SELECT ($c)::int4 AS k, count(*) AS c FROM people_fdw_1 s GROUP BY 1) g"
	fi
}
answer() { echo "SELECT count(*) FROM dpm.answer('$1', epsilon => 1, method => 'identity')"; }
bytes() {
	local sql
	sql=$(q 5611 -c "SELECT dpm_internal.scan_sql(s, d, 'postgres', true, NULL, 'x', format('(%s)::int4', d.cell_expr), NULL,
	                   format('dpm_internal.histogram_groups(g.k, %s, ARRAY[g.c])', d.n))
	                   FROM dpm.sources s JOIN dpm.domains d ON d.source_id = s.id WHERE d.name = 'd_citus'")
	q 5611 -c "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) $sql" | grep -m1 'Tuple data received from nodes' | sed 's/.*nodes: //'
}

echo "dpmatrix $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(date -u +%F), $(nproc) cores; Citus $(q 5611 -c "SELECT extversion FROM pg_extension WHERE extname = 'citus'"), coordinator + 2 workers, 32 shards; postgres_fdw, 2 servers (async)"
printf '%-10s  %-12s  %-22s  %10s  %10s  %8s  %s\n' rows source form 'GROUP BY s' 'answer s' ratio 'Citus bytes received'
step=$((ROWS / 10))
load 1 "$step"
for n in "$step" "$ROWS"; do
	if [ "$n" = "$ROWS" ]; then load $((step + 1)) "$ROWS"; fi
	b=$(bytes)
	for form in grouped our-aggregate; do
		setting=$([ $form = grouped ] && echo auto || echo off)
		q 5611 -c "ALTER DATABASE postgres SET dpm.grouped_scans = $setting"
		# release workers read the database's settings when they start: wait for the resident ones to leave
		until [ "$(q 5611 -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'dpmatrix release'")" = 0 ]; do sleep 1; done
		g=$(secs "$(groupby d_citus people)")
		a=$(secs "$(answer w_citus)")
		printf '%-10s  %-12s  %-22s  %10s  %10s  %8s  %s\n' "$n" citus "$form" "$g" "$a" \
			"$(awk -v a="$a" -v g="$g" 'BEGIN { printf "%.2f", a / g }')" "$([ $form = grouped ] && echo "$b" || echo -)"
		g=$(secs "$(groupby d_fdw people_fdw)")
		a=$(secs "$(answer w_fdw)")
		printf '%-10s  %-12s  %-22s  %10s  %10s  %8s  %s\n' "$n" postgres_fdw "$form" "$g" "$a" \
			"$(awk -v a="$a" -v g="$g" 'BEGIN { printf "%.2f", a / g }')" -
		a=$(secs "$(answer w_fdwu)")
		printf '%-10s  %-12s  %-22s  %10s  %10s  %8s  %s\n' "$n" "fdw, capped" "$form" "$g" "$a" \
			"$(awk -v a="$a" -v g="$g" 'BEGIN { printf "%.2f", a / g }')" -
	done
	q 5611 -c "ALTER DATABASE postgres RESET dpm.grouped_scans"
done
