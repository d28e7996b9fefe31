/*
 * nnls.c -- non-negative least squares (matrix-mechanism slides, "New
 * techniques"): min |A x - y|^2 subject to x >= 0, by L-BFGS-B (Debian's
 * liblbfgsb), which needs only products with A and A^T and so works on the
 * implicit strategies as on dense ones, with memory linear in the cells.
 * An active-set method (Lawson-Hanson) would factor A's columns, which the
 * implicit strategies never form.
 */
#include "postgres.h"

#include <float.h>
#include <limits.h>
#include <math.h>

#include "miscadmin.h"

#include "inference/nnls.h"
#include "linalg/lbfgsb.h"
#include "progress/progress.h"

static void
dense_apply(const void *ctx, const double *x, double *y)
{
	mat_vec((const Mat *) ctx, false, x, y);
}

static void
dense_apply_t(const void *ctx, const double *y, double *x)
{
	mat_vec((const Mat *) ctx, true, y, x);
}

void
inference_linop_dense(LinOp *op, const Mat *a)
{
	op->rows = a->rows;
	op->cols = a->cols;
	op->apply = dense_apply;
	op->apply_t = dense_apply_t;
	op->ctx = a;
}

/* |projected gradient|_inf at x >= 0: the KKT residual of the bound constraints */
static double
projected_gradient(const double *x, const double *g, size_t n)
{
	double		top = 0.0;

	for (size_t i = 0; i < n; i++)
		top = fmax(top, x[i] > 0.0 ? fabs(g[i]) : fmax(-g[i], 0.0));
	return top;
}

bool
inference_nnls_solve(const LinOp *a, const double *y, double *x, double tol, int max_iter, int *iterations)
{
	size_t		m = a->rows,
				n = a->cols;
	double	   *r = palloc_extended(sizeof(double) * Max(m, 1), MCXT_ALLOC_HUGE);
	double	   *g = palloc_extended(sizeof(double) * Max(n, 1), MCXT_ALLOC_HUGE);
	double		scale,
				f;
	LbfgsbState *lb;
	bool		converged;

	a->apply_t(a->ctx, y, g);
	scale = vec_max_abs(g, n);
	if (n > INT_MAX)
		elog(ERROR, "inference_nnls_solve: %zu cells", n);
	lb = lbfgsb_begin((int) n, x, 0.0, max_iter, progress_update);
	/* f's relative decrease may stall near 1e-15 before the gradient test: let the gradient decide */
	lbfgsb_set_tolerance(lb, 10.0, tol * scale);
	while (lbfgsb_next(lb, &f, g))
	{
		CHECK_FOR_INTERRUPTS();
		a->apply(a->ctx, x, r);
		f = 0.0;
		for (size_t i = 0; i < m; i++)
		{
			r[i] -= y[i];
			f += 0.5 * r[i] * r[i];
		}
		a->apply_t(a->ctx, r, g);
	}
	*iterations = lbfgsb_iterations(lb);
	lbfgsb_end(lb);

	/* the test on the point returned, whatever stopped the iteration */
	a->apply(a->ctx, x, r);
	for (size_t i = 0; i < m; i++)
		r[i] -= y[i];
	a->apply_t(a->ctx, r, g);
	converged = projected_gradient(x, g, n) <= tol * fmax(scale, DBL_MIN) * (1 + 1e-9);
	pfree(r);
	pfree(g);
	return converged;
}

Inference
inference_from_name(const char *name)
{
	if (strcmp(name, "ls") == 0)
		return INFERENCE_LS;
	if (strcmp(name, "nnls") == 0)
		return INFERENCE_NNLS;
	if (strcmp(name, "nnls_integer") == 0)
		return INFERENCE_NNLS_INTEGER;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown inference \"%s\"", name),
			 errhint("Valid: ls (least squares), nnls (non-negative least squares), nnls_integer (the same, rounded to integers).")));
	return INFERENCE_LS;		/* not reached */
}

/* relative KKT tolerance and iteration cap of the release's NNLS */
#define NNLS_TOL		1e-7
#define NNLS_MAX_ITER	100000

void
inference_apply(Inference kind, const LinOp *a, const double *y, double *x)
{
	int			iterations;

	if (kind == INFERENCE_LS)
		return;
	for (size_t i = 0; i < a->cols; i++)
		x[i] = fmax(x[i], 0.0);
	if (!inference_nnls_solve(a, y, x, NNLS_TOL, NNLS_MAX_ITER, &iterations))
		ereport(NOTICE,
				(errmsg("non-negative least squares stopped after %d iterations before reaching its tolerance", iterations),
				 errdetail("The estimate is non-negative and at least as close to the measurements as the starting point.")));
	if (kind == INFERENCE_NNLS_INTEGER)
		for (size_t i = 0; i < a->cols; i++)
			x[i] = rint(x[i]) + 0.0;	/* + 0.0: no negative zero */
}
