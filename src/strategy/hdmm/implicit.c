/*
 * implicit.c -- measuring, reconstructing and answering with HDMM
 * strategies without any matrix over all the cells, and the operator
 * through which the mechanism (mechanism/operator.h) runs over them.
 *
 * Kronecker strategies A = A_1 x ... x A_d: A x one mode at a time; least
 * squares is x_hat = (A_1^+ x ... x A_d^+) y because the pseudo-inverse of a
 * Kronecker product is the product of the pseudo-inverses; a product query
 * w = w_1 x ... x w_d has profile prod_a w_a M_a w_a^T, M_a = (A_a^T A_a)^+
 * (queries.c evaluates it).
 *
 * Marginals strategies (marginals.c for the algebra): A^T A = sum_s
 * lambda_s P_s with P_s the projector onto V_s, so x_hat = sum_s P_s A^T y /
 * lambda_s, and P_s is a mean or a centring along each attribute; a product
 * query has profile sum_s prod_{a in s} (|w_a|^2 - (sum w_a)^2 / n_a)
 * prod_{a not in s} (sum w_a)^2 / n_a / lambda_s.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "strategy/hdmm/hdmm.h"
#include "mechanism/mechanism.h"

static double
cells(const HdmmStrategy *s)
{
	double		n = 1.0;

	for (int a = 0; a < s->nattrs; a++)
		n *= s->sizes[a];
	return n;
}

/* the marginal b as a Kronecker product: I on its attributes, a row of ones elsewhere */
static Mat **
marginal_factors(const HdmmStrategy *s, int b)
{
	Mat		  **f = palloc(sizeof(Mat *) * s->nattrs);

	for (int a = 0; a < s->nattrs; a++)
	{
		if (b & (1 << a))
			f[a] = mat_identity(s->sizes[a]);
		else
		{
			f[a] = mat_new(1, s->sizes[a]);
			for (int j = 0; j < s->sizes[a]; j++)
				f[a]->data[j] = 1.0;
		}
	}
	return f;
}

static void
free_factors(Mat **f, int d)
{
	for (int a = 0; a < d; a++)
		mat_free(f[a]);
	pfree(f);
}

double
hdmm_sensitivity(const HdmmStrategy *s, int p)
{
	double		sens = 0.0;

	if (s->kind == HDMM_KRONECKER)
	{
		/* a column of a Kronecker product is the product of the factors' columns */
		sens = 1.0;
		for (int a = 0; a < s->nattrs; a++)
			sens *= mat_max_col_norm(s->factors[a], p);
		return sens;
	}
	/* every cell is in exactly one query of each marginal */
	for (int b = 0; b < 1 << s->nattrs; b++)
		sens += p == 1 ? fabs(s->weights[b]) : s->weights[b] * s->weights[b];
	return p == 1 ? sens : sqrt(sens);
}

double *
hdmm_measure(const HdmmStrategy *s, const double *x)
{
	double	   *y;
	size_t		off = 0;

	if (s->kind == HDMM_KRONECKER)
		return mat_kron_apply(s->factors, s->nattrs, x);
	mat_check_size(hdmm_rows(s), 1, "strategy answers");
	y = palloc_extended(sizeof(double) * Max((size_t) hdmm_rows(s), 1), MCXT_ALLOC_HUGE);
	for (int b = 0; b < 1 << s->nattrs; b++)
	{
		Mat		  **f;
		double	   *m;
		size_t		r = (size_t) hdmm_marginal_rows(s, b);

		CHECK_FOR_INTERRUPTS();
		if (s->weights[b] == 0.0)
			continue;
		f = marginal_factors(s, b);
		m = mat_kron_apply(f, s->nattrs, x);
		for (size_t i = 0; i < r; i++)
			y[off + i] = s->weights[b] * m[i];
		off += r;
		pfree(m);
		free_factors(f, s->nattrs);
	}
	return y;
}

/* z := P_s z in place: the mean along each attribute outside s, centring along those in s */
static void
project(const HdmmStrategy *s, int set, double *z)
{
	size_t		n = (size_t) cells(s);
	size_t		right = n;

	for (int a = 0; a < s->nattrs; a++)
	{
		size_t		k = s->sizes[a],
					left;

		right /= k;
		left = n / (k * right);
		for (size_t l = 0; l < left; l++)
		{
			CHECK_FOR_INTERRUPTS();
			for (size_t r = 0; r < right; r++)
			{
				double	   *v = z + l * k * right + r;
				double		mean = 0.0;

				for (size_t i = 0; i < k; i++)
					mean += v[i * right];
				mean /= k;
				for (size_t i = 0; i < k; i++)
					v[i * right] = (set & (1 << a)) ? v[i * right] - mean : mean;
			}
		}
	}
}

static double *
marginal_lambdas(const HdmmStrategy *s)
{
	int			count = 1 << s->nattrs;
	double	   *lambda = palloc0(sizeof(double) * count);

	for (int set = 0; set < count; set++)
		for (int b = set; b < count; b = (b + 1) | set)
			lambda[set] += s->weights[b] * s->weights[b] * cells(s) / hdmm_marginal_rows(s, b);
	return lambda;
}

/* the transpose of each of f's d factors, in place */
static void
transpose_factors(Mat **f, int d)
{
	for (int a = 0; a < d; a++)
	{
		Mat		   *t = mat_new(f[a]->cols, f[a]->rows);

		for (int j = 0; j < f[a]->cols; j++)
			for (int i = 0; i < f[a]->rows; i++)
				MAT(t, j, i) = MAT(f[a], i, j);
		mat_free(f[a]);
		f[a] = t;
	}
}

double *
hdmm_measure_t(const HdmmStrategy *s, const double *y)
{
	size_t		n = (size_t) cells(s);
	double	   *aty;
	size_t		off = 0;

	if (s->kind == HDMM_KRONECKER)
	{
		Mat		  **f = palloc(sizeof(Mat *) * s->nattrs);

		for (int a = 0; a < s->nattrs; a++)
			f[a] = mat_copy(s->factors[a]);
		transpose_factors(f, s->nattrs);
		aty = mat_kron_apply(f, s->nattrs, y);
		free_factors(f, s->nattrs);
		return aty;
	}
	/* each marginal's answers spread back over its cells */
	aty = palloc_extended(sizeof(double) * n, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	for (int b = 0; b < 1 << s->nattrs; b++)
	{
		Mat		  **f;
		double	   *back;
		size_t		r = (size_t) hdmm_marginal_rows(s, b);

		CHECK_FOR_INTERRUPTS();
		if (s->weights[b] == 0.0)
			continue;
		f = marginal_factors(s, b);
		transpose_factors(f, s->nattrs);
		back = mat_kron_apply(f, s->nattrs, y + off);
		for (size_t i = 0; i < n; i++)
			aty[i] += s->weights[b] * back[i];
		off += r;
		pfree(back);
		free_factors(f, s->nattrs);
	}
	return aty;
}

HdmmInverse *
hdmm_inverse(const HdmmStrategy *s)
{
	HdmmInverse *inv = palloc0(sizeof(HdmmInverse));

	inv->s = s;
	if (s->kind == HDMM_MARGINALS)
	{
		inv->lambda = marginal_lambdas(s);
		return inv;
	}
	inv->pinv = palloc(sizeof(Mat *) * Max(s->nattrs, 1));
	inv->cov = palloc(sizeof(Mat *) * Max(s->nattrs, 1));
	for (int a = 0; a < s->nattrs; a++)
	{
		CHECK_FOR_INTERRUPTS();
		inv->pinv[a] = mat_pinv(s->factors[a]);
		/* (A^T A)^+ = A^+ (A^+)^T */
		inv->cov[a] = mat_mul(inv->pinv[a], false, inv->pinv[a], true);
	}
	return inv;
}

void
hdmm_inverse_free(HdmmInverse *inv)
{
	if (inv->pinv)
	{
		free_factors(inv->pinv, inv->s->nattrs);
		free_factors(inv->cov, inv->s->nattrs);
	}
	if (inv->lambda)
		pfree(inv->lambda);
	pfree(inv);
}

double *
hdmm_solve(const HdmmInverse *inv, const double *y)
{
	const HdmmStrategy *s = inv->s;
	size_t		n = (size_t) cells(s);
	double	   *aty,
			   *x,
			   *z;

	if (s->kind == HDMM_KRONECKER)
		return mat_kron_apply(inv->pinv, s->nattrs, y);

	aty = hdmm_measure_t(s, y);

	/* x_hat = sum_s P_s A^T y / lambda_s, each projection made in z */
	x = palloc_extended(sizeof(double) * n, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	z = palloc_extended(sizeof(double) * n, MCXT_ALLOC_HUGE);
	for (int set = 0; set < 1 << s->nattrs; set++)
	{
		CHECK_FOR_INTERRUPTS();
		if (!(inv->lambda[set] > 0.0))
			continue;			/* A^T y has no part there */
		memcpy(z, aty, sizeof(double) * n);
		project(s, set, z);
		for (size_t i = 0; i < n; i++)
			x[i] += z[i] / inv->lambda[set];
	}
	pfree(z);
	pfree(aty);
	return x;
}

/* the HDMM strategy as the mechanism's operator (mechanism/operator.h) */
typedef struct HdmmOpState
{
	const HdmmStrategy *s;
	HdmmInverse *inv;
	const KronGram *kg;
	WorkloadBlock ***blocks;
	double		m;
} HdmmOpState;

static ExactAnswers *
hdmm_op_measure(const StrategyOp *op, const int64 *x, int norm, double *sens)
{
	const HdmmOpState *st = op->state;
	ExactAnswers *exact = hdmm_measure_exact(st->s, x);

	*sens = hdmm_sensitivity_bound(st->s, norm);
	return exact;
}

static Mat *
hdmm_op_solve(const StrategyOp *op, const Mat *y)
{
	const HdmmOpState *st = op->state;
	Mat		   *xt;

	if (y->cols == 1)
	{
		/* one reconstruction: hdmm_solve's vector is the 1 x cells result, no copy */
		xt = palloc(sizeof(Mat));
		xt->rows = 1;
		xt->cols = (int) op->cells;
		xt->data = hdmm_solve(st->inv, y->data);
		return xt;
	}
	xt = mat_new_uninit(y->cols, (int) op->cells);
	for (int t = 0; t < y->cols; t++)
	{
		double	   *x = hdmm_solve(st->inv, &MAT(y, 0, t));

		for (size_t i = 0; i < op->cells; i++)
			MAT(xt, t, i) = x[i];
		pfree(x);
	}
	return xt;
}

static double *
hdmm_op_answer(const StrategyOp *op, const double *x)
{
	const HdmmOpState *st = op->state;

	return hdmm_workload_apply(st->kg, st->blocks, st->m, x);
}

static void
hdmm_apply(const void *ctx, const double *x, double *y)
{
	const HdmmStrategy *s = ctx;
	double	   *v = hdmm_measure(s, x);

	memcpy(y, v, sizeof(double) * (size_t) hdmm_rows(s));
	pfree(v);
}

static void
hdmm_apply_t(const void *ctx, const double *y, double *x)
{
	const HdmmStrategy *s = ctx;
	double	   *v = hdmm_measure_t(s, y);

	memcpy(x, v, sizeof(double) * (size_t) cells(s));
	pfree(v);
}

static void
hdmm_op_linop(const StrategyOp *op, LinOp *lin)
{
	const HdmmOpState *st = op->state;

	*lin = (LinOp) {op->rows, op->cells, hdmm_apply, hdmm_apply_t, st->s};
}

static void
hdmm_op_half_from_cells(const StrategyOp *op, const double *xd, int draws, int k, double *half)
{
	const HdmmOpState *st = op->state;

	hdmm_interval_from_cells(st->kg, st->blocks, xd, draws, k, half);
}

static double
hdmm_op_block_doubles(const StrategyOp *op, int draws)
{
	const HdmmOpState *st = op->state;

	return hdmm_error_block_doubles(st->kg, st->blocks, draws);
}

/*
 * The operator of an HDMM strategy; with the workload (kg not NULL) it can
 * also answer, every query checked answerable (its profile) here.
 */
static void
hdmm_op(StrategyOp *op, HdmmOpState *st, const HdmmStrategy *s, const KronGram *kg,
		WorkloadBlock ***blocks, double m)
{
	double		rows = hdmm_rows(s);

	mat_check_size(rows, 1, "strategy answers");
	*st = (HdmmOpState) {s, NULL, kg, blocks, m};
	*op = (StrategyOp) {0};
	op->rows = (size_t) rows;
	op->cells = (size_t) cells(s);
	op->batched = false;		/* no matrix over the cells to batch the draws through */
	op->measure = hdmm_op_measure;
	op->state = st;
	if (kg == NULL)
		return;
	/* the factors' pseudo-inverses once, for the profile, the answers and every simulated draw */
	st->inv = hdmm_inverse(s);
	op->queries = (size_t) m;
	op->profile = hdmm_profile(st->inv, kg, blocks, m);
	op->solve = hdmm_op_solve;
	op->answer = hdmm_op_answer;
	op->linop = hdmm_op_linop;
	op->half_from_cells = hdmm_op_half_from_cells;
	op->block_doubles = hdmm_op_block_doubles;
}

static void
hdmm_op_free(StrategyOp *op, HdmmOpState *st)
{
	if (st->inv == NULL)
		return;
	pfree((double *) op->profile);
	hdmm_inverse_free(st->inv);
}

Release *
hdmm_mechanism_run(const HdmmStrategy *s, const KronGram *kg, WorkloadBlock ***blocks, double m,
				   const double *x, double epsilon, double delta, double rho, double sens_scale,
				   Inference inference, double confidence)
{
	HdmmOpState st;
	StrategyOp	op;
	int64	   *counts = exact_counts(x, (int) cells(s));
	Release    *rel;

	interval_check(confidence, MECHANISM_LAPLACE(delta, rho), (size_t) m, false);
	/* every query answerable, before any noise exists */
	hdmm_op(&op, &st, s, kg, blocks, m);
	rel = mechanism_run(&op, counts, epsilon, delta, rho, sens_scale, inference, confidence);
	pfree(counts);
	hdmm_op_free(&op, &st);
	return rel;
}

Measurements *
hdmm_mechanism_measure(const HdmmStrategy *s, const double *x, double epsilon, double delta, double rho,
					   double sens_scale)
{
	HdmmOpState st;
	StrategyOp	op;
	int64	   *counts = exact_counts(x, (int) cells(s));
	Measurements *meas;

	hdmm_op(&op, &st, s, NULL, NULL, 0);
	meas = mechanism_measure(&op, counts, epsilon, delta, rho, sens_scale);
	pfree(counts);
	return meas;
}

Release *
hdmm_mechanism_infer(const HdmmStrategy *s, const KronGram *kg, WorkloadBlock ***blocks, double m,
					 const Measurements *meas, Inference inference, double confidence)
{
	HdmmOpState st;
	StrategyOp	op;
	Release    *rel;

	interval_check(confidence, meas->parts == 1 && meas->laws[0].t > 0.0, (size_t) m, false);
	hdmm_op(&op, &st, s, kg, blocks, m);
	rel = mechanism_infer(&op, meas, inference, confidence);
	hdmm_op_free(&op, &st);
	return rel;
}
