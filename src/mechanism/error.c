/*
 * error.c -- expected error of a workload under a strategy.
 *
 * With A = U S V^T (thin SVD, rank r), (A^T A)^+ = V_r S_r^-2 V_r^T, so the
 * profile term of w is || S_r^-1 V_r^T w ||^2: one SVD of A and one dgemm
 * with W, never an n x n inverse.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "mechanism/calibrate.h"
#include "mechanism/error.h"

/* a query counts as supported when at most this fraction of its norm lies outside A's row space */
#define SUPPORT_TOL 1e-8

/*
 * The Cholesky route squares A's condition number: taken only where A^T A's
 * is below 1e6, so that the terms keep about ten digits.
 */
#define PROFILE_MIN_RCOND 1e-6

double *
mechanism_profile_terms(const Mat *w, const Svd *a_svd)
{
	int			r = a_svd->rank;
	Mat		   *vr = mat_new(w->cols, r);
	Mat		   *wv;
	double	   *out = palloc0(sizeof(double) * Max(w->rows, 1));

	memcpy(vr->data, a_svd->v->data, sizeof(double) * (size_t) w->cols * r);
	wv = mat_mul(w, false, vr, false);	/* W V_r: p x r */
	CHECK_FOR_INTERRUPTS();

	for (int i = 0; i < w->rows; i++)
	{
		double		norm2 = 0.0,
					proj2 = 0.0,
					term = 0.0;

		for (int j = 0; j < w->cols; j++)
			norm2 += MAT(w, i, j) * MAT(w, i, j);
		for (int k = 0; k < r; k++)
		{
			double		c = MAT(wv, i, k);

			proj2 += c * c;
			term += (c / a_svd->s[k]) * (c / a_svd->s[k]);
		}
		if (norm2 - proj2 > SUPPORT_TOL * Max(norm2, 1.0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("strategy does not support workload query %d", i + 1),
					 errdetail("The query is not a linear combination of the strategy's rows, so no unbiased answer exists (the strategy has rank %d over %d cells).",
							   r, w->cols),
					 errhint("Use a strategy whose rows span the workload, for example a full-rank one such as identity or hierarchical.")));
		out[i] = term;
	}
	mat_free(vr);
	mat_free(wv);
	return out;
}

double
mechanism_noise_variance(const Mat *a, double epsilon, double delta, double sens_scale)
{
	return calibrate_variance(delta == 0.0, sens_scale * mat_max_col_norm(a, 1),
							   sens_scale * mat_max_col_norm(a, 2), epsilon, delta, 0.0);
}

Mat *
mechanism_gram_factor(const Mat *a)
{
	Mat		   *g;
	double		norm1 = 0.0;

	if (a->rows < a->cols)
		return NULL;
	g = mat_gram(a);
	for (int j = 0; j < g->cols; j++)
	{
		double		col = 0.0;

		for (int i = 0; i < g->rows; i++)
			col += fabs(MAT(g, i, j));
		norm1 = Max(norm1, col);
	}
	CHECK_FOR_INTERRUPTS();
	if (!mat_cholesky(g) || !(mat_cholesky_rcond(g, norm1) >= PROFILE_MIN_RCOND))
	{
		mat_free(g);
		return NULL;
	}
	return g;
}

double *
mechanism_profile_chol(const Mat *w, const Mat *l)
{
	Mat		   *x = mat_copy(w);
	double	   *out = palloc0(sizeof(double) * Max(w->rows, 1));

	/* the term of w is ||L^-1 w^T||^2, the squared norm of row w of W L^-T */
	mat_solve_right_lower_t(x, l);
	for (int j = 0; j < x->cols; j++)
		for (int i = 0; i < x->rows; i++)
			out[i] += MAT(x, i, j) * MAT(x, i, j);
	mat_free(x);
	return out;
}

double *
mechanism_profile(const Mat *w, const Mat *a)
{
	double	   *out;
	Svd		   *svd;
	Mat		   *l;

	if (w->cols != a->cols)
		elog(ERROR, "mechanism_profile: workload has %d cells, strategy %d", w->cols, a->cols);
	if ((l = mechanism_gram_factor(a)) != NULL)
	{
		out = mechanism_profile_chol(w, l);
		mat_free(l);
		return out;
	}
	CHECK_FOR_INTERRUPTS();
	svd = mat_svd(a, false);
	return mechanism_profile_terms(w, svd);
}
