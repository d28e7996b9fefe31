/*
 * integer.c -- integer tables that agree on what they share (inference
 * nnls_integer on a residual strategy).
 *
 * Rounding each non-negative table on its own would break the agreement of
 * overlapping marginals, and consistent integer tables need not even exist
 * near the estimate.  Tables counted from a set of records always agree, so
 * the integer tables here are those of N records (N the rounded total),
 * chosen to make sum_S |C_S - u_S|^2 small, C_S the records' table S and u_S
 * the non-negative estimate.  That is post-processing: no budget, and the
 * records are never shown.
 *
 * The records are kept as distinct value vectors with multiplicities, at
 * most max_types of them.  They start from the largest table rounded to
 * integers, then gain one attribute at a time, each record's count split
 * over the attribute's values as the estimate of a table holding it says,
 * given the attributes already set that the table shares.  Then local
 * search: moving k records of one kind to another value of one attribute
 * changes the objective by 2k G + 2k^2 n_a (G the sum over the n_a tables
 * holding the attribute of the change of C_S - u_S between the two cells),
 * so each move takes the best k in closed form; sweeps stop when none
 * improves.  Everything is deterministic: the same estimate gives the same
 * tables.  No library does this search, hence the code.
 */
#include "postgres.h"

#include <limits.h>
#include <math.h>

#include "miscadmin.h"

#include "progress/progress.h"
#include "strategy/residual/residual.h"

typedef struct Records
{
	int			nu;				/* attributes in any table */
	int		   *attr;			/* their indexes */
	int		   *pos;			/* per attribute index: its position in attr */
	int			count;
	int			max_types;
	int32	   *vals;			/* count x nu; -1: not set yet */
	int64	   *mult;
	double	  **stride;			/* per table, per attribute position: its stride, 0 if absent */
} Records;

/* cell of the records' kind r in table k */
static size_t
cell_of(const Records *rec, int k, const int32 *vals)
{
	double		c = 0;

	for (int p = 0; p < rec->nu; p++)
		c += rec->stride[k][p] * vals[p];
	return (size_t) c;
}

/* counts[i] <- non-negative integers summing to total, proportional to w (largest remainders, ties to the first) */
static void
apportion(const double *w, int n, int64 total, int64 *counts)
{
	double		sum = 0;
	int64		given = 0;
	double	   *rem = palloc(sizeof(double) * n);

	for (int i = 0; i < n; i++)
		sum += Max(w[i], 0.0);
	for (int i = 0; i < n; i++)
	{
		double		share = sum > 0 ? Max(w[i], 0.0) / sum * (double) total : (i == 0 ? (double) total : 0.0);

		counts[i] = (int64) floor(share);
		rem[i] = share - (double) counts[i];
		given += counts[i];
	}
	while (given < total)
	{
		int			best = 0;

		for (int i = 1; i < n; i++)
			if (rem[i] > rem[best])
				best = i;
		counts[best]++;
		rem[best] = -1.0;
		given++;
	}
	pfree(rem);
}

/* a new kind of records, a copy of kind `from` with `count` of them; false when max_types are in use */
static bool
add_kind(Records *rec, int from, int64 count)
{
	if (rec->count >= rec->max_types)
		return false;
	memcpy(&rec->vals[(size_t) rec->count * rec->nu], &rec->vals[(size_t) from * rec->nu], sizeof(int32) * rec->nu);
	rec->mult[rec->count++] = count;
	return true;
}

/*
 * Position p among the records' attributes gets its values: each kind's
 * count split as table k's estimate, summed to the attributes already set
 * and this one, says for the kind's values on them.
 */
static void
set_attribute(Records *rec, const ResidualTables *t, const int *sizes, const double *u, int k, int p,
			  const bool *set)
{
	const Residual *s = t->sets[k];
	int			n = sizes[rec->attr[p]];
	double	   *keep = palloc0(sizeof(double) * Max(rec->nu, 1));
	double	   *m = palloc0(sizeof(double) * (size_t) s->cells);
	double	   *w = palloc(sizeof(double) * n);
	int64	   *counts = palloc(sizeof(int64) * n);
	double		stride = 1;
	int			kinds = rec->count;
	Residual	sub = {0};
	int		   *map;

	/* the table summed to the set attributes and p (sub), and sub's strides by position */
	for (int b = 0; b < s->order; b++)
		if (rec->pos[s->attrs[b]] == p || set[s->attrs[b]])
			sub.attrs[sub.order++] = s->attrs[b];
	for (int b = sub.order - 1; b >= 0; b--)
	{
		keep[rec->pos[sub.attrs[b]]] = stride;
		stride *= sizes[sub.attrs[b]];
	}
	map = residual_subset_index(s, &sub, sizes);
	for (size_t c = 0; c < (size_t) s->cells; c++)
		m[map[c]] += u[(size_t) t->offset[k] + c];
	pfree(map);
	for (int r = 0; r < kinds; r++)
	{
		double		base = 0;
		int			first = -1;

		CHECK_FOR_INTERRUPTS();
		for (int q = 0; q < rec->nu; q++)
			if (q != p && keep[q] > 0)
				base += keep[q] * rec->vals[(size_t) r * rec->nu + q];
		for (int v = 0; v < n; v++)
			w[v] = m[(size_t) (base + keep[p] * v)];
		apportion(w, n, rec->mult[r], counts);
		for (int v = 0; v < n; v++)
		{
			if (counts[v] == 0)
				continue;
			if (first < 0)
				first = v;
			/* past max_types, the rest stay with the first value: the search moves them */
			else if (add_kind(rec, r, counts[v]))
				rec->vals[(size_t) (rec->count - 1) * rec->nu + p] = v;
			else
				counts[first] += counts[v];
		}
		rec->vals[(size_t) r * rec->nu + p] = Max(first, 0);
		if (first >= 0)
			rec->mult[r] = counts[first];
	}
	pfree(keep);
	pfree(m);
	pfree(w);
	pfree(counts);
}

/* residual.h */
void
residual_integer_tables(const ResidualTables *t, const int *sizes, const double *u, double max_bytes, double *out)
{
	Records		rec;
	bool	   *set;
	int			largest = 0,
				nattrs = 0;
	int64		total;
	int64	   *counts;
	double		sum = 0,
				objective = 0;
	size_t		cells = (size_t) t->cells;
	int		  **holds;
	int		   *nholds;
	size_t	   *from;

	/* the attributes of the tables */
	for (int k = 0; k < t->count; k++)
		for (int b = 0; b < t->sets[k]->order; b++)
			nattrs = Max(nattrs, t->sets[k]->attrs[b] + 1);
	set = palloc0(sizeof(bool) * Max(nattrs, 1));
	rec.nu = 0;
	rec.attr = palloc(sizeof(int) * Max(nattrs, 1));
	rec.pos = palloc0(sizeof(int) * Max(nattrs, 1));
	for (int k = 0; k < t->count; k++)
		for (int b = 0; b < t->sets[k]->order; b++)
			set[t->sets[k]->attrs[b]] = true;
	for (int a = 0; a < nattrs; a++)
		if (set[a])
		{
			rec.pos[a] = rec.nu;
			rec.attr[rec.nu++] = a;
		}
	rec.stride = palloc(sizeof(double *) * Max(t->count, 1));
	for (int k = 0; k < t->count; k++)
	{
		double		stride = 1;

		rec.stride[k] = palloc0(sizeof(double) * Max(rec.nu, 1));
		for (int b = t->sets[k]->order - 1; b >= 0; b--)
		{
			rec.stride[k][rec.pos[t->sets[k]->attrs[b]]] = stride;
			stride *= sizes[t->sets[k]->attrs[b]];
		}
		if (t->sets[k]->cells > t->sets[largest]->cells)
			largest = k;
	}

	/* N: the tables' common total */
	for (size_t i = 0; i < (size_t) t->sets[largest]->cells; i++)
		sum += u[(size_t) t->offset[largest] + i];
	total = (int64) llround(sum);
	memset(out, 0, sizeof(double) * cells);
	if (total <= 0 || t->count == 0)
		return;

	/*
	 * A kind takes 4 bytes an attribute and its count.  There are never more
	 * kinds than records, and room for the largest table's non-empty cells
	 * is always made.
	 */
	rec.max_types = (int) Min(Min((double) total, (double) INT_MAX / 2),
							  Max(max_bytes / (4.0 * rec.nu + 8.0), t->sets[largest]->cells));

	/* the largest table, rounded: a kind per non-empty cell */
	rec.vals = palloc_extended(sizeof(int32) * (size_t) rec.max_types * Max(rec.nu, 1), MCXT_ALLOC_HUGE);
	rec.mult = palloc_extended(sizeof(int64) * (size_t) rec.max_types, MCXT_ALLOC_HUGE);
	rec.count = 0;
	counts = palloc_extended(sizeof(int64) * (size_t) t->sets[largest]->cells, MCXT_ALLOC_HUGE);
	apportion(u + (size_t) t->offset[largest], (int) t->sets[largest]->cells, total, counts);
	memset(set, 0, sizeof(bool) * Max(nattrs, 1));
	for (size_t c = 0; c < (size_t) t->sets[largest]->cells; c++)
	{
		size_t		rest = c;
		int32	   *vals;

		if (counts[c] == 0)
			continue;
		vals = &rec.vals[(size_t) rec.count * rec.nu];
		for (int p = 0; p < rec.nu; p++)
			vals[p] = -1;
		for (int b = t->sets[largest]->order - 1; b >= 0; b--)
		{
			int			a = t->sets[largest]->attrs[b];

			vals[rec.pos[a]] = (int32) (rest % sizes[a]);
			rest /= sizes[a];
		}
		rec.mult[rec.count++] = counts[c];
	}
	for (int b = 0; b < t->sets[largest]->order; b++)
		set[t->sets[largest]->attrs[b]] = true;
	pfree(counts);

	/* then one attribute at a time, from the table sharing the most attributes already set */
	for (;;)
	{
		int			best_k = -1,
					best_p = -1,
					best_shared = -1;

		for (int k = 0; k < t->count; k++)
		{
			int			shared = 0,
						unset = -1;

			for (int b = 0; b < t->sets[k]->order; b++)
				if (set[t->sets[k]->attrs[b]])
					shared++;
				else if (unset < 0)
					unset = t->sets[k]->attrs[b];
			if (unset >= 0 && shared > best_shared)
			{
				best_shared = shared;
				best_k = k;
				best_p = rec.pos[unset];
			}
		}
		if (best_k < 0)
			break;
		set_attribute(&rec, t, sizes, u, best_k, best_p, set);
		set[rec.attr[best_p]] = true;
	}

	/* the records' tables */
	for (int r = 0; r < rec.count; r++)
		for (int k = 0; k < t->count; k++)
			out[(size_t) t->offset[k] + cell_of(&rec, k, &rec.vals[(size_t) r * rec.nu])] += rec.mult[r];

	/*
	 * Local search: move records of a kind to another value of one attribute
	 * while it helps, until a sweep gains less than 1e-6 of the objective.
	 * holds[p] lists the tables holding attribute p; from[] is the kind's
	 * cell in each.
	 */
	holds = palloc(sizeof(int *) * Max(rec.nu, 1));
	nholds = palloc0(sizeof(int) * Max(rec.nu, 1));
	for (int p = 0; p < rec.nu; p++)
	{
		holds[p] = palloc(sizeof(int) * Max(t->count, 1));
		for (int k = 0; k < t->count; k++)
			if (rec.stride[k][p] > 0)
				holds[p][nholds[p]++] = k;
	}
	from = palloc(sizeof(size_t) * Max(t->count, 1));
	for (size_t i = 0; i < cells; i++)
		objective += (out[i] - u[i]) * (out[i] - u[i]);
	for (int sweep = 0; sweep < 1000; sweep++)
	{
		double		gained = 0;

		for (int r = 0; r < rec.count; r++)
		{
			int32	   *vals = &rec.vals[(size_t) r * rec.nu];

			CHECK_FOR_INTERRUPTS();
			progress_update("nnls_integer", sweep, NAN, NAN);
			for (int p = 0; p < rec.nu && rec.mult[r] > 0; p++)
			{
				int			a = rec.attr[p],
							v0 = vals[p],
							best_v = -1,
							holding = nholds[p];
				double		best_gain = 0,
							best_k = 0;

				for (int h = 0; h < holding; h++)
					from[h] = (size_t) t->offset[holds[p][h]] + cell_of(&rec, holds[p][h], vals);
				for (int v = 0; v < sizes[a]; v++)
				{
					double		g = 0,
								kk,
								gain;

					if (v == v0)
						continue;
					for (int h = 0; h < holding; h++)
					{
						size_t		to = (size_t) ((double) from[h] + (v - v0) * rec.stride[holds[p][h]][p]);

						g += (out[to] - u[to]) - (out[from[h]] - u[from[h]]);
					}
					/* the change 2 k g + 2 k^2 holding is least at k = -g / (2 holding) */
					kk = Min((double) rec.mult[r], Max(0.0, rint(-g / (2.0 * holding))));
					gain = -(2.0 * kk * g + 2.0 * kk * kk * holding);
					if (kk >= 1 && gain > best_gain * (1 + 1e-12) + 1e-9)
					{
						best_gain = gain;
						best_v = v;
						best_k = kk;
					}
				}
				if (best_v < 0)
					continue;
				/* all of the kind, or a new kind if there is room for one */
				if (best_k < rec.mult[r])
				{
					if (!add_kind(&rec, r, (int64) best_k))
						continue;
					rec.mult[r] -= (int64) best_k;
					rec.vals[(size_t) (rec.count - 1) * rec.nu + p] = best_v;
				}
				else
					vals[p] = best_v;
				for (int h = 0; h < holding; h++)
				{
					out[from[h]] -= best_k;
					out[(size_t) ((double) from[h] + (best_v - v0) * rec.stride[holds[p][h]][p])] += best_k;
				}
				gained += best_gain;
			}
		}
		objective -= gained;
		if (!(gained > 1e-6 * objective))
			break;
	}
}
