/*
 * hierarchical.c -- the hierarchical strategy H_n (Hay et al.; Li et al., PODS 2010, Example 2).
 *
 * A tree over the cells: the root counts everything, each node is split into
 * `branching` contiguous children of nearly equal size (larger ones first)
 * until single cells.  Any n works, not only powers of the branching factor.
 * Rows are listed level by level, so for n = 4 the result is the paper's H_4.
 * Every cell lies on one root-to-leaf path, so the L1 sensitivity is the
 * height of the tree.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "strategy/dense/fixed.h"

typedef struct Node
{
	int			lo;
	int			hi;				/* cells [lo, hi) */
} Node;

Mat *
strategy_hierarchical(int n, int branching)
{
	/* a tree with n leaves and >= 2 children per internal node has < 2n nodes */
	Node	   *queue = palloc(sizeof(Node) * 2 * (size_t) Max(n, 1));
	int			head = 0,
				tail = 0;
	Mat		   *a;

	Assert(branching >= 2);
	queue[tail++] = (Node) {0, n};
	while (head < tail)
	{
		Node		nd = queue[head++];
		int			len = nd.hi - nd.lo;
		int			parts = Min(branching, len);
		int			start = nd.lo;

		if (len <= 1)
			continue;
		for (int c = 0; c < parts; c++)
		{
			int			size = len / parts + (c < len % parts ? 1 : 0);

			queue[tail++] = (Node) {start, start + size};
			start += size;
		}
	}

	a = mat_new(tail, n);
	for (int r = 0; r < tail; r++)
	{
		CHECK_FOR_INTERRUPTS();
		for (int j = queue[r].lo; j < queue[r].hi; j++)
			MAT(a, r, j) = 1.0;
	}
	pfree(queue);
	return a;
}
