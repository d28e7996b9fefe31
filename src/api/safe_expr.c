/*
 * safe_expr.c -- dpm_internal.check_cells: the expressions a release evaluates on
 * every row of its source can raise no error, whatever the rows hold.
 *
 * Why.  A release is charged first and reads its source after (src/release/queue.h).
 * Were a custodian's condition able to fail on some value (100 / (age - 77),
 * a cast of dirty text), whether a release answers or fails would depend on
 * the rows, and the analyst would learn it outside the noise.  So the outcome
 * is made independent of the rows by construction: before a domain is
 * created, and again before every charge, each attribute's expression, and
 * the source's own definition as the scanning role sees it (a view's query,
 * row-level security policies), must be built from nothing but
 *   - column references, constants, AND/OR/NOT, CASE, COALESCE, NULLIF,
 *     IS [NOT] NULL, IS [NOT] TRUE/FALSE, IN lists, GREATEST/LEAST,
 *     binary-compatible and row-type casts, field selection, array subscripts;
 *   - functions and operators marked LEAKPROOF: by PostgreSQL's definition
 *     they raise no error that depends on their arguments, and only a
 *     superuser can mark one so (comparisons of the built-in types, widening
 *     casts such as integer to numeric);
 *   - a few built-in functions that PostgreSQL leaves unmarked but that
 *     cannot fail on any value (vetted below, each with its reason).
 * Constant subexpressions are folded first, so an error in one is raised
 * here, on no row.  Whatever is not on these lists is refused (a subquery,
 * an aggregate, a cast through text, a domain type's check, a function
 * marked neither way) with the reason and what to write instead.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_proc.h"
#include "lib/stringinfo.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/analyze.h"
#include "parser/parser.h"
#include "rewrite/rewriteHandler.h"
#include "tcop/tcopprot.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "api/access.h"

/* why a node is unsafe, or NULL */
typedef struct SafeCheck
{
	const char *why;
} SafeCheck;

static bool unsafe_walker(Node *node, SafeCheck *check);

static bool
refuse(SafeCheck *check, const char *why)
{
	check->why = why;
	return true;				/* stops the walk */
}

/* a divisor that cannot make integer division fail: a constant other than 0 and -1 */
static bool
safe_divisor(Node *arg)
{
	Const	   *c = (Const *) arg;
	int64		v;

	if (!IsA(arg, Const) || c->constisnull)
		return false;
	switch (c->consttype)
	{
		case INT2OID:
			v = DatumGetInt16(c->constvalue);
			break;
		case INT4OID:
			v = DatumGetInt32(c->constvalue);
			break;
		case INT8OID:
			v = DatumGetInt64(c->constvalue);
			break;
		default:
			return false;
	}
	return v != 0 && v != -1;
}

/* a LIKE pattern that cannot raise "LIKE pattern must not end with escape character" */
static bool
safe_like_pattern(Node *arg)
{
	Const	   *c = (Const *) arg;
	text	   *t;
	const char *p;
	int			len;

	if (!IsA(arg, Const) || c->constisnull)
		return false;
	t = DatumGetTextPP(c->constvalue);
	p = VARDATA_ANY(t);
	len = VARSIZE_ANY_EXHDR(t);
	for (int i = 0; i < len; i++)
		if (p[i] == '\\' && ++i == len)
			return false;
	return true;
}

static bool
leakproof(Oid funcid)
{
	HeapTuple	tp = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	bool		result;

	if (!HeapTupleIsValid(tp))
		elog(ERROR, "cache lookup failed for function %u", funcid);
	result = ((Form_pg_proc) GETSTRUCT(tp))->proleakproof;
	ReleaseSysCache(tp);
	return result;
}

/*
 * A constant field of extract or date_part that yields a number for every
 * value of the type, infinities and the ends of its range included (each was
 * tried on those; test/sql/date_bins.sql).  A date has no hour: extract would
 * fail on every row, so whether a release failed would say whether any row
 * was read.  Synonyms PostgreSQL also takes ("years", "mon") are not listed:
 * the hint gives these names.
 */
static const char *const date_fields[] = {"year", "month", "day", "quarter", "week", "doy", "dow",
	"isodow", "isoyear", "decade", "century", "millennium", "epoch", "julian", NULL};
static const char *const time_fields[] = {"hour", "minute", "second", "milliseconds", "microseconds", NULL};

static const char *
unsafe_extract(List *args, bool with_time)
{
	Const	   *c = list_length(args) == 2 ? (Const *) linitial(args) : NULL;
	char	   *field;

	if (c != NULL && IsA(c, Const) && !c->constisnull && c->consttype == TEXTOID)
	{
		field = TextDatumGetCString(c->constvalue);
		for (int i = 0; date_fields[i]; i++)
			if (strcmp(field, date_fields[i]) == 0)
				return NULL;
		for (int i = 0; with_time && time_fields[i]; i++)
			if (strcmp(field, time_fields[i]) == 0)
				return NULL;
	}
	return psprintf("extract takes a constant field of %s: %s%s", with_time ? "a timestamp" : "a date",
					"year, month, day, quarter, week, doy, dow, isodow, isoyear, decade, century, millennium, epoch, julian",
					with_time ? ", hour, minute, second, milliseconds, microseconds" : "");
}

/* a type's default btree comparison cannot fail (width_bucket and GREATEST/LEAST use it) */
static bool
safe_comparison(Oid type)
{
	TypeCacheEntry *tc = lookup_type_cache(type, TYPECACHE_CMP_PROC);

	return OidIsValid(tc->cmp_proc) &&
		(leakproof(tc->cmp_proc) || tc->cmp_proc == F_NUMERIC_CMP);
}

/*
 * Can a call of funcid on args fail on some row?  Returns a reason, or NULL.
 * The arguments themselves are checked by the caller's walk.
 */
static const char *
unsafe_call(Oid funcid, List *args)
{
	switch (funcid)
	{
			/* numeric comparisons order every value, NaN included, and never fail */
		case F_NUMERIC_EQ:
		case F_NUMERIC_NE:
		case F_NUMERIC_LT:
		case F_NUMERIC_LE:
		case F_NUMERIC_GT:
		case F_NUMERIC_GE:
		case F_NUMERIC_CMP:
			/* char(n) to text only trims blanks */
		case F_TEXT_BPCHAR:
			return NULL;
			/* integer division and modulo fail only for a divisor 0, or -1 (overflow) */
		case F_INT2DIV:
		case F_INT2MOD:
		case F_INT4DIV:
		case F_INT4MOD:
		case F_INT8DIV:
		case F_INT8MOD:
			return list_length(args) == 2 && safe_divisor(lsecond(args)) ? NULL :
				"integer division or modulo fails for a divisor of 0 or -1: divide only by a constant other than those";
			/* LIKE fails only on a pattern that ends with its escape character */
		case F_TEXTLIKE:
		case F_TEXTNLIKE:
		case F_BPCHARLIKE:
		case F_BPCHARNLIKE:
		case F_NAMELIKE:
		case F_NAMENLIKE:
			return list_length(args) == 2 && safe_like_pattern(lsecond(args)) ? NULL :
				"LIKE is allowed only with a constant pattern that does not end with a backslash";
			/* a part of a date or timestamp, by a field that fits every value of the type */
		case F_EXTRACT_TEXT_DATE:
			return unsafe_extract(args, false);
		case F_EXTRACT_TEXT_TIMESTAMP:
		case F_DATE_PART_TEXT_TIMESTAMP:
			return unsafe_extract(args, true);
			/* its value would follow the session's time zone, and so would the bins */
		case F_EXTRACT_TEXT_TIMESTAMPTZ:
		case F_DATE_PART_TEXT_TIMESTAMPTZ:
			return "extract from a timestamptz depends on the session's time zone: bin the column by calendar width instead (\"width\": \"1 year\"), or extract from a timestamp column";

			/*
			 * width_bucket over a constant one-dimensional array without
			 * NULLs (dpmatrix's binary search for width bins) only compares
			 */
		case F_WIDTH_BUCKET_ANYCOMPATIBLE_ANYCOMPATIBLEARRAY:
			{
				Const	   *c = list_length(args) == 2 ? (Const *) lsecond(args) : NULL;
				ArrayType  *a;

				if (c == NULL || !IsA(c, Const) || c->constisnull)
					return "width_bucket needs a constant array of thresholds";
				a = DatumGetArrayTypeP(c->constvalue);
				if (ARR_NDIM(a) != 1 || array_contains_nulls(a) ||
					!safe_comparison(ARR_ELEMTYPE(a)))
					return "width_bucket needs a one-dimensional array of thresholds without NULLs, of a type whose comparison cannot fail";
				return NULL;
			}
		default:
			if (leakproof(funcid))
				return NULL;
			return psprintf("function %s can raise an error on some values (it is not marked LEAKPROOF)",
							format_procedure(funcid));
	}
}

static bool
unsafe_walker(Node *node, SafeCheck *check)
{
	const char *why = NULL;
	List	   *args = NIL;

	if (node == NULL)
		return false;
	CHECK_FOR_INTERRUPTS();
	switch (nodeTag(node))
	{
			/* structure and expressions that cannot fail */
		case T_Var:
		case T_Const:
		case T_CaseTestExpr:
		case T_RelabelType:
		case T_BoolExpr:
		case T_NullTest:
		case T_BooleanTest:
		case T_CaseExpr:
		case T_CaseWhen:
		case T_CoalesceExpr:
		case T_FieldSelect:
		case T_ArrayExpr:
		case T_RowExpr:
		case T_ConvertRowtypeExpr:
		case T_CollateExpr:
		case T_SQLValueFunction:
		case T_ArrayCoerceExpr: /* its per-element expression is walked */
		case T_List:
		case T_TargetEntry:
		case T_FromExpr:
		case T_JoinExpr:
		case T_RangeTblRef:
		case T_RangeTblFunction:	/* its function call is walked */
			break;
		case T_Query:
			return query_tree_walker((Query *) node, unsafe_walker, check, 0);
		case T_SubscriptingRef:
			if (((SubscriptingRef *) node)->refassgnexpr != NULL)
				return refuse(check, "array assignment is not allowed");
			break;
		case T_MinMaxExpr:
			if (!safe_comparison(((MinMaxExpr *) node)->minmaxtype))
				return refuse(check, "GREATEST and LEAST need a type whose comparison cannot fail");
			break;
		case T_FuncExpr:
			why = unsafe_call(((FuncExpr *) node)->funcid, args = ((FuncExpr *) node)->args);
			break;
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			set_opfuncid((OpExpr *) node);
			why = unsafe_call(((OpExpr *) node)->opfuncid, args = ((OpExpr *) node)->args);
			break;
		case T_ScalarArrayOpExpr:
			set_sa_opfuncid((ScalarArrayOpExpr *) node);
			why = unsafe_call(((ScalarArrayOpExpr *) node)->opfuncid,
							  args = ((ScalarArrayOpExpr *) node)->args);
			break;
		case T_CoerceViaIO:
			return refuse(check, "a cast through text can fail on a malformed value: compare with a value of the column's own type instead");
		case T_CoerceToDomain:
			return refuse(check, "a cast to a domain type can fail its check constraints");
		case T_SubLink:
			return refuse(check, "subqueries are not allowed");
		case T_Aggref:
		case T_GroupingFunc:
		case T_WindowFunc:
			return refuse(check, "aggregates and window functions are not allowed");
		default:
			return refuse(check, psprintf("expressions of this kind (node %d) are not allowed",
										  (int) nodeTag(node)));
	}
	if (why != NULL)
		return refuse(check, why);
	return expression_tree_walker(node, unsafe_walker, check);
}

/*
 * The query "SELECT (e1)cast, (e2)cast, ... FROM relation", analyzed and
 * rewritten as the current role.
 */
static Query *
analyzed(const char *relation, ArrayType *exprs, int n, const char *cast)
{
	StringInfoData sql;
	Datum	   *values;
	bool	   *nulls;
	int			count;
	List	   *raw;
	List	   *rewritten;

	deconstruct_array(exprs, TEXTOID, -1, false, TYPALIGN_INT, &values, &nulls, &count);
	initStringInfo(&sql);
	appendStringInfoString(&sql, "SELECT ");
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
			elog(ERROR, "dpm_internal.check_cells: a NULL expression");
		appendStringInfo(&sql, "%s(%s)%s", i > 0 ? ", " : "", TextDatumGetCString(values[i]), cast);
	}
	appendStringInfo(&sql, " FROM %s", relation);
	raw = raw_parser(sql.data, RAW_PARSE_DEFAULT);
	if (list_length(raw) != 1)
		elog(ERROR, "dpm_internal.check_cells: not one statement");
	rewritten = pg_analyze_and_rewrite_fixedparams(linitial_node(RawStmt, raw), sql.data, NULL, 0, NULL);
	if (list_length(rewritten) != 1 || linitial_node(Query, rewritten)->commandType != CMD_SELECT)
		elog(ERROR, "dpm_internal.check_cells: not one query");
	return linitial_node(Query, rewritten);
}

/* the relation as the scanning role sees it (view queries, security policies) must be safe too */
static void
check_source_definition(Query *query, Oid relation, Oid run_as)
{
	SafeCheck	check = {NULL};

	query->targetList = NIL;
	if (unsafe_walker((Node *) query, &check))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the definition of source %s could fail on some rows: %s",
						quote_qualified_identifier(get_namespace_name(get_rel_namespace(relation)),
												   get_rel_name(relation)), check.why),
				 errdetail("A view's query and the row-level security policies that apply to the scanning role %s are evaluated on every row a release reads, after its charge.",
						   GetUserNameFromId(run_as, false)),
				 errhint("Register a table, or a view whose expressions cannot fail (the same rules as domain conditions).")));
}

/*
 * dpm_internal.check_cells(run_as, relation, domain_name, attr_names, exprs): errors
 * out, before any row is read, unless every attribute expression and the
 * source's definition are safe for run_as (who scans the source).
 */
PG_FUNCTION_INFO_V1(dpm_check_cells);
Datum
dpm_check_cells(PG_FUNCTION_ARGS)
{
	Oid			run_as = PG_GETARG_OID(0);
	Oid			relation = PG_GETARG_OID(1);
	char	   *domain = text_to_cstring(PG_GETARG_TEXT_PP(2));
	ArrayType  *names = PG_GETARG_ARRAYTYPE_P(3);
	ArrayType  *exprs = PG_GETARG_ARRAYTYPE_P(4);
	int			n = ArrayGetNItems(ARR_NDIM(exprs), ARR_DIMS(exprs));
	Datum	   *name_values;
	int			nnames;
	AsRole		saved;
	Query	   *query;
	ListCell   *lc;
	int			i = 0;
	SafeCheck	check = {NULL};

	deconstruct_array(names, TEXTOID, -1, false, TYPALIGN_INT, &name_values, NULL, &nnames);
	if (n < 1 || nnames != n)
		elog(ERROR, "dpm_internal.check_cells: %d names for %d expressions", nnames, n);

	api_as_role_begin(&saved, run_as);
	query = analyzed(quote_qualified_identifier(get_namespace_name(get_rel_namespace(relation)),
												get_rel_name(relation)),
					 exprs, n, "::int4");
	foreach(lc, query->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		/* fold constants: an error there is raised now, on no row */
		if (unsafe_walker(eval_const_expressions(NULL, (Node *) te->expr), &check))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("attribute \"%s\" of domain \"%s\" could fail on some rows: %s",
							TextDatumGetCString(name_values[i]), domain, check.why),
					 errdetail("A release reads its source after it is charged: an expression that can raise an error on some value would make whether it answers depend on the rows."),
					 errhint("Conditions may use columns, constants, comparisons, AND, OR, NOT, IN lists, CASE, COALESCE, IS NULL, LIKE with a constant pattern, extract of a date or timestamp by a constant field and functions marked LEAKPROOF (see \"What a condition may contain\" in the README).")));
		i++;
	}
	check_source_definition(query, relation, run_as);
	api_as_role_end(&saved);
	PG_RETURN_VOID();
}

/*
 * dpm_internal.check_measure(run_as, relation, measure_name, expr): the type of
 * a measure's expression over the relation, after the checks of check_cells:
 * one expression, safe on every row for run_as, of a numeric type.
 */
PG_FUNCTION_INFO_V1(dpm_check_measure);
Datum
dpm_check_measure(PG_FUNCTION_ARGS)
{
	Oid			run_as = PG_GETARG_OID(0);
	Oid			relation = PG_GETARG_OID(1);
	char	   *measure = text_to_cstring(PG_GETARG_TEXT_PP(2));
	Datum		expr = PG_GETARG_DATUM(3);
	AsRole		saved;
	Query	   *query;
	TargetEntry *te;
	Oid			type;
	SafeCheck	check = {NULL};

	api_as_role_begin(&saved, run_as);
	query = analyzed(quote_qualified_identifier(get_namespace_name(get_rel_namespace(relation)),
												get_rel_name(relation)),
					 construct_array(&expr, 1, TEXTOID, -1, false, TYPALIGN_INT), 1, "");
	if (list_length(query->targetList) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("measure \"%s\" must be one expression", measure)));
	te = linitial_node(TargetEntry, query->targetList);
	type = exprType((Node *) te->expr);
	if (type != INT2OID && type != INT4OID && type != INT8OID && type != FLOAT4OID && type != FLOAT8OID &&
		type != NUMERICOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("measure \"%s\" is of type %s, not a number", measure, format_type_be(type)),
				 errhint("A measure is a smallint, integer, bigint, real, double precision or numeric expression.")));
	if (unsafe_walker(eval_const_expressions(NULL, (Node *) te->expr), &check))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("measure \"%s\" could fail on some rows: %s", measure, check.why),
				 errdetail("A release reads its source after it is charged: an expression that can raise an error on some value would make whether it answers depend on the rows."),
				 errhint("A measure may use columns, constants, CASE, COALESCE, GREATEST, LEAST and functions marked LEAKPROOF, but no arithmetic, which can overflow: for price * quantity, measure a stored generated column (ALTER TABLE ... ADD COLUMN amount numeric GENERATED ALWAYS AS (price * quantity) STORED), where an error falls at insert time.")));
	check_source_definition(query, relation, run_as);
	api_as_role_end(&saved);
	PG_RETURN_OID(type);
}
