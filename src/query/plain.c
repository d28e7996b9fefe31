/*
 * plain.c -- the SQL front door without a function call (issue 45): a plain
 * SELECT ... GROUP BY over a registered source, typed in psql or sent by a BI
 * tool, by a role whose privacy policy on the source says plain_sql, is
 * answered privately.  At parse analysis its Query is replaced by one that
 * reads dpm.answer_plain(<the statement>) AS t(<its columns' types>): the
 * client gets the statement's own columns with their types, and the
 * statement itself is never planned or run.  So is the SELECT of a cursor,
 * of EXPLAIN, of CREATE TABLE AS, of PREPARE, of COPY and of a function's
 * body: each is analyzed, and so passes here.
 *
 * Statements over relations the role may read are left alone before
 * anything is looked up (a privilege check per relation).  A statement over
 * a source the role may not read, without such a policy, is left alone too
 * and fails on privileges as before: any path to the rows this hook does not
 * replace still meets the source's privileges, which stay as they are.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "parser/analyze.h"
#include "parser/parser.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"

#include "query/compile.h"
#include "query/plain.h"
#include "security/access.h"

static post_parse_analyze_hook_type prev_post_parse_analyze = NULL;

/* set while the hook runs: the statements it analyzes and runs itself are left alone */
static bool in_plain = false;

/* the first relation the statement reads that the user may not read, anywhere in it */
static bool
unreadable(Node *n, Oid *relid)
{
	if (n == NULL)
		return false;
	if (IsA(n, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) n;

		if (rte->rtekind == RTE_RELATION &&
			pg_class_aclcheck(rte->relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK &&
			pg_attribute_aclcheck_all(rte->relid, GetUserId(), ACL_SELECT, ACLMASK_ANY) != ACLCHECK_OK)
		{
			*relid = rte->relid;
			return true;
		}
		return false;
	}
	if (IsA(n, Query))
		return query_tree_walker((Query *) n, unreadable, relid, QTW_EXAMINE_RTES_BEFORE);
	return expression_tree_walker(n, unreadable, relid);
}

/* the types of the statement's parameters $1..$n, by number (n at most FUNC_MAX_ARGS) */
typedef struct Params
{
	int			n;
	Oid			types[FUNC_MAX_ARGS];
} Params;

static bool
collect_params(Node *n, void *context)
{
	Params	   *ps = context;

	if (n == NULL)
		return false;
	if (IsA(n, Param) && ((Param *) n)->paramkind == PARAM_EXTERN)
	{
		Param	   *p = (Param *) n;

		if (p->paramid < 1 || p->paramid > FUNC_MAX_ARGS)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("a private statement takes at most %d parameters", FUNC_MAX_ARGS)));
		ps->types[p->paramid - 1] = p->paramtype;
		ps->n = Max(ps->n, p->paramid);
		return false;
	}
	if (IsA(n, Query))
		return query_tree_walker((Query *) n, collect_params, context, 0);
	return expression_tree_walker(n, collect_params, context);
}

/* the extension's owner, or InvalidOid where dpmatrix is not installed */
static Oid
extension_owner(void)
{
	Oid			owner = InvalidOid;
	Oid			type = OIDOID;
	Datum		ext;

	ext = ObjectIdGetDatum(get_extension_oid("dpmatrix", true));
	if (!OidIsValid(DatumGetObjectId(ext)))
		return InvalidOid;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args("SELECT extowner FROM pg_catalog.pg_extension WHERE oid = $1", 1, &type, &ext, NULL,
							  true, 1) == SPI_OK_SELECT && SPI_processed == 1)
	{
		bool		isnull;

		owner = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	}
	SPI_finish();
	return owner;
}

/* whether the user's privacy policy on relation relid (a source) answers its plain statements */
static bool
plain_policy(Oid relid)
{
	Oid			owner = extension_owner();
	Oid			types[2] = {OIDOID, OIDOID};
	Datum		values[2] = {ObjectIdGetDatum(relid), ObjectIdGetDatum(GetUserId())};
	AsRole		saved;
	bool		plain = false;

	if (!OidIsValid(owner))
		return false;
	security_as_owner_begin(&saved, owner);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args("SELECT p.plain_sql FROM dpm.privacy_policies p JOIN dpm.sources s ON s.id = p.source_id "
							  "WHERE s.relation = $1::regclass AND p.role_name = $2::regrole AND s.unregistered_at IS NULL",
							  2, types, values, NULL, true, 1) == SPI_OK_SELECT && SPI_processed == 1)
	{
		bool		isnull;
		Datum		v = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		plain = !isnull && DatumGetBool(v);
	}
	SPI_finish();
	security_as_role_end(&saved);
	return plain;
}

/*
 * SELECT t.c1 AS <first column>, ... FROM dpm.answer_plain(<statement>,
 * params => ARRAY[$1::text, ...], param_types => ...) AS t(c1 <type>, ...):
 * the statement's own columns and types (as its description gives them,
 * which dpm.answer_plain checks); its parameters, bound when it runs,
 * passed on as text
 */
static char *
replacement(const char *statement, Query *query, const Params *ps)
{
	StringInfoData select;
	StringInfoData columns;
	StringInfoData params;
	ListCell   *lc;
	int			k = 0;

	initStringInfo(&select);
	initStringInfo(&columns);
	initStringInfo(&params);
	for (int i = 0; i < ps->n; i++)
		appendStringInfo(&params, "%s$%d::text", i > 0 ? ", " : ", params => ARRAY[", i + 1);
	for (int i = 0; i < ps->n; i++)
		appendStringInfo(&params, "%s%s", i > 0 ? ", " : "], param_types => ARRAY[",
						 quote_literal_cstr(format_type_be(ps->types[i])));
	if (ps->n > 0)
		appendStringInfoString(&params, "]::regtype[]");
	foreach(lc, query->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (te->resjunk)
			continue;
		k++;
		appendStringInfo(&select, "%st.c%d AS %s", k > 1 ? ", " : "", k,
						 quote_identifier(te->resname ? te->resname : "?column?"));
		appendStringInfo(&columns, "%sc%d %s", k > 1 ? ", " : "", k,
						 format_type_with_typemod(exprType((Node *) te->expr), exprTypmod((Node *) te->expr)));
	}
	return psprintf("SELECT %s FROM dpm.answer_plain(%s%s) AS t(%s)", select.data, quote_literal_cstr(statement),
					params.data, columns.data);
}

/* query, as analyzed anew from sql in its place (its place in what the client sent kept) */
static void
replace_query(Query *query, const char *sql, const Params *ps)
{
	Query	   *answered = parse_analyze_fixedparams(linitial_node(RawStmt, raw_parser(sql, RAW_PARSE_DEFAULT)), sql,
													 ps ? ps->types : NULL, ps ? ps->n : 0, NULL);
	int			location = query->stmt_location;
	int			len = query->stmt_len;
	uint64		id = query->queryId;

	*query = *answered;
	query->stmt_location = location;
	query->stmt_len = len;
	query->queryId = id;
}

/* a private statement's Query, in place of the one analyzed */
static void
answer_privately(Query *query)
{
	char	   *statement;
	char	   *sql;
	Params		ps = {0};

	(void) collect_params((Node *) query, &ps);
	for (int i = 0; i < ps.n; i++)
		if (!OidIsValid(ps.types[i]))
			ps.types[i] = TEXTOID;

	/*
	 * the statement as PostgreSQL reads it back, whatever held it (PREPARE,
	 * DECLARE, COPY, EXPLAIN, a function's body); compiled here, so that
	 * what is not a private statement is refused now, unless its parameters'
	 * values are needed (then when it runs, still before any charge)
	 */
	statement = pg_get_querydef(query, false);
	if (ps.n == 0)
		(void) query_compile(statement);
	sql = replacement(statement, query, &ps);
	replace_query(query, sql, &ps);
}

/* whether query is a statement over a source that the user's policy answers privately */
static bool
is_private(Query *query)
{
	Oid			relid = InvalidOid;

	return query->commandType == CMD_SELECT && unreadable((Node *) query, &relid) && plain_policy(relid);
}

/*
 * EXPLAIN of a private statement: its private plan (dpm.explain_query: the
 * workload, strategy, charge, expected errors, what is free), one line of
 * JSON a row, in place of the EXPLAIN; EXPLAIN ANALYZE would run it, and is
 * refused before anything runs
 */
static void
explain_privately(Query *query, ExplainStmt *explain)
{
	Query	   *inner = (Query *) explain->query;
	Params		ps = {0};
	ListCell   *lc;

	foreach(lc, explain->options)
	{
		DefElem    *opt = lfirst_node(DefElem, lc);

		if (strcmp(opt->defname, "analyze") == 0 && defGetBoolean(opt))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("EXPLAIN ANALYZE of a private statement is not supported: it would answer it"),
					 errhint("EXPLAIN shows its private plan and charges nothing; the statement itself answers it.")));
	}
	(void) collect_params((Node *) inner, &ps);
	if (ps.n > 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("EXPLAIN of a private statement with parameters is not supported")));
	replace_query(query, psprintf("SELECT line AS \"QUERY PLAN\" FROM dpm.explain_query(%s) e, "
								  "regexp_split_to_table(jsonb_pretty(e.plan), E'\\n') line",
								  quote_literal_cstr(pg_get_querydef(inner, false))), NULL);
}

/* a statement, or the SELECT a cursor, EXPLAIN or CREATE TABLE AS holds, answered privately if it is one */
static void
answer_if_private(Query *query)
{
	if (query->commandType == CMD_UTILITY && query->utilityStmt != NULL)
	{
		Node	   *u = query->utilityStmt;
		Node	   *inner = IsA(u, DeclareCursorStmt) ? ((DeclareCursorStmt *) u)->query
			: IsA(u, ExplainStmt) ? ((ExplainStmt *) u)->query
			: IsA(u, CreateTableAsStmt) ? ((CreateTableAsStmt *) u)->query : NULL;

		if (inner == NULL || !IsA(inner, Query))
			return;
		if (IsA(u, ExplainStmt) && is_private((Query *) inner))
			explain_privately(query, (ExplainStmt *) u);
		else
			answer_if_private((Query *) inner);
		return;
	}
	if (is_private(query))
		answer_privately(query);
}

static void
plain_post_parse_analyze(ParseState *pstate, Query *query, JumbleState *jstate)
{
	if (prev_post_parse_analyze)
		prev_post_parse_analyze(pstate, query, jstate);
	if (in_plain || query_compiling() || !IsTransactionState() || creating_extension)
		return;
	in_plain = true;
	PG_TRY();
	{
		answer_if_private(query);
	}
	PG_FINALLY();
	{
		in_plain = false;
	}
	PG_END_TRY();
}

void
query_plain_install(void)
{
	prev_post_parse_analyze = post_parse_analyze_hook;
	post_parse_analyze_hook = plain_post_parse_analyze;
}
