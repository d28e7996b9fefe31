/*
 * kron.c -- HDMM's Kronecker strategies for a union of product workloads
 * (McKenna et al., VLDB 2018, section 6): A = A_1 x ... x A_d with one
 * p-Identity factor per attribute.  Sensitivities multiply (each factor has
 * 1), and for a term W_t = W_t1 x ... x W_td the error factors too:
 *   tr(G_t (A^T A)^-1) = prod_a tr(G_ta (A_a^T A_a)^-1),
 * so the total error is sum_t prod_a tau_ta.  With every factor but A_a
 * fixed, that is a single p-Identity problem for A_a with the Gram matrix
 * sum_t c_t G_ta, c_t = prod_{b != a} tau_tb: the factors are optimized in
 * turn (block coordinate descent, HDMM's method), each round warm-started.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "hdmm/hdmm.h"

/* tau[t][a] for the current factors; returns the total error */
static double
kron_traces(const KronGram *kg, Mat **theta, double *tau, PIdentityWork **work)
{
	double		total = 0.0;

	for (int t = 0; t < kg->nterms; t++)
	{
		double		prod = 1.0;

		for (int a = 0; a < kg->nattrs; a++)
		{
			CHECK_FOR_INTERRUPTS();
			tau[t * kg->nattrs + a] = pidentity_objective(kg->factors[t][a], theta[a], NULL, work[a]);
			prod *= tau[t * kg->nattrs + a];
		}
		total += prod;
	}
	return total;
}

double
kron_error(const KronGram *kg, Mat **theta)
{
	double	   *tau = palloc(sizeof(double) * Max(kg->nterms * kg->nattrs, 1));
	PIdentityWork **work = palloc(sizeof(PIdentityWork *) * Max(kg->nattrs, 1));
	double		total;

	for (int a = 0; a < kg->nattrs; a++)
		work[a] = pidentity_work(theta[a]->rows, kg->sizes[a]);
	total = kron_traces(kg, theta, tau, work);
	for (int a = 0; a < kg->nattrs; a++)
		pidentity_work_free(work[a]);
	pfree(work);
	pfree(tau);
	return total;
}

void
kron_optimize(const KronGram *kg, Mat **theta, int max_iter, int max_rounds,
			  double *objective, int *evaluations)
{
	int			d = kg->nattrs;
	double	   *tau = palloc(sizeof(double) * Max(kg->nterms * d, 1));
	PIdentityWork **work = palloc(sizeof(PIdentityWork *) * Max(d, 1));
	double		total;

	for (int a = 0; a < d; a++)
		work[a] = pidentity_work(theta[a]->rows, kg->sizes[a]);
	total = kron_traces(kg, theta, tau, work);
	*evaluations = 0;
	for (int round = 0; round < max_rounds; round++)
	{
		double		before = total;

		for (int a = 0; a < d; a++)
		{
			int			n = kg->sizes[a],
						evals;
			Mat		   *g = mat_new(n, n);
			double		f;

			for (int t = 0; t < kg->nterms; t++)
			{
				double		c = 1.0;

				for (int b = 0; b < d; b++)
					if (b != a)
						c *= tau[t * d + b];
				for (size_t i = 0; i < (size_t) n * n; i++)
					g->data[i] += c * kg->factors[t][a]->data[i];
			}
			pidentity_optimize(g, theta[a], max_iter, &f, &evals);
			*evaluations += evals;
			mat_free(g);
			for (int t = 0; t < kg->nterms; t++)
				tau[t * d + a] = pidentity_objective(kg->factors[t][a], theta[a], NULL, work[a]);
		}
		total = 0.0;
		for (int t = 0; t < kg->nterms; t++)
		{
			double		prod = 1.0;

			for (int a = 0; a < d; a++)
				prod *= tau[t * d + a];
			total += prod;
		}
		/* one attribute: one round is the optimum; otherwise stop when a round gains little */
		if (d == 1 || before - total <= 1e-6 * total)
			break;
	}
	/* the figure reported, without the Woodbury form's cancellation */
	*objective = 0.0;
	for (int t = 0; t < kg->nterms; t++)
	{
		double		prod = 1.0;

		for (int a = 0; a < d; a++)
			prod *= pidentity_trace(kg->factors[t][a], theta[a]);
		*objective += prod;
	}
	for (int a = 0; a < d; a++)
		pidentity_work_free(work[a]);
	pfree(work);
	pfree(tau);
}
