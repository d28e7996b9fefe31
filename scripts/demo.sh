#!/usr/bin/env bash
# demo.sh -- install what dpmatrix needs, build and install it (scripts/setup.sh), then run
# scripts/demo.sql on a throw-away PostgreSQL cluster (pg_virtualenv; version 15, or DPM_PG_VERSION),
# which is dropped at the end.
set -euo pipefail

PGVERSION=${DPM_PG_VERSION:-15}
export DPM_PG_VERSION=$PGVERSION
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup.sh
. scripts/cluster_env.sh
cluster_env "/usr/lib/postgresql/$PGVERSION/bin/pg_config"

echo "demo: starting a throw-away PostgreSQL $PGVERSION cluster"
# -t: a private cluster under /tmp even as root, so parallel runs and existing clusters do not clash.
# psql reads demo.sql itself, so the server needs no access to this directory.
pg_virtualenv -t -v "$PGVERSION" -c "--locale=C.UTF-8 --encoding=UTF8 $CLUSTER_ENV" \
	psql -X -q -v ON_ERROR_STOP=1 -f "$PWD/scripts/demo.sql" </dev/null
