# cluster_env.sh -- sourced by scripts/test.sh and scripts/demo.sh.  cluster_env PG_CONFIG: a
# PostgreSQL installed with a libpq of its own (a vendored build, self-contained in
# /usr/lib/postgresql/VERSION; Debian's packages use the system's) finds it only through
# LD_LIBRARY_PATH: else psql and postgres_fdw load the system's older libpq and fail on symbols it
# lacks.  Exports LD_LIBRARY_PATH for the clients (and TAP tests' servers), and sets CLUSTER_ENV
# to pg_createcluster's option for the server of pg_virtualenv, which pg_ctlcluster starts with an
# emptied environment; both empty where nothing is needed.
DPM_BASE_LD_LIBRARY_PATH=${DPM_BASE_LD_LIBRARY_PATH-${LD_LIBRARY_PATH:-}}
cluster_env()
{
	local libdir file

	libdir=$("$1" --libdir)
	CLUSTER_ENV=
	LD_LIBRARY_PATH=$DPM_BASE_LD_LIBRARY_PATH
	case $libdir in
	/usr/lib/postgresql/*)
		if [ -e "$libdir/libpq.so.5" ]; then
			LD_LIBRARY_PATH=$libdir${DPM_BASE_LD_LIBRARY_PATH:+:$DPM_BASE_LD_LIBRARY_PATH}
			file=$(mktemp -t dpmatrix-env.XXXXXX)
			echo "LD_LIBRARY_PATH = '$libdir'" >"$file"
			chmod 644 "$file"
			CLUSTER_ENV="--environment=$file"
		fi
		;;
	esac
	export LD_LIBRARY_PATH
	[ -n "$LD_LIBRARY_PATH" ] || unset LD_LIBRARY_PATH
}
