/*
 * marginals.c -- a parsed spec read as a set of weighted marginals, the
 * workloads ResidualPlanner answers (residual/residual.h).
 */
#include "postgres.h"

#include "workload/workload.h"

static const char *
block_name(BlockKind kind)
{
	switch (kind)
	{
		case BLOCK_IDENTITY:
			return "Identity";
		case BLOCK_TOTAL:
			return "Total";
		case BLOCK_PREFIX:
			return "Prefix";
		case BLOCK_ALLRANGE:
			return "AllRange";
		case BLOCK_HIERARCHICAL:
			return "Hierarchical";
		case BLOCK_RANGES:
			return "Ranges";
	}
	return "?";
}

void
workload_marginals(const WorkloadDomain *dom, List *terms, int **attrs, int *width, double **weights)
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
			Block	   *b = t->blocks[a];

			if (b == NULL || b->kind == BLOCK_TOTAL)
				continue;
			if (b->kind != BLOCK_IDENTITY)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("term %d of the workload is not a marginal: it has %s on attribute \"%s\" (position %d of the spec)",
								j + 1, block_name(b->kind), dom->attrs[a].name, t->where[a]),
						 errdetail("Residual strategies answer marginals: Identity or Total on every attribute."),
						 errhint("Write it as Marginal(...) or Identity(a) * Identity(b), or use another method on a domain with a dense cell index.")));
			kept++;
		}
		*width = Max(*width, kept);
		j++;
	}
	*attrs = palloc0(sizeof(int) * Max(m, 1) * *width);
	*weights = palloc(sizeof(double) * Max(m, 1));
	j = 0;
	foreach(lc, terms)
	{
		WorkloadTerm *t = lfirst(lc);
		int			c = 0;

		for (int a = 0; a < dom->nattrs; a++)
			if (t->blocks[a] && t->blocks[a]->kind == BLOCK_IDENTITY)
				(*attrs)[j * *width + c++] = a + 1;
		(*weights)[j] = t->weight;
		j++;
	}
}
