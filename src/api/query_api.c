/*
 * query_api.c -- dpm_internal.compile_query(sql): an analyst's SELECT as the
 * SQL front door will map it to the matrix mechanism (query/compile.c).
 * Runs as its caller: analysis may evaluate the input functions of the
 * statement's constants.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"

#include "query/compile.h"

PG_FUNCTION_INFO_V1(dpm_compile_query);
Datum
dpm_compile_query(PG_FUNCTION_ARGS)
{
	char	   *json = query_compile(text_to_cstring(PG_GETARG_TEXT_PP(0)));

	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(json)));
}
