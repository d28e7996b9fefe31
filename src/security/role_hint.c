/*
 * role_hint.c -- "permission denied for function answer" says which dpmatrix role grants it.
 *
 * PostgreSQL's ACL check raises that error before any of our code runs, so the hint is added
 * where the report is emitted (emit_log_hook), for the functions of schema dpm only, and only
 * when the caller lacks the role (a member denied something else gets no misleading hint).  The
 * hook exists once the library is loaded: at once with session_preload_libraries (README).
 * test/sql/security.sql checks that this table and the grants of sql/99_grants.sql agree.
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/elog.h"
#include "tcop/tcopprot.h"

#include "security/role_hint.h"

typedef struct
{
	const char *function;
	const char *role;
} FunctionRole;

static const FunctionRole function_roles[] = {
	{"answer", "dpm_analyst"}, {"budget", "dpm_analyst"}, {"compare_strategies", "dpm_analyst"},
	{"create_workload", "dpm_analyst"}, {"drop_strategy", "dpm_analyst"},
	{"drop_workload", "dpm_analyst"}, {"estimate", "dpm_analyst"}, {"explain", "dpm_analyst"},
	{"explain_queries", "dpm_analyst"}, {"fitness_privacy", "dpm_analyst"},
	{"optimize", "dpm_analyst"}, {"periods", "dpm_analyst"}, {"privacy_profile", "dpm_analyst"},
	{"quantile_workload", "dpm_analyst"}, {"answer_query", "dpm_analyst"}, {"answer_plain", "dpm_analyst"}, {"last_answers", "dpm_analyst"}, {"explain_query", "dpm_analyst"},
	{"quantiles", "dpm_analyst"}, {"release", "dpm_analyst"},
	{"rename_workload", "dpm_analyst"}, {"answer_keys", "dpm_analyst"}, {"answer_contributions", "dpm_analyst"}, {"explain_keys", "dpm_analyst"},
	{"create_domain", "dpm_admin"}, {"create_measure", "dpm_admin"}, {"domain_coverage", "dpm_admin"}, {"contribution_coverage", "dpm_admin"},
	{"drop_column_domain", "dpm_admin"}, {"drop_domain", "dpm_admin"}, {"drop_measure", "dpm_admin"},
	{"drop_privacy_policy", "dpm_admin"}, {"set_privacy_policy", "dpm_admin"},
	{"exact_answers", "dpm_admin"}, {"publish", "dpm_admin"},
	{"register_source", "dpm_admin"}, {"rename_domain", "dpm_admin"},
	{"set_bounds", "dpm_admin"}, {"set_budget", "dpm_admin"}, {"set_column_domains", "dpm_admin"}, {"set_max_key_bytes", "dpm_admin"},
	{"set_model", "dpm_admin"},
	{"set_periods", "dpm_admin"},
	{"unpublish", "dpm_admin"},
	{"unregister_source", "dpm_admin"},
};

static emit_log_hook_type prev_emit_log_hook = NULL;

/* the role that grants dpm.<name>, or NULL */
static const char *
function_role(const char *name)
{
	for (int i = 0; i < lengthof(function_roles); i++)
		if (strcmp(function_roles[i].function, name) == 0)
			return function_roles[i].role;
	return NULL;
}

static void
add_role_hint(ErrorData *edata)
{
	const char *prefix = "permission denied for function ";
	const char *role;
	char	   *user;
	Oid			role_oid;

	/*
	 * message_id is the untranslated format; the message is compared in English only (a server
	 * with translated messages gets no hint).  The statement must name schema dpm: another
	 * schema's function "answer" is not ours.
	 */
	if (edata->elevel < ERROR || edata->sqlerrcode != ERRCODE_INSUFFICIENT_PRIVILEGE ||
		edata->hint != NULL || edata->message_id == NULL || edata->message == NULL ||
		strcmp(edata->message_id, "permission denied for function %s") != 0 ||
		strncmp(edata->message, prefix, strlen(prefix)) != 0 ||
		debug_query_string == NULL || strstr(debug_query_string, "dpm.") == NULL ||
		!IsTransactionState())
		return;
	role = function_role(edata->message + strlen(prefix));
	if (role == NULL)
		return;
	role_oid = get_role_oid(role, true);
	if (!OidIsValid(role_oid) || has_privs_of_role(GetUserId(), role_oid))
		return;
	/* never an error here: it would be raised while this one is reported */
	user = GetUserNameFromId(GetUserId(), true);
	if (user == NULL)
		return;
	edata->hint = psprintf("dpm.%s is granted to the role %s: ask an administrator for GRANT %s TO %s.",
						   edata->message + strlen(prefix), role, role, quote_identifier(user));
}

static void
role_hint_hook(ErrorData *edata)
{
	add_role_hint(edata);
	if (prev_emit_log_hook)
		prev_emit_log_hook(edata);
}

void
role_hint_install(void)
{
	prev_emit_log_hook = emit_log_hook;
	emit_log_hook = role_hint_hook;
}

/* the table above, for the test that compares it with the grants */
PG_FUNCTION_INFO_V1(dpm_role_hints);
Datum
dpm_role_hints(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < lengthof(function_roles); i++)
	{
		Datum		values[2] = {CStringGetTextDatum(function_roles[i].function),
		CStringGetTextDatum(function_roles[i].role)};
		bool		nulls[2] = {false, false};

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
