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
#include "mechanism/operator.h"
#include "mechanism/sampler.h"

/* confidence 0: no intervals */
#define NO_INTERVALS 0.0

/* dpm.ci_draws: simulated draws of the noise per Laplace release */
extern int	dpm_ci_draws;

/* dpm.ci_max_seconds: time after which draws one at a time (not batched: HDMM) stop */
extern double dpm_ci_max_seconds;

/* the standard normal quantile function */
extern double interval_normal_quantile(double p);

/* checks confidence (0 < c < 1) and returns k for N draws (N too small: error) */
extern int	interval_rank(double confidence, int draws);

/* the fewest draws for which the largest one is a valid interval: ceil(c / (1 - c)) */
extern int	interval_min_draws(double confidence);

/* Gaussian half-widths z_{(1+c)/2} stderr */
extern double *interval_gaussian(const double *stderrs, int p, double confidence);

/* a generator seeded afresh from pg_strong_random */
struct pg_prng_state;
extern void interval_seed(struct pg_prng_state *rng);

/*
 * For each row i of e (queries first .. first + e->rows - 1, one column per
 * draw), half[first + i] = the k-th smallest |e(i, j)|.
 */
extern void interval_from_errors(const Mat *e, int first, int k, double *half);
/* the same for all of e's rows, a block of them at a time */
extern void interval_half_from_errors(const Mat *e, int k, double *half);

/*
 * Before any noise is drawn: that the simulation can give the confidence
 * asked for (Laplace noise only; NO_INTERVALS asks for none), and for a
 * strategy that is not batched that its fewest draws' errors fit
 * dpm.max_matrix_mb.
 */
extern void interval_check(double confidence, bool laplace, size_t queries, bool batched);

/*
 * Laplace half-widths for the queries of op (operator.h) by simulating the
 * noise of law alone and reconstructing each draw as the real noise is;
 * *used receives the number of draws behind them.
 */
extern double *interval_laplace(const StrategyOp *op, const LaplaceLaw *law, double confidence,
								int *used);

/*
 * half_from_cells for a dense workload w (p x n): the errors W X of the
 * reconstructions (xd, n x draws, draws fastest) a block of rows of W at a
 * time.
 */
extern void interval_half_dense(const Mat *w, const double *xd, int draws, int k, double *half);

#endif
