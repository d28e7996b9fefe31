/*
 * mechanism.c -- the matrix mechanism (Li et al., PODS 2010, Proposition 3).
 *
 * y = A x + noise, x_hat = A^+ y, answers W x_hat, over any strategy
 * operator (operator.h).  The dense one is here: one thin SVD of A gives
 * both A^+ and the error of every answer; a stored strategy keeps them
 * (mechanism_strategy_cache), so a release does not factor A again.
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
		return dpm_gaussian_mechanism(v, sens, calibrate_zcdp_sigma(rho, sens), out);
	if (delta == 0.0)
		return dpm_laplace_mechanism(v, sens, epsilon, law, out);
	return dpm_gaussian_mechanism(v, sens, calibrate_gaussian_sigma(epsilon, delta, sens), out);
}

void
mechanism_check(int m, double sens, double epsilon, double delta, double rho)
{
	if (rho > 0.0)
		dpm_gaussian_check(m, sens, calibrate_zcdp_sigma(rho, sens));
	else if (delta == 0.0)
		dpm_laplace_check(m, sens, epsilon);
	else
		dpm_gaussian_check(m, sens, calibrate_gaussian_sigma(epsilon, delta, sens));
}

double
mechanism_scaled_sensitivity(double sens, double sens_scale)
{
	double		s = sens * sens_scale;

	/* an upper bound stays one: the product may have rounded down */
	return sens_scale == 1.0 ? s : nextafter(s, INFINITY);
}

StrategyCache *
mechanism_strategy_cache(const Mat *w, const Mat *a)
{
	StrategyCache *c = palloc(sizeof(StrategyCache));
	Svd		   *svd;

	if (w->cols != a->cols)
		elog(ERROR, "mechanism_strategy_cache: workload has %d cells, strategy %d", w->cols, a->cols);
	svd = mat_svd(a, true);
	c->profile = mechanism_profile_terms(w, svd);
	CHECK_FOR_INTERRUPTS();
	c->pinv = svd_pinv(svd, a->rows, a->cols);
	return c;
}

Release *
mechanism_run(const StrategyOp *op, const int64 *counts, double epsilon, double delta, double rho,
			  double sens_scale, Inference inference, double confidence)
{
	Release    *rel = palloc0(sizeof(Release));
	LaplaceLaw	law;
	ExactAnswers *exact;
	double		sens;
	double	   *y,
			   *xhat;
	Mat			yv;
	Mat		   *xt;

	/* y = A x exactly, plus noise for the sensitivity of the A measured */
	exact = op->measure(op, counts, MECHANISM_LAPLACE(delta, rho) ? 1 : 2, &sens);
	y = palloc_extended(sizeof(double) * Max(op->rows, 1), MCXT_ALLOC_HUGE);
	rel->noise_var = mechanism_noise(exact, y, mechanism_scaled_sensitivity(sens, sens_scale), epsilon, delta,
									 rho, &law);
	pfree(exact->data);
	pfree(exact);

	/* x_hat = A^+ y, the minimum-norm least-squares solution */
	yv = (Mat) {(int) op->rows, 1, y};
	xt = op->solve(op, &yv);
	xhat = xt->data;
	if (inference != INFERENCE_LS)
	{
		LinOp		lin;

		op->linop(op, &lin);
		inference_apply(inference, &lin, y, xhat);
	}
	pfree(y);

	rel->p = (int) op->queries;
	rel->answers = op->answer(op, xhat);
	mat_free(xt);
	rel->stderrs = palloc_extended(sizeof(double) * Max(op->queries, 1), MCXT_ALLOC_HUGE);
	for (size_t i = 0; i < op->queries; i++)
		rel->stderrs[i] = sqrt(rel->noise_var * op->profile[i]);
	if (confidence == NO_INTERVALS)
		rel->half = NULL;
	else if (law.t > 0.0)
		rel->half = interval_laplace(op, &law, confidence, &rel->ci_draws);
	else
		rel->half = interval_gaussian(rel->stderrs, rel->p, confidence);
	return rel;
}

/* a dense strategy: A^T as the caller gave it, A^+ and the profile from its cache */
typedef struct DenseState
{
	const Mat  *w;
	const Mat  *at;
	const StrategyCache *cache;
	Mat		   *a;				/* A quantized, once something needs it */
} DenseState;

static ExactAnswers *
dense_measure(const StrategyOp *op, const int64 *x, int norm, double *sens)
{
	const DenseState *st = op->state;

	return exact_matvec(st->at, x, norm, sens);
}

static Mat *
dense_solve(const StrategyOp *op, const Mat *y)
{
	const DenseState *st = op->state;
	Mat		   *xt = mat_new_uninit(y->cols, (int) op->cells);

	if (y->cols == 1)
		mat_vec(st->cache->pinv, false, y->data, xt->data);
	else
		mat_mul_into(xt, y, true, st->cache->pinv, true);	/* (A^+ Y)^T = Y^T (A^+)^T */
	return xt;
}

static double *
dense_answer(const StrategyOp *op, const double *x)
{
	const DenseState *st = op->state;
	double	   *out = palloc(sizeof(double) * Max(st->w->rows, 1));

	mat_vec(st->w, false, x, out);
	return out;
}

static void
dense_linop(const StrategyOp *op, LinOp *lin)
{
	DenseState *st = op->state;

	if (st->a == NULL)
	{
		st->a = mat_transpose(st->at);
		exact_quantize(st->a->data, (size_t) st->a->rows * st->a->cols);
	}
	inference_linop_dense(lin, st->a);
}

static void
dense_half_from_cells(const StrategyOp *op, const double *xd, int draws, int k, double *half)
{
	const DenseState *st = op->state;

	interval_half_dense(st->w, xd, draws, k, half);
}

Release *
mechanism_run_dense(const Mat *w, const Mat *at, const StrategyCache *cache, const double *x,
			  double epsilon, double delta, double rho, double sens_scale, Inference inference,
			  double confidence)
{
	int			m = at->cols,
				n = at->rows;
	DenseState	st = {w, at, cache, NULL};
	StrategyOp	op = {0};
	int64	   *counts;
	Release    *rel;

	if (w->cols != n)
		elog(ERROR, "mechanism_run_dense: workload has %d cells, strategy %d", w->cols, n);
	counts = exact_counts(x, n);
	if (cache == NULL)
	{
		/* reconstruct through the matrix that is measured: the quantized one */
		st.a = mat_transpose(at);
		exact_quantize(st.a->data, (size_t) st.a->rows * st.a->cols);
		st.cache = mechanism_strategy_cache(w, st.a);
	}
	else if (cache->pinv->rows != n || cache->pinv->cols != m)
		elog(ERROR, "mechanism_run_dense: the cached pseudo-inverse is %d x %d, the strategy %d x %d",
			 cache->pinv->rows, cache->pinv->cols, m, n);
	interval_check(confidence, MECHANISM_LAPLACE(delta, rho), w->rows, true);
	CHECK_FOR_INTERRUPTS();

	op.rows = m;
	op.cells = n;
	op.queries = w->rows;
	op.profile = st.cache->profile;
	op.batched = true;
	op.measure = dense_measure;
	op.solve = dense_solve;
	op.answer = dense_answer;
	op.linop = dense_linop;
	op.half_from_cells = dense_half_from_cells;
	op.state = &st;
	rel = mechanism_run(&op, counts, epsilon, delta, rho, sens_scale, inference, confidence);
	pfree(counts);
	return rel;
}
