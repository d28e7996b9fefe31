/*
 * operator.h -- a strategy as the mechanism uses it, whatever its form.
 *
 * Of a strategy A and a workload W the mechanism needs only: A x exactly on
 * integer counts with a proven bound of A's sensitivity, the least-squares
 * reconstruction x_hat = A^+ y, the answers W x_hat, each query's profile
 * w (A^T A)^+ w^T (the squared row norms of W A^+), and products with A and
 * A^T for non-negative inference.  A dense matrix provides them through its
 * SVD (mechanism.c), an HDMM strategy without any matrix over the cells
 * (strategy/hdmm/implicit.c); one mechanism (mechanism_run) and one interval
 * simulation (interval_laplace) serve both.
 */
#ifndef DPM_OPERATOR_H
#define DPM_OPERATOR_H

#include "inference/nnls.h"
#include "linalg/linalg.h"
#include "mechanism/exact.h"

typedef struct StrategyOp StrategyOp;

struct StrategyOp
{
	size_t		rows;			/* strategy answers: A's rows */
	size_t		cells;			/* A's columns: the data vector's length */
	size_t		queries;		/* W's rows */
	const double *profile;		/* w (A^T A)^+ w^T for each query */

	/*
	 * How the interval simulation reconstructs its draws.  true: A^+ is a
	 * matrix, so all of them in one product; false: one at a time, stopping
	 * after dpm.ci_max_seconds (interval.h).
	 */
	bool		batched;

	/*
	 * A x exactly for counts x, A as it is measured (quantized, exact.h);
	 * *sens receives a proven upper bound of that A's largest column norm,
	 * L1 (norm 1) or L2 (norm 2).
	 */
	ExactAnswers *(*measure) (const StrategyOp *op, const int64 *x, int norm, double *sens);

	/*
	 * The reconstructions A^+ y of the columns of y (rows x k), newly
	 * allocated as the rows of a k x cells matrix: draws fastest, as the
	 * interval simulation keeps them (for k = 1, simply the vector).
	 */
	Mat		   *(*solve) (const StrategyOp *op, const Mat *y);

	/* W x, newly allocated */
	double	   *(*answer) (const StrategyOp *op, const double *x);

	/* A and A^T, for non-negative least squares */
	void		(*linop) (const StrategyOp *op, LinOp *lin);

	/*
	 * Interval half-widths from the kept reconstructions of the simulated
	 * noise, xd (cells x draws, draws fastest): half[i] = query i's k-th
	 * smallest |error|, computed a block of queries at a time.
	 */
	void		(*half_from_cells) (const StrategyOp *op, const double *xd, int draws, int k,
									double *half);
	/*
	 * The most doubles one block of those errors takes (consulted when not
	 * batched, to choose between keeping reconstructions and errors).
	 */
	double		(*block_doubles) (const StrategyOp *op, int draws);

	void	   *state;			/* the implementation's own */
};

#endif
