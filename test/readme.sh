#!/usr/bin/env bash
# readme.sh -- every example of the manual runs as written and prints what it should: the README
# and each page of doc/guide/, each page in a fresh database of its own (so that a page runs
# alone: it creates what it needs), each ```sql block of a page in order, in its own psql session
# stopping at its first error, as a superuser in this test cluster; what the blocks print (noisy
# results reduced to their header and row count) against test/expected/readme.out for the README
# and test/expected/guide/PAGE.out for doc/guide/PAGE.md.  Also checks that every guide page opens
# with SQL, that every long page has a table of contents, and that doc/reference.md documents
# every public function of the installed extension.  Prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."

DB=dpm_readme
ROLES="carol alex dashboard"	# the roles the pages create, which are cluster-wide
. "$(dirname "$0")/lib/check.sh"

# What a statement prints that differs at every run (noisy answers, simulated intervals, timings,
# pids), or what a page marks "varies by CPU" (figures that follow the CPU's BLAS kernels): only the header and the row count of its result are compared, and times in
# messages are masked.  Everywhere: psql's file
# prefix goes, spaces are collapsed and table rules dropped (column widths follow the values), and
# decimals are compared to 9 significant digits (the last ones depend on the BLAS's kernels).
NOISY='dpm\.(answer(?!_keys)|query|mechanism|noise|progress|explain|release\(|quantiles|estimate)|optimize_ms|reporting\.population|varies by CPU'
mask() {
	perl -ne '
		BEGIN { $noisy = qr/$ENV{NOISY}/ }
		s/^psql:[^:]*:[0-9]+: //;
		# a statement that failed printed no rows, and its message names no noisy statement
		if (/^(ERROR|DETAIL|HINT):/) { $masked = 0 if /^ERROR:/ } elsif (/$noisy/) { $masked = 1 }
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

fresh_database() {
	psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null
	for r in $ROLES; do psql -X -q -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1; done
	psql -X -q -d postgres -c "CREATE DATABASE $DB" >/dev/null
}

# run_page PAGE EXPECTED: block N of PAGE goes to $blocks/N.sql, with its first line number, and
# runs in the current database; what the blocks print is what EXPECTED says (a page change that
# changes an output: check the new output, then copy it there; DPM_README_ACCEPT=1 does the copy).
# Make it on scripts/test.sh's kind of cluster.  What follows the CPU's BLAS kernels
# (OPENBLAS_CORETYPE in a server's environment) is marked "varies by CPU" in the pages: the eigen
# strategies' Laplace errors move in the second decimal with it, since an eigenbasis of a repeated
# eigenvalue is not unique.
run_page() {
	local page=$1 expected=$2 blocks got f where out
	blocks=$(mktemp -d -t dpmatrix-readme.XXXXXX)
	awk -v dir="$blocks" -v page="$page" '
		/^```sql[[:space:]]*$/ { n++; f = sprintf("%s/%03d.sql", dir, n); print "-- " page " line " NR + 1 > f; inside = 1; next }
		/^```/ { if (inside) close(f); inside = 0; next }
		inside { print > f }
	' "$page"
	got=$(mktemp -t dpmatrix-readme-out.XXXXXX)
	for f in "$blocks"/*.sql; do
		[ -e "$f" ] || continue
		where=$(head -n 1 "$f" | sed 's/^-- //')
		if out=$(psql -X -q -a -v ON_ERROR_STOP=1 -d "$DB" -f "$f" 2>&1); then
			check "block at $where" 1
		else
			check "block at $where" 0
			sed 's/^/    /' "$f" | head -n 30
			echo "    --"
			grep -E 'ERROR|FATAL' <<<"$out" | head -n 5 | sed 's/^/    /'
		fi
		mask <<<"$out" >>"$got"
	done
	if [ "${DPM_README_ACCEPT:-0}" = 1 ]; then mkdir -p "$(dirname "$expected")"; cp "$got" "$expected"; fi
	if diff -u "$expected" "$got" >"$got.diff" 2>&1; then
		check "the blocks of $page print what $expected says" 1
	else
		check "the blocks of $page print what $expected says" 0
		head -n 60 "$got.diff" | sed 's/^/    /'
	fi
	rm -rf "${blocks:?}" "$got" "$got.diff"
}

# every guide page opens with SQL (a block before its first section), and a page of more than 150
# lines has a table of contents (a list of links to its own sections)
for page in doc/guide/*.md; do
	opens=$(awk '/^```sql/ { print "t"; exit } /^## / { print "f"; exit }' "$page")
	check "$page opens with SQL" "${opens:-f}"
done
for page in README.md doc/guide/*.md doc/dev/*.md CHANGELOG.md bench/RESULTS.md; do
	[ -e "$page" ] && [ "$(wc -l <"$page")" -gt 150 ] || continue
	check "$page (over 150 lines) has a table of contents" "$(tf grep -qE '^ *[-|] .*\]\(#' "$page")"
done

fresh_database
run_page README.md test/expected/readme.out

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


# then each guide page alone, in a database of its own
for page in doc/guide/*.md; do
	fresh_database
	run_page "$page" "test/expected/guide/$(basename "$page" .md).out"
done
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1
for r in $ROLES; do psql -X -q -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1; done
report
