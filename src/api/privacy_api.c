/*
 * privacy_api.c -- dpm_internal.check_privacy_args: the ranges of src/privacy/args.c for the SQL
 * functions.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

#include "privacy/args.h"

/*
 * dpm_internal.check_privacy_args(epsilon, delta, rho, use): NULL epsilon or rho is "not given";
 * a budget needs one of them, and delta is always needed.  Which combinations a source's privacy
 * model accepts is decided by its callers (dpm_internal.privacy_cost, dpm.register_source).
 */
PG_FUNCTION_INFO_V1(dpm_check_privacy_args);
Datum
dpm_check_privacy_args(PG_FUNCTION_ARGS)
{
	const char *what = PG_ARGISNULL(3) ? "release" : text_to_cstring(PG_GETARG_TEXT_PP(3));
	PrivacyUse	use;

	if (strcmp(what, "release") == 0)
		use = PRIVACY_RELEASE;
	else if (strcmp(what, "budget") == 0)
		use = PRIVACY_BUDGET;
	else if (strcmp(what, "conversion") == 0)
		use = PRIVACY_CONVERSION;
	else
		elog(ERROR, "dpm_internal.check_privacy_args: unknown use \"%s\"", what);

	if (!PG_ARGISNULL(0))
		privacy_check_epsilon(PG_GETARG_FLOAT8(0), use);
	else if (use == PRIVACY_BUDGET && PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon budget must be a positive finite number, got NULL"),
				 errhint("Give epsilon (and delta > 0 to allow Gaussian noise), or rho for zCDP.")));
	if (!PG_ARGISNULL(1))
		privacy_check_delta(PG_GETARG_FLOAT8(1), use);
	else if (use != PRIVACY_CONVERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("delta%s must be in [0, 1), got NULL", use == PRIVACY_BUDGET ? " budget" : "")));
	if (!PG_ARGISNULL(2))
		privacy_check_rho(PG_GETARG_FLOAT8(2), use);
	PG_RETURN_VOID();
}
