/*
 * outputs.c -- what an analyzed statement shows and does to its answers, as
 * the front door's compiler (compile.c) describes it: the select list's
 * grouping columns, aggregates and expressions over them, and HAVING,
 * ORDER BY, LIMIT and OFFSET, all applied to the answers at no cost.
 */
#include "postgres.h"

#include "catalog/pg_aggregate.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/tlist.h"
#include "parser/analyze.h"
#include "parser/parser.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"

#include "pg_compat.h"
#include "query/nodes.h"

/* , "sql_type": the type a column of the statement has, as SQL names it (with its modifier) */
static void
append_sql_type(StringInfo out, Node *expr)
{
	appendStringInfoString(out, ", \"sql_type\": ");
	escape_json(out, format_type_with_typemod(exprType(expr), exprTypmod(expr)));
}

/*
 * An aggregate of the select list as JSON: count(*), or count, sum or avg of
 * a column, count(DISTINCT column) ("count_distinct": of the privacy unit,
 * which the catalog decides), or a percentile; hidden when only an
 * expression of the select list uses it
 */
static void
append_aggregate(StringInfo out, Query *q, Aggref *a, const char *name, bool hidden)
{
	char	   *fn = get_func_name(a->aggfnoid);
	const char *col = NULL;

	if (a->aggfilter)
		query_refuse("FILTER on an aggregate");
	if (a->aggdistinct && (strcmp(fn, "count") != 0 || a->aggstar || list_length(a->aggdistinct) != 1))
		query_refuse("DISTINCT in an aggregate other than count(DISTINCT the privacy unit)");
	if (get_func_namespace(a->aggfnoid) != PG_CATALOG_NAMESPACE)
		query_refuse(psprintf("the aggregate %s of your own", fn));
	if (a->aggkind == AGGKIND_ORDERED_SET &&
		(strcmp(fn, "percentile_cont") == 0 || strcmp(fn, "percentile_disc") == 0))
	{
		/* percentile_cont(fraction) WITHIN GROUP (ORDER BY column), ascending */
		SortGroupClause *sc = list_length(a->aggorder) == 1 ? linitial_node(SortGroupClause, a->aggorder) : NULL;
		const char *fraction = list_length(a->aggdirectargs) == 1 ? query_const_text(q, linitial(a->aggdirectargs)) : NULL;

		if (fraction == NULL || sc == NULL || list_length(a->args) != 1 ||
			(col = query_column_of(q, (Node *) ((TargetEntry *) linitial(a->args))->expr)) == NULL)
			query_refuse(psprintf("%s other than of one constant fraction WITHIN GROUP (ORDER BY a column)", fn));
		if (get_opname(sc->sortop) == NULL || strcmp(get_opname(sc->sortop), "<") != 0)
			query_refuse(psprintf("%s WITHIN GROUP (ORDER BY ... DESC)", fn));
		appendStringInfo(out, "{%s\"output\": ", hidden ? "\"hidden\": true, " : "");
		escape_json(out, name);
		append_sql_type(out, (Node *) a);
		appendStringInfo(out, ", \"aggregate\": \"%s\", \"column\": ", fn);
		escape_json(out, col);
		appendStringInfoString(out, ", \"fraction\": ");
		escape_json(out, fraction);
		appendStringInfoChar(out, '}');
		return;
	}
	if (a->aggorder || a->aggkind != AGGKIND_NORMAL)
		query_refuse(psprintf("the aggregate %s", fn));
	if (strcmp(fn, "count") != 0 && strcmp(fn, "sum") != 0 && strcmp(fn, "avg") != 0)
		query_refuse(psprintf("the aggregate %s", fn));
	if (!a->aggstar)
	{
		if (list_length(a->args) != 1 ||
			(col = query_column_of(q, (Node *) ((TargetEntry *) linitial(a->args))->expr)) == NULL)
			query_refuse(psprintf("%s of an expression (only of a column)", fn));
	}
	else if (strcmp(fn, "count") != 0)
		query_refuse(psprintf("%s(*)", fn));
	appendStringInfo(out, "{%s\"output\": ", hidden ? "\"hidden\": true, " : "");
	escape_json(out, name);
	append_sql_type(out, (Node *) a);
	appendStringInfo(out, ", \"aggregate\": \"%s\", \"column\": ", a->aggdistinct ? "count_distinct" : fn);
	if (col)
		escape_json(out, col);
	else
		appendStringInfoString(out, "null");
	appendStringInfoChar(out, '}');
}

/* what expression_params collects: the hidden aggregates' JSON, and $k's */
typedef struct ExprParams
{
	Query	   *q;
	const char *name;			/* the expression's column */
	StringInfo	hidden;			/* the hidden aggregate columns, appended */
	StringInfo	args;			/* per $k: {"output": hidden aggregate} or {"group": position} */
	int			n;
	Oid			types[FUNC_MAX_ARGS];	/* $k's */
} ExprParams;

static void
append_arg_type(ExprParams *c, Param *p)
{
	if (c->n > FUNC_MAX_ARGS)
		query_refuse(psprintf("more than %d aggregates and groupings in an expression", FUNC_MAX_ARGS));
	c->types[c->n - 1] = p->paramtype;
	query_append_type(c->args, p->paramtype);
	appendStringInfoChar(c->args, '}');
}

/*
 * An expression of the select list over aggregates and grouping
 * expressions, with each of those as a parameter $k
 */
static Node *
expression_params(Node *n, void *context)
{
	ExprParams *c = context;
	Param	   *p;
	ListCell   *lc;
	int			pos = 0;

	if (n == NULL || IsA(n, List))
		return expression_tree_mutator(n, expression_params, context);
	p = makeNode(Param);
	p->paramkind = PARAM_EXTERN;
	p->paramtypmod = -1;
	p->paramcollid = exprCollation(n);
	p->location = -1;
	if (IsA(n, Aggref))
	{
		char	   *hidden = psprintf("%s#%d", c->name, c->n + 1);

		appendStringInfoString(c->hidden, ", ");
		append_aggregate(c->hidden, c->q, (Aggref *) n, hidden, true);
		p->paramid = ++c->n;
		p->paramtype = ((Aggref *) n)->aggtype;
		appendStringInfo(c->args, "%s{\"output\": ", c->n > 1 ? ", " : "");
		escape_json(c->args, hidden);
		append_arg_type(c, p);
		return (Node *) p;
	}
	foreach(lc, c->q->groupClause)
	{
		Node	   *g = (Node *) get_sortgroupclause_tle(lfirst_node(SortGroupClause, lc), c->q->targetList)->expr;

		if (equal(query_strip(c->q, g), query_strip(c->q, n)))
		{
			p->paramid = ++c->n;
			p->paramtype = exprType(n);
			p->paramtypmod = exprTypmod(n);
			appendStringInfo(c->args, "%s{\"group\": %d", c->n > 1 ? ", " : "", pos);
			append_arg_type(c, p);
			return (Node *) p;
		}
		pos++;
	}
	if (IsA(n, GroupingFunc))
		query_refuse("grouping() (a grouping set's rows show NULL in the columns it does not group by)");
	if (IsA(n, Var))
		query_refuse(psprintf("column %s in an expression of the select list without GROUP BY it",
						query_column_of(c->q, n) ? query_column_of(c->q, n) : "?"));
	return expression_tree_mutator(n, expression_params, context);
}

/*
 * An expression of the select list over the statement's aggregates (and
 * grouping expressions) as JSON: its text over $1..$n, their types and what
 * each is, and the aggregates it uses as hidden columns, appended to hidden.
 * The front door evaluates it on the answers, as the extension's owner:
 * post-processing, so only PostgreSQL's immutable built-ins, which read
 * nothing and change nothing, are accepted.
 */
static void
append_expression(StringInfo out, StringInfo hidden, Query *q, Node *expr, const char *name)
{
	StringInfoData args;
	ExprParams	c = {q, name, hidden, &args, 0};
	Node	   *e;
	char	   *text;
	char	   *sql;

	initStringInfo(&args);
	/* the expression's casts through text are immutable or refused below, like its functions */
	query_check_builtin(expr, "the select list", true);
	e = expression_params(expr, &c);
	if (contain_mutable_functions(e))
		query_refuse("functions in the select list that are not immutable (only those whose value depends on their arguments alone)");

	/* its text means the same over $1..$n: analyzed here, it cannot fail to be after the charge */
	text = deparse_expression(e, NIL, false, false);
	sql = psprintf("SELECT to_json(%s)::text", text);
	(void) parse_analyze_fixedparams(linitial_node(RawStmt, raw_parser(sql, RAW_PARSE_DEFAULT)), sql, c.types, c.n, NULL);
	appendStringInfoString(out, "{\"output\": ");
	escape_json(out, name);
	append_sql_type(out, expr);
	appendStringInfoString(out, ", \"expression\": ");
	escape_json(out, text);
	query_append_type(out, exprType(expr));
	appendStringInfo(out, ", \"args\": [%s]}", args.data);
}

/* the position (0-based) of n among the select list's columns, or -1 */
static int
output_of(Query *q, Node *n)
{
	int			pos = 0;
	ListCell   *lc;

	foreach(lc, q->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (te->resjunk)
			continue;
		if (equal(te->expr, n) || (te->ressortgroupref != 0 && equal(query_strip(q, (Node *) te->expr), query_strip(q, n))))
			return pos;
		pos++;
	}
	return -1;
}

/*
 * HAVING as JSON: and/or/not of comparisons of the statement's own columns
 * (aggregates or groupings, by position) with constants, applied to the
 * answers: post-processing, which costs no privacy
 */
static void
append_having(StringInfo out, Query *q, Node *n)
{
	if (IsA(n, BoolExpr))
		query_append_bool(out, q, (BoolExpr *) n, append_having);
	else if (IsA(n, OpExpr) && list_length(((OpExpr *) n)->args) == 2)
	{
		OpExpr	   *op = (OpExpr *) n;
		Const	   *l = query_const_of(query_strip(q, linitial(op->args))),
				   *r = query_const_of(query_strip(q, lsecond(op->args)));
		int			pos = output_of(q, r ? linitial(op->args) : lsecond(op->args));

		if ((l == NULL) == (r == NULL) || pos < 0)
			query_refuse("HAVING other than the statement's own columns compared with constants");
		appendStringInfo(out, "{\"output\": %d, \"op\": \"%s\", \"value\": ", pos, query_comparison(op->opno, r == NULL));
		query_append_const(out, r ? r : l);
		appendStringInfoChar(out, '}');
	}
	else if (IsA(n, NullTest) && output_of(q, (Node *) ((NullTest *) n)->arg) >= 0 && !((NullTest *) n)->argisrow)
		appendStringInfo(out, "{\"output\": %d, \"is_null\": %s}", output_of(q, (Node *) ((NullTest *) n)->arg),
						 ((NullTest *) n)->nulltesttype == IS_NULL ? "true" : "false");
	else
		query_refuse("this kind of condition in HAVING (only the statement's own columns compared with constants, AND, OR, NOT)");
}

/* LIMIT or OFFSET: a non-negative integer constant, or null */
static void
append_count(StringInfo out, Query *q, const char *key, Node *n)
{
	Const	   *c = n ? query_const_of(query_strip(q, n)) : NULL;

	appendStringInfo(out, ", \"%s\": ", key);
	if (n == NULL || (c && c->constisnull))
		appendStringInfoString(out, "null");
	else if (c == NULL || (c->consttype != INT8OID && c->consttype != INT4OID) ||
			 (c->consttype == INT8OID ? DatumGetInt64(c->constvalue) : DatumGetInt32(c->constvalue)) < 0)
		query_refuse(psprintf("%s other than a non-negative integer constant", key));
	else
		appendStringInfo(out, INT64_FORMAT,
						 c->consttype == INT8OID ? DatumGetInt64(c->constvalue) : (int64) DatumGetInt32(c->constvalue));
}

/* ORDER BY as JSON: the statement's own columns, by position, each way */
static void
append_order(StringInfo out, Query *q)
{
	ListCell   *lc;

	appendStringInfoString(out, ", \"order_by\": [");
	foreach(lc, q->sortClause)
	{
		SortGroupClause *sc = lfirst_node(SortGroupClause, lc);
		TargetEntry *te = get_sortgroupclause_tle(sc, q->targetList);
		int			pos = te->resjunk ? -1 : output_of(q, (Node *) te->expr);
		char	   *op = get_opname(sc->sortop);

		if (pos < 0)
			query_refuse("ORDER BY other than the statement's own columns");
		if (op == NULL || (strcmp(op, "<") != 0 && strcmp(op, ">") != 0))
			query_refuse("ORDER BY ... USING another operator");
		appendStringInfo(out, "%s{\"output\": %d, \"desc\": %s, \"nulls_first\": %s}",
						 foreach_current_index(lc) > 0 ? ", " : "", pos, strcmp(op, ">") == 0 ? "true" : "false",
						 sc->nulls_first ? "true" : "false");
	}
	appendStringInfoChar(out, ']');
}

/*
 * , "columns": [...]: the select list's grouping expressions, aggregates
 * and expressions over them, in order; then the aggregates only
 * expressions use, hidden
 */
void
query_append_columns(StringInfo out, Query *q)
{
	StringInfoData hidden;
	ListCell   *lc;
	bool		first = true;

	initStringInfo(&hidden);
	appendStringInfoString(out, ", \"columns\": [");
	foreach(lc, q->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);
		const char *name = te->resname ? te->resname : "?column?";

		if (te->resjunk)
			continue;
		if (!first)
			appendStringInfoString(out, ", ");
		first = false;
		if (IsA(te->expr, Aggref))
			append_aggregate(out, q, (Aggref *) te->expr, name, false);
		else if (te->ressortgroupref != 0 && get_sortgroupref_clause_noerr(te->ressortgroupref, q->groupClause))
		{
			appendStringInfoString(out, "{\"output\": ");
			escape_json(out, name);
			append_sql_type(out, (Node *) te->expr);
			appendStringInfoString(out, ", \"group\": ");
			query_append_grouping(out, q, (Node *) te->expr);
			appendStringInfoChar(out, '}');
		}
		else if (query_column_of(q, (Node *) te->expr) != NULL)
			query_refuse(psprintf("column %s in the select list without GROUP BY it", query_column_of(q, (Node *) te->expr)));
		else
			append_expression(out, &hidden, q, (Node *) te->expr, name);
	}
	appendStringInfo(out, "%s]", hidden.data);
}

/* , "having": ..., "order_by": [...], "limit": ..., "offset": ... */
void
query_append_post(StringInfo out, Query *q)
{
	appendStringInfoString(out, ", \"having\": ");
	if (q->havingQual)
	{
		query_check_builtin(q->havingQual, "HAVING", false);
		append_having(out, q, q->havingQual);
	}
	else
		appendStringInfoString(out, "null");
	append_order(out, q);
	append_count(out, q, "limit", q->limitCount);
	append_count(out, q, "offset", q->limitOffset);
}
