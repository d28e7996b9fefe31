/*
 * interval.c -- confidence intervals for release answers; see interval.h.
 */
#include "postgres.h"

#include <math.h>

#include "common/pg_prng.h"
#include "miscadmin.h"
#include "port.h"
#include "portability/instr_time.h"
#include "utils/memutils.h"

#include "mechanism/interval.h"
#include "progress/progress.h"

int			dpm_ci_draws = 1000;
double		dpm_ci_max_seconds = 5.0;

/* rows of W multiplied at once: keeps the block of simulated errors small */
#define INTERVAL_BLOCK 1024
/* queries whose kept errors are copied out and sorted at once */
#define ERROR_BLOCK 512

/*
 * Bisection on the normal CDF written with erfc, which stays accurate in both
 * tails; 200 halvings of [-40, 40] reach double precision.  Neither libm nor
 * PostgreSQL has an inverse, and this is called a handful of times.
 */
double
interval_normal_quantile(double p)
{
	double		lo = -40.0,
				hi = 40.0;

	for (int i = 0; i < 200 && hi - lo > 0; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (0.5 * erfc(-mid / M_SQRT2) < p)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

int
interval_min_draws(double confidence)
{
	return (int) ceil(confidence / (1.0 - confidence) - 1e-9);
}

int
interval_rank(double confidence, int draws)
{
	double		k;

	if (!(confidence > 0.0 && confidence < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("confidence must be between 0 and 1 (exclusive), got %g", confidence)));
	k = ceil(confidence * (draws + 1.0));
	if (k > draws)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("confidence %g needs more than %d simulated draws of the noise", confidence, draws),
				 errhint("Raise dpm.ci_draws to at least %d, or ask for a lower confidence.",
						 interval_min_draws(confidence))));
	return (int) k;
}

double *
interval_gaussian(const double *stderrs, int p, double confidence)
{
	double		z = interval_normal_quantile(0.5 + 0.5 * confidence);
	double	   *half = palloc(sizeof(double) * Max(p, 1));

	for (int i = 0; i < p; i++)
		half[i] = z * stderrs[i];
	return half;
}

void
interval_seed(pg_prng_state *rng)
{
	uint64		seed;

	/* the simulation needs no secrecy, only a seed that differs per release */
	if (!pg_strong_random(&seed, sizeof(seed)))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not generate a random seed")));
	pg_prng_seed(rng, seed);
}

/* Hoare's selection: the k-th smallest (1-based) of v[0 .. n-1], reordering v */
static double
select_kth(double *v, int n, int k)
{
	int			lo = 0,
				hi = n - 1,
				target = k - 1;

	while (lo < hi)
	{
		double		pivot = v[lo + (hi - lo) / 2];
		int			i = lo,
					j = hi;

		while (i <= j)
		{
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j)
			{
				double		t = v[i];

				v[i] = v[j];
				v[j] = t;
				i++;
				j--;
			}
		}
		if (target <= j)
			hi = j;
		else if (target >= i)
			lo = i;
		else
			break;
	}
	return v[target];
}

void
interval_from_errors(const Mat *e, int first, int k, double *half)
{
	double	   *row = palloc(sizeof(double) * e->cols);

	for (int i = 0; i < e->rows; i++)
	{
		for (int j = 0; j < e->cols; j++)
			row[j] = fabs(MAT(e, i, j));
		half[first + i] = select_kth(row, e->cols, k);
	}
	pfree(row);
}

void
interval_check(double confidence, bool laplace, size_t queries, bool batched)
{
	if (confidence == NO_INTERVALS || !laplace)
		return;
	(void) interval_rank(confidence, dpm_ci_draws);
	if (!batched)
		mat_check_size((double) queries, interval_min_draws(confidence), "simulated errors");
}

/*
 * Half-widths from the simulated errors e (m x draws, column-major), a block
 * of queries at a time: a query's draws are a row, m doubles apart, so each
 * block is copied out by columns first (contiguous reads, and a block that
 * stays in cache while its rows are sorted).
 */
void
interval_half_from_errors(const Mat *e, int k, double *half)
{
	Mat		   *block = mat_new_uninit(Min(ERROR_BLOCK, Max(e->rows, 1)), Max(e->cols, 1));

	for (int first = 0; first < e->rows; first += ERROR_BLOCK)
	{
		CHECK_FOR_INTERRUPTS();
		block->rows = Min(ERROR_BLOCK, e->rows - first);
		block->cols = e->cols;
		for (int j = 0; j < e->cols; j++)
			memcpy(&MAT(block, 0, j), &MAT(e, first, j), sizeof(double) * block->rows);
		interval_from_errors(block, first, k, half);
	}
	mat_free(block);
}

/*
 * Draw j, whose noise z holds, reconstructed into kept: the reconstruction
 * itself (by_cells: cells x draws, draws fastest, so that a cell's draws are
 * contiguous) or its errors W x_hat (queries x draws, column-major).
 */
static void
keep_draw(const StrategyOp *op, const Mat *z, int j, int draws, bool by_cells, double *kept)
{
	double	   *x = op->solve(op, z)->data;

	if (by_cells)
	{
		for (size_t i = 0; i < op->cells; i++)
			kept[i * draws + j] = x[i];
	}
	else
		memcpy(kept + op->queries * j, op->answer(op, x), sizeof(double) * op->queries);
}

/*
 * A batched operator reconstructs all dpm.ci_draws draws in one matrix
 * product (about the cost of the standard errors themselves) and keeps the
 * reconstructions.  Otherwise draws go one at a time and stop after
 * dpm.ci_max_seconds once there are enough for the confidence; there are as
 * many as dpm.max_matrix_mb holds errors of (queries x draws), which bounds
 * the work of the errors too.  With fewer cells than queries only the
 * draws' reconstructions are kept (cells x draws) and the operator computes
 * the errors a block of queries at a time: AllRange over 1024 bins kept 1 GB
 * of errors, where its reconstructions take 2 MB.
 */
double *
interval_laplace(const StrategyOp *op, const LaplaceLaw *law, double confidence, int *used)
{
	double		n = op->cells,
				m = op->queries,
				limit = (double) dpm_max_matrix_mb * 1024 * 1024 / sizeof(double);
	int			min_draws = interval_min_draws(confidence),
				draws = dpm_ci_draws,
				j;
	bool		by_cells;
	double	   *kept = NULL;
	double	   *half = palloc_extended(sizeof(double) * Max((size_t) m, 1), MCXT_ALLOC_HUGE);
	Mat		   *z;
	pg_prng_state rng;
	instr_time	start,
				now;
	MemoryContext draw_cxt,
				old_cxt;

	if (!op->batched)
	{
		mat_check_size(m, min_draws, "simulated errors");
		draws = (int) Min((double) draws, limit / m);
		draws = Max(draws, min_draws);
	}
	/* the cells' buffers (xd and its prefix sums) and a block of errors, each within a quarter */
	by_cells = op->batched ||
		(n < m && n * (draws + 1.0) <= limit / 4 && op->block_doubles(op, draws) <= limit / 4);
	z = mat_new_uninit((int) op->rows, op->batched ? draws : 1);
	/* only what is drawn is written, and touched */
	if (!op->batched)
		kept = palloc_extended(sizeof(double) * (size_t) (by_cells ? n : m) * draws, MCXT_ALLOC_HUGE);
	/* what reconstructing a draw allocates goes with it */
	draw_cxt = mat_loop_context("interval simulation draw");
	interval_seed(&rng);
	INSTR_TIME_SET_CURRENT(start);
	for (j = 0; j < draws; j += z->cols)
	{
		CHECK_FOR_INTERRUPTS();
		if (!op->batched && j >= min_draws)
		{
			INSTR_TIME_SET_CURRENT(now);
			INSTR_TIME_SUBTRACT(now, start);
			if (INSTR_TIME_GET_DOUBLE(now) > dpm_ci_max_seconds)
				break;
		}
		progress_update("interval simulation", j, NAN, NAN);
		for (int t = 0; t < z->cols; t++)
		{
			CHECK_FOR_INTERRUPTS();
			dpm_simulate_laplace(law, &rng, z->rows, &MAT(z, 0, t));
		}
		if (op->batched)
		{
			/* every draw at once: their reconstructions, draws fastest, are what is kept */
			Mat		   *xt = op->solve(op, z);

			kept = xt->data;
			pfree(xt);
			continue;
		}
		old_cxt = MemoryContextSwitchTo(draw_cxt);
		keep_draw(op, z, j, draws, by_cells, kept);
		MemoryContextSwitchTo(old_cxt);
		MemoryContextReset(draw_cxt);
	}
	MemoryContextDelete(draw_cxt);
	if (by_cells)
	{
		/* a stop before the last draw: close the gaps, the stride becoming j */
		for (size_t i = 1; j < draws && i < (size_t) n; i++)
			memmove(kept + i * j, kept + i * draws, sizeof(double) * j);
		op->half_from_cells(op, kept, j, interval_rank(confidence, j), half);
	}
	else
	{
		/* column-major: the first j columns */
		Mat			e = {(int) m, j, kept};

		interval_half_from_errors(&e, interval_rank(confidence, j), half);
	}
	pfree(kept);
	mat_free(z);
	*used = j;
	return half;
}

void
interval_half_dense(const Mat *w, const double *xd, int draws, int k, double *half)
{
	int			n = w->cols;
	/* X^T, draws x n: the layout xd has */
	Mat			xt = {draws, n, (double *) xd};

	for (int first = 0; first < w->rows; first += INTERVAL_BLOCK)
	{
		int			rows = Min(INTERVAL_BLOCK, w->rows - first);
		Mat		   *wb = mat_new(rows, n),
				   *e;

		CHECK_FOR_INTERRUPTS();
		for (int j = 0; j < n; j++)
			memcpy(&MAT(wb, 0, j), &MAT(w, first, j), sizeof(double) * rows);
		e = mat_mul(wb, false, &xt, true);
		interval_from_errors(e, first, k, half);
		mat_free(wb);
		mat_free(e);
	}
}
