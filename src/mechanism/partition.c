/*
 * partition.c -- differentially private partition selection (partition.h),
 * with the exact Laplace sampler of sampler.c.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "mechanism/exact.h"
#include "mechanism/partition.h"
#include "mechanism/sampler.h"

/* the law of one key's noise, and tau */
static LaplaceLaw
partition_law(int k, double epsilon, double delta, double *threshold, double *scale)
{
	LaplaceLaw	law;

	if (k < 1)
		elog(ERROR, "partition selection needs at least one key per unit, got %d", k);
	if (!(delta > 0.0 && delta < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("partition selection needs 0 < delta < 1, got %g", delta)));
	dpm_laplace_law(1, (double) k, epsilon, &law);
	/* on a grid coarser than 1 the counts would be rounded, which the bound above does not cover */
	if (law.grid_exp > 0)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("epsilon %g is too small for partition selection", epsilon),
				 errhint("Use a larger epsilon.")));
	*scale = ldexp(law.t, law.grid_exp);
	*threshold = 1.0 + *scale * log((double) k / delta);
	return law;
}

void
partition_threshold(int k, double epsilon, double delta, double *threshold, double *scale)
{
	(void) partition_law(k, epsilon, delta, threshold, scale);
}

void
partition_select(const int64 *counts, int n, int k, double epsilon, double delta, bool *selected,
				 double *threshold, double *scale)
{
	(void) partition_law(k, epsilon, delta, threshold, scale);
	for (int i = 0; i < n; i++)
	{
		/* one exact answer: the count, an integer of one word on the unit grid */
		uint64		word = (uint64) counts[i];
		ExactAnswers one = {1, 1, 0, &word};
		double		noisy;

		if (counts[i] < 0 || counts[i] > EXACT_COUNT_MAX)
			elog(ERROR, "a count of units must be between 0 and 2^53, got " INT64_FORMAT, counts[i]);
		CHECK_FOR_INTERRUPTS();
		(void) dpm_laplace_mechanism(&one, (double) k, epsilon, NULL, &noisy);
		selected[i] = noisy >= *threshold;
	}
}
