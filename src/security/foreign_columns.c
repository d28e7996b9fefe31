/*
 * foreign_columns.c -- dpm_internal.check_foreign_columns: every foreign table
 * a source reads declares its remote table's columns exactly, so that reading
 * them cannot fail on some value after a release's charge.
 *
 * Why.  postgres_fdw converts each remote value with the input function of
 * the type the foreign table declares, while the release reads the rows,
 * after its charge: a remote int8 declared int4 fails on 2^40, a remote text
 * declared varchar(3) on a longer string, a declared domain's check on a
 * value the remote column let in.  Where the remote server caps and counts
 * (dpm_internal.caps_remotely) or postgres_fdw pushes a condition down, the
 * custodian's expressions run on the remote columns' own types and
 * collations.  So each postgres_fdw foreign table a source reads (itself, a
 * partition, a table under a view) must have, for every declared column, a
 * remote column of the same type (by schema-qualified name; a domain the
 * same domain over the same base type) and typmod, under a deterministic
 * collation; the remote relation must be a table or a materialized view
 * without row-level security (a view's query or a policy would run there on
 * every row), and its database's encoding must convert into ours.  Declared
 * types are those whose text input takes every text output of the same type:
 * built-in types but those whose input depends on the server's catalog or
 * settings (money, xml, reg*, aclitem) or always fails, arrays of them, and
 * domains over them without constraints.  Foreign tables of other wrappers
 * are refused: dpmatrix cannot check how they convert (file_fdw fails on a
 * malformed line).  Checked at register_source, create_domain and
 * create_measure, and again before every charge: the remote table can change.
 *
 * How.  The remote catalog is read through postgres_fdw itself, with the
 * user mapping the release's scan uses (the scanning role's, or a view
 * owner's for a table under a view): foreign tables over the remote
 * pg_class, pg_attribute, pg_type, pg_namespace, pg_collation and
 * pg_settings, made in pg_temp by the extension's owner in a subtransaction
 * that is always rolled back, and read as that role.  No row of the source
 * is read; an unreachable server is an error before the charge.
 */
#include "postgres.h"

#include "access/table.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "foreign/foreign.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "parser/parse_relation.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/resowner.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "pg_compat.h"
#include "security/access.h"
#include "security/safe_expr.h"

/* a foreign table a scan reads, and the role whose user mapping reads it */
typedef struct ForeignRead
{
	Oid			relid;
	Oid			userid;
} ForeignRead;

/* one remote column, as the remote catalog describes it */
typedef struct RemoteColumn
{
	char	   *name;
	char	   *type_nsp;
	char	   *type_name;
	int32		typmod;
	char		typtype;
	char	   *base_nsp;		/* of a domain: its base type, and its typmod */
	char	   *base_name;
	int32		base_typmod;
	int			deterministic;	/* 1, 0, or -1: no collation */
} RemoteColumn;

typedef struct RemoteTable
{
	bool		found;
	char		relkind;
	bool		rowsecurity;
	char	   *encoding;
	int			ncolumns;
	RemoteColumn *columns;
} RemoteTable;

/* the remote catalog, in pg_temp for the subtransaction's length (names of our own) */
static const char *const remote_catalog[] = {
	"CREATE FOREIGN TABLE pg_temp.dpm_remote_class (oid pg_catalog.oid, relname pg_catalog.text, relnamespace pg_catalog.oid,"
	" relkind pg_catalog.\"char\", relrowsecurity pg_catalog.bool) SERVER %s OPTIONS (schema_name 'pg_catalog', table_name 'pg_class')",
	"CREATE FOREIGN TABLE pg_temp.dpm_remote_namespace (oid pg_catalog.oid, nspname pg_catalog.text)"
	" SERVER %s OPTIONS (schema_name 'pg_catalog', table_name 'pg_namespace')",
	"CREATE FOREIGN TABLE pg_temp.dpm_remote_attribute (attrelid pg_catalog.oid, attname pg_catalog.text, atttypid pg_catalog.oid,"
	" atttypmod pg_catalog.int4, attnum pg_catalog.int2, attisdropped pg_catalog.bool, attcollation pg_catalog.oid)"
	" SERVER %s OPTIONS (schema_name 'pg_catalog', table_name 'pg_attribute')",
	"CREATE FOREIGN TABLE pg_temp.dpm_remote_type (oid pg_catalog.oid, typname pg_catalog.text, typnamespace pg_catalog.oid,"
	" typtype pg_catalog.\"char\", typbasetype pg_catalog.oid, typtypmod pg_catalog.int4)"
	" SERVER %s OPTIONS (schema_name 'pg_catalog', table_name 'pg_type')",
	"CREATE FOREIGN TABLE pg_temp.dpm_remote_collation (oid pg_catalog.oid, collisdeterministic pg_catalog.bool)"
	" SERVER %s OPTIONS (schema_name 'pg_catalog', table_name 'pg_collation')",
	"CREATE FOREIGN TABLE pg_temp.dpm_remote_settings (name pg_catalog.text, setting pg_catalog.text)"
	" SERVER %s OPTIONS (schema_name 'pg_catalog', table_name 'pg_settings')",
};

/* the remote table's columns ($1 schema, $2 table): one row without a column when it has none */
static const char remote_columns_sql[] =
	"SELECT c.relkind, c.relrowsecurity, a.attname, tn.nspname, t.typname, a.atttypmod, t.typtype,"
	"       bn.nspname, b.typname, t.typtypmod, co.collisdeterministic"
	"  FROM pg_temp.dpm_remote_namespace n"
	"  JOIN pg_temp.dpm_remote_class c ON c.relnamespace = n.oid"
	"  LEFT JOIN pg_temp.dpm_remote_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped"
	"  LEFT JOIN pg_temp.dpm_remote_type t ON t.oid = a.atttypid"
	"  LEFT JOIN pg_temp.dpm_remote_namespace tn ON tn.oid = t.typnamespace"
	"  LEFT JOIN pg_temp.dpm_remote_type b ON b.oid = t.typbasetype"
	"  LEFT JOIN pg_temp.dpm_remote_namespace bn ON bn.oid = b.typnamespace"
	"  LEFT JOIN pg_temp.dpm_remote_collation co ON co.oid = a.attcollation"
	" WHERE n.nspname = $1 AND c.relname = $2";

static const char remote_encoding_sql[] =
	"SELECT setting FROM pg_temp.dpm_remote_settings WHERE name = 'server_encoding'";

/* ---- which foreign tables a scan reads ---- */

static void
add_read(List **reads, Oid relid, Oid userid)
{
	ListCell   *lc;
	ForeignRead *r;

	foreach(lc, *reads)
	{
		r = lfirst(lc);
		if (r->relid == relid && r->userid == userid)
			return;
	}
	r = palloc(sizeof(ForeignRead));
	r->relid = relid;
	r->userid = userid;
	*reads = lappend(*reads, r);
}

/* the role whose user mapping postgres_fdw uses to read this range table entry */
static Oid
reading_role(Query *q, RangeTblEntry *rte, Oid run_as)
{
	Oid			user = pg_compat_rte_check_as_user(q, rte);

	return OidIsValid(user) ? user : run_as;
}

/*
 * The foreign tables of a rewritten query: its relations, the partitions
 * and children of those read with inheritance, and those of its subqueries
 * (views) and CTEs, each with the role that reads it.
 */
static void
collect_reads(Query *q, Oid run_as, List **reads)
{
	ListCell   *lc;

	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

		if (rte->rtekind == RTE_SUBQUERY)
			collect_reads(rte->subquery, run_as, reads);
		else if (rte->rtekind == RTE_RELATION)
		{
			Oid			user = reading_role(q, rte, run_as);
			List	   *rels = rte->inh ? find_all_inheritors(rte->relid, AccessShareLock, NULL)
				: list_make1_oid(rte->relid);
			ListCell   *r;

			foreach(r, rels)
				if (get_rel_relkind(lfirst_oid(r)) == RELKIND_FOREIGN_TABLE)
					add_read(reads, lfirst_oid(r), user);
		}
	}
	foreach(lc, q->cteList)
		collect_reads(castNode(Query, lfirst_node(CommonTableExpr, lc)->ctequery), run_as, reads);
}

/* ---- the remote catalog ---- */

/* whether the wrapper's handler is postgres_fdw's own */
static bool
is_postgres_fdw(ForeignDataWrapper *fdw)
{
	HeapTuple	tup;
	bool		is;
	bool		isnull;
	Datum		bin;

	if (!OidIsValid(fdw->fdwhandler))
		return false;
	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fdw->fdwhandler));
	if (!HeapTupleIsValid(tup))
		return false;
	bin = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_probin, &isnull);
	is = !isnull && strcmp(TextDatumGetCString(bin), "$libdir/postgres_fdw") == 0
		&& strcmp(NameStr(((Form_pg_proc) GETSTRUCT(tup))->proname), "postgres_fdw_handler") == 0;
	ReleaseSysCache(tup);
	return is;
}

static int32
int_or(HeapTuple tup, TupleDesc desc, int col, int32 otherwise)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, col, &isnull);

	return isnull ? otherwise : DatumGetInt32(d);
}

static char
char_or(HeapTuple tup, TupleDesc desc, int col)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, col, &isnull);

	return isnull ? '\0' : DatumGetChar(d);
}

/* Reads the remote table's description; SPI is connected, run as the reading role. */
static void
read_remote(RemoteTable *rt, const char *schema, const char *table, MemoryContext into)
{
	Oid			types[2] = {TEXTOID, TEXTOID};
	Datum		args[2] = {CStringGetTextDatum(schema), CStringGetTextDatum(table)};
	MemoryContext spi;

	if (SPI_execute_with_args(remote_columns_sql, 2, types, args, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "dpm_internal.check_foreign_columns: the remote catalog could not be read");
	spi = MemoryContextSwitchTo(into);
	rt->found = SPI_processed > 0;
	rt->columns = palloc0(sizeof(RemoteColumn) * Max(SPI_processed, 1));
	rt->ncolumns = 0;
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		RemoteColumn *c = &rt->columns[rt->ncolumns];
		bool		isnull;
		Datum		det;

		rt->relkind = char_or(tup, desc, 1);
		det = SPI_getbinval(tup, desc, 2, &isnull);
		rt->rowsecurity = !isnull && DatumGetBool(det);
		if ((c->name = SPI_getvalue(tup, desc, 3)) == NULL)
			continue;
		c->type_nsp = SPI_getvalue(tup, desc, 4);
		c->type_name = SPI_getvalue(tup, desc, 5);
		c->typmod = int_or(tup, desc, 6, -1);
		c->typtype = char_or(tup, desc, 7);
		c->base_nsp = SPI_getvalue(tup, desc, 8);
		c->base_name = SPI_getvalue(tup, desc, 9);
		c->base_typmod = int_or(tup, desc, 10, -1);
		det = SPI_getbinval(tup, desc, 11, &isnull);
		c->deterministic = isnull ? -1 : DatumGetBool(det) ? 1 : 0;
		rt->ncolumns++;
	}
	MemoryContextSwitchTo(spi);
	if (SPI_execute(remote_encoding_sql, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "dpm_internal.check_foreign_columns: the remote encoding could not be read");
	if (SPI_processed == 1)
	{
		spi = MemoryContextSwitchTo(into);
		rt->encoding = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
		MemoryContextSwitchTo(spi);
	}
}

/*
 * The remote description of table on server, read as reader: made by
 * creator (who may use the server) in a subtransaction that is rolled back,
 * whatever happens.  An error (the server unreachable, no user mapping) is
 * raised again naming the foreign table, with its own SQLSTATE.
 */
static RemoteTable *
remote_table(ForeignServer *server, const char *local, const char *schema, const char *table, Oid creator, Oid reader)
{
	MemoryContext outer = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	RemoteTable *rt = palloc0(sizeof(RemoteTable));
	Oid			saved_user;
	int			saved_context;

	GetUserIdAndSecContext(&saved_user, &saved_context);
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(outer);
	PG_TRY();
	{
		const char *srv = quote_identifier(server->servername);

		/* as the owner, who may use the server (pg_temp: nothing outlives the subtransaction) */
		SetUserIdAndSecContext(creator, saved_context | SECURITY_LOCAL_USERID_CHANGE);
		(void) NewGUCNestLevel();	/* undone with the subtransaction */
		(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);
		SPI_connect();
		for (int i = 0; i < lengthof(remote_catalog); i++)
			if (SPI_execute(psprintf(remote_catalog[i], srv), false, 0) != SPI_OK_UTILITY)
				elog(ERROR, "dpm_internal.check_foreign_columns: could not describe the remote catalog");
		if (reader != creator
			&& SPI_execute(psprintf("GRANT SELECT ON pg_temp.dpm_remote_class, pg_temp.dpm_remote_namespace, "
									"pg_temp.dpm_remote_attribute, pg_temp.dpm_remote_type, pg_temp.dpm_remote_collation, "
									"pg_temp.dpm_remote_settings TO %s",
									quote_identifier(GetUserNameFromId(reader, false))), false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "dpm_internal.check_foreign_columns: could not grant the remote catalog");
		/* read as the scan reads: postgres_fdw takes the current role's user mapping */
		SetUserIdAndSecContext(reader, saved_context | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
		read_remote(rt, schema, table, outer);
		SPI_finish();
		SetUserIdAndSecContext(saved_user, saved_context);
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(outer);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(outer);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(outer);
		CurrentResourceOwner = owner;
		SetUserIdAndSecContext(saved_user, saved_context);
		ereport(ERROR,
				(errcode(edata->sqlerrcode),
				 errmsg("cannot check the columns of foreign table %s on server \"%s\": %s",
						local, server->servername, edata->message),
				 edata->detail != NULL ? errdetail("%s", edata->detail)
				 : errdetail("Before a release is charged, dpmatrix compares the foreign table's declared columns with the remote table's, reading the remote catalog with the user mapping the release would use."),
				 errhint("Make the server reachable with that user mapping, or have the custodian register a local copy of the rows.")));
	}
	PG_END_TRY();
	return rt;
}

/* ---- the comparison ---- */

/* a type's schema, name, and (of a domain) base type and typmod */
typedef struct TypeIdent
{
	char	   *nsp;
	char	   *name;
	char		typtype;
	Oid			base;
	int32		base_typmod;
} TypeIdent;

static TypeIdent
type_name(Oid type)
{
	HeapTuple	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(type));
	Form_pg_type t;
	TypeIdent	n;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for type %u", type);
	t = (Form_pg_type) GETSTRUCT(tup);
	n.nsp = get_namespace_name(t->typnamespace);
	n.name = pstrdup(NameStr(t->typname));
	n.typtype = t->typtype;
	n.base = t->typbasetype;
	n.base_typmod = t->typtypmod;
	ReleaseSysCache(tup);
	return n;
}

static bool
named(const TypeIdent *t, const char *nsp, const char *name)
{
	return nsp != NULL && name != NULL && strcmp(t->nsp, nsp) == 0 && strcmp(t->name, name) == 0;
}

/* why the declared type's input could fail on a text another server's column of that type outputs, or NULL */
static const char *
unconvertible(Oid type)
{
	Oid			elem = get_element_type(type);
	TypeIdent	t = type_name(type);

	if (OidIsValid(elem))
		return get_typtype(elem) == TYPTYPE_DOMAIN ? "an array of a domain" : unconvertible(elem);
	if (t.typtype == TYPTYPE_DOMAIN)
	{
		if (DomainHasConstraints(type))
			return "a domain with constraints, which are checked on every value read";
		if (get_typtype(t.base) == TYPTYPE_DOMAIN)
			return "a domain over a domain";
		return unconvertible(t.base);
	}
	if (type >= FirstNormalObjectId
		|| (t.typtype != TYPTYPE_BASE && t.typtype != TYPTYPE_RANGE && t.typtype != TYPTYPE_MULTIRANGE))
		return "not a built-in type (its definition on the remote server may differ)";
	switch (type)
	{
		case MONEYOID:
			return "a type whose input depends on the server's lc_monetary";
		case XMLOID:
			return "a type whose input depends on the session's xmloption";
		case ACLITEMOID:
		case REGPROCOID:
		case REGPROCEDUREOID:
		case REGOPEROID:
		case REGOPERATOROID:
		case REGCLASSOID:
		case REGCOLLATIONOID:
		case REGTYPEOID:
		case REGROLEOID:
		case REGNAMESPACEOID:
		case REGCONFIGOID:
		case REGDICTIONARYOID:
			return "a type whose input looks names up in this server's catalog";
		case PG_NODE_TREEOID:
		case PG_NDISTINCTOID:
		case PG_DEPENDENCIESOID:
		case PG_MCV_LISTOID:
		case PG_BRIN_BLOOM_SUMMARYOID:
		case PG_BRIN_MINMAX_MULTI_SUMMARYOID:
		case GTSVECTOROID:
			return "a type whose input always fails";
	}
	return NULL;
}

/* a remote type as this server would print it (its own type of that name), else its qualified name */
static char *
remote_type_text(const char *nsp, const char *name, int32 typmod)
{
	Oid			nspid = nsp != NULL ? get_namespace_oid(nsp, true) : InvalidOid;
	Oid			type = OidIsValid(nspid)
		? GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum(name), ObjectIdGetDatum(nspid))
		: InvalidOid;

	if (OidIsValid(type))
		return format_type_with_typemod(type, typmod);
	if (nsp == NULL || name == NULL)
		return "unknown";
	return typmod >= 0 ? psprintf("%s (typmod %d)", quote_qualified_identifier(nsp, name), typmod)
		: quote_qualified_identifier(nsp, name);
}

/* whether text from a database of this encoding converts into ours without error */
static bool
encoding_converts(const char *remote)
{
	int			ours = GetDatabaseEncoding();

	return remote != NULL
		&& (ours == PG_SQL_ASCII || strcmp(remote, GetDatabaseEncodingName()) == 0
			|| (ours == PG_UTF8 && strcmp(remote, "SQL_ASCII") != 0));
}

static const char *
option(List *options, const char *name, const char *otherwise)
{
	ListCell   *lc;

	foreach(lc, options)
		if (strcmp(lfirst_node(DefElem, lc)->defname, name) == 0)
			return defGetString(lfirst_node(DefElem, lc));
	return otherwise;
}

#define DECLARE_HINT "Declare the column as the remote table has it (ALTER FOREIGN TABLE ... ALTER COLUMN ... TYPE), or import the table again (IMPORT FOREIGN SCHEMA ... LIMIT TO (...) FROM SERVER ... INTO ...)."
#define DECLARE_DETAIL "postgres_fdw converts every remote value with the declared type's input function while a release reads the rows, after its charge: a value that does not convert would make whether it answers depend on the rows."

/*
 * Errors out unless the foreign table relid, read with userid's user
 * mapping, declares every column as its remote table has it.
 */
static void
check_table(Oid relid, Oid userid, Oid creator)
{
	ForeignTable *ft = GetForeignTable(relid);
	ForeignServer *server = GetForeignServer(ft->serverid);
	ForeignDataWrapper *fdw = GetForeignDataWrapper(server->fdwid);
	char	   *local = quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)), get_rel_name(relid));
	const char *schema;
	const char *table;
	char	   *remote;
	RemoteTable *rt;
	Relation	rel;
	TupleDesc	desc;

	if (!is_postgres_fdw(fdw))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("foreign table %s uses foreign-data wrapper \"%s\", whose conversions dpmatrix cannot check",
						local, fdw->fdwname),
				 errdetail("A wrapper converts its rows while a release reads them, after its charge: a value it cannot convert would make whether the release answers depend on the rows."),
				 errhint("Register a table holding a copy of the rows (CREATE TABLE ... AS, or a materialized view), or read the rows through postgres_fdw.")));
	schema = option(ft->options, "schema_name", get_namespace_name(get_rel_namespace(relid)));
	table = option(ft->options, "table_name", get_rel_name(relid));
	remote = quote_qualified_identifier(schema, table);
	rt = remote_table(server, local, schema, table, creator, userid);
	if (!rt->found)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_TABLE_NOT_FOUND),
				 errmsg("the remote table %s of foreign table %s does not exist on server \"%s\"", remote, local,
						server->servername),
				 errhint("Point the foreign table at an existing table (ALTER FOREIGN TABLE ... OPTIONS (SET table_name ...)).")));
	if ((rt->relkind != RELKIND_RELATION && rt->relkind != RELKIND_PARTITIONED_TABLE && rt->relkind != RELKIND_MATVIEW)
		|| rt->rowsecurity)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the remote relation %s of foreign table %s on server \"%s\" is %s", remote, local, server->servername,
						rt->rowsecurity ? "a table with row-level security" :
						rt->relkind == RELKIND_VIEW ? "a view" :
						rt->relkind == RELKIND_FOREIGN_TABLE ? "a foreign table" : "not a table"),
				 errdetail("Its query or policies run on the remote server on every row a release reads, after its charge, where dpmatrix cannot check that they never fail."),
				 errhint("Point the foreign table at a table or a materialized view without row-level security.")));
	if (!encoding_converts(rt->encoding))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the database of server \"%s\" is encoded in %s, which does not always convert into this database's %s",
						server->servername, rt->encoding ? rt->encoding : "an unknown encoding", GetDatabaseEncodingName()),
				 errdetail("A remote character without an equivalent here would make a release fail after its charge."),
				 errhint("Read the rows from a database of the same encoding, or from this one in UTF8.")));

	rel = table_open(relid, AccessShareLock);
	desc = RelationGetDescr(rel);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		const char *column;
		RemoteColumn *rc = NULL;
		TypeIdent	declared;
		TypeIdent	base;
		const char *why;

		if (att->attisdropped)
			continue;
		column = option(GetForeignColumnOptions(relid, att->attnum), "column_name", NameStr(att->attname));
		for (int j = 0; j < rt->ncolumns && rc == NULL; j++)
			if (strcmp(rt->columns[j].name, column) == 0)
				rc = &rt->columns[j];
		if (rc == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_COLUMN_NAME_NOT_FOUND),
					 errmsg("column \"%s\" of foreign table %s is declared %s, but the remote table %s on server \"%s\" has no column \"%s\"",
							NameStr(att->attname), local, format_type_with_typemod(att->atttypid, att->atttypmod),
							remote, server->servername, column),
					 errdetail("Reading it would fail after a release's charge."),
					 errhint("Drop the column from the foreign table, or name its remote column (ALTER FOREIGN TABLE ... ALTER COLUMN ... OPTIONS (column_name ...)).")));
		if ((why = unconvertible(att->atttypid)) != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_DATA_TYPE),
					 errmsg("column \"%s\" of foreign table %s is declared %s: %s",
							NameStr(att->attname), local, format_type_with_typemod(att->atttypid, att->atttypmod), why),
					 errdetail(DECLARE_DETAIL),
					 errhint("Declare a built-in type (a domain only without constraints), or register a table holding a copy of the rows.")));
		declared = type_name(att->atttypid);
		/* a domain: the remote one of that name must be over the same base type */
		if (declared.typtype == TYPTYPE_DOMAIN)
			base = type_name(declared.base);
		if (!named(&declared, rc->type_nsp, rc->type_name) || att->atttypmod != rc->typmod
			|| (declared.typtype == TYPTYPE_DOMAIN) != (rc->typtype == TYPTYPE_DOMAIN)
			|| (declared.typtype == TYPTYPE_DOMAIN
				&& (!named(&base, rc->base_nsp, rc->base_name) || declared.base_typmod != rc->base_typmod)))
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_DATA_TYPE),
					 errmsg("column \"%s\" of foreign table %s is declared %s, but its remote column \"%s\" on server \"%s\" is %s",
							NameStr(att->attname), local, format_type_with_typemod(att->atttypid, att->atttypmod), column,
							server->servername,
							rc->typtype == TYPTYPE_DOMAIN && declared.typtype == TYPTYPE_DOMAIN
							? psprintf("a domain of that name over %s", remote_type_text(rc->base_nsp, rc->base_name, rc->base_typmod))
							: remote_type_text(rc->type_nsp, rc->type_name, rc->typmod)),
					 errdetail(DECLARE_DETAIL),
					 errhint(DECLARE_HINT)));
		if (rc->deterministic == 0)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_DATA_TYPE),
					 errmsg("the remote column \"%s\" of foreign table %s on server \"%s\" has a nondeterministic collation",
							column, local, server->servername),
					 errdetail("Conditions and the capping run on the remote server under the remote column's collation, where LIKE and hashing of such a collation can fail on some rows."),
					 errhint("Give the remote column a deterministic collation, or read it through a remote table that has one.")));
	}
	table_close(rel, AccessShareLock);
}

/*
 * dpm_internal.check_foreign_columns(run_as, relation): errors out, before
 * any row is read, unless every foreign table that run_as's scan of the
 * relation reads is a postgres_fdw table declared as its remote table is.
 * Called by the extension's owner, who makes the remote catalog's tables.
 */
PG_FUNCTION_INFO_V1(dpm_check_foreign_columns);
Datum
dpm_check_foreign_columns(PG_FUNCTION_ARGS)
{
	Oid			run_as = PG_GETARG_OID(0);
	Oid			relation = PG_GETARG_OID(1);
	Oid			creator = GetUserId();
	AsRole		saved;
	List	   *reads = NIL;
	ListCell   *lc;

	security_as_role_begin(&saved, run_as);
	collect_reads(safe_expr_analyzed(relation, ""), run_as, &reads);
	security_as_role_end(&saved);
	foreach(lc, reads)
	{
		ForeignRead *r = lfirst(lc);

		check_table(r->relid, r->userid, creator);
	}
	PG_RETURN_VOID();
}
