/*
 * error.h -- the data-independent error of the matrix mechanism.
 *
 * For strategy A and query w the least-squares answer has variance
 * noise_var * w (A^T A)^+ w^T (Li et al., PODS 2010, Proposition 4), where
 * noise_var is the variance of the noise added to each strategy answer.
 */
#ifndef DPM_ERROR_H
#define DPM_ERROR_H

#include "linalg/linalg.h"

/*
 * The profile term w (A^T A)^+ w^T of every row of W, from the SVD of A
 * (want_u not needed).  Errors out, naming the query, if some row of W is
 * not in the row space of A: such a query has no unbiased estimate.
 */
extern double *mechanism_profile_terms(const Mat *w, const Svd *a_svd);

/*
 * The same terms without the SVD where a Cholesky factor of A^T A serves
 * (full column rank, well conditioned): what ranking strategies needs, at a
 * fraction of the cost of the pseudo-inverse a release needs.
 */
extern double *mechanism_profile(const Mat *w, const Mat *a);

/* per-coordinate noise variance for sensitivity-calibrated Laplace (delta = 0) or Gaussian noise */
extern double mechanism_noise_variance(const Mat *a, double epsilon, double delta, double sens_scale);

#endif
