/*
 * groupings.c -- a front door statement's grouping expressions (compile.c,
 * outputs.c): a column, or a generalization of one that can fall on its
 * declared grid, with the statement's own expression over $1 for the
 * column, which the front door evaluates at the edges of the column's bins.
 */
#include "postgres.h"

#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"

#include "query/nodes.h"

/* the statement's expression with its column as parameter $1 */
static Node *
column_to_param(Node *n, void *context)
{
	Query	   *q = context;

	if (n == NULL)
		return NULL;
	if (query_grouped(q, n) != n)
		return column_to_param(query_grouped(q, n), q);
	if (IsA(n, Var) && ((Var *) n)->varlevelsup == 0)
	{
		Var		   *v = (Var *) n;
		Param	   *p = makeNode(Param);

		p->paramkind = PARAM_EXTERN;
		p->paramid = 1;
		p->paramtype = v->vartype;
		p->paramtypmod = v->vartypmod;
		p->paramcollid = v->varcollid;
		p->location = -1;
		return (Node *) p;
	}
	return expression_tree_mutator(n, column_to_param, context);
}

/*
 * A grouping expression as JSON: a column, or a generalization of one that
 * can fall on its declared grid: date_trunc(unit, col), extract(field from
 * col) or date_part, width_bucket(col, lo, hi, count), floor(col / w) * w or
 * col / w * w (integers)
 */
void
query_append_grouping(StringInfo out, Query *q, Node *expr)
{
	Node	   *n = query_strip(q, expr);
	const char *col = query_column_of(q, n);
	char	   *fn = n && IsA(n, FuncExpr) ? get_func_name(((FuncExpr *) n)->funcid) : NULL;
	List	   *args = fn ? ((FuncExpr *) n)->args : NIL;

	query_check_builtin(column_to_param(expr, q), "GROUP BY", false);
	appendStringInfoString(out, "{\"column\": ");
	if (col)
	{
		escape_json(out, col);
		appendStringInfoChar(out, '}');
		return;
	}
	if (fn && strcmp(fn, "date_trunc") == 0 && list_length(args) == 2 && query_const_text(q, linitial(args)) &&
		(col = query_column_of(q, query_strip(q, lsecond(args)))) != NULL)
	{
		escape_json(out, col);
		appendStringInfoString(out, ", \"date_trunc\": ");
		escape_json(out, query_const_text(q, linitial(args)));
	}
	else if (fn && (strcmp(fn, "extract") == 0 || strcmp(fn, "date_part") == 0) && list_length(args) == 2 &&
			 query_const_text(q, linitial(args)) && (col = query_column_of(q, query_strip(q, lsecond(args)))) != NULL)
	{
		escape_json(out, col);
		appendStringInfoString(out, ", \"extract\": ");
		escape_json(out, query_const_text(q, linitial(args)));
	}
	else if (fn && strcmp(fn, "width_bucket") == 0 && list_length(args) == 4 &&
			 (col = query_column_of(q, query_strip(q, linitial(args)))) != NULL && query_const_text(q, lsecond(args)) &&
			 query_const_text(q, lthird(args)) && query_const_text(q, lfourth(args)))
	{
		escape_json(out, col);
		appendStringInfoString(out, ", \"width_bucket\": [");
		escape_json(out, query_const_text(q, lsecond(args)));
		appendStringInfoString(out, ", ");
		escape_json(out, query_const_text(q, lthird(args)));
		appendStringInfoString(out, ", ");
		escape_json(out, query_const_text(q, lfourth(args)));
		appendStringInfoChar(out, ']');
	}
	else if (query_is_op(n, "*") && query_const_text(q, lsecond(((OpExpr *) n)->args)))
	{
		/* floor(col / w) * w, or col / w * w: the same w twice */
		Node	   *inner = query_strip(q, linitial(((OpExpr *) n)->args));
		const char *w = query_const_text(q, lsecond(((OpExpr *) n)->args));
		bool		floored = false;

		/* integer division truncates toward zero: -5 / 10 * 10 is 0, floor(-5 / 10.0) * 10 is -10 */
		if (inner && IsA(inner, FuncExpr) && strcmp(get_func_name(((FuncExpr *) inner)->funcid), "floor") == 0 &&
			list_length(((FuncExpr *) inner)->args) == 1)
		{
			inner = query_strip(q, linitial(((FuncExpr *) inner)->args));
			floored = true;
		}
		if (!query_is_op(inner, "/") || (col = query_column_of(q, query_strip(q, linitial(((OpExpr *) inner)->args)))) == NULL ||
			query_const_text(q, lsecond(((OpExpr *) inner)->args)) == NULL ||
			strcmp(query_const_text(q, lsecond(((OpExpr *) inner)->args)), w) != 0)
			query_refuse("GROUP BY this expression (only columns, date_trunc, extract, width_bucket and floor(x / w) * w)");
		escape_json(out, col);
		appendStringInfo(out, ", \"%s\": ", floored ? "floor_width" : "div_width");
		escape_json(out, w);
	}
	else
		query_refuse("GROUP BY this expression (only columns, date_trunc, extract, width_bucket and floor(x / w) * w)");

	/*
	 * the expression itself, over $1 for the column, which the front door
	 * evaluates at the edges of the column's bins: the statement's own
	 * functions and operators, as its types resolved them
	 */
	appendStringInfoString(out, ", \"expression\": ");
	escape_json(out, deparse_expression(column_to_param(expr, q), NIL, false, false));
	appendStringInfoChar(out, '}');
}
