/*
 * mechanism.h -- the matrix mechanism: noisy strategy answers, least-squares
 * reconstruction, workload answers with their standard errors.
 */
#ifndef DPM_MECHANISM_H
#define DPM_MECHANISM_H

#include "inference/nnls.h"
#include "linalg/linalg.h"

typedef struct Release
{
	int			p;				/* workload queries */
	double	   *answers;		/* W x_hat */
	double	   *stderrs;		/* sqrt of each answer's noise variance */
	double		noise_var;		/* variance of the noise on each strategy answer */
} Release;

/*
 * Answer workload w on data vector x through strategy a: rho-zCDP Gaussian
 * noise when rho > 0; otherwise epsilon-DP Laplace noise when delta = 0,
 * (epsilon, delta)-DP Gaussian noise when delta > 0.
 * sens_scale multiplies the strategy's sensitivity (a privacy unit that may
 * contribute several rows).  inference chooses the estimate of x from the
 * noisy answers (least squares, or non-negative); the standard errors are
 * least squares' in every case.  Every check that can fail runs before any noise
 * is drawn.
 */
extern Release *run_mechanism(const Mat *w, const Mat *a, const double *x,
							  double epsilon, double delta, double rho, double sens_scale,
							  Inference inference);

/*
 * Add the noise in place to the m exact strategy answers y, for sensitivities
 * l1 and l2 (already scaled); returns its variance per answer.  Refuses
 * answers that are not finite, before any noise is drawn.
 */
extern double mechanism_noise(double *y, int m, double l1, double l2, double epsilon,
							  double delta, double rho);

#endif
