/*
 * gram_strategies.h -- strategies and bounds computed from the workload's Gram matrix
 * G = W^T W alone, so the number of queries m never matters.
 *
 * Cells whose column of W is zero are never asked about: they are dropped
 * before optimizing (and from the n of the SVD bound) and get a zero column
 * in the strategy.
 */
#ifndef DPM_GRAM_H
#define DPM_GRAM_H

#include "linalg/linalg.h"

/* the cells with a nonzero diagonal in G (count returned, indexes in *keep) */
extern int	gram_support(const Mat *g, int **keep);
/* G restricted to those cells */
extern Mat *gram_restrict(const Mat *g, const int *keep, int k);
/* a strategy over k kept cells, widened to n cells with zero columns elsewhere */
extern Mat *strategy_widen(const Mat *a, const int *keep, int n);

/*
 * R (rank x n) with R^T R = G: rows sqrt(lambda_i) p_i^T.  A workload with the
 * same total error under every strategy as W, and at most n rows.
 */
extern Mat *gram_root(const Mat *g);

/*
 * The SVD bound (Li & Miklau, ICDT 2013, Definition 4.1): (sum of W's singular values)^2
 * / n over the n nonzero columns; *nonzero receives that n.
 */
extern double strategy_svd_bound(const Mat *g, int *nonzero);
/* the sum of W's singular values, tr (W^T W)^1/2, given W^T W; *nonzero as above */
extern double strategy_singular_sum(const Mat *g, int *nonzero);

/* Report of an iterative optimizer: objective = Delta_2^2 trace(G (A^T A)^+) */
typedef struct OptReport
{
	int			iterations;
	double		objective;		/* of the strategy returned */
	double		lower_bound;	/* no strategy at all does better; NaN if none */
} OptReport;

/* A = (W^T W)^(1/4): rows sqrt(sigma_i) p_i^T over W's nonzero singular values */
extern Mat *strategy_eigen(const Mat *g, OptReport *rep);
/* weights on W's eigen-queries by the convex program, to relative gap tol */
extern Mat *strategy_eigen_design(const Mat *g, double tol, int max_iter, OptReport *rep);
/* min trace(G X^-1) s.t. diag(X) <= 1 (matrix-mechanism Program 5.2), to relative gap tol */
extern Mat *strategy_gaussian_optimal(const Mat *g, double tol, int max_iter, OptReport *rep);

/*
 * A strategy with the same A^T A as a and the lowest L1 sensitivity found
 * (matrix-mechanism section 5.4); rep->objective is that sensitivity.
 */
extern Mat *strategy_min_sensitivity(const Mat *a, int max_sweeps, OptReport *rep);

/*
 * The Low-Rank Mechanism's W = B L (Yuan et al., PVLDB 2012, Algorithm 1);
 * returns L.  rank 0 means 1.2 rank(W); gamma is relative to ||W||_F.
 * rep->objective is tr(B^T B) Delta_1(L)^2 for W scaled to ||W||_F = 1.
 */
extern Mat *strategy_lrm(const Mat *g, int rank, double gamma, int max_iter, OptReport *rep);

/*
 * pidentity.c: HDMM's p-Identity strategies A = [I; Theta] D^-1 over one
 * attribute (McKenna et al., VLDB 2018, section 5), the method "hdmm" on a
 * dense workload and the factors of hdmm/'s Kronecker strategies.
 */
typedef struct PIdentityWork PIdentityWork;

extern PIdentityWork *pidentity_work(int p, int n);
extern void pidentity_work_free(PIdentityWork *w);

/*
 * tr(G (A^T A)^-1) for A = [I; Theta] D^-1 (sensitivity 1); grad, if not
 * NULL, receives its gradient in Theta (p x n, column-major).
 */
extern double pidentity_objective(const Mat *g, const Mat *theta, double *grad,
								  PIdentityWork *work);
/* HDMM's uniform random start, from a fixed generator */
extern void pidentity_random(Mat *theta);
/* Theta (p x n) minimizing it, from and into theta; *objective (if not NULL) and *evaluations reported */
extern void pidentity_optimize(const Mat *g, Mat *theta, int max_iter, double *objective,
							   int *evaluations);
/* the same through a Cholesky factor of n x n: slower, accurate to rounding */
extern double pidentity_trace(const Mat *g, const Mat *theta);
/* the strategy [I; Theta] D^-1 */
extern Mat *pidentity_strategy(const Mat *theta);

/*
 * Complete deficient columns (matrix-mechanism section 5.3): add one row per
 * column whose norm (p = 1 or 2) is below the strategy's sensitivity, so
 * that every column reaches it.  Never raises sensitivity, never increases
 * any query's error.
 */
extern Mat *strategy_augment(const Mat *a, int p);

#endif
