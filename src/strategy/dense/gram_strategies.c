/*
 * gram_strategies.c -- the SVD bound and the strategies built from W^T W: eigen,
 * eigen_design and gaussian_optimal, plus column completion.
 *
 * eigen_design and gaussian_optimal are solved through their Lagrange duals,
 * which share one shape.  For gaussian_optimal,
 *
 *   min tr(G X^-1)  s.t.  X_ii <= 1,  X > 0
 *
 * has, for weights v >= 0 on the constraints, the minimizer
 * X(v) = V^-1/2 (V^1/2 G V^1/2)^1/2 V^-1/2 of tr(G X^-1) + tr(V X), and the
 * dual value T(v)^2 / sum(v) with T(v) = tr((V^1/2 G V^1/2)^1/2) (after the
 * best scaling of v).  Scaling X(v) down by max_i X_ii makes it feasible,
 * with objective T(v) max_i X_ii; so every v certifies the gap
 *
 *   primal / dual = max_i X_ii / (sum_i v_i X_ii / sum_i v_i),
 *
 * which is 1 exactly when X(v) has equal diagonal on the support of v.  The
 * update v_i <- v_i X_ii / average moves weight to the columns whose
 * constraint binds (a fixed point of the optimality conditions).  At v = 1,
 * X = G^1/2: the eigen strategy, and the dual value is the SVD bound.
 *
 * eigen_design fixes the eigenvectors Q of G and optimizes weights u on them:
 * min sum d_i / u_i s.t. sum_i Q_ji^2 u_i <= 1 for every column j, whose dual
 * over column weights y has exactly the same structure with O(n^2) work per
 * iteration instead of an eigendecomposition.
 *
 * The lower bounds reported (OptReport.lower_bound) hold over every strategy,
 * not only over a method's own family.  A strategy A that answers W
 * (W A^+ A = W, so G's range lies in A^T A's) gives X = A^T A / Delta_2(A)^2
 * with diag(X) <= 1 and tr(G X^+) = Delta_2^2 tr(G (A^T A)^+), its weighted
 * total error; the feasible (X + e I) / (1 + e) tend to it as e -> 0, so that
 * error is at least the program's infimum.  Columns of A outside the support
 * only raise the inverse's block on it (a Schur complement; Li & Miklau, ICDT 2013,
 * Prop. 3.8: a column projection lowers the minimum error).  By weak duality
 * every v >= 0 bounds that infimum: for feasible X, tr(G X^-1) >=
 * tr(G X^-1) + sum_i v_i (X_ii - 1) >= 2 T(v) - sum(v), which is T(v)^2 /
 * sum(v) after the best scaling of v.  At v = 1 it is the SVD bound
 * (Li & Miklau, ICDT 2013, Theorem 4.2).  eigen_design's own dual value bounds only
 * strategies made of W's eigen-queries, and can exceed what others achieve
 * (1.0606 times the SVD bound at AllRange(2048), where gaussian_optimal
 * reaches 1.0113), so eigen_design reports the SVD bound.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/memutils.h"

#include "strategy/dense/gram_strategies.h"
#include "progress/progress.h"

/* eigenvalues of G below this fraction of the largest count as zero */
#define EIG_TOL 1e-12

int
gram_support(const Mat *g, int **keep)
{
	int			k = 0;

	*keep = palloc(sizeof(int) * Max(g->cols, 1));
	for (int j = 0; j < g->cols; j++)
		if (MAT(g, j, j) > 0)
			(*keep)[k++] = j;
	return k;
}

Mat *
gram_restrict(const Mat *g, const int *keep, int k)
{
	Mat		   *r = mat_new(k, k);

	for (int j = 0; j < k; j++)
		for (int i = 0; i < k; i++)
			MAT(r, i, j) = MAT(g, keep[i], keep[j]);
	return r;
}

Mat *
strategy_widen(const Mat *a, const int *keep, int n)
{
	Mat		   *w = mat_new(a->rows, n);

	for (int j = 0; j < a->cols; j++)
		memcpy(&MAT(w, 0, keep[j]), &MAT(a, 0, j), sizeof(double) * a->rows);
	return w;
}

/*
 * rank x n: row r is f[r] times column cols[r] of q, times d elementwise (d
 * may be NULL).  In 64 x 64 tiles: the row-wise writes into a column-major
 * matrix stay in cache, so at n = 2048 this takes milliseconds, not tenths
 * of a second.
 */
static Mat *
scaled_rows(const Mat *q, const int *cols, const double *f, int rank, const double *d)
{
	int			n = q->rows;
	Mat		   *a = mat_new(rank, n);

	for (int j0 = 0; j0 < n; j0 += 64)
		for (int r0 = 0; r0 < rank; r0 += 64)
			for (int r = r0; r < Min(r0 + 64, rank); r++)
			{
				const double *qc = &MAT(q, 0, cols[r]);

				for (int j = j0; j < Min(j0 + 64, n); j++)
					MAT(a, r, j) = f[r] * qc[j] * (d ? d[j] : 1.0);
			}
	return a;
}

/* eigendecomposition of a copy of s; eigenvalues clamped at zero below the tolerance */
static Mat *
eig_psd(const Mat *s, double *lambda)
{
	Mat		   *q = mat_copy(s);
	int			n = s->rows;
	double		top;

	mat_sym_eig(q, lambda);
	top = n > 0 ? fmax(lambda[n - 1], 0.0) : 0.0;
	for (int i = 0; i < n; i++)
		if (lambda[i] <= EIG_TOL * top)
			lambda[i] = 0.0;
	return q;
}

Mat *
gram_root(const Mat *g)
{
	int			n = g->rows,
				rank = 0;
	double	   *lambda = palloc(sizeof(double) * Max(n, 1));
	Mat		   *q = eig_psd(g, lambda),
			   *r;

	int		   *cols = palloc(sizeof(int) * Max(n, 1));
	double	   *f = palloc(sizeof(double) * Max(n, 1));

	for (int i = 0; i < n; i++)
		rank += lambda[i] > 0;
	for (int i = 0; i < rank; i++)
	{
		cols[i] = n - rank + i;
		f[i] = sqrt(lambda[n - rank + i]);
	}
	r = scaled_rows(q, cols, f, rank, NULL);
	mat_free(q);
	pfree(cols);
	pfree(f);
	return r;
}

double
strategy_singular_sum(const Mat *g, int *nonzero)
{
	int		   *keep;
	int			k = gram_support(g, &keep);
	Mat		   *gk;
	double	   *d;
	double		sum = 0.0;

	*nonzero = k;
	if (k == 0)
		return 0.0;
	gk = gram_restrict(g, keep, k);
	d = palloc(sizeof(double) * k);
	/* the eigenvalues alone, clamped as eig_psd clamps them: no vectors, several times less work */
	mat_sym_eigvals(gk, d);
	for (int i = 0; i < k; i++)
		if (d[i] > EIG_TOL * fmax(d[k - 1], 0.0))
			sum += sqrt(d[i]);
	mat_free(gk);
	pfree(d);
	return sum;
}

double
strategy_svd_bound(const Mat *g, int *nonzero)
{
	double		sum = strategy_singular_sum(g, nonzero);

	return *nonzero == 0 ? 0.0 : sum * sum / *nonzero;
}

/*
 * rows (lambda_i)^(1/4) q_i^T D^-1/2 / sqrt(scale) for the nonzero lambda_i,
 * where S = Q diag(lambda) Q^T = D^1/2 G D^1/2: a strategy with
 * A^T A = D^-1/2 S^1/2 D^-1/2 / scale.  dinv2 may be NULL (D = I).
 */
static Mat *
strategy_from_sqrt(const Mat *q, const double *lambda, const double *dinv2, double scale)
{
	int			n = q->rows,
				rank = 0;
	int		   *cols = palloc(sizeof(int) * Max(n, 1));
	double	   *f = palloc(sizeof(double) * Max(n, 1));
	Mat		   *a;

	for (int i = n - 1; i >= 0; i--)
	{
		if (lambda[i] <= 0)
			continue;
		cols[rank] = i;
		f[rank++] = pow(lambda[i], 0.25) / sqrt(scale);
	}
	a = scaled_rows(q, cols, f, rank, dinv2);
	pfree(cols);
	pfree(f);
	return a;
}

static void
check_support(int k, const char *method)
{
	if (k == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("method %s needs a workload with at least one nonzero query", method)));
}

Mat *
strategy_eigen(const Mat *g, OptReport *rep)
{
	int		   *keep;
	int			k = gram_support(g, &keep);
	Mat		   *gk,
			   *q,
			   *a;
	double	   *lambda;
	double		t = 0.0,
				maxdiag = 0.0;

	check_support(k, "eigen");
	gk = gram_restrict(g, keep, k);
	lambda = palloc(sizeof(double) * k);
	q = eig_psd(gk, lambda);
	/* X = G^1/2: its diagonal gives the sensitivity, its trace the error */
	{
		double	   *x = palloc0(sizeof(double) * k);

		for (int i = 0; i < k; i++)
			for (int j = 0; j < k; j++)
				x[j] += sqrt(lambda[i]) * MAT(q, j, i) * MAT(q, j, i);
		for (int j = 0; j < k; j++)
			maxdiag = fmax(maxdiag, x[j]);
		pfree(x);
	}
	for (int i = 0; i < k; i++)
		t += sqrt(lambda[i]);
	a = strategy_from_sqrt(q, lambda, NULL, 1.0);
	rep->iterations = 0;
	rep->objective = t * maxdiag;
	/* the SVD bound: the full program's dual at v = 1 (file comment) */
	rep->lower_bound = t * t / k;
	return strategy_widen(a, keep, g->cols);
}

/*
 * One dual evaluation at weights v: S = V^1/2 G V^1/2, its eigendecomposition
 * (into a new q, and lambda), x_j = (S^1/2)_jj / v_j, and T = tr(S^1/2) =
 * sum_j v_j x_j.
 */
static double
optimal_eval(const Mat *gk, const double *v, Mat *s, Mat **q, double *lambda, double *x,
			 int *rank)
{
	int			k = gk->rows;
	double		t = 0.0;

	for (int i = 0; i < k; i++)
		x[i] = sqrt(v[i]);
	for (int j = 0; j < k; j++)
		for (int i = 0; i < k; i++)
			MAT(s, i, j) = x[i] * x[j] * MAT(gk, i, j);
	*q = eig_psd(s, lambda);
	memset(x, 0, sizeof(double) * k);
	*rank = 0;
	/* column by column through Q, so the n^2 pass runs at memory speed */
	for (int i = 0; i < k; i++)
	{
		double		r = sqrt(lambda[i]);
		const double *qi = &MAT(*q, 0, i);

		if (r == 0.0)
			continue;
		(*rank)++;
		t += r;
		for (int j = 0; j < k; j++)
			x[j] += r * qi[j] * qi[j];
	}
	for (int j = 0; j < k; j++)
		x[j] /= v[j];
	return t;
}

/* Anderson acceleration's memory: more costs nothing next to an eigendecomposition */
#define ANDERSON_M 8
/* how far (in log v) an extrapolated step may go beyond the plain one */
#define ANDERSON_REACH 4.0

Mat *
strategy_gaussian_optimal(const Mat *g, double tol, int max_iter, OptReport *rep)
{
	int		   *keep;
	int			k = gram_support(g, &keep);
	Mat		   *gk,
			   *s,
			   *a,
			   *q,
			   *best_q,
			   *df,
			   *dg;
	double	   *v,
			   *u,
			   *x,
			   *f,
			   *gu,
			   *f_prev,
			   *g_prev,
			   *lambda,
			   *best_lambda,
			   *best_dinv2;
	double		best_primal = INFINITY,
				best_dual = 0.0,
				best_scale = 1.0;
	int			it,
				hist = 0,
				full_rank = 0;
	bool		plain = true;
	double		last_dual = 0.0;
	MemoryContext iter_cxt,
				old_cxt;

	check_support(k, "gaussian_optimal");
	gk = gram_restrict(g, keep, k);
	s = mat_new(k, k);
	v = palloc(sizeof(double) * k);
	u = palloc0(sizeof(double) * k);
	x = palloc(sizeof(double) * k);
	f = palloc(sizeof(double) * k);
	gu = palloc(sizeof(double) * k);
	f_prev = palloc(sizeof(double) * k);
	g_prev = palloc(sizeof(double) * k);
	df = mat_new(k, ANDERSON_M);
	dg = mat_new(k, ANDERSON_M);
	lambda = palloc(sizeof(double) * k);
	best_lambda = palloc(sizeof(double) * k);
	best_dinv2 = palloc(sizeof(double) * k);
	best_q = mat_new(k, k);
	for (int i = 0; i < k; i++)
		v[i] = 1.0;

	/*
	 * An iteration's eigenvectors, the eigensolver's and the least-squares
	 * step's buffers live in iter_cxt, dropped as the next iteration starts;
	 * what outlives one (v, u, the history, the best point) was allocated
	 * above, in the caller's context.
	 */
	iter_cxt = mat_loop_context("gaussian_optimal iteration");
	old_cxt = MemoryContextSwitchTo(iter_cxt);
	for (it = 0; it < max_iter; it++)
	{
		double		t,
					vsum = 0.0,
					maxx = 0.0,
					primal,
					dual;
		int			rank;

		MemoryContextReset(iter_cxt);
		CHECK_FOR_INTERRUPTS();
		t = optimal_eval(gk, v, s, &q, lambda, x, &rank);
		for (int j = 0; j < k; j++)
		{
			vsum += v[j];
			maxx = fmax(maxx, x[j]);
		}
		primal = t * maxx;
		dual = t * t / vsum;
		if (it == 0)
			full_rank = rank;	/* v = 1: S = G */
		/* below G's rank in floating point, X(v) is not a certified primal point */
		if (rank >= full_rank)
		{
			best_dual = fmax(best_dual, dual);
			if (primal < best_primal)
			{
				best_primal = primal;
				memcpy(best_q->data, q->data, sizeof(double) * k * k);
				memcpy(best_lambda, lambda, sizeof(double) * k);
				for (int j = 0; j < k; j++)
					best_dinv2[j] = 1.0 / sqrt(v[j]);
				best_scale = maxx;
			}
		}
		progress_update("gaussian_optimal", it, best_primal, best_primal / best_dual - 1.0);
		if (best_primal <= best_dual * (1.0 + tol))
			break;

		/*
		 * The plain update v_j <- v_j x_j / (T / sum v) moves weight to the
		 * binding constraints and never lowers the dual; it is the
		 * fixed-point map u -> u + f(u) in u = log v, with residual
		 * f = log(x / (T / sum v)).  It converges linearly and slowly on some
		 * workloads (about 130 steps on prefix sums at n = 2048), so Anderson
		 * acceleration extrapolates it from the last ANDERSON_M steps:
		 * u' = g - dG gamma with gamma minimizing |f - dF gamma|, each
		 * coordinate moving at most ANDERSON_REACH beyond the plain step.
		 * An extrapolated point that lowers the dual (or loses rank) is
		 * rejected for the plain step from the last accepted point, with a
		 * fresh history.
		 */
		if (!plain && (rank < full_rank || dual < last_dual))
		{
			memcpy(u, g_prev, sizeof(double) * k);
			hist = 0;
			plain = true;
		}
		else
		{
			last_dual = dual;
			for (int j = 0; j < k; j++)
			{
				f[j] = log(fmax(x[j], 1e-300) * vsum / t);
				gu[j] = u[j] + f[j];
			}
			if (it > 0)
			{
				int			col = Min(hist, ANDERSON_M - 1);

				if (hist == ANDERSON_M)
				{
					/* drop the oldest difference */
					memmove(df->data, &MAT(df, 0, 1), sizeof(double) * (size_t) k * (ANDERSON_M - 1));
					memmove(dg->data, &MAT(dg, 0, 1), sizeof(double) * (size_t) k * (ANDERSON_M - 1));
				}
				else
					hist++;
				for (int j = 0; j < k; j++)
				{
					MAT(df, j, col) = f[j] - f_prev[j];
					MAT(dg, j, col) = gu[j] - g_prev[j];
				}
			}
			memcpy(f_prev, f, sizeof(double) * k);
			memcpy(g_prev, gu, sizeof(double) * k);
			memcpy(u, gu, sizeof(double) * k);
			plain = hist == 0;
			if (hist > 0)
			{
				Mat			dfh = {k, hist, df->data};
				int			lsrank;
				double	   *gamma = mat_lstsq(&dfh, f, &lsrank);

				for (int j = 0; j < k; j++)
				{
					double		step = 0.0;

					for (int h = 0; h < hist; h++)
						step += MAT(dg, j, h) * gamma[h];
					u[j] -= fmax(-ANDERSON_REACH, fmin(ANDERSON_REACH, step));
				}
			}
		}
		/*
		 * Back to v, normalized to mean 1 and kept at 1e-60 or more: smaller
		 * weights change nothing measurable, and products of them would
		 * reach subnormal numbers, which slow LAPACK down a hundredfold.
		 */
		{
			double		mean = 0.0;

			for (int j = 0; j < k; j++)
			{
				u[j] = fmax(u[j], -138.0);
				mean += exp(u[j]);
			}
			mean /= k;
			for (int j = 0; j < k; j++)
			{
				u[j] -= log(mean);
				v[j] = exp(u[j]);
			}
		}
	}
	MemoryContextSwitchTo(old_cxt);
	MemoryContextDelete(iter_cxt);
	rep->iterations = it + (it < max_iter);
	rep->objective = best_primal;
	/* the best dual value of the program itself, so a bound on every strategy (file comment) */
	rep->lower_bound = best_dual;
	a = strategy_from_sqrt(best_q, best_lambda, best_dinv2, best_scale);
	if (a->rows < k)
	{
		/*
		 * W has rank below its number of cells.  In exact arithmetic the rows
		 * of A span W's row space; with weights v far apart they drift off it.
		 * Projecting them back onto it (the eigenvectors of G with nonzero
		 * eigenvalues) keeps every query of W answerable without bias.
		 */
		double	   *d = palloc(sizeof(double) * k);
		Mat		   *p = eig_psd(gk, d),
				   *proj,
				   *ap;
		int			r = 0;

		for (int i = 0; i < k; i++)
			r += d[i] > 0;
		proj = mat_new(k, r);
		memcpy(proj->data, &MAT(p, 0, k - r), sizeof(double) * (size_t) k * r);
		ap = mat_mul(a, false, proj, false);	/* A P_r */
		mat_free(a);
		a = mat_mul(ap, false, proj, true); /* A P_r P_r^T */
		/*
		 * The report must describe the strategy returned: with M = (A P_r)^T
		 * (A P_r), trace(G (A^T A)^+) = sum_i d_i (M^-1)_ii over the nonzero
		 * eigenvalues d_i, times the new L2 sensitivity squared.
		 */
		{
			Mat		   *mi,
					   *m = mat_gram(ap);
			double		t = 0.0,
						sens = mat_max_col_norm(a, 2);

			mi = mat_pinv(m);
			for (int i = 0; i < r; i++)
				t += d[k - r + i] * MAT(mi, i, i);
			rep->objective = sens * sens * t;
			mat_free(m);
			mat_free(mi);
		}
		mat_free(ap);
		mat_free(proj);
		mat_free(p);
	}
	return strategy_widen(a, keep, g->cols);
}

Mat *
strategy_eigen_design(const Mat *g, double tol, int max_iter, OptReport *rep)
{
	int		   *keep;
	int			k = gram_support(g, &keep);
	Mat		   *gk,
			   *q,
			   *q2,
			   *a;
	double	   *d,
			   *y,
			   *c,
			   *u,
			   *col,
			   *best_u;
	double		best_primal = INFINITY,
				best_dual = 0.0,
				best_max = 1.0,
				prev_dual = 0.0,
				step = 1.0,
				svdb = 0.0;
	int			it,
				rank = 0;

	check_support(k, "eigen_design");
	gk = gram_restrict(g, keep, k);
	d = palloc(sizeof(double) * k);
	q = eig_psd(gk, d);
	/* Q2 = Q .* Q: column j's squared loadings on each eigen-query */
	q2 = mat_new(k, k);
	for (size_t i = 0; i < (size_t) k * k; i++)
		q2->data[i] = q->data[i] * q->data[i];
	y = palloc(sizeof(double) * k);
	c = palloc(sizeof(double) * k);
	u = palloc0(sizeof(double) * k);
	col = palloc(sizeof(double) * k);
	best_u = palloc0(sizeof(double) * k);
	for (int j = 0; j < k; j++)
		y[j] = 1.0;
	for (int i = 0; i < k; i++)
		svdb += sqrt(d[i]);
	svdb = svdb * svdb / k;

	for (it = 0; it < max_iter; it++)
	{
		double		ysum = 0.0,
					root = 0.0,
					obj = 0.0,
					maxcol = 0.0,
					primal,
					dual;

		CHECK_FOR_INTERRUPTS();
		mat_vec(q2, true, y, c);	/* c_i = sum_j y_j Q_ji^2 */
		for (int i = 0; i < k; i++)
		{
			u[i] = d[i] > 0 ? sqrt(d[i] / fmax(c[i], 1e-300)) : 0.0;
			root += sqrt(d[i] * fmax(c[i], 0.0));
			if (d[i] > 0)
				obj += d[i] / u[i];
		}
		mat_vec(q2, false, u, col); /* col_j = sum_i Q_ji^2 u_i */
		for (int j = 0; j < k; j++)
		{
			ysum += y[j];
			maxcol = fmax(maxcol, col[j]);
		}
		primal = obj * maxcol;
		/* of this program only: it stops the iteration, but is no bound on other strategies */
		dual = root * root / ysum;
		best_dual = fmax(best_dual, dual);
		progress_update("eigen_design", it, fmin(primal, best_primal),
						fmin(primal, best_primal) / best_dual - 1.0);
		if (primal < best_primal)
		{
			best_primal = primal;
			memcpy(best_u, u, sizeof(double) * k);
			best_max = maxcol;
		}
		if (best_primal <= best_dual * (1.0 + tol))
			break;
		/* the plain update (step 1) converges slowly here: lengthen it while the dual improves */
		step = dual > prev_dual ? fmin(step * 1.5, 64.0) : fmax(step / 3.0, 1.0);
		prev_dual = dual;
		for (int j = 0; j < k; j++)
			y[j] = fmax(y[j] * pow(col[j] / (root / ysum), step), 1e-300);
		{
			double		mean = 0.0;

			for (int j = 0; j < k; j++)
				mean += y[j];
			mean /= k;
			for (int j = 0; j < k; j++)
				y[j] /= mean;
		}
	}
	/* A = diag(sqrt(u / max)) Q^T over the nonzero eigenvalues: column norms^2 = col_j / max <= 1 */
	{
		int		   *cols = palloc(sizeof(int) * k);
		double	   *f = palloc(sizeof(double) * k);

		for (int i = k - 1; i >= 0; i--)
		{
			if (d[i] <= 0)
				continue;
			cols[rank] = i;
			f[rank++] = sqrt(best_u[i] / best_max);
		}
		a = scaled_rows(q, cols, f, rank, NULL);
	}
	rep->iterations = it + (it < max_iter);
	rep->objective = best_primal;
	/*
	 * Not best_dual, which bounds only strategies made of W's eigen-queries,
	 * but the SVD bound, which bounds them all (file comment).  The full
	 * program's dual at this program's final y is far below it (0.58 times it
	 * at AllRange(2048)), and at the weights its optimality conditions
	 * suggest, diag(Q diag(d / u^2) Q^T), at most 1.5% above it on AllRange and
	 * Prefix up to n = 64 and 0.004% at AllRange(2048): not worth another
	 * eigendecomposition.
	 */
	rep->lower_bound = svdb;
	return strategy_widen(a, keep, g->cols);
}

Mat *
strategy_augment(const Mat *a, int p)
{
	double		sens = mat_max_col_norm(a, p);
	double	   *extra = palloc0(sizeof(double) * Max(a->cols, 1));
	int			added = 0;
	Mat		   *out;

	for (int j = 0; j < a->cols; j++)
	{
		double		norm = 0.0;

		for (int i = 0; i < a->rows; i++)
			norm += p == 1 ? fabs(MAT(a, i, j)) : MAT(a, i, j) * MAT(a, i, j);
		/* the row's entry brings the column's norm exactly to the sensitivity */
		extra[j] = p == 1 ? sens - norm : sqrt(fmax(sens * sens - norm, 0.0));
		if (extra[j] > 1e-12 * sens)
			added++;
		else
			extra[j] = 0.0;
	}
	out = mat_new(a->rows + added, a->cols);
	for (int j = 0, r = a->rows; j < a->cols; j++)
	{
		memcpy(&MAT(out, 0, j), &MAT(a, 0, j), sizeof(double) * a->rows);
		if (extra[j] > 0)
			MAT(out, r++, j) = extra[j];
	}
	return out;
}
