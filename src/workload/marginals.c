/*
 * marginals.c -- a parsed spec read as a set of weighted marginals, the
 * workloads ResidualPlanner answers (strategy/residual/residual.h), whose kept
 * attributes may carry other blocks than Identity (queries over the
 * marginal's table, such as its ranges or prefixes).
 */
#include "postgres.h"

#include "workload/workload.h"

void
workload_marginals(const WorkloadDomain *dom, List *terms, int **attrs, int *width, double **weights,
				   WorkloadBlock ***blocks)
{
	int			m = list_length(terms),
				j = 0;
	ListCell   *lc;

	*width = 1;
	foreach(lc, terms)
	{
		WorkloadTerm *t = lfirst(lc);
		int			kept = 0;

		for (int a = 0; a < dom->nattrs; a++)
		{
			WorkloadBlock *b = t->blocks[a];

			if (b != NULL && b->kind != BLOCK_TOTAL)
				kept++;
		}
		*width = Max(*width, kept);
	}
	*attrs = palloc0(sizeof(int) * Max(m, 1) * *width);
	*weights = palloc(sizeof(double) * Max(m, 1));
	*blocks = palloc0(sizeof(WorkloadBlock *) * Max(m, 1) * *width);
	foreach(lc, terms)
	{
		WorkloadTerm *t = lfirst(lc);
		int			c = 0;

		for (int a = 0; a < dom->nattrs; a++)
		{
			WorkloadBlock *b = t->blocks[a];

			if (b == NULL || b->kind == BLOCK_TOTAL)
				continue;
			if (b->kind != BLOCK_IDENTITY)
				(*blocks)[j * *width + c] = b;
			(*attrs)[j * *width + c++] = a + 1;
		}
		(*weights)[j] = t->weight;
		j++;
	}
}

void
workload_block_moments(WorkloadBlock *b, double *sq, double *sum)
{
	int			rows = (int) b->rows;

	if (workload_block_runs(b))
	{
		for (int r = 0; r < rows; r++)
			sq[r] = sum[r] = b->hi[r] - b->lo[r];
		return;
	}
	{
		Mat		   *mat = workload_block_matrix(b);

		for (int r = 0; r < rows; r++)
		{
			sq[r] = sum[r] = 0.0;
			for (int c = 0; c < b->size; c++)
			{
				sq[r] += MAT(mat, r, c) * MAT(mat, r, c);
				sum[r] += MAT(mat, r, c);
			}
		}
	}
}

void
workload_block_apply(WorkloadBlock *b, const double *x, int stride, double *out, int out_stride)
{
	int			rows = (int) b->rows;

	if (workload_block_runs(b))
	{
		/* a run's sum from the running sums of the line */
		double	   *run = palloc(sizeof(double) * (b->size + 1));

		run[0] = 0.0;
		for (int c = 0; c < b->size; c++)
			run[c + 1] = run[c] + x[(size_t) c * stride];
		for (int r = 0; r < rows; r++)
			out[(size_t) r * out_stride] = run[b->hi[r]] - run[b->lo[r]];
		pfree(run);
		return;
	}
	{
		Mat		   *mat = workload_block_matrix(b);

		for (int r = 0; r < rows; r++)
		{
			double		acc = 0.0;

			for (int c = 0; c < b->size; c++)
				acc += MAT(mat, r, c) * x[(size_t) c * stride];
			out[(size_t) r * out_stride] = acc;
		}
	}
}
