/*
 * interval.c -- confidence intervals for release answers; see interval.h.
 */
#include "postgres.h"

#include <math.h>

#include "common/pg_prng.h"
#include "miscadmin.h"
#include "port.h"

#include "mechanism/interval.h"

int			dpm_ci_draws = 1000;
double		dpm_ci_max_seconds = 5.0;

/* rows of W multiplied at once: keeps the block of simulated errors small */
#define INTERVAL_BLOCK 1024

/*
 * Bisection on the normal CDF written with erfc, which stays accurate in both
 * tails; 200 halvings of [-40, 40] reach double precision.  Neither libm nor
 * PostgreSQL has an inverse, and this is called a handful of times.
 */
double
normal_quantile(double p)
{
	double		lo = -40.0,
				hi = 40.0;

	for (int i = 0; i < 200 && hi - lo > 0; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (0.5 * erfc(-mid / M_SQRT2) < p)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

int
interval_min_draws(double confidence)
{
	return (int) ceil(confidence / (1.0 - confidence) - 1e-9);
}

int
interval_rank(double confidence, int draws)
{
	double		k;

	if (!(confidence > 0.0 && confidence < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("confidence must be between 0 and 1 (exclusive), got %g", confidence)));
	k = ceil(confidence * (draws + 1.0));
	if (k > draws)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("confidence %g needs more than %d simulated draws of the noise", confidence, draws),
				 errhint("Raise dpm.ci_draws to at least %d, or ask for a lower confidence.",
						 interval_min_draws(confidence))));
	return (int) k;
}

double *
interval_gaussian(const double *stderrs, int p, double confidence)
{
	double		z = normal_quantile(0.5 + 0.5 * confidence);
	double	   *half = palloc(sizeof(double) * Max(p, 1));

	for (int i = 0; i < p; i++)
		half[i] = z * stderrs[i];
	return half;
}

void
interval_seed(pg_prng_state *rng)
{
	uint64		seed;

	/* the simulation needs no secrecy, only a seed that differs per release */
	if (!pg_strong_random(&seed, sizeof(seed)))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not generate a random seed")));
	pg_prng_seed(rng, seed);
}

Mat *
interval_noise(const LaplaceLaw *law, int m, int draws)
{
	Mat		   *z = mat_new(m, draws);
	pg_prng_state rng;

	interval_seed(&rng);
	for (int j = 0; j < draws; j++)
	{
		CHECK_FOR_INTERRUPTS();
		dpm_simulate_laplace(law, &rng, m, &MAT(z, 0, j));
	}
	return z;
}

/* Hoare's selection: the k-th smallest (1-based) of v[0 .. n-1], reordering v */
static double
select_kth(double *v, int n, int k)
{
	int			lo = 0,
				hi = n - 1,
				target = k - 1;

	while (lo < hi)
	{
		double		pivot = v[lo + (hi - lo) / 2];
		int			i = lo,
					j = hi;

		while (i <= j)
		{
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j)
			{
				double		t = v[i];

				v[i] = v[j];
				v[j] = t;
				i++;
				j--;
			}
		}
		if (target <= j)
			hi = j;
		else if (target >= i)
			lo = i;
		else
			break;
	}
	return v[target];
}

void
interval_from_errors(const Mat *e, int first, int k, double *half)
{
	double	   *row = palloc(sizeof(double) * e->cols);

	for (int i = 0; i < e->rows; i++)
	{
		for (int j = 0; j < e->cols; j++)
			row[j] = fabs(MAT(e, i, j));
		half[first + i] = select_kth(row, e->cols, k);
	}
	pfree(row);
}

double *
interval_dense_laplace(const Mat *w, const Mat *pinv, const LaplaceLaw *law, double confidence)
{
	int			k = interval_rank(confidence, dpm_ci_draws),
				n = w->cols;
	double	   *half = palloc(sizeof(double) * Max(w->rows, 1));
	Mat		   *z = interval_noise(law, pinv->cols, dpm_ci_draws);
	Mat		   *xn = mat_mul(pinv, false, z, false);	/* each draw reconstructed: n x N */

	mat_free(z);
	for (int first = 0; first < w->rows; first += INTERVAL_BLOCK)
	{
		int			rows = Min(INTERVAL_BLOCK, w->rows - first);
		Mat		   *wb = mat_new(rows, n),
				   *e;

		CHECK_FOR_INTERRUPTS();
		for (int j = 0; j < n; j++)
			memcpy(&MAT(wb, 0, j), &MAT(w, first, j), sizeof(double) * rows);
		e = mat_mul(wb, false, xn, false);
		interval_from_errors(e, first, k, half);
		mat_free(wb);
		mat_free(e);
	}
	mat_free(xn);
	return half;
}
