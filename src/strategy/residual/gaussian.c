/*
 * gaussian.c -- a release of a residual plan under Gaussian noise, from the
 * marginal tables tables.c lays out (residual.h): the exact answers, each
 * residual's measurement, least squares, and the workload's marginals rebuilt
 * with their errors (non-negative ones by nonneg.c, which builds on tables.c
 * too).  laplace.c is the same under Laplace noise.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "mechanism/exact.h"
#include "mechanism/mechanism.h"
#include "mechanism/sampler.h"
#include "strategy/residual/residual.h"

void
residual_exact(const ResidualWorkload *w, const ResidualTables *t, const int *sizes, const int64 *tables,
			   double **answers)
{
	for (int j = 0; j < w->m; j++)
	{
		int			own = w->member[w->first[j + 1] - 1];
		const Residual *s = &w->residuals[own];
		int64	   *cells = palloc(sizeof(int64) * (size_t) s->cells);
		double	   *table = palloc(sizeof(double) * (size_t) s->cells);

		residual_sum_out(t->sets[t->source[own]], residual_table_of(t, own, tables), s, sizes, cells);
		for (int c = 0; c < (int) s->cells; c++)
			table[c] = (double) cells[c];
		answers[j] = palloc(sizeof(double) * (size_t) residual_term_queries(w, j, sizes));
		residual_term_answers(w, j, sizes, table, answers[j]);
		pfree(cells);
		pfree(table);
	}
}

Measurements *
residual_gaussian_measure(const ResidualWorkload *w, const ResidualTables *t, const int *sizes,
						  const double *variance, double sigma, double contributions, const int64 *tables)
{
	int		   *cells = palloc(sizeof(int) * Max(w->count, 1));
	int			parts = 0;
	GaussianJoint joint = {0.0, 0.0};
	Measurements *m;

	/* the residuals are parts of one Gaussian mechanism: its answers and sensitivity over noise */
	for (int i = 0; i < w->count; i++)
		if (variance[i] > 0.0)
		{
			const Residual *r = &w->residuals[i];
			double		ratio = residual_l2(r, contributions) / (sigma * sqrt(variance[i]) * r->cells);

			joint.m += r->cells;
			joint.tau += ratio * ratio;
			cells[parts++] = (int) r->cells;
		}
	joint.tau = sqrt(joint.tau);

	/* the checks residual_measure's sampler makes, before anything is drawn */
	for (int i = 0; i < w->count; i++)
		if (variance[i] > 0.0)
		{
			const Residual *r = &w->residuals[i];

			dpm_gaussian_check_part((int) r->cells, residual_l2(r, contributions),
									sigma * sqrt(variance[i]) * r->cells, &joint);
		}
	if (tables == NULL)
		return NULL;

	m = measurements_new(parts, cells);
	parts = 0;
	for (int i = 0; i < w->count; i++)
	{
		const Residual *r = &w->residuals[i];
		int64	   *table;

		if (variance[i] <= 0.0)
			continue;
		table = palloc(sizeof(int64) * (size_t) r->cells);
		residual_sum_out(t->sets[t->source[i]], residual_table_of(t, i, tables), r, sizes, table);
		m->variance[parts] = residual_measure(r, sizes, table, sigma * sqrt(variance[i]), contributions, &joint,
											  measurements_part(m, parts));
		parts++;
		pfree(table);
	}
	return m;
}

void
residual_gaussian_infer(const ResidualWorkload *w, const int *sizes, const double *variance,
						const Measurements *m, ResidualInference inference, double **answers, double **stderrs)
{
	double	  **est = palloc0(sizeof(double *) * Max(w->count, 1));
	double	   *actual = palloc0(sizeof(double) * Max(w->count, 1));
	int		   *cells = palloc(sizeof(int) * Max(w->count, 1));
	int			parts = 0;

	for (int i = 0; i < w->count; i++)
		if (variance[i] > 0.0)
			cells[parts++] = (int) w->residuals[i].cells;
	measurements_check(m, parts, cells);
	parts = 0;
	for (int i = 0; i < w->count; i++)
		if (variance[i] > 0.0)
		{
			if (m->laws[parts].t != 0.0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("the measurements of a Gaussian plan cannot have Laplace noise")));
			est[i] = measurements_part(m, parts);
			actual[i] = m->variance[parts];
			parts++;
		}
	residual_answers(w, sizes, est, actual, answers, stderrs);
	if (inference != RESIDUAL_LS)
		residual_nonneg(w, sizes, est, actual, inference == RESIDUAL_INTEGER, answers);
}

void
residual_answers(const ResidualWorkload *w, const int *sizes, double **est, const double *variance,
				 double **answers, double **stderrs)
{
	for (int j = 0; j < w->m; j++)
	{
		const Residual *s = residual_of_marginal(w, j);
		size_t		queries = (size_t) residual_term_queries(w, j, sizes);
		double	   *table = palloc0(sizeof(double) * (size_t) s->cells);

		for (int p = w->first[j]; p < w->first[j + 1]; p++)
			if (est[w->member[p]] != NULL)
				residual_rebuild(&w->residuals[w->member[p]], sizes, est[w->member[p]], s->attrs, s->order, table);
		answers[j] = palloc(sizeof(double) * queries);
		residual_term_answers(w, j, sizes, table, answers[j]);
		pfree(table);
		if (stderrs == NULL)
			continue;
		stderrs[j] = palloc(sizeof(double) * queries);
		residual_term_variances(w, j, sizes, variance, stderrs[j]);
		for (size_t q = 0; q < queries; q++)
			stderrs[j][q] = sqrt(stderrs[j][q]);
	}
}
