/*
 * planner.c -- ResidualPlanner's closed-form plan for the sum of variances
 * (residual.h says what is computed and why it is optimal).
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/hsearch.h"

#include "residual/residual.h"

typedef struct SubsetKey
{
	int16		order;
	int16		attrs[RESIDUAL_MAX_ORDER];
} SubsetKey;

typedef struct SubsetEntry
{
	SubsetKey	key;
	int			index;
} SubsetEntry;

/* marginal j's attributes, 0-based and increasing; its order */
static int
marginal_attrs(const int *attrs, int j, int width, int d, int16 *out)
{
	int			k = 0;

	for (int c = 0; c < width; c++)
	{
		int			a = attrs[(size_t) j * width + c];

		if (a == 0)
			continue;
		if (a < 1 || a > d)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("marginal %d names attribute %d; the domain has attributes 1 to %d",
							j + 1, a, d)));
		if (k == RESIDUAL_MAX_ORDER)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("marginal %d keeps more than %d attributes", j + 1, RESIDUAL_MAX_ORDER),
					 errhint("A marginal of that many attributes has more cells than any table can hold.")));
		/* insertion into the sorted prefix */
		{
			int			p = k;

			while (p > 0 && out[p - 1] > a - 1)
			{
				out[p] = out[p - 1];
				p--;
			}
			if (p > 0 && out[p - 1] == a - 1)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("marginal %d names attribute %d twice", j + 1, a)));
			out[p] = a - 1;
			k++;
		}
	}
	return k;
}

ResidualPlan *
residual_plan(const int *sizes, int d, const int *attrs, int m, int width, const double *weights)
{
	HASHCTL		ctl;
	HTAB	   *index;
	ResidualPlan *plan = palloc0(sizeof(ResidualPlan));
	int			capacity = 64;
	double		t = 0.0;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(SubsetKey);
	ctl.entrysize = sizeof(SubsetEntry);
	ctl.hcxt = CurrentMemoryContext;
	index = hash_create("residual subsets", 1024, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	plan->residuals = palloc(sizeof(Residual) * capacity);

	/* every subset A of every marginal S gets c_S / N_{S \ A} added to its mu */
	for (int j = 0; j < m; j++)
	{
		int16		s[RESIDUAL_MAX_ORDER];
		int			k = marginal_attrs(attrs, j, width, d, s);
		double		c = weights ? weights[j] * weights[j] : 1.0;

		CHECK_FOR_INTERRUPTS();
		for (uint32 mask = 0; mask < ((uint32) 1 << k); mask++)
		{
			SubsetKey	key;
			SubsetEntry *e;
			bool		found;
			double		rest = 1.0;

			memset(&key, 0, sizeof(key));
			for (int b = 0; b < k; b++)
			{
				if (mask & ((uint32) 1 << b))
					key.attrs[key.order++] = s[b];
				else
					rest *= sizes[s[b]];
			}
			e = hash_search(index, &key, HASH_ENTER, &found);
			if (!found)
			{
				Residual   *r;

				if (plan->count == capacity)
				{
					capacity *= 2;
					plan->residuals = repalloc_huge(plan->residuals, sizeof(Residual) * capacity);
				}
				e->index = plan->count++;
				r = &plan->residuals[e->index];
				memset(r, 0, sizeof(Residual));
				r->order = key.order;
				memcpy(r->attrs, key.attrs, sizeof(r->attrs));
				r->rows = r->cells = 1.0;
				for (int b = 0; b < key.order; b++)
				{
					r->rows *= sizes[key.attrs[b]] - 1;
					r->cells *= sizes[key.attrs[b]];
				}
			}
			plan->residuals[e->index].mu += c / rest;
		}
	}
	hash_destroy(index);

	for (int i = 0; i < plan->count; i++)
	{
		Residual   *r = &plan->residuals[i];

		if (r->rows > 0.0 && r->mu > 0.0)
			t += r->rows * sqrt(r->mu / r->cells);
	}
	/* a residual with no rows (an attribute of one value) or no weight is not measured */
	{
		int			kept = 0;

		for (int i = 0; i < plan->count; i++)
		{
			Residual   *r = &plan->residuals[i];

			if (r->rows > 0.0 && r->mu > 0.0)
			{
				r->variance = t / sqrt(r->mu * r->cells);
				plan->residuals[kept++] = *r;
			}
		}
		plan->count = kept;
	}
	plan->total = t * t;
	return plan;
}
