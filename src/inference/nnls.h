/*
 * nnls.h -- non-negative least squares on a strategy given as an operator,
 * so dense and implicit (HDMM) strategies share one solver.
 */
#ifndef DPM_NNLS_H
#define DPM_NNLS_H

#include "linalg/linalg.h"

typedef struct LinOp
{
	size_t		rows;
	size_t		cols;
	void		(*apply) (const void *ctx, const double *x, double *y); /* y = A x */
	void		(*apply_t) (const void *ctx, const double *y, double *x);	/* x = A^T y */
	const void *ctx;
} LinOp;

/* the operator of a dense matrix (kept by reference) */
extern void inference_linop_dense(LinOp *op, const Mat *a);

/*
 * x >= 0 minimizing |A x - y|^2, from x (updated in place).  Stops when the
 * projected gradient is within tol of zero relative to |A^T y| (both
 * infinity norms) or after max_iter iterations; returns whether it converged.
 */
extern bool inference_nnls_solve(const LinOp *a, const double *y, double *x, double tol, int max_iter,
					   int *iterations);

/*
 * The inference step of a release: x_hat from the least-squares estimate
 * x_ls of strategy answers y.  "ls" keeps x_ls; "nnls" solves the
 * non-negative problem from max(x_ls, 0); "nnls_integer" then rounds to the
 * nearest integers.  Post-processing of private answers: no privacy cost.
 */
typedef enum Inference
{
	INFERENCE_LS,
	INFERENCE_NNLS,
	INFERENCE_NNLS_INTEGER
} Inference;

extern Inference inference_from_name(const char *name);
extern void inference_apply(Inference kind, const LinOp *a, const double *y, double *x);

#endif
