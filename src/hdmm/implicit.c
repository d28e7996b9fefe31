/*
 * implicit.c -- measuring, reconstructing and answering with HDMM
 * strategies without any matrix over all the cells.
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

#include "common/pg_prng.h"
#include "miscadmin.h"
#include "portability/instr_time.h"

#include "hdmm/hdmm.h"
#include "mechanism/interval.h"
#include "mechanism/mechanism.h"
#include "progress/progress.h"

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

static double
marginal_rows(const HdmmStrategy *s, int b)
{
	double		r = 1.0;

	for (int a = 0; a < s->nattrs; a++)
		if (b & (1 << a))
			r *= s->sizes[a];
	return r;
}

double
hdmm_rows(const HdmmStrategy *s)
{
	double		rows = 0.0;

	if (s->kind == HDMM_KRONECKER)
	{
		rows = 1.0;
		for (int a = 0; a < s->nattrs; a++)
			rows *= s->factors[a]->rows;
		return rows;
	}
	for (int b = 0; b < 1 << s->nattrs; b++)
		if (s->weights[b] != 0.0)
			rows += marginal_rows(s, b);
	return rows;
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
		size_t		r = (size_t) marginal_rows(s, b);

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
			lambda[set] += s->weights[b] * s->weights[b] * cells(s) / marginal_rows(s, b);
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
		size_t		r = (size_t) marginal_rows(s, b);

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

/*
 * Half-widths from the simulated errors e (m x draws, column-major), a block
 * of queries at a time: a query's draws are a row, m doubles apart, so each
 * block is copied out by columns first (contiguous reads, and a block that
 * stays in cache while its rows are sorted).
 */
#define INTERVAL_QUERIES 512

static void
intervals_from_errors(const Mat *e, int k, double *half)
{
	Mat		   *block = mat_new_uninit(Min(INTERVAL_QUERIES, Max(e->rows, 1)), Max(e->cols, 1));

	for (int first = 0; first < e->rows; first += INTERVAL_QUERIES)
	{
		CHECK_FOR_INTERRUPTS();
		block->rows = Min(INTERVAL_QUERIES, e->rows - first);
		block->cols = e->cols;
		for (int j = 0; j < e->cols; j++)
			memcpy(&MAT(block, 0, j), &MAT(e, first, j), sizeof(double) * block->rows);
		interval_from_errors(block, first, k, half);
	}
	mat_free(block);
}

/*
 * Laplace half-widths by simulating the noise alone (interval.h), one draw at
 * a time through the same reconstruction: no matrix over the cells exists to
 * batch them.  Draws stop after dpm.ci_max_seconds once there are enough for
 * the confidence; the number used is returned in *used.
 *
 * As many draws as dpm.max_matrix_mb holds errors of (queries x draws): that
 * bounds the work of the errors too.  With fewer cells than queries only the
 * draws' reconstructions are kept (cells x draws) and the errors computed a
 * block of queries at a time (queries.c): AllRange over 1024 bins kept 1 GB
 * of errors, where its reconstructions take 2 MB.
 */
static double *
interval_laplace(const HdmmInverse *inv, const KronGram *kg, Block ***blocks, double m, size_t rows,
				 const LaplaceLaw *law, double confidence, int *used)
{
	double		n = cells(inv->s),
				limit = (double) dpm_max_matrix_mb * 1024 * 1024 / sizeof(double);
	int			min_draws = interval_min_draws(confidence),
				draws = dpm_ci_draws,
				j;
	bool		by_cells;
	double	   *kept;
	double	   *z = palloc_extended(sizeof(double) * rows, MCXT_ALLOC_HUGE);
	double	   *half = palloc_extended(sizeof(double) * Max((size_t) m, 1), MCXT_ALLOC_HUGE);
	pg_prng_state rng;
	instr_time	start,
				now;

	mat_check_size(m, min_draws, "simulated errors");
	draws = (int) Min((double) draws, limit / m);
	draws = Max(draws, min_draws);
	/* the cells' buffers (xd and its prefix sums) and a block of errors, each within a quarter */
	by_cells = n < m && n * (draws + 1.0) <= limit / 4 &&
		hdmm_error_block_doubles(kg, blocks, draws) <= limit / 4;
	/* only what is drawn is written, and touched */
	if (by_cells)
		kept = palloc_extended(sizeof(double) * (size_t) n * draws, MCXT_ALLOC_HUGE);
	else
		kept = palloc_extended(sizeof(double) * (size_t) m * draws, MCXT_ALLOC_HUGE);
	interval_seed(&rng);
	INSTR_TIME_SET_CURRENT(start);
	for (j = 0; j < draws; j++)
	{
		double	   *xh;

		CHECK_FOR_INTERRUPTS();
		if (j >= min_draws)
		{
			INSTR_TIME_SET_CURRENT(now);
			INSTR_TIME_SUBTRACT(now, start);
			if (INSTR_TIME_GET_DOUBLE(now) > dpm_ci_max_seconds)
				break;
		}
		progress_update("interval simulation", j, NAN, NAN);
		dpm_simulate_laplace(law, &rng, (int) rows, z);
		xh = hdmm_solve(inv, z);
		if (by_cells)
		{
			/* draws fastest: a cell's draws are contiguous */
			for (size_t i = 0; i < (size_t) n; i++)
				kept[i * draws + j] = xh[i];
		}
		else
		{
			double	   *err = hdmm_workload_apply(kg, blocks, m, xh);

			memcpy(kept + (size_t) m * j, err, sizeof(double) * (size_t) m);
			pfree(err);
		}
		pfree(xh);
	}
	if (by_cells)
	{
		/* a stop before the last draw: close the gaps, the stride becoming j */
		for (size_t i = 1; j < draws && i < (size_t) n; i++)
			memmove(kept + i * j, kept + i * draws, sizeof(double) * j);
		hdmm_interval_from_cells(kg, blocks, kept, j, interval_rank(confidence, j), half);
	}
	else
	{
		/* column-major: the first j columns */
		Mat			e = {(int) m, j, kept};

		intervals_from_errors(&e, interval_rank(confidence, j), half);
	}
	pfree(kept);
	pfree(z);
	*used = j;
	return half;
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
			   *x;

	if (s->kind == HDMM_KRONECKER)
		return mat_kron_apply(inv->pinv, s->nattrs, y);

	aty = hdmm_measure_t(s, y);

	/* x_hat = sum_s P_s A^T y / lambda_s */
	x = palloc_extended(sizeof(double) * n, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	for (int set = 0; set < 1 << s->nattrs; set++)
	{
		double	   *z;

		CHECK_FOR_INTERRUPTS();
		if (!(inv->lambda[set] > 0.0))
			continue;			/* A^T y has no part there */
		z = palloc_extended(sizeof(double) * n, MCXT_ALLOC_HUGE);
		memcpy(z, aty, sizeof(double) * n);
		project(s, set, z);
		for (size_t i = 0; i < n; i++)
			x[i] += z[i] / inv->lambda[set];
		pfree(z);
	}
	pfree(aty);
	return x;
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

Release *
run_hdmm_mechanism(const HdmmStrategy *s, const KronGram *kg, Block ***blocks, double m,
				   const double *x, double epsilon, double delta, double rho, double sens_scale,
				   Inference inference, double confidence)
{
	Release    *rel = palloc0(sizeof(Release));
	LaplaceLaw	law;
	HdmmInverse *inv;
	double	   *profile,
			   *y,
			   *xhat;
	double		rows = hdmm_rows(s);
	int64	   *counts;
	ExactAnswers *exact;
	double		sens;

	mat_check_size(rows, 1, "strategy answers");
	counts = exact_counts(x, (int) cells(s));
	if (confidence != NO_INTERVALS && MECHANISM_LAPLACE(delta, rho))
	{
		(void) interval_rank(confidence, dpm_ci_draws);
		mat_check_size(m, interval_min_draws(confidence), "simulated errors");
	}
	/* the factors' pseudo-inverses once, for the profile, the answers and every simulated draw */
	inv = hdmm_inverse(s);
	/* every query answerable, before any noise exists */
	profile = hdmm_profile(inv, kg, blocks, m);
	/* A x exactly (sampler.c, section 0), noise for the quantized strategy's sensitivity */
	exact = hdmm_measure_exact(s, counts);
	pfree(counts);
	sens = hdmm_sensitivity_bound(s, MECHANISM_LAPLACE(delta, rho) ? 1 : 2);
	y = palloc_extended(sizeof(double) * Max((size_t) rows, 1), MCXT_ALLOC_HUGE);
	rel->noise_var = mechanism_noise(exact, y, scaled_sensitivity(sens, sens_scale), epsilon, delta,
									 rho, &law);
	pfree(exact->data);
	pfree(exact);
	xhat = hdmm_solve(inv, y);
	if (inference != INFERENCE_LS)
	{
		LinOp		op = {(size_t) rows, (size_t) cells(s), hdmm_apply, hdmm_apply_t, s};

		inference_apply(inference, &op, y, xhat);
	}
	pfree(y);
	rel->p = (int) m;
	rel->answers = hdmm_workload_apply(kg, blocks, m, xhat);
	pfree(xhat);
	rel->stderrs = profile;
	for (size_t i = 0; i < (size_t) m; i++)
		rel->stderrs[i] = sqrt(rel->noise_var * profile[i]);
	if (confidence == NO_INTERVALS)
		rel->half = NULL;
	else if (law.t > 0.0)
		rel->half = interval_laplace(inv, kg, blocks, m, (size_t) rows, &law, confidence, &rel->ci_draws);
	else
		rel->half = interval_gaussian(rel->stderrs, (int) m, confidence);
	hdmm_inverse_free(inv);
	return rel;
}
