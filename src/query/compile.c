/*
 * compile.c -- an analyst's SELECT, parsed and analyzed by PostgreSQL's own
 * parser, described as what the SQL front door (dpm.answer_query, issue 44) maps
 * to the matrix mechanism: the source, the grouping columns, the aggregates
 * and the WHERE condition over columns and constants (its parts: nodes.c,
 * groupings.c, outputs.c).  Nothing runs: the
 * statement is analyzed, never planned or executed, and everything outside
 * the supported subset is refused here, naming the construct.
 *
 * Analysis runs as the caller (it may evaluate the input functions of the
 * statement's constants), never as the extension's owner.
 */
#include "postgres.h"

#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/parsenodes.h"
#include "optimizer/optimizer.h"
#include "parser/analyze.h"
#include "parser/parse_agg.h"
#include "parser/parser.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/lsyscache.h"

#include "pg_compat.h"
#include "query/compile.h"
#include "query/nodes.h"

/* more grouping sets than a dashboard needs are refused while they are expanded */
#define MAX_GROUPING_SETS 64

/* the WHERE condition as JSON: and/or/not of column comparisons with constants */
static void
append_condition(StringInfo out, Query *q, Node *n)
{
	if (IsA(n, BoolExpr))
		query_append_bool(out, q, (BoolExpr *) n, append_condition);
	else if (IsA(n, OpExpr) && list_length(((OpExpr *) n)->args) == 2)
	{
		OpExpr	   *op = (OpExpr *) n;
		Node	   *l = linitial(op->args),
				   *r = lsecond(op->args);
		bool		right = query_column_of(q, l) == NULL;
		const char *col = query_column_of(q, right ? r : l);
		Const	   *c = query_const_of(right ? l : r);

		if (col == NULL || c == NULL)
			query_refuse("conditions other than a column compared with a constant");
		appendStringInfoString(out, "{\"column\": ");
		escape_json(out, col);
		appendStringInfo(out, ", \"op\": \"%s\", \"value\": ", query_comparison(op->opno, right));
		query_append_const(out, c);
		query_append_type(out, c->consttype);
		appendStringInfoChar(out, '}');
	}
	else if (IsA(n, ScalarArrayOpExpr))
	{
		ScalarArrayOpExpr *s = (ScalarArrayOpExpr *) n;
		const char *col = query_column_of(q, linitial(s->args));
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
			query_refuse("lists other than a column IN (constants) or NOT IN (constants)");
		appendStringInfoString(out, "{\"column\": ");
		escape_json(out, col);
		appendStringInfo(out, ", \"%s\": [", s->useOr ? "in" : "not_in");
		foreach(lc, ((ArrayExpr *) list)->elements)
		{
			Const	   *c = query_const_of(lfirst(lc));

			if (c == NULL)
				query_refuse("lists other than a column IN (constants) or NOT IN (constants)");
			if (c->constisnull)
				query_refuse("NULL in an IN list (write IS NULL)");
			if (lc != list_head(((ArrayExpr *) list)->elements))
				appendStringInfoString(out, ", ");
			query_append_const(out, c);
		}
		appendStringInfoChar(out, ']');
		query_append_type(out, ((ArrayExpr *) list)->element_typeid);
		appendStringInfoChar(out, '}');
	}
	else if (IsA(n, NullTest))
	{
		NullTest   *t = (NullTest *) n;
		const char *col = query_column_of(q, (Node *) t->arg);

		if (col == NULL || t->argisrow)
			query_refuse("IS NULL of anything but a column");
		appendStringInfoString(out, "{\"column\": ");
		escape_json(out, col);
		appendStringInfo(out, ", \"is_null\": %s}", t->nulltesttype == IS_NULL ? "true" : "false");
	}
	else
		query_refuse("this kind of condition in WHERE (only a column compared with a constant, IN, BETWEEN, IS NULL, AND, OR, NOT)");
}

/* set while a statement is analyzed here: plain.c leaves that analysis alone */
static bool compiling = false;

bool
query_compiling(void)
{
	return compiling;
}

/* what params_to_consts puts in place of $1..$n */
typedef struct Bound
{
	int			n;
	const Oid  *types;
	char	   *const *values;
} Bound;

/*
 * The statement with each parameter $k as the constant of its value: what
 * the statement asks once its parameters are bound (a driver's prepared
 * statement)
 */
static Node *
params_to_consts(Node *n, void *context)
{
	Bound	   *b = context;

	if (n == NULL)
		return NULL;
	if (IsA(n, Param) && ((Param *) n)->paramkind == PARAM_EXTERN && ((Param *) n)->paramid <= b->n)
	{
		Param	   *p = (Param *) n;
		const char *v = b->values[p->paramid - 1];
		Oid			input;
		Oid			ioparam;
		int16		len;
		bool		byval;

		getTypeInputInfo(p->paramtype, &input, &ioparam);
		get_typlenbyval(p->paramtype, &len, &byval);
		return (Node *) makeConst(p->paramtype, p->paramtypmod, p->paramcollid, len,
								  v ? OidInputFunctionCall(input, (char *) v, ioparam, p->paramtypmod) : (Datum) 0,
								  v == NULL, byval);
	}
	if (IsA(n, Query))
		return (Node *) query_tree_mutator((Query *) n, params_to_consts, context, 0);
	return expression_tree_mutator(n, params_to_consts, context);
}

char *
query_compile(const char *sql)
{
	return query_compile_with(sql, 0, NULL, NULL);
}

char *
query_compile_with(const char *sql, int nparams, const Oid *types, char *const *values)
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
			{
				Bound		b = {nparams, types, values};

				compiling = true;
				q = parse_analyze_fixedparams(linitial_node(RawStmt, raws), sql, types, nparams, NULL);
				compiling = false;
				if (nparams > 0)
					q = (Query *) params_to_consts((Node *) q, &b);
			}
		}
	}
	PG_CATCH();
	{
		ErrorData  *e;

		compiling = false;
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
		query_refuse("statements other than SELECT");
	sel = (SelectStmt *) raw->stmt;
	if (sel->op != SETOP_NONE)
		query_refuse("UNION, INTERSECT or EXCEPT");
	if (sel->valuesLists)
		query_refuse("VALUES");
	if (sel->withClause)
		query_refuse("WITH (common table expressions)");
	if (sel->intoClause)
		query_refuse("SELECT INTO");
	if (sel->lockingClause)
		query_refuse("FOR UPDATE or FOR SHARE");
	Assert(q != NULL);
	if (q->hasSubLinks)
		query_refuse("subqueries");
	if (q->hasWindowFuncs)
		query_refuse("window functions");
	if (q->hasTargetSRFs)
		query_refuse("set-returning functions");
	if (q->distinctClause)
		query_refuse("SELECT DISTINCT (group by the columns instead)");
	if (q->limitOption == LIMIT_OPTION_WITH_TIES)
		query_refuse("FETCH ... WITH TIES");
	if (list_length(q->jointree->fromlist) != 1 || !IsA(linitial(q->jointree->fromlist), RangeTblRef))
		query_refuse("a FROM other than one table (joins, several tables, subqueries)");
	rte = rt_fetch(linitial_node(RangeTblRef, q->jointree->fromlist)->rtindex, q->rtable);
	foreach(lc, q->rtable)
		if (lfirst(lc) != rte && lfirst_node(RangeTblEntry, lc)->rtekind != RTE_GROUP)
			query_refuse("a FROM other than one table (joins, several tables, subqueries)");
	if (rte->rtekind != RTE_RELATION)
		query_refuse("a FROM other than one table (joins, several tables, subqueries)");
	if (rte->tablesample)
		query_refuse("TABLESAMPLE");
	if (!q->hasAggs)
		query_refuse("SELECT without aggregates: it returns the source's rows (ask for count(*), sum or avg)");

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
		query_append_grouping(&out, q, (Node *) get_sortgroupclause_tle(g, q->targetList)->expr);
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
			query_refuse(psprintf("more than %d grouping sets", MAX_GROUPING_SETS));
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

	/* the select list */
	query_append_columns(&out, q);
	appendStringInfoString(&out, ", \"where\": ");
	if (q->jointree->quals)
	{
		query_check_builtin(q->jointree->quals, "WHERE", false);
		append_condition(&out, q, q->jointree->quals);
	}
	else
		appendStringInfoString(&out, "null");

	/* what is done to the answers */
	query_append_post(&out, q);
	appendStringInfoChar(&out, '}');
	return out.data;
}
