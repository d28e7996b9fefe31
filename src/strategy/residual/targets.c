/*
 * targets.c -- the least privacy cost at which every marginal's cells meet
 * a variance target (residual.h).
 *
 * With z_A the variance of residual A's noise, a cell of marginal j has
 * variance v_j(z) = sum_{A in j} g_jA z_A, g_jA = (r_A / N_A) / N_{S\A}^2 /
 * t_j after dividing by its target t_j, and the measurements cost
 * sum_A b_A / z_A, b_A = r_A / N_A, of squared L2 sensitivity.  The problem
 *   min sum_A b_A / z_A  subject to  v_j(z) <= 1 for every j
 * is convex.  For multipliers lambda >= 0 the Lagrangian is least at
 * z_A = sqrt(b_A / h_A), h_A = sum_j lambda_j g_jA, and its value at the
 * best scale of lambda, (sum_A sqrt(b_A h_A))^2 / sum_j lambda_j, bounds
 * the optimum from below; z scaled by 1 / max_j v_j is feasible and bounds
 * it from above.  The multipliers move as lambda_j v_j, which raises those
 * of the marginals over their targets; the gap between the two bounds says
 * how far from the optimum the answer is.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "strategy/residual/residual.h"

ResidualPlan *
residual_targets(const int *sizes, int d, const int *attrs, int m, int width,
				 const double *targets, double tol, int max_iter)
{
	ResidualWorkload *w = residual_workload(sizes, d, attrs, m, width, NULL, NULL);
	int			n = w->count,
				pairs = w->first[m],
				it;
	double	   *b = palloc0(sizeof(double) * Max(n, 1)),
			   *h = palloc(sizeof(double) * Max(n, 1)),
			   *z = palloc0(sizeof(double) * Max(n, 1)),
			   *best_z = palloc0(sizeof(double) * Max(n, 1)),
			   *g = palloc(sizeof(double) * Max(pairs, 1)),
			   *lambda = palloc(sizeof(double) * Max(m, 1)),
			   *v = palloc(sizeof(double) * Max(m, 1));
	double		best_primal = INFINITY,
				best_dual = 0.0,
				gap = INFINITY,
				total = 0.0;
	ResidualPlan *plan;

	for (int i = 0; i < n; i++)
		if (w->residuals[i].rows > 0.0)
			b[i] = w->residuals[i].rows / w->residuals[i].cells;
	for (int j = 0; j < m; j++)
	{
		lambda[j] = 1.0 / m;
		for (int p = w->first[j]; p < w->first[j + 1]; p++)
			g[p] = b[w->member[p]] / (w->spread[p] * w->spread[p]) / (targets ? targets[j] : 1.0);
	}

	for (it = 1; it <= max_iter; it++)
	{
		double		root = 0.0,
					cost = 0.0,
					vmax = 0.0,
					lambda_sum = 0.0,
					dual;

		CHECK_FOR_INTERRUPTS();
		memset(h, 0, sizeof(double) * n);
		for (int j = 0; j < m; j++)
			for (int p = w->first[j]; p < w->first[j + 1]; p++)
				h[w->member[p]] += lambda[j] * g[p];
		for (int i = 0; i < n; i++)
			if (b[i] > 0.0)
			{
				z[i] = sqrt(b[i] / h[i]);
				root += sqrt(b[i] * h[i]);
				cost += b[i] / z[i];
			}
		for (int j = 0; j < m; j++)
		{
			v[j] = 0.0;
			for (int p = w->first[j]; p < w->first[j + 1]; p++)
				v[j] += g[p] * z[w->member[p]];
			vmax = Max(vmax, v[j]);
			lambda_sum += lambda[j];
		}
		dual = root * root / lambda_sum;
		if (vmax * cost < best_primal)
		{
			best_primal = vmax * cost;
			for (int i = 0; i < n; i++)
				best_z[i] = z[i] / vmax;
		}
		best_dual = Max(best_dual, dual);
		gap = (best_primal - best_dual) / best_primal;
		if (gap <= tol)
			break;
		/* the next multipliers, scaled to sum 1 (only their ratios matter) */
		lambda_sum = 0.0;
		for (int j = 0; j < m; j++)
		{
			lambda[j] *= v[j];
			lambda_sum += lambda[j];
		}
		for (int j = 0; j < m; j++)
			lambda[j] /= lambda_sum;
	}

	for (int i = 0; i < n; i++)
		total += w->residuals[i].rows * w->residuals[i].mu * best_z[i];
	plan = residual_measured(w, best_z);
	plan->total = total;
	plan->cost2 = best_primal;
	plan->iterations = Min(it, max_iter);
	plan->gap = Max(gap, 0.0);
	return plan;
}
