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
 * tau and the noise's scale; for Laplace noise the grid is checked on the
 * law the sampler will draw from, for Gaussian noise on the sigma the
 * caller's calibration asks the sampler for.
 */
void
partition_begin(PartitionLaw *p, int k, double epsilon, double delta, double rho)
{
	if (k < 1)
		elog(ERROR, "partition selection needs at least one key per unit, got %d", k);
	if (!(delta > 0.0 && delta < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("partition selection needs 0 < delta < 1, got %g", delta)));
	p->k = k;
	p->epsilon = epsilon;
	p->rho = rho;
	p->sigma = 0.0;
	if (rho > 0.0)
	{
		p->sigma = calibrate_zcdp_sigma(rho, sqrt((double) k));
		p->scale = dpm_gaussian_actual_sd(1, sqrt((double) k), p->sigma);
		/* sigma / g >= 2^26 on the sampler's grids (sampler.c, section 7): g <= 1 below 2^26 */
		check_unit_grid(p->scale < ldexp(1.0, 26), "rho", rho);
		p->threshold = 1.0 + p->scale * sqrt(2.0 * log(2.0 * k / delta));
	}
	else
	{
		LaplaceLaw	law;

		dpm_laplace_law(1, (double) k, epsilon, &law);
		check_unit_grid(law.grid_exp <= 0, "epsilon", epsilon);
		p->scale = ldexp(law.t, law.grid_exp);
		p->threshold = 1.0 + p->scale * log((double) k / delta);
		p->q = exp(-1.0 / law.t);
		p->grid = ldexp(1.0, law.grid_exp);
	}
}

double
partition_pass_chance(const PartitionLaw *p, double count)
{
	double		m;

	if (p->rho > 0.0)
		return 0.5 * erfc((p->threshold - count) / (p->scale * M_SQRT2));
	/*
	 * noisy = count + g Z, P(Z = j) = (1 - q) / (1 + q) q^|j|: it passes when
	 * Z >= m = ceil((tau - count) / g), P(Z >= m) = q^m / (1 + q) for m >= 1,
	 * and 1 - P(Z >= 1 - m) otherwise, by symmetry
	 */
	m = ceil((p->threshold - count) / p->grid);
	if (m >= 1.0)
		return pow(p->q, m) / (1.0 + p->q);
	return 1.0 - pow(p->q, 1.0 - m) / (1.0 + p->q);
}

bool
partition_passes(const PartitionLaw *p, int64 count)
{
	/* one exact answer: the count, an integer of one word on the unit grid */
	uint64		word = (uint64) count;
	ExactAnswers one = {1, 1, 0, &word};
	double		noisy;

	if (count < 0 || count > EXACT_COUNT_MAX)
		elog(ERROR, "a count of units must be between 0 and 2^53, got " INT64_FORMAT, count);
	CHECK_FOR_INTERRUPTS();
	if (p->rho > 0.0)
		(void) dpm_gaussian_mechanism(&one, sqrt((double) p->k), p->sigma, &noisy);
	else
		(void) dpm_laplace_mechanism(&one, (double) p->k, p->epsilon, NULL, &noisy);
	return noisy >= p->threshold;
}

void
partition_threshold(int k, double epsilon, double delta, double rho, double *threshold, double *scale)
{
	PartitionLaw law;

	partition_begin(&law, k, epsilon, delta, rho);
	*threshold = law.threshold;
	*scale = law.scale;
}

void
partition_select(const int64 *counts, int n, int k, double epsilon, double delta, double rho,
				 bool *selected, double *threshold, double *scale)
{
	PartitionLaw law;

	partition_begin(&law, k, epsilon, delta, rho);
	for (int i = 0; i < n; i++)
		selected[i] = partition_passes(&law, counts[i]);
	*threshold = law.threshold;
	*scale = law.scale;
}
