/*
 * domain_stub.h -- what fuzz_domain's stand-ins offer beyond the product's
 * headers.  Not part of the extension.
 */
#ifndef DPM_FUZZ_DOMAIN_STUB_H
#define DPM_FUZZ_DOMAIN_STUB_H

#include "domain/decimal.h"
#include "domain/json.h"

/*
 * json_stub.c: the tree of len bytes of JSON text (a server-encoded string
 * without NUL), with jsonb's input errors: invalid JSON, a \u0000 escape, a
 * number beyond numeric's range.
 */
extern DomainJson *domain_json_parse(const char *text, int len);

/*
 * decimal_stub.c: q = floor(a / b), r = a - q b for integers a >= 0, b > 0;
 * the long division under the stub's domain_dec_div_ceil, which the harness
 * checks by multiplying back.
 */
extern void domain_dec_divmod(DomainDecimal a, DomainDecimal b, DomainDecimal *q, DomainDecimal *r);

#endif
