/*
 * planner.c -- ResidualPlanner's closed-form plan for the sum of variances
 * (residual.h says what is computed and why it is optimal).
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/hsearch.h"

#include "linalg/linalg.h"
#include "strategy/residual/residual.h"
#include "workload/workload.h"

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

/*
 * Term j's blocks: for each kept attribute b (sorted as s), the factor of
 * a residual that keeps it (fin) and of one that sums it out (fout); the
 * rows' u and v kept in w for the term's variances.
 */
static void
term_factors(ResidualWorkload *w, const int *sizes, const int *attrs, int j, const int16 *s, int k,
			 double *fin, double *fout)
{
	for (int b = 0; b < k; b++)
	{
		int			n = sizes[s[b]];
		WorkloadBlock *blk = w->blocks ? w->blocks[(size_t) j * w->width + b] : NULL;
		double		alpha = 0.0,
					beta = 0.0;
		int			rows;
		double	   *sq,
				   *sum,
				   *u,
				   *v;

		if (blk == NULL)
		{
			fin[b] = 1.0;
			fout[b] = 1.0 / n;
			continue;
		}
		if (attrs[(size_t) j * w->width + b] != s[b] + 1)
			elog(ERROR, "a term with blocks must list its attributes in increasing order");
		rows = (int) blk->rows;
		sq = palloc(sizeof(double) * rows);
		sum = palloc(sizeof(double) * rows);
		u = w->u[(size_t) j * w->width + b] = palloc(sizeof(double) * rows);
		v = w->v[(size_t) j * w->width + b] = palloc(sizeof(double) * rows);
		workload_block_moments(blk, sq, sum);
		for (int r = 0; r < rows; r++)
		{
			u[r] = sq[r] - sum[r] * sum[r] / n;
			v[r] = sum[r] * sum[r] / ((double) n * n);
			alpha += u[r];
			beta += v[r];
		}
		fin[b] = n > 1 ? alpha / (n - 1) : 0.0;
		fout[b] = beta;
		pfree(sq);
		pfree(sum);
	}
}

/* the index of the subset key, added (mu 0) if new */
static int
intern_one(ResidualWorkload *w, const SubsetKey *key, const int *sizes)
{
	bool		found;
	SubsetEntry *e = hash_search(w->index, key, HASH_ENTER, &found);
	Residual   *r;

	if (found)
		return e->index;
	if (w->count == w->capacity)
	{
		w->capacity *= 2;
		w->residuals = repalloc_huge(w->residuals, sizeof(Residual) * w->capacity);
	}
	e->index = w->count++;
	r = &w->residuals[e->index];
	memset(r, 0, sizeof(Residual));
	r->order = key->order;
	memcpy(r->attrs, key->attrs, sizeof(r->attrs));
	r->rows = r->cells = 1.0;
	for (int b = 0; b < key->order; b++)
	{
		r->rows *= sizes[key->attrs[b]] - 1;
		r->cells *= sizes[key->attrs[b]];
	}
	return e->index;
}

int
residual_intern(ResidualWorkload *w, const int16 *attrs, int order, const int *sizes)
{
	SubsetKey	key;

	Assert(order <= RESIDUAL_MAX_ORDER);
	for (uint32 mask = 0; mask < ((uint32) 1 << order); mask++)
	{
		memset(&key, 0, sizeof(key));
		for (int b = 0; b < order; b++)
			if (mask & ((uint32) 1 << b))
				key.attrs[key.order++] = attrs[b];
		(void) intern_one(w, &key, sizes);
	}
	return residual_find(w, attrs, order);
}

/*
 * Tables on more attributes than any marginal of the workload, for a
 * Laplace plan (laplace.c): one measurement then serves several marginals,
 * which pays where attributes have few values (the whole table of three
 * binary attributes beats its three 2-way marginals).  Every subset of the
 * attributes the workload names when there are at most 12 of them (HDMM's
 * whole marginals template), else each largest marginal with one attribute
 * more, while there are at most 50,000 candidates; never a table larger
 * than the workload's largest or 4096 cells, whichever is more.
 */
void
residual_add_candidates(ResidualWorkload *w, const int *sizes, int d)
{
	int			used[RESIDUAL_MAX_ORDER * 4];
	int			nused = 0,
				terms = w->count;
	double		cap = 4096.0;
	bool	   *named = palloc0(sizeof(bool) * d);

	for (int j = 0; j < w->m; j++)
	{
		const Residual *s = residual_of_marginal(w, j);

		cap = Max(cap, s->cells);
		for (int b = 0; b < s->order; b++)
			named[s->attrs[b]] = true;
	}
	for (int a = 0; a < d && nused <= 12; a++)
		if (named[a])
			used[nused++] = a;
	if (nused <= 12)
	{
		for (uint32 mask = 1; mask < ((uint32) 1 << nused); mask++)
		{
			int16		attrs[RESIDUAL_MAX_ORDER];
			int			order = 0;
			double		cells = 1.0;

			for (int b = 0; b < nused; b++)
				if (mask & ((uint32) 1 << b))
				{
					attrs[order++] = (int16) used[b];
					cells *= sizes[used[b]];
				}
			if (cells <= cap)
				(void) residual_intern(w, attrs, order, sizes);
		}
		return;
	}
	for (int i = 0; i < terms && w->count < 50000; i++)
	{
		const Residual r = w->residuals[i];

		CHECK_FOR_INTERRUPTS();
		if (r.mu <= 0.0 || r.order >= RESIDUAL_MAX_ORDER)
			continue;
		for (int a = 0; a < d && w->count < 50000; a++)
		{
			int16		attrs[RESIDUAL_MAX_ORDER];
			int			order = 0;
			bool		in = false;

			for (int b = 0; b < r.order; b++)
				in |= r.attrs[b] == a;
			if (in || r.cells * sizes[a] > cap)
				continue;
			/* r's attributes with a, in increasing order */
			for (int b = 0; b < r.order; b++)
			{
				if (order == b && r.attrs[b] > a)
					attrs[order++] = (int16) a;
				attrs[order++] = r.attrs[b];
			}
			if (order == r.order)
				attrs[order++] = (int16) a;
			(void) residual_intern(w, attrs, order, sizes);
		}
	}
}

ResidualWorkload *
residual_workload(const int *sizes, int d, const int *attrs, int m, int width, const double *weights,
				  WorkloadBlock **blocks)
{
	HASHCTL		ctl;
	ResidualWorkload *w = palloc0(sizeof(ResidualWorkload));
	int			pairs = 0,
				pair_capacity = 64;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(SubsetKey);
	ctl.entrysize = sizeof(SubsetEntry);
	ctl.hcxt = CurrentMemoryContext;
	w->index = hash_create("residual subsets", 1024, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	w->capacity = 64;
	w->residuals = palloc(sizeof(Residual) * w->capacity);
	w->m = m;
	w->first = palloc(sizeof(int) * (m + 1));
	w->member = palloc(sizeof(int) * pair_capacity);
	w->spread = palloc(sizeof(double) * pair_capacity);
	w->width = width;
	w->blocks = blocks;
	if (blocks)
	{
		w->u = palloc0(sizeof(double *) * Max(m, 1) * width);
		w->v = palloc0(sizeof(double *) * Max(m, 1) * width);
	}

	/* every subset A of every marginal S gets c_S / N_{S \ A} added to its mu (residual.h) */
	for (int j = 0; j < m; j++)
	{
		int16		s[RESIDUAL_MAX_ORDER];
		int			k = marginal_attrs(attrs, j, width, d, s);
		double		c = weights ? weights[j] * weights[j] : 1.0;
		double		fin[RESIDUAL_MAX_ORDER],
					fout[RESIDUAL_MAX_ORDER];

		CHECK_FOR_INTERRUPTS();
		term_factors(w, sizes, attrs, j, s, k, fin, fout);
		w->first[j] = pairs;
		for (uint32 mask = 0; mask < ((uint32) 1 << k); mask++)
		{
			SubsetKey	key;
			int			at;
			double		rest = 1.0,
						weight = c;

			memset(&key, 0, sizeof(key));
			for (int b = 0; b < k; b++)
			{
				if (mask & ((uint32) 1 << b))
				{
					key.attrs[key.order++] = s[b];
					weight *= fin[b];
				}
				else
				{
					rest *= sizes[s[b]];
					weight *= fout[b];
				}
			}
			at = intern_one(w, &key, sizes);
			w->residuals[at].mu += weight;
			if (pairs == pair_capacity)
			{
				pair_capacity *= 2;
				w->member = repalloc_huge(w->member, sizeof(int) * pair_capacity);
				w->spread = repalloc_huge(w->spread, sizeof(double) * pair_capacity);
			}
			w->member[pairs] = at;
			w->spread[pairs++] = rest;
		}
	}
	w->first[m] = pairs;
	return w;
}

int
residual_find(const ResidualWorkload *w, const int16 *attrs, int order)
{
	SubsetKey	key;
	SubsetEntry *e;

	memset(&key, 0, sizeof(key));
	key.order = order;
	memcpy(key.attrs, attrs, sizeof(int16) * order);
	e = hash_search(w->index, &key, HASH_FIND, NULL);
	return e ? e->index : -1;
}

ResidualPlan *
residual_measured(const ResidualWorkload *w, const double *variance)
{
	ResidualPlan *plan = palloc0(sizeof(ResidualPlan));

	plan->residuals = palloc(sizeof(Residual) * Max(w->count, 1));
	for (int i = 0; i < w->count; i++)
	{
		const Residual *r = &w->residuals[i];

		if (r->rows > 0.0 && r->mu > 0.0)
		{
			plan->residuals[plan->count] = *r;
			if (variance)
				plan->residuals[plan->count].variance = variance[i];
			plan->count++;
		}
	}
	return plan;
}

ResidualPlan *
residual_plan_workload(ResidualWorkload *w)
{
	ResidualPlan *plan;
	VecSum		sum = {0};
	double		t;

	for (int i = 0; i < w->count; i++)
	{
		Residual   *r = &w->residuals[i];

		if (r->rows > 0.0 && r->mu > 0.0)
			vec_sum_add(&sum, r->rows * sqrt(r->mu / r->cells));
	}
	t = vec_sum_value(&sum);
	for (int i = 0; i < w->count; i++)
	{
		Residual   *r = &w->residuals[i];

		r->variance = r->rows > 0.0 && r->mu > 0.0 ? t / sqrt(r->mu * r->cells) : 0.0;
	}
	plan = residual_measured(w, NULL);
	plan->total = t * t;
	plan->cost2 = 1.0;
	return plan;
}

ResidualPlan *
residual_plan(const int *sizes, int d, const int *attrs, int m, int width, const double *weights)
{
	return residual_plan_workload(residual_workload(sizes, d, attrs, m, width, weights, NULL));
}
