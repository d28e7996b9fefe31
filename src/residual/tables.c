/*
 * tables.c -- a release of a residual plan from the marginal tables of the
 * source (residual.h): which tables, each residual summed out of one, its
 * measurement, and the workload's marginals rebuilt with their errors.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "mechanism/exact.h"
#include "mechanism/mechanism.h"
#include "mechanism/sampler.h"
#include "residual/residual.h"

int
residual_subset(const ResidualWorkload *w, const Residual *s, uint32 mask)
{
	int16		attrs[RESIDUAL_MAX_ORDER];
	int			order = 0;

	for (int b = 0; b < s->order; b++)
		if (mask & ((uint32) 1 << b))
			attrs[order++] = s->attrs[b];
	return residual_find(w, attrs, order);
}

ResidualTables *
residual_tables(const ResidualWorkload *w, const int *extra, int nextra)
{
	ResidualTables *t = palloc0(sizeof(ResidualTables));
	int			ncand = w->m + nextra;
	int		   *cand = palloc(sizeof(int) * Max(ncand, 1));
	bool	   *inside = palloc0(sizeof(bool) * Max(w->count, 1));
	bool	   *taken = palloc0(sizeof(bool) * Max(w->count, 1));

	for (int j = 0; j < w->m; j++)
		cand[j] = w->member[w->first[j + 1] - 1];
	for (int e = 0; e < nextra; e++)
		cand[w->m + e] = extra[e];
	/* a candidate inside another is not a table of its own */
	for (int c = 0; c < ncand; c++)
	{
		const Residual *s = &w->residuals[cand[c]];

		for (uint32 mask = 0; mask + 1 < ((uint32) 1 << s->order); mask++)
		{
			int			sub = residual_subset(w, s, mask);

			if (sub >= 0)
				inside[sub] = true;
		}
	}
	t->sets = palloc(sizeof(Residual *) * Max(ncand, 1));
	t->offset = palloc(sizeof(double) * Max(ncand, 1));
	t->source = palloc(sizeof(int) * Max(w->count, 1));
	for (int i = 0; i < w->count; i++)
		t->source[i] = -1;
	for (int c = 0; c < ncand; c++)
	{
		const Residual *s = &w->residuals[cand[c]];

		if (inside[cand[c]] || taken[cand[c]])
			continue;
		taken[cand[c]] = true;
		t->sets[t->count] = s;
		t->offset[t->count] = t->cells;
		t->cells += s->cells;
		/* every subset of a table is summed out of the first table containing it */
		for (uint32 mask = 0; mask < ((uint32) 1 << s->order); mask++)
		{
			int			sub = residual_subset(w, s, mask);

			if (sub >= 0 && t->source[sub] < 0)
				t->source[sub] = t->count;
		}
		t->count++;
	}
	pfree(cand);
	pfree(inside);
	pfree(taken);
	return t;
}

int *
residual_subset_index(const Residual *s, const Residual *a, const int *sizes)
{
	int			cells = (int) s->cells;
	int		   *map = palloc(sizeof(int) * Max(cells, 1));

	for (int c = 0; c < cells; c++)
	{
		int			rest = c,
					idx = 0,
					mult = 1;

		if ((c & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		/* c's coordinates in s, the last fastest; a's cell from those of a's attributes */
		for (int b = s->order - 1, k = a->order - 1; b >= 0; b--)
		{
			int			n = sizes[s->attrs[b]];

			if (k >= 0 && a->attrs[k] == s->attrs[b])
			{
				idx += (rest % n) * mult;
				mult *= n;
				k--;
			}
			rest /= n;
		}
		map[c] = idx;
	}
	return map;
}

SubsetMaps *
residual_subset_maps(const ResidualWorkload *w, const Residual *const *tables, int count, const int *sizes,
					 const bool *keep)
{
	SubsetMaps *sm = palloc(sizeof(SubsetMaps));
	int			pairs = 0,
				cap = 16;

	sm->first = palloc(sizeof(int) * (count + 1));
	sm->residual = palloc(sizeof(int) * cap);
	sm->map = palloc(sizeof(int *) * cap);
	for (int k = 0; k < count; k++)
	{
		const Residual *s = tables[k];

		sm->first[k] = pairs;
		for (uint32 mask = 0; mask < ((uint32) 1 << s->order); mask++)
		{
			int			a = residual_subset(w, s, mask);

			if (a < 0 || !keep[a])
				continue;
			if (pairs == cap)
			{
				cap *= 2;
				sm->residual = repalloc(sm->residual, sizeof(int) * cap);
				sm->map = repalloc(sm->map, sizeof(int *) * cap);
			}
			sm->residual[pairs] = a;
			sm->map[pairs++] = residual_subset_index(s, &w->residuals[a], sizes);
		}
	}
	sm->first[count] = pairs;
	return sm;
}

/* out <- residual a's table, summed out of table s (a's attributes among s's) */
void
residual_sum_out(const Residual *s, const int64 *table, const Residual *a, const int *sizes, int64 *out)
{
	int		   *map = residual_subset_index(s, a, sizes);

	memset(out, 0, sizeof(int64) * (size_t) a->cells);
	for (int c = 0; c < (int) s->cells; c++)
		out[map[c]] += table[c];
	pfree(map);
}

int64 *
residual_tables_of_vector(const ResidualTables *t, const int *sizes, int d, const int64 *x)
{
	Residual	all = {.order = d, .cells = 1.0};
	int64	   *tables = palloc(sizeof(int64) * Max((size_t) t->cells, 1));

	Assert(d <= RESIDUAL_MAX_ORDER);
	for (int b = 0; b < d; b++)
	{
		all.attrs[b] = (int16) b;
		all.cells *= sizes[b];
	}
	for (int i = 0; i < t->count; i++)
		residual_sum_out(&all, x, t->sets[i], sizes, tables + (size_t) t->offset[i]);
	return tables;
}

const int64 *
residual_table_of(const ResidualTables *t, int i, const int64 *tables)
{
	return tables + (size_t) t->offset[t->source[i]];
}

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
