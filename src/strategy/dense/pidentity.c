/*
 * pidentity.c -- HDMM's p-Identity strategies (McKenna et al., "Optimizing
 * error of high-dimensional statistical queries under differential
 * privacy", VLDB 2018, section 5): A(Theta) = [I; Theta] D^-1 over n cells,
 * Theta p x n nonnegative, D the diagonal of column sums 1 + 1^T Theta, so
 * every column has L1 norm 1 and A's sensitivity is 1.
 *
 * The objective is the total squared error at Laplace variance 1,
 * f(Theta) = tr(G (A^T A)^-1) for the workload Gram G, with
 * (A^T A)^-1 = D (I + Theta^T Theta)^-1 D.  By Woodbury, with
 * K = (I_p + Theta Theta^T)^-1 and H = Theta^T K Theta,
 *   f = sum_i d_i^2 G_ii - d^T (G o H) d                    (o: entrywise)
 *   grad = -2 Theta Z + 1 (2 (G o M) d)^T,  M = I - H,  Z = M D G D M,
 * and Theta M = K Theta, so Theta Z = K Theta S - (K Theta S) H with
 * S = D G D.  Everything is O(p n^2): no n x n inverse, no n^3 product.
 *
 * Theta is optimized by L-BFGS-B with the bound Theta >= 0 (src/linalg/lbfgsb.c),
 * from a uniform random start drawn by a fixed generator, so results reproduce.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "linalg/lbfgsb.h"
#include "progress/progress.h"
#include "strategy/dense/gram_strategies.h"

/* buffers for one p x n problem, allocated once: an evaluation allocates nothing */
struct PIdentityWork
{
	Mat		   *tt;				/* p x p: I + Theta Theta^T, then its Cholesky factor */
	Mat		   *v;				/* p x n: C^-1 Theta, then K Theta */
	Mat		   *h;				/* n x n: Theta^T K Theta */
	Mat		   *s;				/* n x n: D G D */
	Mat		   *ts;				/* p x n */
	Mat		   *tsh;			/* p x n */
	double	   *d;
	double	   *q;
};

PIdentityWork *
pidentity_work(int p, int n)
{
	PIdentityWork *w = palloc(sizeof(PIdentityWork));

	mat_check_size(2.0 * n + 4.0 * p, n, "p-Identity workspace");
	w->tt = mat_new(p, p);
	w->v = mat_new(p, n);
	w->h = mat_new(n, n);
	w->s = mat_new(n, n);
	w->ts = mat_new(p, n);
	w->tsh = mat_new(p, n);
	w->d = palloc(sizeof(double) * Max(n, 1));
	w->q = palloc(sizeof(double) * Max(n, 1));
	return w;
}

void
pidentity_work_free(PIdentityWork *w)
{
	mat_free(w->tt);
	mat_free(w->v);
	mat_free(w->h);
	mat_free(w->s);
	mat_free(w->ts);
	mat_free(w->tsh);
	pfree(w->d);
	pfree(w->q);
	pfree(w);
}

double
pidentity_objective(const Mat *g, const Mat *theta, double *grad, PIdentityWork *w)
{
	int			n = g->rows,
				p = theta->rows;
	double	   *d = w->d,
			   *q = w->q;
	double		f = 0.0;

	Assert(g->cols == n && theta->cols == n && w->v->rows == p && w->v->cols == n);
	for (int j = 0; j < n; j++)
	{
		d[j] = 1.0;
		for (int i = 0; i < p; i++)
			d[j] += MAT(theta, i, j);
		q[j] = 0.0;
	}

	/* I + Theta Theta^T = C C^T; V = C^-1 Theta, so H = V^T V and K Theta = C^-T V */
	mat_mul_into(w->tt, theta, false, theta, true);
	for (int i = 0; i < p; i++)
		MAT(w->tt, i, i) += 1.0;
	if (!mat_cholesky(w->tt))
		elog(ERROR, "p-Identity: I + Theta Theta^T is not positive definite");
	memcpy(w->v->data, theta->data, sizeof(double) * p * n);
	mat_solve_lower(w->tt, w->v, false);
	/* each product is up to p n^2 (seconds at n = 4096): a cancel waits for one at most */
	CHECK_FOR_INTERRUPTS();
	mat_gram_into(w->h, w->v);
	CHECK_FOR_INTERRUPTS();

	/* f = sum d_i^2 G_ii - d^T (G o H) d, with q = (G o H) d */
	for (int j = 0; j < n; j++)
	{
		f += d[j] * d[j] * MAT(g, j, j);
		for (int i = 0; i < n; i++)
			q[i] += MAT(g, i, j) * MAT(w->h, i, j) * d[j];
	}
	for (int i = 0; i < n; i++)
		f -= d[i] * q[i];

	if (grad != NULL)
	{
		mat_solve_lower(w->tt, w->v, true); /* K Theta */
		for (int j = 0; j < n; j++)
			for (int i = 0; i < n; i++)
				MAT(w->s, i, j) = MAT(g, i, j) * d[i] * d[j];
		CHECK_FOR_INTERRUPTS();
		mat_mul_into(w->ts, w->v, false, w->s, false);
		CHECK_FOR_INTERRUPTS();
		mat_mul_into(w->tsh, w->ts, false, w->h, false);
		for (int j = 0; j < n; j++)
		{
			double		col = 2.0 * (MAT(g, j, j) * d[j] - q[j]);

			for (int i = 0; i < p; i++)
				grad[i + (size_t) j * p] = -2.0 * (MAT(w->ts, i, j) - MAT(w->tsh, i, j)) + col;
		}
	}
	return f;
}

void
pidentity_random(Mat *theta)
{
	uint64		seed = UINT64CONST(0x2545F4914F6CDD1D);

	/* a uniform start (HDMM's), from a fixed generator so the same workload gives the same strategy */
	for (size_t i = 0; i < (size_t) theta->rows * theta->cols; i++)
	{
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		theta->data[i] = (double) (seed >> 11) / 9007199254740992.0;
	}
}

void
pidentity_optimize(const Mat *g, Mat *theta, int max_iter, double *objective, int *evaluations)
{
	int			p = theta->rows,
				n = g->rows;
	PIdentityWork *work = pidentity_work(p, n);
	double	   *grad = palloc(sizeof(double) * Max((size_t) p * n, 1));
	double		f = 0.0;
	LbfgsbState *lb;

	Assert(theta->cols == n);
	*evaluations = 0;
	lb = lbfgsb_begin(p * n, theta->data, 0.0, max_iter, progress_update);
	while (lbfgsb_next(lb, &f, grad))
	{
		CHECK_FOR_INTERRUPTS();
		f = pidentity_objective(g, theta, grad, work);
		(*evaluations)++;
	}
	lbfgsb_end(lb);
	*objective = pidentity_trace(g, theta);
	pidentity_work_free(work);
	pfree(grad);
}

/*
 * tr(G (A^T A)^+) through the pseudo-inverse of A: O(n^3), but without the
 * cancellation in the Woodbury form, for the figures reported.
 */
double
pidentity_trace(const Mat *g, const Mat *theta)
{
	Mat		   *a = pidentity_strategy(theta);
	Mat		   *pinv = mat_pinv(a);
	Mat		   *m = mat_mul(pinv, false, pinv, true);
	double		tr = 0.0;

	for (size_t i = 0; i < (size_t) g->rows * g->cols; i++)
		tr += g->data[i] * m->data[i];
	mat_free(a);
	mat_free(pinv);
	mat_free(m);
	return tr;
}

Mat *
pidentity_strategy(const Mat *theta)
{
	int			p = theta->rows,
				n = theta->cols;
	Mat		   *a = mat_new(n + p, n);

	for (int j = 0; j < n; j++)
	{
		double		d = 1.0;

		for (int i = 0; i < p; i++)
			d += MAT(theta, i, j);
		MAT(a, j, j) = 1.0 / d;
		for (int i = 0; i < p; i++)
			MAT(a, n + i, j) = MAT(theta, i, j) / d;
	}
	return a;
}
