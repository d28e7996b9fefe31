/*
 * compile.h -- an analyst's SELECT described for the SQL front door
 * (compile.c): parsed and analyzed by PostgreSQL, never run.
 */
#ifndef DPM_QUERY_COMPILE_H
#define DPM_QUERY_COMPILE_H

/*
 * The statement as JSON: {"source": qualified name, "group_by": [groupings],
 * "columns": [{"output", "group": grouping} or {"output", "aggregate",
 * "column"}], a grouping being {"column"} with one of "date_trunc",
 * "extract", "width_bucket": [lo, hi, count] or "floor_width" when it
 * generalizes the column,
 * "where": null or {"and"|"or"|"not": [...]} or {"column", "op", "value"},
 * {"column", "in"|"not_in": [values]}, {"column", "is_null"}}; constants as
 * their type's text.  Anything outside that is refused with an error naming
 * the construct.
 */
extern char *query_compile(const char *sql);

#endif
