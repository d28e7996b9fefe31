#!/usr/bin/env bash
# bench/wide_release.sh -- issue 47's second target: all <= 3-way marginals of D (default 50)
# attributes of 10 values on ROWS (default 20,000) rows, released (rho 1, Gaussian, auto: the
# residual plan) against dpm.exact_answers of the same workload in the same session, and the
# release worker's memory against the model of doc/guide/wide-tables.md (in doubles: the tables T
# for the scan and once more for the release, the residuals' estimates, at most T, and 3 per
# answer).  The worker is started by a release of a 2-cell count first; its anonymous resident
# memory (RssAnon, /proc) is sampled every 0.2 s while the release runs.  The stages are the
# release's DEBUG1 line (src/release/request.c); "caller" is the rest of the statement, most of it
# reading the answers back.  Run by bench/run, or alone with PGDATABASE set to a database where
# dpmatrix is installed, as a superuser on the server's host (the worker's /proc).  About 4
# minutes at the defaults.
set -euo pipefail
D=${D:-50}
ROWS=${ROWS:-20000}
tmp=$(mktemp -d -t dpmatrix-wide-release.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

psql -X -q -v ON_ERROR_STOP=1 -v d="$D" -v rows="$ROWS" >/dev/null <<'SQL'
SET client_min_messages = warning;
SET dpm.max_cells = 30000000;
SELECT dpm.drop_domain(name, cascade => true) FROM dpm.domains WHERE name IN ('wr_d', 'wr_tiny') AND dropped_at IS NULL;
SELECT dpm.unregister_source(relation) FROM dpm.sources
 WHERE relation IN (to_regclass('wr_rows'), to_regclass('wr_tiny')) AND unregistered_at IS NULL;
DROP TABLE IF EXISTS wr_rows, wr_tiny;
SELECT format('CREATE TABLE wr_rows AS SELECT g AS id, %s FROM generate_series(1, %s) g',
              string_agg(format('(hashint4(g * %s + %s) & 1023) %% 10 AS a%s', :d, k, k), ', ' ORDER BY k), :rows)
  FROM generate_series(1, :d) k \gexec
CREATE TABLE wr_tiny AS SELECT g AS id, g % 2 AS a FROM generate_series(1, 100) g;
VACUUM ANALYZE wr_rows, wr_tiny;
SELECT dpm.register_source('wr_rows', 'id', 1, rho => 1e6);
SELECT dpm.create_domain('wr_d', 'wr_rows',
  (SELECT jsonb_agg(jsonb_build_object('name', 'a' || k, 'values', jsonb_build_array(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)) ORDER BY k)
     FROM generate_series(1, :d) k));
SELECT dpm.create_workload('wr_w', 'wr_d', 'Marginals(3) + Marginals(2) + Marginals(1) + Marginals(0)');
SELECT dpm.register_source('wr_tiny', 'id', 1, rho => 1e6);
SELECT dpm.create_domain('wr_tiny', 'wr_tiny', '[{"name": "a", "values": [0, 1]}]');
SELECT dpm.create_workload('wr_tiny', 'wr_tiny', 'Identity(a)');
SQL

psql -X -q -v ON_ERROR_STOP=1 >"$tmp/out" 2>&1 <<'SQL' &
SET dpm.reuse = never;
SET dpm.max_cells = 30000000;
SET dpm.max_answers_per_release = 100000000;
SET dpm.max_answers_per_role = 1000000000;
SET jit = off;
SELECT count(*) FROM dpm.answer('wr_tiny', rho => 1);
\timing on
SELECT count(*) AS exact FROM dpm.exact_answers('wr_w');
SELECT pg_sleep(1);
SET client_min_messages = debug1;
SELECT count(*) AS released FROM dpm.answer('wr_w', rho => 1);
SQL
session=$!
worker=""
while [ -z "$worker" ] && kill -0 "$session" 2>/dev/null; do
	worker=$(psql -X -q -At -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'dpmatrix release' AND datname = current_database()")
	sleep 0.2
done
peak=0
while kill -0 "$session" 2>/dev/null; do
	r=$(awk '/RssAnon/ {print $2}' "/proc/$worker/status" 2>/dev/null || echo 0)
	[ "${r:-0}" -gt "$peak" ] && peak=$r
	sleep 0.2
done
wait "$session"

# T: the cells of the 3-way tables, C(D, 3) 10^3; the queries: every <= 3-way marginal's cells
model=$(awk -v d="$D" 'BEGIN {
	t = d * (d - 1) * (d - 2) / 6 * 1000
	q = t + d * (d - 1) / 2 * 100 + d * 10 + 1
	printf "%d", 8 * (3 * t + 3 * q) / 1048576 }')
awk -v peak="$peak" -v model="$model" -v d="$D" -v rows="$ROWS" '
	/^Time:/ { t[++n] = $2 }
	/ in all since it was queued/ {
		for (i = 1; i <= NF; i++) {
			if ($(i + 1) == "ms" && $(i + 2) == "reading") scan = $i
			if ($(i + 1) == "ms" && $(i + 2) == "on") answers = $i
			if ($(i + 1) == "ms" && $(i + 2) == "in") worker = $i
		}
	}
	END {
		# t[1]: exact_answers, t[2]: the sleep, t[3]: SET, t[4]: the release
		printf "\n== wide release: all <= 3-way marginals of %d attributes of 10 values, %d rows\n", d, rows
		printf "%-24s | %10s | %6s\n", "", "seconds", "ratio"
		printf "%-24s | %10.1f | %6s\n", "dpm.exact_answers", t[1] / 1000, "1.00"
		printf "%-24s | %10.1f | %6.2f\n", "dpm.answer (release)", t[4] / 1000, t[4] / t[1]
		printf "%-24s | %10.1f |\n", "  worker: scan", scan / 1000
		printf "%-24s | %10.1f |\n", "  worker: noise, answers", answers / 1000
		printf "%-24s | %10.1f |\n", "  caller: the rest", (t[4] - worker) / 1000
		printf "release worker peak anonymous memory %.0f MiB, the model %d MiB (ratio %.2f)\n", peak / 1024, model, peak / 1024 / model
	}' "$tmp/out"
