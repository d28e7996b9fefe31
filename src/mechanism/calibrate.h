/*
 * calibrate.h -- how much noise a privacy guarantee needs.
 */
#ifndef DPM_CALIBRATE_H
#define DPM_CALIBRATE_H

/* variance of Laplace noise with scale l1_sens / epsilon: 2 (Delta_1 / eps)^2 */
extern double calibrate_laplace_variance(double l1_sens, double epsilon);

/*
 * Smallest sigma such that adding N(0, sigma^2) to a query of L2 sensitivity
 * l2_sens is (epsilon, delta)-DP, by the exact condition of the analytic
 * Gaussian mechanism (Balle & Wang 2018; Xiao et al., PVLDB 2020, Theorem 1).
 */
extern double calibrate_gaussian_sigma(double epsilon, double delta, double l2_sens);

/*
 * sigma making the Gaussian mechanism rho-zCDP for L2 sensitivity l2_sens:
 * Delta^2 / (2 sigma^2) = rho (Bun & Steinke 2016, Proposition 1.6; the
 * discrete Gaussian on the grid meets the same bound, Canonne, Kamath &
 * Steinke 2020, Theorem 4, with the grid rounding added to Delta).
 */
extern double calibrate_zcdp_sigma(double rho, double l2_sens);

/*
 * The variance of the noise on each strategy answer, as a release calibrates it: Laplace for
 * L1 sensitivity l1_sens and epsilon, else Gaussian for rho-zCDP (rho > 0) or for
 * (epsilon, delta)-DP, for L2 sensitivity l2_sens.
 */
extern double calibrate_variance(bool laplace, double l1_sens, double l2_sens, double epsilon,
								  double delta, double rho);

/* the delta of that condition for a given sigma (exposed for tests and reports) */
extern double calibrate_gaussian_delta(double epsilon, double sigma, double l2_sens);

/*
 * The least epsilon for which N(0, sigma^2) on a query of L2 sensitivity
 * l2_sens is (epsilon, delta)-DP: Corollary 1 of Xiao et al., PVLDB 2020 solved
 * for epsilon (0 when delta is already met at epsilon 0).
 */
extern double calibrate_gaussian_epsilon(double delta, double sigma, double l2_sens);

#endif
