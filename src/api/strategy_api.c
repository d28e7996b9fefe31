/*
 * strategy_api.c -- dpm.strategy(w, method, options).
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "api/array.h"
#include "api/options.h"
#include "strategy/strategy.h"

PG_FUNCTION_INFO_V1(dpm_strategy);
Datum
dpm_strategy(PG_FUNCTION_ARGS)
{
	Mat		   *w = array_to_mat(PG_GETARG_ARRAYTYPE_P(0), "w");
	char	   *method = text_to_cstring(PG_GETARG_TEXT_PP(1));
	Jsonb	   *options = PG_GETARG_JSONB_P(2);
	StrategyOptions opts = {0};
	Mat		   *a;

	if (strcmp(method, "hierarchical") == 0)
	{
		static const char *const keys[] = {"branching", NULL};

		options_check_keys(options, keys, "method hierarchical");
		opts.branching = options_get_int(options, "branching", 2, 2, 1 << 20);
	}
	else
	{
		static const char *const none[] = {NULL};

		options_check_keys(options, none, psprintf("method %s", method));
	}

	a = build_strategy(w, method, &opts);
	if (a == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown strategy method \"%s\"", method),
				 errhint("Valid methods: " STRATEGY_METHODS ".")));
	PG_RETURN_ARRAYTYPE_P(mat_to_array(a));
}
