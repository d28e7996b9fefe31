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
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
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

static bool
has_params(Node *n, void *context)
{
	if (n == NULL)
		return false;
	if (IsA(n, Param) && ((Param *) n)->paramkind == PARAM_EXTERN)
		return true;
	if (IsA(n, Query))
		return query_tree_walker((Query *) n, has_params, context, 0);
	return expression_tree_walker(n, has_params, context);
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
 * SELECT t.c1 AS <first column>, ... FROM dpm.answer_plain(<statement>) AS
 * t(c1 <type>, ...): the statement's own columns, from its description
 */
static char *
replacement(const char *statement, const char *desc)
{
	Oid			type = TEXTOID;
	Datum		value = CStringGetTextDatum(desc);
	StringInfoData select;
	StringInfoData columns;
	MemoryContext cxt = CurrentMemoryContext;

	initStringInfo(&select);
	initStringInfo(&columns);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args("SELECT c->>'output', c->>'sql_type' FROM jsonb_array_elements($1::jsonb->'columns') "
							  "WITH ORDINALITY x(c, o) WHERE NOT c ? 'hidden' ORDER BY o",
							  1, &type, &value, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "the statement's columns could not be read");
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		MemoryContext spi = MemoryContextSwitchTo(cxt);
		char	   *name = SPI_getvalue(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1);
		char	   *sqltype = SPI_getvalue(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 2);

		appendStringInfo(&select, "%st.c%d AS %s", r > 0 ? ", " : "", (int) r + 1, quote_identifier(name));
		appendStringInfo(&columns, "%sc%d %s", r > 0 ? ", " : "", (int) r + 1, sqltype);
		MemoryContextSwitchTo(spi);
	}
	SPI_finish();
	return psprintf("SELECT %s FROM dpm.answer_plain(%s) AS t(%s)", select.data, quote_literal_cstr(statement),
					columns.data);
}

/* a private statement's Query, in place of the one analyzed */
static void
answer_privately(Query *query)
{
	char	   *statement;
	char	   *sql;
	Query	   *answered;
	int			location = query->stmt_location;
	int			len = query->stmt_len;
	uint64		id = query->queryId;

	if (has_params((Node *) query, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a private statement with parameters ($1) is not supported yet"),
				 errhint("Give the values in the statement itself.")));

	/*
	 * the statement as PostgreSQL reads it back, whatever held it (PREPARE,
	 * DECLARE, COPY, EXPLAIN, a function's body)
	 */
	statement = pg_get_querydef(query, false);
	sql = replacement(statement, query_compile(statement));
	answered = parse_analyze_fixedparams(linitial_node(RawStmt, raw_parser(sql, RAW_PARSE_DEFAULT)), sql, NULL, 0, NULL);
	*query = *answered;
	query->stmt_location = location;
	query->stmt_len = len;
	query->queryId = id;
}

/* a statement, or the SELECT a cursor, EXPLAIN or CREATE TABLE AS holds, answered privately if it is one */
static void
answer_if_private(Query *query)
{
	Oid			relid = InvalidOid;

	if (query->commandType == CMD_UTILITY && query->utilityStmt != NULL)
	{
		Node	   *inner = IsA(query->utilityStmt, DeclareCursorStmt) ? ((DeclareCursorStmt *) query->utilityStmt)->query
			: IsA(query->utilityStmt, ExplainStmt) ? ((ExplainStmt *) query->utilityStmt)->query
			: IsA(query->utilityStmt, CreateTableAsStmt) ? ((CreateTableAsStmt *) query->utilityStmt)->query : NULL;

		if (inner != NULL && IsA(inner, Query))
			answer_if_private((Query *) inner);
		return;
	}
	if (query->commandType != CMD_SELECT || !unreadable((Node *) query, &relid))
		return;
	if (get_rel_relkind(relid) != RELKIND_SEQUENCE && plain_policy(relid))
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
