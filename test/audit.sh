#!/usr/bin/env bash
# audit.sh -- the empirical privacy auditor, short version (the full one: bench/audit.sh).  For
# each release kind below, releases on a table D and on D' = D plus one privacy unit with its full
# contribution give a lower bound on the epsilon the releases really spend (the method, and why a
# correct implementation passes: test/lib/audit.sql).  Checks: the bound stays below the charge
# for every kind; and with a sensitivity halved (dpm.audit_sensitivity_scale = 0.5, the planted
# defect, a superuser-only setting hidden from SHOW ALL) the bound exceeds the charge.
#
# False alarms: each kind's bound is taken at confidence 1 - ALPHA = 99.9% (Bonferroni over its
# tests), so it exceeds a correct charge with probability at most 0.1%, and the four kinds fail
# a correct build with probability at most 0.4%.  The planted defect's bound is the 95% one
# (ALPHA_DEFECT: a wrong bound there would only hide the defect): at N = 200 releases a side and
# epsilon 2 a simulation of the exact test caught the halved sensitivity in 200 runs out of 200
# (its bound averaged 2.56).  The noise comes from pg_strong_random and cannot be seeded.
# Runs in a database of its own (its release ids touch no expected file); prints "N passed, N failed".
set -u
. "$(dirname "$0")/lib/check.sh"
cd "$(dirname "$0")/.." || exit 1
DB=dpm_audit
N=${DPM_AUDIT_N:-200}	# releases on each side, per kind
ALPHA=0.001
ALPHA_DEFECT=0.05
PAR=2					# sessions drawing releases at once (each waits on a release worker)
KINDS="count_identity_laplace optimized_gaussian sum_user_level groups_identity_gaussian"

. test/lib/audit.sh
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null || exit 1
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" -f test/lib/audit.sql >/dev/null || { check "auditor set-up" 0; report; exit 1; }

psql -X -q -v ON_ERROR_STOP=1 -d "$DB" -f test/lib/audit_kinds.sql >/dev/null || { check "kinds set-up" 0; report; exit 1; }

# the setting itself: superusers only, hidden, and it reaches the worker (a halved sensitivity
# halves the noise's standard error, which the release reports)
check "dpm.audit_sensitivity_scale is hidden from SHOW ALL" \
	"$(q "SELECT count(*) = 0 FROM pg_settings WHERE name = 'dpm.audit_sensitivity_scale'")"
q "CREATE ROLE regress_audit_analyst IN ROLE dpm_analyst" 2>/dev/null
refused=$(psql -X -q -At -d "$DB" -c "LOAD 'dpmatrix'" -c "SET ROLE regress_audit_analyst" -c "SET dpm.audit_sensitivity_scale = 0.5" 2>&1)
check "an analyst cannot set it (got: $refused)" "$(tf grep -q 'permission denied' <<<"$refused")"
# set before the library is loaded, it is a placeholder, which loading the library refuses
ignored=$(psql -X -q -At -d "$DB" -c "SET ROLE regress_audit_analyst" -c "SET dpm.audit_sensitivity_scale = 0.5" \
	-c "SELECT dpm.gaussian_sigma(1, 1e-5)" -c "SHOW dpm.audit_sensitivity_scale" 2>&1 | tail -n 1)
check "nor set it before the library loads (then: $ignored)" "$(tf test "$ignored" = 1)"
check "it reaches the release worker: at 0.5 the standard error the release reports is halved" \
	"$(tf test "$(PGOPTIONS="-c dpm.audit_sensitivity_scale=0.5" q "SELECT stderr FROM dpm.answer('a_w', epsilon => 2, reuse => 'never') WHERE query = 1")" \
	       = "$(q "SELECT stderr / 2 FROM dpm.answer('a_w', epsilon => 2, reuse => 'never') WHERE query = 1")")"

start=$SECONDS
for kind in $KINDS; do
	sample "$kind" 1
done
sample count_identity_laplace 0.5
for kind in $KINDS; do
	read -r lb charge n0 n1 t dir h0 h1 <<<"$(q "SELECT round(e.eps_lb::numeric, 3), k.epsilon, e.n0, e.n1, round(e.threshold::numeric, 3), replace(e.direction, ' ', ''), e.hits0, e.hits1
	  FROM audit.kinds k, audit.eps_lb(k.kind, 1, $ALPHA) e WHERE k.kind = '$kind'" | tr '|' ' ')"
	check "$kind: 99.9% epsilon lower bound $lb <= charge $charge ($n0 + $n1 releases; best test $dir, t = $t: $h0 on D, $h1 on D')" \
		"$(q "SELECT $lb <= $charge AND $n0 >= $N AND $n1 >= $N")"
done
read -r lb charge n0 n1 <<<"$(q "SELECT round(e.eps_lb::numeric, 3), k.epsilon, e.n0, e.n1
  FROM audit.kinds k, audit.eps_lb(k.kind, 0.5, $ALPHA_DEFECT) e WHERE k.kind = 'count_identity_laplace'" | tr '|' ' ')"
check "planted defect (sensitivity halved) caught: count_identity_laplace's 95% bound $lb > charge $charge ($n0 + $n1 releases)" \
	"$(q "SELECT $lb > $charge")"
echo "audit: $((SECONDS - start)) s of sampling and bounds"
psql -X -q -d postgres -c "DROP DATABASE $DB" -c "DROP ROLE IF EXISTS regress_audit_analyst" >/dev/null 2>&1
report
