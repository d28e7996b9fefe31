/*
 * compile.h -- an analyst's SELECT described for the SQL front door
 * (compile.c): parsed and analyzed by PostgreSQL, never run.
 */
#ifndef DPM_QUERY_COMPILE_H
#define DPM_QUERY_COMPILE_H

/*
 * The statement as JSON: {"source": qualified name, "group_by": [groupings],
 * "columns": [{"output", "group": grouping} or {"output", "aggregate",
 * "column"}], "where": null or a condition}.  A grouping is {"column"}, or
 * when it generalizes the column one of "date_trunc", "extract",
 * "width_bucket": [lo, hi, count], "floor_width" or "div_width" (integer
 * division) beside "expression", the statement's expression over $1 for the
 * column.  A condition is {"and"|"or"|"not": [conditions]}, {"column", "op",
 * "value", "type"}, {"column", "in"|"not_in": [values], "type"} or
 * {"column", "is_null"}, constants as their type's text.  Only PostgreSQL's
 * built-in functions, operators and types appear.  Anything outside that is
 * refused with an error naming the construct.
 */
extern char *query_compile(const char *sql);

/* the same of a statement with parameters $1..$n of these types, bound to these values (text, or NULL) */
extern char *query_compile_with(const char *sql, int nparams, const Oid *types, char *const *values);

/* whether query_compile is analyzing a statement (which plain.c must not replace) */
extern bool query_compiling(void);

#endif
