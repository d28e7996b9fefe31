#!/usr/bin/env bash
# readme.sh -- every example of the README runs as written and prints what it should: each ```sql
# block, in order, in one fresh database (each block in its own psql session, stopping at its
# first error), as a superuser in this test cluster; their output (noisy results reduced to their
# header and row count) against test/expected/readme.out.  Also checks that doc/reference.md documents every public
# function of the installed extension.  Prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."

DB=dpm_readme
. "$(dirname "$0")/lib/check.sh"

blocks=$(mktemp -d -t dpmatrix-readme.XXXXXX)
trap 'rm -rf "${blocks:?}"' EXIT
# block N of the README goes to $blocks/N.sql, with its first line number
awk -v dir="$blocks" '
	/^```sql[[:space:]]*$/ { n++; f = sprintf("%s/%03d.sql", dir, n); print "-- README.md line " NR + 1 > f; inside = 1; next }
	/^```/ { if (inside) close(f); inside = 0; next }
	inside { print > f }
' README.md

# What a statement prints that differs at every run (noisy answers, simulated intervals, timings,
# pids), or what the README marks "varies by CPU" (figures that follow the CPU's BLAS kernels): only the header and the row count of its result are compared, and times in
# messages are masked.  Everywhere: psql's file
# prefix goes, spaces are collapsed and table rules dropped (column widths follow the values), and
# decimals are compared to 9 significant digits (the last ones depend on the BLAS's kernels).
NOISY='dpm\.(answer|mechanism|noise|progress|explain|release\(|quantiles|estimate)|optimize_ms|reporting\.population|varies by CPU'
mask() {
	perl -ne '
		BEGIN { $noisy = qr/$ENV{NOISY}/ }
		s/^psql:[^:]*:[0-9]+: //;
		$masked = 1 if /$noisy/;
		if (/^-+(\+-+)*$/) { $skipping = $masked; next }
		if ($skipping) {
			next unless /^\([0-9]+ rows?\)$/;
			print "(rows not compared)\n";
			$skipping = $masked = 0;
		}
		s/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?([+-]\d\d(:\d\d)?)?/<time>/g;
		s/(-?[0-9]+\.[0-9]{9,})/sprintf("%.9g", $1)/ge;
		s/ +/ /g; s/^ | $//g;
		print;'
}
export NOISY

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null
got=$(mktemp -t dpmatrix-readme-out.XXXXXX)
for f in "$blocks"/*.sql; do
	where=$(head -n 1 "$f" | sed 's/^-- //')
	if out=$(psql -X -q -a -v ON_ERROR_STOP=1 -d "$DB" -f "$f" 2>&1); then
		check "README block at $where" 1
	else
		check "README block at $where" 0
		sed 's/^/    /' "$f" | head -n 30
		echo "    --"
		grep -E 'ERROR|FATAL' <<<"$out" | head -n 5 | sed 's/^/    /'
	fi
	mask <<<"$out" >>"$got"
done
# and what the blocks print is what test/expected/readme.out says (a README change that changes
# an output: check the new output, then copy it there; DPM_README_ACCEPT=1 does the copy).  Make it
# on scripts/test.sh's kind of cluster.  What follows the CPU's BLAS kernels (OPENBLAS_CORETYPE in
# a server's environment) is marked "varies by CPU" in the README: the eigen strategies' Laplace
# errors move in the second decimal with it, since an eigenbasis of a repeated eigenvalue is not
# unique.
if [ "${DPM_README_ACCEPT:-0}" = 1 ]; then cp "$got" test/expected/readme.out; fi
if diff -u test/expected/readme.out "$got" >"$got.diff"; then
	check "the README blocks print what test/expected/readme.out says" 1
else
	check "the README blocks print what test/expected/readme.out says" 0
	head -n 60 "$got.diff" | sed 's/^/    /'
fi
rm -f "$got" "$got.diff"

# doc/reference.md documents exactly the functions, tables and views of schema dpm (the rest is in
# dpm_internal)
public=$(psql -X -q -At -d "$DB" -c "
	SELECT proname FROM pg_proc WHERE pronamespace = 'dpm'::regnamespace
	UNION SELECT relname FROM pg_class WHERE relnamespace = 'dpm'::regnamespace AND relkind IN ('r', 'v')
	ORDER BY 1")
documented=$(grep -oE '^## `dpm\.[a-z_]+`' doc/reference.md | sed -E 's/^## `dpm\.([a-z_]+)`/\1/' | sort -u)
missing=$(comm -23 <(echo "$public") <(echo "$documented") | tr '\n' ' ')
extra=$(comm -13 <(echo "$public") <(echo "$documented") | tr '\n' ' ')
check "doc/reference.md documents everything public${missing:+ (missing: $missing)}" "$(tf test -z "$missing")"
check "doc/reference.md documents nothing that is not one${extra:+ (not in schema dpm: $extra)}" "$(tf test -z "$extra")"

# the README's session_preload_libraries block took effect: a new session knows the settings
# before any dpmatrix function runs (issue 22, item 7)
shown=$(psql -X -q -At -d "$DB" -c "SHOW dpm.max_cells" 2>&1)
check "a new session shows dpm.max_cells without a dpmatrix call (got: $shown)" "$(tf test "$shown" -gt 0 2>/dev/null)"
# doc/reference.md's settings table names exactly the library's settings, with those hidden from
# pg_settings (GUC_NO_SHOW_ALL: testing only), named here and checked to exist
settings=$(psql -X -q -At -d "$DB" -c "LOAD 'dpmatrix'" -c "SELECT name FROM (SELECT name FROM pg_settings WHERE name LIKE 'dpm.%'
  UNION ALL SELECT h FROM unnest('{dpm.audit_sensitivity_scale}'::text[]) h WHERE current_setting(h, true) IS NOT NULL) s
  ORDER BY name COLLATE \"C\"")
tabled=$(grep -oE '^\| `dpm\.[a-z_]+`' doc/reference.md | sed -E 's/^\| `(dpm\.[a-z_]+)`/\1/' | LC_ALL=C sort -u)
check "doc/reference.md's settings table lists every setting and only those ($(echo "$settings" | wc -w) settings)" \
	"$(tf test -n "$settings" -a "$settings" = "$tabled")"
psql -X -q -d postgres -c "ALTER SYSTEM RESET session_preload_libraries" -c "SELECT pg_reload_conf()" >/dev/null

# the roles the README creates are cluster-wide
psql -X -q -d postgres -c "DROP DATABASE $DB" >/dev/null 2>&1
for r in carol alex dashboard; do psql -X -q -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1; done
report
