/*
 * hdmm.h -- strategies of the High-Dimensional Matrix Mechanism (McKenna et
 * al., VLDB 2018) for workloads given by their Gram matrices.
 */
#ifndef DPM_HDMM_H
#define DPM_HDMM_H

#include "linalg/linalg.h"
#include "workload/workload.h"

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
/* Theta (p x n) minimizing it, from and into theta; *objective and *evaluations reported */
extern void pidentity_optimize(const Mat *g, Mat *theta, int max_iter, double *objective,
							   int *evaluations);
/* the strategy [I; Theta] D^-1 */
extern Mat *pidentity_strategy(const Mat *theta);

/* kron.c: Kronecker products of p-Identity factors, theta[a] per attribute */
extern double kron_error(const KronGram *kg, Mat **theta);
extern void kron_optimize(const KronGram *kg, Mat **theta, int max_iter, int max_rounds,
						  double *objective, int *evaluations);

/* marginals.c: weights on the 2^d marginals, for workloads of marginals */
extern bool marginals_applies(const KronGram *kg);
extern double marginals_error(const KronGram *kg, const double *theta);
extern double *marginals_optimize(const KronGram *kg, int max_iter, double *objective,
								  int *evaluations);

#endif
