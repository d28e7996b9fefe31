/*
 * compile.c -- an analyst's SELECT, parsed and analyzed by PostgreSQL's own
 * parser, described as what the SQL front door (dpm.query, issue 44) maps
 * to the matrix mechanism: the source, the grouping columns, the aggregates
 * and the WHERE condition over columns and constants.  Nothing runs: the
 * statement is analyzed, never planned or executed, and everything outside
 * the supported subset is refused here, naming the construct.
 *
 * Analysis runs as the caller (it may evaluate the input functions of the
 * statement's constants), never as the extension's owner.
 */
#include "postgres.h"

#include "catalog/pg_aggregate.h"
#include "nodes/nodeFuncs.h"
#include "nodes/parsenodes.h"
#include "optimizer/optimizer.h"
#include "parser/analyze.h"
#include "parser/parser.h"
#include "parser/parsetree.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/lsyscache.h"

#include "pg_compat.h"
#include "query/compile.h"

#define SUPPORTED "dpm.query answers a SELECT of grouping columns and count(*), count(column), sum(column) or " \
	"avg(column) FROM one registered source, WHERE comparisons of its columns with constants, GROUP BY its columns " \
	"or date_trunc, extract, width_bucket or floor(x / w) * w of them."

static void
refuse(const char *construct)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("dpm.query does not support %s", construct),
			 errhint(SUPPORTED)));
}

/* the expression a Var of the grouping step's entry (18) stands for, else n itself */
static Node *
grouped(Query *q, Node *n)
{
	if (n && IsA(n, Var) && ((Var *) n)->varlevelsup == 0 && ((Var *) n)->varattno > 0 &&
		rt_fetch(((Var *) n)->varno, q->rtable)->rtekind == RTE_GROUP)
		return list_nth(dpm_group_exprs(rt_fetch(((Var *) n)->varno, q->rtable)), ((Var *) n)->varattno - 1);
	return n;
}

/*
 * The column of the source a Var names (through implicit relabelings, and
 * the grouping step's entry), or NULL
 */
static const char *
column_of(Query *q, Node *n)
{
	for (;;)
	{
		while (n && IsA(n, RelabelType))
			n = (Node *) ((RelabelType *) n)->arg;
		if (grouped(q, n) == n)
			break;
		n = grouped(q, n);
	}
	if (n && IsA(n, Var) && ((Var *) n)->varlevelsup == 0 && ((Var *) n)->varattno > 0 &&
		rt_fetch(((Var *) n)->varno, q->rtable)->rtekind == RTE_RELATION)
		return get_attname(rt_fetch(((Var *) n)->varno, q->rtable)->relid, ((Var *) n)->varattno, false);
	return NULL;
}

/* a constant's value as its type's text */
static char *
const_string(Const *c)
{
	Oid			typout;
	bool		varlena;

	getTypeOutputInfo(c->consttype, &typout, &varlena);
	return OidOutputFunctionCall(typout, c->constvalue);
}

static void
append_const(StringInfo out, Const *c)
{
	if (c->constisnull)
		refuse("comparisons with NULL (write IS NULL)");
	escape_json(out, const_string(c));
}

static Const *
const_of(Node *n)
{
	while (n && IsA(n, RelabelType))
		n = (Node *) ((RelabelType *) n)->arg;
	return n && IsA(n, Const) ? (Const *) n : NULL;
}

/* the operator's name, as seen from the column's side */
static const char *
comparison(Oid opno, bool column_right)
{
	static const char *const ops[] = {"=", "<>", "<", "<=", ">", ">="};
	static const char *const flipped[] = {"=", "<>", ">", ">=", "<", "<="};
	char	   *name = get_opname(opno);

	for (int i = 0; name && i < (int) lengthof(ops); i++)
		if (strcmp(name, ops[i]) == 0)
			return column_right ? flipped[i] : ops[i];
	refuse(psprintf("the operator %s in WHERE", name ? name : "?"));
	return NULL;
}

/* the WHERE condition as JSON: and/or/not of column comparisons with constants */
static void
append_condition(StringInfo out, Query *q, Node *n)
{
	if (IsA(n, BoolExpr))
	{
		BoolExpr   *b = (BoolExpr *) n;
		ListCell   *lc;

		appendStringInfo(out, "{\"%s\": [", b->boolop == AND_EXPR ? "and" : b->boolop == OR_EXPR ? "or" : "not");
		foreach(lc, b->args)
		{
			if (lc != list_head(b->args))
				appendStringInfoString(out, ", ");
			append_condition(out, q, lfirst(lc));
		}
		appendStringInfoString(out, "]}");
	}
	else if (IsA(n, OpExpr) && list_length(((OpExpr *) n)->args) == 2)
	{
		OpExpr	   *op = (OpExpr *) n;
		Node	   *l = linitial(op->args),
				   *r = lsecond(op->args);
		bool		right = column_of(q, l) == NULL;
		const char *col = column_of(q, right ? r : l);
		Const	   *c = const_of(right ? l : r);

		if (col == NULL || c == NULL)
			refuse("conditions other than a column compared with a constant");
		appendStringInfoString(out, "{\"column\": ");
		escape_json(out, col);
		appendStringInfo(out, ", \"op\": \"%s\", \"value\": ", comparison(op->opno, right));
		append_const(out, c);
		appendStringInfoChar(out, '}');
	}
	else if (IsA(n, ScalarArrayOpExpr))
	{
		ScalarArrayOpExpr *s = (ScalarArrayOpExpr *) n;
		const char *col = column_of(q, linitial(s->args));
		Node	   *list = lsecond(s->args);
		const char *op = get_opname(s->opno);
		ListCell   *lc;

		/* x IN (a, b) is x = ANY (ARRAY[a, b]), the array not folded into a constant */
		for (;;)
		{
			if (list && IsA(list, RelabelType))
				list = (Node *) ((RelabelType *) list)->arg;
			else if (list && IsA(list, ArrayCoerceExpr) && IsA(((ArrayCoerceExpr *) list)->elemexpr, RelabelType))
				list = (Node *) ((ArrayCoerceExpr *) list)->arg;	/* varchar[] as text[] */
			else
				break;
		}
		if (col == NULL || !IsA(list, ArrayExpr) || op == NULL ||
			!((s->useOr && strcmp(op, "=") == 0) || (!s->useOr && strcmp(op, "<>") == 0)))
			refuse("lists other than a column IN (constants) or NOT IN (constants)");
		appendStringInfoString(out, "{\"column\": ");
		escape_json(out, col);
		appendStringInfo(out, ", \"%s\": [", s->useOr ? "in" : "not_in");
		foreach(lc, ((ArrayExpr *) list)->elements)
		{
			Const	   *c = const_of(lfirst(lc));

			if (c == NULL)
				refuse("lists other than a column IN (constants) or NOT IN (constants)");
			if (c->constisnull)
				refuse("NULL in an IN list (write IS NULL)");
			if (lc != list_head(((ArrayExpr *) list)->elements))
				appendStringInfoString(out, ", ");
			append_const(out, c);
		}
		appendStringInfoString(out, "]}");
	}
	else if (IsA(n, NullTest))
	{
		NullTest   *t = (NullTest *) n;
		const char *col = column_of(q, (Node *) t->arg);

		if (col == NULL || t->argisrow)
			refuse("IS NULL of anything but a column");
		appendStringInfoString(out, "{\"column\": ");
		escape_json(out, col);
		appendStringInfo(out, ", \"is_null\": %s}", t->nulltesttype == IS_NULL ? "true" : "false");
	}
	else
		refuse("this kind of condition in WHERE (only a column compared with a constant, IN, BETWEEN, IS NULL, AND, OR, NOT)");
}

/* n without implicit casts and relabelings, and through the grouping step's entry (18) */
static Node *
strip(Query *q, Node *n)
{
	for (;;)
	{
		if (n && IsA(n, RelabelType))
			n = (Node *) ((RelabelType *) n)->arg;
		else if (n && IsA(n, FuncExpr) && ((FuncExpr *) n)->funcformat == COERCE_IMPLICIT_CAST &&
				 list_length(((FuncExpr *) n)->args) == 1)
			n = linitial(((FuncExpr *) n)->args);
		else if (grouped(q, n) != n)
			n = grouped(q, n);
		else
			return n;
	}
}

/* the text of constant n (after implicit casts), or NULL if n is not a constant */
static char *
const_text(Query *q, Node *n)
{
	Const	   *c = const_of(strip(q, n));

	return c == NULL || c->constisnull ? NULL : const_string(c);
}

static bool
is_op(Node *n, const char *name)
{
	char	   *op;

	if (!n || !IsA(n, OpExpr) || list_length(((OpExpr *) n)->args) != 2)
		return false;
	op = get_opname(((OpExpr *) n)->opno);
	return op && strcmp(op, name) == 0;
}

/*
 * A grouping expression as JSON: a column, or a generalization of one that
 * can fall on its declared grid: date_trunc(unit, col), extract(field from
 * col) or date_part, width_bucket(col, lo, hi, count), floor(col / w) * w or
 * col / w * w (integers)
 */
static void
append_grouping(StringInfo out, Query *q, Node *expr)
{
	Node	   *n = strip(q, expr);
	const char *col = column_of(q, n);
	char	   *fn = n && IsA(n, FuncExpr) ? get_func_name(((FuncExpr *) n)->funcid) : NULL;
	List	   *args = fn ? ((FuncExpr *) n)->args : NIL;

	appendStringInfoString(out, "{\"column\": ");
	if (col)
	{
		escape_json(out, col);
		appendStringInfoChar(out, '}');
		return;
	}
	if (fn && strcmp(fn, "date_trunc") == 0 && list_length(args) == 2 && const_text(q, linitial(args)) &&
		(col = column_of(q, strip(q, lsecond(args)))) != NULL)
	{
		escape_json(out, col);
		appendStringInfoString(out, ", \"date_trunc\": ");
		escape_json(out, const_text(q, linitial(args)));
	}
	else if (fn && (strcmp(fn, "extract") == 0 || strcmp(fn, "date_part") == 0) && list_length(args) == 2 &&
			 const_text(q, linitial(args)) && (col = column_of(q, strip(q, lsecond(args)))) != NULL)
	{
		escape_json(out, col);
		appendStringInfoString(out, ", \"extract\": ");
		escape_json(out, const_text(q, linitial(args)));
	}
	else if (fn && strcmp(fn, "width_bucket") == 0 && list_length(args) == 4 &&
			 (col = column_of(q, strip(q, linitial(args)))) != NULL && const_text(q, lsecond(args)) &&
			 const_text(q, lthird(args)) && const_text(q, lfourth(args)))
	{
		escape_json(out, col);
		appendStringInfoString(out, ", \"width_bucket\": [");
		escape_json(out, const_text(q, lsecond(args)));
		appendStringInfoString(out, ", ");
		escape_json(out, const_text(q, lthird(args)));
		appendStringInfoString(out, ", ");
		escape_json(out, const_text(q, lfourth(args)));
		appendStringInfoChar(out, ']');
	}
	else if (is_op(n, "*") && const_text(q, lsecond(((OpExpr *) n)->args)))
	{
		/* floor(col / w) * w, or col / w * w: the same w twice */
		Node	   *inner = strip(q, linitial(((OpExpr *) n)->args));
		const char *w = const_text(q, lsecond(((OpExpr *) n)->args));

		if (inner && IsA(inner, FuncExpr) && strcmp(get_func_name(((FuncExpr *) inner)->funcid), "floor") == 0 &&
			list_length(((FuncExpr *) inner)->args) == 1)
			inner = strip(q, linitial(((FuncExpr *) inner)->args));
		if (!is_op(inner, "/") || (col = column_of(q, strip(q, linitial(((OpExpr *) inner)->args)))) == NULL ||
			const_text(q, lsecond(((OpExpr *) inner)->args)) == NULL ||
			strcmp(const_text(q, lsecond(((OpExpr *) inner)->args)), w) != 0)
			refuse("GROUP BY this expression (only columns, date_trunc, extract, width_bucket and floor(x / w) * w)");
		escape_json(out, col);
		appendStringInfoString(out, ", \"floor_width\": ");
		escape_json(out, w);
	}
	else
		refuse("GROUP BY this expression (only columns, date_trunc, extract, width_bucket and floor(x / w) * w)");
	appendStringInfoChar(out, '}');
}

/* an aggregate of the select list as JSON: count(*), or count, sum or avg of a column */
static void
append_aggregate(StringInfo out, Query *q, Aggref *a, const char *name)
{
	char	   *fn = get_func_name(a->aggfnoid);
	const char *col = NULL;

	if (a->aggfilter)
		refuse("FILTER on an aggregate");
	if (a->aggdistinct)
		refuse("DISTINCT in an aggregate");
	if (a->aggorder || a->aggkind != AGGKIND_NORMAL)
		refuse(psprintf("the aggregate %s (not yet)", fn));
	if (strcmp(fn, "count") != 0 && strcmp(fn, "sum") != 0 && strcmp(fn, "avg") != 0)
		refuse(psprintf("the aggregate %s", fn));
	if (!a->aggstar)
	{
		if (list_length(a->args) != 1 ||
			(col = column_of(q, (Node *) ((TargetEntry *) linitial(a->args))->expr)) == NULL)
			refuse(psprintf("%s of an expression (only of a column)", fn));
	}
	else if (strcmp(fn, "count") != 0)
		refuse(psprintf("%s(*)", fn));
	appendStringInfoString(out, "{\"output\": ");
	escape_json(out, name);
	appendStringInfo(out, ", \"aggregate\": \"%s\", \"column\": ", fn);
	if (col)
		escape_json(out, col);
	else
		appendStringInfoString(out, "null");
	appendStringInfoChar(out, '}');
}

char *
query_compile(const char *sql)
{
	List	   *raws;
	RawStmt    *raw;
	SelectStmt *sel;
	Query	   *q = NULL;
	MemoryContext cxt = CurrentMemoryContext;
	RangeTblEntry *rte;
	StringInfoData out;
	ListCell   *lc;
	bool		first;

	/*
	 * PostgreSQL's errors (syntax, unknown names) point into the statement:
	 * its position is dropped, which a client would show in dpm.query's call
	 * instead
	 */
	PG_TRY();
	{
		raws = raw_parser(sql, RAW_PARSE_DEFAULT);
		/* analyzed only if none of the refusals below that need no analysis applies */
		if (list_length(raws) == 1 && IsA(linitial_node(RawStmt, raws)->stmt, SelectStmt))
		{
			SelectStmt *s = (SelectStmt *) linitial_node(RawStmt, raws)->stmt;

			if (s->op == SETOP_NONE && !s->valuesLists && !s->withClause && !s->intoClause && !s->lockingClause)
				q = parse_analyze_fixedparams(linitial_node(RawStmt, raws), sql, NULL, 0, NULL);
		}
	}
	PG_CATCH();
	{
		ErrorData  *e;

		MemoryContextSwitchTo(cxt);
		e = CopyErrorData();
		FlushErrorState();
		e->cursorpos = 0;
		ReThrowError(e);
	}
	PG_END_TRY();
	if (list_length(raws) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dpm.query takes one statement, got %d", list_length(raws))));
	raw = linitial_node(RawStmt, raws);
	if (!IsA(raw->stmt, SelectStmt))
		refuse("statements other than SELECT");
	sel = (SelectStmt *) raw->stmt;
	if (sel->op != SETOP_NONE)
		refuse("UNION, INTERSECT or EXCEPT");
	if (sel->valuesLists)
		refuse("VALUES");
	if (sel->withClause)
		refuse("WITH (common table expressions)");
	if (sel->intoClause)
		refuse("SELECT INTO");
	if (sel->lockingClause)
		refuse("FOR UPDATE or FOR SHARE");
	Assert(q != NULL);
	if (q->hasSubLinks)
		refuse("subqueries");
	if (q->hasWindowFuncs)
		refuse("window functions");
	if (q->hasTargetSRFs)
		refuse("set-returning functions");
	if (q->distinctClause)
		refuse("SELECT DISTINCT (group by the columns instead)");
	if (q->groupingSets)
		refuse("GROUPING SETS, ROLLUP or CUBE (not yet)");
	if (q->havingQual || q->sortClause || q->limitCount || q->limitOffset)
		refuse("HAVING, ORDER BY, LIMIT or OFFSET (not yet)");
	if (list_length(q->jointree->fromlist) != 1 || !IsA(linitial(q->jointree->fromlist), RangeTblRef))
		refuse("a FROM other than one table (joins, several tables, subqueries)");
	rte = rt_fetch(linitial_node(RangeTblRef, q->jointree->fromlist)->rtindex, q->rtable);
	foreach(lc, q->rtable)
		if (lfirst(lc) != rte && lfirst_node(RangeTblEntry, lc)->rtekind != RTE_GROUP)
			refuse("a FROM other than one table (joins, several tables, subqueries)");
	if (rte->rtekind != RTE_RELATION)
		refuse("a FROM other than one table (joins, several tables, subqueries)");
	if (rte->tablesample)
		refuse("TABLESAMPLE");
	if (!q->hasAggs)
		refuse("SELECT without aggregates: it returns the source's rows (ask for count(*), sum or avg)");

	initStringInfo(&out);
	appendStringInfoString(&out, "{\"source\": ");
	escape_json(&out, quote_qualified_identifier(get_namespace_name(get_rel_namespace(rte->relid)),
												 get_rel_name(rte->relid)));

	/* the grouping columns, or generalizations of them */
	appendStringInfoString(&out, ", \"group_by\": [");
	first = true;
	foreach(lc, q->groupClause)
	{
		SortGroupClause *g = lfirst_node(SortGroupClause, lc);

		if (!first)
			appendStringInfoString(&out, ", ");
		append_grouping(&out, q, (Node *) get_sortgroupclause_tle(g, q->targetList)->expr);
		first = false;
	}

	/* the select list: grouping expressions and aggregates, in order */
	appendStringInfoString(&out, "], \"columns\": [");
	first = true;
	foreach(lc, q->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);
		const char *name = te->resname ? te->resname : "?column?";

		if (te->resjunk)
			continue;
		if (!first)
			appendStringInfoString(&out, ", ");
		first = false;
		if (IsA(te->expr, Aggref))
			append_aggregate(&out, q, (Aggref *) te->expr, name);
		else if (te->ressortgroupref != 0)
		{
			appendStringInfoString(&out, "{\"output\": ");
			escape_json(&out, name);
			appendStringInfoString(&out, ", \"group\": ");
			append_grouping(&out, q, (Node *) te->expr);
			appendStringInfoChar(&out, '}');
		}
		else if (column_of(q, (Node *) te->expr) != NULL)
			refuse(psprintf("column %s in the select list without GROUP BY it", column_of(q, (Node *) te->expr)));
		else
			refuse("expressions in the select list (only grouping expressions and aggregates, for now)");
	}
	appendStringInfoString(&out, "], \"where\": ");
	if (q->jointree->quals)
		append_condition(&out, q, q->jointree->quals);
	else
		appendStringInfoString(&out, "null");
	appendStringInfoChar(&out, '}');
	return out.data;
}
