/*
 * tables.c -- the marginal tables a release of a residual plan reads from
 * the source (residual.h): which tables, and each residual summed out of one
 * (gaussian.c measures and rebuilds; laplace.c and nonneg.c read them too).
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "mechanism/exact.h"
#include "strategy/residual/residual.h"

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
