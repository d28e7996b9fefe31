#!/usr/bin/env bash
# Wide tables (issue 21): all <= 2-way marginals of a generated table of 20 attributes of 10 values
# (a domain of 10^20 cells, no dense cell index), answered by method residual from the marginal
# tables one scan computes.  Baseline in the same run: the plain GROUP BY GROUPING SETS query that
# computes the same marginals.  Then the peak memory of that scan (fresh backend, no parallel
# workers) at two table sizes: it must not grow with the rows.  Rows: BENCH_WIDE_ROWS (10^7).
# Run by bench/run with PGDATABASE set.
set -euo pipefail
rows=${BENCH_WIDE_ROWS:-10000000}

psql -X -q -v rows="$rows" <<'SQL'
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SELECT format('CREATE TABLE bench_wide AS SELECT g AS id, %s FROM generate_series(1, %s) g',
              string_agg(format('(hashint4(g * 20 + %s) & 1023) %% 10 AS a%s', k, k), ', ' ORDER BY k), :rows)
  FROM generate_series(1, 20) k \gexec
VACUUM ANALYZE bench_wide;
SELECT dpm.register_source('bench_wide', 'id', 1, rho => 1000) \g /dev/null
SELECT dpm.create_domain('bench_wide', 'bench_wide',
  (SELECT jsonb_agg(jsonb_build_object('name', 'a' || k, 'values', jsonb_build_array(0,1,2,3,4,5,6,7,8,9)) ORDER BY k)
     FROM generate_series(1, 20) k)) \g /dev/null
SELECT dpm.create_workload('bench_wide', 'bench_wide', 'Marginals(2) + Marginals(1) + Marginals(0)') \g /dev/null
SELECT dpm.optimize('bench_wide', method => 'residual', rho => 1) \g /dev/null
SQL

# the same marginals as plain SQL: every pair, every attribute, the total
sets=$(psql -X -q -At -c "SELECT string_agg(s, ', ') FROM (
  SELECT format('(a%s, a%s)', i, j) AS s FROM generate_series(1, 20) i, generate_series(1, 20) j WHERE i < j
  UNION ALL SELECT format('(a%s)', i) FROM generate_series(1, 20) i UNION ALL SELECT '()') q")

psql -X -q -v sets="$sets" <<'SQL'
\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = warning;
SET jit = off;
SELECT set_config('bench.sets', :'sets', false) \g /dev/null
CREATE TEMP TABLE wide_results (what text, run int, seconds float8);
CREATE FUNCTION pg_temp.secs(sql text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz := clock_timestamp();
BEGIN
  EXECUTE sql;
  RETURN extract(epoch FROM clock_timestamp() - t0);
END $$;
DO $$
DECLARE
  sets text := current_setting('bench.sets');
BEGIN
  -- the baseline once: at 10^7 rows it takes minutes
  INSERT INTO wide_results VALUES
    ('GROUP BY GROUPING SETS (baseline)', 1, pg_temp.secs(format(
       'SELECT count(*) FROM (SELECT count(*) FROM bench_wide GROUP BY GROUPING SETS (%s)) q', sets)));
  FOR r IN 1 .. 3 LOOP
    INSERT INTO wide_results VALUES
      ('dpm.answer (method residual, rho)', r, pg_temp.secs(
         'SELECT count(*) FROM dpm.answer(''bench_wide'', rho => 1, method => ''residual'')')),
      ('dpm.exact_answers', r, pg_temp.secs('SELECT count(*) FROM dpm.exact_answers(''bench_wide'')'));
  END LOOP;
END $$;
\echo
\echo '== wide tables: all <= 2-way marginals of 20 attributes (10 values each, 19,221 answers), median of 3 (baseline: 1 run); target: answer <= 2x baseline'
SELECT (SELECT count(*) FROM bench_wide) AS rows, w.what, round(w.s::numeric, 2) AS seconds,
       round((w.s / b.s)::numeric, 2) AS vs_baseline
  FROM (SELECT what, percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) AS s FROM wide_results GROUP BY what) w,
       (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) AS s FROM wide_results
         WHERE what LIKE 'GROUP BY%') b
 ORDER BY w.what <> 'GROUP BY GROUPING SETS (baseline)', w.what;
SQL

echo
echo "== wide tables: peak resident memory of the scan that counts the marginal tables (fresh backend, no parallel workers)"
printf '%10s | %9s | %11s\n' rows table_cells peak_mb
for n in $((rows / 10)) "$rows"; do
	out=$(psql -X -q -At -v n="$n" <<'SQL'
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SELECT pg_backend_pid() AS pid \gset
\setenv BPID :pid
SELECT dpm_internal.bins_expr(attr_exprs) AS bins, attr_sizes AS sizes FROM dpm.domains WHERE name = 'bench_wide' \gset
SELECT dpm_internal.residual_table_sets(w.spec, d) AS sets FROM dpm.workloads w JOIN dpm.domains d ON d.id = w.domain_id
 WHERE w.name = 'bench_wide' \gset
\! awk '/VmHWM/ {print $2}' /proc/$BPID/status
SELECT cardinality(dpm_internal.marginal_counts(:bins, :'sizes', :'sets')) FROM bench_wide WHERE id <= :n;
\! awk '/VmHWM/ {print $2}' /proc/$BPID/status
SQL
)
	read -r before cells after <<<"$(echo $out)"
	awk -v n="$n" -v c="$cells" -v b="$before" -v a="$after" 'BEGIN { printf "%10d | %9d | %11.1f\n", n, c, (a - b) / 1024 }'
done
