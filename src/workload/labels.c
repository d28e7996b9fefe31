/*
 * labels.c -- readable conditions for workload queries, such as
 * "age in [20,30) and sex = F", and the number formatting they share with
 * error messages.
 */
#include "postgres.h"

#include <math.h>

#include "common/shortest_dec.h"

#include "workload/workload.h"

/* longest list shown in full in a hint */
#define LIST_MAX 20

/*
 * Shortest text that reads back as the same double: "20" rather than
 * "20.000000", yet exact where %g would round bounds such as 1234567.5.
 */
void
workload_append_number(StringInfo buf, double x)
{
	char		s[DOUBLE_SHORTEST_DECIMAL_LEN];

	/* bounds are never meant as -0, and "-0" reads as a mistake */
	if (x == 0)
		x = 0;
	double_to_shortest_decimal_buf(x, s);
	appendStringInfoString(buf, s);
}

/* an open end reads inf, as in the bins' own labels, not Infinity */
static void
append_bound(StringInfo buf, double x)
{
	if (isinf(x))
		appendStringInfoString(buf, x < 0 ? "-inf" : "inf");
	else
		workload_append_number(buf, x);
}

void
workload_append_interval(StringInfo buf, double lo, double hi)
{
	appendStringInfoChar(buf, '[');
	append_bound(buf, lo);
	appendStringInfoChar(buf, ',');
	append_bound(buf, hi);
	appendStringInfoChar(buf, ')');
}

/* " in [20,30)" after an attribute's name; a range open at one end reads " >= 65" or " < 18" */
static void
append_range(StringInfo buf, double lo, double hi)
{
	if (isinf(lo) && !isinf(hi))
	{
		appendStringInfoString(buf, " < ");
		workload_append_number(buf, hi);
	}
	else if (isinf(hi) && !isinf(lo))
	{
		appendStringInfoString(buf, " >= ");
		workload_append_number(buf, lo);
	}
	else
	{
		appendStringInfoString(buf, " in ");
		workload_append_interval(buf, lo, hi);
	}
}

/* "a, b, c", cut short for hints on attributes with many bins */
void
workload_append_list(StringInfo buf, char *const *items, int count)
{
	for (int i = 0; i < count && i < LIST_MAX; i++)
		appendStringInfo(buf, "%s%s", i > 0 ? ", " : "", items[i]);
	if (count > LIST_MAX)
		appendStringInfo(buf, ", ... (%d more)", count - LIST_MAX);
}

static int
cmp_bins(const void *a, const void *b, void *arg)
{
	const WorkloadAttr *attr = arg;
	int			i = *(const int *) a;
	int			j = *(const int *) b;

	if (attr->lo[i] != attr->lo[j])
		return attr->lo[i] < attr->lo[j] ? -1 : 1;
	if (attr->hi[i] != attr->hi[j])
		return attr->hi[i] < attr->hi[j] ? -1 : 1;
	return i - j;
}

/*
 * Selected interval bins as the union of the value ranges they cover, after
 * the attribute's name.  Adjacent bins merge, so bins 20-30 and 30-40 read
 * age in [20,40); bins with a gap between them stay apart, since values in the
 * gap are not counted, and the runs read as one condition each:
 * (age in [18,30) or age >= 65).
 */
static void
append_interval_set(StringInfo buf, const WorkloadAttr *attr, int *sel, int count)
{
	StringInfoData runs;
	int			nruns = 0;
	double		lo = 0,
				hi = 0;

	qsort_arg(sel, count, sizeof(int), cmp_bins, (void *) attr);
	initStringInfo(&runs);
	for (int s = 0; s <= count; s++)
	{
		if (s < count && s > 0 && attr->lo[sel[s]] <= hi)
		{
			hi = Max(hi, attr->hi[sel[s]]);
			continue;
		}
		if (s > 0)
		{
			appendStringInfo(&runs, "%s%s", nruns++ > 0 ? " or " : "", attr->name);
			append_range(&runs, lo, hi);
		}
		if (s < count)
		{
			lo = attr->lo[sel[s]];
			hi = attr->hi[sel[s]];
		}
	}
	if (nruns == 1)
		appendStringInfoString(buf, runs.data);
	else
		appendStringInfo(buf, "(%s)", runs.data);
	pfree(runs.data);
}

/* buf's text at its own size: a StringInfo keeps 1 kB, and AllRange(1024) has 524,800 rows */
static char *
exact_copy(StringInfo buf)
{
	char	   *s = pstrdup(buf->data);

	pfree(buf->data);
	return s;
}

/* the condition of selecting bins sel[0..count-1] (count < k), in bin order */
static char *
selection_condition(const WorkloadAttr *attr, int *sel, int count)
{
	StringInfoData buf;

	initStringInfo(&buf);
	if (attr->is_interval)
		append_interval_set(&buf, attr, sel, count);
	else if (count == 1)
		appendStringInfo(&buf, "%s = %s", attr->name, attr->labels[sel[0]]);
	else
	{
		appendStringInfo(&buf, "%s in (", attr->name);
		for (int s = 0; s < count; s++)
			appendStringInfo(&buf, "%s%s", s > 0 ? ", " : "", attr->labels[sel[s]]);
		appendStringInfoChar(&buf, ')');
	}
	return exact_copy(&buf);
}

/*
 * The condition one block row puts on its attribute, or NULL when the row
 * selects every bin (no condition at all).  A run over ordered interval bins
 * is one interval, written at once: AllRange over k bins has k^2 / 2 rows.
 */
char *
workload_block_row_condition(const WorkloadAttr *attr, WorkloadBlock *block, int row)
{
	int			k = attr->size;
	int		   *sel;
	int			count = 0;
	char	   *cond;

	if (block->lo)
	{
		int			lo = block->lo[row],
					hi = block->hi[row];

		if (hi - lo == k)
			return NULL;
		if (attr->is_ordered)
		{
			StringInfoData buf;

			initStringInfo(&buf);
			appendStringInfoString(&buf, attr->name);
			append_range(&buf, attr->lo[lo], attr->hi[hi - 1]);
			return exact_copy(&buf);
		}
		sel = palloc(sizeof(int) * (hi - lo));
		for (int j = lo; j < hi; j++)
			sel[count++] = j;
	}
	else
	{
		sel = palloc(sizeof(int) * k);
		for (int j = 0; j < k; j++)
			if (MAT(block->matrix, row, j) != 0)
				sel[count++] = j;
		if (count == k)
		{
			pfree(sel);
			return NULL;
		}
	}
	cond = selection_condition(attr, sel, count);
	pfree(sel);
	return cond;
}

/*
 * Whether an attribute's bins cover every number, so that selecting all of them is no condition;
 * any other list leaves values out by its definition (never by the data, which a label must not
 * depend on).
 */
bool
workload_attr_covers_all(const WorkloadAttr *attr)
{
	return attr->is_ordered && isinf(attr->lo[0]) && isinf(attr->hi[attr->size - 1]);
}

/*
 * What "every bin" of an attribute covers, for the label of a total: "age in [0,100)", "sex in
 * (F, M)", "st in (AK, AL, AR, AZ, CA and 45 more)".
 */
#define COVERAGE_LIST_MAX 5
void
workload_append_coverage(StringInfo buf, const WorkloadAttr *attr)
{
	int			k = attr->size;

	appendStringInfoString(buf, attr->name);
	if (attr->is_ordered)
		append_range(buf, attr->lo[0], attr->hi[k - 1]);
	else
	{
		appendStringInfoString(buf, " in (");
		for (int j = 0; j < k && j < COVERAGE_LIST_MAX; j++)
			appendStringInfo(buf, "%s%s", j > 0 ? ", " : "", attr->labels[j]);
		if (k > COVERAGE_LIST_MAX)
			appendStringInfo(buf, " and %d more", k - COVERAGE_LIST_MAX);
		appendStringInfoChar(buf, ')');
	}
}

void
workload_block_row_span(WorkloadBlock *block, int row, int *first, int *last)
{
	const Mat  *m = block->matrix;
	int			k = block->size,
				lo = -1,
				hi = -1,
				count = 0;

	if (block->lo)
	{
		lo = block->lo[row];
		hi = block->hi[row] - 1;
		count = hi - lo + 1;
	}
	else
		for (int j = 0; j < k; j++)
		{
			double		v = MAT(m, row, j);

			if (v == 0)
				continue;
			if (v != 1)
			{
				*first = *last = -1;
				return;
			}
			if (lo < 0)
				lo = j;
			hi = j;
			count++;
		}
	if (count == k)
		*first = *last = 0;
	else if (count > 0 && count == hi - lo + 1)
	{
		*first = lo + 1;
		*last = hi + 1;
	}
	else
		*first = *last = -1;
}
