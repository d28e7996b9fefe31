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

double
calibrate_gaussian_sigma(double epsilon, double delta, double l2_sens)
{
	double		lo,
				hi;

	/*
	 * delta(sigma) decreases in sigma (Theorem 1).  Bracket in log space, then
	 * bisect; return the upper end so the guarantee holds for the sigma used.
	 */
	lo = hi = l2_sens;
	while (calibrate_gaussian_delta(epsilon, hi, l2_sens) > delta && hi < 1e300)
		hi *= 2.0;
	while (calibrate_gaussian_delta(epsilon, lo, l2_sens) <= delta && lo > l2_sens * 1e-12)
		lo /= 2.0;
	for (int i = 0; i < 200 && (hi - lo) > 1e-15 * hi; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (calibrate_gaussian_delta(epsilon, mid, l2_sens) > delta)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
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
	if (calibrate_gaussian_delta(0.0, sigma, l2_sens) <= delta)
		return 0.0;
	while (calibrate_gaussian_delta(hi, sigma, l2_sens) > delta && hi < 1e300)
		hi *= 2.0;
	for (int i = 0; i < 200 && (hi - lo) > 1e-15 * hi; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (calibrate_gaussian_delta(mid, sigma, l2_sens) > delta)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}
