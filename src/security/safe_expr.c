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
 *   - column references (of a virtual generated column, PostgreSQL 18's,
 *     its expression, computed as the row is read, must pass too),
 *     constants, AND/OR/NOT, CASE, COALESCE, NULLIF,
 *     IS [NOT] NULL, IS [NOT] TRUE/FALSE, IN lists, GREATEST/LEAST,
 *     binary-compatible casts, field selection, array subscripts, and
 *     ARRAY[...] and ROW(...) of fixed-length values;
 *   - the functions and operators on dpmatrix's own list (safe_calls.c),
 *     each with the reason it cannot fail on any value.
 * Constant subexpressions are folded first, so an error in one is raised
 * here, on no row.  Whatever is not on these lists is refused (a subquery,
 * an aggregate, a cast through text, a domain type's check, a function not
 * on the list) with the reason and what to write instead.
 *
 * A view must also be a stable transformation of its rows: no LIMIT,
 * DISTINCT, aggregate, window function, set operation, TABLESAMPLE or outer
 * join at any level (unstable_query, and JoinExpr below), and no table read
 * twice (read_twice), checked at dpm.register_source and before every
 * charge (dpm_internal.check_source, check_cells, check_measure).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/genam.h"
#include "access/table.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "lib/stringinfo.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/analyze.h"
#include "parser/parser.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteHandler.h"
#include "tcop/tcopprot.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "pg_compat.h"
#include "security/access.h"
#include "security/safe_calls.h"
#include "security/safe_expr.h"

/*
 * why a node is unsafe, or NULL; unstable: a query that is not a stable
 * transformation; rtables: the range tables of the queries the walk is in,
 * innermost first, where a Var's relation is found
 */
typedef struct SafeCheck
{
	const char *why;
	bool		unstable;
	List	   *rtables;
} SafeCheck;

static bool unsafe_walker(Node *node, SafeCheck *check);

static bool
refuse(SafeCheck *check, const char *why)
{
	check->why = why;
	return true;				/* stops the walk */
}

/*
 * ARRAY[...] and ROW(...) are built on every row: of varlena values they can
 * pass the 1 GB allocation limit, of arrays they fail when the arrays'
 * dimensions differ.  Of fixed-length values their size is the same on every
 * row, and bounded here.
 */
#define MAX_BUILT_BYTES (1024 * 1024)

static const char *
unsafe_built(List *elements, const char *what)
{
	ListCell   *lc;
	int64		bytes = 0;

	foreach(lc, elements)
	{
		Oid			type = exprType(lfirst(lc));
		int16		len = get_typlen(type);

		if (len <= 0 || OidIsValid(get_element_type(type)))
			return psprintf("%s of %s values is not allowed: of variable-length values it can exceed 1 GB on some rows, of arrays it fails on arrays of different dimensions; compare the values one by one instead (a = x AND b = y, a IS NULL OR b IS NULL)",
							what, format_type_be(type));
		bytes += len;
	}
	if (bytes > MAX_BUILT_BYTES)
		return psprintf("%s is limited to %d bytes", what, MAX_BUILT_BYTES);
	return NULL;
}

/*
 * A query that is not a stable transformation of its source's rows: through
 * these, removing one privacy unit's rows can bring other rows in (LIMIT
 * lets the next row in, DISTINCT another duplicate, a group's aggregate
 * changes every member's row), so the privacy loss would exceed the charge.
 */
static const char *
unstable_query(Query *q)
{
	ListCell   *lc;

	if (q->setOperations != NULL)
		return "a set operation (UNION, INTERSECT, EXCEPT)";
	if (q->limitCount != NULL || q->limitOffset != NULL)
		return "LIMIT, OFFSET or FETCH";
	if (q->distinctClause != NIL)
		return q->hasDistinctOn ? "DISTINCT ON" : "DISTINCT";
	if (q->hasAggs || q->groupClause != NIL || q->groupingSets != NIL || q->havingQual != NULL)
		return "an aggregate, GROUP BY or HAVING";
	if (q->hasWindowFuncs)
		return "a window function";
	foreach(lc, q->rtable)
		if (lfirst_node(RangeTblEntry, lc)->tablesample != NULL)
			return "TABLESAMPLE";
	return NULL;
}

/*
 * A virtual generated column (PostgreSQL 18) is computed when a row is read,
 * by the expression of the table named in the query, or of the partition or
 * child table when a release reads one alone: each of them must be safe.  The
 * expressions read only stored columns (a generated column cannot refer to
 * another), so they are walked with no range table.  Older versions have no
 * virtual columns: get_attgenerated never says so there.
 */
static bool
unsafe_virtual_column(Oid relid, AttrNumber attno, SafeCheck *check)
{
	char	   *attname = get_attname(relid, attno, false);
	ListCell   *lc;

	foreach(lc, find_all_inheritors(relid, AccessShareLock, NULL))
	{
		Relation	rel = table_open(lfirst_oid(lc), AccessShareLock);
		AttrNumber	child_attno = get_attnum(RelationGetRelid(rel), attname);
		Node	   *expr = child_attno > 0 ? build_column_default(rel, child_attno) : NULL;
		SafeCheck	inner = {NULL, false, NIL};
		char	   *name = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
													  RelationGetRelationName(rel));

		table_close(rel, AccessShareLock);
		if (expr != NULL && unsafe_walker(eval_const_expressions(NULL, expr), &inner))
			return refuse(check, psprintf("virtual generated column %s of %s is computed on every row it is read from an expression that could fail: %s",
										  quote_identifier(attname), name, inner.why));
	}
	return false;
}

static bool
unsafe_walker(Node *node, SafeCheck *check)
{
	const char *why = NULL;

	if (node == NULL)
		return false;
	CHECK_FOR_INTERRUPTS();
	switch (nodeTag(node))
	{
			/* structure and expressions that cannot fail */
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
		case T_CollateExpr:
		case T_SQLValueFunction:
		case T_List:
		case T_TargetEntry:
		case T_FromExpr:
		case T_RangeTblRef:
		case T_RangeTblFunction:	/* its function call is walked */
		case T_CommonTableExpr: /* its query is walked */
			break;
		case T_Var:
			{
				Var		   *var = (Var *) node;
				RangeTblEntry *rte;

				/* a whole row detoasts every column into one value, which can exceed 1 GB */
				if (var->varattno == InvalidAttrNumber)
					return refuse(check, "a whole-row reference is not allowed: name the columns");
				if (var->varattno < 0 || var->varlevelsup >= list_length(check->rtables))
					break;
				rte = rt_fetch(var->varno, (List *) list_nth(check->rtables, var->varlevelsup));
				if (rte->rtekind == RTE_RELATION &&
					get_attgenerated(rte->relid, var->varattno) == ATTRIBUTE_GENERATED_VIRTUAL)
					return unsafe_virtual_column(rte->relid, var->varattno, check);
				break;
			}
		case T_Query:
			{
				Query	   *q = (Query *) node;
				bool		unsafe;

				if ((why = unstable_query(q)) != NULL)
				{
					check->unstable = true;
					return refuse(check, why);
				}
				check->rtables = lcons(q->rtable, check->rtables);
				unsafe = query_tree_walker(q, unsafe_walker, check, 0);
				check->rtables = list_delete_first(check->rtables);
				return unsafe;
			}
		case T_JoinExpr:
			/*
			 * An outer join's row exists, or holds NULLs, according to
			 * whether another row matches: "LEFT JOIN t b ON ... WHERE b.id
			 * IS NULL" keeps the rows no other unit shares, so removing one
			 * unit brings another's row in.
			 */
			if (((JoinExpr *) node)->jointype != JOIN_INNER)
			{
				check->unstable = true;
				return refuse(check, "an outer join (LEFT, RIGHT or FULL JOIN)");
			}
			break;
		case T_ArrayExpr:
			why = unsafe_built(((ArrayExpr *) node)->elements, "ARRAY[...]");
			break;
		case T_RowExpr:
			why = unsafe_built(((RowExpr *) node)->args, "ROW(...)");
			break;
		case T_SubscriptingRef:
			{
				SubscriptingRef *sr = (SubscriptingRef *) node;
				RegProcedure handler = get_typsubscript(sr->refcontainertype, NULL);

				/* fetching from an array gives an element, a smaller array or NULL */
				if (sr->refassgnexpr != NULL)
					return refuse(check, "array assignment is not allowed");
				if (handler != F_ARRAY_SUBSCRIPT_HANDLER && handler != F_RAW_ARRAY_SUBSCRIPT_HANDLER)
					return refuse(check, psprintf("subscripts of type %s are not allowed (only of arrays)",
												  format_type_be(sr->refcontainertype)));
				break;
			}
		case T_MinMaxExpr:
			why = safe_calls_comparison(((MinMaxExpr *) node)->minmaxtype, ((MinMaxExpr *) node)->inputcollid);
			break;
		case T_FuncExpr:
			why = safe_calls_unsafe(((FuncExpr *) node)->funcid, ((FuncExpr *) node)->args,
									((FuncExpr *) node)->inputcollid);
			break;
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			set_opfuncid((OpExpr *) node);
			why = safe_calls_unsafe(((OpExpr *) node)->opfuncid, ((OpExpr *) node)->args,
									((OpExpr *) node)->inputcollid);
			break;
		case T_ScalarArrayOpExpr:
			{
				ScalarArrayOpExpr *sa = (ScalarArrayOpExpr *) node;

				set_sa_opfuncid(sa);
				why = safe_calls_unsafe(sa->opfuncid, sa->args, sa->inputcollid);
				/* a long IN list is hashed: under ICU, through a sort key as large as the value allows */
				if (why == NULL && OidIsValid(sa->inputcollid) && safe_calls_collation(sa->inputcollid, true) != NULL)
					why = "IN lists and = ANY are not allowed under a nondeterministic collation (a long one is hashed through a sort key, which fails on large values): write a = 'x' OR a = 'y'";
				break;
			}
		case T_ArrayCoerceExpr:
			return refuse(check, "an array cast builds a new array, which can exceed 1 GB: compare the elements in their own type");
		case T_ConvertRowtypeExpr:
			return refuse(check, "a whole-row conversion is not allowed: name the columns");
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
			/* no node number: they differ between PostgreSQL versions */
			return refuse(check, "expressions of this kind are not allowed (see \"What a condition may contain\" in doc/guide/domains.md)");
	}
	if (why != NULL)
		return refuse(check, why);
	return expression_tree_walker(node, unsafe_walker, check);
}

/*
 * Each stored row is read at most once.  A view that reads a table twice (a
 * self-join "t a JOIN t b ON a.grp = b.grp", the same table again in a
 * subquery, a CTE referenced twice, views over the same table) joins one
 * unit's rows with other units': adding a unit brings rows of others in, or
 * multiplies them, so one unit changes more than max_contributions rows.
 * A table's partitions and inheritance children hold rows of the same
 * units as the table, so a table, its ancestors and its descendants count
 * as one: t and its partition, two partitions of t, ONLY t and a child of
 * t are refused together.  The other relations a view joins are public
 * lookup tables: the custodian who registers the view vouches that they
 * hold no unit's rows (a foreign table or a materialized view over the same
 * rows is not recognised as such).
 *
 * The walk follows references: a CTE is walked once per reference to it,
 * a view and a subquery where they stand, a sublink where it stands (the
 * unsafe walk refuses sublinks before this runs, as it refuses recursive
 * CTEs, which need a UNION), row-level security quals where the rewriter
 * put them (securityQuals).
 */
typedef struct RowsRead
{
	List	   *queries;		/* the queries around the node walked, innermost first */
	List	   *family;			/* the relations of every table read so far (see family) */
	List	   *read;			/* for each, the relation read that brought it */
	Oid			first;			/* the two relations that meet, when they do */
	Oid			second;
} RowsRead;

/* a relation, its descendants and its ancestors (pg_inherits, partitions included) */
static List *
family(Oid relation)
{
	List	   *members = find_all_inheritors(relation, NoLock, NULL);
	Relation	inherits = table_open(InheritsRelationId, AccessShareLock);

	/* ancestors, breadth first: each member's parents are appended after it */
	for (int i = 0; i < list_length(members); i++)
	{
		ScanKeyData key;
		SysScanDesc scan;
		HeapTuple	tuple;

		ScanKeyInit(&key, Anum_pg_inherits_inhrelid, BTEqualStrategyNumber, F_OIDEQ,
					ObjectIdGetDatum(list_nth_oid(members, i)));
		scan = systable_beginscan(inherits, InheritsRelidSeqnoIndexId, true, NULL, 1, &key);
		while (HeapTupleIsValid(tuple = systable_getnext(scan)))
			members = list_append_unique_oid(members, ((Form_pg_inherits) GETSTRUCT(tuple))->inhparent);
		systable_endscan(scan);
	}
	table_close(inherits, AccessShareLock);
	return members;
}

static bool
read_rows(RowsRead *rows, Oid relation)
{
	List	   *members = family(relation);
	ListCell   *lc;

	for (int i = 0; i < list_length(rows->family); i++)
		if (list_member_oid(members, list_nth_oid(rows->family, i)))
		{
			rows->first = list_nth_oid(rows->read, i);
			rows->second = relation;
			return true;
		}
	foreach(lc, members)
	{
		rows->family = lappend_oid(rows->family, lfirst_oid(lc));
		rows->read = lappend_oid(rows->read, relation);
	}
	return false;
}

/* the CTE an RTE_CTE refers to, and the queries around the one that defines it */
static CommonTableExpr *
referenced_cte(RowsRead *rows, RangeTblEntry *rte, List **around)
{
	Query	   *owner = list_nth_node(Query, rows->queries, rte->ctelevelsup);
	ListCell   *lc;

	*around = list_copy_tail(rows->queries, rte->ctelevelsup);
	foreach(lc, owner->cteList)
		if (strcmp(lfirst_node(CommonTableExpr, lc)->ctename, rte->ctename) == 0)
			return lfirst_node(CommonTableExpr, lc);
	elog(ERROR, "dpm_internal.check_source: CTE \"%s\" not found", rte->ctename);
	return NULL;
}

static bool
rows_walker(Node *node, RowsRead *rows)
{
	Query	   *q;
	ListCell   *lc;
	bool		found = false;

	if (node == NULL)
		return false;
	if (!IsA(node, Query))
		return expression_tree_walker(node, rows_walker, rows);
	CHECK_FOR_INTERRUPTS();
	q = (Query *) node;
	rows->queries = lcons(q, rows->queries);
	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

		/* a view's own entry (PostgreSQL 15 keeps its OLD and NEW there) reads nothing: its query is walked */
		if (rte->rtekind == RTE_RELATION && rte->relkind != RELKIND_VIEW)
			found = read_rows(rows, rte->relid);
		else if (rte->rtekind == RTE_CTE)
		{
			List	   *saved = rows->queries;
			CommonTableExpr *cte = referenced_cte(rows, rte, &rows->queries);

			if (cte->cterecursive)
				elog(ERROR, "dpm_internal.check_source: a recursive CTE passed the unsafe walk");
			found = rows_walker(cte->ctequery, rows);
			rows->queries = saved;
		}
		if (found)
			break;
	}
	if (!found)
		found = query_tree_walker(q, rows_walker, rows, QTW_IGNORE_CTE_SUBQUERIES);
	rows->queries = list_delete_first(rows->queries);
	return found;
}

static char *
relation_name(Oid relation)
{
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relation)), get_rel_name(relation));
}

/* why the query reads some stored row twice, or NULL */
static const char *
read_twice(Query *query)
{
	RowsRead	rows = {NIL, NIL, NIL, InvalidOid, InvalidOid};

	if (!rows_walker((Node *) query, &rows))
		return NULL;
	if (rows.first == rows.second)
		return psprintf("%s twice (a self-join, or the same table again through a subquery, a CTE or a view)",
						relation_name(rows.first));
	return psprintf("%s and %s, which hold rows of one table (its partitions or inheritance children)",
					relation_name(rows.first), relation_name(rows.second));
}

/* "SELECT (e1)cast, (e2)cast, ..." of n text expressions */
static char *
select_list(ArrayType *exprs, int n, const char *cast)
{
	StringInfoData sql;
	Datum	   *values;
	bool	   *nulls;
	int			count;

	deconstruct_array(exprs, TEXTOID, -1, false, TYPALIGN_INT, &values, &nulls, &count);
	initStringInfo(&sql);
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
			elog(ERROR, "dpm_internal.check_cells: a NULL expression");
		appendStringInfo(&sql, "%s(%s)%s", i > 0 ? ", " : "", TextDatumGetCString(values[i]), cast);
	}
	return sql.data;
}

/* The query "SELECT list FROM relation", analyzed and rewritten as the current role. */
Query *
safe_expr_analyzed(Oid relation, const char *list)
{
	char	   *sql = psprintf("SELECT %s FROM %s", list,
							   quote_qualified_identifier(get_namespace_name(get_rel_namespace(relation)),
														  get_rel_name(relation)));
	List	   *raw;
	List	   *rewritten;

	raw = raw_parser(sql, RAW_PARSE_DEFAULT);
	if (list_length(raw) != 1)
		elog(ERROR, "dpm_internal.check_cells: not one statement");
	rewritten = pg_analyze_and_rewrite_fixedparams(linitial_node(RawStmt, raw), sql, NULL, 0, NULL);
	if (list_length(rewritten) != 1 || linitial_node(Query, rewritten)->commandType != CMD_SELECT)
		elog(ERROR, "dpm_internal.check_cells: not one query");
	return linitial_node(Query, rewritten);
}

/*
 * The relation as the scanning role sees it (view queries, security
 * policies) must be safe too, and a stable transformation of its rows.
 */
static void
check_source_definition(Query *query, Oid relation, Oid run_as)
{
	SafeCheck	check = {NULL, false, NIL};
	char	   *name = quote_qualified_identifier(get_namespace_name(get_rel_namespace(relation)),
												  get_rel_name(relation));

	query->targetList = NIL;
	if (!unsafe_walker((Node *) query, &check))
	{
		if ((check.why = read_twice(query)) == NULL)
			return;
		check.unstable = true;
	}
	if (check.unstable)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("source %s is not a stable transformation of its rows: its query uses %s", name, check.why),
				 errdetail("Through it, removing one privacy unit's rows can bring other rows in or change them, so a release would lose more privacy than it is charged."),
				 errhint("Register the table, or a view that reads each of its rows once and only selects, filters and joins them with public lookup tables; aggregate, deduplicate or sample in the workload, or in a table of your own.")));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("the definition of source %s could fail on some rows: %s", name, check.why),
			 errdetail("A view's query and the row-level security policies that apply to the scanning role %s are evaluated on every row a release reads, after its charge.",
					   GetUserNameFromId(run_as, false)),
			 errhint("Register a table, or a view whose expressions cannot fail (the same rules as domain conditions).")));
}

/*
 * dpm_internal.check_source(run_as, relation): errors out, before any row is
 * read, unless the relation's definition as run_as sees it is safe and
 * stable (dpm.register_source, dpm.answer_keys and its charge).
 */
PG_FUNCTION_INFO_V1(dpm_check_source);
Datum
dpm_check_source(PG_FUNCTION_ARGS)
{
	Oid			run_as = PG_GETARG_OID(0);
	Oid			relation = PG_GETARG_OID(1);
	AsRole		saved;

	security_as_role_begin(&saved, run_as);
	check_source_definition(safe_expr_analyzed(relation, ""), relation, run_as);
	security_as_role_end(&saved);
	PG_RETURN_VOID();
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
	SafeCheck	check = {NULL, false, NIL};

	deconstruct_array(names, TEXTOID, -1, false, TYPALIGN_INT, &name_values, NULL, &nnames);
	if (n < 1 || nnames != n)
		elog(ERROR, "dpm_internal.check_cells: %d names for %d expressions", nnames, n);

	security_as_role_begin(&saved, run_as);
	query = safe_expr_analyzed(relation, select_list(exprs, n, "::int4"));
	check.rtables = list_make1(query->rtable);
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
					 errhint("Conditions may use columns, constants, comparisons and widening casts of the built-in types, AND, OR, NOT, IN lists, CASE, COALESCE, IS NULL, LIKE with a constant pattern, extract of a date or timestamp by a constant field (see \"What a condition may contain\" in doc/guide/domains.md).")));
		i++;
	}
	check_source_definition(query, relation, run_as);
	security_as_role_end(&saved);
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
	SafeCheck	check = {NULL, false, NIL};

	security_as_role_begin(&saved, run_as);
	query = safe_expr_analyzed(relation, select_list(construct_array(&expr, 1, TEXTOID, -1, false, TYPALIGN_INT), 1, ""));
	if (list_length(query->targetList) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("measure \"%s\" must be one expression", measure)));
	te = linitial_node(TargetEntry, query->targetList);
	check.rtables = list_make1(query->rtable);
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
				 errhint("A measure may use columns, constants, CASE, COALESCE, GREATEST, LEAST and widening casts, but no arithmetic, which can overflow: for price * quantity, measure a stored generated column (ALTER TABLE ... ADD COLUMN amount numeric GENERATED ALWAYS AS (price * quantity) STORED), where an error falls at insert time.")));
	check_source_definition(query, relation, run_as);
	security_as_role_end(&saved);
	PG_RETURN_OID(type);
}
