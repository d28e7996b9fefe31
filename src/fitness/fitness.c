/*
 * fitness.c -- the fitness-for-use optimizer (fitness-for-use.md, section 6):
 * the covariance Sigma of Gaussian noise added to B x, answers L (B x +
 * noise), minimizing the privacy cost max_i b_i^T Sigma^-1 b_i subject to
 * every query's variance (L Sigma L^T)_jj <= c_j.  Problem 4 replaces both
 * maxima by soft-maxima with parameters t1, t2, raised in turn; each
 * subproblem is solved by Newton steps whose direction comes from a few
 * conjugate-gradient iterations on Hessian-vector products (Algorithm 2:
 * the d^2 x d^2 Hessian is never formed) and a backtracking line search
 * that keeps Sigma positive definite (Algorithm 3, Cholesky as the test).
 * Finally Sigma is scaled so the tightest variance target is met exactly.
 *
 * With X = Sigma^-1, p and q the soft-max weights of g_i = b_i^T X b_i and
 * h_j = (L Sigma L^T)_jj / c_j, M = X B D_p B^T X and N = L^T D_{q/c} L:
 *   grad F = -M + N (+ lambda L^T L),
 *   H[S] = X S M + M S X + t1 (X B D_{p u} B^T X - (p.u) M)
 *          + t2 (L^T D_{q w / c} L - (q.w) N),
 * u_i = b_i^T X S X b_i, w_j = (L S L^T)_jj / c_j.  No library offers this
 * program (a semidefinite one with many constraints), hence the loop here;
 * the linear algebra is BLAS/LAPACK.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "fitness/fitness.h"
#include "mechanism/mechanism.h"

typedef struct Problem
{
	const Mat  *b;				/* k x d basis */
	const Mat  *l;				/* m x k representation */
	const double *c;			/* m targets */
	double		lambda;
	double		t1,
				t2;
	/* at the current Sigma */
	Mat		   *x;				/* Sigma^-1 */
	Mat		   *xb;				/* X B, k x d */
	double	   *p;				/* d soft-max weights of g */
	double	   *q;				/* m soft-max weights of h */
	Mat		   *m;				/* X B D_p B^T X */
	Mat		   *n;				/* L^T D_{q/c} L */
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

/* diag(A^T S A) for A of k x r columns: entry i is a_i^T S a_i */
static void
quad_diag(const Mat *a, const Mat *s, double *out)
{
	Mat		   *sa = mat_mul(s, false, a, false);

	for (int i = 0; i < a->cols; i++)
	{
		double		v = 0.0;

		for (int r = 0; r < a->rows; r++)
			v += MAT(a, r, i) * MAT(sa, r, i);
		out[i] = v;
	}
	mat_free(sa);
}

/* A^T D A for A (r x k) and diagonal weights w (r): k x k */
static Mat *
weighted_gram(const Mat *a, const double *w)
{
	Mat		   *da = mat_copy(a);
	Mat		   *g;

	for (int j = 0; j < a->cols; j++)
		for (int r = 0; r < a->rows; r++)
			MAT(da, r, j) *= w[r];
	g = mat_mul(a, true, da, false);
	mat_free(da);
	return g;
}

static Mat *
inverse_spd(const Mat *s, bool *ok)
{
	Mat		   *c = mat_copy(s);
	Mat		   *inv = mat_identity(s->rows);

	*ok = mat_cholesky(c);
	if (*ok)
	{
		mat_solve_lower(c, inv, false);
		mat_solve_lower(c, inv, true);
	}
	mat_free(c);
	return inv;
}

/* F at sigma; NaN if sigma is not positive definite */
static double
objective(const Problem *pr, const Mat *sigma, double *gvals, double *hvals, double *pw, double *qw)
{
	int			d = pr->b->cols,
				m = pr->l->rows;
	bool		ok;
	Mat		   *x = inverse_spd(sigma, &ok);
	double		f,
				total = 0.0;

	if (!ok)
	{
		mat_free(x);
		return NAN;
	}
	quad_diag(pr->b, x, gvals);
	{
		Mat		   *ltrans = mat_new(pr->l->cols, m);

		for (int j = 0; j < m; j++)
			for (int r = 0; r < pr->l->cols; r++)
				MAT(ltrans, r, j) = MAT(pr->l, j, r);
		quad_diag(ltrans, sigma, hvals);
		mat_free(ltrans);
	}
	for (int j = 0; j < m; j++)
	{
		total += hvals[j];
		hvals[j] /= pr->c[j];
	}
	f = softmax(gvals, d, pr->t1, pw) + softmax(hvals, m, pr->t2, qw) + pr->lambda * total;
	mat_free(x);
	return f;
}

/* the gradient at sigma, and the quantities the Hessian-vector product needs */
static Mat *
gradient(Problem *pr, const Mat *sigma)
{
	int			d = pr->b->cols,
				m = pr->l->rows,
				k = pr->b->rows;
	double	   *gv = palloc(sizeof(double) * d),
			   *hv = palloc(sizeof(double) * m),
			   *qc = palloc(sizeof(double) * m);
	bool		ok;
	Mat		   *g;

	if (pr->x)
	{
		mat_free(pr->x);
		mat_free(pr->xb);
		mat_free(pr->m);
		mat_free(pr->n);
	}
	(void) objective(pr, sigma, gv, hv, pr->p, pr->q);
	pr->x = inverse_spd(sigma, &ok);
	Assert(ok);
	pr->xb = mat_mul(pr->x, false, pr->b, false);
	{
		Mat		   *xbt = mat_new(d, k);

		for (int i = 0; i < d; i++)
			for (int r = 0; r < k; r++)
				MAT(xbt, i, r) = MAT(pr->xb, r, i);
		pr->m = weighted_gram(xbt, pr->p);
		mat_free(xbt);
	}
	for (int j = 0; j < m; j++)
		qc[j] = pr->q[j] / pr->c[j];
	pr->n = weighted_gram(pr->l, qc);
	g = mat_copy(pr->n);
	for (size_t i = 0; i < (size_t) k * k; i++)
		g->data[i] -= pr->m->data[i];
	/* the total-error weight: lambda L^T L, constant in Sigma */
	if (pr->lambda != 0.0)
	{
		Mat		   *ll = mat_mul(pr->l, true, pr->l, false);

		for (size_t i = 0; i < (size_t) k * k; i++)
			g->data[i] += pr->lambda * ll->data[i];
		mat_free(ll);
	}
	pfree(gv);
	pfree(hv);
	pfree(qc);
	return g;
}

static double
inner(const Mat *a, const Mat *b)
{
	double		s = 0.0;

	for (size_t i = 0; i < (size_t) a->rows * a->cols; i++)
		s += a->data[i] * b->data[i];
	return s;
}

/* H[S] at the point gradient() was last called for */
static Mat *
hess_times(const Problem *pr, const Mat *s)
{
	int			d = pr->b->cols,
				m = pr->l->rows,
				k = pr->b->rows;
	Mat		   *xs = mat_mul(pr->x, false, s, false);
	Mat		   *xsm = mat_mul(xs, false, pr->m, false);
	Mat		   *h = mat_new(k, k);
	double	   *u = palloc(sizeof(double) * d),
			   *w = palloc(sizeof(double) * m),
			   *pu = palloc(sizeof(double) * d),
			   *qw = palloc(sizeof(double) * m);
	double		ubar = 0.0,
				wbar = 0.0;
	Mat		   *a1,
			   *a2;

	/* X S M + M S X = X S M + (X S M)^T, S, X, M symmetric */
	for (int j = 0; j < k; j++)
		for (int i = 0; i < k; i++)
			MAT(h, i, j) = MAT(xsm, i, j) + MAT(xsm, j, i);
	/* u_i = (X b_i)^T S (X b_i) */
	quad_diag(pr->xb, s, u);
	for (int i = 0; i < d; i++)
	{
		ubar += pr->p[i] * u[i];
		pu[i] = pr->t1 * pr->p[i] * u[i];
	}
	{
		Mat		   *xbt = mat_new(d, k);

		for (int i = 0; i < d; i++)
			for (int r = 0; r < k; r++)
				MAT(xbt, i, r) = MAT(pr->xb, r, i);
		a1 = weighted_gram(xbt, pu);
		mat_free(xbt);
	}
	/* w_j = (L S L^T)_jj / c_j */
	{
		Mat		   *ltrans = mat_new(pr->l->cols, m);

		for (int j = 0; j < m; j++)
			for (int r = 0; r < pr->l->cols; r++)
				MAT(ltrans, r, j) = MAT(pr->l, j, r);
		quad_diag(ltrans, s, w);
		mat_free(ltrans);
	}
	for (int j = 0; j < m; j++)
	{
		w[j] /= pr->c[j];
		wbar += pr->q[j] * w[j];
		qw[j] = pr->t2 * pr->q[j] * w[j] / pr->c[j];
	}
	a2 = weighted_gram(pr->l, qw);
	for (size_t i = 0; i < (size_t) k * k; i++)
		h->data[i] += a1->data[i] - pr->t1 * ubar * pr->m->data[i] +
			a2->data[i] - pr->t2 * wbar * pr->n->data[i];
	mat_free(xs);
	mat_free(xsm);
	mat_free(a1);
	mat_free(a2);
	pfree(u);
	pfree(w);
	pfree(pu);
	pfree(qw);
	return h;
}

Mat *
fitness_optimize(const Mat *b, const Mat *l, const double *c, const FitnessOptions *opts,
				 FitnessReport *rep)
{
	int			k = b->rows,
				d = b->cols,
				m = l->rows;
	Problem		pr = {b, l, c, opts->lambda, 1.0, 1.0};
	Mat		   *sigma;
	double	   *gv = palloc(sizeof(double) * d),
			   *hv = palloc(sizeof(double) * m),
			   *pw = palloc(sizeof(double) * d),
			   *qw = palloc(sizeof(double) * m);
	double		scale = INFINITY,
				top;
	int			it;

	pr.p = palloc(sizeof(double) * d);
	pr.q = palloc(sizeof(double) * m);

	/* section 6.3 with Q = I: Sigma_0 = sigma^2 I, sigma^2 just inside every target */
	sigma = mat_identity(k);
	{
		Mat		   *ltrans = mat_new(l->cols, m);

		for (int j = 0; j < m; j++)
			for (int r = 0; r < l->cols; r++)
				MAT(ltrans, r, j) = MAT(l, j, r);
		quad_diag(ltrans, sigma, hv);
		mat_free(ltrans);
	}
	for (int j = 0; j < m; j++)
		if (hv[j] > 0)
			scale = fmin(scale, c[j] / hv[j]);
	for (size_t i = 0; i < (size_t) k * k; i++)
		sigma->data[i] *= 0.99 * scale;

	for (it = 0; it < opts->max_iter; it++)
	{
		Mat		   *g = gradient(&pr, sigma);
		Mat		   *s = mat_new(k, k),
				   *r = mat_copy(g),
				   *pdir;
		double		rsold,
					delta,
					f0,
					alpha = 1.0;

		CHECK_FOR_INTERRUPTS();
		/* Algorithm 2: CG on H s = -grad, at most 5 iterations */
		for (size_t i = 0; i < (size_t) k * k; i++)
			r->data[i] = -r->data[i];
		pdir = mat_copy(r);
		rsold = inner(r, r);
		for (int cg = 0; cg < 5; cg++)
		{
			Mat		   *hp = hess_times(&pr, pdir);
			double		php = inner(pdir, hp),
						a,
						rsnew;

			if (!(php > 0))
			{
				mat_free(hp);
				if (cg == 0)
					memcpy(s->data, r->data, sizeof(double) * k * k);	/* steepest descent */
				break;
			}
			a = rsold / php;
			for (size_t i = 0; i < (size_t) k * k; i++)
			{
				s->data[i] += a * pdir->data[i];
				r->data[i] -= a * hp->data[i];
			}
			mat_free(hp);
			rsnew = inner(r, r);
			if (rsnew <= 1e-20)
				break;
			for (size_t i = 0; i < (size_t) k * k; i++)
				pdir->data[i] = r->data[i] + rsnew / rsold * pdir->data[i];
			rsold = rsnew;
		}
		delta = inner(s, g);
		if (fabs(delta) < opts->newton_tol)
		{
			/* this subproblem is solved: sharpen the soft-maxima, or stop */
			if ((d + m) / pr.t1 < opts->tol)
			{
				mat_free(g);
				mat_free(s);
				mat_free(r);
				mat_free(pdir);
				break;
			}
			pr.t1 *= opts->mu;
			pr.t2 *= opts->mu;
			mat_free(g);
			mat_free(s);
			mat_free(r);
			mat_free(pdir);
			continue;
		}
		/* Algorithm 3: backtrack until positive definite and sufficiently lower */
		f0 = objective(&pr, sigma, gv, hv, pw, qw);
		for (;;)
		{
			Mat		   *trial = mat_copy(sigma);
			double		f;

			for (size_t i = 0; i < (size_t) k * k; i++)
				trial->data[i] += alpha * s->data[i];
			f = objective(&pr, trial, gv, hv, pw, qw);
			if (!isnan(f) && f <= f0 + alpha * 0.01 * delta)
			{
				mat_free(sigma);
				sigma = trial;
				break;
			}
			mat_free(trial);
			alpha *= 0.5;
			if (alpha < 1e-20)
				break;
		}
		mat_free(g);
		mat_free(s);
		mat_free(r);
		mat_free(pdir);
	}

	/* exactly symmetric (the steps are, up to rounding) */
	for (int j = 0; j < k; j++)
		for (int i = 0; i < j; i++)
			MAT(sigma, i, j) = MAT(sigma, j, i) = 0.5 * (MAT(sigma, i, j) + MAT(sigma, j, i));
	/* scale so the tightest target is met exactly: Sigma / gamma */
	(void) objective(&pr, sigma, gv, hv, pw, qw);
	top = 0.0;
	for (int j = 0; j < m; j++)
		top = fmax(top, hv[j]);
	for (size_t i = 0; i < (size_t) k * k; i++)
		sigma->data[i] /= top;
	(void) objective(&pr, sigma, gv, hv, pw, qw);
	rep->iterations = it;
	rep->cost2 = 0.0;
	for (int i = 0; i < d; i++)
		rep->cost2 = fmax(rep->cost2, gv[i]);
	rep->t = pr.t1;
	pfree(gv);
	pfree(hv);
	pfree(pw);
	pfree(qw);
	return sigma;
}

/*
 * The mechanism: L (B x + N(0, s^2 Sigma)) with Sigma = C C^T is
 * L C (C^-1 B x + N(0, s^2 I)), the Gaussian mechanism on f(x) = C^-1 B x,
 * whose L2 sensitivity is max_i |C^-1 b_i| = the privacy cost.  So the
 * secure Gaussian sampler (grid rounding included) and its calibration
 * apply unchanged, and s comes from (epsilon, delta) or rho as for any
 * Gaussian release.  Answers have covariance s'^2 L Sigma L^T, s'^2 the
 * variance the sampler actually added.
 */
Release *
fitness_mechanism(const Mat *b, const Mat *l, const Mat *sigma, const double *x,
				  double epsilon, double delta, double rho, double sens_scale)
{
	int			k = b->rows,
				m = l->rows;
	Mat		   *c = mat_copy(sigma);
	Mat		   *cib;
	Mat		   *lc;
	double	   *y = palloc(sizeof(double) * Max(k, 1));
	double		cost;
	Release    *rel = palloc0(sizeof(Release));

	if (!mat_cholesky(c))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the noise covariance is not positive definite")));
	cib = mat_copy(b);
	mat_solve_lower(c, cib, false);
	cost = mat_max_col_norm(cib, 2);
	/* C^-1 B x */
	mat_vec(cib, false, x, y);
	rel->noise_var = mechanism_noise(y, k, 0.0, sens_scale * cost, epsilon, delta, rho);
	/* answers L C y; variances noise_var diag(L Sigma L^T) = noise_var |row of L C|^2 */
	lc = mat_mul(l, false, c, false);
	rel->p = m;
	rel->answers = palloc(sizeof(double) * Max(m, 1));
	mat_vec(lc, false, y, rel->answers);
	rel->stderrs = palloc(sizeof(double) * Max(m, 1));
	for (int j = 0; j < m; j++)
	{
		double		v = 0.0;

		for (int i = 0; i < k; i++)
			v += MAT(lc, j, i) * MAT(lc, j, i);
		rel->stderrs[j] = sqrt(rel->noise_var * v);
	}
	mat_free(c);
	mat_free(cib);
	mat_free(lc);
	pfree(y);
	return rel;
}
