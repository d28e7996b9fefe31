/*
 * fitness.h -- per-query accuracy targets with correlated Gaussian noise
 * (fitness-for-use.md): the covariance of the noise on B x, answers L (B x +
 * noise), W = L B.
 */
#ifndef DPM_FITNESS_H
#define DPM_FITNESS_H

#include "linalg/linalg.h"

typedef struct FitnessOptions
{
	int			max_iter;		/* Newton steps */
	double		mu;				/* factor raising t1, t2 */
	double		tol;			/* stop when (d + m) / t1 is below */
	double		newton_tol;		/* a subproblem is solved when |<s, grad F>| is below */
	double		lambda;			/* weight of the total variance */
} FitnessOptions;

typedef struct FitnessReport
{
	int			iterations;
	double		cost2;			/* squared privacy cost max_i b_i^T Sigma^-1 b_i */
	double		t;				/* the final soft-max parameter */
} FitnessReport;

/*
 * Sigma (k x k) meeting every target c_j (variance of query j, from L's row
 * j) with the least privacy cost; B is k x d, L is m x k.
 */
extern Mat *fitness_optimize(const Mat *b, const Mat *l, const double *c,
							 const FitnessOptions *opts, FitnessReport *rep);

/*
 * L (B x + N(0, s^2 Sigma)) with s calibrated to (epsilon, delta), or to rho
 * when rho > 0, at the mechanism's privacy cost; stderrs from the noise
 * actually added.
 */
extern struct Release *fitness_mechanism(const Mat *b, const Mat *l, const Mat *sigma,
										 const double *x, double epsilon, double delta,
										 double rho, double sens_scale);

#endif
