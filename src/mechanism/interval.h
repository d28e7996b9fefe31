/*
 * interval.h -- confidence intervals for the answers of a release.
 *
 * The noise is data independent, so an interval can be exact for the noise
 * actually added.  Gaussian noise passed through least squares stays
 * Gaussian: answer +- z stderr.  Laplace noise does not, and no closed form
 * exists for a weighted sum of Laplace variables, so its half-widths come
 * from simulating the noise alone: draws of the same discrete Laplace law,
 * reconstructed like the real noise, and for each query the k-th smallest of
 * the draws' |error| with k = ceil(c (N + 1)).  For a continuous error F(X_(k))
 * is Beta(k, N + 1 - k), so the interval's coverage is c on average over the
 * simulation, with standard deviation about sqrt(c (1 - c) / N).
 */
#ifndef DPM_INTERVAL_H
#define DPM_INTERVAL_H

#include "linalg/linalg.h"
#include "mechanism/sampler.h"

/* dpm.ci_draws: simulated draws of the noise per Laplace release */
extern int	dpm_ci_draws;

/* dpm.ci_max_seconds: time after which draws one at a time (HDMM) stop */
extern double dpm_ci_max_seconds;

/* the standard normal quantile function */
extern double normal_quantile(double p);

/* checks confidence (0 < c < 1) and returns k for N draws (N too small: error) */
extern int	interval_rank(double confidence, int draws);

/* the fewest draws for which the largest one is a valid interval: ceil(c / (1 - c)) */
extern int	interval_min_draws(double confidence);

/* Gaussian half-widths z_{(1+c)/2} stderr */
extern double *interval_gaussian(const double *stderrs, int p, double confidence);

/* a generator seeded afresh from pg_strong_random */
struct pg_prng_state;
extern void interval_seed(struct pg_prng_state *rng);

/* an m x N matrix of independent draws from law, freshly seeded */
extern Mat *interval_noise(const LaplaceLaw *law, int m, int draws);

/*
 * For each row i of e (queries first .. first + e->rows - 1, one column per
 * draw), half[first + i] = the k-th smallest |e(i, j)|.
 */
extern void interval_from_errors(const Mat *e, int first, int k, double *half);

/*
 * Laplace half-widths for dense W (p x n) and strategy A given by its
 * pseudo-inverse (n x m): the simulated noise Z is reconstructed as A^+ Z
 * and multiplied by W a block of rows at a time.
 */
extern double *interval_dense_laplace(const Mat *w, const Mat *pinv, const LaplaceLaw *law,
									  double confidence);

#endif
