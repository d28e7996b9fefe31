/*
 * gls.h -- one estimate from every measurement kept of a data vector:
 * generalized least squares over releases y_k = A_k x + e_k, each with its
 * own strategy and noise (variance v_k per answer, independent), weighted by
 * 1 / v_k.  Post-processing of what was released: no privacy cost.
 *
 * With M = sum_k A_k^T A_k / v_k and b = sum_k A_k^T y_k / v_k, a query w is
 * determined by the measurements when it lies in the row space of M (of all
 * the A_k); then w M^+ b is its best linear unbiased estimate, of variance
 * w M^+ w^T exactly.  Other queries have no unbiased estimate from them.
 */
#ifndef DPM_GLS_H
#define DPM_GLS_H

#include "linalg/linalg.h"
#include "mechanism/sampler.h"

typedef struct GlsPart
{
	const Mat  *a;				/* the strategy, m_k x n */
	const double *y;			/* its m_k noisy answers */
	double		variance;		/* of the noise on each */
	LaplaceLaw	law;			/* t = 0: Gaussian noise */
} GlsPart;

typedef struct GlsResult
{
	double	   *answers;		/* per query of W; meaningful where determined */
	double	   *stderrs;
	double	   *half;			/* interval half-widths, or NULL (none asked) */
	bool	   *determined;
	int			ci_draws;		/* simulated draws behind half; 0 when exact (all Gaussian) */
} GlsResult;

/*
 * The estimates of the queries of w (p x n) from the parts, and at
 * confidence (NO_INTERVALS: none) their intervals: exact when every part's
 * noise is Gaussian, else simulated from the parts' own noise laws
 * (dpm.ci_draws draws, as interval.h does for one release).
 */
extern GlsResult *gls_estimate(const Mat *w, const GlsPart *parts, int nparts, double confidence);

#endif
