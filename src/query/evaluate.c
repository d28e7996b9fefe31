/*
 * evaluate.c -- an expression of a front door statement's select list over
 * its aggregates' answers, such as sum(x) / count(*) or round(avg(x), 1).
 *
 * It runs after the release was charged, on noisy answers, so it must not
 * fail: whatever error it meets on them (division by zero, overflow, a value
 * out of a function's range) makes its value NULL, as plpgsql's EXCEPTION
 * blocks do, in a subtransaction of its own.  Only a cancel is passed on.
 * The compiler (compile.c) lets through only PostgreSQL's immutable
 * built-ins, so nothing here reads or changes anything.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "query/evaluate.h"

/*
 * An aggregate's noisy answer as a value of its integer type (count(*) is a
 * bigint): the nearest integer, which is post-processing
 */
static char *
as_integer(const char *value)
{
	double		v = DatumGetFloat8(DirectFunctionCall1(float8in, CStringGetDatum(value)));

	return psprintf("%.0f", rint(v));
}

static char *
evaluate(const char *expression, int n, const Oid *types, char *const *args)
{
	Datum	   *values = palloc(sizeof(Datum) * Max(n, 1));
	char	   *nulls = palloc(Max(n, 1));
	char	   *sql = psprintf("SELECT to_json(%s)::text", expression);
	char	   *result = NULL;
	MemoryContext cxt = CurrentMemoryContext;

	for (int i = 0; i < n; i++)
	{
		Oid			input;
		Oid			ioparam;
		const char *arg = args[i];

		nulls[i] = arg ? ' ' : 'n';
		if (arg == NULL)
			continue;
		if (types[i] == INT8OID || types[i] == INT4OID || types[i] == INT2OID)
			arg = as_integer(arg);
		getTypeInputInfo(types[i], &input, &ioparam);
		values[i] = OidInputFunctionCall(input, (char *) arg, ioparam, -1);
	}
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args(sql, n, (Oid *) types, values, nulls, true, 1) == SPI_OK_SELECT &&
		SPI_processed == 1)
	{
		char	   *v = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);

		if (v)
			result = MemoryContextStrdup(cxt, v);
	}
	SPI_finish();
	return result;
}

char *
query_evaluate(const char *expression, int n, const Oid *types, char *const *args)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	char	   *volatile result = NULL;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		result = evaluate(expression, n, types, args);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *e;

		MemoryContextSwitchTo(cxt);
		e = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		if (e->sqlerrcode == ERRCODE_QUERY_CANCELED)
			ReThrowError(e);
		FreeErrorData(e);
		result = NULL;
	}
	PG_END_TRY();
	return result;
}
