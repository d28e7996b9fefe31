/*
 * safe_expr.h -- the source as a release's scanning role sees it (see
 * safe_expr.c and foreign_columns.c, which check it before any row is read).
 */
#ifndef DPM_API_SAFE_EXPR_H
#define DPM_API_SAFE_EXPR_H

#include "nodes/parsenodes.h"

/* "SELECT list FROM relation", analyzed and rewritten (views, row-level security) as the current role */
extern Query *safe_expr_analyzed(Oid relation, const char *list);

#endif
