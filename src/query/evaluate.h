/*
 * evaluate.h -- what the front door does to a statement's answers after the
 * charge, never failing (evaluate.c).
 */
#ifndef DPM_QUERY_EVALUATE_H
#define DPM_QUERY_EVALUATE_H

/*
 * to_json(expression) with $1..$n the values of args (their types' text,
 * or NULL), of the given types; NULL when it fails on them.
 */
extern char *query_evaluate(const char *expression, int n, const Oid *types, char *const *args);

/* value (text, an integer type's rounded) as a Datum of type; NULL when it is or cannot be */
extern Datum query_convert(const char *value, Oid type, int32 typmod, bool *isnull);

#endif
