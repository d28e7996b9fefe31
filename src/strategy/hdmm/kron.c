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
#include "utils/memutils.h"

#include "strategy/hdmm/hdmm.h"
#include "strategy/dense/gram_strategies.h"

/* sum_t prod_a tau[t][a]: the total error of the current factors */
static double
kron_total(const KronGram *kg, const double *tau)
{
	double		total = 0.0;

	for (int t = 0; t < kg->nterms; t++)
	{
		double		prod = 1.0;

		for (int a = 0; a < kg->nattrs; a++)
			prod *= tau[t * kg->nattrs + a];
		total += prod;
	}
	return total;
}

/* tau[t][a] for the current factors; returns the total error */
/*
 * The Gram matrix attribute a's factor is optimized against, the others
 * fixed: sum over terms t of G_t,a times the product of the other
 * attributes' traces tau[t][b].
 */
static Mat *
factor_gram(const KronGram *kg, const double *tau, int a)
{
	int			n = kg->sizes[a],
				d = kg->nattrs;
	Mat		   *g = mat_new(n, n);

	for (int t = 0; t < kg->nterms; t++)
	{
		double		c = 1.0;

		CHECK_FOR_INTERRUPTS();
		for (int b = 0; b < d; b++)
			if (b != a)
				c *= tau[t * d + b];
		for (size_t i = 0; i < (size_t) n * n; i++)
			g->data[i] += c * kg->factors[t][a]->data[i];
	}
	return g;
}

static double
kron_traces(const KronGram *kg, Mat **theta, double *tau, PIdentityWork **work)
{
	for (int t = 0; t < kg->nterms; t++)
		for (int a = 0; a < kg->nattrs; a++)
		{
			CHECK_FOR_INTERRUPTS();
			tau[t * kg->nattrs + a] = pidentity_objective(kg->factors[t][a], theta[a], NULL, work[a]);
		}
	return kron_total(kg, tau);
}

void
kron_optimize(const KronGram *kg, Mat **theta, int max_iter, int max_rounds,
			  double *objective, int *evaluations)
{
	int			d = kg->nattrs;
	double	   *tau = palloc(sizeof(double) * Max(kg->nterms * d, 1));
	PIdentityWork **work = palloc(sizeof(PIdentityWork *) * Max(d, 1));
	double		total;
	MemoryContext step_cxt,
				old_cxt;

	for (int a = 0; a < d; a++)
		work[a] = pidentity_work(theta[a]->rows, kg->sizes[a]);
	total = kron_traces(kg, theta, tau, work);
	*evaluations = 0;
	/* one factor's weighted Gram matrix and its optimizer's buffers, dropped after each */
	step_cxt = mat_loop_context("kron_optimize factor");
	for (int round = 0; round < max_rounds; round++)
	{
		double		before = total;

		for (int a = 0; a < d; a++)
		{
			int			evals;
			Mat		   *g;

			old_cxt = MemoryContextSwitchTo(step_cxt);
			g = factor_gram(kg, tau, a);
			/* theta[a] is the caller's: optimized in place; the terms' errors follow */
			pidentity_optimize(g, theta[a], max_iter, NULL, &evals);
			*evaluations += evals;
			MemoryContextSwitchTo(old_cxt);
			MemoryContextReset(step_cxt);
			for (int t = 0; t < kg->nterms; t++)
			{
				CHECK_FOR_INTERRUPTS();
				tau[t * d + a] = pidentity_objective(kg->factors[t][a], theta[a], NULL, work[a]);
			}
		}
		total = kron_total(kg, tau);
		/* one attribute: one round is the optimum; otherwise stop when a round gains little */
		if (d == 1 || before - total <= 1e-6 * total)
			break;
	}
	MemoryContextDelete(step_cxt);
	/* the figure reported, without the Woodbury form's cancellation */
	*objective = 0.0;
	for (int t = 0; t < kg->nterms; t++)
	{
		double		prod = 1.0;

		for (int a = 0; a < d; a++)
		{
			CHECK_FOR_INTERRUPTS();
			prod *= pidentity_trace(kg->factors[t][a], theta[a]);
		}
		*objective += prod;
	}
	for (int a = 0; a < d; a++)
		pidentity_work_free(work[a]);
	pfree(work);
	pfree(tau);
}

/* Delta_2(A)^2 tr(G (A^T A)^+): the Gaussian error of one factor */
static double
factor_trace_l2(const Mat *g, const Mat *a)
{
	Mat		   *pinv = mat_pinv(a);
	Mat		   *m = mat_mul(pinv, false, pinv, true);
	double		tr = 0.0,
				sens = mat_max_col_norm(a, 2);

	for (size_t i = 0; i < (size_t) g->rows * g->cols; i++)
		tr += g->data[i] * m->data[i];
	mat_free(pinv);
	mat_free(m);
	return sens * sens * tr;
}

/*
 * The Gaussian counterpart: L2 sensitivities multiply too, so the same
 * block coordinate descent applies, each factor being the optimal strategy
 * for its weighted Gram matrix under L2 (gaussian_optimal, matrix-mechanism
 * Program 5.2).  a[] receives the factors.
 */
void
kron_optimize_l2(const KronGram *kg, Mat **a, int max_rounds, double *objective, int *iterations)
{
	int			d = kg->nattrs;
	double	   *tau = palloc(sizeof(double) * Max(kg->nterms * d, 1));
	double		total = 0.0;
	MemoryContext step_cxt,
				old_cxt;

	*iterations = 0;
	for (int i = 0; i < d; i++)
		a[i] = mat_identity(kg->sizes[i]);
	for (int t = 0; t < kg->nterms; t++)
		for (int i = 0; i < d; i++)
		{
			CHECK_FOR_INTERRUPTS();
			tau[t * d + i] = factor_trace_l2(kg->factors[t][i], a[i]);
		}
	/* one factor's weighted Gram matrix and its optimizer's buffers, dropped after each */
	step_cxt = mat_loop_context("kron_optimize_l2 factor");
	for (int round = 0; round < max_rounds; round++)
	{
		double		before = total;

		for (int i = 0; i < d; i++)
		{
			Mat		   *g,
					   *next;
			OptReport	rep;

			CHECK_FOR_INTERRUPTS();
			old_cxt = MemoryContextSwitchTo(step_cxt);
			g = factor_gram(kg, tau, i);
			next = strategy_gaussian_optimal(g, 1e-6, 10000, &rep);
			*iterations += rep.iterations;
			MemoryContextSwitchTo(old_cxt);
			/* the factor outlives the step: copied into the caller's context */
			mat_free(a[i]);
			a[i] = mat_copy(next);
			MemoryContextReset(step_cxt);
			for (int t = 0; t < kg->nterms; t++)
			{
				CHECK_FOR_INTERRUPTS();
				tau[t * d + i] = factor_trace_l2(kg->factors[t][i], a[i]);
			}
		}
		total = kron_total(kg, tau);
		if (d == 1 || (round > 0 && before - total <= 1e-6 * total))
			break;
	}
	MemoryContextDelete(step_cxt);
	*objective = total;
	pfree(tau);
}

/*
 * The SVD bound of a workload given by its Gram factors, where it can be had
 * without a matrix over the cells: a single product term (the bound of a
 * Kronecker product is the product of the factors' bounds: singular values
 * and nonzero columns both multiply) or marginals (closed form); NaN
 * otherwise.
 */
double
kron_svd_bound(const KronGram *kg)
{
	double		bound = 1.0;

	if (kg->nterms == 1)
	{
		for (int a = 0; a < kg->nattrs; a++)
		{
			int			nonzero;

			CHECK_FOR_INTERRUPTS();
			bound *= strategy_svd_bound(kg->factors[0][a], &nonzero);
		}
		return bound;
	}
	if (marginals_applies(kg))
		return marginals_svd_bound(kg);
	return NAN;
}

/*
 * A proven lower bound on the SVD bound of a union of product terms, where
 * the bound itself needs W^T W = sum_t G_t over all the cells.  S(G) =
 * tr G^1/2, the sum of the singular values, is monotone (the square root is
 * operator monotone: G >= G_t) and concave (operator concave), so with T
 * terms S(sum G_t) >= max_t S(G_t) and >= (1/T) sum_t S(T G_t) =
 * sum_t S(G_t) / sqrt(T); S of a product term is the product of its
 * factors' (a term's first factor carries its weight).  The bound divides
 * S^2 by W's nonzero columns, at most the cells and at most the sum over
 * the terms of their nonzero columns (products of the factors').
 */
double
kron_svd_lower_bound(const KronGram *kg, double cells)
{
	double		best = 0.0,
				sum = 0.0,
				support = 0.0,
				s;

	if (kg->nterms == 0)
		return 0.0;
	for (int t = 0; t < kg->nterms; t++)
	{
		double		st = 1.0,
					kt = 1.0;

		for (int a = 0; a < kg->nattrs; a++)
		{
			int			nonzero;

			CHECK_FOR_INTERRUPTS();
			st *= strategy_singular_sum(kg->factors[t][a], &nonzero);
			kt *= nonzero;
		}
		best = fmax(best, st);
		sum += st;
		support += kt;
	}
	s = fmax(best, sum / sqrt((double) kg->nterms));
	support = fmin(support, cells);
	return support > 0.0 ? s * s / support : 0.0;
}
