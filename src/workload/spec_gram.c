/*
 * spec_gram.c -- the Gram matrix W^T W of a workload spec, without building W.
 *
 * The Gram matrix of a Kronecker product is the Kronecker product of the
 * blocks' Gram matrices, and that of a union the sum over its terms; the
 * blocks with many rows have closed forms (cells a, b of k, from 0):
 * Prefix: k - max(a, b); AllRange: (min(a, b) + 1) (k - max(a, b)).  So
 * AllRange(2048), 2.1 million queries, costs one 2048 x 2048 matrix.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "workload/workload.h"

/*
 * The Gram matrix of runs, G_ij = the rows whose run holds both i and j:
 * each run adds one on a square of the diagonal, marked at its four corners
 * and summed out by 2-D prefix sums, O(rows + k^2) (Hierarchical, Ranges).
 */
static Mat *
runs_gram(const WorkloadBlock *b)
{
	int			k = b->size;
	Mat		   *g = mat_new(k + 1, k + 1);
	Mat		   *out;

	for (int r = 0; r < (int) b->rows; r++)
	{
		MAT(g, b->lo[r], b->lo[r]) += 1.0;
		MAT(g, b->lo[r], b->hi[r]) -= 1.0;
		MAT(g, b->hi[r], b->lo[r]) -= 1.0;
		MAT(g, b->hi[r], b->hi[r]) += 1.0;
	}
	for (int j = 0; j <= k; j++)
	{
		CHECK_FOR_INTERRUPTS();
		for (int i = 1; i <= k; i++)
			MAT(g, i, j) += MAT(g, i - 1, j);
	}
	out = mat_new(k, k);
	for (int j = 0; j < k; j++)
	{
		CHECK_FOR_INTERRUPTS();
		for (int i = 0; i < k; i++)
			MAT(out, i, j) = MAT(g, i, j) + (j > 0 ? MAT(out, i, j - 1) : 0.0);
	}
	mat_free(g);
	return out;
}

static Mat *
block_gram(WorkloadBlock *b)
{
	int			k = b->size;
	Mat		   *g;

	switch (b->kind)
	{
		case BLOCK_IDENTITY:
			return mat_identity(k);
		case BLOCK_TOTAL:
			g = mat_new(k, k);
			for (size_t i = 0; i < (size_t) k * k; i++)
				g->data[i] = 1.0;
			return g;
		case BLOCK_PREFIX:
			g = mat_new(k, k);
			for (int j = 0; j < k; j++)
				for (int i = 0; i < k; i++)
					MAT(g, i, j) = k - Max(i, j);
			return g;
		case BLOCK_ALLRANGE:
			g = mat_new(k, k);
			for (int j = 0; j < k; j++)
				for (int i = 0; i < k; i++)
					MAT(g, i, j) = (double) (Min(i, j) + 1) * (k - Max(i, j));
			return g;
		default:
			return workload_block_runs(b) ? runs_gram(b) : mat_gram(workload_block_matrix(b));
	}
}

Mat *
workload_gram(const WorkloadDomain *dom, List *terms)
{
	Mat		   *g;
	ListCell   *lc;

	workload_require_dense(dom, "the workload's Gram matrix");
	mat_check_size(dom->cells, dom->cells, "workload Gram matrix");
	g = mat_new(dom->cells, dom->cells);
	foreach(lc, terms)
	{
		WorkloadTerm *t = lfirst(lc);
		Mat		   *term = NULL;

		for (int a = 0; a < dom->nattrs; a++)
		{
			Mat		   *bg;

			CHECK_FOR_INTERRUPTS();
			if (t->blocks[a])
				bg = block_gram(t->blocks[a]);
			else
			{
				/* the attributes a term does not mention are summed over */
				WorkloadBlock *tb = workload_block_new(BLOCK_TOTAL, dom->attrs[a].size, 0);

				bg = block_gram(tb);
			}
			if (term == NULL)
				term = bg;
			else
			{
				Mat		   *next = mat_kron(term, bg);

				mat_free(term);
				mat_free(bg);
				term = next;
			}
		}
		for (size_t i = 0; i < (size_t) dom->cells * dom->cells; i++)
			g->data[i] += t->weight * t->weight * term->data[i];
		mat_free(term);
	}
	return g;
}

KronGram *
workload_kron_gram(const WorkloadDomain *dom, List *terms)
{
	KronGram   *kg = palloc(sizeof(KronGram));
	int			t = 0;
	ListCell   *lc;

	kg->nattrs = dom->nattrs;
	kg->nterms = list_length(terms);
	kg->factors = palloc(sizeof(Mat **) * Max(kg->nterms, 1));
	kg->kinds = palloc(sizeof(BlockKind *) * Max(kg->nterms, 1));
	kg->weights = palloc(sizeof(double) * Max(kg->nterms, 1));
	kg->sizes = palloc(sizeof(int) * Max(dom->nattrs, 1));
	for (int a = 0; a < dom->nattrs; a++)
		kg->sizes[a] = dom->attrs[a].size;
	foreach(lc, terms)
	{
		WorkloadTerm *term = lfirst(lc);

		kg->factors[t] = palloc(sizeof(Mat *) * Max(dom->nattrs, 1));
		kg->kinds[t] = palloc(sizeof(BlockKind) * Max(dom->nattrs, 1));
		for (int a = 0; a < dom->nattrs; a++)
		{
			WorkloadBlock *b = term->blocks[a] ? term->blocks[a] :
				workload_block_new(BLOCK_TOTAL, dom->attrs[a].size, 0);

			CHECK_FOR_INTERRUPTS();
			kg->factors[t][a] = block_gram(b);
			kg->kinds[t][a] = b->kind;
		}
		kg->weights[t] = term->weight * term->weight;
		if (dom->nattrs > 0 && kg->weights[t] != 1.0)
		{
			Mat		   *f = kg->factors[t][0];

			for (size_t i = 0; i < (size_t) f->rows * f->cols; i++)
				f->data[i] *= kg->weights[t];
		}
		t++;
	}
	return kg;
}

WorkloadBlock ***
workload_blocks(const KronGram *kg, List *terms, double *m)
{
	WorkloadBlock ***blocks = palloc(sizeof(WorkloadBlock **) * Max(kg->nterms, 1));
	int			t = 0;
	ListCell   *lc;

	*m = 0.0;
	foreach(lc, terms)
	{
		WorkloadTerm *term = lfirst(lc);
		double		rows = 1.0;

		blocks[t] = palloc(sizeof(WorkloadBlock *) * Max(kg->nattrs, 1));
		for (int a = 0; a < kg->nattrs; a++)
		{
			WorkloadBlock *b = term->blocks[a] ? term->blocks[a] :
				workload_block_new(BLOCK_TOTAL, kg->sizes[a], 0);

			CHECK_FOR_INTERRUPTS();
			if (!workload_block_runs(b))
				(void) workload_block_matrix(b);
			blocks[t][a] = b;
			rows *= b->rows;
		}
		*m += rows;
		t++;
	}
	return blocks;
}
