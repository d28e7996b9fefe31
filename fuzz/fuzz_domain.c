/*
 * fuzz_domain.c -- libFuzzer target: the domain definition parser
 * (src/domain: attribute.c, json.c, decimal.c) that dpm_internal.attribute_bins
 * calls for each attribute of dpm.create_domain.
 *
 * Input: one header byte, then JSON text (skipped unless it is valid UTF-8
 * without NUL, as the server guarantees for text).
 *   byte 0   bits 0-1: dpm.max_cells = 1, 4, 100 or 1000 (small, so that
 *            width bins over long numbers stay within time and memory)
 * The source relation is "public.people" with the columns of columns[]
 * below; the column type text is what format_type would print.
 *
 * A JSON array of exactly two numbers [a, b] exercises the decimal
 * arithmetic instead (findings: below).  Anything else is an attribute.
 *
 * An ERROR is an expected outcome.  Findings, beyond crashes, sanitizer
 * reports, hangs, internal errors and runaway memory (see pgstub.c):
 *  - the text parses, but its canonical form (jsonb's output, which is what
 *    the SQL function passes) does not parse to the same canonical form, or
 *    gives another result or another error than the text did: the server
 *    and this target would not be testing the same thing;
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
};

static char *
column_type(void *arg, const char *column)
{
	for (int i = 0; i < lengthof(columns); i++)
		if (strcmp(columns[i][0], column) == 0)
			return pstrdup(columns[i][1]);
	return NULL;
}

/* what one call gave: the attribute, or the error */
typedef struct Outcome
{
	DomainAttr *attr;
	FuzzError	error;
} Outcome;

static void
parse_attribute(const char *json, const DomainSource *src, Outcome *out)
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
	if (width)
	{
		DomainDecimal min,
					max;

		domain_dec_parse(domain_json_get(bins, "min")->str, &min);
		domain_dec_parse(domain_json_get(bins, "max")->str, &max);
		if (a->nbins > cells + 1)
			fuzz_fail("%d width bins, dpm.max_cells %d", a->nbins, cells);
		if (!same_double(a->lo[0], domain_dec_to_float8(&min)) ||
			!same_double(a->hi[a->nbins - 1], domain_dec_to_float8(&max)))
			fuzz_fail("width bins from %g to %g, not from min to max", a->lo[0],
					  a->hi[a->nbins - 1]);
		for (int i = 0; i + 1 < a->nbins; i++)
			if (!same_double(a->hi[i], a->lo[i + 1]))
				fuzz_fail("width bins %d and %d are not contiguous", i + 1, i + 2);
	}
}

/* ------------------------------------------------------------ decimals */

static bool
same_decimal(const DomainDecimal *a, const DomainDecimal *b)
{
	return domain_dec_cmp(a, b) == 0 && a->dscale == b->dscale;
}

/* the integer part of |d| (digits above the point) */
static void
integer_part(const DomainDecimal *d, DomainDecimal *out)
{
	int			keep = d->ndigits + Min(d->exp, 0);

	memset(out, 0, sizeof(DomainDecimal));
	if (keep <= 0)
		return;
	out->ndigits = keep;
	out->digits = d->digits;
	out->exp = Max(d->exp, 0);
	/* trailing zeros of the kept digits: fold them into the exponent */
	while (out->ndigits > 0 && out->digits[out->ndigits - 1] == 0)
	{
		out->ndigits--;
		out->exp++;
	}
	if (out->ndigits == 0)
		out->exp = 0;
}

/* x * y for integers, by schoolbook multiplication of their digits */
static void
multiply(const DomainDecimal *x, const DomainDecimal *y, DomainDecimal *out)
{
	int			n = x->ndigits + y->ndigits;
	int		   *acc;
	uint8	   *digits;
	int			first = 0;

	memset(out, 0, sizeof(DomainDecimal));
	if (x->ndigits == 0 || y->ndigits == 0)
		return;
	/* acc[k] is the digit at 10^k (relative to the exponents) */
	acc = palloc0(sizeof(int) * n);
	for (int xi = 0; xi < x->ndigits; xi++)
	{
		int			xd = x->digits[x->ndigits - 1 - xi],
					carry = 0,
					k;

		for (int yj = 0; yj < y->ndigits; yj++)
		{
			k = xi + yj;
			acc[k] += xd * y->digits[y->ndigits - 1 - yj] + carry;
			carry = acc[k] / 10;
			acc[k] %= 10;
		}
		for (k = xi + y->ndigits; carry > 0; k++)
		{
			acc[k] += carry;
			carry = acc[k] / 10;
			acc[k] %= 10;
		}
	}
	digits = palloc(n);
	for (int k = 0; k < n; k++)
		digits[n - 1 - k] = acc[k];
	while (first < n && digits[first] == 0)
		first++;
	out->ndigits = n - first;
	out->digits = digits + first;
	out->exp = x->exp + y->exp;
	while (out->digits[out->ndigits - 1] == 0)
	{
		out->ndigits--;
		out->exp++;
	}
}

static void
check_decimals(const DomainJson *a_json, const DomainJson *b_json)
{
	DomainDecimal a,
				b,
				sum,
				back,
				reread;
	char	   *text;

	domain_dec_parse(a_json->str, &a);
	domain_dec_parse(b_json->str, &b);
	if (domain_dec_cmp(&a, &b) != -domain_dec_cmp(&b, &a))
		fuzz_fail("comparison of %s and %s is not antisymmetric", a_json->str, b_json->str);
	text = domain_dec_out(&a);
	domain_dec_parse(text, &reread);
	if (!same_decimal(&a, &reread) || strcmp(text, a_json->str) != 0)
		fuzz_fail("%s reads back as %s", a_json->str, text);
	domain_dec_parse(domain_dec_out_trimmed(&a), &reread);
	if (domain_dec_cmp(&a, &reread) != 0)
		fuzz_fail("%s trimmed is %s", a_json->str, domain_dec_out_trimmed(&a));

	/* sums may overflow numeric's range: an error, then */
	domain_dec_add(&a, &b, &sum);
	domain_dec_sub(&sum, &b, &back);
	if (domain_dec_cmp(&a, &back) != 0 || back.dscale != Max(a.dscale, b.dscale))
		fuzz_fail("%s + %s - %s is %s", a_json->str, b_json->str, b_json->str,
				  domain_dec_out(&back));

	/* the integer division under the bin count, checked by multiplying back */
	if (!a.neg && !b.neg)
	{
		DomainDecimal ia,
					ib,
					q,
					r,
					qb,
					check,
					count;

		integer_part(&a, &ia);
		integer_part(&b, &ib);
		if (ib.ndigits > 0)
		{
			domain_dec_divmod(&ia, &ib, &q, &r);
			if (domain_dec_cmp(&r, &ib) >= 0 || r.neg)
				fuzz_fail("remainder %s of %s / %s", domain_dec_out(&r), domain_dec_out(&ia),
						  domain_dec_out(&ib));
			if ((double) q.ndigits * ib.ndigits < 1e6)
			{
				multiply(&q, &ib, &qb);
				domain_dec_add(&qb, &r, &check);
				if (domain_dec_cmp(&check, &ia) != 0)
					fuzz_fail("%s / %s gave q %s, r %s", domain_dec_out(&ia), domain_dec_out(&ib),
							  domain_dec_out(&q), domain_dec_out(&r));
			}
		}
		if (a.ndigits > 0 && b.ndigits > 0)
		{
			/* ceil(a / b rounded to some scale >= 0) is within half a unit of a / b */
			domain_dec_div_ceil(&a, &b, &count);
			if (count.neg || count.dscale != 0)
				fuzz_fail("bin count %s", domain_dec_out(&count));
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
	char	   *canonical;
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
	{
		DomainJson *again = domain_json_parse(canonical, strlen(canonical));
		char	   *twice = domain_json_out(again);

		if (strcmp(canonical, twice) != 0)
			fuzz_fail("canonical form is not stable:\n  %s\n  %s", canonical, twice);
	}

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

	parse_attribute(text, &src, &first);
	parse_attribute(canonical, &src, &second);
	compare_outcomes(&first, &second);
	if (first.attr != NULL)
		check_attribute(first.attr, def, src.max_cells);
	fuzz_end();
	return 0;
}
