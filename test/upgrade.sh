#!/usr/bin/env bash
# upgrade.sh -- ALTER EXTENSION dpmatrix UPDATE keeps every row and the budget, and ends where a
# fresh install does.  On a private copy of the PostgreSQL installation ($PG_CONFIG's, copied to
# a temporary directory, so the system's own is never touched): dpmatrix 0.1, built from the
# v0.1 tag's source, is installed and filled (sources with budgets, a domain, workloads, cached
# strategies, releases, a publication); then 0.2, built from the v0.2 tag (or its last commit),
# replaces it, the extension is updated to 0.2 and filled more (a
# measure, a sum and an average); then this tree's build replaces that (.so and scripts) and the
# extension is updated again.  Checks, at each step: every catalog row is as before; the budget sums and is still
# enforced (a charge that would overspend is refused, one that fits lands, through the new
# release worker); old releases replay; the publication reads; analysts cannot reach
# dpm_internal; and the updated extension's objects (functions with their bodies, settings and
# privileges, tables, policies, views) are exactly those of a fresh install of this version.
# Prints "N passed, N failed".  Needs the git history (the tags, or the commits they mark).
set -u
. "$(dirname "$0")/lib/check.sh"
cd "$(dirname "$0")/.." || exit 1
TOP=$PWD
OLD_VERSION=0.1
OLD_COMMIT=31fe8a2	# what v0.1 tags, should a clone lack the tag
MID_VERSION=0.2
MID_COMMIT=a22e348	# the last commit of 0.2 (before 0.3's API changes, and building on 15 to 18), should a clone lack the tag v0.2
PG_CONFIG=${PG_CONFIG:-pg_config}
PORT=${DPM_UPGRADE_PORT:-54329}

work=$(mktemp -d -t dpmatrix-upgrade.XXXXXX)
cleanup() {
	[ -n "${PGCTL:-}" ] && run "$PGCTL" -D "$work/data" -m immediate stop >/dev/null 2>&1
	rm -rf "${work:?}"
}
trap cleanup EXIT
# the server runs as postgres when this runs as root
run() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
fail_setup() { echo "upgrade: $1"; check "set-up: $1" 0; report; exit 1; }

# --- a private copy of the installation: bin, lib, share and headers keep their relative places
bindir=$("$PG_CONFIG" --bindir)
prefix=${bindir%/lib/postgresql/*/bin}	# /usr on Debian
# (bin is inside Debian's pkglibdir/.., not inside a self-contained build's: named too)
for d in "$bindir" "$("$PG_CONFIG" --pkglibdir)/.." "$("$PG_CONFIG" --sharedir)" "$("$PG_CONFIG" --includedir-server)/../.."; do
	d=$(cd "$d" && pwd)
	mkdir -p "$work/pg$(dirname "$d")" && cp -a "$d" "$work/pg$(dirname "$d")/" ||
		fail_setup "cannot copy $d"
done
MYPG_CONFIG=$work/pg$bindir/pg_config
PGCTL=$work/pg$bindir/pg_ctl
[ "$("$MYPG_CONFIG" --sharedir)" = "$work/pg$("$PG_CONFIG" --sharedir)" ] ||
	fail_setup "the copied installation does not find its own files (not relocatable?)"

# unpack VERSION COMMIT DIR: that version's source (its tag vVERSION, or COMMIT) into $work/DIR
unpack()
{
	local rev
	if git -C "$TOP" rev-parse -q --verify "v$1^{commit}" >/dev/null; then
		rev=v$1
	elif git -C "$TOP" rev-parse -q --verify "$2^{commit}" >/dev/null; then
		rev=$2
	else
		fail_setup "neither the tag v$1 nor commit $2 is in this clone's history"
	fi
	mkdir "$work/$3" && git -C "$TOP" archive "$rev" | tar -x -C "$work/$3" || fail_setup "git archive $rev"
}

# --- dpmatrix 0.1 from the tag, into the copy
unpack "$OLD_VERSION" "$OLD_COMMIT" old
# with_llvm=no: no JIT bitcode, which the test does not need (halves the build); from 17 on, the
# old source gets the names those versions renamed (test/lib/old_build/compat.h)
old_copt=()
if [ "$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')" -ge 17 ]; then
	old_copt=(COPT="-include $TOP/test/lib/old_build/compat.h -I$TOP/test/lib/old_build")
fi
make -s -C "$work/old" -j2 with_llvm=no PG_CONFIG="$MYPG_CONFIG" "${old_copt[@]}" >"$work/old.log" 2>&1 &&
	make -s -C "$work/old" with_llvm=no PG_CONFIG="$MYPG_CONFIG" "${old_copt[@]}" install >>"$work/old.log" 2>&1 ||
	{ tail -n 20 "$work/old.log"; fail_setup "the build of $OLD_VERSION failed"; }

# --- dpmatrix 0.2 from its tag (or its last commit), built now and installed after 0.1 is filled
unpack "$MID_VERSION" "$MID_COMMIT" mid
make -s -C "$work/mid" -j2 with_llvm=no PG_CONFIG="$MYPG_CONFIG" >"$work/mid.log" 2>&1 ||
	{ tail -n 20 "$work/mid.log"; fail_setup "the build of $MID_VERSION failed"; }

# --- a cluster on the copy, with 0.1 filled
[ "$(id -u)" = 0 ] && chown -R postgres "$work"
run "$work/pg$bindir/initdb" -D "$work/data" -A trust -U postgres --locale=C.UTF-8 >"$work/initdb.log" 2>&1 ||
	{ cat "$work/initdb.log"; fail_setup "initdb"; }
start() {
	run "$PGCTL" -D "$work/data" -l "$work/server.log" -w \
		-o "-p $PORT -k $work -c listen_addresses='' -c max_worker_processes=16" start >/dev/null ||
		{ tail -n 20 "$work/server.log"; fail_setup "the server did not start"; }
}
start
export PGHOST=$work PGPORT=$PORT PGUSER=postgres PGDATABASE=upg
export PGOPTIONS="-c client_min_messages=warning"
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
psql -X -q -d postgres -c "CREATE DATABASE upg" -c "CREATE DATABASE fresh" >/dev/null || fail_setup "createdb"

q >/dev/null <<SQL || fail_setup "filling $OLD_VERSION"
CREATE EXTENSION dpmatrix VERSION '$OLD_VERSION';
CREATE ROLE regress_upg_custodian IN ROLE dpm_admin;
CREATE ROLE regress_upg_analyst IN ROLE dpm_analyst;
CREATE ROLE regress_upg_reader;
CREATE TABLE people AS SELECT i AS id, i % 90 AS age, CASE WHEN i % 3 = 0 THEN 'F' ELSE 'M' END AS sex
  FROM generate_series(1, 5000) i;
CREATE TABLE visits AS SELECT i AS id, i % 500 AS patient, i % 7 AS weekday FROM generate_series(1, 3000) i;
GRANT SELECT ON people, visits TO regress_upg_custodian;
CREATE SCHEMA reporting;
GRANT CREATE ON SCHEMA reporting TO regress_upg_custodian;
GRANT USAGE ON SCHEMA reporting TO regress_upg_reader;
SET ROLE regress_upg_custodian;
SELECT dpm.register_source('people', epsilon => 3);
SELECT dpm.register_source('visits', privacy_unit => 'patient', max_contributions => 5, rho => 2);
SELECT dpm.set_budget('people', epsilon => 2);
SELECT dpm.create_domain('upg_age_sex', 'people',
  '[{"name": "age", "column": "age", "bins": {"min": 0, "max": 90, "width": 10}},
    {"name": "sex", "column": "sex", "values": ["F", "M"]}]');
SELECT dpm.create_domain('upg_day', 'visits', '[{"name": "day", "column": "weekday", "values": [0,1,2,3,4,5,6]}]');
SET ROLE regress_upg_analyst;
SELECT dpm.create_workload('upg_ranges', 'upg_age_sex', 'AllRange(age) * Identity(sex)');
SELECT dpm.create_workload('upg_days', 'upg_day', 'Prefix(day)');
SELECT dpm.optimize('upg_ranges', 'hierarchical');
SELECT count(*) FROM dpm.answer('upg_ranges', epsilon => 0.75, method => 'identity');
SELECT count(*) FROM dpm.answer('upg_ranges', epsilon => 0.75, method => 'hierarchical');
SELECT count(*) FROM dpm.answer('upg_days', rho => 0.5, method => 'identity');
SET ROLE regress_upg_custodian;
SELECT dpm.publish((SELECT min(id) FROM dpm.releases), 'reporting.upg_view', reader => 'regress_upg_reader');
RESET ROLE;
SQL

check "dpmatrix $OLD_VERSION installed and filled" \
	"$(tf test "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'dpmatrix'")" = "$OLD_VERSION")"

# Every catalog row, one md5 per table (ordered by key), and the budgets (but for workload
# upg_marg, which 0.2 adds, and its strategies).
snapshot() {
	q -d upg <<'SQL'
SELECT t, md5(string_agg(r, E'\n' ORDER BY r)) FROM (
  -- 0.2 adds columns that are NULL for every 0.1 row: a source's unregistered_at and
  -- relation_name, the dropped_at of domains, workloads and strategies; and a source's
  -- max_key_bytes, 256 for every 0.1 row (no 0.1 release selected keys)
  SELECT 'sources' t, (to_jsonb(s) - 'unregistered_at' - 'relation_name' - 'period_column' - 'period_width'
                       - 'period_start' - 'period_zone' - 'max_periods' - 'max_groups' - 'max_per_group' - 'budget_of'
                       - CASE WHEN (to_jsonb(s)->>'max_key_bytes')::int = 256 THEN 'max_key_bytes' ELSE '' END)::text
                      || CASE WHEN to_jsonb(s)->>'unregistered_at' IS NOT NULL THEN ' unregistered' ELSE '' END r
    FROM dpm.sources s UNION ALL
  -- and cells, the exact count, equal to n for every 0.1 domain
  SELECT 'domains', (to_jsonb(d) - 'cells' - 'dropped_at')::text
                    || CASE WHEN (to_jsonb(d)->>'cells')::numeric <> d.n THEN ' cells <> n' ELSE '' END
                    || CASE WHEN to_jsonb(d)->>'dropped_at' IS NOT NULL THEN ' dropped' ELSE '' END
    FROM dpm.domains d UNION ALL
  SELECT 'workloads', (to_jsonb(w) - 'dropped_at' - 'remainder_of' - 'queries')::text || CASE WHEN to_jsonb(w)->>'dropped_at' IS NOT NULL THEN ' dropped' ELSE '' END
    FROM dpm.workloads w WHERE w.name <> 'upg_marg' UNION ALL
  -- 0.3 keeps HDMM's parameters in kronecker (the former hdmm) and a residual plan in residual:
  -- written back as hdmm, a residual plan as kind residual
  SELECT 'strategies', (j - 'dropped_at' - 'kronecker' - 'residual' || jsonb_build_object('hdmm',
           CASE WHEN coalesce(j->'residual', 'null') <> 'null'
                THEN jsonb_build_object('kind', 'residual', 'p', j->'residual'->'attribute_sets',
                                        'theta', CASE WHEN j->'residual'->'variances' <> 'null' THEN j->'residual'->'variances'
                                                      ELSE j->'residual'->'table_weights' END, 'weights', NULL)
                ELSE coalesce(j->'kronecker', j->'hdmm') END))::text
         || CASE WHEN j->>'dropped_at' IS NOT NULL THEN ' dropped' ELSE '' END
    FROM dpm.strategies s, LATERAL to_jsonb(s) j
   WHERE s.workload_id NOT IN (SELECT w.id FROM dpm.workloads w WHERE w.name = 'upg_marg') UNION ALL
  -- and measure_id, NULL for every 0.1 release (counts)
  SELECT 'releases', (to_jsonb(r) - 'measure_id' - 'sum_share' - 'kind' - 'periods')::text || CASE WHEN to_jsonb(r)->>'measure_id' IS NOT NULL THEN ' summed' ELSE '' END
    FROM dpm.releases r UNION ALL
  SELECT 'release_answers', a::text FROM dpm.release_answers a UNION ALL
  -- and the periods of a charge, NULL for every 0.1 charge (no source had periods)
  SELECT 'ledger', (to_jsonb(l) - 'periods')::text FROM dpm.ledger l UNION ALL
  SELECT 'publications', p::text FROM dpm.publications p UNION ALL
  -- the source's own row (0.3 adds role_name, and a row per privacy policy: none here)
  SELECT 'budget people', (to_jsonb(b) - 'role_name')::text FROM dpm.budget('people') b UNION ALL
  SELECT 'budget visits', (to_jsonb(b) - 'delta_spent' - 'role_name')::text FROM dpm.budget('visits') b UNION ALL
  SELECT 'view', v::text FROM reporting.upg_view v) x GROUP BY t ORDER BY t;
SQL
}
before=$(snapshot) || fail_setup "the snapshot of $OLD_VERSION"
replay_before=$(q -c "SELECT string_agg(answer::text, ',' ORDER BY query) FROM dpm.release(1)")

# --- 0.2's build replaces 0.1's files; the extension is updated to 0.2, then filled more
run "$PGCTL" -D "$work/data" -w stop >/dev/null || fail_setup "stop"
make -s -C "$work/mid" with_llvm=no PG_CONFIG="$MYPG_CONFIG" install >>"$work/mid.log" 2>&1 ||
	{ tail -n 20 "$work/mid.log"; fail_setup "make install of $MID_VERSION"; }
start
update_out=$(q -c "ALTER EXTENSION dpmatrix UPDATE TO '$MID_VERSION'" 2>&1)
check "ALTER EXTENSION dpmatrix UPDATE TO '$MID_VERSION' from $OLD_VERSION${update_out:+ ($update_out)}" "$(tf test -z "$update_out")"
after=$(snapshot)
check "at $MID_VERSION, every catalog row, the budgets and the published view are unchanged" "$(tf test "$before" = "$after")"
[ "$before" = "$after" ] || diff <(echo "$before") <(echo "$after") | sed 's/^/    /'
q >/dev/null <<SQL || fail_setup "filling $MID_VERSION"
SET ROLE regress_upg_custodian;
SELECT dpm.create_measure('visits', 'day', 'weekday', 0, 6);
SET ROLE regress_upg_analyst;
-- ResidualPlanner plans for both noises and an HDMM strategy, which 0.3 keeps in columns of their own
SELECT dpm.create_workload('upg_marg', 'upg_age_sex', 'Identity(age) * Identity(sex) + Identity(sex)');
SELECT dpm.optimize('upg_marg', 'residual', rho => 1);
SELECT dpm.optimize('upg_marg', 'residual', epsilon => 1);
SELECT dpm.optimize('upg_marg', 'hdmm');
SELECT count(*) FROM dpm.answer('upg_days', rho => 0.25, measure => 'day', method => 'identity');
SELECT count(*) FROM dpm.answer('upg_days', rho => 0.25, measure => 'day', aggregate => 'avg', method => 'identity');
RESET ROLE;
SQL
# every row of every catalog table, whole, and the budgets: what the update to 0.3 must keep
full_snapshot() {
	q -d upg <<'SQL'
SELECT t, md5(string_agg(r, E'\n' ORDER BY r)) FROM (
  SELECT c.relname::text t, x.r FROM pg_class c,
         LATERAL (SELECT * FROM dpm_internal.snapshot_rows(c.oid::regclass)) x(r)
   WHERE c.relnamespace = 'dpm'::regnamespace AND c.relkind = 'r'
     AND c.relname NOT IN ('interval_widths', 'strategies', 'releases', 'sources', 'release_answers', 'release_answer_blocks') UNION ALL
  -- 0.3 keeps the answers in blocks: read as the rows they were, through the view of that name
  SELECT 'release_answers', a::text FROM dpm.release_answers a UNION ALL
  -- 0.3's releases have columns more, extra_parts, counted and bounds (NULL, 'rows', NULL before)
  SELECT 'releases', (to_jsonb(r) - 'extra_parts' - 'counted' - 'bounds')::text FROM dpm.releases r UNION ALL
  -- and its sources two bounds and a shared budget more (NULL for sources made before)
  SELECT 'sources', (to_jsonb(s) - 'max_groups' - 'max_per_group' - 'budget_of')::text FROM dpm.sources s UNION ALL
  -- as in snapshot: 0.3's kronecker and residual written back as 0.2's hdmm
  SELECT 'strategies', (j - 'kronecker' - 'residual' || jsonb_build_object('hdmm',
           CASE WHEN coalesce(j->'residual', 'null') <> 'null'
                THEN jsonb_build_object('kind', 'residual', 'p', j->'residual'->'attribute_sets',
                                        'theta', CASE WHEN j->'residual'->'variances' <> 'null' THEN j->'residual'->'variances'
                                                      ELSE j->'residual'->'table_weights' END, 'weights', NULL)
                ELSE coalesce(j->'kronecker', j->'hdmm') END))::text
    FROM dpm.strategies s, LATERAL to_jsonb(s) j UNION ALL
  SELECT 'budget ' || s, (to_jsonb(b) - 'role_name')::text FROM unnest(ARRAY['people', 'visits']) s, dpm.budget(s::regclass) b UNION ALL
  SELECT 'view', v::text FROM reporting.upg_view v) x GROUP BY t ORDER BY t;
SQL
}
q -d upg >/dev/null <<'SQL' || fail_setup "the snapshot function"
CREATE FUNCTION dpm_internal.snapshot_rows(t regclass) RETURNS SETOF text LANGUAGE plpgsql AS
$$ BEGIN RETURN QUERY EXECUTE format('SELECT x::text FROM %s x', t); END $$;
SQL
before_mid=$(full_snapshot) || fail_setup "the snapshot of $MID_VERSION"
q -d upg -c "DROP FUNCTION dpm_internal.snapshot_rows(regclass)" >/dev/null
check "$MID_VERSION filled: a measure, a sum and an average released" \
	"$(q -c "SELECT count(*) = 2 FROM dpm.releases WHERE measure_id IS NOT NULL")"

# --- this tree's build replaces 0.2's files; the extension is updated
run "$PGCTL" -D "$work/data" -w stop >/dev/null || fail_setup "stop"
make -s -C "$TOP" PG_CONFIG="$MYPG_CONFIG" install >"$work/new.log" 2>&1 ||
	{ tail -n 20 "$work/new.log"; fail_setup "make install of this tree (build it first)"; }
start
NEW_VERSION=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$TOP/dpmatrix.control")
update_out=$(q -c "ALTER EXTENSION dpmatrix UPDATE" 2>&1)
check "ALTER EXTENSION dpmatrix UPDATE from $MID_VERSION${update_out:+ ($update_out)}" "$(tf test -z "$update_out")"
check "the extension is at $NEW_VERSION" "$(tf test "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'dpmatrix'")" = "$NEW_VERSION")"

q -d upg >/dev/null <<'SQL' || fail_setup "the snapshot function"
CREATE FUNCTION dpm_internal.snapshot_rows(t regclass) RETURNS SETOF text LANGUAGE plpgsql AS
$$ BEGIN RETURN QUERY EXECUTE format('SELECT x::text FROM %s x', t); END $$;
SQL
after_mid=$(full_snapshot)
q -d upg -c "DROP FUNCTION dpm_internal.snapshot_rows(regclass)" >/dev/null
check "every row of every catalog table of $MID_VERSION, the budgets and the published view are unchanged" \
	"$(tf test "$before_mid" = "$after_mid")"
[ "$before_mid" = "$after_mid" ] || diff <(echo "$before_mid") <(echo "$after_mid") | sed 's/^/    /'
check "the residual plans are in their own column (Gaussian: variances; Laplace: table weights), HDMM's in kronecker" \
	"$(q -c "SELECT count(*) FILTER (WHERE noise = 'gaussian' AND (s.residual).variances IS NOT NULL AND (s.residual).table_weights IS NULL) = 1
	               AND count(*) FILTER (WHERE noise = 'laplace' AND (s.residual).table_weights IS NOT NULL AND (s.residual).variances IS NULL) = 1
	               AND count(*) FILTER (WHERE (s.kronecker).kind IS NOT NULL) = 1
	               AND bool_and(num_nonnulls(s.matrix, s.kronecker, s.residual) = 1)
	          FROM dpm.strategies s JOIN dpm.workloads w ON w.id = s.workload_id WHERE w.name = 'upg_marg'")"
out=$(q -c "SET ROLE regress_upg_analyst" -c "SELECT count(*) FROM dpm.explain_queries('upg_marg', epsilon => 0.1,
             strategy => (SELECT id FROM dpm.strategies WHERE method = 'residual' AND noise = 'laplace'))" 2>&1)
check "a moved Laplace plan is planned as before: its 20 queries explained (got: $out)" "$(tf test "$out" = 20)"
after=$(snapshot | grep -v '^releases|\|^release_answers|\|^ledger|\|^budget visits|')
before_01=$(grep -v '^releases|\|^release_answers|\|^ledger|\|^budget visits|' <<<"$before")
check "and those of $OLD_VERSION (but for the releases added at $MID_VERSION)" "$(tf test "$before_01" = "$after")"
[ "$before_01" = "$after" ] || diff <(echo "$before_01") <(echo "$after") | sed 's/^/    /'
check "an old release replays the same answers" \
	"$(tf test "$(q -c "SELECT string_agg(answer::text, ',' ORDER BY query) FROM dpm.release(1)")" = "$replay_before")"
derive_out=$(q -c "SELECT count(*) FROM dpm.release(1, inference => 'nnls')" 2>&1)
check "an old release kept no measurements: deriving it again says so" \
	"$(tf grep -q 'release 1 keeps no measurements' <<<"$derive_out")"

# the budget is still enforced: people has 2 - 1.5 = 0.5 left
as_analyst() { q -c "SET ROLE regress_upg_analyst" -c "$1" 2>&1; }
out=$(as_analyst "SELECT count(*) FROM dpm.answer('upg_ranges', epsilon => 0.6, method => 'identity')")
check "a charge beyond the remaining budget is refused" "$(tf grep -q 'budget' <<<"$out")"
out=$(as_analyst "SELECT count(*) FROM dpm.answer('upg_ranges', epsilon => 0.5, method => 'hierarchical')")
check "a charge within it lands, through the new release worker (got: $out)" "$(tf test "$out" = 90)"
check "the budget is then spent exactly" \
	"$(q -c "SELECT epsilon_remaining = 0 AND releases = 3 FROM dpm.budget('people')")"
out=$(as_analyst "SELECT count(*) FROM dpm.answer('upg_days', rho => 1.5, method => 'identity')")
check "zCDP budgets too: rho 1.5 on top of 1 spent is refused" "$(tf grep -q 'budget' <<<"$out")"
check "the ledger has one row per release" \
	"$(q -c "SELECT (SELECT count(*) FROM dpm.ledger) = (SELECT count(*) FROM dpm.releases WHERE status = 'released')")"
check "analysts cannot reach dpm_internal" \
	"$(q -c "SELECT NOT has_schema_privilege('regress_upg_analyst', 'dpm_internal', 'USAGE')
	            AND NOT EXISTS (SELECT FROM pg_proc WHERE pronamespace = 'dpm'::regnamespace AND proname ~ '^_')")"
check "the reader still reads the publication" \
	"$(q -c "SET ROLE regress_upg_reader" -c "SELECT count(*) > 0 FROM reporting.upg_view")"

# --- the updated extension is the fresh one: every member object, described
describe() {
	q -d "$1" <<'SQL'
SELECT pg_describe_object(d.classid, d.objid, d.objsubid) || ' | ' || coalesce(
  CASE d.classid
    WHEN 'pg_proc'::regclass THEN (SELECT concat_ws(' | ', pg_get_function_result(p.oid),
        pg_get_function_arguments(p.oid), p.provolatile, p.prosecdef, p.proconfig::text, p.proacl::text,
        p.prokind, p.proparallel, p.proisstrict, md5(p.prosrc), p.probin, obj_description(p.oid, 'pg_proc'))
      FROM pg_proc p WHERE p.oid = d.objid)
    WHEN 'pg_class'::regclass THEN (SELECT concat_ws(' | ', c.relkind, c.relacl::text, c.relrowsecurity,
        obj_description(c.oid, 'pg_class'),
        (SELECT string_agg(concat_ws(' ', a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
                                     pg_get_expr(ad.adbin, ad.adrelid), a.attcompression), ', ' ORDER BY a.attnum)
           FROM pg_attribute a LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
          WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped),
        (SELECT string_agg(pg_get_indexdef(i.indexrelid), ', ' ORDER BY pg_get_indexdef(i.indexrelid)) FROM pg_index i WHERE i.indrelid = c.oid),
        (SELECT string_agg(pg_get_constraintdef(k.oid), ', ' ORDER BY pg_get_constraintdef(k.oid)) FROM pg_constraint k WHERE k.conrelid = c.oid),
        (SELECT string_agg(pol.polname || ' ' || pg_get_expr(pol.polqual, pol.polrelid), ', ' ORDER BY pol.polname)
           FROM pg_policy pol WHERE pol.polrelid = c.oid),
        CASE c.relkind WHEN 'v' THEN pg_get_viewdef(c.oid) END)
      FROM pg_class c WHERE c.oid = d.objid)
    WHEN 'pg_namespace'::regclass THEN (SELECT nspacl::text || ' ' || obj_description(n.oid, 'pg_namespace')
      FROM pg_namespace n WHERE n.oid = d.objid)
  END, '')
  FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e' AND e.extname = 'dpmatrix'
 ORDER BY 1;
SQL
}
q -d fresh -c "CREATE EXTENSION dpmatrix" >/dev/null
updated=$(describe upg)
fresh=$(describe fresh)
check "the updated extension's $(wc -l <<<"$fresh") objects are those of a fresh install" "$(tf test "$updated" = "$fresh")"
[ "$updated" = "$fresh" ] || diff <(echo "$fresh") <(echo "$updated") | head -n 40 | sed 's/^/    /'

report
