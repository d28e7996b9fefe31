/*
 * workload.c -- from a parsed spec to the dense workload matrix and its
 * labels, plus the consistency checks on the domain a spec is read against.
 */
#include "postgres.h"

#include <limits.h>
#include <math.h>

#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "utils/memutils.h"

#include "workload/workload.h"

void
workload_domain_check(WorkloadDomain *dom)
{
	double		cells = 1;

	if (dom->nattrs < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a domain needs at least one attribute")));
	for (int a = 0; a < dom->nattrs; a++)
	{
		WorkloadAttr *attr = &dom->attrs[a];

		if (attr->name[0] == '\0')
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("attribute %d has an empty name", a + 1)));
		for (int b = 0; b < a; b++)
			if (strcmp(dom->attrs[b].name, attr->name) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_DUPLICATE_OBJECT),
						 errmsg("attribute \"%s\" appears twice in the domain", attr->name),
						 errhint("A spec names attributes, so each name must be unique.")));
		if (attr->size < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("attribute \"%s\" must have at least one bin, got %d",
							attr->name, attr->size)));
		cells *= attr->size;

		attr->is_interval = true;
		for (int j = 0; j < attr->size; j++)
		{
			bool		lo_nan = isnan(attr->lo[j]);

			if (lo_nan != isnan(attr->hi[j]))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("bin \"%s\" of attribute \"%s\" has only one bound",
								attr->labels[j], attr->name),
						 errhint("Give both bounds for an interval bin, or NaN for both otherwise.")));
			if (lo_nan)
				attr->is_interval = false;
			else if (!(attr->lo[j] < attr->hi[j]))
			{
				StringInfoData bin;

				initStringInfo(&bin);
				workload_append_interval(&bin, attr->lo[j], attr->hi[j]);
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("bin \"%s\" of attribute \"%s\" is the empty interval %s",
								attr->labels[j], attr->name, bin.data)));
			}
		}
		/* a run of such bins reads as one interval, without sorting them (labels.c) */
		attr->is_ordered = attr->is_interval;
		for (int j = 1; j < attr->size && attr->is_ordered; j++)
			attr->is_ordered = attr->lo[j] == attr->hi[j - 1];
	}
	if (cells > INT_MAX && !dom->wide)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("domain has %.0f cells, more than the %d a workload matrix can have",
						cells, INT_MAX)));
	dom->cells = dom->wide ? 0 : (int) cells;
}

void
workload_require_dense(const WorkloadDomain *dom, const char *what)
{
	if (dom->wide)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s needs a dense cell index, which domain \"%s\" does not have (too many cells)",
						what, dom->name ? dom->name : "?"),
				 errhint("Over a domain this wide, ask for marginals (Marginal(a, b), Marginals(k)) and use method residual.")));
}

/* queries in the union of the terms, as a double so that it cannot overflow */
double
workload_rows(const WorkloadDomain *dom, List *terms)
{
	double		m = 0;
	ListCell   *lc;

	foreach(lc, terms)
	{
		WorkloadTerm *t = lfirst(lc);
		double		rows = 1;

		for (int a = 0; a < dom->nattrs; a++)
			if (t->blocks[a])
				rows *= t->blocks[a]->rows;
		m += rows;
	}
	return m;
}

/* the number of queries, an error past INT_MAX: queries are numbered by int */
int
workload_count(const WorkloadDomain *dom, List *terms)
{
	double		m = workload_rows(dom, terms);

	if (m > INT_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("workload of %.0f queries is too large", m),
				 errhint("Ask fewer queries at once.")));
	return (int) m;
}

void
workload_check_size(const WorkloadDomain *dom, List *terms)
{
	workload_require_dense(dom, "a workload matrix");
	mat_check_size(workload_rows(dom, terms), dom->cells, "workload matrix");
}

/*
 * "age in [20,30) and sex = F" from each attribute's condition, or "total", which says what
 * the domain's bins cover when they leave values out: "total of st in (CA, TX)".
 * Built in the caller's buffer, which workload_build copies at its exact size:
 * a StringInfo per row would cost 1 kB each, a gigabyte for a million queries.
 */
/* attributes a total's label names before it counts the rest */
#define TOTAL_ATTRS_MAX 3

static void
query_label(const WorkloadDomain *dom, char ***conds, const int *rows, int r,
			StringInfo buf, int *digit)
{
	bool		any = false;

	/* the row of a Kronecker product in mixed radix, last factor fastest */
	for (int a = dom->nattrs - 1; a >= 0; a--)
	{
		digit[a] = r % rows[a];
		r /= rows[a];
	}
	resetStringInfo(buf);
	for (int a = 0; a < dom->nattrs; a++)
	{
		char	   *c = conds[a][digit[a]];

		if (c == NULL)
			continue;
		if (any)
			appendStringInfoString(buf, " and ");
		appendStringInfoString(buf, c);
		any = true;
	}
	if (!any)
	{
		int			shown = 0,
					more = 0;

		appendStringInfoString(buf, "total");
		for (int a = 0; a < dom->nattrs; a++)
		{
			if (workload_attr_covers_all(&dom->attrs[a]))
				continue;
			if (shown == TOTAL_ATTRS_MAX)
			{
				more++;
				continue;
			}
			appendStringInfoString(buf, shown++ > 0 ? " and " : " of ");
			workload_append_coverage(buf, &dom->attrs[a]);
		}
		if (more > 0)
			appendStringInfo(buf, " and the bins of %d more attribute%s", more, more > 1 ? "s" : "");
	}
}

/* the labels and spans count against dpm.max_matrix_mb with the matrix they describe */
static void
check_label_memory(int m, int d, const Workload *w, bool want_spans, double label_bytes)
{
	double		mb = ((w->matrix ? (double) m * w->matrix->cols * sizeof(double) : 0.0) +
					  (double) m * (sizeof(char *) + (want_spans ? 2 * d * sizeof(int) : 0)) + label_bytes) /
		(1024.0 * 1024.0);

	if (mb > dpm_max_matrix_mb)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("workload of %d queries needs more than %.0f MB with its labels, the limit is %d MB",
						m, ceil(mb), dpm_max_matrix_mb),
				 errhint("Use a smaller workload, or raise dpm.max_matrix_mb.")));
}

/* attributes a term does not mention are summed over: one Total block per attribute, made once */
static WorkloadBlock *
term_block(const WorkloadDomain *dom, const WorkloadTerm *t, int a, WorkloadBlock **totals)
{
	if (t->blocks[a])
		return t->blocks[a];
	if (totals[a] == NULL)
		totals[a] = workload_block_new(BLOCK_TOTAL, dom->attrs[a].size, 0);
	return totals[a];
}

/*
 * Every query of the terms in order, passed to fn with its label (valid only
 * during the call) and, when want_spans, its 2d span integers.  Only one
 * term's conditions are held at a time, so a caller that streams the labels
 * needs memory for one term, not for the workload.
 */
void
workload_each_query(const WorkloadDomain *dom, List *terms, bool want_spans,
					WorkloadQueryFn fn, void *arg)
{
	int			d = dom->nattrs;
	WorkloadBlock **totals = palloc0(sizeof(WorkloadBlock *) * d);
	int		   *rows = palloc(sizeof(int) * d);
	char	 ***conds = palloc(sizeof(char **) * d);
	int		  **spans = palloc(sizeof(int *) * d);
	int		   *digit = palloc(sizeof(int) * d);
	int		   *span = palloc(sizeof(int) * 2 * d);
	int			query = 0;
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, terms)
	{
		WorkloadTerm *t = lfirst(lc);
		int			trows = 1;

		for (int a = 0; a < d; a++)
		{
			WorkloadBlock *b = term_block(dom, t, a, totals);

			/* the labels need no matrix where the rows are runs */
			if (!workload_block_runs(b))
				(void) workload_block_matrix(b);
			rows[a] = (int) b->rows;
			trows *= rows[a];
			conds[a] = palloc_extended(sizeof(char *) * rows[a], MCXT_ALLOC_HUGE);
			spans[a] = palloc_extended(sizeof(int) * 2 * rows[a], MCXT_ALLOC_HUGE);
			for (int r = 0; r < rows[a]; r++)
			{
				CHECK_FOR_INTERRUPTS();
				conds[a][r] = workload_block_row_condition(&dom->attrs[a], b, r);
				workload_block_row_span(b, r, &spans[a][2 * r], &spans[a][2 * r + 1]);
			}
		}
		for (int r = 0; r < trows; r++)
		{
			CHECK_FOR_INTERRUPTS();
			query_label(dom, conds, rows, r, &buf, digit);
			/* query_label left each attribute's block row in digit */
			for (int a = 0; a < d && want_spans; a++)
			{
				span[2 * a] = spans[a][2 * digit[a]];
				span[2 * a + 1] = spans[a][2 * digit[a] + 1];
			}
			fn(arg, query++, t->weight, buf.data, want_spans ? span : NULL);
		}
		for (int a = 0; a < d; a++)
		{
			for (int r = 0; r < rows[a]; r++)
				if (conds[a][r])
					pfree(conds[a][r]);
			pfree(conds[a]);
			pfree(spans[a]);
		}
	}
	pfree(totals);
	pfree(rows);
	pfree(conds);
	pfree(spans);
	pfree(digit);
	pfree(span);
	pfree(buf.data);
}

/* workload_build's sink: the labels copied at their exact size, counted against dpm.max_matrix_mb */
typedef struct BuildSink
{
	Workload   *w;
	int			m;
	int			d;
	bool		want_spans;
	double		label_bytes;
} BuildSink;

static void
build_query(void *arg, int query, double weight, const char *label, const int *span)
{
	BuildSink  *s = arg;

	if (s->w->weights)
		s->w->weights[query] = weight;
	s->w->labels[query] = pstrdup(label);
	if (span)
		memcpy(&s->w->spans[(size_t) query * 2 * s->d], span, sizeof(int) * 2 * s->d);
	/* palloc rounds small chunks up to a power of two, plus a header */
	s->label_bytes += pg_nextpower2_32((uint32) strlen(label) + 1) + 16;
	if ((query & 1023) == 1023 || query == s->m - 1)
		check_label_memory(s->m, s->d, s->w, s->want_spans, s->label_bytes);
}

/*
 * The rows of each term are written straight into one preallocated matrix
 * rather than stacked with mat_vstack: stacking term by term would copy the
 * growing matrix once per term and hold two copies of it at the end.
 */
Workload *
workload_build(const WorkloadDomain *dom, List *terms, bool want_matrix, bool want_spans)
{
	int			d = dom->nattrs;
	Workload   *w = palloc(sizeof(Workload));
	WorkloadBlock **totals = palloc0(sizeof(WorkloadBlock *) * d);
	BuildSink	sink;
	int			m,
				off = 0;
	ListCell   *lc;

	if (want_matrix)
		workload_check_size(dom, terms);
	m = workload_count(dom, terms);
	w->matrix = want_matrix ? mat_new(m, dom->cells) : NULL;
	check_label_memory(m, d, w, want_spans, 0.0);	/* before the arrays are allocated */
	w->labels = palloc_extended(sizeof(char *) * Max(m, 1), MCXT_ALLOC_HUGE);
	w->weights = NULL;
	w->spans = want_spans ? palloc_extended(sizeof(int) * 2 * d * Max(m, 1), MCXT_ALLOC_HUGE) : NULL;
	foreach(lc, terms)
		if (((WorkloadTerm *) lfirst(lc))->weight != 1.0)
			w->weights = palloc_extended(sizeof(double) * Max(m, 1), MCXT_ALLOC_HUGE);

	foreach(lc, terms)
	{
		WorkloadTerm *t = lfirst(lc);
		Mat		   *term = NULL;
		bool		owned = false;

		if (!want_matrix)
			break;
		for (int a = 0; a < d; a++)
		{
			Mat		   *bm = workload_block_matrix(term_block(dom, t, a, totals));

			if (term == NULL)
				term = bm;
			else
			{
				Mat		   *next = mat_kron(term, bm);

				if (owned)
					mat_free(term);
				term = next;
				owned = true;
			}
		}
		Assert(term->cols == dom->cells && off + term->rows <= m);
		for (int j = 0; j < term->cols; j++)
		{
			CHECK_FOR_INTERRUPTS();
			memcpy(&MAT(w->matrix, off, j), &MAT(term, 0, j), sizeof(double) * term->rows);
		}
		off += term->rows;
		if (owned)
			mat_free(term);
	}
	Assert(!want_matrix || off == m);

	sink.w = w;
	sink.m = m;
	sink.d = d;
	sink.want_spans = want_spans;
	sink.label_bytes = 0;
	workload_each_query(dom, terms, want_spans, build_query, &sink);
	pfree(totals);
	return w;
}
