/*
 * partition.c -- differentially private partition selection (partition.h),
 * with the exact Laplace sampler of sampler.c.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "mechanism/calibrate.h"
#include "mechanism/exact.h"
#include "mechanism/partition.h"
#include "mechanism/sampler.h"

/* too coarse a grid would round the counts, which the bounds above do not cover */
static void
check_unit_grid(bool fits, const char *what, double value)
{
	if (!fits)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s %g is too small for partition selection", what, value),
				 errhint("Use a larger %s.", what)));
}

/*
 * tau and the noise's scale; for Laplace noise its law, for Gaussian noise
 * the sigma the caller's calibration asks the sampler for.
 */
static void
partition_law(int k, double epsilon, double delta, double rho, LaplaceLaw *law, double *sigma,
			  double *threshold, double *scale)
{
	if (k < 1)
		elog(ERROR, "partition selection needs at least one key per unit, got %d", k);
	if (!(delta > 0.0 && delta < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("partition selection needs 0 < delta < 1, got %g", delta)));
	if (rho > 0.0)
	{
		*sigma = calibrate_zcdp_sigma(rho, sqrt((double) k));
		*scale = dpm_gaussian_actual_sd(1, sqrt((double) k), *sigma);
		/* sigma / g >= 2^26 on the sampler's grids (sampler.c, section 7): g <= 1 below 2^26 */
		check_unit_grid(*scale < ldexp(1.0, 26), "rho", rho);
		*threshold = 1.0 + *scale * sqrt(2.0 * log(2.0 * k / delta));
	}
	else
	{
		dpm_laplace_law(1, (double) k, epsilon, law);
		check_unit_grid(law->grid_exp <= 0, "epsilon", epsilon);
		*scale = ldexp(law->t, law->grid_exp);
		*threshold = 1.0 + *scale * log((double) k / delta);
	}
}

void
partition_threshold(int k, double epsilon, double delta, double rho, double *threshold, double *scale)
{
	LaplaceLaw	law;
	double		sigma;

	partition_law(k, epsilon, delta, rho, &law, &sigma, threshold, scale);
}

void
partition_select(const int64 *counts, int n, int k, double epsilon, double delta, double rho,
				 bool *selected, double *threshold, double *scale)
{
	LaplaceLaw	law;
	double		sigma = 0.0;

	partition_law(k, epsilon, delta, rho, &law, &sigma, threshold, scale);
	for (int i = 0; i < n; i++)
	{
		/* one exact answer: the count, an integer of one word on the unit grid */
		uint64		word = (uint64) counts[i];
		ExactAnswers one = {1, 1, 0, &word};
		double		noisy;

		if (counts[i] < 0 || counts[i] > EXACT_COUNT_MAX)
			elog(ERROR, "a count of units must be between 0 and 2^53, got " INT64_FORMAT, counts[i]);
		CHECK_FOR_INTERRUPTS();
		if (rho > 0.0)
			(void) dpm_gaussian_mechanism(&one, sqrt((double) k), sigma, &noisy);
		else
			(void) dpm_laplace_mechanism(&one, (double) k, epsilon, NULL, &noisy);
		selected[i] = noisy >= *threshold;
	}
}
