/*
 * groups.c -- a residual plan's sensitivity when a unit touches at most g
 * cells (mechanism/groups.h), from its residuals' variances.
 *
 * Residual A is measured from the marginal table M_A x with noise of
 * variance v_A in each coordinate of Pi_A M_A x (measure.c), so over noise
 * the plan is the operator with Gram G = sum_A (x)_{i in A} P_i (x)_{i not
 * in A} J_i / v_A (P_i = I - J_i / n_i the centring of attribute i, J_i all
 * ones): its diagonal is the plan's cost2, sum_A (r_A / N_A) / v_A.
 * B1: G acts on (x)_{i in U} 1-perp (x)_{i not in U} 1 as the number
 * prod_{i not in U} n_i / v_U (only residual U's term is not zero there), so
 * lambda_max(G) = max_A prod_{i not in A} n_i / v_A.
 * B3: |G_jk| <= sum_A prod_{i in A} |P_i[j_i, k_i]| / v_A, whose row has in
 * each attribute i of A the value 1 - 1 / n_i once and 1 / n_i n_i - 1
 * times, and 1 n_i times in the others: the g largest of a row sum to at
 * most sum_A top product / v_A, the same for every row.
 * Laplace plans measure marginal tables whose every column has L1 norm the
 * sum of their weights: only g c bounds them.
 */
#include "postgres.h"

#include <math.h>

#include "mechanism/groups.h"
#include "strategy/residual/residual.h"

double
residual_group_factor(const ResidualWorkload *w, const double *variance, const int *sizes, int d, int g, int p)
{
	GroupsList *lists = palloc(sizeof(GroupsList) * Max(d, 1));
	double		cost2 = 0.0,
				lambda = 0.0,
				rows = 0.0;

	if (p == 1)
		return g;
	for (int i = 0; i < d; i++)
	{
		lists[i].value = palloc(sizeof(double) * 2);
		lists[i].count = palloc(sizeof(double) * 2);
	}
	for (int k = 0; k < w->count; k++)
	{
		const Residual *r = &w->residuals[k];
		double		outside = 1.0;
		int			o = 0;

		if (variance[k] <= 0.0)
			continue;			/* not measured */
		for (int i = 0; i < d; i++)
		{
			if (o < r->order && r->attrs[o] == i)
			{
				/* 1 - 1/n once, then 1/n, n - 1 times (n >= 2 in a residual with rows) */
				lists[i].len = 2;
				lists[i].value[0] = 1.0 - 1.0 / sizes[i];
				lists[i].count[0] = 1.0;
				lists[i].value[1] = 1.0 / sizes[i];
				lists[i].count[1] = sizes[i] - 1.0;
				o++;
			}
			else
			{
				lists[i].len = 1;
				lists[i].value[0] = 1.0;
				lists[i].count[0] = sizes[i];
				outside *= sizes[i];
			}
		}
		cost2 += r->rows / r->cells / variance[k];
		lambda = Max(lambda, outside / variance[k]);
		rows += groups_top_product(lists, d, g) / variance[k];
	}
	return groups_factor(sqrt(g * Min(lambda, rows)), sqrt(cost2), g);
}
