/*
 * fitness.h -- per-query accuracy targets with correlated Gaussian noise
 * (Xiao et al., PVLDB 2020): the covariance of the noise on B x, answers L (B x +
 * noise), W = L B.
 */
#ifndef DPM_FITNESS_H
#define DPM_FITNESS_H

#include "linalg/linalg.h"

typedef enum FitnessBasis
{
	FITNESS_BASIS_AUTO,			/* identity if W has full column rank, else workload */
	FITNESS_BASIS_IDENTITY,
	FITNESS_BASIS_UPPER,
	FITNESS_BASIS_WORKLOAD
} FitnessBasis;

typedef struct FitnessOptions
{
	int			max_iter;		/* Newton steps */
	double		mu;				/* factor raising t1, t2 */
	double		tol;			/* stop when (d + m) / t1 is below */
	double		newton_tol;		/* a subproblem is solved when |<s, grad F>| / max(1, F) is below */
	double		lambda;			/* weight of the total variance */
	int			cg_iters;		/* conjugate-gradient iterations per Newton step */
} FitnessOptions;

typedef struct FitnessReport
{
	int			iterations;
	double		cost2;			/* squared privacy cost max_i b_i^T Sigma^-1 b_i */
} FitnessReport;

/*
 * Sigma (k x k) meeting every target c_j (variance of query j, from L's row
 * j) with the least privacy cost; B is k x d, L is m x k.
 */
extern Mat *fitness_optimize(const Mat *b, const Mat *l, const double *c,
							 const FitnessOptions *opts, FitnessReport *rep);

/* B (k x d) with independent rows and L (m x k) such that W = L B */
extern void fitness_basis(const Mat *w, FitnessBasis kind, Mat **b, Mat **l);

/* the strategy C^-1 B (Sigma = C C^T): unit Gaussian noise on it is the mechanism */
extern Mat *fitness_strategy(const Mat *b, const Mat *sigma);

#endif
