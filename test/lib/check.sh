# check.sh -- sourced by the test scripts that make several checks: check NAME OK (OK 1 or 0)
# counts and prints one line per check; report prints the "N passed, N failed" line that
# scripts/test.sh reads and returns non-zero on a failure.
passed=0 failed=0
check()
{
	if [ "$2" = 1 ]; then
		echo "ok     $1"; passed=$((passed + 1))
	else
		echo "FAILED $1"; failed=$((failed + 1))
	fi
}
report()
{
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
}
