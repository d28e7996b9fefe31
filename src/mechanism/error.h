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

/*
 * A of full column rank: (A^T A)^+ = (L L^T)^-1.  The Cholesky factor L of
 * A^T A (one dsyrk, one dpotrf), or NULL when A has fewer rows than columns
 * or A^T A is singular or too ill-conditioned for it (the route squares A's
 * condition number: taken only where A^T A's is below 1e6, so that what
 * comes from it keeps about ten digits).
 */
extern Mat *mechanism_gram_factor(const Mat *a);
/* the profile terms from that factor: one dtrsm with W */
extern double *mechanism_profile_chol(const Mat *w, const Mat *l);

/* per-coordinate noise variance for sensitivity-calibrated Laplace (delta = 0) or Gaussian noise */
extern double mechanism_noise_variance(const Mat *a, double epsilon, double delta, double sens_scale);

#endif
