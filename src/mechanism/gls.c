/*
 * gls.c -- generalized least squares over kept measurements (gls.h).  M is
 * n x n, built by dsyrk per part and decomposed once (dsyevd), so the
 * domains it serves are those whose dense strategies fit in memory anyway.
 */
#include "postgres.h"

#include <math.h>

#include "common/pg_prng.h"
#include "miscadmin.h"

#include "mechanism/gls.h"
#include "mechanism/interval.h"

/* eigenvalues of M below this share of the largest are its null space */
#define GLS_RANK_TOL	1e-10
/* a query is determined when its part outside the row space is below this share of its norm */
#define GLS_DETERMINED_TOL	1e-9

/*
 * Standard normal draws for the simulation of Gaussian parts (Box-Muller):
 * PostgreSQL 15's pg_prng has no normal generator, and these draws are not
 * noise that is released, only a model of it.
 */
static double
simulate_normal(pg_prng_state *rng)
{
	double		u = 1.0 - pg_prng_double(rng),
				v = pg_prng_double(rng);

	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

/* the noise of part k, `draws` draws of its answers: a (m_k x draws) matrix */
static Mat *
simulate_part(const GlsPart *part, int draws, pg_prng_state *rng)
{
	Mat		   *e = mat_new_uninit(part->a->rows, draws);
	double		sd = sqrt(part->variance);

	for (int j = 0; j < draws; j++)
	{
		CHECK_FOR_INTERRUPTS();
		if (part->law.t > 0.0)
			dpm_simulate_laplace(&part->law, rng, e->rows, &MAT(e, 0, j));
		else
			for (int i = 0; i < e->rows; i++)
				MAT(e, i, j) = sd * simulate_normal(rng);
	}
	return e;
}

/* R (n x k) := V diag(1/lambda, 0 on the null space) V^T R, in place through a temporary */
static void
apply_pinv(const Mat *v, const double *lambda, double tol, Mat *r)
{
	Mat		   *t = mat_mul(v, true, r, false);

	for (int i = 0; i < t->rows; i++)
	{
		double		s = lambda[i] > tol ? 1.0 / lambda[i] : 0.0;

		for (int j = 0; j < t->cols; j++)
			MAT(t, i, j) *= s;
	}
	mat_mul_into(r, v, false, t, false);
	mat_free(t);
}

GlsResult *
gls_estimate(const Mat *w, const GlsPart *parts, int nparts, double confidence)
{
	int			n = w->cols,
				p = w->rows;
	Mat		   *m = mat_new(n, n);
	Mat		   *b = mat_new(n, 1);
	Mat		   *wv;
	double	   *lambda = palloc(sizeof(double) * n);
	double		tol;
	bool		gaussian = true;
	GlsResult  *res = palloc0(sizeof(GlsResult));

	mat_check_size(n, n, "the estimate's normal matrix");
	for (int k = 0; k < nparts; k++)
	{
		const GlsPart *pk = &parts[k];
		Mat		   *g;
		double	   *ay = palloc(sizeof(double) * n);

		CHECK_FOR_INTERRUPTS();
		if (pk->a->cols != n)
			elog(ERROR, "measurement %d has %d cells, the workload %d", k + 1, pk->a->cols, n);
		if (!(pk->variance > 0.0 && isfinite(pk->variance)))
			elog(ERROR, "measurement %d has noise variance %g", k + 1, pk->variance);
		g = mat_gram(pk->a);
		for (size_t i = 0; i < (size_t) n * n; i++)
			m->data[i] += g->data[i] / pk->variance;
		mat_free(g);
		mat_vec(pk->a, true, pk->y, ay);
		for (int i = 0; i < n; i++)
			b->data[i] += ay[i] / pk->variance;
		pfree(ay);
		gaussian = gaussian && pk->law.t == 0.0;
	}

	/* M = V diag(lambda) V^T, V in m's place */
	mat_sym_eig(m, lambda);
	tol = GLS_RANK_TOL * Max(lambda[n - 1], 0.0);
	apply_pinv(m, lambda, tol, b);		/* b := M^+ b, the estimate of x */

	res->answers = palloc(sizeof(double) * Max(p, 1));
	res->stderrs = palloc(sizeof(double) * Max(p, 1));
	res->determined = palloc(sizeof(bool) * Max(p, 1));
	mat_vec(w, false, b->data, res->answers);
	wv = mat_mul(w, false, m, false);	/* each query in the eigenbasis */
	for (int i = 0; i < p; i++)
	{
		double		var = 0.0,
					inside = 0.0,
					outside = 0.0;

		for (int j = 0; j < n; j++)
		{
			double		c = MAT(wv, i, j);

			if (lambda[j] > tol)
			{
				var += c * c / lambda[j];
				inside += c * c;
			}
			else
				outside += c * c;
		}
		res->stderrs[i] = sqrt(var);
		res->determined[i] = outside <= GLS_DETERMINED_TOL * GLS_DETERMINED_TOL * (inside + outside) && inside > 0.0;
	}
	mat_free(wv);

	if (confidence == NO_INTERVALS)
		return res;
	if (gaussian)
	{
		res->half = interval_gaussian(res->stderrs, p, confidence);
		return res;
	}
	else
	{
		/* the estimate's error for draws of every part's noise: M^+ sum_k A_k^T e_k / v_k */
		int			draws = dpm_ci_draws;
		int			rank = interval_rank(confidence, draws);
		Mat		   *s = mat_new(n, draws);
		Mat		   *xt;
		pg_prng_state rng;

		mat_check_size(n, draws, "simulated errors");
		interval_seed(&rng);
		for (int k = 0; k < nparts; k++)
		{
			Mat		   *e = simulate_part(&parts[k], draws, &rng);
			Mat		   *ae = mat_mul(parts[k].a, true, e, false);

			for (size_t i = 0; i < (size_t) n * draws; i++)
				s->data[i] += ae->data[i] / parts[k].variance;
			mat_free(ae);
			mat_free(e);
		}
		apply_pinv(m, lambda, tol, s);
		/* the reconstructions, draws fastest (interval_half_dense's layout) */
		xt = mat_transpose(s);
		mat_free(s);
		res->half = palloc(sizeof(double) * Max(p, 1));
		interval_half_dense(w, xt->data, draws, rank, res->half);
		mat_free(xt);
		res->ci_draws = draws;
	}
	return res;
}
