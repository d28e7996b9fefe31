/*
 * query_api.c -- the SQL front door's entry points: dpm.answer_query(sql, ...)
 * and dpm.explain_query(sql, ...), of one statement or of a dashboard's
 * (text[]), dpm_internal.compile_query(sql), and
 * dpm_internal.query_value(expression, types, args), which evaluates a
 * statement's expression over its answers.
 *
 * The statement is parsed and analyzed as the caller, with the caller's
 * search_path (query/compile.c): its names mean what they mean to her, and
 * analysis, which may run the input functions of its constants, runs with
 * her rights.  The description it yields is then answered by
 * dpm_internal.query_answer (or query_explain), run as the extension's owner
 * the way PostgreSQL runs a SECURITY DEFINER function: the catalog and the
 * ledger are written only through the extension's own functions.  Analysts
 * cannot call those internal functions with a description of their own.
 */
#include "postgres.h"

#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/syscache.h"

#include "query/compile.h"
#include "query/evaluate.h"
#include "security/access.h"

PG_FUNCTION_INFO_V1(dpm_compile_query);
Datum
dpm_compile_query(PG_FUNCTION_ARGS)
{
	char	   *json = query_compile(text_to_cstring(PG_GETARG_TEXT_PP(0)));

	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(json)));
}

/* (expression text, types regtype[], args text[]) -> json, NULL when it fails on them */
PG_FUNCTION_INFO_V1(dpm_query_value);
Datum
dpm_query_value(PG_FUNCTION_ARGS)
{
	Datum	   *types;
	Datum	   *args;
	bool	   *nulls;
	int			n;
	int			nargs;
	Oid		   *oids;
	char	  **values;
	char	   *json;

	deconstruct_array(PG_GETARG_ARRAYTYPE_P(1), REGTYPEOID, sizeof(Oid), true, TYPALIGN_INT, &types, &nulls, &n);
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(2), TEXTOID, -1, false, TYPALIGN_INT, &args, &nulls, &nargs);
	if (n != nargs)
		elog(ERROR, "query_value: %d types for %d arguments", n, nargs);
	oids = palloc(sizeof(Oid) * Max(n, 1));
	values = palloc(sizeof(char *) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		oids[i] = DatumGetObjectId(types[i]);
		values[i] = nulls[i] ? NULL : TextDatumGetCString(args[i]);
	}
	json = query_evaluate(text_to_cstring(PG_GETARG_TEXT_PP(0)), n, oids, values);
	if (json == NULL)
		PG_RETURN_NULL();
	PG_RETURN_DATUM(DirectFunctionCall1(json_in, CStringGetDatum(json)));
}

/* the owner of the function being called: the extension's */
static Oid
function_owner(FunctionCallInfo fcinfo)
{
	HeapTuple	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fcinfo->flinfo->fn_oid));
	Oid			owner;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for function %u", fcinfo->flinfo->fn_oid);
	owner = ((Form_pg_proc) GETSTRUCT(tup))->proowner;
	ReleaseSysCache(tup);
	return owner;
}

/*
 * The description of argument 0, compiled as the caller: one statement's
 * JSON object, or a JSON array of each statement's of a text[] (a dashboard)
 */
static char *
describe(FunctionCallInfo fcinfo)
{
	StringInfoData out;
	Datum	   *elems;
	bool	   *nulls;
	int			n;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("give the SELECT statement to answer")));
	if (get_fn_expr_argtype(fcinfo->flinfo, 0) != TEXTARRAYOID)
		return query_compile(text_to_cstring(PG_GETARG_TEXT_PP(0)));
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(0), TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("give at least one SELECT statement to answer")));
	initStringInfo(&out);
	appendStringInfoChar(&out, '[');
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("statement %d of %d is NULL", i + 1, n)));
		CHECK_FOR_INTERRUPTS();
		appendStringInfo(&out, "%s%s", i > 0 ? ", " : "", query_compile(TextDatumGetCString(elems[i])));
	}
	appendStringInfoChar(&out, ']');
	return out.data;
}

/* what a row of dpm_internal.<internal> becomes: a tuple of the set returned */
typedef void (*OwnerRow) (ReturnSetInfo *rsinfo, HeapTuple row, TupleDesc desc, void *context);

/*
 * Compiles argument 0 as the caller (unless desc is its description), then
 * runs "SELECT <select> FROM dpm_internal.<internal>(description, arguments
 * 1..nargs - 1) r" as the owner and hands each row to put.
 */
static Datum
answer_as_owner(FunctionCallInfo fcinfo, int nargs, const char *desc, const char *select, const char *internal,
				OwnerRow put, void *context)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid		   *types = palloc(sizeof(Oid) * nargs);
	Datum	   *values = palloc(sizeof(Datum) * nargs);
	char	   *nulls = palloc(nargs);
	StringInfoData sql;
	AsRole		saved;

	if (desc == NULL)
		desc = describe(fcinfo);
	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT %s FROM dpm_internal.%s($1::jsonb", select, internal);
	types[0] = TEXTOID;
	values[0] = CStringGetTextDatum(desc);
	nulls[0] = ' ';
	for (int i = 1; i < nargs; i++)
	{
		types[i] = get_fn_expr_argtype(fcinfo->flinfo, i);
		values[i] = PG_GETARG_DATUM(i);
		nulls[i] = PG_ARGISNULL(i) ? 'n' : ' ';
		appendStringInfo(&sql, ", $%d", i + 1);
	}
	appendStringInfoString(&sql, ") r");

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	security_as_owner_begin(&saved, function_owner(fcinfo));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args(sql.data, nargs, types, values, nulls, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "dpm_internal.%s failed", internal);
	for (uint64 r = 0; r < SPI_processed; r++)
		put(rsinfo, SPI_tuptable->vals[r], SPI_tuptable->tupdesc, context);
	SPI_finish();
	/* on an error, the (sub)transaction's abort restores both */
	security_as_role_end(&saved);
	return (Datum) 0;
}

/* the row's last columns, as many as the function returns (one statement's rows do not say which statement) */
static void
put_last_columns(ReturnSetInfo *rsinfo, HeapTuple row, TupleDesc desc, void *context)
{
	int			skip = desc->natts - rsinfo->setDesc->natts;
	Datum	   *values = palloc(sizeof(Datum) * desc->natts);
	bool	   *isnull = palloc(sizeof(bool) * desc->natts);

	heap_deform_tuple(row, desc, values, isnull);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values + skip, isnull + skip);
}

PG_FUNCTION_INFO_V1(dpm_answer_query);
Datum
dpm_answer_query(PG_FUNCTION_ARGS)
{
	return answer_as_owner(fcinfo, PG_NARGS(), NULL, "*", "query_answer", put_last_columns, NULL);
}

PG_FUNCTION_INFO_V1(dpm_explain_query);
Datum
dpm_explain_query(PG_FUNCTION_ARGS)
{
	return answer_as_owner(fcinfo, PG_NARGS(), NULL, "*", "query_explain", put_last_columns, NULL);
}

/*
 * The rows of this session's last plain statement, each with every
 * aggregate's error, its release and cost: what dpm.last_answers() shows
 * (plain SQL returns only the statement's own columns)
 */
static MemoryContext last_cxt = NULL;
static List *last_rows = NIL;

typedef struct LastRow
{
	char	   *result;
	int64		release_id;
	bool		no_release;
	char	   *cost;
} LastRow;

/* keeps a row (columns 2..4: result, release_id, cost) among the last statement's */
static void
keep_last(HeapTuple row, TupleDesc desc)
{
	MemoryContext old = MemoryContextSwitchTo(last_cxt);
	LastRow    *r = palloc(sizeof(LastRow));
	bool		isnull;
	Datum		v;

	r->result = SPI_getvalue(row, desc, 2);
	v = heap_getattr(row, 3, desc, &isnull);
	r->no_release = isnull;
	r->release_id = isnull ? 0 : DatumGetInt64(v);
	r->cost = SPI_getvalue(row, desc, 4);
	last_rows = lappend(last_rows, r);
	MemoryContextSwitchTo(old);
}

PG_FUNCTION_INFO_V1(dpm_last_answers);
Datum
dpm_last_answers(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ListCell   *lc;

	InitMaterializedSRF(fcinfo, 0);
	foreach(lc, last_rows)
	{
		LastRow    *r = lfirst(lc);
		Datum		values[3];
		bool		nulls[3] = {r->result == NULL, r->no_release, r->cost == NULL};

		values[0] = r->result ? DirectFunctionCall1(json_in, CStringGetDatum(r->result)) : (Datum) 0;
		values[1] = Int64GetDatum(r->release_id);
		values[2] = r->cost ? CStringGetTextDatum(r->cost) : (Datum) 0;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* the text fields of a row (a text[]) as values of the set's column types, none failing */
static void
put_typed(ReturnSetInfo *rsinfo, HeapTuple row, TupleDesc desc, void *context)
{
	TupleDesc	want = rsinfo->setDesc;
	Datum	   *values = palloc(sizeof(Datum) * want->natts);
	bool	   *isnull = palloc(sizeof(bool) * want->natts);
	bool		null;
	Datum		fields = heap_getattr(row, 1, desc, &null);
	Datum	   *texts;
	bool	   *nulls;
	int			n;

	deconstruct_array(DatumGetArrayTypeP(fields), TEXTOID, -1, false, TYPALIGN_INT, &texts, &nulls, &n);
	for (int i = 0; i < want->natts; i++)
	{
		Form_pg_attribute a = TupleDescAttr(want, i);

		values[i] = query_convert(i < n && !nulls[i] ? TextDatumGetCString(texts[i]) : NULL,
								  a->atttypid, a->atttypmod, &isnull[i]);
	}
	tuplestore_putvalues(rsinfo->setResult, want, values, isnull);
	keep_last(row, desc);
}

/*
 * Argument 0 compiled as the caller with its parameters $1..$n bound to
 * argument 7 (text[]), of the types of argument 8 (regtype[])
 */
static char *
describe_bound(FunctionCallInfo fcinfo)
{
	Datum	   *values;
	Datum	   *types;
	bool	   *nulls;
	bool	   *tnulls;
	int			n;
	int			ntypes;
	Oid		   *oids;
	char	  **texts;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(8))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("give the statement, its parameters and their types")));
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(7), TEXTOID, -1, false, TYPALIGN_INT, &values, &nulls, &n);
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(8), REGTYPEOID, sizeof(Oid), true, TYPALIGN_INT, &types, &tnulls, &ntypes);
	if (n != ntypes || n > FUNC_MAX_ARGS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("give as many parameter types as parameters, at most %d", FUNC_MAX_ARGS)));
	oids = palloc(sizeof(Oid) * Max(n, 1));
	texts = palloc(sizeof(char *) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		if (tnulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("parameter %d has no type", i + 1)));
		oids[i] = DatumGetObjectId(types[i]);
		texts[i] = nulls[i] ? NULL : TextDatumGetCString(values[i]);
	}
	return query_compile_with(text_to_cstring(PG_GETARG_TEXT_PP(0)), n, oids, texts);
}

/* the SQL types of a compiled statement's columns, in order */
static List *
statement_types(const char *desc)
{
	Oid			type = TEXTOID;
	Datum		value = CStringGetTextDatum(desc);
	List	   *types = NIL;
	MemoryContext cxt = CurrentMemoryContext;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args("SELECT c->>'sql_type' FROM jsonb_array_elements($1::jsonb->'columns') WITH ORDINALITY x(c, o) "
							  "WHERE NOT c ? 'hidden' ORDER BY o", 1, &type, &value, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "the statement's types could not be read");
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		MemoryContext spi = MemoryContextSwitchTo(cxt);

		types = lappend(types, pstrdup(SPI_getvalue(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1)));
		MemoryContextSwitchTo(spi);
	}
	SPI_finish();
	return types;
}

/* "a, b, c" */
static char *
text_list(List *items)
{
	StringInfoData out;
	ListCell   *lc;

	initStringInfo(&out);
	foreach(lc, items)
		appendStringInfo(&out, "%s%s", foreach_current_index(lc) > 0 ? ", " : "", (char *) lfirst(lc));
	return out.data;
}

/*
 * dpm.answer_plain(sql, ...) AS t(column definitions): the statement's own
 * columns with their SQL types, as the SQL front door's plain statements
 * return them (src/query/plain.c writes the column definitions).  Checked
 * against the compiled statement before anything runs.
 */
PG_FUNCTION_INFO_V1(dpm_answer_plain);
Datum
dpm_answer_plain(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *desc;
	List	   *types;
	char	   *select;

	if (rsinfo == NULL || !IsA(rsinfo, ReturnSetInfo) || rsinfo->expectedDesc == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dpm.answer_plain needs a column definition list: the statement's columns and types"),
				 errhint("Ask the statement itself in plain SQL, or use dpm.answer_query.")));
	desc = PG_ARGISNULL(7) ? describe(fcinfo) : describe_bound(fcinfo);
	types = statement_types(desc);
	for (int i = 0; i < rsinfo->expectedDesc->natts || i < list_length(types); i++)
	{
		Form_pg_attribute a = i < rsinfo->expectedDesc->natts ? TupleDescAttr(rsinfo->expectedDesc, i) : NULL;
		char	   *want = a ? format_type_with_typemod(a->atttypid, a->atttypmod) : NULL;

		if (a == NULL || i >= list_length(types) || strcmp(want, list_nth(types, i)) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("the column definition list does not match the statement"),
					 errdetail("The statement's columns are of types %s.", types ? text_list(types) : "(none)"),
					 errhint("Nothing was charged.")));
	}
	select = psprintf("dpm_internal.query_fields(r.result, %d), r.result, r.release_id, r.cost", rsinfo->expectedDesc->natts);
	if (last_cxt == NULL)
		last_cxt = AllocSetContextCreate(TopMemoryContext, "dpm last answers", ALLOCSET_SMALL_SIZES);
	MemoryContextReset(last_cxt);
	last_rows = NIL;
	/* the arguments dpm.answer_query takes: all but params and param_types */
	return answer_as_owner(fcinfo, PG_NARGS() - 2, desc, select, "query_answer", put_typed, NULL);
}
