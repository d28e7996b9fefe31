/*
 * residual.h -- ResidualPlanner (Xiao, He, Zhang and Kifer, NeurIPS
 * 2023): the optimal Gaussian matrix mechanism for a weighted set of
 * marginals, measured one residual per attribute subset.
 *
 * The domain has d attributes of n_1 .. n_d values.  For a subset A, the
 * residual of the marginal table x_A (N_A = prod_{i in A} n_i cells) is its
 * projection (x)_{i in A} (I - J/n_i): what x_A holds beyond its own
 * sub-marginals.  Residuals of different subsets are orthogonal, a
 * marginal S is the sum of the residuals of the subsets of S (each spread
 * uniformly over the attributes of S it lacks), and W^T W of a marginal
 * workload is diagonal in the residual bases.  Measuring residual A with
 * isotropic noise of variance tau_A^2 in its r_A = prod_{i in A} (n_i - 1)
 * dimensions costs r_A / (N_A tau_A^2) of squared L2 sensitivity and adds
 * r_A mu_A tau_A^2 to the total variance of the workload's cells, where
 *   mu_A = sum over workload marginals S containing A of c_S / N_{S \ A}
 * (c_S the marginal's weight squared).  At unit sensitivity the sum of
 * variances is least at tau_A^2 = T / sqrt(mu_A N_A), where it is T^2 with
 *   T = sum_A r_A sqrt(mu_A / N_A),
 * which is also the SVD bound of the workload (Li & Miklau, ICDT 2013): the
 * plan is optimal among all Gaussian matrix mechanisms, and T^2 is its
 * certificate.
 */
#ifndef DPM_RESIDUAL_H
#define DPM_RESIDUAL_H

#include "postgres.h"

/* most attributes one marginal may have: its 2^k subsets are enumerated */
#define RESIDUAL_MAX_ORDER 16

/* one residual of the plan: a subset of the attributes and its measurement */
typedef struct Residual
{
	int			order;			/* |A| */
	int16		attrs[RESIDUAL_MAX_ORDER];	/* 0-based, increasing */
	double		rows;			/* r_A */
	double		cells;			/* N_A */
	double		mu;				/* mu_A */
	double		variance;		/* tau_A^2 at unit L2 sensitivity */
} Residual;

typedef struct ResidualPlan
{
	int			count;			/* the residuals measured: rows > 0 and mu > 0 */
	Residual   *residuals;
	double		total;			/* T^2: the sum of the cells' variances, = the SVD bound */
} ResidualPlan;

/*
 * The plan for m marginals over attributes of the given sizes: marginal j
 * keeps the attributes attrs[j * width .. j * width + width - 1] (1-based; 0
 * pads a shorter one), with weight weights[j] (NULL: all 1).
 */
extern ResidualPlan *residual_plan(const int *sizes, int d, const int *attrs, int m, int width,
								   const double *weights);

#endif
