/*
 * blocks.c -- the per-attribute query blocks of a workload term (Identity,
 * Total, Prefix, AllRange, Hierarchical, explicit Ranges), and the
 * resolution of a written range to the bins it selects.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "pg_compat.h"
#include "workload/workload.h"

/*
 * Nodes of the hierarchical tree over len bins: the node itself plus its
 * subtrees.  Parts differ in size by at most one, so only two sizes recur
 * per level; plain recursion stays O(len) and needs no memory.
 */
static double
hierarchical_nodes(int len, int branching)
{
	int			parts,
				base,
				rem;

	if (len <= 1)
		return 1;
	parts = Min(branching, len);
	base = len / parts;
	rem = len % parts;
	/* when rem = 0 there is no part of size base + 1: do not recurse into one */
	return 1 + (rem > 0 ? rem * hierarchical_nodes(base + 1, branching) : 0)
		+ (parts - rem) * hierarchical_nodes(base, branching);
}

WorkloadBlock *
workload_block_new(BlockKind kind, int size, int branching)
{
	WorkloadBlock *b = palloc0(sizeof(WorkloadBlock));

	Assert(size >= 1);
	b->kind = kind;
	b->size = size;
	b->branching = branching;
	switch (kind)
	{
		case BLOCK_IDENTITY:
		case BLOCK_PREFIX:
			b->rows = size;
			break;
		case BLOCK_TOTAL:
			b->rows = 1;
			break;
		case BLOCK_ALLRANGE:
			b->rows = (double) size * (size + 1) / 2;
			break;
		case BLOCK_HIERARCHICAL:
			Assert(branching >= 2);
			b->rows = hierarchical_nodes(size, branching);
			break;
		case BLOCK_RANGES:
			elog(ERROR, "ranges blocks are made by workload_block_ranges");
	}
	return b;
}

/* rows: a list of double[size], one 0/1 row per range as written */
WorkloadBlock *
workload_block_ranges(int size, List *rows)
{
	WorkloadBlock *b = palloc0(sizeof(WorkloadBlock));
	int			r = 0;
	ListCell   *lc;

	b->kind = BLOCK_RANGES;
	b->size = size;
	b->rows = list_length(rows);
	b->matrix = mat_new(list_length(rows), size);
	foreach(lc, rows)
	{
		double	   *row = lfirst(lc);

		for (int j = 0; j < size; j++)
			MAT(b->matrix, r, j) = row[j];
		r++;
	}
	return b;
}

/* breadth first, so the rows come level by level as documented */
static void
hierarchical_runs(int k, int branching, int nodes, int *lo, int *hi)
{
	int			head = 0,
				tail = 0;

	lo[tail] = 0;
	hi[tail++] = k;
	while (head < tail)
	{
		int			len = hi[head] - lo[head];
		int			start = lo[head];
		int			parts = Min(branching, len);

		CHECK_FOR_INTERRUPTS();
		head++;
		if (len <= 1)
			continue;
		/* larger parts first, sizes differing by at most one */
		for (int c = 0; c < parts; c++)
		{
			int			part = len / parts + (c < len % parts ? 1 : 0);

			Assert(tail < nodes);
			lo[tail] = start;
			hi[tail++] = start + part;
			start += part;
		}
	}
	Assert(tail == nodes);
}

/* Ranges: the rows as written, each a run of ones (else false) */
static bool
ranges_runs(const Mat *m, int *lo, int *hi)
{
	for (int r = 0; r < m->rows; r++)
	{
		int			first = -1,
					last = -1;

		for (int j = 0; j < m->cols; j++)
		{
			double		v = MAT(m, r, j);

			if (v == 0)
				continue;
			if (v != 1 || (last >= 0 && last != j - 1))
				return false;
			if (first < 0)
				first = j;
			last = j;
		}
		if (first < 0)
			return false;
		lo[r] = first;
		hi[r] = last + 1;
	}
	return true;
}

/*
 * The block's rows as runs of bins, b->lo[r] .. b->hi[r] - 1, built on first
 * use: every block but Ranges of bins out of order is one, and a run is two
 * numbers where a row of the matrix is k.  False when some row is no run
 * (then only workload_block_matrix describes it).  Memory is two ints per row.
 */
bool
workload_block_runs(WorkloadBlock *b)
{
	int			k = b->size;
	int			rows;
	int			r = 0;

	if (b->lo)
		return true;
	if (b->runs_checked)
		return false;
	/* the same bound as one column of answers */
	mat_check_size(b->rows, 1, "workload block");
	rows = (int) b->rows;
	b->lo = palloc_extended(sizeof(int) * Max(rows, 1), MCXT_ALLOC_HUGE);
	b->hi = palloc_extended(sizeof(int) * Max(rows, 1), MCXT_ALLOC_HUGE);
	b->runs_checked = true;
	switch (b->kind)
	{
		case BLOCK_IDENTITY:
			for (int j = 0; j < k; j++)
			{
				b->lo[j] = j;
				b->hi[j] = j + 1;
			}
			break;
		case BLOCK_TOTAL:
			b->lo[0] = 0;
			b->hi[0] = k;
			break;
		case BLOCK_PREFIX:
			for (int i = 0; i < k; i++)
			{
				b->lo[i] = 0;
				b->hi[i] = i + 1;
			}
			break;
		case BLOCK_ALLRANGE:
			for (int i = 0; i < k; i++)
			{
				CHECK_FOR_INTERRUPTS();
				for (int j = i; j < k; j++, r++)
				{
					b->lo[r] = i;
					b->hi[r] = j + 1;
				}
			}
			break;
		case BLOCK_HIERARCHICAL:
			hierarchical_runs(k, b->branching, rows, b->lo, b->hi);
			break;
		case BLOCK_RANGES:
			if (!ranges_runs(b->matrix, b->lo, b->hi))
			{
				pfree(b->lo);
				pfree(b->hi);
				b->lo = b->hi = NULL;
				return false;
			}
			break;
	}
	return true;
}

Mat *
workload_block_matrix(WorkloadBlock *b)
{
	Mat		   *m;

	if (b->matrix)
		return b->matrix;
	mat_check_size(b->rows, b->size, "workload block");
	/* every block made by workload_block_new is runs (Ranges come with their matrix) */
	if (!workload_block_runs(b))
		elog(ERROR, "workload block without its rows");
	m = mat_new((int) b->rows, b->size);
	for (int r = 0; r < m->rows; r++)
	{
		CHECK_FOR_INTERRUPTS();
		for (int c = b->lo[r]; c < b->hi[r]; c++)
			MAT(m, r, c) = 1.0;
	}
	b->matrix = m;
	return m;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

/* sorted distinct bin boundaries of an interval attribute; returns the count */
static int
boundaries(const WorkloadAttr *attr, double **out)
{
	double	   *v = palloc(sizeof(double) * 2 * attr->size);
	int			n = 0;

	for (int j = 0; j < attr->size; j++)
	{
		v[n++] = attr->lo[j];
		v[n++] = attr->hi[j];
	}
	qsort(v, n, sizeof(double), cmp_double);
	{
		int			u = 0;

		for (int i = 0; i < n; i++)
			if (u == 0 || v[i] != v[u - 1])
				v[u++] = v[i];
		n = u;
	}
	*out = v;
	return n;
}

pg_noreturn static void
unaligned(const WorkloadAttr *attr, const char *range, double x)
{
	double	   *b;
	int			n = boundaries(attr, &b);
	int			i = 0;
	StringInfoData detail;
	StringInfoData list;
	char	  **items = palloc(sizeof(char *) * n);

	initStringInfo(&detail);
	workload_append_number(&detail, x);
	while (i < n && b[i] < x)
		i++;
	if (i == 0)
		appendStringInfoString(&detail, " lies below the first bin boundary ");
	else if (i == n)
		appendStringInfoString(&detail, " lies above the last bin boundary ");
	else
	{
		appendStringInfoString(&detail, " lies between the bin boundaries ");
		workload_append_number(&detail, b[i - 1]);
		appendStringInfoString(&detail, " and ");
	}
	workload_append_number(&detail, b[i == n ? n - 1 : i]);

	for (int j = 0; j < n; j++)
	{
		StringInfoData s;

		initStringInfo(&s);
		workload_append_number(&s, b[j]);
		items[j] = s.data;
	}
	initStringInfo(&list);
	workload_append_list(&list, items, n);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("range %s of attribute \"%s\" does not align with its bins",
					range, attr->name),
			 errdetail("%s.", detail.data),
			 errhint("Both ends of a range must be bin boundaries of %s: %s.",
					 attr->name, list.data)));
}

/*
 * Mark the bins of attr inside [lo, hi).  Both ends must be bin boundaries
 * and no bin may straddle an end: the answer must be a sum of whole bins,
 * because counts inside a bin are not known.
 */
void
workload_range_by_bounds(const WorkloadAttr *attr, double lo, double hi, double *row)
{
	int			k = attr->size;
	bool		lo_ok = false,
				hi_ok = false;
	int			inside = 0;
	StringInfoData range;

	initStringInfo(&range);
	workload_append_interval(&range, lo, hi);
	if (!attr->is_interval)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("attribute \"%s\" has bins that are not numeric intervals, so range %s cannot select them",
						attr->name, range.data),
				 errhint("Select its bins by label, such as '%s' or '%s':'%s'.",
						 attr->labels[0], attr->labels[0], attr->labels[k - 1])));
	if (!(lo < hi))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("range %s of attribute \"%s\" is empty", range.data, attr->name),
				 errhint("Write a range as [lo, hi) with lo < hi.")));
	for (int j = 0; j < k; j++)
	{
		lo_ok = lo_ok || lo == attr->lo[j] || lo == attr->hi[j];
		hi_ok = hi_ok || hi == attr->lo[j] || hi == attr->hi[j];
	}
	if (!lo_ok)
		unaligned(attr, range.data, lo);
	if (!hi_ok)
		unaligned(attr, range.data, hi);

	for (int j = 0; j < k; j++)
	{
		if (attr->lo[j] >= lo && attr->hi[j] <= hi)
		{
			row[j] = 1.0;
			inside++;
		}
		else if (attr->lo[j] < hi && attr->hi[j] > lo)
		{
			/* only overlapping bins can get here: both ends are boundaries */
			StringInfoData bin;

			initStringInfo(&bin);
			workload_append_interval(&bin, attr->lo[j], attr->hi[j]);
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("range %s of attribute \"%s\" does not align with its bins",
							range.data, attr->name),
					 errdetail("The range cuts bin \"%s\" %s.", attr->labels[j], bin.data)));
		}
	}
	if (inside == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("range %s of attribute \"%s\" is empty", range.data, attr->name),
				 errdetail("No bin of %s lies inside the range.", attr->name)));
}

static int
find_label(const WorkloadAttr *attr, const char *label)
{
	int			found = -1;

	for (int j = 0; j < attr->size; j++)
	{
		if (strcmp(attr->labels[j], label) != 0)
			continue;
		if (found >= 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("bin label \"%s\" is ambiguous in attribute \"%s\"", label, attr->name),
					 errdetail("Bins %d and %d have that label.", found + 1, j + 1),
					 attr->is_interval ?
					 errhint("Select the bins by their bounds, written [lo, hi).") : 0));
		found = j;
	}
	if (found < 0)
	{
		StringInfoData list;

		initStringInfo(&list);
		workload_append_list(&list, attr->labels, attr->size);
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("attribute \"%s\" has no bin labelled \"%s\"", attr->name, label),
				 errhint("The bins of %s are %s.", attr->name, list.data)));
	}
	return found;
}

/* bins first..last by label, both included, in bin order */
void
workload_range_by_labels(const WorkloadAttr *attr, const char *first, const char *last, double *row)
{
	int			i = find_label(attr, first);
	int			j = find_label(attr, last);

	if (i > j)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("range '%s':'%s' of attribute \"%s\" is empty", first, last, attr->name),
				 errdetail("Bin \"%s\" comes after bin \"%s\".", first, last),
				 errhint("Name the earlier bin first.")));
	for (int c = i; c <= j; c++)
		row[c] = 1.0;
}
