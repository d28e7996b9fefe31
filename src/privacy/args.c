/*
 * args.c -- the ranges of the privacy parameters: epsilon and rho positive and finite, delta in
 * [0, 1) (0: pure differential privacy), or in (0, 1) where a Gaussian calibration needs it.
 * One place for the rule and its messages, whichever language the caller is written in.
 */
#include "postgres.h"

#include <math.h>

#include "utils/float.h"

#include "privacy/args.h"

static const char *
suffix(PrivacyUse use)
{
	return use == PRIVACY_BUDGET ? " budget" : "";
}

void
privacy_check_epsilon(double epsilon, PrivacyUse use)
{
	if (!(epsilon > 0) || !isfinite(epsilon))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon%s must be a positive finite number, got %s", suffix(use),
						float8out_internal(epsilon)),
				 use == PRIVACY_BUDGET ?
				 errhint("Give epsilon (and delta > 0 to allow Gaussian noise), or rho for zCDP.") : 0));
}

void
privacy_check_delta(double delta, PrivacyUse use)
{
	bool		zero_ok = use != PRIVACY_CONVERSION;

	if (!(zero_ok ? delta >= 0 : delta > 0) || !(delta < 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("delta%s must be in %s0, 1), got %s", suffix(use), zero_ok ? "[" : "(",
						float8out_internal(delta))));
}

void
privacy_check_rho(double rho, PrivacyUse use)
{
	if (!(rho > 0) || !isfinite(rho))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rho%s must be a positive finite number, got %s", suffix(use),
						float8out_internal(rho))));
}
