#!/usr/bin/env bash
# setup.sh -- the install steps shared by scripts/demo.sh and scripts/test.sh on Debian 12:
# the packages dpmatrix needs (apt-get, skipped when all are installed), the build (make, as the
# calling user) and the install into PostgreSQL $DPM_PG_VERSION (15 unless set; make install, with
# sudo unless run as root).  Debian 12 carries PostgreSQL 15 only: another version comes from the
# workplace's vendor directory (next to this tree, or DPM_VENDOR), whose install-postgres.sh puts
# it in /usr/lib/postgresql/VERSION (a test-time engine, as Citus is).  A tree built for another
# version is cleaned first (.pg_version says which one it was built for).
set -euo pipefail

PGVERSION=${DPM_PG_VERSION:-15}
PG_CONFIG=/usr/lib/postgresql/$PGVERSION/bin/pg_config
PACKAGES=(
	build-essential                     # gcc, make
	postgresql-common                   # pg_virtualenv: throw-away clusters for the demo and tests
	libopenblas-dev                     # BLAS and LAPACK
	liblbfgsb-dev                       # L-BFGS-B: the quasi-Newton loop of the HDMM strategies
	odbc-postgresql unixodbc python3-pyodbc  # test/odbc.sh: a release read the way BI tools read it
	libpostgresql-jdbc-java openjdk-17-jdk-headless  # test/jdbc.sh: plain SQL from pgJDBC
	libipc-run-perl                     # IPC::Run, for PostgreSQL::Test::Cluster: the TAP tests (test/t)
)
if [ "$PGVERSION" = 15 ]; then
	PACKAGES+=(
		postgresql-15                   # the server
		postgresql-server-dev-15        # headers, PGXS, pg_regress
	)
fi

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

vendor=
for dir in "${DPM_VENDOR:-}" ../shared/vendor /work/shared/vendor; do
	if [ -n "$dir" ] && [ -f "$dir/install-postgres.sh" ]; then
		vendor=$dir
		break
	fi
done
if [ ! -x "$PG_CONFIG" ]; then
	if [ -z "$vendor" ]; then
		echo "setup: PostgreSQL $PGVERSION is not installed, and no vendor directory with install-postgres.sh was found (set DPM_VENDOR)" >&2
		exit 1
	fi
	"${SUDO[@]}" bash "$vendor/install-postgres.sh" "$PGVERSION"
fi
# The contrib modules the tests use (citext: test/sql/unit_equality.sql; file_fdw:
# test/sql/remote_columns.sql), which a vendored build may lack: built from the vendor's source
# of the same version with PGXS (seconds), as test-time dependencies.
sharedir=$("$PG_CONFIG" --sharedir)
for module in citext file_fdw; do
	[ -f "$sharedir/extension/$module.control" ] && continue
	release=$("$PG_CONFIG" --version | awk '{print $2}')
	tarball=${vendor:+$vendor/postgresql-$release.tar.bz2}
	if [ -z "$tarball" ] || [ ! -f "$tarball" ]; then
		echo "setup: PostgreSQL $PGVERSION has no $module, and no source postgresql-$release.tar.bz2 to build it from" >&2
		exit 1
	fi
	echo "setup: building $module for PostgreSQL $release from $tarball"
	src=$(mktemp -d -t dpmatrix-contrib.XXXXXX)
	tar -xjf "$tarball" -C "$src" "postgresql-$release/contrib/$module"
	make -s -C "$src/postgresql-$release/contrib/$module" USE_PGXS=1 PG_CONFIG="$PG_CONFIG" >/dev/null
	"${SUDO[@]}" make -s -C "$src/postgresql-$release/contrib/$module" USE_PGXS=1 PG_CONFIG="$PG_CONFIG" install >/dev/null
	rm -rf "$src"
done

if [ "$(cat .pg_version 2>/dev/null)" != "$PGVERSION" ]; then
	make -s clean PG_CONFIG="$PG_CONFIG" >/dev/null
	echo "$PGVERSION" >.pg_version
fi
echo "setup: building dpmatrix for PostgreSQL $PGVERSION"
# DPM_WERROR=1 (scripts/test.sh, so CI): a warning fails the build
make -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG" ${DPM_WERROR:+COPT=-Werror}

echo "setup: installing dpmatrix into PostgreSQL $PGVERSION"
"${SUDO[@]}" make -s install PG_CONFIG="$PG_CONFIG" >/dev/null
