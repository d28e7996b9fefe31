/*
 * privacy_api.c -- the privacy parameters for the SQL functions: their ranges
 * (src/privacy/args.c) and the noise they call for (src/mechanism/calibrate.c).
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

#include "mechanism/calibrate.h"
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

/*
 * dpm_internal.noise_variance(noise, l1, l2, epsilon, delta, rho): the variance of the noise a
 * release adds to each strategy answer ('laplace' or 'gaussian'; rho for zCDP), for scoring
 * strategies by the calibration releases use.
 */
PG_FUNCTION_INFO_V1(dpm_noise_variance);
Datum
dpm_noise_variance(PG_FUNCTION_ARGS)
{
	bool		laplace = strcmp(text_to_cstring(PG_GETARG_TEXT_PP(0)), "laplace") == 0;
	double		epsilon = PG_ARGISNULL(3) ? 0.0 : PG_GETARG_FLOAT8(3);
	double		delta = PG_ARGISNULL(4) ? 0.0 : PG_GETARG_FLOAT8(4);
	double		rho = PG_ARGISNULL(5) ? 0.0 : PG_GETARG_FLOAT8(5);

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		elog(ERROR, "dpm_internal.noise_variance: NULL noise or sensitivity");
	if (laplace || rho == 0.0)
		privacy_check_epsilon(epsilon, PRIVACY_RELEASE);
	if (!laplace && rho == 0.0)
		privacy_check_delta(delta, PRIVACY_CONVERSION);
	if (!laplace && rho != 0.0)
		privacy_check_rho(rho, PRIVACY_RELEASE);
	PG_RETURN_FLOAT8(calibrate_variance(laplace, PG_GETARG_FLOAT8(1), PG_GETARG_FLOAT8(2),
										 epsilon, delta, rho));
}
