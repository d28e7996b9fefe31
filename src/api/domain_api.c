/*
 * domain_api.c -- SQL entry point of the domain parser (src/domain):
 * dpm_internal.attribute_bins reads one attribute of dpm.create_domain's
 * definition against its source.  The catalog supplies the column's type;
 * the checks, bins and expression are domain_attribute_parse's.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "nodes/nodeFuncs.h"
#include "parser/parse_type.h"
#include "parser/parser.h"
#include "tcop/tcopprot.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/resowner.h"

#include "api/args.h"
#include "domain/domain.h"
#include "domain/json.h"
#include "histogram/histogram.h"

/*
 * The type of a column of the relation as format_type(atttypid, atttypmod)
 * prints it (with the caller's search_path: a type outside it is
 * schema-qualified), or NULL when the relation has no such user column.
 */
static char *
column_type(void *arg, const char *column)
{
	Oid			relid = *(Oid *) arg;
	AttrNumber	attnum;
	Oid			typid,
				collid;
	int32		typmod;

	/* attname = column: a name too long for the catalog matches none, not its truncation */
	if (!OidIsValid(relid) || strlen(column) >= NAMEDATALEN)
		return NULL;
	attnum = get_attnum(relid, column);
	if (attnum <= 0)			/* none (or dropped), or a system column */
		return NULL;
	get_atttypetypmodcoll(relid, attnum, &typid, &typmod, &collid);
	return format_type_with_typemod(typid, typmod);
}

/* a parse error's position is in the query made here, not in the caller's statement */
static void
expression_error_context(void *arg)
{
	int			pos = geterrposition();

	if (pos > 0)
	{
		errposition(0);
		internalerrposition(pos);
		internalerrquery((const char *) arg);
	}
}

/*
 * The type of a custodian's expression over the relation, as column_type
 * gives a column's: parsed and analyzed as SELECT (expr) FROM relation,
 * which must stay one query with one column over that relation alone (an
 * expression cannot close its parenthesis and add a clause).  Nothing is
 * run; dpm_internal.check_cells vets it as it does conditions.
 */
static char *
expression_type(void *arg, const char *expr)
{
	Oid			relid = *(Oid *) arg;
	StringInfoData sql;
	List	   *raw,
			   *rewritten = NIL;
	Query	   *q = NULL;
	ErrorContextCallback context;

	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("an expression needs a source relation")));
	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT (%s) FROM %s", expr,
					 quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)), get_rel_name(relid)));
	context.callback = expression_error_context;
	context.arg = sql.data;
	context.previous = error_context_stack;
	error_context_stack = &context;
	raw = raw_parser(sql.data, RAW_PARSE_DEFAULT);
	if (list_length(raw) == 1)
		rewritten = pg_analyze_and_rewrite_fixedparams(linitial_node(RawStmt, raw), sql.data, NULL, 0, NULL);
	error_context_stack = context.previous;
	if (list_length(rewritten) == 1)
		q = linitial_node(Query, rewritten);
	if (q == NULL || q->commandType != CMD_SELECT || q->setOperations != NULL || list_length(q->targetList) != 1 ||
		list_length(q->rtable) != 1 || q->jointree->quals != NULL || q->groupClause != NIL || q->havingQual != NULL ||
		q->sortClause != NIL || q->limitCount != NULL || q->limitOffset != NULL || q->cteList != NIL ||
		q->hasAggs || q->hasWindowFuncs || q->hasTargetSRFs)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("expression %s is not one SQL expression over the source's columns", quote_literal_cstr(expr))));
	return format_type_with_typemod(exprType((Node *) linitial_node(TargetEntry, q->targetList)->expr),
									exprTypmod((Node *) linitial_node(TargetEntry, q->targetList)->expr));
}

/*
 * Whether a literal reads as a value of a type: its input function, run in a subtransaction so
 * that its error can be caught and reported with the attribute it belongs to (PostgreSQL 15 has
 * no soft input errors).  Nothing is read from any table.
 */
static char *
value_error(void *arg, const char *type, const char *literal, int *sqlstate)
{
	MemoryContext mcxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	Oid			typid,
				infunc,
				ioparam;
	int32		typmod;
	char	   *why = NULL;

	parseTypeString(type, &typid, &typmod, false);
	getTypeInputInfo(typid, &infunc, &ioparam);
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(mcxt);
	PG_TRY();
	{
		OidInputFunctionCall(infunc, (char *) literal, ioparam, typmod);
		ReleaseCurrentSubTransaction();
	}
	PG_CATCH();
	{
		ErrorData  *e;

		MemoryContextSwitchTo(mcxt);
		e = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		/* a cancel or a lack of memory is not the value's fault */
		if (e->sqlerrcode == ERRCODE_QUERY_CANCELED || e->sqlerrcode == ERRCODE_ADMIN_SHUTDOWN ||
			e->sqlerrcode == ERRCODE_OUT_OF_MEMORY)
			ReThrowError(e);
		why = e->message;
		*sqlstate = e->sqlerrcode;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(mcxt);
	CurrentResourceOwner = owner;
	return why;
}

/*
 * dpm_internal.attribute_bins(source regclass, attr jsonb, OUT aname text,
 * OUT labels text[], OUT lo float8[], OUT hi float8[], OUT expr text).
 * Not strict: a NULL attribute fails as one without a name.
 */
PG_FUNCTION_INFO_V1(dpm_attribute_bins);
Datum
dpm_attribute_bins(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_ARGISNULL(0) ? InvalidOid : PG_GETARG_OID(0);
	DomainJson *attr = NULL;
	DomainSource src;
	DomainAttr *a;
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5] = {false};
	Datum	   *labels;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (!PG_ARGISNULL(1))
		attr = domain_json_from_jsonb(&PG_GETARG_JSONB_P(1)->root);
	/* messages name the relation as regclass prints it (a NULL one as RAISE printed it) */
	src.name = PG_ARGISNULL(0) ? "<NULL>"
		: DatumGetCString(DirectFunctionCall1(regclassout, ObjectIdGetDatum(relid)));
	src.column_type = column_type;
	src.expression_type = expression_type;
	src.value_error = value_error;
	src.arg = &relid;
	src.max_cells = dpm_max_cells;
	a = domain_attribute_parse(attr, &src);

	labels = palloc(sizeof(Datum) * a->nbins);
	for (int i = 0; i < a->nbins; i++)
		labels[i] = CStringGetTextDatum(a->labels[i]);
	values[0] = CStringGetTextDatum(a->name);
	values[1] = PointerGetDatum(construct_array(labels, a->nbins, TEXTOID, -1, false, TYPALIGN_INT));
	values[2] = PointerGetDatum(array_from_vec(a->lo, a->nbins));
	values[3] = PointerGetDatum(array_from_vec(a->hi, a->nbins));
	values[4] = CStringGetTextDatum(a->expr);
	tupdesc = BlessTupleDesc(tupdesc);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
