/*
 * groups.c -- an HDMM strategy's sensitivity when a unit touches at most g
 * cells (mechanism/groups.h), from its parameters, never its matrix.
 *
 * Kronecker product A = (x)_a A_a: a column is the product of the factors'
 * columns, so its norm is the product of theirs (B2: the g largest products);
 * lambda_max(A^T A) is the product of the factors' (B1); |A^T A| is
 * (x)_a |A_a^T A_a|, whose rows are products of the factors' rows, each
 * dominated rank by rank by groups_gram_profile (B3: every r_j is at most
 * the top product of the profiles, so their g largest sum to g times it).
 *
 * Weighted marginals (2^d weights w_b): column j holds w_b once in each
 * marginal b, so G_jk = sum_b w_b^2 [j and k agree on b] >= 0, and of the
 * cells k agreeing with j on b there are N / N_b (N_b: b's cells); row j's g
 * largest sum to at most sum_b w_b^2 min(g, N / N_b) (B3, which is below B1
 * and B2 here).  In L1 every column has norm sum_b |w_b|: only g c bounds it.
 */
#include "postgres.h"

#include <math.h>

#include "mechanism/groups.h"
#include "strategy/hdmm/hdmm.h"

static double
marginals_factor(const HdmmStrategy *s, int g, int p)
{
	double		n = 1.0,
				norm2 = 0.0,
				rows = 0.0;

	if (p == 1)
		return g;
	for (int a = 0; a < s->nattrs; a++)
		n *= s->sizes[a];
	for (int b = 0; b < 1 << s->nattrs; b++)
	{
		double		w2 = s->weights[b] * s->weights[b];

		norm2 += w2;
		rows += w2 * Min((double) g, n / hdmm_marginal_rows(s, b));
	}
	return groups_factor(sqrt(g * rows), sqrt(norm2), g);
}

double
hdmm_group_factor(const HdmmStrategy *s, int g, int p)
{
	int			d = s->nattrs;
	GroupsList *norms = palloc(sizeof(GroupsList) * Max(d, 1));
	GroupsList *profiles = palloc(sizeof(GroupsList) * Max(d, 1));
	double		largest = 1.0,
				lambda = 1.0,
				bound;

	if (s->kind == HDMM_MARGINALS)
		return marginals_factor(s, g, p);
	for (int a = 0; a < d; a++)
	{
		norms[a] = groups_column_norms(s->factors[a], p);
		largest *= norms[a].len > 0 ? norms[a].value[0] : 0.0;
	}
	bound = groups_top_product(norms, d, g);
	if (p == 2)
	{
		for (int a = 0; a < d; a++)
		{
			lambda *= groups_lambda_bound(s->factors[a]);
			profiles[a] = groups_gram_profile(s->factors[a]);
		}
		bound = Min(bound, sqrt(g * lambda));
		bound = Min(bound, sqrt(g * groups_top_product(profiles, d, g)));
	}
	return groups_factor(bound, largest, g);
}
