/*
 * args.c -- the arguments many entry points share: the privacy parameters,
 * the confidence of intervals, the inference by name, and a release returned
 * as rows.  The float8 arrays themselves are convert/array.c's.
 */
#include "postgres.h"

#include <math.h>

#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "api/args.h"
#include "privacy/args.h"
#include "release/release.h"

void
api_check_epsilon_delta(double epsilon, double delta)
{
	privacy_check_epsilon(epsilon, PRIVACY_RELEASE);
	privacy_check_delta(delta, PRIVACY_RELEASE);
}

void
api_privacy_args(FunctionCallInfo fcinfo, int first, double *epsilon, double *delta, double *scale,
			 double *rho)
{
	api_privacy_args_at(fcinfo, first, first + 1, first + 3, first + 2, epsilon, delta, scale, rho);
}

/*
 * The same with each argument where it is: the public dpm.mechanism takes them in the order of
 * the API's rules (epsilon, delta, rho, then sensitivity_scale: doc/dev/api.md), the internal
 * measure functions in their own.  delta NULL is "not given": 0.
 */
void
api_privacy_args_at(FunctionCallInfo fcinfo, int eps_arg, int delta_arg, int rho_arg, int scale_arg,
					double *epsilon, double *delta, double *scale, double *rho)
{
	if (PG_ARGISNULL(scale_arg))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("only epsilon, delta or rho may be NULL")));
	*delta = PG_ARGISNULL(delta_arg) ? 0.0 : PG_GETARG_FLOAT8(delta_arg);
	*scale = PG_GETARG_FLOAT8(scale_arg);
	*epsilon = 0.0;
	*rho = 0.0;
	if (PG_ARGISNULL(eps_arg) == PG_ARGISNULL(rho_arg))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("give either epsilon (with delta) or rho, not both or neither")));
	if (PG_ARGISNULL(rho_arg))
	{
		*epsilon = PG_GETARG_FLOAT8(eps_arg);
		api_check_epsilon_delta(*epsilon, *delta);
	}
	else
	{
		*rho = PG_GETARG_FLOAT8(rho_arg);
		privacy_check_rho(*rho, PRIVACY_RELEASE);
		if (*delta != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("a zCDP release (rho) takes no delta")));
	}
	if (!(*scale >= 1) || !isfinite(*scale))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sensitivity_scale must be a finite number >= 1, got %g", *scale)));
	/*
	 * The one place every count, sum, average and marginal release's sensitivity enters its
	 * noise (dense, HDMM and residual mechanisms alike): the privacy auditor's planted defect
	 * (dpm.audit_sensitivity_scale, testing only, 1 unless test/audit.sh sets it) goes here.
	 */
	*scale *= dpm_audit_sensitivity_scale;
}

Datum
api_release_rows(FunctionCallInfo fcinfo, const Release *rel)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < rel->p; i++)
	{
		double		h = rel->half ? rel->half[i] : 0.0;
		Datum		values[6] = {Int32GetDatum(i + 1), Float8GetDatum(rel->answers[i]),
			Float8GetDatum(rel->stderrs[i]), Float8GetDatum(rel->answers[i] - h),
		Float8GetDatum(rel->answers[i] + h), Int32GetDatum(rel->ci_draws)};
		bool		nulls[6] = {false, false, false, !rel->half, !rel->half, rel->ci_draws == 0};

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

double
api_confidence_arg(FunctionCallInfo fcinfo, int i)
{
	double		c;

	if (PG_NARGS() <= i || PG_ARGISNULL(i))
		return NO_INTERVALS;
	c = PG_GETARG_FLOAT8(i);
	if (!(c > 0.0 && c < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("confidence must be between 0 and 1 (exclusive), got %g", c),
				 errhint("Pass NULL for no intervals.")));
	return c;
}

Inference
api_inference_arg(FunctionCallInfo fcinfo, int i)
{
	if (PG_NARGS() <= i)
		return INFERENCE_LS;
	if (PG_ARGISNULL(i))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("inference must not be NULL")));
	return inference_from_name(text_to_cstring(PG_GETARG_TEXT_PP(i)));
}
