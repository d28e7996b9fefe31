/*
 * lrm.c -- the Low-Rank Mechanism's decomposition W = B L
 * (Yuan et al., PVLDB 2012, sections 4-5): minimize tr(B^T B) subject to
 * B L = W and every column of L in the unit L1 ball, by the inexact augmented
 * Lagrangian method of its Algorithm 1.  The B step is the closed form of its
 * Eq. 9, the L step Nesterov's projected gradient (Algorithm 2) onto the L1
 * balls (formula 11).  No maintained library solves this nonconvex program,
 * hence the hand-written loop; the linear algebra in it is BLAS/LAPACK.
 *
 * Departures from the paper, none of which changes what is optimized:
 * - W enters only through R with R^T R = W^T W (W = Q R, Q orthonormal, and
 *   B = Q B' keeps tr(B^T B)), so the number of queries m never matters.
 * - R is scaled to ||R||_F = 1 (Lemma 2: scaling W scales B and the error
 *   only), so the penalty schedule and gamma mean the same for every
 *   workload; gamma is relative to ||W||_F.
 * - The start is Lemma 3's feasible point (B = sqrt(r) U Sigma,
 *   L = V^T / sqrt(r)) with beta = 100 rather than 1: from beta = 1 the
 *   first iterations drop W's weak directions to save on B and never
 *   recover them on some range workloads.
 * - The L step uses the exact Lipschitz constant beta ||B^T B||_2 instead
 *   of a backtracking search.
 *
 * The strategy returned is L, with its rows restricted to W's row space:
 * there B L = W holds exactly rather than to gamma, so least squares answers
 * every query of W without bias.  Least squares on L x + noise is never worse
 * than the paper's B (L x + noise): it uses the minimum-norm B with B L = W.
 * The error stored for the strategy is computed from the returned L, so it
 * is exact whatever the optimizer reached.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/memutils.h"

#include "strategy/dense/gram_strategies.h"
#include "progress/progress.h"

static int
cmp_desc(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x < y) - (x > y);
}

/* Euclidean projection of v (length n) onto the unit L1 ball, by sorting (Duchi et al. 2008) */
static void
project_l1(double *v, int n, double *work)
{
	double		norm = 0.0,
				cum = 0.0,
				theta = 0.0;

	for (int i = 0; i < n; i++)
		norm += fabs(v[i]);
	if (norm <= 1.0)
		return;
	for (int i = 0; i < n; i++)
		work[i] = fabs(v[i]);
	qsort(work, n, sizeof(double), cmp_desc);
	for (int i = 0; i < n; i++)
	{
		cum += work[i];
		if (work[i] > (cum - 1.0) / (i + 1))
			theta = (cum - 1.0) / (i + 1);
	}
	for (int i = 0; i < n; i++)
		v[i] = copysign(fmax(fabs(v[i]) - theta, 0.0), v[i]);
}

static void
project_columns(Mat *l, double *work)
{
	for (int j = 0; j < l->cols; j++)
		project_l1(&MAT(l, 0, j), l->rows, work);
}

/* buffers of the L step, allocated once: a step allocates nothing */
typedef struct LrmWork
{
	Mat		   *x;				/* r x r: beta L L^T + I, then its Cholesky factor */
	Mat		   *y;				/* r x k: the extrapolated point */
	Mat		   *ln;				/* r x k: the trial point */
	Mat		   *g;				/* r x k: B^T (T - B L) at y */
	Mat		   *by;				/* rank x r: B at y */
	Mat		   *bn;				/* rank x r: B at the trial point */
	Mat		   *ey;				/* rank x k: T - B L at y */
	Mat		   *e;				/* rank x k: T - B L elsewhere, or R - B L */
	double	   *work;			/* r: project_l1's sort */
} LrmWork;

static LrmWork *
lrm_work(int rank, int r, int k)
{
	LrmWork    *w = palloc(sizeof(LrmWork));

	w->x = mat_new(r, r);
	w->y = mat_new(r, k);
	w->ln = mat_new(r, k);
	w->g = mat_new(r, k);
	w->by = mat_new(rank, r);
	w->bn = mat_new(rank, r);
	w->ey = mat_new(rank, k);
	w->e = mat_new(rank, k);
	w->work = palloc(sizeof(double) * Max(r, 1));
	return w;
}

static void
lrm_work_free(LrmWork *w)
{
	mat_free(w->x);
	mat_free(w->y);
	mat_free(w->ln);
	mat_free(w->g);
	mat_free(w->by);
	mat_free(w->bn);
	mat_free(w->ey);
	mat_free(w->e);
	pfree(w->work);
	pfree(w);
}

/*
 * The subproblem of Algorithm 1 with B eliminated by its closed form (Eq. 9):
 * for T = R + pi / beta, B = beta T L^T (beta L L^T + I)^-1 minimizes
 * 1/2 ||B||^2 + beta/2 ||T - B L||^2, the augmented Lagrangian up to a
 * constant.  Returns that minimum; b and e receive B and T - B L.
 */
static double
lrm_value(const Mat *l, const Mat *t, double beta, Mat *b, Mat *e, LrmWork *w)
{
	Mat		   *x = w->x;
	double		bb = 0.0,
				ee = 0.0;

	mat_mul_into(x, l, false, l, true);
	for (int i = 0; i < x->rows; i++)
	{
		for (int j = 0; j < x->cols; j++)
			MAT(x, i, j) *= beta;
		MAT(x, i, i) += 1.0;
	}
	/* eigenvalues >= 1: always positive definite */
	if (!mat_cholesky(x))
		elog(ERROR, "lrm: beta L L^T + I is not positive definite");
	mat_mul_into(b, t, false, l, true);
	mat_solve_right_chol(b, x);
	for (size_t i = 0; i < (size_t) b->rows * b->cols; i++)
	{
		b->data[i] *= beta;
		bb += b->data[i] * b->data[i];
	}
	mat_mul_into(e, b, false, l, false);
	for (size_t i = 0; i < (size_t) e->rows * e->cols; i++)
	{
		e->data[i] = t->data[i] - e->data[i];
		ee += e->data[i] * e->data[i];
	}
	return 0.5 * bb + 0.5 * beta * ee;
}

static double
sum_sq(const Mat *a)
{
	double		s = 0.0;

	for (size_t i = 0; i < (size_t) a->rows * a->cols; i++)
		s += a->data[i] * a->data[i];
	return s;
}

/* the largest eigenvalue of s (allocates: called in an iteration's context) */
static double
top_eigenvalue(const Mat *s)
{
	Mat		   *q = mat_copy(s);
	double	   *w = palloc(sizeof(double) * Max(s->rows, 1));

	mat_sym_eig(q, w);
	return s->rows > 0 ? w[s->rows - 1] : 0.0;
}

/*
 * The L step (Algorithm 2): accelerated projected gradient onto the columns'
 * L1 balls with a backtracking step (the paper's omega doubling), plus a
 * momentum restart whenever the value would rise, so that every accepted
 * step descends.  The gradient in L is -beta B^T (T - B L).  Returns the
 * steps taken; b is B at the final L.
 */
static int
update_l(Mat *l, Mat *b, const Mat *t, double beta, int max_steps, LrmWork *w)
{
	size_t		size = (size_t) l->rows * l->cols;
	Mat		   *y = w->y,
			   *ln = w->ln,
			   *g = w->g;
	double		f,
				step,
				mom = 1.0;
	int			steps = 0;

	f = lrm_value(l, t, beta, b, w->e, w);
	step = 1.0 / fmax(beta * top_eigenvalue(mat_mul(b, true, b, false)), 1e-300);
	memcpy(y->data, l->data, sizeof(double) * size);
	while (steps < max_steps)
	{
		double		fy = lrm_value(y, t, beta, w->by, w->ey, w),
					fn,
					dd,
					gd,
					mom_next;

		CHECK_FOR_INTERRUPTS();
		steps++;
		mat_mul_into(g, w->by, true, w->ey, false); /* the gradient is -beta times this */
		for (;;)
		{
			for (size_t i = 0; i < size; i++)
				ln->data[i] = y->data[i] + step * beta * g->data[i];
			project_columns(ln, w->work);
			fn = lrm_value(ln, t, beta, w->bn, w->e, w);
			dd = gd = 0.0;
			for (size_t i = 0; i < size; i++)
			{
				double		d = ln->data[i] - y->data[i];

				dd += d * d;
				gd -= beta * g->data[i] * d;
			}
			if (fn <= fy + gd + dd / (2.0 * step) || step < 1e-300)
				break;
			step *= 0.5;
		}
		if (fn > f)
		{
			/* restart the momentum from the last accepted point */
			memcpy(y->data, l->data, sizeof(double) * size);
			mom = 1.0;
			continue;
		}
		mom_next = (1.0 + sqrt(1.0 + 4.0 * mom * mom)) / 2.0;
		for (size_t i = 0; i < size; i++)
			y->data[i] = ln->data[i] + (mom - 1.0) / mom_next * (ln->data[i] - l->data[i]);
		mom = mom_next;
		memcpy(l->data, ln->data, sizeof(double) * size);
		memcpy(b->data, w->bn->data, sizeof(double) * (size_t) b->rows * b->cols);
		f = fn;
		step *= 1.5;
		if (dd <= 1e-12 * sum_sq(l))
			break;
	}
	return steps;
}

/* Lemma 3's feasible start, with small deterministic rows beyond the rank so they can move */
static void
lrm_start(const Mat *rt, const double *sigma, Mat *l, Mat *b, double *work)
{
	int			rank = rt->rows,
				r = l->rows;
	uint64		seed = UINT64CONST(0x9E3779B97F4A7C15);

	for (int j = 0; j < l->cols; j++)
		for (int i = 0; i < r; i++)
		{
			if (i < rank)
				MAT(l, i, j) = MAT(rt, i, j) / sigma[i] / sqrt((double) r);
			else
			{
				/* a linear congruential generator: any spread will do, reproducibly */
				seed = seed * UINT64CONST(6364136223846793005) + UINT64CONST(1442695040888963407);
				MAT(l, i, j) = 1e-3 * ((double) (seed >> 11) / 9007199254740992.0 - 0.5) / sqrt((double) r);
			}
		}
	project_columns(l, work);
	for (int i = 0; i < rank; i++)
		MAT(b, i, i) = sqrt((double) r) * sigma[i];
}

Mat *
strategy_lrm(const Mat *g, int rank_opt, double gamma, int max_iter, OptReport *rep)
{
	int		   *keep;
	int			k = gram_support(g, &keep),
				rank,
				r,
				it,
				steps = 0;
	Mat		   *gk,
			   *rt,
			   *l,
			   *b,
			   *pi,
			   *t,
			   *resid,
			   *bp,
			   *fix,
			   *out;
	double	   *sigma;
	double		norm = 0.0,
				beta = 100.0,
				tau = INFINITY,
				last_tau = INFINITY;
	LrmWork    *w;
	MemoryContext iter_cxt,
				old_cxt;

	if (k == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("method lrm needs a workload with at least one nonzero query")));
	gk = gram_restrict(g, keep, k);
	rt = gram_root(gk);
	mat_free(gk);
	rank = rt->rows;
	/* the paper's default, 1.2 rank(W) (section 6.1) */
	r = rank_opt > 0 ? rank_opt : (int) ceil(1.2 * rank);
	if (r < rank)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("lrm rank %d is below the workload's rank %d", r, rank),
				 errdetail("W = B L needs L to have at least rank(W) rows."),
				 errhint("Leave out the rank option for the default, 1.2 rank(W).")));
	mat_check_size(r, k, "lrm factor");

	/* scale W to ||W||_F = 1 (Lemma 2) */
	sigma = palloc(sizeof(double) * Max(rank, 1));
	for (int i = 0; i < rank; i++)
	{
		double		s = 0.0;

		for (int j = 0; j < k; j++)
			s += MAT(rt, i, j) * MAT(rt, i, j);
		sigma[i] = sqrt(s);
		norm += s;
	}
	norm = sqrt(norm);
	for (size_t i = 0; i < (size_t) rank * k; i++)
		rt->data[i] /= norm;
	for (int i = 0; i < rank; i++)
		sigma[i] /= norm;

	w = lrm_work(rank, r, k);
	l = mat_new(r, k);
	b = mat_new(rank, r);
	lrm_start(rt, sigma, l, b, w->work);
	pi = mat_new(rank, k);
	t = mat_new(rank, k);
	/* R - B L, where update_l keeps T - B L between its calls */
	resid = w->e;
	/* the few allocations of an iteration (its step size's eigenproblem) go with it */
	iter_cxt = mat_loop_context("lrm iteration");

	/*
	 * Algorithm 1's outer loop, with the usual safeguard on its schedule: a
	 * multiplier step only when the residual fell by half since the last
	 * one, a larger penalty otherwise.  (The paper's fixed schedule, beta
	 * doubling every 10 iterations and a multiplier step every time, lets
	 * the multipliers grow without bound on some range workloads while the
	 * residual stalls.)
	 */
	for (it = 1; it <= max_iter; it++)
	{
		for (size_t i = 0; i < (size_t) rank * k; i++)
			t->data[i] = rt->data[i] + pi->data[i] / beta;
		old_cxt = MemoryContextSwitchTo(iter_cxt);
		steps += update_l(l, b, t, beta, 300, w);
		MemoryContextSwitchTo(old_cxt);
		MemoryContextReset(iter_cxt);
		mat_mul_into(resid, b, false, l, false);
		for (size_t i = 0; i < (size_t) rank * k; i++)
			resid->data[i] = rt->data[i] - resid->data[i];
		tau = sqrt(sum_sq(resid));
		elog(DEBUG2, "lrm: iteration %d, %d steps, beta %g, ||W - B L|| / ||W|| = %g",
			 it, steps, beta, tau);
		progress_update("lrm", it, tau, NAN);
		if (tau <= gamma || beta > 1e10)
			break;
		if (tau <= 0.5 * last_tau)
		{
			for (size_t i = 0; i < (size_t) rank * k; i++)
				pi->data[i] += beta * resid->data[i];
			last_tau = tau;
		}
		else
		{
			beta *= 4.0;
			last_tau = fmin(last_tau, tau);
		}
	}
	MemoryContextDelete(iter_cxt);
	if (tau > gamma)
		ereport(NOTICE,
				(errmsg("lrm stopped at ||W - B L|| = %.3g ||W||, above gamma = %.3g", tau, gamma),
				 errdetail("The strategy still answers every query without bias and its error is exact, but it may be far from the Low-Rank Mechanism's optimum."),
				 errhint("Raise max_iter or gamma, or compare with other methods (dpm.compare_strategies).")));
	rep->iterations = steps;
	/* tr(B^T B) Delta_1(L)^2 for W scaled to ||W||_F = 1: Lemma 1's error times epsilon^2 / 2 */
	rep->objective = sum_sq(b) * pow(mat_max_col_norm(l, 1), 2);
	rep->lower_bound = NAN;

	/*
	 * B L = W holds only to gamma.  The least change to L that makes it
	 * exact, L + B^+ (R - B L), keeps L's components outside W's row space
	 * (they are what lowers the sensitivity: projecting them away raises it
	 * by half on range workloads) and lets least squares answer every query
	 * of W without bias.
	 */
	mat_mul_into(resid, b, false, l, false);
	for (size_t i = 0; i < (size_t) rank * k; i++)
		resid->data[i] = rt->data[i] - resid->data[i];
	bp = mat_pinv(b);
	fix = mat_mul(bp, false, resid, false);
	for (size_t i = 0; i < (size_t) r * k; i++)
		l->data[i] += fix->data[i];
	mat_free(fix);

	/*
	 * If B lost rank (the loop stalled), the corrected L may still miss part
	 * of W's row space: then W's own rows, scaled to sensitivity 1, join it.
	 */
	fix = mat_mul(b, false, l, false);
	for (size_t i = 0; i < (size_t) rank * k; i++)
		fix->data[i] = rt->data[i] - fix->data[i];
	if (sqrt(sum_sq(fix)) > 1e-9)
	{
		double		d = mat_max_col_norm(rt, 1);
		Mat		   *both;

		for (size_t i = 0; i < (size_t) rank * k; i++)
			rt->data[i] /= d;
		both = mat_vstack(l, rt);
		mat_free(l);
		l = both;
	}
	out = strategy_widen(l, keep, g->cols);

	mat_free(fix);
	mat_free(bp);
	lrm_work_free(w);
	mat_free(l);
	mat_free(b);
	mat_free(pi);
	mat_free(t);
	mat_free(rt);
	pfree(sigma);
	pfree(keep);
	return out;
}
