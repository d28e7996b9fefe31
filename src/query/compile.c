/*
 * compile.c -- an analyst's SELECT, parsed and analyzed by PostgreSQL's own
 * parser, described as what the SQL front door (dpm.answer_query, issue 44) maps
 * to the matrix mechanism: the source, the grouping columns, the aggregates
 * and the WHERE condition over columns and constants.  Nothing runs: the
 * statement is analyzed, never planned or executed, and everything outside
 * the supported subset is refused here, naming the construct.
 *
 * Analysis runs as the caller (it may evaluate the input functions of the
 * statement's constants), never as the extension's owner.
 */
#include "postgres.h"

#include "access/transam.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "nodes/parsenodes.h"
#include "optimizer/optimizer.h"
#include "parser/analyze.h"
#include "parser/parse_agg.h"
#include "parser/parser.h"
#include "parser/parsetree.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"

#include "pg_compat.h"
#include "query/compile.h"

#define SUPPORTED "dpm.answer_query answers a SELECT of grouping columns and count(*), count(column), sum(column), " \
	"avg(column) or percentile_cont and percentile_disc of a column FROM one registered source, WHERE " \
	"comparisons of its columns with constants, GROUP BY (or GROUPING SETS, ROLLUP, CUBE of) its columns or " \
	"date_trunc, extract, width_bucket or floor(x / w) * w of them, then HAVING, ORDER BY and LIMIT on the " \
	"statement's own columns."

/* more grouping sets than a dashboard needs are refused while they are expanded */
#define MAX_GROUPING_SETS 64

static void
refuse(const char *construct)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("dpm.answer_query does not support %s", construct),
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
 * The column of the source a Var names (through implicit casts, and the
 * grouping step's entry), or NULL
 */
static Node *strip(Query *q, Node *n);

static const char *
column_of(Query *q, Node *n)
{
	n = strip(q, n);
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

/* , "type": the constant's type, which the front door compares the column with as the statement does */
static void
append_type(StringInfo out, Oid type)
{
	appendStringInfoString(out, ", \"type\": ");
	escape_json(out, format_type_be(type));
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

typedef void (*AppendLeaf) (StringInfo out, Query *q, Node *n);

/* {"and"|"or"|"not": [...]}: the arguments of b, each by append */
static void
append_bool(StringInfo out, Query *q, BoolExpr *b, AppendLeaf append)
{
	ListCell   *lc;

	appendStringInfo(out, "{\"%s\": [", b->boolop == AND_EXPR ? "and" : b->boolop == OR_EXPR ? "or" : "not");
	foreach(lc, b->args)
	{
		if (lc != list_head(b->args))
			appendStringInfoString(out, ", ");
		append(out, q, lfirst(lc));
	}
	appendStringInfoString(out, "]}");
}

/* the WHERE condition as JSON: and/or/not of column comparisons with constants */
static void
append_condition(StringInfo out, Query *q, Node *n)
{
	if (IsA(n, BoolExpr))
		append_bool(out, q, (BoolExpr *) n, append_condition);
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
		append_type(out, c->consttype);
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
		appendStringInfoChar(out, ']');
		append_type(out, ((ArrayExpr *) list)->element_typeid);
		appendStringInfoChar(out, '}');
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
 * Refuses functions, operators and constants' types that are not the
 * system's own: the front door evaluates the statement's grouping
 * expressions and comparisons itself, as the extension's owner, so they must
 * mean what PostgreSQL's built-ins mean (an analyst's own floor() or "="
 * would otherwise run with the owner's rights, or answer another question)
 */
static bool
not_builtin(Node *n, void *context)
{
	Oid			fn = InvalidOid;

	if (n == NULL)
		return false;
	if (IsA(n, FuncExpr))
		fn = ((FuncExpr *) n)->funcid;
	else if (IsA(n, OpExpr) || IsA(n, DistinctExpr) || IsA(n, NullIfExpr))
		fn = get_opcode(((OpExpr *) n)->opno);
	else if (IsA(n, ScalarArrayOpExpr))
		fn = get_opcode(((ScalarArrayOpExpr *) n)->opno);
	else if (IsA(n, Const) && ((Const *) n)->consttype >= FirstNormalObjectId)
		return true;
	else if (IsA(n, CoerceViaIO) || IsA(n, CoerceToDomain))
		return true;			/* a type's input function, a domain's checks */
	if (OidIsValid(fn) && (fn >= FirstNormalObjectId || get_func_namespace(fn) != PG_CATALOG_NAMESPACE))
		return true;
	return expression_tree_walker(n, not_builtin, context);
}

static void
check_builtin(Node *n, const char *where)
{
	if (not_builtin(n, NULL))
		refuse(psprintf("functions, operators, casts or types of your own in %s (only PostgreSQL's built-in ones)", where));
}

/* the statement's expression with its column as parameter $1 */
static Node *
column_to_param(Node *n, void *context)
{
	Query	   *q = context;

	if (n == NULL)
		return NULL;
	if (grouped(q, n) != n)
		return column_to_param(grouped(q, n), q);
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
static void
append_grouping(StringInfo out, Query *q, Node *expr)
{
	Node	   *n = strip(q, expr);
	const char *col = column_of(q, n);
	char	   *fn = n && IsA(n, FuncExpr) ? get_func_name(((FuncExpr *) n)->funcid) : NULL;
	List	   *args = fn ? ((FuncExpr *) n)->args : NIL;

	check_builtin(column_to_param(expr, q), "GROUP BY");
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
		bool		floored = false;

		/* integer division truncates toward zero: -5 / 10 * 10 is 0, floor(-5 / 10.0) * 10 is -10 */
		if (inner && IsA(inner, FuncExpr) && strcmp(get_func_name(((FuncExpr *) inner)->funcid), "floor") == 0 &&
			list_length(((FuncExpr *) inner)->args) == 1)
		{
			inner = strip(q, linitial(((FuncExpr *) inner)->args));
			floored = true;
		}
		if (!is_op(inner, "/") || (col = column_of(q, strip(q, linitial(((OpExpr *) inner)->args)))) == NULL ||
			const_text(q, lsecond(((OpExpr *) inner)->args)) == NULL ||
			strcmp(const_text(q, lsecond(((OpExpr *) inner)->args)), w) != 0)
			refuse("GROUP BY this expression (only columns, date_trunc, extract, width_bucket and floor(x / w) * w)");
		escape_json(out, col);
		appendStringInfo(out, ", \"%s\": ", floored ? "floor_width" : "div_width");
		escape_json(out, w);
	}
	else
		refuse("GROUP BY this expression (only columns, date_trunc, extract, width_bucket and floor(x / w) * w)");

	/*
	 * the expression itself, over $1 for the column, which the front door
	 * evaluates at the edges of the column's bins: the statement's own
	 * functions and operators, as its types resolved them
	 */
	appendStringInfoString(out, ", \"expression\": ");
	escape_json(out, deparse_expression(column_to_param(expr, q), NIL, false, false));
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
	if (get_func_namespace(a->aggfnoid) != PG_CATALOG_NAMESPACE)
		refuse(psprintf("the aggregate %s of your own", fn));
	if (a->aggkind == AGGKIND_ORDERED_SET &&
		(strcmp(fn, "percentile_cont") == 0 || strcmp(fn, "percentile_disc") == 0))
	{
		/* percentile_cont(fraction) WITHIN GROUP (ORDER BY column), ascending */
		SortGroupClause *sc = list_length(a->aggorder) == 1 ? linitial_node(SortGroupClause, a->aggorder) : NULL;
		const char *fraction = list_length(a->aggdirectargs) == 1 ? const_text(q, linitial(a->aggdirectargs)) : NULL;

		if (fraction == NULL || sc == NULL || list_length(a->args) != 1 ||
			(col = column_of(q, (Node *) ((TargetEntry *) linitial(a->args))->expr)) == NULL)
			refuse(psprintf("%s other than of one constant fraction WITHIN GROUP (ORDER BY a column)", fn));
		if (get_opname(sc->sortop) == NULL || strcmp(get_opname(sc->sortop), "<") != 0)
			refuse(psprintf("%s WITHIN GROUP (ORDER BY ... DESC)", fn));
		appendStringInfoString(out, "{\"output\": ");
		escape_json(out, name);
		appendStringInfo(out, ", \"aggregate\": \"%s\", \"column\": ", fn);
		escape_json(out, col);
		appendStringInfoString(out, ", \"fraction\": ");
		escape_json(out, fraction);
		appendStringInfoChar(out, '}');
		return;
	}
	if (a->aggorder || a->aggkind != AGGKIND_NORMAL)
		refuse(psprintf("the aggregate %s", fn));
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
		if (equal(te->expr, n) || (te->ressortgroupref != 0 && equal(strip(q, (Node *) te->expr), strip(q, n))))
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
		append_bool(out, q, (BoolExpr *) n, append_having);
	else if (IsA(n, OpExpr) && list_length(((OpExpr *) n)->args) == 2)
	{
		OpExpr	   *op = (OpExpr *) n;
		Const	   *l = const_of(strip(q, linitial(op->args))),
				   *r = const_of(strip(q, lsecond(op->args)));
		int			pos = output_of(q, r ? linitial(op->args) : lsecond(op->args));

		if ((l == NULL) == (r == NULL) || pos < 0)
			refuse("HAVING other than the statement's own columns compared with constants");
		appendStringInfo(out, "{\"output\": %d, \"op\": \"%s\", \"value\": ", pos, comparison(op->opno, r == NULL));
		append_const(out, r ? r : l);
		appendStringInfoChar(out, '}');
	}
	else if (IsA(n, NullTest) && output_of(q, (Node *) ((NullTest *) n)->arg) >= 0 && !((NullTest *) n)->argisrow)
		appendStringInfo(out, "{\"output\": %d, \"is_null\": %s}", output_of(q, (Node *) ((NullTest *) n)->arg),
						 ((NullTest *) n)->nulltesttype == IS_NULL ? "true" : "false");
	else
		refuse("this kind of condition in HAVING (only the statement's own columns compared with constants, AND, OR, NOT)");
}

/* LIMIT or OFFSET: a non-negative integer constant, or null */
static void
append_count(StringInfo out, Query *q, const char *key, Node *n)
{
	Const	   *c = n ? const_of(strip(q, n)) : NULL;

	appendStringInfo(out, ", \"%s\": ", key);
	if (n == NULL || (c && c->constisnull))
		appendStringInfoString(out, "null");
	else if (c == NULL || (c->consttype != INT8OID && c->consttype != INT4OID) ||
			 (c->consttype == INT8OID ? DatumGetInt64(c->constvalue) : DatumGetInt32(c->constvalue)) < 0)
		refuse(psprintf("%s other than a non-negative integer constant", key));
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
			refuse("ORDER BY other than the statement's own columns");
		if (op == NULL || (strcmp(op, "<") != 0 && strcmp(op, ">") != 0))
			refuse("ORDER BY ... USING another operator");
		appendStringInfo(out, "%s{\"output\": %d, \"desc\": %s, \"nulls_first\": %s}",
						 foreach_current_index(lc) > 0 ? ", " : "", pos, strcmp(op, ">") == 0 ? "true" : "false",
						 sc->nulls_first ? "true" : "false");
	}
	appendStringInfoChar(out, ']');
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
	 * its position is dropped, which a client would show in dpm.answer_query's call
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
				 errmsg("dpm.answer_query takes one statement, got %d", list_length(raws))));
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
	if (q->limitOption == LIMIT_OPTION_WITH_TIES)
		refuse("FETCH ... WITH TIES");
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

	/*
	 * GROUPING SETS, ROLLUP and CUBE: each set as the positions in group_by
	 * of its grouping expressions
	 */
	appendStringInfoString(&out, "], \"grouping_sets\": ");
	if (q->groupingSets)
	{
		List	   *sets = expand_grouping_sets(q->groupingSets, q->groupDistinct, MAX_GROUPING_SETS);
		ListCell   *ls;

		if (sets == NIL)
			refuse(psprintf("more than %d grouping sets", MAX_GROUPING_SETS));
		appendStringInfoChar(&out, '[');
		foreach(ls, sets)
		{
			ListCell   *li;

			if (foreach_current_index(ls) > 0)
				appendStringInfoString(&out, ", ");
			appendStringInfoChar(&out, '[');
			foreach(li, (List *) lfirst(ls))
			{
				int			pos = 0;
				ListCell   *lg;

				foreach(lg, q->groupClause)
				{
					if (lfirst_node(SortGroupClause, lg)->tleSortGroupRef == (Index) lfirst_int(li))
						break;
					pos++;
				}
				appendStringInfo(&out, "%s%d", foreach_current_index(li) > 0 ? ", " : "", pos);
			}
			appendStringInfoChar(&out, ']');
		}
		appendStringInfoChar(&out, ']');
	}
	else
		appendStringInfoString(&out, "null");

	/* the select list: grouping expressions and aggregates, in order */
	appendStringInfoString(&out, ", \"columns\": [");
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
	{
		check_builtin(q->jointree->quals, "WHERE");
		append_condition(&out, q, q->jointree->quals);
	}
	else
		appendStringInfoString(&out, "null");

	/* what is done to the answers */
	appendStringInfoString(&out, ", \"having\": ");
	if (q->havingQual)
	{
		check_builtin(q->havingQual, "HAVING");
		append_having(&out, q, q->havingQual);
	}
	else
		appendStringInfoString(&out, "null");
	append_order(&out, q);
	append_count(&out, q, "limit", q->limitCount);
	append_count(&out, q, "offset", q->limitOffset);
	appendStringInfoChar(&out, '}');
	return out.data;
}
