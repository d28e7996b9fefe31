#!/usr/bin/env bash
# bench/queue.sh -- releases under load: 64 sessions (8 analyst roles) answer 20 times each with
# the server's default max_worker_processes, through the release queue and its bounded pool of
# workers (dpm.release_workers per database).  Prints calls, failures, median, p99 and maximum
# latency, against baselines from the same run: one session answering alone (no queue), and the
# same 64 x 20 load of the plain SQL GROUP BY that counts the same cells (the scan without
# dpmatrix).  Uses pgbench; run by bench/run, or alone with PGDATABASE set to a database where
# dpmatrix is installed.
set -euo pipefail
CLIENTS=${CLIENTS:-64}
CALLS=${CALLS:-20}
PGBENCH=${PGBENCH:-/usr/lib/postgresql/15/bin/pgbench}
tmp=$(mktemp -d -t dpmatrix-queue-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

[ "$(psql -X -At -c "SELECT count(*) FROM dpm.workloads WHERE name = 'qb_w'")" = 1 ] ||
psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
SET client_min_messages = warning;
CREATE TABLE qb_people AS SELECT i AS id, i % 64 AS v FROM generate_series(1, 100000) i;
ANALYZE qb_people;
SELECT dpm.register_source('qb_people', epsilon => 1e9);
SELECT dpm.create_domain('qb_d', 'qb_people', '[{"name": "v", "bins": {"min": 0, "max": 64, "width": 1}}]');
SELECT dpm.create_workload('qb_w', 'qb_d', 'Prefix(v)');
SELECT dpm.optimize('qb_w', method => 'hierarchical');
DO $$
BEGIN
  FOR r IN 0..7 LOOP
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'qb_r' || r) THEN
      EXECUTE format('CREATE ROLE qb_r%s IN ROLE dpm_analyst', r);
    END IF;
  END LOOP;
END $$;
GRANT SELECT ON qb_people TO PUBLIC;
SQL

cat >"$tmp/answer.sql" <<'EOF'
\set r :client_id % 8
SET ROLE qb_r:r;
SELECT count(*) FROM dpm.answer('qb_w', epsilon => 0.001, method => 'hierarchical');
RESET ROLE;
EOF
cat >"$tmp/groupby.sql" <<'EOF'
SELECT v, count(*) FROM qb_people WHERE v >= 0 AND v < 64 GROUP BY v;
EOF

# run NAME CLIENTS CALLS SCRIPT: one line "NAME calls failed median p99 max" (ms)
run() {
	local name=$1 c=$2 t=$3 script=$4 done_calls
	rm -f "$tmp"/log*
	PGOPTIONS="-c client_min_messages=warning" "$PGBENCH" -n -c "$c" -j "$(( c < 4 ? c : 4 ))" -t "$t" \
		-f "$script" -l --log-prefix="$tmp/log" >"$tmp/out" 2>&1 || true
	done_calls=$(cat "$tmp"/log* 2>/dev/null | wc -l)
	cat "$tmp"/log* 2>/dev/null | awk '{print $3 / 1000}' | sort -n >"$tmp/lat"
	awk -v name="$name" -v expected=$((c * t)) -v n="$done_calls" '
		{ v[NR] = $1 }
		END {
			p = int(0.99 * NR + 0.999999); if (p < 1) p = 1
			printf "| %s | %d | %d | %.1f | %.1f | %.1f |\n", name, n, expected - n,
			       v[int((NR + 1) / 2)], v[p], v[NR]
		}' "$tmp/lat"
}

echo
echo "Releases under load: $CLIENTS sessions x $CALLS calls, max_worker_processes = $(psql -X -At -c 'SHOW max_worker_processes'), dpm.release_workers = $(psql -X -q -At -c "LOAD 'dpmatrix'" -c 'SHOW dpm.release_workers')"
echo
echo "| case | calls | failed | median ms | p99 ms | max ms |"
echo "| --- | --- | --- | --- | --- | --- |"
run "dpm.answer, 1 session alone (baseline)" 1 "$CALLS" "$tmp/answer.sql"
run "GROUP BY of the same cells, $CLIENTS sessions (baseline)" "$CLIENTS" "$CALLS" "$tmp/groupby.sql"
run "dpm.answer, $CLIENTS sessions, 8 roles" "$CLIENTS" "$CALLS" "$tmp/answer.sql"
grep -E "^(pgbench|client [0-9]+ aborted)" "$tmp/out" | head -n 5 || true

