/*
 * groups.h -- a strategy's sensitivity when a privacy unit touches at most g
 * cells, by at most c in each (dpm.sources.max_groups, max_per_group).
 *
 * A unit moves the data vector by x with at most g non-zero entries, each
 * |x_j| <= c.  Bounding only its total, g c rows, gives g c times A's largest
 * column norm; these proven bounds can be far smaller (for any signs of x and
 * of A; groups.c says why each holds):
 *
 *   L1:  ||A x||_1   <= c * (the sum of the g largest column L1 norms)     (B2)
 *   L2:  ||A x||_2   <= c * (the sum of the g largest column L2 norms)     (B2)
 *        ||A x||_2^2 <= c^2 g lambda_max(A^T A)                            (B1)
 *        ||A x||_2^2 <= c^2 (the sum of the g largest r_j), r_j the sum of
 *                       the g largest |G_jk| in row j of G = A^T A         (B3)
 *
 * Each form of strategy states them over its own structure (a dense matrix
 * here, a Kronecker product or weighted marginals in strategy/hdmm/, a
 * residual plan in strategy/residual/).  What they return is a factor f in
 * [1, g]: the least bound over c times A's largest column norm of that norm,
 * so that the mechanism's own per-row bound (of the A it measures) times c f
 * bounds a unit's sensitivity.
 */
#ifndef DPM_GROUPS_H
#define DPM_GROUPS_H

#include "linalg/linalg.h"

/* a multiset of non-negative values: value[i] held count[i] times, value decreasing */
typedef struct GroupsList
{
	int			len;
	double	   *value;
	double	   *count;
} GroupsList;

/* the sum of the g largest of v[0..n) (all of them if n <= g); reorders v */
extern double groups_top_sum(double *v, int n, int g);

/*
 * The sum of the g largest products v_1 v_2 ... v_d, one value from each
 * list (with its multiplicities): the g largest column norms of a Kronecker
 * product, or of a row of one.
 */
extern double groups_top_product(const GroupsList *lists, int d, int g);

/* the column Lp norms of a (p 1 or 2) as a list */
extern GroupsList groups_column_norms(const Mat *a, int p);

/*
 * Per rank t, the largest t-th largest |G_jk| over the rows j of G = A^T A,
 * as a list: any row of |G| is dominated rank by rank, so the g largest of a
 * row of a Kronecker product of such Grams sum to at most the top product
 * of these lists.
 */
extern GroupsList groups_gram_profile(const Mat *a);

/* a proven upper bound of lambda_max(A^T A) (Collatz-Wielandt on |A|^T |A|) */
extern double groups_lambda_bound(const Mat *a);

/* f for a dense strategy A (rows x cols), as measured (quantized), in the Lp norm */
extern double groups_dense_factor(const Mat *a, int g, int p);

/* the factor from a bound and the largest column norm, with its margin, clamped to [1, g] */
extern double groups_factor(double bound, double largest, int g);

#endif
