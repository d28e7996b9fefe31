/*
 * calibrate.c -- noise calibration for the Laplace and Gaussian mechanisms.
 *
 * The Gaussian calibration uses the exact (if and only if) condition of
 * Theorem 1 in Xiao et al., PVLDB 2020 rather than the classical
 * sigma = sqrt(2 ln(1.25/delta)) Delta / epsilon, which is only valid for
 * epsilon < 1 and wastes noise everywhere.
 */
#include "postgres.h"

#include <math.h>

#include "mechanism/calibrate.h"

double
calibrate_zcdp_sigma(double rho, double l2_sens)
{
	return l2_sens / sqrt(2.0 * rho);
}

double
calibrate_laplace_variance(double l1_sens, double epsilon)
{
	double		b = l1_sens / epsilon;

	return 2.0 * b * b;
}

double
calibrate_variance(bool laplace, double l1_sens, double l2_sens, double epsilon, double delta,
					double rho)
{
	double		sigma;

	if (laplace)
		return calibrate_laplace_variance(l1_sens, epsilon);
	sigma = rho > 0 ? calibrate_zcdp_sigma(rho, l2_sens) : calibrate_gaussian_sigma(epsilon, delta, l2_sens);
	return sigma * sigma;
}

/*
 * log Phi(x) for x <= 0, accurate far into the tail: erfc underflows below
 * x ~ -38, where the asymptotic series of Mills' ratio takes over.
 */
static double
log_norm_cdf_neg(double x)
{
	if (x > -30.0)
		return log(0.5 * erfc(-x / M_SQRT2));
	{
		double		x2 = x * x;
		double		series = 1.0 - 1.0 / x2 + 3.0 / (x2 * x2) - 15.0 / (x2 * x2 * x2);

		return -0.5 * x2 - log(-x) - 0.5 * log(2.0 * M_PI) + log(series);
	}
}

static double
norm_cdf(double x)
{
	return 0.5 * erfc(-x / M_SQRT2);
}

double
calibrate_gaussian_delta(double epsilon, double sigma, double l2_sens)
{
	double		r = l2_sens / sigma;
	double		a = r / 2.0 - epsilon / r;
	double		b = -r / 2.0 - epsilon / r;

	/* e^eps Phi(b) is formed in logs: e^eps alone overflows for large epsilon */
	return norm_cdf(a) - exp(epsilon + log_norm_cdf_neg(b));
}

/*
 * delta(epsilon, sigma) > target, as a function of sigma (epsilon fixed) or
 * of epsilon (sigma fixed): it decreases in both.
 */
typedef struct DeltaAbove
{
	double		epsilon;
	double		sigma;
	double		l2_sens;
	double		target;
	bool		of_sigma;
} DeltaAbove;

static bool
delta_above(const DeltaAbove *f, double x)
{
	return (f->of_sigma ? calibrate_gaussian_delta(f->epsilon, x, f->l2_sens)
			: calibrate_gaussian_delta(x, f->sigma, f->l2_sens)) > f->target;
}

/* bisect [lo, hi], where delta is above its target at lo and not at hi; the upper end */
static double
bisect_delta(const DeltaAbove *f, double lo, double hi)
{
	for (int i = 0; i < 200 && (hi - lo) > 1e-15 * hi; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (delta_above(f, mid))
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

double
calibrate_gaussian_sigma(double epsilon, double delta, double l2_sens)
{
	double		lo,
				hi;

	/*
	 * delta(sigma) decreases in sigma (Theorem 1).  Bracket in log space, then
	 * bisect; return the upper end so the guarantee holds for the sigma used.
	 */
	DeltaAbove	f = {epsilon, 0.0, l2_sens, delta, true};

	lo = hi = l2_sens;
	while (delta_above(&f, hi) && hi < 1e300)
		hi *= 2.0;
	while (!delta_above(&f, lo) && lo > l2_sens * 1e-12)
		lo /= 2.0;
	return bisect_delta(&f, lo, hi);
}

double
calibrate_gaussian_epsilon(double delta, double sigma, double l2_sens)
{
	double		lo = 0.0,
				hi = 1.0;

	/*
	 * delta(epsilon) decreases in epsilon (Corollary 1 of Xiao et al., PVLDB 2020):
	 * bracket, then bisect; return the upper end so the guarantee holds.
	 */
	DeltaAbove	f = {0.0, sigma, l2_sens, delta, false};

	if (!delta_above(&f, 0.0))
		return 0.0;
	while (delta_above(&f, hi) && hi < 1e300)
		hi *= 2.0;
	return bisect_delta(&f, lo, hi);
}
