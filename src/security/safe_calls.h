/*
 * safe_calls.h -- dpmatrix's list of the calls a release may make on every
 * row, each with the reason it cannot fail (see safe_calls.c).
 */
#ifndef DPM_API_SAFE_CALLS_H
#define DPM_API_SAFE_CALLS_H

#include "nodes/pg_list.h"

/* why a call of fn on args under collation collid could fail on some row, or NULL */
extern const char *safe_calls_unsafe(Oid fn, List *args, Oid collid);

/* why comparing values of type under collid (GREATEST, LEAST, width_bucket) could fail, or NULL */
extern const char *safe_calls_comparison(Oid type, Oid collid);

/* why text compared under collid could fail (deterministic: LIKE and the like need one), or NULL */
extern const char *safe_calls_collation(Oid collid, bool deterministic);

#endif
