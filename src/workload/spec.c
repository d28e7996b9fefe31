/*
 * spec.c -- the workload spec algebra: a recursive-descent parser that turns
 * text such as "AllRange(age) * Identity(sex) + Total(age)" into a list of
 * product terms over the domain's attributes.
 *
 *   workload := term ('+' term)*
 *   term     := factor ('*' factor)*
 *   factor   := block | '(' workload ')' | Marginals(k [, a, ...])
 *   block    := Identity(a) | Total(a) | Prefix(a) | AllRange(a)
 *             | Hierarchical(a [, branching]) | Marginal(a, ...)
 *             | Ranges(a, range, ...)
 *   range    := '[' bound ',' bound ')' | 'label' [':' 'label']
 *             | '{' range (',' range)* '}'
 *   bound    := ['+' | '-'] (number | inf | infinity)
 *
 * Block names are case-insensitive; attributes are written as named in the
 * domain, in double quotes when they are not plain identifiers.  A product
 * with a parenthesized union distributes over it, term by term.  Positions
 * in messages count characters from 1.
 *
 * Parsing takes time linear in the spec's length (terms keep byte offsets;
 * only an error counts characters), checks for interrupts at every token
 * and every term it makes, and refuses a spec longer than
 * WORKLOAD_SPEC_MAX_BYTES before reading it.
 */
#include "postgres.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>

#include "mb/pg_wchar.h"
#include "miscadmin.h"

#include "pg_compat.h"
#include "workload/spec_lexer.h"
#include "workload/workload.h"

typedef enum BlockName
{
	NAME_IDENTITY,
	NAME_TOTAL,
	NAME_PREFIX,
	NAME_ALLRANGE,
	NAME_HIERARCHICAL,
	NAME_RANGES,
	NAME_MARGINAL
} BlockName;

static const char *const block_names[] = {
	"Identity", "Total", "Prefix", "AllRange", "Hierarchical", "Ranges", "Marginal"
};

#define BLOCK_NAMES_HINT "Identity, Total, Prefix, AllRange, Hierarchical, Ranges, Marginal, Marginals"

static List *parse_workload(Parser *p);

static WorkloadTerm *
term_new(const Parser *p)
{
	WorkloadTerm *t = palloc(sizeof(WorkloadTerm));

	t->blocks = palloc0(sizeof(WorkloadBlock *) * p->dom->nattrs);
	t->where = palloc0(sizeof(int) * p->dom->nattrs);
	t->weight = 1.0;
	return t;
}

/* an attribute given twice in a term, at these byte offsets */
pg_noreturn static void
repeated(const Parser *p, int attr, int offset1, int offset2)
{
	int			pos1 = spec_position(p, offset1),
				pos2 = spec_position(p, offset2);

	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("attribute \"%s\" appears twice in one term, at positions %d and %d of workload spec",
					p->dom->attrs[attr].name, Min(pos1, pos2), Max(pos1, pos2)),
			 errhint("A term takes one block per attribute: list several ranges in one Ranges(...) block, or join terms with '+'.")));
}

/* an attribute name; returns its index, and its byte offset in *where */
static int
parse_attribute(Parser *p, int *where)
{
	const WorkloadDomain *dom = p->dom;

	if (p->tok.type != TOK_IDENT && p->tok.type != TOK_QUOTED)
		spec_syntax_error(p, "an attribute name");
	*where = p->tok.start;
	for (int a = 0; a < dom->nattrs; a++)
		if (strcmp(dom->attrs[a].name, p->tok.text) == 0)
		{
			spec_advance(p);
			return a;
		}
	{
		StringInfoData list;
		char	  **names = palloc(sizeof(char *) * dom->nattrs);

		for (int a = 0; a < dom->nattrs; a++)
			names[a] = dom->attrs[a].name;
		initStringInfo(&list);
		workload_append_list(&list, names, dom->nattrs);
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("unknown attribute \"%s\" at position %d of workload spec",
						p->tok.text, spec_position(p, *where)),
				 errhint("The attributes of this domain are %s.", list.data)));
	}
	pg_unreachable();
}

/* a range bound: a number with an optional sign, or inf / infinity */
static double
parse_bound(Parser *p)
{
	double		sign = 1;
	double		v;

	if (spec_accept_char(p, '-'))
		sign = -1;
	else
		spec_accept_char(p, '+');
	if (p->tok.type == TOK_NUMBER)
		v = p->tok.number;
	else if (p->tok.type == TOK_IDENT &&
			 (pg_strcasecmp(p->tok.text, "inf") == 0 ||
			  pg_strcasecmp(p->tok.text, "infinity") == 0))
		v = INFINITY;
	else
		spec_syntax_error(p, "a number");
	spec_advance(p);
	return sign * v;
}

/*
 * one range of Ranges(a, ...), as a 0/1 row over the attribute's bins; a set
 * {r1, r2, ...} is one query over the union of its ranges (the bins an IN
 * list selects, the months of every year that extract(month ...) groups)
 */
static double *
parse_range(Parser *p, const WorkloadAttr *attr)
{
	double	   *row = palloc0(sizeof(double) * attr->size);

	if (spec_accept_char(p, '{'))
	{
		do
		{
			double	   *part;

			CHECK_FOR_INTERRUPTS();
			check_stack_depth();	/* sets nest */
			part = parse_range(p, attr);
			for (int j = 0; j < attr->size; j++)
				row[j] = Max(row[j], part[j]);
			pfree(part);
		} while (spec_accept_char(p, ','));
		spec_expect_char(p, '}', "\"}\" closing a set of ranges");
	}
	else if (spec_accept_char(p, '['))
	{
		double		lo,
					hi;

		lo = parse_bound(p);
		spec_expect_char(p, ',', "\",\" between the bounds of a range");
		hi = parse_bound(p);
		if (spec_is_char(p, ']'))
		{
			StringInfoData range;

			initStringInfo(&range);
			workload_append_interval(&range, lo, hi);
			ereport(ERROR,
					(errcode(ERRCODE_SYNTAX_ERROR),
					 errmsg("ranges must be half-open, but the range at position %d of workload spec ends with \"]\"",
							spec_position(p, p->tok.start)),
					 errhint("Write %s for the values from lo up to but excluding hi.",
							 range.data)));
		}
		spec_expect_char(p, ')', "\")\" closing a half-open range [lo, hi)");
		workload_range_by_bounds(attr, lo, hi, row);
	}
	else if (p->tok.type == TOK_STRING)
	{
		char	   *first = p->tok.text;
		char	   *last = first;

		spec_advance(p);
		if (spec_accept_char(p, ':'))
		{
			if (p->tok.type != TOK_STRING)
				spec_syntax_error(p, "a bin label in single quotes after \":\"");
			last = p->tok.text;
			spec_advance(p);
		}
		workload_range_by_labels(attr, first, last, row);
	}
	else
		spec_syntax_error(p, "a range [lo, hi), a bin label in single quotes or a set {...} of them");
	return row;
}

static int
parse_branching(Parser *p)
{
	double		sign = 1;
	double		v;
	StringInfoData got;

	if (spec_accept_char(p, '-'))
		sign = -1;
	if (p->tok.type != TOK_NUMBER)
		spec_syntax_error(p, "a branching factor, an integer of at least 2");
	v = sign * p->tok.number;
	if (v != floor(v) || v < 2)
	{
		initStringInfo(&got);
		workload_append_number(&got, v);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("branching factor of Hierarchical must be an integer of at least 2, got %s",
						got.data),
				 errhint("Hierarchical(a) builds a binary tree; Hierarchical(a, 4) splits each node in four.")));
	}
	spec_advance(p);
	/* a factor above the bin count gives the same tree as the bin count */
	return v > INT_MAX ? INT_MAX : (int) v;
}

/* a block: Name '(' arguments ')' */
static WorkloadTerm *
parse_block(Parser *p)
{
	const WorkloadDomain *dom = p->dom;
	WorkloadTerm *t = term_new(p);
	int			name = -1;
	int			attr,
				where;
	int			branching = 2;

	for (int i = 0; i < lengthof(block_names); i++)
		if (pg_strcasecmp(p->tok.text, block_names[i]) == 0)
			name = i;
	if (name < 0)
	{
		bool		is_attr = false;

		for (int a = 0; a < dom->nattrs; a++)
			is_attr = is_attr || strcmp(dom->attrs[a].name, p->tok.text) == 0;
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("unknown workload block \"%s\" at position %d of workload spec",
						p->tok.text, spec_position(p, p->tok.start)),
				 is_attr ?
				 errhint("\"%s\" is an attribute: put a block around it, such as Identity(%s).",
						 p->tok.text, p->tok.text) :
				 errhint("The blocks are " BLOCK_NAMES_HINT ".")));
	}
	spec_advance(p);
	spec_expect_char(p, '(', "\"(\" after the block name");
	attr = parse_attribute(p, &where);
	t->where[attr] = where;

	switch ((BlockName) name)
	{
		case NAME_IDENTITY:
		case NAME_TOTAL:
		case NAME_PREFIX:
		case NAME_ALLRANGE:
			if (spec_is_char(p, ','))
				ereport(ERROR,
						(errcode(ERRCODE_SYNTAX_ERROR),
						 errmsg("%s takes one attribute, but more follow at position %d of workload spec",
								block_names[name], spec_position(p, p->tok.start)),
						 errhint("Combine blocks of several attributes with '*', or use Marginal(a, b, ...) for their joint counts.")));
			t->blocks[attr] = workload_block_new(name == NAME_IDENTITY ? BLOCK_IDENTITY :
										name == NAME_TOTAL ? BLOCK_TOTAL :
										name == NAME_PREFIX ? BLOCK_PREFIX : BLOCK_ALLRANGE,
										dom->attrs[attr].size, 0);
			break;
		case NAME_HIERARCHICAL:
			if (spec_accept_char(p, ','))
				branching = parse_branching(p);
			t->blocks[attr] = workload_block_new(BLOCK_HIERARCHICAL, dom->attrs[attr].size, branching);
			break;
		case NAME_RANGES:
			{
				List	   *rows = NIL;

				spec_expect_char(p, ',', "\",\" and at least one range after the attribute");
				do
				{
					CHECK_FOR_INTERRUPTS();
					rows = lappend(rows, parse_range(p, &dom->attrs[attr]));
				} while (spec_accept_char(p, ','));
				t->blocks[attr] = workload_block_ranges(dom->attrs[attr].size, rows);
				break;
			}
		case NAME_MARGINAL:
			/* Identity on each listed attribute; the others get Total later */
			t->blocks[attr] = workload_block_new(BLOCK_IDENTITY, dom->attrs[attr].size, 0);
			while (spec_accept_char(p, ','))
			{
				attr = parse_attribute(p, &where);
				if (t->blocks[attr])
					repeated(p, attr, t->where[attr], where);
				t->blocks[attr] = workload_block_new(BLOCK_IDENTITY, dom->attrs[attr].size, 0);
				t->where[attr] = where;
			}
			break;
	}
	spec_expect_char(p, ')', "\")\" closing the block");
	return t;
}

/*
 * Weights as every number dpmatrix takes: squared, they scale variances, and
 * beyond these limits float8 arithmetic on them underflows or overflows.
 */
#define WEIGHT_MIN 1e-100
#define WEIGHT_MAX 1e100

/* the number at the current token, as a weight */
static double
parse_weight(Parser *p)
{
	double		weight = p->tok.type == TOK_NUMBER ? p->tok.number : NAN;

	if (!(weight > 0) || !(weight <= WEIGHT_MAX))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("weight at position %d of workload spec must be a positive number up to 1e100",
						spec_position(p, p->tok.start)),
				 errhint("A weight says how much a block's queries matter: 3 * Total(age).")));
	if (weight < WEIGHT_MIN)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("weight %s at position %d of workload spec is below 1e-100",
						spec_token_text(p), spec_position(p, p->tok.start)),
				 errhint("Only the ratios of weights matter: scale them all up instead.")));
	spec_advance(p);
	return weight;
}

/*
 * A term's weight is the product of the weights around it, which may leave
 * [1e-100, 1e100] though each of them is inside: refused here, at creation,
 * like a single weight, rather than when its square meets a variance.
 */
static void
check_term_weights(List *terms)
{
	ListCell   *lc;

	foreach(lc, terms)
	{
		WorkloadTerm *t = lfirst(lc);

		CHECK_FOR_INTERRUPTS();
		if (!(t->weight >= WEIGHT_MIN && t->weight <= WEIGHT_MAX))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("weights of workload spec multiply to %g for term %d, outside the supported range [1e-100, 1e100]",
							t->weight, foreach_current_index(lc) + 1),
					 errhint("Only the ratios of weights matter: bring them closer to 1.")));
	}
}

/* whether the token after the current one is "*" */
static bool
star_follows(const Parser *p)
{
	int			i = p->tok.end;

	while (i < p->len && isspace((unsigned char) p->spec[i]))
		i++;
	return i < p->len && p->spec[i] == '*';
}

static void check_term_count(const Parser *p, double nterms);

/*
 * Marginals(k [, a, ...]): every marginal of k of the listed attributes (all
 * of the domain's when none is listed), in the order they are listed; the
 * other attributes get Total, as in Marginal.  Marginals(0) is the total.
 */
static List *
parse_marginals(Parser *p)
{
	const WorkloadDomain *dom = p->dom;
	int			start = p->tok.start,	/* byte offsets, as in WorkloadTerm */
				k,
				n = 0,
				where;
	int		   *attrs = palloc(sizeof(int) * dom->nattrs),
			   *at = palloc(sizeof(int) * dom->nattrs),
			   *pick;
	double		count = 1.0;
	List	   *terms = NIL;

	spec_advance(p);
	spec_expect_char(p, '(', "\"(\" after Marginals");
	if (p->tok.type != TOK_NUMBER || p->tok.number != floor(p->tok.number) || p->tok.number < 0 ||
		p->tok.number > dom->nattrs)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("Marginals at position %d of workload spec takes first the number of attributes each marginal keeps, a whole number from 0 to %d",
						spec_position(p, start), dom->nattrs),
				 errhint("Marginals(2) is every 2-way marginal; Marginals(2, a, b, c) those of a, b and c.")));
	k = (int) p->tok.number;
	spec_advance(p);
	while (spec_accept_char(p, ','))
	{
		int			a = parse_attribute(p, &where);

		for (int i = 0; i < n; i++)
			if (attrs[i] == a)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("attribute \"%s\" is listed twice in Marginals, at positions %d and %d of workload spec",
								dom->attrs[a].name, spec_position(p, at[i]), spec_position(p, where))));
		attrs[n] = a;
		at[n++] = where;
	}
	spec_expect_char(p, ')', "\")\" closing Marginals");
	if (n == 0)
		for (int a = 0; a < dom->nattrs; a++)
		{
			attrs[n] = a;
			at[n++] = start;
		}
	if (k > n)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("Marginals(%d, ...) at position %d of workload spec needs at least %d attributes, not %d",
						k, spec_position(p, start), k, n)));
	for (int i = 0; i < k; i++)
		count = count * (n - i) / (i + 1);
	check_term_count(p, count);

	/* the k-subsets of attrs in lexicographic order of their positions */
	pick = palloc(sizeof(int) * (k + 1));
	for (int i = 0; i < k; i++)
		pick[i] = i;
	for (;;)
	{
		WorkloadTerm *t = term_new(p);
		int			i;

		CHECK_FOR_INTERRUPTS();
		for (i = 0; i < k; i++)
		{
			int			a = attrs[pick[i]];

			t->blocks[a] = workload_block_new(BLOCK_IDENTITY, dom->attrs[a].size, 0);
			t->where[a] = at[pick[i]];
		}
		terms = lappend(terms, t);
		for (i = k - 1; i >= 0 && pick[i] == n - k + i; i--)
			;
		if (i < 0)
			break;
		pick[i]++;
		for (int j = i + 1; j < k; j++)
			pick[j] = pick[j - 1] + 1;
	}
	return terms;
}

/* every term's weight times this one */
static void
scale_terms(List *terms, double weight)
{
	ListCell   *lc;

	foreach(lc, terms)
	{
		CHECK_FOR_INTERRUPTS();
		((WorkloadTerm *) lfirst(lc))->weight *= weight;
	}
}

static List *parse_factor_unweighted(Parser *p);

/*
 * A factor with the weights before it: 2 * 3 * factor scales how much the
 * factor's queries matter.  The weights are multiplied first, innermost
 * first, and applied to the factor's terms once: a chain of them costs
 * one pass over the terms, not one per weight.
 */
static List *
parse_factor(Parser *p)
{
	double	   *weights = NULL;
	int			n = 0,
				size = 0;
	double		scale = 1;
	List	   *w;

	check_stack_depth();
	while (p->tok.type == TOK_NUMBER ||
		   (spec_is_char(p, '-') && p->next < p->len && isdigit((unsigned char) p->spec[p->next])))
	{
		if (n == size)
		{
			size = Max(8, 2 * size);
			weights = weights ? repalloc(weights, sizeof(double) * size) : palloc(sizeof(double) * size);
		}
		weights[n++] = parse_weight(p);
		spec_expect_char(p, '*', "\"*\" after a weight");
	}
	w = parse_factor_unweighted(p);
	if (n == 0)
		return w;
	while (n > 0)
		scale *= weights[--n];
	scale_terms(w, scale);
	pfree(weights);
	return w;
}

static List *
parse_factor_unweighted(Parser *p)
{
	if (spec_accept_char(p, '('))
	{
		List	   *w = parse_workload(p);

		spec_expect_char(p, ')', "\")\" closing the parenthesized workload");
		return w;
	}
	if (p->tok.type != TOK_IDENT)
		spec_syntax_error(p, "a block (" BLOCK_NAMES_HINT ") or \"(\"");
	if (pg_strcasecmp(p->tok.text, "Marginals") == 0)
		return parse_marginals(p);
	return list_make1(parse_block(p));
}

/* the terms themselves count too: they outweigh a matrix of few cells */
static void
check_term_count(const Parser *p, double nterms)
{
	/* a term, its two arrays and three chunk headers */
	double		mb = nterms * (sizeof(WorkloadTerm) + 48 +
							   p->dom->nattrs * (sizeof(WorkloadBlock *) + sizeof(int))) / (1024.0 * 1024.0);

	if (mb > dpm_max_matrix_mb)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("workload spec expands to %.0f products of blocks, which need %.0f MB, the limit is %d MB",
						nterms, ceil(mb), dpm_max_matrix_mb),
				 errhint("Write the workload with fewer unions inside products, or raise dpm.max_matrix_mb.")));
}

/*
 * left * right: every pair of terms, left major.  Each attribute may carry
 * one block per term, since the term is one Kronecker factor per attribute.
 */
static List *
product(Parser *p, List *left, List *right)
{
	List	   *out = NIL;
	ListCell   *l,
			   *r;

	/*
	 * Distributing products over unions multiplies terms: stop before making
	 * them.  (The rows are checked where a dense matrix is built: implicit
	 * methods take workloads far larger than any matrix.)
	 */
	check_term_count(p, (double) list_length(left) * list_length(right));
	foreach(l, left)
	{
		WorkloadTerm *lt = lfirst(l);

		foreach(r, right)
		{
			WorkloadTerm *rt = lfirst(r);
			WorkloadTerm *t;

			CHECK_FOR_INTERRUPTS();
			t = term_new(p);
			for (int a = 0; a < p->dom->nattrs; a++)
			{
				if (lt->blocks[a] && rt->blocks[a])
					repeated(p, a, lt->where[a], rt->where[a]);
				t->blocks[a] = lt->blocks[a] ? lt->blocks[a] : rt->blocks[a];
				t->where[a] = lt->blocks[a] ? lt->where[a] : rt->where[a];
			}
			t->weight = lt->weight * rt->weight;
			out = lappend(out, t);
		}
	}
	return out;
}

static List *
parse_term(Parser *p)
{
	List	   *t = parse_factor(p);

	while (spec_accept_char(p, '*'))
	{
		if (p->tok.type == TOK_NUMBER && !star_follows(p))
		{
			/* a weight on the right: Total(a) * 3 */
			scale_terms(t, parse_weight(p));
			continue;
		}
		t = product(p, t, parse_factor(p));
	}
	return t;
}

static List *
parse_workload(Parser *p)
{
	List	   *w = parse_term(p);

	while (spec_accept_char(p, '+'))
		w = list_concat(w, parse_term(p));
	return w;
}

List *
workload_parse(const WorkloadDomain *dom, const char *spec)
{
	Parser		p;
	List	   *terms;
	size_t		len = strlen(spec);

	/* before anything is read: the limit bounds the time and memory of every parse of it */
	if (len > WORKLOAD_SPEC_MAX_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("workload spec is %zu bytes long, the limit is %d bytes", len, WORKLOAD_SPEC_MAX_BYTES),
				 errhint("Say many queries in few words (Ranges(a, ...), AllRange(a), Marginals(k)), or split the workload in several.")));
	p.dom = dom;
	p.spec = spec;
	p.len = (int) len;
	p.next = 0;
	spec_advance(&p);
	if (p.tok.type == TOK_END)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("workload spec is empty"),
				 errhint("Write a union of products of blocks, such as Identity(%s) + Total(%s).",
						 dom->attrs[0].name, dom->attrs[0].name)));
	terms = parse_workload(&p);
	if (p.tok.type != TOK_END)
	{
		if (spec_is_char(&p, ')'))
			spec_syntax_error(&p, "end of workload spec, but found an unmatched \")\"");
		spec_syntax_error(&p, "\"+\", \"*\" or the end of workload spec");
	}
	check_term_weights(terms);
	return terms;
}
