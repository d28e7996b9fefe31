/*
 * noise_api.c -- dpm.noise(distribution, scale, count): raw draws of the
 * secure noise the mechanisms add (mechanism/sampler.c), for tests and for
 * users who want to inspect it.  Argument checks and conversion only.
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"
#include "utils/builtins.h"

#include "api/array.h"
#include "mechanism/sampler.h"

#define NOISE_MAX_COUNT 10000000

PG_FUNCTION_INFO_V1(dpm_noise);
Datum
dpm_noise(PG_FUNCTION_ARGS)
{
	char	   *distribution = text_to_cstring(PG_GETARG_TEXT_PP(0));
	double		scale = PG_GETARG_FLOAT8(1);
	int32		count = PG_GETARG_INT32(2);
	bool		gaussian;
	double	   *draws;
	ArrayType  *result;

	if (pg_strcasecmp(distribution, "laplace") == 0)
		gaussian = false;
	else if (pg_strcasecmp(distribution, "gaussian") == 0)
		gaussian = true;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown noise distribution \"%s\"", distribution),
				 errhint("Use 'laplace' (scale b) or 'gaussian' (standard deviation).")));
	if (!(scale > 0) || !isfinite(scale))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("scale must be a positive finite number, got %g", scale)));
	if (count < 1 || count > NOISE_MAX_COUNT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("count must be between 1 and %d, got %d", NOISE_MAX_COUNT, count)));

	draws = palloc_extended(sizeof(double) * count, MCXT_ALLOC_HUGE);
	if (gaussian)
		dpm_sample_gaussian(scale, count, draws);
	else
		dpm_sample_laplace(scale, count, draws);
	result = array_from_vec(draws, count);
	pfree(draws);
	PG_RETURN_ARRAYTYPE_P(result);
}
