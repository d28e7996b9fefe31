#!/usr/bin/env bash
# readme.sh -- every example of the README runs as written: each ```sql block, in order, in one
# fresh database (each block in its own psql session, stopping at its first error), as a
# superuser in this test cluster.  Also checks that doc/reference.md documents every public
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

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null
for f in "$blocks"/*.sql; do
	where=$(head -n 1 "$f" | sed 's/^-- //')
	if out=$(psql -X -q -v ON_ERROR_STOP=1 -d "$DB" -f "$f" 2>&1); then
		check "README block at $where" 1
	else
		check "README block at $where" 0
		sed 's/^/    /' "$f" | head -n 30
		echo "    --"
		grep -E 'ERROR|FATAL' <<<"$out" | head -n 5 | sed 's/^/    /'
	fi
done

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

# the roles the README creates are cluster-wide
psql -X -q -d postgres -c "DROP DATABASE $DB" >/dev/null 2>&1
for r in carol alex dashboard; do psql -X -q -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1; done
report
