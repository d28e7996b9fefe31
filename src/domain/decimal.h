/*
 * decimal.h -- exact decimal numbers for the bin bounds of a domain.
 *
 * The bounds of a domain definition are JSON numbers, which jsonb keeps as
 * numeric; the bins, their labels and the stored expression depend on
 * numeric's exact sums, display scales and rounded division, so these are
 * the few operations of numeric that a domain needs, with numeric's results
 * and limits, in plain C (no fmgr) so that the parser can be fuzzed.
 */
#ifndef DPM_DOMAIN_DECIMAL_H
#define DPM_DOMAIN_DECIMAL_H

/* value = (-1 if neg) * digits * 10^exp */
typedef struct DomainDecimal
{
	bool		neg;			/* never set for zero */
	int			ndigits;		/* significant digits; 0 for zero */
	uint8	   *digits;			/* 0-9, most significant first; first and last nonzero */
	int			exp;			/* power of ten of the last digit (0 for zero) */
	int			dscale;			/* digits shown after the point, as numeric's */
} DomainDecimal;

/*
 * A JSON number token (or numeric's output) as numeric_in reads it; the
 * same "value overflows numeric format" error beyond numeric's range.
 */
extern void domain_dec_parse(const char *text, DomainDecimal *result);

/* numeric_out: exactly dscale digits after the point */
extern char *domain_dec_out(const DomainDecimal *d);

/* numeric_out(trim_scale(d)): no trailing fractional zeros */
extern char *domain_dec_out_trimmed(const DomainDecimal *d);

extern int	domain_dec_cmp(const DomainDecimal *a, const DomainDecimal *b);
extern bool domain_dec_is_zero(const DomainDecimal *d);

/* a + b and a - b, display scale the larger of the two, as numeric's */
extern void domain_dec_add(const DomainDecimal *a, const DomainDecimal *b, DomainDecimal *result);
extern void domain_dec_sub(const DomainDecimal *a, const DomainDecimal *b, DomainDecimal *result);

/*
 * ceil(a / b) for a, b > 0, with numeric's division: the quotient rounded
 * (half away from zero) to numeric's division scale before the ceiling.
 */
extern void domain_dec_div_ceil(const DomainDecimal *a, const DomainDecimal *b,
								DomainDecimal *result);

/* for integers a >= 0, b > 0: q = floor(a / b), r = a - q b */
extern void domain_dec_divmod(const DomainDecimal *a, const DomainDecimal *b,
							  DomainDecimal *q, DomainDecimal *r);

/* numeric::float8 (through the text, as numeric does): out of range is an error */
extern double domain_dec_to_float8(const DomainDecimal *d);

#endif
