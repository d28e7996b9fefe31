/*
 * nodes.c -- what the front door's compiler (compile.c, outputs.c) asks of
 * an analyzed statement's nodes: the column a Var names, constants and their
 * text, comparisons, whether only PostgreSQL's built-ins appear; and its
 * refusal, naming the construct and saying what is supported.
 */
#include "postgres.h"

#include "access/transam.h"
#include "catalog/pg_namespace.h"
#include "nodes/nodeFuncs.h"
#include "parser/parse_coerce.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/lsyscache.h"

#include "pg_compat.h"
#include "query/nodes.h"

#define SUPPORTED "The SQL front door answers a SELECT of grouping columns and count(*), count(column), sum(column), " \
	"avg(column) or percentile_cont and percentile_disc of a column FROM one registered source, WHERE " \
	"comparisons of its columns with constants, GROUP BY (or GROUPING SETS, ROLLUP, CUBE of) its columns or " \
	"date_trunc, extract, width_bucket or floor(x / w) * w of them, and expressions over its aggregates and " \
	"groupings with PostgreSQL's immutable functions, then HAVING, ORDER BY and LIMIT on the statement's own columns."

void
query_refuse(const char *construct)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("the SQL front door does not support %s", construct),
			 errhint(SUPPORTED)));
}

/* the expression a Var of the grouping step's entry (18) stands for, else n itself */
Node *
query_grouped(Query *q, Node *n)
{
	if (n && IsA(n, Var) && ((Var *) n)->varlevelsup == 0 && ((Var *) n)->varattno > 0 &&
		rt_fetch(((Var *) n)->varno, q->rtable)->rtekind == RTE_GROUP)
		return list_nth(dpm_group_exprs(rt_fetch(((Var *) n)->varno, q->rtable)), ((Var *) n)->varattno - 1);
	return n;
}

/*
 * Whether an explicit cast is one PostgreSQL applies implicitly (int to
 * float8, date to timestamptz): written out, it means what it means unsaid,
 * and PostgreSQL writes it out when it reads a statement back
 * (pg_get_querydef), as plain.c does
 */
static bool
implicit_cast(FuncExpr *f)
{
	Oid			fn = InvalidOid;

	return f->funcformat == COERCE_EXPLICIT_CAST &&
		find_coercion_pathway(f->funcresulttype, exprType(linitial(f->args)), COERCION_IMPLICIT, &fn) == COERCION_PATH_FUNC &&
		fn == f->funcid;
}

/* n without implicit casts and relabelings, and through the grouping step's entry (18) */
Node *
query_strip(Query *q, Node *n)
{
	for (;;)
	{
		if (n && IsA(n, RelabelType))
			n = (Node *) ((RelabelType *) n)->arg;
		else if (n && IsA(n, FuncExpr) && list_length(((FuncExpr *) n)->args) == 1 &&
				 (((FuncExpr *) n)->funcformat == COERCE_IMPLICIT_CAST || implicit_cast((FuncExpr *) n)))
			n = linitial(((FuncExpr *) n)->args);
		else if (query_grouped(q, n) != n)
			n = query_grouped(q, n);
		else
			return n;
	}
}

/*
 * The column of the source a Var names (through implicit casts, and the
 * grouping step's entry), or NULL
 */
const char *
query_column_of(Query *q, Node *n)
{
	n = query_strip(q, n);
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

Const *
query_const_of(Node *n)
{
	while (n && IsA(n, RelabelType))
		n = (Node *) ((RelabelType *) n)->arg;
	return n && IsA(n, Const) ? (Const *) n : NULL;
}

/* the text of constant n (after implicit casts), or NULL if n is not a constant */
char *
query_const_text(Query *q, Node *n)
{
	Const	   *c = query_const_of(query_strip(q, n));

	return c == NULL || c->constisnull ? NULL : const_string(c);
}

void
query_append_const(StringInfo out, Const *c)
{
	if (c->constisnull)
		query_refuse("comparisons with NULL (write IS NULL)");
	escape_json(out, const_string(c));
}

/* , "type": the constant's type, which the front door compares the column with as the statement does */
void
query_append_type(StringInfo out, Oid type)
{
	appendStringInfoString(out, ", \"type\": ");
	escape_json(out, format_type_be(type));
}

/* the operator's name, as seen from the column's side */
const char *
query_comparison(Oid opno, bool column_right)
{
	static const char *const ops[] = {"=", "<>", "<", "<=", ">", ">="};
	static const char *const flipped[] = {"=", "<>", ">", ">=", "<", "<="};
	char	   *name = get_opname(opno);

	for (int i = 0; name && i < (int) lengthof(ops); i++)
		if (strcmp(name, ops[i]) == 0)
			return column_right ? flipped[i] : ops[i];
	query_refuse(psprintf("the operator %s in WHERE", name ? name : "?"));
	return NULL;
}

/* {"and"|"or"|"not": [...]}: the arguments of b, each by append */
void
query_append_bool(StringInfo out, Query *q, BoolExpr *b, QueryAppendLeaf append)
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

bool
query_is_op(Node *n, const char *name)
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
	else if (IsA(n, CoerceViaIO) && context != NULL &&
			 ((CoerceViaIO *) n)->resulttype < FirstNormalObjectId &&
			 exprType((Node *) ((CoerceViaIO *) n)->arg) < FirstNormalObjectId)
		;						/* a cast through text between built-in types, where allowed */
	else if (IsA(n, CoerceViaIO) || IsA(n, CoerceToDomain))
		return true;			/* a type's input function, a domain's checks */
	if (OidIsValid(fn) && (fn >= FirstNormalObjectId || get_func_namespace(fn) != PG_CATALOG_NAMESPACE))
		return true;
	return expression_tree_walker(n, not_builtin, context);
}

/* io_casts: whether casts through text between built-in types are allowed in n */
void
query_check_builtin(Node *n, const char *where, bool io_casts)
{
	if (not_builtin(n, io_casts ? (void *) n : NULL))
		query_refuse(psprintf("functions, operators or types of your own, or casts through text, in %s (only PostgreSQL's built-in ones)", where));
}
