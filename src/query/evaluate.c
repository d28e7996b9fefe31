/*
 * evaluate.c -- what the front door does to the answers after the charge:
 * an expression of the statement's select list over its aggregates' answers
 * (sum(x) / count(*), round(avg(x), 1)), and each answer as a value of its
 * column's SQL type (count(*) a bigint) for a statement asked in plain SQL.
 *
 * Both run after the release was charged, on noisy answers, so they must not
 * fail: whatever error they meet (division by zero, overflow, a value out of
 * a type's range) makes the value NULL, as plpgsql's EXCEPTION blocks do, in
 * a subtransaction of its own.  Only a cancel is passed on.  The compiler
 * (outputs.c) lets through only PostgreSQL's immutable built-ins, so nothing
 * here reads or changes anything.
 */
#include "postgres.h"

#include <math.h>

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "query/evaluate.h"

/* runs fn(arg) in a subtransaction of its own: false when it raised an error */
static bool
try_apart(void (*fn) (void *), void *arg)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	bool		ok = true;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		fn(arg);
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
		ok = false;
	}
	PG_END_TRY();
	return ok;
}

/*
 * value as a Datum of type: an aggregate's noisy answer as a value of an
 * integer type (count(*) is a bigint) is the nearest integer, which is
 * post-processing
 */
static Datum
typed(const char *value, Oid type, int32 typmod)
{
	Oid			input;
	Oid			ioparam;

	if (type == INT8OID || type == INT4OID || type == INT2OID)
		value = psprintf("%.0f", rint(DatumGetFloat8(DirectFunctionCall1(float8in, CStringGetDatum(value)))));
	getTypeInputInfo(type, &input, &ioparam);
	return OidInputFunctionCall(input, (char *) value, ioparam, typmod);
}

typedef struct Evaluation
{
	const char *expression;
	int			n;
	const Oid  *types;
	char	   *const *args;
	char	   *result;
} Evaluation;

static void
evaluate(void *arg)
{
	Evaluation *e = arg;
	Datum	   *values = palloc(sizeof(Datum) * Max(e->n, 1));
	char	   *nulls = palloc(Max(e->n, 1));
	char	   *sql = psprintf("SELECT to_json(%s)::text", e->expression);
	MemoryContext cxt = CurrentMemoryContext;

	for (int i = 0; i < e->n; i++)
	{
		nulls[i] = e->args[i] ? ' ' : 'n';
		if (e->args[i])
			values[i] = typed(e->args[i], e->types[i], -1);
	}
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args(sql, e->n, (Oid *) e->types, values, nulls, true, 1) == SPI_OK_SELECT &&
		SPI_processed == 1)
	{
		char	   *v = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);

		if (v)
			e->result = MemoryContextStrdup(cxt, v);
	}
	SPI_finish();
}

char *
query_evaluate(const char *expression, int n, const Oid *types, char *const *args)
{
	Evaluation	e = {expression, n, types, args, NULL};

	return try_apart(evaluate, &e) ? e.result : NULL;
}

typedef struct Conversion
{
	const char *value;
	Oid			type;
	int32		typmod;
	Datum		result;
} Conversion;

static void
convert(void *arg)
{
	Conversion *c = arg;

	c->result = typed(c->value, c->type, c->typmod);
}

Datum
query_convert(const char *value, Oid type, int32 typmod, bool *isnull)
{
	Conversion	c = {value, type, typmod, (Datum) 0};

	*isnull = value == NULL || !try_apart(convert, &c);
	return *isnull ? (Datum) 0 : c.result;
}
