/*
 * min_sensitivity.c -- a strategy with the same error profile as a given one
 * and lower L1 sensitivity (matrix-mechanism section 5.4).
 *
 * Every B with B^T B = A^T A answers every query with the same variance per
 * unit of noise, and B = U R for one fixed factor R and an orthogonal U; only
 * the L1 sensitivity max_j ||U r_j||_1 (the Laplace noise scale) changes.
 * The exact problem is a rank-constrained SDP (Program 5.3), so we search:
 * start from several factors of G = A^T A -- A itself, the eigen factor
 * Lambda^1/2 P^T, the symmetric square root G^1/2, and the Cholesky factors
 * for the natural and the reversed cell order -- and improve each by sweeps
 * of Givens rotations, each rotation angle chosen by a grid search refined by
 * golden sections on the nonsmooth objective.  The L2 sensitivity (the
 * Gaussian noise scale) is the same for all of them, so this helps Laplace
 * noise only.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "strategy/dense/gram_strategies.h"
#include "progress/progress.h"

#define GRID 48

static double
l1_sensitivity(const Mat *b)
{
	return mat_max_col_norm(b, 1);
}

/*
 * max_j of rest_j + |c p_j - s q_j| + |s p_j + c q_j|, or a value at least
 * cutoff as soon as it is known to reach it
 */
static double
rotated_max(const double *rest, const double *p, const double *q, int n, double theta, double cutoff)
{
	double		c = cos(theta),
				s = sin(theta),
				m = 0.0;

	for (int j = 0; j < n && m < cutoff; j++)
		m = fmax(m, rest[j] + fabs(c * p[j] - s * q[j]) + fabs(s * p[j] + c * q[j]));
	return m;
}

/* rotate rows i and k of b by the best angle for the L1 sensitivity; true if it improved */
static bool
best_rotation(Mat *b, int i, int k, double *colsum, double *rest, double *p, double *q)
{
	int			n = b->cols;
	double		cur = 0.0,
				best,
				best_t = 0.0,
				lo,
				hi;

	for (int j = 0; j < n; j++)
	{
		p[j] = MAT(b, i, j);
		q[j] = MAT(b, k, j);
		rest[j] = colsum[j] - fabs(p[j]) - fabs(q[j]);
		cur = fmax(cur, colsum[j]);
	}

	/*
	 * No angle takes a column below rest_j + sqrt(p_j^2 + q_j^2) (an L1 norm
	 * is at least the L2 norm, which rotations keep): if a column at the
	 * maximum cannot go below it, neither can the maximum.  Exact, and most
	 * pairs end here: the columns of a balanced strategy (hierarchical,
	 * wavelet) all sit at the maximum.
	 */
	for (int j = 0; j < n; j++)
		if (colsum[j] >= cur * (1 - 1e-12) && rest[j] + hypot(p[j], q[j]) >= cur * (1 - 1e-12))
			return false;
	best = cur;
	/* rotations by multiples of pi/2 only swap rows and flip signs: [0, pi/2) covers all */
	for (int g = 1; g < GRID; g++)
	{
		double		t = (M_PI / 2) * g / GRID,
					v = rotated_max(rest, p, q, n, t, best);

		if (v < best)
		{
			best = v;
			best_t = t;
		}
	}
	/*
	 * golden-section refinement around the best grid point; each step keeps
	 * one of its two points, so one new evaluation a step
	 */
	lo = best_t - (M_PI / 2) / GRID;
	hi = best_t + (M_PI / 2) / GRID;
	{
		const double r = 0.6180339887498949;
		double		a = hi - (hi - lo) * r,
					c = lo + (hi - lo) * r,
					fa = rotated_max(rest, p, q, n, a, INFINITY),
					fc = rotated_max(rest, p, q, n, c, INFINITY);

		for (int it = 0; it < 40; it++)
		{
			if (fa < fc)
			{
				hi = c;
				c = a;
				fc = fa;
				a = hi - (hi - lo) * r;
				fa = rotated_max(rest, p, q, n, a, INFINITY);
			}
			else
			{
				lo = a;
				a = c;
				fa = fc;
				c = lo + (hi - lo) * r;
				fc = rotated_max(rest, p, q, n, c, INFINITY);
			}
		}
	}
	{
		double		t = (lo + hi) / 2,
					v = rotated_max(rest, p, q, n, t, best);

		if (v < best)
		{
			best = v;
			best_t = t;
		}
	}
	if (best >= cur * (1 - 1e-12))
		return false;
	{
		double		c = cos(best_t),
					s = sin(best_t);

		for (int j = 0; j < n; j++)
		{
			MAT(b, i, j) = c * p[j] - s * q[j];
			MAT(b, k, j) = s * p[j] + c * q[j];
			colsum[j] = rest[j] + fabs(MAT(b, i, j)) + fabs(MAT(b, k, j));
		}
	}
	return true;
}

/* improve b in place by sweeps of Givens rotations; returns the sweeps made */
static int
rotate_down(Mat *b, int max_sweeps)
{
	int			n = b->cols,
				sweeps;
	double	   *colsum = palloc(sizeof(double) * n),
			   *rest = palloc(sizeof(double) * n),
			   *p = palloc(sizeof(double) * n),
			   *q = palloc(sizeof(double) * n);

	for (int j = 0; j < n; j++)
	{
		colsum[j] = 0.0;
		for (int i = 0; i < b->rows; i++)
			colsum[j] += fabs(MAT(b, i, j));
	}
	for (sweeps = 0; sweeps < max_sweeps; sweeps++)
	{
		double		before = l1_sensitivity(b);
		bool		moved = false;

		progress_update("min_sensitivity", sweeps, before, NAN);
		for (int i = 0; i < b->rows; i++)
		{
			CHECK_FOR_INTERRUPTS();
			for (int k = i + 1; k < b->rows; k++)
				moved |= best_rotation(b, i, k, colsum, rest, p, q);
		}
		if (!moved || l1_sensitivity(b) > before * (1 - 1e-9))
			break;
	}
	return sweeps + 1;
}

/* upper factor R with R^T R = G in the given cell order, or NULL if G is not positive definite */
static Mat *
cholesky_factor(const Mat *g, bool reversed)
{
	int			n = g->rows;
	Mat		   *l = mat_new(n, n),
			   *r;

	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++)
			MAT(l, i, j) = reversed ? MAT(g, n - 1 - i, n - 1 - j) : MAT(g, i, j);
	if (!mat_cholesky(l))
		return NULL;
	r = mat_new(n, n);
	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++)
			MAT(r, j, i) = reversed ? MAT(l, n - 1 - i, n - 1 - j) : MAT(l, i, j);
	return r;
}

Mat *
strategy_min_sensitivity(const Mat *a, int max_sweeps, OptReport *rep)
{
	Mat		   *g = mat_gram(a),
			   *cand[5],
			   *best = NULL;
	double		best_sens = INFINITY;
	int			n = a->cols,
				ncand = 0;
	Mat		   *e = gram_root(g);
	int			rank = e->rows;

	if (rank == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("method min_sensitivity needs a strategy with at least one nonzero entry")));
	cand[ncand++] = mat_copy(a);
	/* eigen factor Lambda^1/2 P^T, and symmetric root P Lambda^1/2 P^T = P (Lambda^1/2 P^T) */
	cand[ncand++] = e;
	{
		Mat		   *p = mat_new(n, rank);

		/* the rows of e are sqrt(lambda_i) p_i^T, so P = e^T diag(1 / sqrt(lambda_i)) */
		for (int i = 0; i < rank; i++)
		{
			double		norm = 0.0;

			for (int j = 0; j < n; j++)
				norm += MAT(e, i, j) * MAT(e, i, j);
			for (int j = 0; j < n; j++)
				MAT(p, j, i) = MAT(e, i, j) / sqrt(norm);
		}
		cand[ncand++] = mat_mul(p, false, e, false);
	}
	if (rank == n)
	{
		Mat		   *r1 = cholesky_factor(g, false),
				   *r2 = cholesky_factor(g, true);

		if (r1)
			cand[ncand++] = r1;
		if (r2)
			cand[ncand++] = r2;
	}

	rep->iterations = 0;
	for (int c = 0; c < ncand; c++)
	{
		double		s;

		/* rotations mix rows: a rectangular A is first reduced to its n x n factor family */
		if (cand[c]->rows <= 64 * n)
			rep->iterations += rotate_down(cand[c], max_sweeps);
		s = l1_sensitivity(cand[c]);
		if (s < best_sens)
		{
			best_sens = s;
			best = cand[c];
		}
	}
	rep->objective = best_sens;
	rep->lower_bound = NAN;
	return best;
}
