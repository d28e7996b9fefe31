#!/usr/bin/env bash
# The empirical privacy auditor, full version (issue 41, item 7; the short one is test/audit.sh,
# the method test/lib/audit.sql).  Every release kind of test/lib/audit_kinds.sql (counts through
# the identity and through optimized strategies, Laplace and Gaussian; sums and averages of a
# user-level measure, max_contributions 3; the cumulative counts behind quantiles; keys; wide
# marginals under zCDP; periods) is released BENCH_AUDIT_N times (default 1000) on D and as many
# on D', then again with the planted defect (a sensitivity halved, dpm.audit_sensitivity_scale =
# 0.5).  Prints a Markdown table: the charge, the 95% lower bound on epsilon (each kind's tests
# together at 95%, Bonferroni), the releases, the best test, and the bound with the defect.  A
# bound above the charge without the defect is a privacy bug.  Runs as a superuser in its own
# database (the libpq variables say where; bench/run's PGDATABASE is not used).
set -u
cd "$(dirname "$0")/.." || exit 1
DB=${BENCH_AUDIT_DB:-dpm_audit_bench}
N=${BENCH_AUDIT_N:-1000}
PAR=${BENCH_AUDIT_PAR:-2}
ALPHA=0.05
KINDS=${BENCH_AUDIT_KINDS:-"count_identity_laplace optimized_gaussian optimized_laplace sum_user_level average_user_level quantiles_cdf keys wide_marginals_zcdp periods groups_identity_gaussian"}
. test/lib/audit.sh
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null || exit 1
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" -f test/lib/audit.sql -f test/lib/audit_kinds.sql >/dev/null || exit 1
start=$SECONDS
for kind in $KINDS; do
	sample "$kind" 1
	sample "$kind" 0.5
done
echo "| kind | charged epsilon (delta) | epsilon lower bound, 95% | releases (D + D') | best test: threshold, hits on D / D' | with the sensitivity halved |"
echo "| --- | --- | --- | --- | --- | --- |"
q "SELECT format('| %s | %s%s | %s | %s + %s | %s %s: %s / %s | %s |', k.kind, round(k.epsilon::numeric, 3),
              CASE WHEN k.delta > 0 THEN format(' (%s)', k.delta) ELSE '' END,
              round(e.eps_lb::numeric, 2), e.n0, e.n1, e.direction, round(e.threshold::numeric, 2), e.hits0, e.hits1,
              round(d.eps_lb::numeric, 2) || CASE WHEN d.eps_lb > k.epsilon THEN ' (caught)' ELSE '' END)
     FROM audit.kinds k, audit.eps_lb(k.kind, 1, $ALPHA) e, audit.eps_lb(k.kind, 0.5, $ALPHA) d
    WHERE k.kind = ANY (string_to_array('$KINDS', ' '))
    ORDER BY array_position(string_to_array('$KINDS', ' '), k.kind)"
echo
echo "$((SECONDS - start)) s; N = $N releases a side, $PAR sessions; load average $(cut -d' ' -f1-3 /proc/loadavg)"
