/*
 * hdmm.h -- strategies of the High-Dimensional Matrix Mechanism (McKenna et
 * al., VLDB 2018) for workloads given by their Gram matrices.
 */
#ifndef DPM_HDMM_H
#define DPM_HDMM_H

#include "linalg/linalg.h"

typedef struct PIdentityWork PIdentityWork;

extern PIdentityWork *pidentity_work(int p, int n);
extern void pidentity_work_free(PIdentityWork *w);

/*
 * tr(G (A^T A)^-1) for A = [I; Theta] D^-1 (sensitivity 1); grad, if not
 * NULL, receives its gradient in Theta (p x n, column-major).
 */
extern double pidentity_objective(const Mat *g, const Mat *theta, double *grad,
								  PIdentityWork *work);
/* Theta (p x n) minimizing it from a fixed start; *objective and *evaluations reported */
extern Mat *pidentity_optimize(const Mat *g, int p, int max_iter, double *objective,
							   int *evaluations);
/* the strategy [I; Theta] D^-1 */
extern Mat *pidentity_strategy(const Mat *theta);

#endif
