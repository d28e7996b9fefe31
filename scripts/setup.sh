#!/usr/bin/env bash
# setup.sh -- the install steps shared by scripts/demo.sh and scripts/test.sh on Debian 12:
# the packages dpmatrix needs (apt-get, skipped when all are installed), the build (make, as the
# calling user) and the install into PostgreSQL 15 (make install, with sudo unless run as root).
set -euo pipefail

PGVERSION=15
PG_CONFIG=/usr/lib/postgresql/$PGVERSION/bin/pg_config
PACKAGES=(
	build-essential                     # gcc, make
	"postgresql-$PGVERSION"             # the server
	"postgresql-server-dev-$PGVERSION"  # headers, PGXS, pg_regress
	postgresql-common                   # pg_virtualenv: throw-away clusters for the demo and tests
	libopenblas-dev                     # BLAS and LAPACK
	liblbfgsb-dev                       # L-BFGS-B: the quasi-Newton loop of the HDMM strategies
	odbc-postgresql unixodbc python3-pyodbc  # test/odbc.sh: a release read the way BI tools read it
	libipc-run-perl                     # IPC::Run, for PostgreSQL::Test::Cluster: the TAP tests (test/t)
)

cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [ "$(id -u)" = 0 ]; then
	SUDO=()
elif command -v sudo >/dev/null 2>&1; then
	SUDO=(sudo)
else
	echo "setup: run this as root, or install sudo (apt-get install sudo) and allow this user to use it" >&2
	exit 1
fi

missing=()
for p in "${PACKAGES[@]}"; do
	if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -gt 0 ]; then
	echo "setup: installing ${missing[*]} (apt-get)"
	log=$(mktemp -t dpmatrix-apt.XXXXXX)
	apt=("${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -y
		-o DPkg::Lock::Timeout=600 -o Dpkg::Use-Pty=0
		-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
	if ! { "${apt[@]}" update && "${apt[@]}" install --no-install-recommends "${missing[@]}"; } \
		</dev/null >"$log" 2>&1; then
		tail -n 40 "$log" >&2
		echo "setup: apt-get failed; the whole log is $log" >&2
		exit 1
	fi
	rm -f "$log"
fi

echo "setup: building dpmatrix"
make -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG"

echo "setup: installing dpmatrix into PostgreSQL $PGVERSION"
"${SUDO[@]}" make -s install PG_CONFIG="$PG_CONFIG" >/dev/null
