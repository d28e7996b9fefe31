/*
 * nonneg.c -- non-negative answers that stay consistent (inference nnls).
 *
 * The least-squares estimate gives every residual A an estimate y_A with
 * noise variance V_A (residual.h), and every marginal table rebuilt from
 * them agrees with every other on what they share; but a cell can be
 * negative.  Here the residuals z are re-estimated to minimize the same
 * least-squares objective, sum_A |z_A - y_A|^2 / V_A (the measurements'
 * whitened residual norm, up to a constant), subject to every table of the
 * workload that no other contains, rebuilt from z, being non-negative; its
 * sub-tables then are too, and all agree.  That is weaker than a
 * non-negative frequency vector, which a wide domain cannot hold, and it is
 * post-processing: no budget.
 *
 * Solved by ADMM (Boyd et al. 2011, section 5) with the tables u_S >= 0 as
 * the split variable: the residual bases make R_S^T R_S diagonal (residual
 * A of table S counts 1 / N_{S \ A}), so the z-step is closed form, residual
 * by residual; the u-step clips at 0; the penalty is balanced between the
 * primal and dual residuals.  The answers come from u, so no count is
 * negative; the tables agree to within the stopping tolerance.  For
 * nnls_integer, u is then replaced by integer tables (integer.c).
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "linalg/linalg.h"
#include "progress/progress.h"
#include "strategy/residual/residual.h"

/* table k rebuilt from the residuals z: residual A spread evenly over the attributes it lacks */
static void
rebuild_table(const ResidualWorkload *w, const ResidualTables *t, const SubsetMaps *tp, int k, double **z,
			  double *out)
{
	const Residual *s = t->sets[k];

	memset(out, 0, sizeof(double) * (size_t) s->cells);
	for (int p = tp->first[k]; p < tp->first[k + 1]; p++)
	{
		const double *za = z[tp->residual[p]];
		double		spread = w->residuals[tp->residual[p]].cells / s->cells;

		for (int i = 0; i < (int) s->cells; i++)
			out[i] += za[tp->map[p][i]] * spread;
	}
}

/* acc[A] += R_S^T c for every measured residual A of table k: Pi_A (c summed out to A) / N_{S \ A} */
static void
add_transpose(const ResidualWorkload *w, const ResidualTables *t, const SubsetMaps *tp, int k,
			  const int *sizes, const double *c, double **acc)
{
	const Residual *s = t->sets[k];

	for (int p = tp->first[k]; p < tp->first[k + 1]; p++)
	{
		const Residual *r = &w->residuals[tp->residual[p]];
		double	   *part = palloc0(sizeof(double) * (size_t) r->cells);
		double	   *into = acc[tp->residual[p]];

		for (int i = 0; i < (int) s->cells; i++)
			part[tp->map[p][i]] += c[i];
		residual_project(r, sizes, part);
		for (int i = 0; i < (int) r->cells; i++)
			into[i] += part[i] * r->cells / s->cells;
		pfree(part);
	}
}

void
residual_nonneg(const ResidualWorkload *w, const int *sizes, double **est, const double *variance,
				bool integer, double **answers)
{
	ResidualTables *t = residual_tables(w, NULL, 0);
	size_t		cells = (size_t) t->cells;
	double	   *u = palloc0(sizeof(double) * Max(cells, 1)),
			   *lambda = palloc0(sizeof(double) * Max(cells, 1)),
			   *rz = palloc(sizeof(double) * Max(cells, 1)),
			   *prev = palloc(sizeof(double) * Max(cells, 1)),
			   *diag = palloc0(sizeof(double) * Max(w->count, 1)),
			   *c = palloc(sizeof(double) * Max(cells, 1));
	double	  **z = palloc0(sizeof(double *) * Max(w->count, 1)),
			  **acc = palloc0(sizeof(double *) * Max(w->count, 1));
	double		rho = 0.0,
				scale = 0.0;
	SubsetMaps *tp;
	bool	   *measured_residual = palloc0(sizeof(bool) * Max(w->count, 1));
	int			iter,
				measured = 0;
	const int	max_iter = 20000;
	const double tol = 1e-8;

	/* z starts at the least-squares estimate; rho at the typical precision 2 / V_A */
	for (int a = 0; a < w->count; a++)
		if (est[a] != NULL)
		{
			z[a] = palloc(sizeof(double) * (size_t) w->residuals[a].cells);
			memcpy(z[a], est[a], sizeof(double) * (size_t) w->residuals[a].cells);
			acc[a] = palloc(sizeof(double) * (size_t) w->residuals[a].cells);
			rho += 2.0 / variance[a];
			measured++;
		}
	rho = measured > 0 ? rho / measured : 1.0;
	for (int a = 0; a < w->count; a++)
		measured_residual[a] = z[a] != NULL;
	tp = residual_subset_maps(w, t->sets, t->count, sizes, measured_residual);
	/* sum over tables containing A of 1 / N_{S \ A}: R^T R on residual A */
	for (int k = 0; k < t->count; k++)
		for (int p = tp->first[k]; p < tp->first[k + 1]; p++)
			diag[tp->residual[p]] += w->residuals[tp->residual[p]].cells / t->sets[k]->cells;
	for (int k = 0; k < t->count; k++)
	{
		rebuild_table(w, t, tp, k, z, rz + (size_t) t->offset[k]);
		for (size_t i = 0; i < (size_t) t->sets[k]->cells; i++)
		{
			u[(size_t) t->offset[k] + i] = Max(0.0, rz[(size_t) t->offset[k] + i]);
			scale = Max(scale, fabs(rz[(size_t) t->offset[k] + i]));
		}
	}
	scale = Max(scale, 1.0);

	for (iter = 0; iter < max_iter; iter++)
	{
		double		primal = 0.0,
					dual = 0.0;

		CHECK_FOR_INTERRUPTS();
		progress_update("nonneg", iter, NAN, NAN);
		/* z-step: residual by residual, closed form */
		for (size_t i = 0; i < cells; i++)
			c[i] = u[i] - lambda[i];
		for (int a = 0; a < w->count; a++)
			if (acc[a])
				memset(acc[a], 0, sizeof(double) * (size_t) w->residuals[a].cells);
		for (int k = 0; k < t->count; k++)
			add_transpose(w, t, tp, k, sizes, c + (size_t) t->offset[k], acc);
		for (int a = 0; a < w->count; a++)
			if (z[a])
				for (int i = 0; i < (int) w->residuals[a].cells; i++)
					z[a][i] = (2.0 * est[a][i] / variance[a] + rho * acc[a][i]) / (2.0 / variance[a] + rho * diag[a]);
		/* u-step (clip) and the scaled dual step */
		memcpy(prev, u, sizeof(double) * cells);
		for (int k = 0; k < t->count; k++)
			rebuild_table(w, t, tp, k, z, rz + (size_t) t->offset[k]);
		for (size_t i = 0; i < cells; i++)
		{
			u[i] = Max(0.0, rz[i] + lambda[i]);
			lambda[i] += rz[i] - u[i];
			primal = Max(primal, fabs(rz[i] - u[i]));
			dual = Max(dual, fabs(u[i] - prev[i]));
		}
		/* dual: the change of u, the dual residual over rho */
		if (primal <= tol * scale && dual <= tol * scale)
			break;
		/* residual balancing (primal against rho times the change of u); the scaled dual follows rho */
		if (primal > 10.0 * rho * dual)
		{
			rho *= 2.0;
			for (size_t i = 0; i < cells; i++)
				lambda[i] /= 2.0;
		}
		else if (rho * dual > 10.0 * primal)
		{
			rho /= 2.0;
			for (size_t i = 0; i < cells; i++)
				lambda[i] *= 2.0;
		}
	}
	if (iter == max_iter)
		ereport(NOTICE,
				(errmsg("the non-negative estimate stopped after %d iterations, short of its tolerance", max_iter)));

	if (integer)
	{
		residual_integer_tables(t, sizes, u, (double) dpm_max_matrix_mb * 1024 * 1024, c);
		memcpy(u, c, sizeof(double) * cells);
	}
	/* every term's table from the non-negative (or integer) table it is summed out of */
	for (int j = 0; j < w->m; j++)
	{
		int			own = w->member[w->first[j + 1] - 1];
		const Residual *s = &w->residuals[own];
		const Residual *from = t->sets[t->source[own]];
		int		   *map = residual_subset_index(from, s, sizes);
		double	   *table = palloc0(sizeof(double) * (size_t) s->cells);
		const double *src = u + (size_t) t->offset[t->source[own]];

		for (int i = 0; i < (int) from->cells; i++)
			table[map[i]] += src[i];
		residual_term_answers(w, j, sizes, table, answers[j]);
		pfree(map);
		pfree(table);
	}
}
