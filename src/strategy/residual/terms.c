/*
 * terms.c -- the queries of a workload term over its marginal table: the
 * table itself for a plain marginal, else its blocks' rows (ranges,
 * prefixes, ...) along each kept attribute; their answers and their
 * variances from the residuals' (residual.h).  Queries are numbered as the
 * workload numbers them: the Kronecker product of the rows, the last
 * attribute fastest.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "strategy/residual/residual.h"
#include "workload/workload.h"

static WorkloadBlock *
term_block(const ResidualWorkload *w, int j, int b)
{
	return w->blocks ? w->blocks[(size_t) j * w->width + b] : NULL;
}

/* the rows of term j on its b-th kept attribute: the block's, or the n bins of Identity */
static int
term_rows(const ResidualWorkload *w, int j, int b, const int *sizes)
{
	WorkloadBlock *blk = term_block(w, j, b);

	return blk ? (int) blk->rows : sizes[residual_of_marginal(w, j)->attrs[b]];
}

double
residual_term_queries(const ResidualWorkload *w, int j, const int *sizes)
{
	double		q = 1.0;

	for (int b = 0; b < residual_of_marginal(w, j)->order; b++)
		q *= term_rows(w, j, b, sizes);
	return q;
}

/*
 * The variance of query (r_b) of term j with marginal S: its rows b_r
 * applied to x^_S = sum_{A in S} y^_A (x) 1 / N_{S \ A}, where y^_A has
 * covariance V_A Pi_A, is
 *   sum_A V_A prod_{b in A} u_b[r_b] prod_{b in S \ A} v_b[r_b]
 * (u, v as in residual.h; for Identity rows, 1 - 1/n and 1/n^2, the same
 * for every cell).
 */
void
residual_term_variances(const ResidualWorkload *w, int j, const int *sizes, const double *variance,
						double *out)
{
	const Residual *s = residual_of_marginal(w, j);
	int			k = s->order;
	int			shape[RESIDUAL_MAX_ORDER];
	bool		plain = true;
	size_t		queries = 1;

	for (int b = 0; b < k; b++)
	{
		shape[b] = term_rows(w, j, b, sizes);
		plain &= term_block(w, j, b) == NULL;
		queries *= (size_t) shape[b];
	}
	for (size_t q = 0; q < queries; q++)
	{
		size_t		rest = q;
		int			r[RESIDUAL_MAX_ORDER];
		double		var = 0.0;

		if (plain && q > 0)
		{
			out[q] = out[0];
			continue;
		}
		if ((q & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		for (int b = k - 1; b >= 0; b--)
		{
			r[b] = (int) (rest % shape[b]);
			rest /= shape[b];
		}
		for (int p = w->first[j]; p < w->first[j + 1]; p++)
		{
			const Residual *a = &w->residuals[w->member[p]];
			double		term = variance[w->member[p]];

			if (term == 0.0)
				continue;
			/* A's attributes are among S's, both increasing */
			for (int b = 0, i = 0; b < k; b++)
			{
				WorkloadBlock *blk = term_block(w, j, b);
				bool		kept = i < a->order && a->attrs[i] == s->attrs[b];
				double		n = sizes[s->attrs[b]];

				if (kept)
					i++;
				if (blk)
					term *= kept ? w->u[(size_t) j * w->width + b][r[b]] : w->v[(size_t) j * w->width + b][r[b]];
				else
					term *= kept ? 1.0 - 1.0 / n : 1.0 / (n * n);
			}
			var += term;
		}
		out[q] = var;
	}
}

void
residual_term_answers(const ResidualWorkload *w, int j, const int *sizes, const double *table, double *out)
{
	const Residual *s = residual_of_marginal(w, j);
	int			k = s->order;
	int			shape[RESIDUAL_MAX_ORDER];
	size_t		total = (size_t) s->cells;
	double	   *cur = palloc(sizeof(double) * Max(total, 1));

	memcpy(cur, table, sizeof(double) * total);
	for (int b = 0; b < k; b++)
		shape[b] = sizes[s->attrs[b]];
	/* one attribute at a time: each line along it becomes the block's rows */
	for (int b = 0; b < k; b++)
	{
		WorkloadBlock *blk = term_block(w, j, b);
		size_t		outer = 1,
					inner = 1,
					next;
		double	   *nxt;

		if (blk == NULL)
			continue;
		for (int i = 0; i < b; i++)
			outer *= shape[i];
		for (int i = b + 1; i < k; i++)
			inner *= shape[i];
		next = outer * (size_t) blk->rows * inner;
		nxt = palloc(sizeof(double) * Max(next, 1));
		for (size_t o = 0; o < outer; o++)
		{
			CHECK_FOR_INTERRUPTS();
			for (size_t i = 0; i < inner; i++)
				workload_block_apply(blk, cur + o * shape[b] * inner + i, (int) inner,
									 nxt + o * (size_t) blk->rows * inner + i, (int) inner);
		}
		pfree(cur);
		cur = nxt;
		shape[b] = (int) blk->rows;
		total = next;
	}
	memcpy(out, cur, sizeof(double) * total);
	pfree(cur);
}
