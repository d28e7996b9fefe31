/*
 * decimal.h -- the exact decimal arithmetic of a domain's bin bounds.
 *
 * The bounds of a domain definition are JSON numbers, which jsonb keeps as
 * numeric; the bins, their labels and the stored expression depend on
 * numeric's exact sums, display scales and rounded division.  The extension
 * computes them with numeric itself (decimal_numeric.c).  The value is
 * opaque so that attribute.c makes no fmgr call and can be fuzzed outside
 * the backend, where fuzz/decimal_stub.c stands in for numeric.
 *
 * Values are immutable; errors are numeric's (out of range, bad input).
 */
#ifndef DPM_DOMAIN_DECIMAL_H
#define DPM_DOMAIN_DECIMAL_H

typedef const struct DomainDecimalData *DomainDecimal;

/* numeric_in: a JSON number token, numeric's output, an integer */
extern DomainDecimal domain_dec_parse(const char *text);

/* numeric_out: exactly the display scale's digits after the point */
extern char *domain_dec_out(DomainDecimal d);

/* numeric_out(trim_scale(d)): no trailing fractional zeros */
extern char *domain_dec_out_trimmed(DomainDecimal d);

/* numeric_cmp: -1, 0 or 1 */
extern int	domain_dec_cmp(DomainDecimal a, DomainDecimal b);

/* a + b and a - b, display scale the larger of the two */
extern DomainDecimal domain_dec_add(DomainDecimal a, DomainDecimal b);
extern DomainDecimal domain_dec_sub(DomainDecimal a, DomainDecimal b);

/* ceil(a / b) for a, b > 0: numeric's rounded quotient, then its ceiling */
extern DomainDecimal domain_dec_div_ceil(DomainDecimal a, DomainDecimal b);

/* numeric::float8: beyond float8's range is an error */
extern double domain_dec_to_float8(DomainDecimal d);

#endif
