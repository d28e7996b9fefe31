/*
 * noise_api.c -- dpm.noise(distribution, scale, count): raw draws of the
 * secure noise the mechanisms add (mechanism/sampler.c), for tests and for
 * users who want to inspect it; and the noisy threshold of partition
 * selection (mechanism/partition.h).  Argument checks and conversion only.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"

#include "api/args.h"
#include "mechanism/exact.h"
#include "mechanism/partition.h"
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

/*
 * dpm_internal.partition_select(counts, keys_per_unit, epsilon, delta, rho):
 * which keys pass the noisy threshold (selected, NULL when counts is NULL:
 * the checks alone), the threshold and the noise's scale; Gaussian noise when
 * rho is given.
 */
PG_FUNCTION_INFO_V1(dpm_partition_select);
Datum
dpm_partition_select(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[3];
	bool		nulls[3] = {true, false, false};
	double		threshold,
				scale,
				rho = PG_ARGISNULL(4) ? 0.0 : PG_GETARG_FLOAT8(4);
	int			k;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE || tupdesc->natts != 3)
		elog(ERROR, "partition_select must return (selected, threshold, scale)");
	if (PG_ARGISNULL(1) || PG_ARGISNULL(3) || (PG_ARGISNULL(2) && PG_ARGISNULL(4)))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("keys per unit, delta, and epsilon or rho must not be NULL")));
	if (!PG_ARGISNULL(4) && !(rho > 0.0 && isfinite(rho)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rho must be a positive finite number, got %g", rho)));
	k = PG_GETARG_INT32(1);
	if (k < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("keys per unit must be at least 1, got %d", k)));
	if (PG_ARGISNULL(0))
		partition_threshold(k, PG_ARGISNULL(2) ? 0.0 : PG_GETARG_FLOAT8(2), PG_GETARG_FLOAT8(3), rho,
							&threshold, &scale);
	else
	{
		int			n;
		double	   *x = array_to_vec(PG_GETARG_ARRAYTYPE_P(0), "counts", &n);
		int64	   *counts = exact_counts(x, n);
		bool	   *selected = palloc(sizeof(bool) * Max(n, 1));
		Datum	   *d = palloc(sizeof(Datum) * Max(n, 1));

		partition_select(counts, n, k, PG_ARGISNULL(2) ? 0.0 : PG_GETARG_FLOAT8(2), PG_GETARG_FLOAT8(3), rho,
						 selected, &threshold, &scale);
		for (int i = 0; i < n; i++)
			d[i] = BoolGetDatum(selected[i]);
		values[0] = PointerGetDatum(construct_array(d, n, BOOLOID, 1, true, TYPALIGN_CHAR));
		nulls[0] = false;
	}
	values[1] = Float8GetDatum(threshold);
	values[2] = Float8GetDatum(scale);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}

/*
 * dpm_internal.partition_chance(units, keys_per_unit, epsilon, delta, rho):
 * the probability that a key held by each of these numbers of units passes
 * partition_select's threshold, drawing nothing.
 */
PG_FUNCTION_INFO_V1(dpm_partition_chance);
Datum
dpm_partition_chance(PG_FUNCTION_ARGS)
{
	PartitionLaw law;
	int			n;
	double	   *units;
	double		rho = PG_ARGISNULL(4) ? 0.0 : PG_GETARG_FLOAT8(4);

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(3) || (PG_ARGISNULL(2) && PG_ARGISNULL(4)))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("units, keys per unit, delta, and epsilon or rho must not be NULL")));
	if (PG_GETARG_INT32(1) < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("keys per unit must be at least 1, got %d", PG_GETARG_INT32(1))));
	partition_begin(&law, PG_GETARG_INT32(1), PG_ARGISNULL(2) ? 0.0 : PG_GETARG_FLOAT8(2), PG_GETARG_FLOAT8(3), rho);
	units = array_to_vec(PG_GETARG_ARRAYTYPE_P(0), "units", &n);
	for (int i = 0; i < n; i++)
		units[i] = partition_pass_chance(&law, units[i]);
	PG_RETURN_ARRAYTYPE_P(array_from_vec(units, n));
}
