/*
 * evaluate.h -- the value of an expression of a front door statement's
 * select list over its answers (evaluate.c).
 */
#ifndef DPM_QUERY_EVALUATE_H
#define DPM_QUERY_EVALUATE_H

/*
 * to_json(expression) with $1..$n the values of args (their types' text,
 * or NULL), of the given types; NULL when it fails on them.
 */
extern char *query_evaluate(const char *expression, int n, const Oid *types, char *const *args);

#endif
