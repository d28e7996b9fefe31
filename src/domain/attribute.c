/*
 * attribute.c -- one attribute of a domain definition: its checks, in the
 * order a custodian meets them, its bins, and the expression giving a row's
 * bin.
 *
 * The expression text is stored in dpm.domains and is what a release
 * evaluates on every row, so it must stay the same for the same definition
 * (bounds written as numeric prints them, identifiers and literals quoted
 * by PostgreSQL's own quoting) and build nothing that could fail on a row:
 * comparisons of the column with constants in its own type, and
 * width_bucket over a constant array.  Custodian conditions are copied in
 * parentheses; src/security/safe_expr.c vets them afterwards.
 */
#include "postgres.h"

#include <errno.h>
#include <math.h>

#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "domain/calendar.h"
#include "domain/decimal.h"
#include "domain/domain.h"
#include "domain/json.h"

/* an attribute's bins as they are made */
typedef struct Bins
{
	DomainAttr *attr;
	const char *qcol;			/* the column, quoted */
	int			cap;
	char	  **conds;			/* one SQL condition a bin */
} Bins;

static void
add_bin(Bins *b, char *label, double lo, double hi, char *cond)
{
	DomainAttr *a = b->attr;

	if (a->nbins == b->cap)
	{
		b->cap = b->cap == 0 ? 8 : b->cap * 2;
		a->labels = a->labels ? repalloc(a->labels, sizeof(char *) * b->cap)
			: palloc(sizeof(char *) * b->cap);
		a->lo = a->lo ? repalloc(a->lo, sizeof(double) * b->cap) : palloc(sizeof(double) * b->cap);
		a->hi = a->hi ? repalloc(a->hi, sizeof(double) * b->cap) : palloc(sizeof(double) * b->cap);
		b->conds = b->conds ? repalloc(b->conds, sizeof(char *) * b->cap)
			: palloc(sizeof(char *) * b->cap);
	}
	a->labels[a->nbins] = label;
	a->lo[a->nbins] = lo;
	a->hi[a->nbins] = hi;
	b->conds[a->nbins] = cond;
	a->nbins++;
}

/* the first key of an object (in jsonb's order) not among valid, or NULL */
static const char *
unknown_key(const DomainJson *obj, const char *const *valid, int nvalid)
{
	for (int i = 0; i < obj->n; i++)
	{
		bool		known = false;

		for (int k = 0; k < nvalid && !known; k++)
			known = strcmp(obj->keys[i], valid[k]) == 0;
		if (!known)
			return obj->keys[i];
	}
	return NULL;
}

/* ^[A-Za-z_][A-Za-z0-9_]*$, in ASCII whatever the locale */
static bool
valid_identifier(const char *s)
{
	if (s == NULL || *s == '\0' || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
			  (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/* a JSON number (numeric's own text, so this cannot fail) */
static DomainDecimal
number_of(const DomainJson *v)
{
	return domain_dec_parse(v->str);
}

/*
 * "values": one bin per value, compared with = in the column's type; each value is read as one
 * first, so that a value the type cannot hold is named with its attribute and bin (not in the
 * words of the generated query)
 */
static void
value_bins(Bins *b, const DomainJson *values, const DomainSource *src, const char *coltype)
{
	const char *name = b->attr->name;

	if (values->type != DOMAIN_JSON_ARRAY || values->n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("values of attribute \"%s\" must be a non-empty JSON array", name)));
	for (int i = 0; i < values->n; i++)
	{
		const DomainJson *v = values->items[i];
		char	   *why;
		int			sqlstate;

		CHECK_FOR_INTERRUPTS();
		if (v->type != DOMAIN_JSON_STRING && v->type != DOMAIN_JSON_NUMBER &&
			v->type != DOMAIN_JSON_BOOL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("values of attribute \"%s\" must be strings, numbers or booleans, got %s",
							name, domain_json_out(v))));
		why = src->value_error(src->arg, coltype, v->str, &sqlstate);
		if (why != NULL)
			ereport(ERROR,
					(errcode(sqlstate),
					 errmsg("value %s of attribute \"%s\" (bin %d) is not of type %s", domain_json_out(v), name, i + 1, coltype),
					 errdetail("%s", why)));
		add_bin(b, v->str, NAN, NAN,
				psprintf("%s = %s::%s", b->qcol, quote_literal_cstr(v->str), coltype));
	}
}

/*
 * Past this many bins the thresholds are written as one array constant
 * ('{1,2,...}'::int4[]) instead of ARRAY[1, 2, ...]: the parser makes a node
 * of each element of the latter and the planner folds them, about 0.3 s for
 * 10^6 bins, on every statement that evaluates the cell (each release, and
 * create_domain's own checks and coverage); the constant is read in one call.
 * Below, ARRAY[...] stays, as readable as it was.
 */
#define BUCKET_LITERAL_BINS 1000

/*
 * The element type PostgreSQL gives ARRAY[...] of the thresholds, when they
 * are all plain numbers (as numeric prints them): integer while every one
 * fits, else bigint, else numeric, numeric as soon as one has a fraction; NULL
 * for any other threshold (a date literal, say), which keeps ARRAY[...].
 */
static const char *
bounds_type(const Bins *b)
{
	bool		fraction = false,
				wide = false,
				huge = false;

	for (int i = 1; i < b->attr->nbins; i++)
	{
		const char *c = b->conds[i];
		const char *p = c + (*c == '-');
		int			digits = 0;
		char	   *end;
		long long	v;

		while (*p >= '0' && *p <= '9')
			p++, digits++;
		if (digits == 0)
			return NULL;
		if (*p == '.')
		{
			for (p++; *p >= '0' && *p <= '9'; p++)
				;
			fraction = true;
		}
		if (*p != '\0')
			return NULL;
		if (fraction)
			continue;
		errno = 0;
		v = strtoll(c, &end, 10);
		if (errno == ERANGE)
			huge = true;
		else if (v < PG_INT32_MIN || v > PG_INT32_MAX)
			wide = true;
	}
	return fraction || huge ? "numeric" : wide ? "int8" : "int4";
}

/*
 * The expression of contiguous bins whose conditions hold their lower
 * bounds: NULL outside [lo, hi), else the 0-based bin, by a binary search
 * over the lower bounds of all but the first bin (width_bucket compares with
 * the same literals, in the same types, as a WHEN per bin would, in log
 * time, and with no arithmetic that could fail).
 */
static void
bucket_expr(Bins *b, const char *lo, const char *hi)
{
	StringInfoData expr;
	const char *literal_type = NULL;

	initStringInfo(&expr);
	appendStringInfo(&expr, "CASE WHEN %s >= %s AND %s < %s THEN ", b->qcol, lo, b->qcol, hi);
	if (b->attr->nbins > BUCKET_LITERAL_BINS)
		literal_type = bounds_type(b);
	if (b->attr->nbins == 1)
		appendStringInfoChar(&expr, '0');
	else
	{
		/* ARRAY[...], or the same thresholds in the type it would give them, as one constant */
		appendStringInfo(&expr, literal_type ? "width_bucket(%s, '{" : "width_bucket(%s, ARRAY[", b->qcol);
		for (int i = 1; i < b->attr->nbins; i++)
			appendStringInfo(&expr, i == 1 ? "%s" : literal_type ? ",%s" : ", %s", b->conds[i]);
		if (literal_type)
			appendStringInfo(&expr, "}'::%s[])", literal_type);
		else
			appendStringInfoString(&expr, "])");
	}
	appendStringInfoString(&expr, " END");
	b->attr->expr = expr.data;
}

/*
 * The bin of a smallint or integer column from 0 by a division: v / width
 * inside [0, max), what bucket_expr's binary search finds (truncation is the
 * floor of a non-negative value), at the cost of one division: width_bucket
 * took about a third of a release's scan of a 100-bin attribute over 10^6
 * rows.  Integer division by a constant other than 0 and -1 is among the
 * calls a release may make on every row (security/safe_calls.c); a
 * subtraction is not (it can overflow), so bins from another min keep the
 * binary search.  False where it does not apply.
 */
static bool
division_expr(Bins *b, const char *coltype, DomainDecimal vmin, DomainDecimal vmax, DomainDecimal width)
{
	const char *w = domain_dec_out_trimmed(width);
	char	   *end;
	long		wv;

	if ((strcmp(coltype, "smallint") != 0 && strcmp(coltype, "integer") != 0) || b->attr->nbins < 2 ||
		domain_dec_cmp(vmin, domain_dec_parse("0")) != 0)
		return false;
	errno = 0;
	wv = strtol(w, &end, 10);
	if (errno == ERANGE || *end != '\0' || wv < 1 || wv > PG_INT32_MAX)
		return false;
	/* the bin is an integer like width_bucket's: a smallint divided by an integer is one */
	b->attr->expr = wv == 1 && strcmp(coltype, "integer") == 0
		? psprintf("CASE WHEN %s >= %s AND %s < %s THEN %s END", b->qcol, domain_dec_out(vmin), b->qcol,
				   domain_dec_out(vmax), b->qcol)
		: psprintf("CASE WHEN %s >= %s AND %s < %s THEN %s / %ld END", b->qcol, domain_dec_out(vmin), b->qcol,
				   domain_dec_out(vmax), b->qcol, wv);
	return true;
}

/*
 * "bins": {"min", "max", "width"}: contiguous [min + j width, ...), the
 * last cut at max (division_expr, else bucket_expr).
 */
static void
width_bins(Bins *b, const DomainJson *spec, const DomainSource *src, const char *coltype)
{
	const char *name = b->attr->name;
	const DomainJson *jmin = domain_json_get(spec, "min");
	const DomainJson *jmax = domain_json_get(spec, "max");
	const DomainJson *jwidth = domain_json_get(spec, "width");
	DomainDecimal vmin,
				vmax,
				width,
				count,
				v;

	if (jmin == NULL || jmin->type != DOMAIN_JSON_NUMBER || jmax == NULL ||
		jmax->type != DOMAIN_JSON_NUMBER || jwidth == NULL || jwidth->type != DOMAIN_JSON_NUMBER)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bins of attribute \"%s\" need numeric min, max and width", name)));
	vmin = number_of(jmin);
	vmax = number_of(jmax);
	width = number_of(jwidth);
	if (domain_dec_cmp(width, domain_dec_parse("0")) <= 0 || domain_dec_cmp(vmax, vmin) <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bins of attribute \"%s\" need width > 0 and max > min", name)));
	/*
	 * numeric's (max - min) / width, rounded to its division scale, against
	 * the limit: above it exactly when its ceiling is, which the message shows
	 */
	count = domain_dec_div_ceil(domain_dec_sub(vmax, vmin), width);
	if (domain_dec_cmp(count, domain_dec_parse(psprintf("%d", src->max_cells))) > 0)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("attribute \"%s\" would have %s bins, more than dpm.max_cells (%d)",
						name, domain_dec_out(count), src->max_cells)));

	v = vmin;
	while (domain_dec_cmp(v, vmax) < 0)
	{
		DomainDecimal next,
					vhi;
		char	   *label;
		double		lo;

		CHECK_FOR_INTERRUPTS();
		next = domain_dec_add(v, width);
		/* least(v + width, max): the sum unless max is smaller */
		vhi = domain_dec_cmp(vmax, next) < 0 ? vmax : next;
		label = psprintf("[%s,%s)", domain_dec_out_trimmed(v), domain_dec_out_trimmed(vhi));
		lo = domain_dec_to_float8(v);
		add_bin(b, label, lo, domain_dec_to_float8(vhi), domain_dec_out(v));
		v = vhi;
	}

	if (!division_expr(b, coltype, vmin, vmax, width))
		bucket_expr(b, domain_dec_out(vmin), domain_dec_out(vmax));
}

/*
 * "bins": {"min": "2024-01-01", "max": "2025-01-01", "width": "1 month"} on
 * a date or timestamp column: calendar bins [min, min + width), ..., the
 * last cut at max.  Bounds are midnights, in UTC for timestamptz: bins must
 * not move with a session's time zone.  Labels: 2024-01 for a month from
 * the 1st, 2024 for a year from January 1, 2024-01-15 for a day, and
 * [2024-01-01,2024-01-08) otherwise.
 */
static void
date_width_bins(Bins *b, const DomainJson *spec, const DomainSource *src, const char *coltype)
{
	const char *name = b->attr->name;
	const DomainJson *jmin = domain_json_get(spec, "min");
	const DomainJson *jmax = domain_json_get(spec, "max");
	const DomainJson *jwidth = domain_json_get(spec, "width");
	const char *literal = strcmp(coltype, "date") == 0 ? "'%s'::date"
		: strstr(coltype, "with time zone") != NULL ? "'%s 00:00:00+00'::timestamptz"
		: "'%s 00:00:00'::timestamp";
	int64		vmin,
				vmax,
				v;
	CalendarWidth width;
	int			y,
				m,
				d;

	if (jmin == NULL || jmin->type != DOMAIN_JSON_STRING || !calendar_parse_date(jmin->str, &vmin) ||
		jmax == NULL || jmax->type != DOMAIN_JSON_STRING || !calendar_parse_date(jmax->str, &vmax))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bins of %s attribute \"%s\" need min and max as dates \"YYYY-MM-DD\"", coltype, name)));
	if (jwidth == NULL || jwidth->type != DOMAIN_JSON_STRING || !calendar_parse_width(jwidth->str, &width))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bins of %s attribute \"%s\" need a width such as \"1 month\"", coltype, name),
				 errhint("A width is a count and one of day, week, month, year: \"1 day\", \"2 weeks\", \"3 months\", \"1 year\".")));
	if (vmax <= vmin)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bins of attribute \"%s\" need max > min", name)));
	calendar_date(vmin, &y, &m, &d);
	if ((width.unit == CALENDAR_MONTH || width.unit == CALENDAR_YEAR) && d > 28)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bins of attribute \"%s\" by months or years need min on day 1 to 28 of its month", name),
				 errhint("Months have different lengths: start the bins on the 1st, say.")));

	for (v = vmin; v < vmax;)
	{
		int64		next = calendar_add(v, &width),
					vhi = Min(next, vmax);
		bool		whole = vhi == next && width.count == 1;
		char	   *label;
		int			vy,
					vm,
					vd;

		CHECK_FOR_INTERRUPTS();
		if (b->attr->nbins >= src->max_cells)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("attribute \"%s\" would have more than dpm.max_cells (%d) bins", name, src->max_cells)));
		calendar_date(v, &vy, &vm, &vd);
		if (whole && width.unit == CALENDAR_MONTH && vd == 1)
			label = psprintf("%04d-%02d", vy, vm);
		else if (whole && width.unit == CALENDAR_YEAR && vm == 1 && vd == 1)
			label = psprintf("%04d", vy);
		else if (whole && width.unit == CALENDAR_DAY)
			label = calendar_text(v);
		else
			label = psprintf("[%s,%s)", calendar_text(v), calendar_text(vhi));
		add_bin(b, label, NAN, NAN, psprintf(literal, calendar_text(v)));
		v = vhi;
	}
	bucket_expr(b, psprintf(literal, calendar_text(vmin)), psprintf(literal, calendar_text(vmax)));
}

/* "bins": [...]: intervals [lo, hi) (either end open) or custodian conditions */
static void
listed_bins(Bins *b, const DomainJson *list)
{
	static const char *const valid[] = {"label", "lo", "hi", "condition"};
	const char *name = b->attr->name;

	for (int i = 0; i < list->n; i++)
	{
		const DomainJson *bin = list->items[i];
		const DomainJson *label,
				   *jlo,
				   *jhi,
				   *cond;
		const char *key;

		CHECK_FOR_INTERRUPTS();
		if (bin->type != DOMAIN_JSON_OBJECT)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("each bin of attribute \"%s\" must be a JSON object, got %s",
							name, domain_json_out(bin))));
		key = unknown_key(bin, valid, lengthof(valid));
		if (key != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown key \"%s\" in a bin of attribute \"%s\"", key, name),
					 errhint("A bin is {\"label\", \"lo\", \"hi\"} or {\"label\", \"condition\"}.")));
		label = domain_json_get(bin, "label");
		jlo = domain_json_get(bin, "lo");
		jhi = domain_json_get(bin, "hi");
		cond = domain_json_get(bin, "condition");
		if (cond != NULL)
		{
			/* a condition has no label of its own: a JSON null one would be a NULL bin label */
			if (jlo != NULL || jhi != NULL || cond->type != DOMAIN_JSON_STRING || label == NULL ||
				label->type == DOMAIN_JSON_NULL)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("a condition bin of attribute \"%s\" is {\"label\": text, \"condition\": text}",
								name)));
			add_bin(b, domain_json_text(label), NAN, NAN, psprintf("(%s)", cond->str));
		}
		else
		{
			DomainDecimal vlo = NULL,
						vhi = NULL;
			char	   *text;
			StringInfoData c;
			double		lo;

			if ((jlo != NULL && jlo->type != DOMAIN_JSON_NUMBER) ||
				(jhi != NULL && jhi->type != DOMAIN_JSON_NUMBER) || (jlo == NULL && jhi == NULL))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("an interval bin of attribute \"%s\" needs numeric \"lo\" and/or \"hi\"",
								name)));
			if (jlo != NULL)
				vlo = number_of(jlo);
			if (jhi != NULL)
				vhi = number_of(jhi);
			if (jlo != NULL && jhi != NULL && domain_dec_cmp(vlo, vhi) >= 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("bin [%s, %s) of attribute \"%s\" is empty",
								jlo->str, jhi->str, name)));
			text = domain_json_text(label);
			/* an open end reads as the condition it is, as in the workloads' labels (labels.c) */
			if (text == NULL && jlo == NULL)
				text = psprintf("< %s", domain_dec_out_trimmed(vhi));
			else if (text == NULL && jhi == NULL)
				text = psprintf(">= %s", domain_dec_out_trimmed(vlo));
			else if (text == NULL)
				text = psprintf("[%s,%s)", domain_dec_out_trimmed(vlo), domain_dec_out_trimmed(vhi));
			lo = jlo ? domain_dec_to_float8(vlo) : -INFINITY;
			initStringInfo(&c);
			if (jlo != NULL)
				appendStringInfo(&c, "%s >= %s", b->qcol, jlo->str);
			if (jhi != NULL)
				appendStringInfo(&c, "%s%s < %s", jlo ? " AND " : "", b->qcol, jhi->str);
			add_bin(b, text, lo, jhi ? domain_dec_to_float8(vhi) : INFINITY, c.data);
		}
	}
}

DomainAttr *
domain_attribute_parse(const DomainJson *attr, const DomainSource *src)
{
	static const char *const valid[] = {"name", "column", "expression", "values", "bins"};
	DomainAttr *a = palloc0(sizeof(DomainAttr));
	char	   *expression;
	Bins		b = {0};
	const DomainJson *values,
			   *bins;
	char	   *coltype;
	const char *key;

	/* an SQL NULL has no keys and no name, as in the checks below */
	if (attr != NULL && attr->type != DOMAIN_JSON_OBJECT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("each attribute must be a JSON object, got %s", domain_json_out(attr))));
	if (attr != NULL && (key = unknown_key(attr, valid, lengthof(valid))) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown attribute key \"%s\"", key),
				 errhint("Valid keys: name, column or expression, values, bins.")));
	a->name = domain_json_text(domain_json_get(attr, "name"));
	a->column = domain_json_text(domain_json_get(attr, "column"));
	if (a->name == NULL)
		a->name = a->column;	/* {"column": "age", ...} is attribute age */
	if (a->name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("an attribute needs a name or a column"),
				 errhint("Give {\"name\": ..., \"column\": ...} or {\"name\": ..., \"expression\": ...}; a column alone names its attribute.")));
	if (!valid_identifier(a->name))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("attribute name %s is not a valid identifier", quote_literal_cstr(a->name)),
				 errhint("Use letters, digits and underscores, starting with a letter.")));
	expression = domain_json_text(domain_json_get(attr, "expression"));
	if (expression != NULL && a->column != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("attribute \"%s\" needs a column or an expression, not both", a->name)));
	if (expression != NULL)
	{
		/* a custodian's expression, in parentheses, where a column would be; vetted as conditions are */
		coltype = src->expression_type(src->arg, expression);
		b.qcol = psprintf("(%s)", expression);
	}
	else
	{
		if (a->column == NULL)
			a->column = a->name;
		coltype = src->column_type(src->arg, a->column);
		if (coltype == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("column \"%s\" of \"%s\" does not exist", a->column, src->name)));
		b.qcol = quote_identifier(a->column);
	}
	values = domain_json_get(attr, "values");
	bins = domain_json_get(attr, "bins");
	if ((values != NULL) == (bins != NULL))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("attribute \"%s\" needs exactly one of \"values\" or \"bins\"", a->name)));

	b.attr = a;
	if (values != NULL)
		value_bins(&b, values, src, coltype);
	else if (bins->type == DOMAIN_JSON_OBJECT)
	{
		static const char *const width_keys[] = {"min", "max", "width"};

		if ((key = unknown_key(bins, width_keys, lengthof(width_keys))) != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown key \"%s\" in bins of attribute \"%s\"", key, a->name),
					 errhint("Valid keys: min, max, width.")));
		if (strcmp(coltype, "date") == 0 || strncmp(coltype, "timestamp", 9) == 0)
			date_width_bins(&b, bins, src, coltype);
		else
			width_bins(&b, bins, src, coltype);
		return a;
	}
	else if (bins->type == DOMAIN_JSON_ARRAY && bins->n > 0)
		listed_bins(&b, bins);
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bins of attribute \"%s\" must be {\"min\", \"max\", \"width\"} or a non-empty array of bins",
						a->name)));

	/* first matching bin wins; a row matching none gets NULL and is not counted */
	{
		StringInfoData expr;

		initStringInfo(&expr);
		appendStringInfoString(&expr, "CASE");
		for (int i = 0; i < a->nbins; i++)
			appendStringInfo(&expr, " WHEN %s THEN %d", b.conds[i], i);
		appendStringInfoString(&expr, " END");
		a->expr = expr.data;
	}
	return a;
}
