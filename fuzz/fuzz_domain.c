/*
 * fuzz_domain.c -- libFuzzer target: the domain definition parser
 * (src/domain: attribute.c, json.c) that dpm_internal.attribute_bins
 * calls for each attribute of dpm.create_domain.  In the extension the
 * tree comes from the jsonb argument and the arithmetic is numeric's
 * (json_jsonb.c, decimal_numeric.c); here json_stub.c builds it from JSON
 * text and decimal_stub.c stands in for numeric.
 *
 * Input: one header byte, then JSON text (skipped unless it is valid UTF-8
 * without NUL, as the server guarantees for text).
 *   byte 0   bits 0-1: dpm.max_cells = 1, 4, 100 or 1000 (small, so that
 *            width bins over long numbers stay within time and memory)
 * The source relation is "public.people" with the columns of columns[]
 * below; the column type text is what format_type would print.
 *
 * A JSON array of exactly two numbers [a, b] exercises the stand-in for
 * numeric instead (findings: below).  Anything else is an attribute.
 *
 * An ERROR is an expected outcome.  Findings, beyond crashes, sanitizer
 * reports, hangs, internal errors and runaway memory (see pgstub.c):
 *  - the text parses, but its canonical form (what jsonb_out would print
 *    of the jsonb the text makes) does not parse to the same canonical form,
 *    or gives another result or another error than the text did: the
 *    stand-in reader (json_stub.c) would not be giving the parser what the
 *    server's jsonb gives it;
 *  - an error with a SQLSTATE no check of the parser raises;
 *  - a parsed attribute with no bins, an invalid name, an expression that
 *    is not one CASE, a NULL label, NaN bounds on an
 *    interval, bounds out of order, or width bins that are not contiguous
 *    from min to max, or more than dpm.max_cells + 1 of them;
 *  - decimals: a + b - b differing from a, a comparison that is not
 *    antisymmetric, output that does not read back to itself, or an integer
 *    division whose q b + r is not the dividend (or r not below b).
 */
#include "postgres.h"

#include <math.h>

#include "mb/pg_wchar.h"

#include "domain/decimal.h"
#include "domain/domain.h"
#include "domain/json.h"

#include "domain_stub.h"
#include "fuzz_common.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HEADER 1

/* pgstub's memory messages name this limit; the domain parser builds no matrix */
int			dpm_max_matrix_mb = 64;

static const int max_cells[4] = {1, 4, 100, 1000};

/* the source's columns and their types as format_type prints them */
static const char *const columns[][2] = {
	{"age", "integer"},
	{"sex", "text"},
	{"region", "character varying(10)"},
	{"x y", "numeric(5,2)"},
	{"Select", "integer"},
	{"select", "integer"},
	{"mood", "public.mood"},
	{"q\"t", "text"},
	{"\xc3\xa9", "bpchar"},
	{"ts", "timestamp without time zone"},
	{"day", "date"},
	{"seen", "timestamp(3) with time zone"},
};

static char *
column_type(void *arg, const char *column)
{
	for (int i = 0; i < lengthof(columns); i++)
		if (strcmp(columns[i][0], column) == 0)
			return pstrdup(columns[i][1]);
	return NULL;
}

/* an expression's type: the server parses it; here every expression is a date or a number */
static char *
expression_type(void *arg, const char *expr)
{
	return pstrdup(strstr(expr, "day") != NULL ? "date" : "numeric");
}

/* what one call gave: the attribute, or the error */
typedef struct Outcome
{
	DomainAttr *attr;
	FuzzError	error;
} Outcome;

static void
parse_attribute(const DomainJson *json, const DomainSource *src, Outcome *out)
{
	DomainAttr *volatile attr = NULL;

	memset(out, 0, sizeof(Outcome));
	PG_TRY();
	{
		attr = domain_attribute_parse(json, src);
	}
	PG_CATCH();
	{
		out->error = fuzz_last_error;
	}
	PG_END_TRY();
	out->attr = attr;
	if (attr == NULL)
	{
		int			code = out->error.sqlerrcode;

		if (code != ERRCODE_INVALID_PARAMETER_VALUE && code != ERRCODE_UNDEFINED_COLUMN &&
			code != ERRCODE_PROGRAM_LIMIT_EXCEEDED && code != ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE &&
			code != ERRCODE_STATEMENT_TOO_COMPLEX)
			fuzz_fail("attribute refused with SQLSTATE %s", unpack_sql_state(code));
	}
}

static bool
same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof(double)) == 0;
}

static bool
same_string(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static void
compare_outcomes(const Outcome *x, const Outcome *y)
{
	const DomainAttr *a = x->attr,
			   *b = y->attr;

	if ((a == NULL) != (b == NULL))
		fuzz_fail("the text %s, its canonical form %s", a ? "parsed" : "failed",
				  b ? "parsed" : "failed");
	if (a == NULL)
	{
		if (x->error.sqlerrcode != y->error.sqlerrcode ||
			strcmp(x->error.message, y->error.message) != 0 ||
			strcmp(x->error.hint, y->error.hint) != 0)
			fuzz_fail("the text and its canonical form fail differently:\n  %s %s\n  %s %s",
					  unpack_sql_state(x->error.sqlerrcode), x->error.message,
					  unpack_sql_state(y->error.sqlerrcode), y->error.message);
		return;
	}
	if (!same_string(a->name, b->name) || !same_string(a->column, b->column) ||
		a->nbins != b->nbins || !same_string(a->expr, b->expr))
		fuzz_fail("the text and its canonical form give different attributes:\n  %s\n  %s",
				  a->expr, b->expr);
	for (int i = 0; i < a->nbins; i++)
		if (!same_string(a->labels[i], b->labels[i]) || !same_double(a->lo[i], b->lo[i]) ||
			!same_double(a->hi[i], b->hi[i]))
			fuzz_fail("the text and its canonical form give different bin %d", i + 1);
}

/* ^[A-Za-z_][A-Za-z0-9_]*$ */
static bool
identifier(const char *s)
{
	if (s == NULL || *s == '\0' || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
			  (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

static void
check_attribute(const DomainAttr *a, const DomainJson *def, int cells)
{
	const DomainJson *bins = domain_json_get(def, "bins");
	bool		width = bins != NULL && bins->type == DOMAIN_JSON_OBJECT;
	size_t		len = a->expr ? strlen(a->expr) : 0;

	if (a->nbins < 1)
		fuzz_fail("attribute without bins");
	if (!identifier(a->name))
		fuzz_fail("attribute name \"%s\" accepted", a->name);
	if (len < 8 || strncmp(a->expr, "CASE ", 5) != 0 || strcmp(a->expr + len - 4, " END") != 0)
		fuzz_fail("expression is not one CASE: %s", a->expr ? a->expr : "NULL");
	for (int i = 0; i < a->nbins; i++)
	{
		bool		interval = !isnan(a->lo[i]) || !isnan(a->hi[i]);

		if (a->labels[i] == NULL)
			fuzz_fail("bin %d has a NULL label", i + 1);
		if (interval && (isnan(a->lo[i]) || isnan(a->hi[i]) || a->lo[i] > a->hi[i]))
			fuzz_fail("bin %d is [%g, %g)", i + 1, a->lo[i], a->hi[i]);
	}
	if (width && domain_json_get(bins, "min")->type == DOMAIN_JSON_STRING)
	{
		/* calendar bins of a date column: labelled, not numeric intervals, within dpm.max_cells */
		if (a->nbins > cells)
			fuzz_fail("%d date bins, dpm.max_cells %d", a->nbins, cells);
		for (int i = 0; i < a->nbins; i++)
			if (!isnan(a->lo[i]) || !isnan(a->hi[i]))
				fuzz_fail("date bin %d has numeric bounds", i + 1);
	}
	else if (width)
	{
		DomainDecimal min = domain_dec_parse(domain_json_get(bins, "min")->str),
					max = domain_dec_parse(domain_json_get(bins, "max")->str);

		if (a->nbins > cells + 1)
			fuzz_fail("%d width bins, dpm.max_cells %d", a->nbins, cells);
		if (!same_double(a->lo[0], domain_dec_to_float8(min)) ||
			!same_double(a->hi[a->nbins - 1], domain_dec_to_float8(max)))
			fuzz_fail("width bins from %g to %g, not from min to max", a->lo[0],
					  a->hi[a->nbins - 1]);
		for (int i = 0; i + 1 < a->nbins; i++)
			if (!same_double(a->hi[i], a->lo[i + 1]))
				fuzz_fail("width bins %d and %d are not contiguous", i + 1, i + 2);
	}
}

/* ------------------------------------------------------------ decimals */

/* the display scale numeric's text shows: its digits after the point */
static int
scale_of(const char *text)
{
	const char *point = strchr(text, '.');

	return point ? (int) strlen(point + 1) : 0;
}

/* the integer part of |d|, at scale 0 */
static DomainDecimal
integer_part(DomainDecimal d)
{
	char	   *text = domain_dec_out(d);
	char	   *point = strchr(text, '.');

	if (point != NULL)
		*point = '\0';
	return domain_dec_parse(text[0] == '-' ? text + 1 : text);
}

/*
 * x * y for integers x, y >= 0, by schoolbook multiplication of their
 * digits up to their trailing zeros; NULL when that would be slow
 */
static DomainDecimal
multiply(DomainDecimal x, DomainDecimal y)
{
	char	   *xs = domain_dec_out(x),
			   *ys = domain_dec_out(y);
	int			nx = strlen(xs),
				ny = strlen(ys),
				zeros = 0,
				n;
	int		   *acc;
	char	   *text;

	while (nx > 1 && xs[nx - 1] == '0')
		nx--, zeros++;
	while (ny > 1 && ys[ny - 1] == '0')
		ny--, zeros++;
	if ((double) nx * ny > 1e6)
		return NULL;
	n = nx + ny;
	/* acc[k] is the digit at 10^(k + zeros) */
	acc = palloc0(sizeof(int) * n);
	for (int i = 0; i < nx; i++)
	{
		int			xd = xs[nx - 1 - i] - '0',
					carry = 0,
					k;

		for (int j = 0; j < ny; j++)
		{
			k = i + j;
			acc[k] += xd * (ys[ny - 1 - j] - '0') + carry;
			carry = acc[k] / 10;
			acc[k] %= 10;
		}
		for (k = i + ny; carry > 0; k++)
		{
			acc[k] += carry;
			carry = acc[k] / 10;
			acc[k] %= 10;
		}
	}
	text = palloc(n + zeros + 1);
	for (int k = 0; k < n; k++)
		text[n - 1 - k] = '0' + acc[k];
	memset(text + n, '0', zeros);
	text[n + zeros] = '\0';
	return domain_dec_parse(text);
}

/* the stand-in for numeric (decimal_stub.c) against itself */
static void
check_decimals(const DomainJson *a_json, const DomainJson *b_json)
{
	DomainDecimal a = domain_dec_parse(a_json->str),
				b = domain_dec_parse(b_json->str),
				zero = domain_dec_parse("0"),
				back;
	char	   *text = domain_dec_out(a),
			   *trimmed = domain_dec_out_trimmed(a);

	if (domain_dec_cmp(a, b) != -domain_dec_cmp(b, a))
		fuzz_fail("comparison of %s and %s is not antisymmetric", a_json->str, b_json->str);
	if (strcmp(text, a_json->str) != 0 || strcmp(domain_dec_out(domain_dec_parse(text)), text) != 0)
		fuzz_fail("%s reads back as %s", a_json->str, text);
	if (domain_dec_cmp(a, domain_dec_parse(trimmed)) != 0 || scale_of(trimmed) > scale_of(text))
		fuzz_fail("%s trimmed is %s", a_json->str, trimmed);

	/* sums may overflow numeric's range: an error, then */
	back = domain_dec_sub(domain_dec_add(a, b), b);
	if (domain_dec_cmp(a, back) != 0 ||
		scale_of(domain_dec_out(back)) != Max(scale_of(text), scale_of(b_json->str)))
		fuzz_fail("%s + %s - %s is %s", a_json->str, b_json->str, b_json->str,
				  domain_dec_out(back));

	/* the integer division under the bin count, checked by multiplying back */
	if (domain_dec_cmp(a, zero) >= 0 && domain_dec_cmp(b, zero) >= 0)
	{
		DomainDecimal ia = integer_part(a),
					ib = integer_part(b),
					q,
					r,
					qb;

		if (domain_dec_cmp(ib, zero) > 0)
		{
			domain_dec_divmod(ia, ib, &q, &r);
			if (domain_dec_cmp(r, ib) >= 0 || domain_dec_cmp(r, zero) < 0)
				fuzz_fail("remainder %s of %s / %s", domain_dec_out(r), domain_dec_out(ia),
						  domain_dec_out(ib));
			qb = multiply(q, ib);
			if (qb != NULL && domain_dec_cmp(domain_dec_add(qb, r), ia) != 0)
				fuzz_fail("%s / %s gave q %s, r %s", domain_dec_out(ia), domain_dec_out(ib),
						  domain_dec_out(q), domain_dec_out(r));
		}
		if (domain_dec_cmp(a, zero) > 0 && domain_dec_cmp(b, zero) > 0)
		{
			/* ceil(a / b rounded to some scale >= 0): an integer >= 0 */
			char	   *count = domain_dec_out(domain_dec_div_ceil(a, b));

			if (count[0] == '-' || strchr(count, '.') != NULL)
				fuzz_fail("bin count %s", count);
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	   *text;
	int			len;
	DomainSource src;
	DomainJson *volatile def = NULL;
	DomainJson *again;
	char	   *canonical,
			   *twice;
	Outcome		first,
				second;

	if (size < HEADER)
		return -1;
	len = (int) (size - HEADER);
	if (pg_encoding_verifymbstr(PG_UTF8, (const char *) data + HEADER, len) != len)
		return -1;

	fuzz_begin();
	text = pnstrdup((const char *) data + HEADER, len);
	fuzz_user_text = text;
	src.name = "public.people";
	src.column_type = column_type;
	src.expression_type = expression_type;
	src.arg = NULL;
	src.max_cells = max_cells[data[0] & 3];

	/* text jsonb would refuse (invalid JSON, \u0000, numbers beyond numeric) never arrives */
	PG_TRY();
	{
		def = domain_json_parse(text, len);
	}
	PG_CATCH();
	{
	}
	PG_END_TRY();
	if (def == NULL)
	{
		fuzz_end();
		return 0;
	}
	canonical = domain_json_out(def);
	again = domain_json_parse(canonical, strlen(canonical));
	twice = domain_json_out(again);
	if (strcmp(canonical, twice) != 0)
		fuzz_fail("canonical form is not stable:\n  %s\n  %s", canonical, twice);

	if (def->type == DOMAIN_JSON_ARRAY && def->n == 2 &&
		def->items[0]->type == DOMAIN_JSON_NUMBER && def->items[1]->type == DOMAIN_JSON_NUMBER)
	{
		PG_TRY();
		{
			check_decimals(def->items[0], def->items[1]);
		}
		PG_CATCH();
		{
			if (fuzz_last_error.sqlerrcode != ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE)
				fuzz_fail("decimal arithmetic failed with SQLSTATE %s",
						  unpack_sql_state(fuzz_last_error.sqlerrcode));
		}
		PG_END_TRY();
		fuzz_end();
		return 0;
	}

	parse_attribute(def, &src, &first);
	parse_attribute(again, &src, &second);
	compare_outcomes(&first, &second);
	if (first.attr != NULL)
		check_attribute(first.attr, def, src.max_cells);
	fuzz_end();
	return 0;
}
