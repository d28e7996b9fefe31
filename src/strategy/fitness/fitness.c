/*
 * fitness.c -- the fitness-for-use optimizer (Xiao et al., PVLDB 2020, section 6):
 * the covariance Sigma of Gaussian noise added to B x, answers L (B x +
 * noise), minimizing the privacy cost max_i b_i^T Sigma^-1 b_i subject to
 * every query's variance (L Sigma L^T)_jj <= c_j.  Problem 4 replaces both
 * maxima by soft-maxima with parameters t1, t2, raised in turn; each
 * subproblem is solved by Newton steps whose direction comes from conjugate
 * gradients on Hessian-vector products (Algorithm 2: the k^2 x k^2 Hessian
 * is never formed) and a backtracking line search that keeps Sigma positive
 * definite (Algorithm 3, Cholesky as the test).  Finally Sigma is scaled so
 * the tightest variance target is met exactly.
 *
 * With X = Sigma^-1, p and q the soft-max weights of g_i = b_i^T X b_i and
 * h_j = (L Sigma L^T)_jj / c_j, M = X B D_p B^T X and N = L^T D_{q/c} L:
 *   grad F = -M + N (+ lambda L^T L),
 *   H[S] = X S M + M S X + t1 (X B D_{p u} B^T X - (p.u) M)
 *          + t2 (L^T D_{q w / c} L - (q.w) N),
 * u_i = b_i^T X S X b_i, w_j = (L S L^T)_jj / c_j.
 *
 * Departures from the paper, each measured on its section 7 workloads:
 * - the Newton system is solved in the eigenbasis of Sigma, where X is
 *   diagonal and the Hessian's diagonal is cheap, and CG is preconditioned
 *   by that diagonal and run to a relative residual that shrinks with the
 *   gradient (truncated Newton) instead of a fixed 5 iterations: with 5,
 *   prefix queries at d = 64 were unconverged after 5000 Newton steps, now
 *   about 80;
 * - the start is scaled where Problem 3's two maxima balance, not just
 *   inside the targets (WRelated, cost^2 ~ 1e4: 1271 steps down to 127);
 * - subproblems before the last are solved to a looser tolerance, the
 *   Newton tolerance is relative to F, a line search that can no longer
 *   lower F ends the subproblem, and constraints whose soft-max weight is
 *   below 1e-16 of the largest are left out of the Hessian products.
 * No library offers this program (a semidefinite one with many
 * constraints), hence the loop here; the linear algebra is BLAS/LAPACK.
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "miscadmin.h"
#include "utils/memutils.h"

#include "strategy/fitness/fitness.h"
#include "progress/progress.h"

typedef struct Problem
{
	const Mat  *b;				/* k x d basis */
	const Mat  *l;				/* m x k representation */
	const double *c;			/* m targets */
	double		lambda;
	double		t1,
				t2;
	double		f;				/* F at the current point, without the lambda term */
	int			k,
				d,
				m;
	/* at the current Sigma = Q diag(1/xi) Q^T, everything rotated by Q */
	Mat		   *q;				/* eigenvectors of Sigma */
	double	   *xi;				/* eigenvalues of X */
	Mat		   *zt;				/* B^T X Q: row i is (Q^T X b_i)^T */
	Mat		   *lq;				/* L Q */
	double	   *p;				/* soft-max weights of g */
	double	   *qc;				/* soft-max weights of h, over c */
	double	   *cc;				/* the targets of lq's rows */
	int			na,				/* rows of zt and lq kept: the others weigh */
				nb;				/* below 1e-16 of the largest and add nothing */
	Mat		   *mm;				/* Q^T M Q */
	Mat		   *nn;				/* Q^T N Q */
	Mat		   *diag;			/* the Hessian's diagonal in this basis */
	MemoryContext cg_cxt;		/* a CG step's Hessian product, reset per step */
} Problem;

/* (1/t) log sum exp(t v) and the weights exp(t v) / sum, computed stably */
static double
softmax(const double *v, int count, double t, double *weights)
{
	double		top = -INFINITY,
				sum = 0.0;

	for (int i = 0; i < count; i++)
		top = fmax(top, v[i]);
	for (int i = 0; i < count; i++)
	{
		weights[i] = exp(t * (v[i] - top));
		sum += weights[i];
	}
	for (int i = 0; i < count; i++)
		weights[i] /= sum;
	return top + log(sum) / t;
}

/* out_j = a_j^T S a_j for the rows a_j of A (r x k) */
static void
row_quad(const Mat *a, const Mat *s, double *out)
{
	Mat		   *as = mat_mul(a, false, s, false);

	for (int j = 0; j < a->rows; j++)
		out[j] = 0.0;
	for (int t = 0; t < a->cols; t++)
		for (int j = 0; j < a->rows; j++)
			out[j] += MAT(a, j, t) * MAT(as, j, t);
	mat_free(as);
}

/* A^T D A for A (r x k) and diagonal weights w (r): k x k */
static Mat *
weighted_gram(const Mat *a, const double *w)
{
	Mat		   *da = mat_copy(a);
	Mat		   *g;

	for (int t = 0; t < a->cols; t++)
		for (int j = 0; j < a->rows; j++)
			MAT(da, j, t) *= w[j];
	g = mat_mul(a, true, da, false);
	mat_free(da);
	return g;
}

/* A o A, elementwise */
static Mat *
squares(const Mat *a)
{
	Mat		   *s = mat_copy(a);

	for (size_t i = 0; i < (size_t) a->rows * a->cols; i++)
		s->data[i] *= s->data[i];
	return s;
}

/*
 * Keep the rows of *a whose weight is not negligible (above 1e-16 of the
 * largest), with their weights and, when given, their targets.  As t grows
 * the soft-max concentrates on the near-maximal constraints, and the
 * Hessian-vector products need only those.
 */
static int
keep_weighted_rows(Mat **a, double *w, double *c)
{
	Mat		   *src = *a,
			   *dst;
	double		top = 0.0;
	int			n = 0;
	int		   *keep = palloc(sizeof(int) * Max(src->rows, 1));

	for (int i = 0; i < src->rows; i++)
		top = fmax(top, w[i]);
	for (int i = 0; i < src->rows; i++)
		if (w[i] > 1e-16 * top)
			keep[n++] = i;
	if (n == src->rows)
	{
		pfree(keep);
		return n;
	}
	dst = mat_new(n, src->cols);
	for (int t = 0; t < src->cols; t++)
		for (int r = 0; r < n; r++)
			MAT(dst, r, t) = MAT(src, keep[r], t);
	for (int r = 0; r < n; r++)
	{
		w[r] = w[keep[r]];
		if (c)
			c[r] = c[keep[r]];
	}
	mat_free(src);
	*a = dst;
	pfree(keep);
	return n;
}

static double
inner(const Mat *a, const Mat *b)
{
	double		s = 0.0;

	for (size_t i = 0; i < (size_t) a->rows * a->cols; i++)
		s += a->data[i] * b->data[i];
	return s;
}

/*
 * F at sigma, with g and h (h already over c); NaN if sigma is not positive
 * definite.  With Sigma = C C^T: g_i = |C^-1 b_i|^2, h_j c_j = |C^T l_j|^2.
 */
static double
objective(const Problem *pr, const Mat *sigma, double *gv, double *hv, double *pw, double *qw)
{
	Mat		   *c = mat_copy(sigma);
	Mat		   *cb,
			   *lc;
	double		total = 0.0;

	if (!mat_cholesky(c))
	{
		mat_free(c);
		return NAN;
	}
	cb = mat_copy(pr->b);
	mat_solve_lower(c, cb, false);
	for (int i = 0; i < pr->d; i++)
	{
		double		v = 0.0;

		for (int r = 0; r < pr->k; r++)
			v += MAT(cb, r, i) * MAT(cb, r, i);
		gv[i] = v;
	}
	lc = mat_mul(pr->l, false, c, false);
	for (int j = 0; j < pr->m; j++)
		hv[j] = 0.0;
	for (int t = 0; t < pr->k; t++)
		for (int j = 0; j < pr->m; j++)
			hv[j] += MAT(lc, j, t) * MAT(lc, j, t);
	for (int j = 0; j < pr->m; j++)
	{
		total += hv[j];
		hv[j] /= pr->c[j];
	}
	mat_free(c);
	mat_free(cb);
	mat_free(lc);
	return softmax(gv, pr->d, pr->t1, pw) + softmax(hv, pr->m, pr->t2, qw) + pr->lambda * total;
}

/*
 * Move to sigma: its eigenbasis, the soft-max weights, M and N there, and
 * the Hessian's diagonal for the preconditioner.  Returns the gradient in
 * that basis.  All of it is allocated in the Newton step's context, and
 * lives until that is reset for the next point; the few temporaries freed
 * here would otherwise add to the step's peak.
 */
static Mat *
set_point(Problem *pr, const Mat *sigma)
{
	int			k = pr->k,
				d = pr->d,
				m = pr->m;
	double	   *ev = palloc(sizeof(double) * k),
			   *gv = palloc(sizeof(double) * d),
			   *hv = palloc(sizeof(double) * m),
			   *w = palloc(sizeof(double) * Max(d, m));
	Mat		   *grad,
			   *sq,
			   *v4;

	pr->q = mat_copy(sigma);
	mat_sym_eig(pr->q, ev);
	for (int a = 0; a < k; a++)
		pr->xi[a] = 1.0 / fmax(ev[a], DBL_MIN);
	pr->zt = mat_mul(pr->b, true, pr->q, false);
	for (int a = 0; a < k; a++)
		for (int i = 0; i < d; i++)
			MAT(pr->zt, i, a) *= pr->xi[a];
	pr->lq = mat_mul(pr->l, false, pr->q, false);

	/* g_i = sum_a zt_ia^2 / xi_a, h_j = sum_a lq_ja^2 / xi_a / c_j */
	for (int i = 0; i < d; i++)
		gv[i] = 0.0;
	for (int j = 0; j < m; j++)
		hv[j] = 0.0;
	for (int a = 0; a < k; a++)
	{
		for (int i = 0; i < d; i++)
			gv[i] += MAT(pr->zt, i, a) * MAT(pr->zt, i, a) / pr->xi[a];
		for (int j = 0; j < m; j++)
			hv[j] += MAT(pr->lq, j, a) * MAT(pr->lq, j, a) / pr->xi[a];
	}
	for (int j = 0; j < m; j++)
		hv[j] /= pr->c[j];
	pr->f = softmax(gv, d, pr->t1, pr->p) + softmax(hv, m, pr->t2, pr->qc);
	for (int j = 0; j < m; j++)
		pr->qc[j] /= pr->c[j];
	pr->mm = weighted_gram(pr->zt, pr->p);
	pr->nn = weighted_gram(pr->lq, pr->qc);

	grad = mat_copy(pr->nn);
	for (size_t i = 0; i < (size_t) k * k; i++)
		grad->data[i] -= pr->mm->data[i];
	if (pr->lambda != 0.0)
	{
		Mat		   *ll = mat_mul(pr->lq, true, pr->lq, false);

		for (size_t i = 0; i < (size_t) k * k; i++)
			grad->data[i] += pr->lambda * ll->data[i];
		mat_free(ll);
	}

	memcpy(pr->cc, pr->c, sizeof(double) * m);
	pr->na = keep_weighted_rows(&pr->zt, pr->p, NULL);
	pr->nb = keep_weighted_rows(&pr->lq, pr->qc, pr->cc);

	/*
	 * The diagonal: H[E_ab]_ab = xi_a M_bb + xi_b M_aa + t1 Var_p(z_ia z_ib)
	 * + t2 Var_{q/c}(y_ja y_jb / c_j), the variances from sums of squares.
	 */
	pr->diag = mat_new(k, k);
	sq = squares(pr->zt);
	v4 = weighted_gram(sq, pr->p);
	for (int b = 0; b < k; b++)
		for (int a = 0; a < k; a++)
			MAT(pr->diag, a, b) = pr->xi[a] * MAT(pr->mm, b, b) + pr->xi[b] * MAT(pr->mm, a, a) +
				pr->t1 * fmax(MAT(v4, a, b) - MAT(pr->mm, a, b) * MAT(pr->mm, a, b), 0.0);
	mat_free(sq);
	mat_free(v4);
	sq = squares(pr->lq);
	for (int j = 0; j < pr->nb; j++)
		w[j] = pr->qc[j] / pr->cc[j];
	v4 = weighted_gram(sq, w);
	for (int b = 0; b < k; b++)
		for (int a = 0; a < k; a++)
			MAT(pr->diag, a, b) += pr->t2 * fmax(MAT(v4, a, b) - MAT(pr->nn, a, b) * MAT(pr->nn, a, b), 0.0);
	return grad;
}

/* H[S] at the current point, S and the result in its eigenbasis (in a CG step's context) */
static Mat *
hess_times(const Problem *pr, const Mat *s)
{
	int			k = pr->k,
				d = pr->na,
				m = pr->nb;
	Mat		   *sm = mat_mul(s, false, pr->mm, false);
	Mat		   *h = mat_new(k, k);
	double	   *u = palloc(sizeof(double) * d),
			   *w = palloc(sizeof(double) * m);
	double		ubar = 0.0,
				wbar = 0.0;
	Mat		   *a1,
			   *a2;

	/* X S M + M S X with X = diag(xi), S and M symmetric */
	for (int b = 0; b < k; b++)
		for (int a = 0; a < k; a++)
			MAT(h, a, b) = pr->xi[a] * MAT(sm, a, b) + pr->xi[b] * MAT(sm, b, a);
	row_quad(pr->zt, s, u);
	for (int i = 0; i < d; i++)
	{
		ubar += pr->p[i] * u[i];
		u[i] *= pr->t1 * pr->p[i];
	}
	a1 = weighted_gram(pr->zt, u);
	row_quad(pr->lq, s, w);
	for (int j = 0; j < m; j++)
	{
		wbar += pr->qc[j] * w[j];
		w[j] *= pr->t2 * pr->qc[j] / pr->cc[j];
	}
	a2 = weighted_gram(pr->lq, w);
	for (size_t i = 0; i < (size_t) k * k; i++)
		h->data[i] += a1->data[i] - pr->t1 * ubar * pr->mm->data[i] +
			a2->data[i] - pr->t2 * wbar * pr->nn->data[i];
	return h;
}

/*
 * Algorithm 2, preconditioned by the Hessian's diagonal: an approximate
 * solution of H s = -grad, in the current eigenbasis (allocated in the
 * Newton step's context, as its work).
 */
static Mat *
newton_direction(const Problem *pr, const Mat *grad, int max_cg)
{
	int			k = pr->k;
	size_t		kk = (size_t) k * k;
	Mat		   *s = mat_new(k, k),
			   *r = mat_copy(grad),
			   *z = mat_new(k, k),
			   *dir;
	double		rz,
				gg,
				stop;
	MemoryContext old_cxt;

	for (size_t i = 0; i < kk; i++)
	{
		r->data[i] = -r->data[i];
		z->data[i] = r->data[i] / pr->diag->data[i];
	}
	dir = mat_copy(z);
	rz = inner(r, z);
	gg = inner(r, r);
	/* truncated Newton: the residual to reach shrinks with the gradient */
	stop = fmin(0.25, sqrt(sqrt(gg)));
	stop = fmax(stop * stop * gg, 1e-30);
	for (int it = 0; it < max_cg; it++)
	{
		Mat		   *hd;
		double		dhd,
					a,
					rznew;

		CHECK_FOR_INTERRUPTS();
		/* a Hessian product's buffers, dropped after each CG step */
		MemoryContextReset(pr->cg_cxt);
		old_cxt = MemoryContextSwitchTo(pr->cg_cxt);
		hd = hess_times(pr, dir);
		MemoryContextSwitchTo(old_cxt);
		dhd = inner(dir, hd);
		if (!(dhd > 0))
		{
			/* no curvature left to use (rounding): keep what we have, or descend */
			if (it == 0)
				memcpy(s->data, z->data, sizeof(double) * kk);
			break;
		}
		a = rz / dhd;
		for (size_t i = 0; i < kk; i++)
		{
			s->data[i] += a * dir->data[i];
			r->data[i] -= a * hd->data[i];
		}
		if (inner(r, r) <= stop)
			break;
		for (size_t i = 0; i < kk; i++)
			z->data[i] = r->data[i] / pr->diag->data[i];
		rznew = inner(r, z);
		for (size_t i = 0; i < kk; i++)
			dir->data[i] = z->data[i] + rznew / rz * dir->data[i];
		rz = rznew;
	}
	return s;
}

Mat *
fitness_optimize(const Mat *b, const Mat *l, const double *c, const FitnessOptions *opts,
				 FitnessReport *rep)
{
	Problem		pr = {0};
	int			k = b->rows,
				d = b->cols,
				m = l->rows;
	size_t		kk = (size_t) k * k;
	Mat		   *sigma;
	double	   *gv = palloc(sizeof(double) * d),
			   *hv = palloc(sizeof(double) * m),
			   *pw = palloc(sizeof(double) * d),
			   *qw = palloc(sizeof(double) * m);
	double		top;
	int			it;
	MemoryContext iter_cxt,
				old_cxt;

	pr.b = b;
	pr.l = l;
	pr.c = c;
	pr.lambda = opts->lambda;
	pr.t1 = pr.t2 = 1.0;
	pr.k = k;
	pr.d = d;
	pr.m = m;
	pr.xi = palloc(sizeof(double) * k);
	pr.p = palloc(sizeof(double) * d);
	pr.qc = palloc(sizeof(double) * m);
	pr.cc = palloc(sizeof(double) * m);

	/*
	 * Section 6.3 with Q = I: the covariance of input perturbation, B B^T.
	 * The paper scales it just inside every target; we scale it where
	 * Problem 3's two maxima balance (max g / s = s max h), its optimal
	 * scale, since the final rescaling makes the scale free: started at the
	 * targets, a workload whose privacy cost is far from 1 (WRelated, cost^2
	 * ~ 1e4) spent a thousand Newton steps on the scale alone.
	 */
	sigma = mat_mul(b, false, b, true);
	(void) objective(&pr, sigma, gv, hv, pw, qw);
	{
		double		gmax = 0.0,
					hmax = 0.0;

		for (int i = 0; i < d; i++)
			gmax = fmax(gmax, gv[i]);
		for (int j = 0; j < m; j++)
			hmax = fmax(hmax, hv[j]);
		for (size_t i = 0; i < kk; i++)
			sigma->data[i] *= sqrt(gmax / hmax);
	}

	/*
	 * A Newton step's point (its eigenbasis and weights), gradient, direction
	 * and line search live in iter_cxt, reset as the next step starts; sigma
	 * and the buffers above outlive the loop in the caller's context.
	 */
	iter_cxt = mat_loop_context("fitness Newton step");
	pr.cg_cxt = mat_loop_context("fitness CG step");
	for (it = 0; it < opts->max_iter; it++)
	{
		Mat		   *g,
				   *st;
		double		delta,
					alpha = 1.0;
		bool		last_stage = (d + m) / (pr.t1 * opts->mu) < opts->tol;
		double		ntol;

		MemoryContextReset(iter_cxt);
		old_cxt = MemoryContextSwitchTo(iter_cxt);
		g = set_point(&pr, sigma);
		st = newton_direction(&pr, g, opts->cg_iters);
		delta = inner(st, g);
		ntol = opts->newton_tol * fmax(1.0, pr.f);

		progress_update("fitness", it, pr.f, (d + m) / pr.t1);
		if (fabs(delta) >= ntol)
		{
			/* back from the eigenbasis: S = Q S~ Q^T */
			Mat		   *qs = mat_mul(pr.q, false, st, false);
			Mat		   *s = mat_mul(qs, false, pr.q, true);
			Mat		   *trial = mat_new_uninit(k, k);
			double		f0 = objective(&pr, sigma, gv, hv, pw, qw);

			/* Algorithm 3: backtrack until positive definite and sufficiently lower */
			for (; alpha >= 1e-20; alpha *= 0.5)
			{
				double		f;

				for (size_t i = 0; i < kk; i++)
					trial->data[i] = sigma->data[i] + alpha * s->data[i];
				f = objective(&pr, trial, gv, hv, pw, qw);
				if (!isnan(f) && f < f0 && f <= f0 + alpha * 0.01 * delta)
				{
					memcpy(sigma->data, trial->data, sizeof(double) * kk);
					break;
				}
			}
		}
		MemoryContextSwitchTo(old_cxt);
		/*
		 * The subproblem is solved when the Newton decrement is below the
		 * tolerance, or when no step lowers F any more (its differences are
		 * then at the rounding level): sharpen the soft-maxima, or stop.
		 * Only the last subproblem's solution is returned, so the ones
		 * before it are solved to a looser tolerance (a third fewer steps).
		 */
		if (fabs(delta) < (last_stage ? ntol : 1e4 * ntol) || alpha < 1e-20)
		{
			if ((d + m) / pr.t1 < opts->tol)
				break;
			pr.t1 *= opts->mu;
			pr.t2 *= opts->mu;
		}
	}
	MemoryContextDelete(iter_cxt);
	MemoryContextDelete(pr.cg_cxt);
	pr.q = NULL;				/* the last point went with iter_cxt */
	if (it == opts->max_iter)
		ereport(NOTICE,
				(errmsg("fitness for use stopped after %d Newton steps, before its tolerance", it),
				 errdetail("Every target is met; the privacy cost may be above the optimum."),
				 errhint("Raise the option max_iter.")));

	/* exactly symmetric (the steps are, up to rounding) */
	for (int j = 0; j < k; j++)
		for (int i = 0; i < j; i++)
			MAT(sigma, i, j) = MAT(sigma, j, i) = 0.5 * (MAT(sigma, i, j) + MAT(sigma, j, i));
	/* scale so the tightest target is met exactly: Sigma / gamma */
	(void) objective(&pr, sigma, gv, hv, pw, qw);
	top = 0.0;
	for (int j = 0; j < m; j++)
		top = fmax(top, hv[j]);
	for (size_t i = 0; i < kk; i++)
		sigma->data[i] /= top;
	(void) objective(&pr, sigma, gv, hv, pw, qw);
	rep->iterations = it;
	rep->cost2 = 0.0;
	for (int i = 0; i < d; i++)
		rep->cost2 = fmax(rep->cost2, gv[i]);
	pfree(gv);
	pfree(hv);
	pfree(pw);
	pfree(qw);
	pfree(pr.xi);
	pfree(pr.p);
	pfree(pr.qc);
	pfree(pr.cc);
	return sigma;
}

/*
 * W = L B.  The identity and the upper-triangular U (U_ij = 1 for j >= i,
 * so L = W U^-1 is the column differences of W) need W of full column rank:
 * otherwise no finite Sigma is optimal (cells no query tells apart could
 * take unbounded noise).  The workload basis is W's row space, orthonormal:
 * B = V_r^T, L = U_r S_r from the SVD, with k = rank(W).
 */
void
fitness_basis(const Mat *w, FitnessBasis kind, Mat **b, Mat **l)
{
	int			n = w->cols;
	Svd		   *svd = mat_svd(w, true);

	if (kind == FITNESS_BASIS_AUTO)
		kind = svd->rank == n ? FITNESS_BASIS_IDENTITY : FITNESS_BASIS_WORKLOAD;
	if (kind != FITNESS_BASIS_WORKLOAD && svd->rank < n)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the workload has rank %d over %d cells: basis %s needs every cell told apart",
						svd->rank, n, kind == FITNESS_BASIS_IDENTITY ? "identity" : "upper"),
				 errhint("Use the basis \"workload\" (the default), which works in the span of the queries.")));
	switch (kind)
	{
		case FITNESS_BASIS_IDENTITY:
			*b = mat_identity(n);
			*l = mat_copy(w);
			break;
		case FITNESS_BASIS_UPPER:
			*b = mat_new(n, n);
			for (int j = 0; j < n; j++)
				for (int i = 0; i <= j; i++)
					MAT(*b, i, j) = 1.0;
			*l = mat_copy(w);
			for (int j = n - 1; j > 0; j--)
				for (int r = 0; r < w->rows; r++)
					MAT(*l, r, j) -= MAT(w, r, j - 1);
			break;
		default:
			*b = mat_new(svd->rank, n);
			*l = mat_new(w->rows, svd->rank);
			for (int t = 0; t < svd->rank; t++)
			{
				for (int i = 0; i < n; i++)
					MAT(*b, t, i) = MAT(svd->v, i, t);
				for (int r = 0; r < w->rows; r++)
					MAT(*l, r, t) = MAT(svd->u, r, t) * svd->s[t];
			}
			break;
	}
}

/*
 * The strategy matrix of the mechanism: with Sigma = C C^T, L (B x + N(0,
 * Sigma)) = L C (C^-1 B x + N(0, I)), the Gaussian mechanism on A = C^-1 B
 * with unit noise, whose L2 sensitivity is the privacy cost; least squares
 * on A's answers gives back exactly L C (.), because W A^+ = L B B^+ C = L C
 * when B has full row rank.  So a fitness strategy is answered, charged and
 * replayed like any other, with the secure sampler.
 */
Mat *
fitness_strategy(const Mat *b, const Mat *sigma)
{
	Mat		   *c = mat_copy(sigma);
	Mat		   *a = mat_copy(b);

	if (!mat_cholesky(c))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the noise covariance is not positive definite")));
	mat_solve_lower(c, a, false);
	mat_free(c);
	return a;
}
