/*
 * decimal_stub.c -- a test double for the backend's numeric, linked into
 * fuzz_domain in place of src/domain/decimal_numeric.c, which calls numeric
 * through fmgr and so cannot run outside a server.  Not part of the
 * extension.
 *
 * It gives numeric's results for what decimal.h asks (parsing and its range
 * errors, output with the display scale and trimmed, comparison, sums with
 * numeric's scales, the quotient rounded to numeric's division scale and its
 * ceiling, the float8 conversion and its range error), so that the parser
 * under test sees the values and errors it would in the server.  Written for
 * this harness; the product never uses it.
 *
 * A number is its significant decimal digits, the power of ten of the last
 * one, a sign and numeric's display scale.  Sums and comparisons work digit
 * by digit; the one division (how many bins a width makes) divides integers
 * in base 10^9, so that a bound written with thousands of digits costs
 * milliseconds, not minutes.  Values are never changed once made, so they
 * may share digits.
 */
#include "postgres.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>

#include "miscadmin.h"

#include "domain/decimal.h"

#include "domain_stub.h"

/* value = (-1 if neg) * digits * 10^exp */
struct DomainDecimalData
{
	bool		neg;			/* never set for zero */
	int			ndigits;		/* significant digits; 0 for zero */
	uint8	   *digits;			/* 0-9, most significant first; first and last nonzero */
	int			exp;			/* power of ten of the last digit (0 for zero) */
	int			dscale;			/* digits shown after the point, as numeric's */
};

/* the stub's own, changeable view of a value */
typedef struct DomainDecimalData Dec;

/*
 * numeric's limits: a base-10000 weight that fits int16 (so no digit at
 * 10^131072 or above) and a display scale that fits 14 bits
 */
#define MAX_TOP_POWER	131071
#define MAX_DSCALE		16383

/* numeric's division scale: 16 significant digits, at least the inputs' scales, at most 1000 */
#define DIV_MIN_SIG_DIGITS	16
#define DIV_MAX_SCALE		1000

#define LIMB_BASE	1000000000u	/* 10^9: a limb is 9 decimal digits */
#define LIMB_DIGITS 9

static const uint32 pow10_limb[LIMB_DIGITS] = {
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000
};

static void
overflow(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("value overflows numeric format")));
}

static inline int
top_power(const Dec *d)
{
	return d->exp + d->ndigits - 1;
}

/* the digit of |d| at 10^p */
static inline int
digit_at(const Dec *d, int p)
{
	int			i = top_power(d) - p;

	return (i >= 0 && i < d->ndigits) ? d->digits[i] : 0;
}

static void
set_zero(Dec *d, int dscale)
{
	d->neg = false;
	d->ndigits = 0;
	d->digits = NULL;
	d->exp = 0;
	d->dscale = dscale;
}

/*
 * d from len digits (most significant first, leading and trailing zeros
 * allowed), the last of them at 10^last_exp
 */
static void
set_digits(Dec *d, const uint8 *buf, int len, int last_exp, bool neg, int dscale)
{
	int			first = 0,
				last = len - 1;

	while (first < len && buf[first] == 0)
		first++;
	while (last >= first && buf[last] == 0)
		last--;
	if (first > last)
	{
		set_zero(d, dscale);
		return;
	}
	d->neg = neg;
	d->ndigits = last - first + 1;
	d->digits = palloc(d->ndigits);
	memcpy(d->digits, buf + first, d->ndigits);
	d->exp = last_exp + (len - 1 - last);
	d->dscale = dscale;
}

/* a result numeric could not store is an error there too */
static void
check_range(const Dec *d)
{
	if (d->ndigits > 0 && top_power(d) > MAX_TOP_POWER)
		overflow();
}

static void
dec_parse(const char *text, Dec *result)
{
	const char *p = text;
	bool		neg = false;
	uint8	   *buf = palloc(strlen(text) + 1);
	int			len = 0;
	int64		nfrac = 0,
				e = 0,
				dscale;
	int			first,
				last;

	if (*p == '-')
	{
		neg = true;
		p++;
	}
	if (!isdigit((unsigned char) *p))
		goto syntax;
	while (isdigit((unsigned char) *p))
		buf[len++] = *p++ - '0';
	if (*p == '.')
	{
		p++;
		if (!isdigit((unsigned char) *p))
			goto syntax;
		while (isdigit((unsigned char) *p))
		{
			buf[len++] = *p++ - '0';
			nfrac++;
		}
	}
	if (*p == 'e' || *p == 'E')
	{
		bool		eneg = false;

		p++;
		if (*p == '+' || *p == '-')
			eneg = (*p++ == '-');
		if (!isdigit((unsigned char) *p))
			goto syntax;
		/* saturated: far beyond numeric's range either way */
		for (; isdigit((unsigned char) *p); p++)
			if (e < 1000000000)
				e = e * 10 + (*p - '0');
		if (eneg)
			e = -e;
	}
	if (*p != '\0')
		goto syntax;

	dscale = Max(nfrac - e, 0);
	if (dscale > MAX_DSCALE)
		overflow();
	for (first = 0; first < len && buf[first] == 0; first++)
		;
	for (last = len - 1; last >= first && buf[last] == 0; last--)
		;
	if (first <= last)
	{
		/* 10^(power of the last nonzero digit); >= -dscale, so within int */
		int64		last_exp = e - nfrac + (len - 1 - last);

		if (last_exp + (last - first) > MAX_TOP_POWER)
			overflow();
		set_digits(result, buf + first, last - first + 1, (int) last_exp, neg, (int) dscale);
	}
	else
		set_zero(result, (int) dscale);
	pfree(buf);
	return;

syntax:
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type %s: \"%s\"", "numeric", text)));
}

static char *
out_with_scale(const Dec *d, int dscale)
{
	int			top = Max(top_power(d), 0);
	char	   *s = palloc(top + dscale + 4);
	char	   *c = s;

	/* no digit is lost: the display scale covers every fractional digit */
	Assert(d->ndigits == 0 || d->exp >= -dscale);
	if (d->neg)
		*c++ = '-';
	for (int p = top; p >= 0; p--)
		*c++ = '0' + digit_at(d, p);
	if (dscale > 0)
	{
		*c++ = '.';
		for (int p = -1; p >= -dscale; p--)
			*c++ = '0' + digit_at(d, p);
	}
	*c = '\0';
	return s;
}

char *
domain_dec_out(DomainDecimal d)
{
	return out_with_scale(d, d->dscale);
}

char *
domain_dec_out_trimmed(DomainDecimal d)
{
	return out_with_scale(d, d->ndigits == 0 ? 0 : Max(-d->exp, 0));
}

static int
cmp_abs(const Dec *a, const Dec *b)
{
	int			n;

	if (a->ndigits == 0 || b->ndigits == 0)
		return (a->ndigits != 0) - (b->ndigits != 0);
	if (top_power(a) != top_power(b))
		return top_power(a) > top_power(b) ? 1 : -1;
	n = Min(a->ndigits, b->ndigits);
	for (int i = 0; i < n; i++)
		if (a->digits[i] != b->digits[i])
			return a->digits[i] > b->digits[i] ? 1 : -1;
	return (a->ndigits > b->ndigits) - (a->ndigits < b->ndigits);
}

static int
sign_of(const Dec *d)
{
	return d->ndigits == 0 ? 0 : d->neg ? -1 : 1;
}

int
domain_dec_cmp(DomainDecimal a, DomainDecimal b)
{
	int			sa = sign_of(a),
				sb = sign_of(b);

	if (sa != sb)
		return sa < sb ? -1 : 1;
	return sa < 0 ? -cmp_abs(a, b) : cmp_abs(a, b);
}

/* |a| + |b|, or |a| - |b| when subtract (then |a| > |b|) */
static void
add_abs(const Dec *a, const Dec *b, bool subtract, bool neg, int dscale,
		Dec *result)
{
	int			lo = Min(a->exp, b->exp);
	int			hi = Max(top_power(a), top_power(b)) + 1;
	int			len = hi - lo + 1;
	uint8	   *buf = palloc(len);
	int			carry = 0;

	/* buf[i] holds the digit at 10^(hi - i) */
	for (int i = len - 1; i >= 0; i--)
	{
		int			p = hi - i;
		int			s = subtract ? digit_at(a, p) - digit_at(b, p) - carry
			: digit_at(a, p) + digit_at(b, p) + carry;

		carry = subtract ? (s < 0) : (s >= 10);
		buf[i] = subtract ? (s < 0 ? s + 10 : s) : (s >= 10 ? s - 10 : s);
	}
	Assert(carry == 0);
	set_digits(result, buf, len, lo, neg, dscale);
	pfree(buf);
	check_range(result);
}

static void
add_signed(const Dec *a, const Dec *b, bool bneg, Dec *result)
{
	int			dscale = Max(a->dscale, b->dscale);
	int			c;

	if (b->ndigits == 0)
	{
		*result = *a;
		result->dscale = dscale;
		return;
	}
	if (a->ndigits == 0)
	{
		*result = *b;
		result->neg = bneg;
		result->dscale = dscale;
		return;
	}
	if (a->neg == bneg)
	{
		add_abs(a, b, false, a->neg, dscale, result);
		return;
	}
	c = cmp_abs(a, b);
	if (c == 0)
		set_zero(result, dscale);
	else if (c > 0)
		add_abs(a, b, true, a->neg, dscale, result);
	else
		add_abs(b, a, true, bneg, dscale, result);
}

static void
dec_add(const Dec *a, const Dec *b, Dec *result)
{
	add_signed(a, b, b->neg, result);
}

static void
dec_sub(const Dec *a, const Dec *b, Dec *result)
{
	add_signed(a, b, b->ndigits > 0 && !b->neg, result);
}

/* ---------------------------------------------------- integer division */

/* the integer digits[0..ndigits) followed by zeros zeros, as little-endian limbs */
static uint32 *
to_limbs(const uint8 *digits, int ndigits, int zeros, int *nlimbs)
{
	int			n = (int) (((int64) ndigits + zeros + LIMB_DIGITS - 1) / LIMB_DIGITS);
	uint32	   *l = palloc0(sizeof(uint32) * Max(n, 1));

	for (int i = 0; i < ndigits; i++)
	{
		int64		pos = (int64) zeros + (ndigits - 1 - i);	/* from the units digit */

		l[pos / LIMB_DIGITS] += digits[i] * pow10_limb[pos % LIMB_DIGITS];
	}
	while (n > 0 && l[n - 1] == 0)
		n--;
	*nlimbs = n;
	return l;
}

static void
from_limbs(const uint32 *l, int n, Dec *result)
{
	uint8	   *buf = palloc((Size) Max(n, 1) * LIMB_DIGITS);

	/* buf holds limb n-1 first, each limb as 9 digits */
	for (int i = 0; i < n; i++)
	{
		uint32		v = l[n - 1 - i];

		for (int k = LIMB_DIGITS - 1; k >= 0; k--)
		{
			buf[i * LIMB_DIGITS + k] = v % 10;
			v /= 10;
		}
	}
	set_digits(result, buf, n * LIMB_DIGITS, 0, false, 0);
	pfree(buf);
}

/* l[0..n) *= m in place (m < LIMB_BASE); returns the carry out */
static uint32
limbs_mul_small(uint32 *l, int n, uint32 m)
{
	uint64		carry = 0;

	for (int i = 0; i < n; i++)
	{
		uint64		p = (uint64) l[i] * m + carry;

		l[i] = (uint32) (p % LIMB_BASE);
		carry = p / LIMB_BASE;
	}
	return (uint32) carry;
}

/*
 * q = floor(u / v), r = u mod v, for u of nu limbs and v of nv >= 1 limbs
 * (top limb nonzero): schoolbook long division, each quotient limb
 * estimated from the top two limbs of the remainder and the top limb of a
 * normalized divisor, then corrected (at most once after the usual test).
 */
static void
limbs_divmod(const uint32 *u, int nu, const uint32 *v, int nv,
			 uint32 **q, int *nq, uint32 **r, int *nr)
{
	uint32	   *un,
			   *vn;
	uint32		d;

	Assert(nv >= 1 && v[nv - 1] != 0);
	if (nu < nv)
	{
		*q = palloc0(sizeof(uint32));
		*nq = 0;
		*r = palloc(sizeof(uint32) * Max(nu, 1));
		memcpy(*r, u, sizeof(uint32) * nu);
		*nr = nu;
		return;
	}
	*q = palloc0(sizeof(uint32) * (nu - nv + 1));
	*nq = nu - nv + 1;
	if (nv == 1)
	{
		uint64		rem = 0;

		for (int i = nu - 1; i >= 0; i--)
		{
			rem = rem * LIMB_BASE + u[i];
			(*q)[i] = (uint32) (rem / v[0]);
			rem %= v[0];
		}
		*r = palloc(sizeof(uint32));
		(*r)[0] = (uint32) rem;
		*nr = rem != 0;
	}
	else
	{
		/* scaled so that the divisor's top limb is at least LIMB_BASE / 2 */
		d = LIMB_BASE / (v[nv - 1] + 1);
		un = palloc(sizeof(uint32) * (nu + 1));
		memcpy(un, u, sizeof(uint32) * nu);
		un[nu] = limbs_mul_small(un, nu, d);
		vn = palloc(sizeof(uint32) * nv);
		memcpy(vn, v, sizeof(uint32) * nv);
		if (limbs_mul_small(vn, nv, d) != 0)
			elog(ERROR, "normalizing a divisor overflowed");

		for (int j = nu - nv; j >= 0; j--)
		{
			uint64		num = (uint64) un[j + nv] * LIMB_BASE + un[j + nv - 1];
			uint64		qhat = num / vn[nv - 1];
			uint64		rhat = num % vn[nv - 1];
			uint64		carry = 0;
			int64		borrow = 0,
						t;

			CHECK_FOR_INTERRUPTS();
			while (qhat >= LIMB_BASE ||
				   qhat * vn[nv - 2] > rhat * LIMB_BASE + un[j + nv - 2])
			{
				qhat--;
				rhat += vn[nv - 1];
				if (rhat >= LIMB_BASE)
					break;
			}
			/* un[j .. j+nv] -= qhat * vn */
			for (int i = 0; i < nv; i++)
			{
				uint64		p = qhat * vn[i] + carry;

				carry = p / LIMB_BASE;
				t = (int64) un[i + j] - (int64) (p % LIMB_BASE) - borrow;
				borrow = t < 0;
				un[i + j] = (uint32) (t < 0 ? t + LIMB_BASE : t);
			}
			t = (int64) un[j + nv] - (int64) carry - borrow;
			if (t < 0)
			{
				/* qhat was one too large: add the divisor back */
				uint64		c = 0;

				qhat--;
				for (int i = 0; i < nv; i++)
				{
					uint64		s = (uint64) un[i + j] + vn[i] + c;

					un[i + j] = (uint32) (s % LIMB_BASE);
					c = s / LIMB_BASE;
				}
				t += c;
			}
			if (t != 0)
				elog(ERROR, "long division lost a limb");
			un[j + nv] = 0;
			(*q)[j] = (uint32) qhat;
		}
		/* the remainder is un[0 .. nv) / d */
		{
			uint64		rem = 0;

			for (int i = nv - 1; i >= 0; i--)
			{
				rem = rem * LIMB_BASE + un[i];
				un[i] = (uint32) (rem / d);
				rem %= d;
			}
			Assert(rem == 0);
		}
		*r = un;
		*nr = nv;
		pfree(vn);
	}
	while (*nq > 0 && (*q)[*nq - 1] == 0)
		(*nq)--;
	while (*nr > 0 && (*r)[*nr - 1] == 0)
		(*nr)--;
}

/* q, r of (nd followed by nzeros zeros) / (vd followed by vzeros zeros), vd > 0 */
static void
divmod_digits(const uint8 *nd, int nn, int nzeros, const uint8 *vd, int nv, int vzeros,
			  Dec *q, Dec *r)
{
	int			nu,
				nvl,
				nq,
				nr;
	uint32	   *u = to_limbs(nd, nn, nzeros, &nu);
	uint32	   *v = to_limbs(vd, nv, vzeros, &nvl);
	uint32	   *ql,
			   *rl;

	limbs_divmod(u, nu, v, nvl, &ql, &nq, &rl, &nr);
	from_limbs(ql, nq, q);
	from_limbs(rl, nr, r);
	pfree(u);
	pfree(v);
	pfree(ql);
	pfree(rl);
}

static void
dec_divmod(const Dec *a, const Dec *b, Dec *q, Dec *r)
{
	Assert(!a->neg && a->exp >= 0 && b->ndigits > 0 && !b->neg && b->exp >= 0);
	divmod_digits(a->digits, a->ndigits, a->exp, b->digits, b->ndigits, b->exp, q, r);
	check_range(q);
}

/* numeric's weight (base 10000) of d > 0 and its first base-10000 digit */
static void
first_group(const Dec *d, int *weight, int *group)
{
	int			top = top_power(d);
	int			w = top >= 0 ? top / 4 : -((-top + 3) / 4);
	int			g = 0;

	for (int p = top; p >= 4 * w; p--)
		g = g * 10 + digit_at(d, p);
	*weight = w;
	*group = g;
}

/* the scale numeric rounds a / b to (select_div_scale) */
static int
div_scale(const Dec *a, const Dec *b)
{
	int			wa,
				wb,
				ga,
				gb,
				qweight,
				rscale;

	first_group(a, &wa, &ga);
	first_group(b, &wb, &gb);
	/* the quotient's weight, assuming a's digits below b's when the first ones tie */
	qweight = wa - wb;
	if (ga <= gb)
		qweight--;
	rscale = DIV_MIN_SIG_DIGITS - qweight * 4;
	rscale = Max(rscale, a->dscale);
	rscale = Max(rscale, b->dscale);
	rscale = Max(rscale, 0);
	return Min(rscale, DIV_MAX_SCALE);
}

/* d * m for a small m, exactly */
static void
mul_small(const Dec *d, int m, Dec *result)
{
	int			len = d->ndigits + 2;
	uint8	   *buf = palloc(len);
	int			carry = 0;

	Assert(m >= 0 && m <= 10);
	for (int i = len - 1; i >= 0; i--)
	{
		int			k = i - 2;
		int			s = (k >= 0 ? d->digits[k] * m : 0) + carry;

		buf[i] = s % 10;
		carry = s / 10;
	}
	set_digits(result, buf, len, d->exp, d->neg, d->dscale);
	pfree(buf);
}

static void
dec_div_ceil(const Dec *a, const Dec *b, Dec *result)
{
	int			rscale = div_scale(a, b);
	int			k = a->exp - b->exp;
	int			drop = Max(-k, 0);	/* a's last digits below b's last */
	int			keep = Max(a->ndigits - drop, 0);
	Dec q,
				rem,
				tail,
				frac,
				lhs,
				rhs,
				one;

	Assert(a->ndigits > 0 && !a->neg && b->ndigits > 0 && !b->neg);

	/*
	 * a / b = (A 10^k) / B with A, B their digits: the integer part is
	 * floor(A' / B) with A' = A 10^k, or A without its last -k digits; the
	 * fraction is (rem 10^drop + tail) / (B 10^drop), tail the dropped digits
	 */
	divmod_digits(a->digits, keep, Max(k, 0), b->digits, b->ndigits, 0, &q, &rem);
	if (drop > 0)
	{
		int			ntail = Min(drop, a->ndigits);

		set_digits(&tail, a->digits + a->ndigits - ntail, ntail, 0, false, 0);
		rem.exp += rem.ndigits > 0 ? drop : 0;
		dec_add(&rem, &tail, &frac);
	}
	else
		frac = rem;

	/* the quotient rounded to rscale digits goes up iff 2 frac 10^rscale >= B 10^drop */
	mul_small(&frac, 2, &lhs);
	if (lhs.ndigits > 0)
		lhs.exp += rscale;
	set_digits(&rhs, b->digits, b->ndigits, drop, false, 0);
	if (domain_dec_cmp(&lhs, &rhs) >= 0)
	{
		set_digits(&one, (const uint8 *) "\1", 1, 0, false, 0);
		dec_add(&q, &one, result);
	}
	else
		*result = q;
	result->dscale = 0;
	check_range(result);
}

double
domain_dec_to_float8(DomainDecimal d)
{
	char	   *s = domain_dec_out(d);
	double		v;

	errno = 0;
	v = strtod(s, NULL);
	/* float8in's rule: out of range unless it rounds to a nonzero finite double */
	if (errno == ERANGE && (v == 0.0 || isinf(v)))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("\"%s\" is out of range for type double precision", s)));
	pfree(s);
	return v;
}

/* ------------------------------------------------------- decimal.h */

static Dec *
new_dec(void)
{
	return palloc(sizeof(Dec));
}

DomainDecimal
domain_dec_parse(const char *text)
{
	Dec		   *r = new_dec();

	dec_parse(text, r);
	return r;
}

DomainDecimal
domain_dec_add(DomainDecimal a, DomainDecimal b)
{
	Dec		   *r = new_dec();

	dec_add(a, b, r);
	return r;
}

DomainDecimal
domain_dec_sub(DomainDecimal a, DomainDecimal b)
{
	Dec		   *r = new_dec();

	dec_sub(a, b, r);
	return r;
}

DomainDecimal
domain_dec_div_ceil(DomainDecimal a, DomainDecimal b)
{
	Dec		   *r = new_dec();

	dec_div_ceil(a, b, r);
	return r;
}

void
domain_dec_divmod(DomainDecimal a, DomainDecimal b, DomainDecimal *q, DomainDecimal *r)
{
	Dec		   *dq = new_dec(),
			   *dr = new_dec();

	dec_divmod(a, b, dq, dr);
	*q = dq;
	*r = dr;
}
