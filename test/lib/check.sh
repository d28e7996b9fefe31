# check.sh -- sourced by the test scripts that make several checks: check NAME OK (OK 1 or t
# for a pass) counts and prints one line per check; report prints the "N passed, N failed" line
# that scripts/test.sh reads and returns non-zero on a failure.  tf COMMAND prints t when the
# command succeeds, else f; wait_for SQL SECONDS polls (with q, which the script defines) until
# SQL returns t.
passed=0 failed=0
check()
{
	if [ "$2" = 1 ] || [ "$2" = t ]; then
		echo "ok     $1"; passed=$((passed + 1))
	else
		case "$2" in 0 | f) echo "FAILED $1" ;; *) echo "FAILED $1 (got '$2')" ;; esac
		failed=$((failed + 1))
	fi
}
report()
{
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
}
tf()
{
	"$@" && echo t || echo f
}
wait_for()
{
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		[ "$(q "$1" 2>/dev/null)" = t ] && return 0
		sleep 0.1
	done
	return 1
}
