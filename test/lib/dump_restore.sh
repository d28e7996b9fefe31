# dump_restore.sh -- helper of test/dump.sh (not a test of its own: run with bash, not
# executable, and kept out of test/*.sh so that scripts/test.sh does not run it alone).
#   snapshot: what must survive a dump and restore, as text lines "name|...".
#   restore:  in the fresh cluster, restore the dump, take the snapshot, answer once more.
set -euo pipefail

snapshot()
{
	psql -X -q -At -v ON_ERROR_STOP=1 -d "$DPM_DUMP_DB" \
		-c "SELECT 'sources', count(*), md5(string_agg(format('%s %s %s %s', relation, model, budget_epsilon, max_contributions), ';' ORDER BY id)) FROM dpm.sources" \
		-c "SELECT 'domains', count(*), md5(string_agg(format('%s %s %s', name, cell_expr, bin_labels), ';' ORDER BY id)) FROM dpm.domains" \
		-c "SELECT 'workloads', count(*), md5(string_agg(format('%s %s %s %s', name, spec, matrix, spans), ';' ORDER BY id)) FROM dpm.workloads" \
		-c "SELECT 'strategies', count(*), md5(string_agg(format('%s %s %s', method, matrix, profile_trace), ';' ORDER BY id)) FROM dpm.strategies" \
		-c "SELECT 'releases', count(*), md5(string_agg(format('%s %s %s %s %s', id, status, epsilon, released_by, confidence), ';' ORDER BY id)) FROM dpm.releases" \
		-c "SELECT 'answers', count(*), md5(string_agg(format('%s %s %s %s %s', release_id, query, answer, stderr, ci_low), ';' ORDER BY release_id, query)) FROM dpm.release_answers" \
		-c "SELECT 'ledger', count(*), md5(string_agg(format('%s %s %s', release_id, epsilon, charged_by), ';' ORDER BY id)) FROM dpm.ledger" \
		-c "SELECT 'budget', epsilon_spent, epsilon_remaining FROM dpm.budget('people')" \
		-c "SELECT 'publications', count(*), md5(string_agg(format('%s %s', view_name, release_id), ';')) FROM dpm.publications" \
		-c "SELECT 'view', count(*), md5(string_agg(format('%s %s %s %s', query, age_from, sex, answer), ';' ORDER BY query)) FROM reporting.ranges" \
		-c "SELECT 'replay', count(*), md5(string_agg(format('%s %s', query, answer), ';' ORDER BY query)) FROM dpm.release(1)"
}

case "$1" in
snapshot)
	snapshot
	;;
restore)
	# roles first (the restoring superuser exists already, so one error is expected)
	psql -X -q -d postgres -f "$DPM_DUMP_DIR/globals.sql" >/dev/null 2>&1 || true
	createdb "$DPM_DUMP_DB"
	pg_restore -d "$DPM_DUMP_DB" --exit-on-error "$DPM_DUMP_DIR/db.dump"
	snapshot >"$DPM_DUMP_DIR/after"
	psql -X -q -At -v ON_ERROR_STOP=1 -d "$DPM_DUMP_DB" -o /dev/null \
		-c "SET client_min_messages = warning" \
		-c "SELECT count(*) FROM dpm.answer('cells', epsilon => 0.5, method => 'identity')"
	psql -X -q -At -v ON_ERROR_STOP=1 -d "$DPM_DUMP_DB" \
		-c "SELECT 'new release', max(id), count(*) FROM dpm.releases" \
		-c "SELECT 'spent', epsilon_spent FROM dpm.budget('people')" >"$DPM_DUMP_DIR/new"
	psql -X -q -At -d "$DPM_DUMP_DB" -c "SELECT count(*) FROM dpm.answer('ranges', epsilon => 10)" || true
	;;
esac
