/*
 * mechanism.c -- the matrix mechanism (matrix-mechanism.txt, Proposition 3).
 *
 * y = A x + noise, x_hat = A^+ y, answers W x_hat.  One thin SVD of A gives
 * both A^+ and the error of every answer; a stored strategy keeps them
 * (strategy_cache), so a release does not factor A again.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "mechanism/calibrate.h"
#include "mechanism/error.h"
#include "mechanism/exact.h"
#include "mechanism/interval.h"
#include "mechanism/mechanism.h"
#include "mechanism/sampler.h"

double
mechanism_noise(const ExactAnswers *v, double *out, double sens, double epsilon, double delta,
				double rho, LaplaceLaw *law)
{
	/*
	 * Far beyond any count times any strategy entry dpmatrix accepts (checked
	 * only when the answers' width allows it); keeps the outputs finite.
	 */
	for (int i = 0; i < v->m && 64 * v->words + v->exp > 1000; i++)
		if (exact_log2(v, i) > 1000)
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("strategy answer %d is not a finite number", i + 1),
					 errdetail("The data vector or the strategy holds values too large to combine.")));
	law->t = 0.0;
	if (rho > 0.0)
		return dpm_gaussian_mechanism(v, sens, zcdp_sigma(rho, sens), out);
	if (delta == 0.0)
		return dpm_laplace_mechanism(v, sens, epsilon, law, out);
	return dpm_gaussian_mechanism(v, sens, gaussian_sigma(epsilon, delta, sens), out);
}

void
mechanism_check(int m, double sens, double epsilon, double delta, double rho)
{
	if (rho > 0.0)
		dpm_gaussian_check(m, sens, zcdp_sigma(rho, sens));
	else if (delta == 0.0)
		dpm_laplace_check(m, sens, epsilon);
	else
		dpm_gaussian_check(m, sens, gaussian_sigma(epsilon, delta, sens));
}

double
scaled_sensitivity(double sens, double sens_scale)
{
	double		s = sens * sens_scale;

	/* an upper bound stays one: the product may have rounded down */
	return sens_scale == 1.0 ? s : nextafter(s, INFINITY);
}

StrategyCache *
strategy_cache(const Mat *w, const Mat *a)
{
	StrategyCache *c = palloc(sizeof(StrategyCache));
	Svd		   *svd;

	if (w->cols != a->cols)
		elog(ERROR, "strategy_cache: workload has %d cells, strategy %d", w->cols, a->cols);
	svd = mat_svd(a, true);
	c->profile = profile_terms(w, svd);
	CHECK_FOR_INTERRUPTS();
	c->pinv = svd_pinv(svd, a->rows, a->cols);
	return c;
}

Release *
run_mechanism(const Mat *w, const Mat *at, const StrategyCache *cache, const double *x,
			  double epsilon, double delta, double rho, double sens_scale, Inference inference,
			  double confidence)
{
	Release    *rel = palloc0(sizeof(Release));
	LaplaceLaw	law;
	double	   *y,
			   *xhat;
	int			m = at->cols,
				n = at->rows;
	Mat		   *a = NULL;		/* A itself, only where a factorization needs it */
	int64	   *counts;
	ExactAnswers *exact;
	double		sens;

	if (w->cols != n)
		elog(ERROR, "run_mechanism: workload has %d cells, strategy %d", w->cols, n);
	counts = exact_counts(x, n);
	if (cache == NULL)
	{
		/* reconstruct through the matrix that is measured: the quantized one */
		a = mat_transpose(at);
		exact_quantize(a->data, (size_t) a->rows * a->cols);
		cache = strategy_cache(w, a);
	}
	else if (cache->pinv->rows != n || cache->pinv->cols != m)
		elog(ERROR, "run_mechanism: the cached pseudo-inverse is %d x %d, the strategy %d x %d",
			 cache->pinv->rows, cache->pinv->cols, m, n);
	if (confidence != NO_INTERVALS && MECHANISM_LAPLACE(delta, rho))
		(void) interval_rank(confidence, dpm_ci_draws);
	CHECK_FOR_INTERRUPTS();

	/* y = A x exactly, plus noise for the sensitivity of the quantized A */
	exact = exact_matvec(at, counts, MECHANISM_LAPLACE(delta, rho) ? 1 : 2, &sens);
	y = palloc(sizeof(double) * Max(m, 1));
	rel->noise_var = mechanism_noise(exact, y, scaled_sensitivity(sens, sens_scale), epsilon, delta,
									 rho, &law);
	pfree(exact->data);
	pfree(exact);
	pfree(counts);

	/* x_hat = A^+ y, the minimum-norm least-squares solution */
	xhat = palloc0(sizeof(double) * Max(n, 1));
	mat_vec(cache->pinv, false, y, xhat);
	if (inference != INFERENCE_LS)
	{
		LinOp		op;

		if (a == NULL)
		{
			a = mat_transpose(at);
			exact_quantize(a->data, (size_t) a->rows * a->cols);
		}
		linop_dense(&op, a);
		inference_apply(inference, &op, y, xhat);
	}

	rel->p = w->rows;
	rel->answers = palloc(sizeof(double) * Max(w->rows, 1));
	mat_vec(w, false, xhat, rel->answers);
	rel->stderrs = palloc(sizeof(double) * Max(w->rows, 1));
	for (int i = 0; i < w->rows; i++)
		rel->stderrs[i] = sqrt(rel->noise_var * cache->profile[i]);
	if (confidence == NO_INTERVALS)
		return rel;
	if (law.t > 0.0)
	{
		rel->half = interval_dense_laplace(w, cache->pinv, &law, confidence);
		rel->ci_draws = dpm_ci_draws;
	}
	else
		rel->half = interval_gaussian(rel->stderrs, w->rows, confidence);
	return rel;
}
