/*
 * nodes.h -- the parts of the front door's compiler (compile.h) share:
 * what they ask of an analyzed statement's nodes (nodes.c), its groupings
 * (groupings.c), and its select list and what is done to its answers
 * (outputs.c).  Each appends JSON to out, or refuses naming the construct.
 */
#ifndef DPM_QUERY_NODES_H
#define DPM_QUERY_NODES_H

#include "lib/stringinfo.h"
#include "nodes/parsenodes.h"
#include "nodes/primnodes.h"

/* an error: "the SQL front door does not support <construct>", and what it supports */
extern void query_refuse(const char *construct);

/* the expression a Var of the grouping step's entry (18) stands for, else n itself */
extern Node *query_grouped(Query *q, Node *n);
/* n without implicit casts and relabelings, and through the grouping step's entry */
extern Node *query_strip(Query *q, Node *n);
/* the column of the source n names (through query_strip), or NULL */
extern const char *query_column_of(Query *q, Node *n);
/* n as a Const (through relabelings), or NULL */
extern Const *query_const_of(Node *n);
/* the text of constant n (after implicit casts), or NULL if n is not a constant */
extern char *query_const_text(Query *q, Node *n);
/* a constant's text as a JSON string; NULL is refused */
extern void query_append_const(StringInfo out, Const *c);
/* , "type": the type's name */
extern void query_append_type(StringInfo out, Oid type);
/* the comparison operator's name, as seen from the column's side; others refused */
extern const char *query_comparison(Oid opno, bool column_right);
/* whether n is a binary operator of this name */
extern bool query_is_op(Node *n, const char *name);

typedef void (*QueryAppendLeaf) (StringInfo out, Query *q, Node *n);

/* {"and"|"or"|"not": [...]}: the arguments of b, each by append */
extern void query_append_bool(StringInfo out, Query *q, BoolExpr *b, QueryAppendLeaf append);
/* refuses n unless only PostgreSQL's built-ins appear (io_casts: casts through text too) */
extern void query_check_builtin(Node *n, const char *where, bool io_casts);

/* a grouping expression as JSON (groupings.c) */
extern void query_append_grouping(StringInfo out, Query *q, Node *expr);
/* , "columns": the select list (outputs.c) */
extern void query_append_columns(StringInfo out, Query *q);
/* , "having", "order_by", "limit", "offset" (outputs.c) */
extern void query_append_post(StringInfo out, Query *q);

#endif
