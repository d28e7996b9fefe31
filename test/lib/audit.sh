# audit.sh -- sourced by test/audit.sh and bench/audit.sh (the privacy auditor, test/lib/audit.sql):
# q SQL runs one statement in $DB; sample KIND SCALE draws $N releases of KIND on D, then $N on
# D' (the unit's rows inserted, then deleted), $PAR sessions at a time, with
# dpm.audit_sensitivity_scale = SCALE (1: the real thing; 0.5: the planted defect).
q() { PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning" psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" -c "$1"; }

sample()
{
	local kind=$1 scale=$2 side j pids
	for side in 0 1; do
		[ "$side" = 1 ] && q "$(q "SELECT unit_insert FROM audit.kinds WHERE kind = '$kind'")"
		pids=()
		for ((j = 0; j < PAR; j++)); do
			PGOPTIONS="-c dpm.audit_sensitivity_scale=$scale -c client_min_messages=warning" \
				psql -X -q -v ON_ERROR_STOP=1 -d "$DB" -c "CALL audit.sample('$kind', $side, $(((N + PAR - 1 - j) / PAR)))" &
			pids+=($!)
		done
		for j in "${pids[@]}"; do wait "$j" || echo "audit: a sampling session of $kind failed"; done
		[ "$side" = 1 ] && q "$(q "SELECT unit_delete FROM audit.kinds WHERE kind = '$kind'")"
	done
}

