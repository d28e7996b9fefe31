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

missing=$(psql -X -q -At -d "$DB" -c "
	SELECT string_agg(DISTINCT proname, ' ') FROM pg_proc
	 WHERE pronamespace = 'dpm'::regnamespace AND proname !~ '^_' AND proname NOT LIKE 'histogram\_%fn'" |
	tr ' ' '\n' | while read -r name; do
		grep -qF "## \`dpm.$name\`" doc/reference.md || echo "$name"
	done | tr '\n' ' ')
check "doc/reference.md documents every public function${missing:+ (missing: $missing)}" "$([ -z "$missing" ] && echo 1 || echo 0)"

# the roles the README creates are cluster-wide
psql -X -q -d postgres -c "DROP DATABASE $DB" >/dev/null 2>&1
for r in carol alex dashboard; do psql -X -q -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1; done
report
