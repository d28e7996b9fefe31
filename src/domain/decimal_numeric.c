/*
 * decimal_numeric.c -- decimal.h over the backend's numeric: each operation
 * is the numeric function the SQL of a domain definition would call, so the
 * bins, labels, expression text and errors are numeric's own.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/numeric.h"

#include "domain/decimal.h"

static inline Datum
num(DomainDecimal d)
{
	return NumericGetDatum((Numeric) d);
}

static inline DomainDecimal
dec(Datum d)
{
	return (DomainDecimal) DatumGetNumeric(d);
}

DomainDecimal
domain_dec_parse(const char *text)
{
	return dec(DirectFunctionCall3(numeric_in, CStringGetDatum(text),
								   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)));
}

char *
domain_dec_out(DomainDecimal d)
{
	return DatumGetCString(DirectFunctionCall1(numeric_out, num(d)));
}

char *
domain_dec_out_trimmed(DomainDecimal d)
{
	return DatumGetCString(DirectFunctionCall1(numeric_out,
											   DirectFunctionCall1(numeric_trim_scale, num(d))));
}

int
domain_dec_cmp(DomainDecimal a, DomainDecimal b)
{
	return DatumGetInt32(DirectFunctionCall2(numeric_cmp, num(a), num(b)));
}

DomainDecimal
domain_dec_add(DomainDecimal a, DomainDecimal b)
{
	return dec(DirectFunctionCall2(numeric_add, num(a), num(b)));
}

DomainDecimal
domain_dec_sub(DomainDecimal a, DomainDecimal b)
{
	return dec(DirectFunctionCall2(numeric_sub, num(a), num(b)));
}

DomainDecimal
domain_dec_div_ceil(DomainDecimal a, DomainDecimal b)
{
	return dec(DirectFunctionCall1(numeric_ceil, DirectFunctionCall2(numeric_div, num(a), num(b))));
}

double
domain_dec_to_float8(DomainDecimal d)
{
	return DatumGetFloat8(DirectFunctionCall1(numeric_float8, num(d)));
}
