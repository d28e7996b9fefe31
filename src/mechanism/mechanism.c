/*
 * mechanism.c -- the matrix mechanism (Li et al., PODS 2010, Proposition 3).
 *
 * y = A x + noise, x_hat = A^+ y, answers W x_hat, over any strategy
 * operator (operator.h).  The dense one is here: the Cholesky factor of
 * A^T A (or, where it is ill-conditioned, one thin SVD of A) gives both A^+
 * and the error of every answer; a stored strategy keeps them
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
	Mat		   *l;

	if (w->cols != a->cols)
		elog(ERROR, "mechanism_strategy_cache: workload has %d cells, strategy %d", w->cols, a->cols);
	if ((l = mechanism_gram_factor(a)) != NULL)
	{
		/* A^+ = (A^T A)^-1 A^T, its transpose A L^-T L^-1: two dtrsm, several times less than A's SVD */
		Mat		   *pt = mat_copy(a);

		c->profile = mechanism_profile_chol(w, l);
		CHECK_FOR_INTERRUPTS();
		mat_solve_right_chol(pt, l);
		c->pinv = mat_transpose(pt);
		mat_free(pt);
		mat_free(l);
		return c;
	}
	svd = mat_svd(a, true);
	c->profile = mechanism_profile_terms(w, svd);
	CHECK_FOR_INTERRUPTS();
	c->pinv = svd_pinv(svd, a->rows, a->cols);
	return c;
}

Measurements *
measurements_new(int parts, const int *sizes)
{
	Measurements *m = palloc0(sizeof(Measurements));

	m->parts = parts;
	m->sizes = palloc(sizeof(int) * Max(parts, 1));
	m->variance = palloc0(sizeof(double) * Max(parts, 1));
	m->laws = palloc0(sizeof(LaplaceLaw) * Max(parts, 1));
	for (int i = 0; i < parts; i++)
	{
		m->sizes[i] = sizes[i];
		m->total += (size_t) sizes[i];
	}
	m->y = palloc_extended(sizeof(double) * Max(m->total, 1), MCXT_ALLOC_HUGE);
	return m;
}

double *
measurements_part(const Measurements *m, int i)
{
	size_t		first = 0;

	for (int k = 0; k < i; k++)
		first += (size_t) m->sizes[k];
	return m->y + first;
}

void
measurements_check(const Measurements *m, int parts, const int *sizes)
{
	size_t		total = 0;

	if (m->parts != parts)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the measurements have %d parts, the strategy measures %d", m->parts, parts)));
	for (int i = 0; i < parts; i++)
	{
		if (m->sizes[i] < 0 || (sizes != NULL && m->sizes[i] != sizes[i]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("part %d of the measurements has %d values, the strategy measures %d there",
							i + 1, m->sizes[i], sizes ? sizes[i] : 0)));
		if (!(m->variance[i] > 0.0 && isfinite(m->variance[i])) ||
			!(m->laws[i].t >= 0.0 && isfinite(m->laws[i].t)))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("part %d of the measurements has no valid noise law", i + 1)));
		total += (size_t) m->sizes[i];
	}
	if (total != m->total)
		elog(ERROR, "measurements_check: %zu values in parts of %zu", m->total, total);
	for (size_t k = 0; k < m->total; k++)
		if (!isfinite(m->y[k]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("measurement %zu is not a finite number", k + 1)));
}

Measurements *
mechanism_measure(const StrategyOp *op, const int64 *counts, double epsilon, double delta, double rho,
				  double sens_scale)
{
	int			rows = (int) op->rows;
	Measurements *m = measurements_new(1, &rows);
	ExactAnswers *exact;
	double		sens;

	/* y = A x exactly, plus noise for the sensitivity of the A measured */
	exact = op->measure(op, counts, MECHANISM_LAPLACE(delta, rho) ? 1 : 2, &sens);
	m->variance[0] = mechanism_noise(exact, m->y, mechanism_scaled_sensitivity(sens, sens_scale), epsilon,
									 delta, rho, &m->laws[0]);
	pfree(exact->data);
	pfree(exact);
	return m;
}

Release *
mechanism_infer(const StrategyOp *op, const Measurements *m, Inference inference, double confidence)
{
	Release    *rel = palloc0(sizeof(Release));
	double	   *xhat;
	Mat			yv;
	Mat		   *xt;
	int			rows = (int) op->rows;

	measurements_check(m, 1, &rows);
	rel->noise_var = m->variance[0];

	/* x_hat = A^+ y, the minimum-norm least-squares solution */
	yv = (Mat) {rows, 1, m->y};
	xt = op->solve(op, &yv);
	xhat = xt->data;
	if (inference != INFERENCE_LS)
	{
		LinOp		lin;

		op->linop(op, &lin);
		inference_apply(inference, &lin, m->y, xhat);
	}

	rel->p = (int) op->queries;
	rel->answers = op->answer(op, xhat);
	mat_free(xt);
	rel->stderrs = palloc_extended(sizeof(double) * Max(op->queries, 1), MCXT_ALLOC_HUGE);
	for (size_t i = 0; i < op->queries; i++)
		rel->stderrs[i] = sqrt(rel->noise_var * op->profile[i]);
	if (confidence == NO_INTERVALS)
		rel->half = NULL;
	else if (m->laws[0].t > 0.0)
		rel->half = interval_laplace(op, &m->laws[0], confidence, &rel->ci_draws);
	else
		rel->half = interval_gaussian(rel->stderrs, rel->p, confidence);
	return rel;
}

Release *
mechanism_run(const StrategyOp *op, const int64 *counts, double epsilon, double delta, double rho,
			  double sens_scale, Inference inference, double confidence)
{
	Measurements *m = mechanism_measure(op, counts, epsilon, delta, rho, sens_scale);
	Release    *rel = mechanism_infer(op, m, inference, confidence);

	pfree(m->y);
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

/*
 * The operator of a dense strategy.  With the workload w (NULL: measuring
 * only) it can also answer, through the cache (NULL: computed from A
 * quantized as it is measured; exact.h).
 */
static void
dense_op(StrategyOp *op, DenseState *st, const Mat *w, const Mat *at, const StrategyCache *cache)
{
	int			m = at->cols,
				n = at->rows;

	*st = (DenseState) {w, at, cache, NULL};
	*op = (StrategyOp) {0};
	op->rows = m;
	op->cells = n;
	op->batched = true;
	op->measure = dense_measure;
	op->state = st;
	if (w == NULL)
		return;
	if (w->cols != n)
		elog(ERROR, "dense_op: workload has %d cells, strategy %d", w->cols, n);
	if (cache == NULL)
	{
		/* reconstruct through the matrix that is measured: the quantized one */
		st->a = mat_transpose(at);
		exact_quantize(st->a->data, (size_t) st->a->rows * st->a->cols);
		st->cache = mechanism_strategy_cache(w, st->a);
	}
	else if (cache->pinv->rows != n || cache->pinv->cols != m)
		elog(ERROR, "dense_op: the cached pseudo-inverse is %d x %d, the strategy %d x %d",
			 cache->pinv->rows, cache->pinv->cols, m, n);
	op->queries = w->rows;
	op->profile = st->cache->profile;
	op->solve = dense_solve;
	op->answer = dense_answer;
	op->linop = dense_linop;
	op->half_from_cells = dense_half_from_cells;
}

Release *
mechanism_run_dense(const Mat *w, const Mat *at, const StrategyCache *cache, const double *x,
			  double epsilon, double delta, double rho, double sens_scale, Inference inference,
			  double confidence)
{
	DenseState	st;
	StrategyOp	op;
	int64	   *counts = exact_counts(x, at->rows);
	Release    *rel;

	dense_op(&op, &st, w, at, cache);
	interval_check(confidence, MECHANISM_LAPLACE(delta, rho), w->rows, true);
	CHECK_FOR_INTERRUPTS();
	rel = mechanism_run(&op, counts, epsilon, delta, rho, sens_scale, inference, confidence);
	pfree(counts);
	return rel;
}

Measurements *
mechanism_measure_dense(const Mat *at, const double *x, double epsilon, double delta, double rho,
						double sens_scale)
{
	DenseState	st;
	StrategyOp	op;
	int64	   *counts = exact_counts(x, at->rows);
	Measurements *m;

	dense_op(&op, &st, NULL, at, NULL);
	m = mechanism_measure(&op, counts, epsilon, delta, rho, sens_scale);
	pfree(counts);
	return m;
}

Release *
mechanism_infer_dense(const Mat *w, const Mat *at, const StrategyCache *cache, const Measurements *m,
					  Inference inference, double confidence)
{
	DenseState	st;
	StrategyOp	op;

	dense_op(&op, &st, w, at, cache);
	interval_check(confidence, m->parts == 1 && m->laws[0].t > 0.0, w->rows, true);
	CHECK_FOR_INTERRUPTS();
	return mechanism_infer(&op, m, inference, confidence);
}
