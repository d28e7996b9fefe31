/*
 * marginals.c -- HDMM's marginals strategies (McKenna et al., VLDB 2018,
 * section 7) for workloads whose terms are marginals: on every attribute
 * either Identity (its bins kept) or Total (summed over).  Such a term is
 * named by the set a of attributes it keeps, and its Gram matrix is
 * C_a = (x)_i (I if i in a else J), J all ones.
 *
 * The strategy measures every marginal b with weight theta_b >= 0:
 * A^T A = sum_b theta_b^2 C_b, sensitivity sum_b theta_b.  The C's share
 * their eigenvectors: on the subspace V_s (attributes in s vary with zero
 * sum, the others are constant; dimension prod_{i in s} (n_i - 1)), C_b acts
 * as prod_{i not in b} n_i when s is inside b and as 0 otherwise.  So with
 *   lambda_s = sum_{b >= s} theta_b^2 prod_{i not in b} n_i,
 *   g_s      = sum_t [a_t >= s] prod_{i not in a_t} n_i,
 * the total error is (sum_b theta_b)^2 sum_s dim_s g_s / lambda_s: closed
 * form, 2^d parameters, no matrix over the cells.  Optimized by L-BFGS-B.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "strategy/hdmm/hdmm.h"
#include "linalg/lbfgsb.h"
#include "progress/progress.h"

/* attribute sets as bit masks; more attributes would mean 3^d work per evaluation */
#define MARGINALS_MAX_ATTRS 12

/* the set a term keeps, or -1 if a factor is neither Identity nor Total */
static int
term_set(const KronGram *kg, int t)
{
	int			set = 0;

	for (int a = 0; a < kg->nattrs; a++)
	{
		if (kg->kinds[t][a] == BLOCK_IDENTITY)
			set |= 1 << a;
		else if (kg->kinds[t][a] != BLOCK_TOTAL)
			return -1;
	}
	return set;
}

bool
marginals_applies(const KronGram *kg)
{
	if (kg->nattrs > MARGINALS_MAX_ATTRS)
		return false;
	for (int t = 0; t < kg->nterms; t++)
		if (term_set(kg, t) < 0)
			return false;
	return true;
}

/* prod_{i not in set} n_i */
static double
outside(const KronGram *kg, int set)
{
	double		p = 1.0;

	for (int i = 0; i < kg->nattrs; i++)
		if (!(set & (1 << i)))
			p *= kg->sizes[i];
	return p;
}

/* dim_s g_s for every s: the workload's part of the objective */
static double *
workload_spectrum(const KronGram *kg)
{
	int			count = 1 << kg->nattrs;
	double	   *w = palloc0(sizeof(double) * count);

	for (int t = 0; t < kg->nterms; t++)
	{
		int			a = term_set(kg, t);

		CHECK_FOR_INTERRUPTS();
		/* the subsets s of a */
		for (int s = a;; s = (s - 1) & a)
		{
			w[s] += kg->weights[t] * outside(kg, a);
			if (s == 0)
				break;
		}
	}
	for (int s = 0; s < count; s++)
		for (int i = 0; i < kg->nattrs; i++)
			if (s & (1 << i))
				w[s] *= kg->sizes[i] - 1;
	return w;
}

/*
 * sens^2 sum_s dim_s g_s / lambda_s with sens^2 = (sum theta)^2 (Laplace) or
 * sum theta^2 (Gaussian, l2)
 */
static double
marginals_objective(const KronGram *kg, const double *spectrum, const double *theta, bool l2,
					double *grad, double *lambda)
{
	int			d = kg->nattrs,
				count = 1 << d;
	double		sum = 0.0,
				sens2,
				trace = 0.0;

	for (int b = 0; b < count; b++)
		sum += l2 ? theta[b] * theta[b] : theta[b];
	sens2 = l2 ? sum : sum * sum;
	for (int s = 0; s < count; s++)
	{
		lambda[s] = 0.0;
		if (spectrum[s] == 0.0)
			continue;
		/* the supersets b of s */
		for (int b = s; b < count; b = (b + 1) | s)
			lambda[s] += theta[b] * theta[b] * outside(kg, b);
		if (!(lambda[s] > 0.0))
			return HUGE_VAL;	/* some query asked about cannot be answered */
		trace += spectrum[s] / lambda[s];
	}
	if (grad != NULL)
	{
		for (int b = 0; b < count; b++)
		{
			double		inner = 0.0;

			/* the subsets s of b */
			for (int s = b;; s = (s - 1) & b)
			{
				if (spectrum[s] != 0.0)
					inner += spectrum[s] / (lambda[s] * lambda[s]);
				if (s == 0)
					break;
			}
			grad[b] = (l2 ? 2.0 * theta[b] : 2.0 * sum) * trace -
				sens2 * inner * 2.0 * theta[b] * outside(kg, b);
		}
	}
	return sens2 * trace;
}

/*
 * The objective has local minima (for 2-way marginals on three attributes,
 * random starts mostly end measuring the three marginals, at 1.8 times the
 * error of measuring the cells), so L-BFGS-B runs from several starts: the
 * cells alone, every marginal equally, the workload's own marginals, and a
 * fixed pseudo-random point; the best end point is kept.
 */
double *
marginals_optimize(const KronGram *kg, bool l2, int max_iter, double *objective, int *evaluations)
{
	int			count = 1 << kg->nattrs;
	double	   *best = palloc(sizeof(double) * count),
			   *theta = palloc(sizeof(double) * count),
			   *grad = palloc(sizeof(double) * count),
			   *lambda = palloc(sizeof(double) * count),
			   *spectrum = workload_spectrum(kg);
	uint64		seed = UINT64CONST(0x9E3779B97F4A7C15);

	Assert(marginals_applies(kg));
	*objective = HUGE_VAL;
	*evaluations = 0;
	for (int start = 0; start < 4; start++)
	{
		LbfgsbState *lb;
		double		f = 0.0;

		for (int b = 0; b < count; b++)
		{
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			theta[b] = start == 0 ? (b == count - 1) :
				start == 1 ? 1.0 :
				start == 3 ? 0.5 + 0.5 * (double) (seed >> 11) / 9007199254740992.0 : 0.0;
		}
		for (int t = 0; start == 2 && t < kg->nterms; t++)
			theta[term_set(kg, t)] = 1.0;
		lb = lbfgsb_begin(count, theta, 0.0, max_iter, progress_update);
		while (lbfgsb_next(lb, &f, grad))
		{
			CHECK_FOR_INTERRUPTS();
			f = marginals_objective(kg, spectrum, theta, l2, grad, lambda);
			(*evaluations)++;
		}
		lbfgsb_end(lb);
		f = marginals_objective(kg, spectrum, theta, l2, NULL, lambda);
		if (f < *objective)
		{
			*objective = f;
			memcpy(best, theta, sizeof(double) * count);
		}
	}
	pfree(theta);
	pfree(grad);
	pfree(lambda);
	pfree(spectrum);
	return best;
}

/*
 * The SVD bound of a workload of marginals in closed form: W^T W has
 * eigenvalue g_s on V_s (dimension dim_s), so the sum of W's singular values
 * is sum_s dim_s sqrt(g_s), over all N cells (every marginal touches every
 * cell).
 */
double
marginals_svd_bound(const KronGram *kg)
{
	int			count = 1 << kg->nattrs;
	double	   *w = workload_spectrum(kg);
	double		sum = 0.0,
				cells = outside(kg, 0);

	for (int s = 0; s < count; s++)
	{
		double		dim = 1.0;

		for (int i = 0; i < kg->nattrs; i++)
			if (s & (1 << i))
				dim *= kg->sizes[i] - 1;
		if (dim > 0.0 && w[s] > 0.0)
			sum += dim * sqrt(w[s] / dim);
	}
	pfree(w);
	return kg->nterms > 0 ? sum * sum / cells : 0.0;
}
