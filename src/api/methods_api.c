/*
 * methods_api.c -- the registry of strategy methods (strategy/methods.c) as
 * SQL sees it: dpm.strategy_methods, and the decisions of method auto and
 * dpm.compare_strategies (which methods, in which order, which not and why),
 * so that sql/19_optimize.sql names no method.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "strategy/strategy.h"

static const StrategyMethod *
method_arg(FunctionCallInfo fcinfo, int i)
{
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(i));
	const StrategyMethod *m = strategy_method(name);

	if (m == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown strategy method \"%s\"", name),
				 errhint("Valid methods: %s.", strategy_method_names())));
	return m;
}

/*
 * dpm.strategy_methods(): the registry, in the order method auto tries the
 * methods: (method, in_auto, applies_to, options, memory_per_n2).
 */
PG_FUNCTION_INFO_V1(dpm_strategy_methods);
Datum
dpm_strategy_methods(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const StrategyMethod *m;

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; (m = strategy_method_at(i)) != NULL; i++)
	{
		static const char *const applies[] = {
			[METHOD_ALWAYS] = "every workload",
			[METHOD_IF_LOW_RANK] = "workloads of low rank (1.2 rank(W) < n)",
			[METHOD_IF_SPEC] = "workloads given as a spec",
			[METHOD_IF_MARGINALS] = "workloads given as a spec, even over a wide domain",
			[METHOD_ON_REQUEST] = NULL
		};
		Datum		values[5];
		bool		nulls[5] = {false, false, false, false, false};
		Datum		keys[lengthof(m->options)];
		int			nkeys = 0;

		for (const MethodOption *o = m->options; o->key; o++)
			keys[nkeys++] = CStringGetTextDatum(o->key);
		values[0] = CStringGetTextDatum(m->name);
		values[1] = BoolGetDatum(m->applies != METHOD_ON_REQUEST);
		nulls[2] = applies[m->applies] == NULL;
		values[2] = nulls[2] ? (Datum) 0 : CStringGetTextDatum(applies[m->applies]);
		values[3] = PointerGetDatum(construct_array(keys, nkeys, TEXTOID, -1, false, TYPALIGN_INT));
		values[4] = Float8GetDatum(m->memory_per_n2);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * dpm_internal.method_rules_out(method, n, is_spec, kept_as_spec, queries,
 * rank_w, noise): why a method is not tried on a workload of `queries`
 * queries over n cells (0: a wide domain), given as a spec or not, kept as
 * its spec without W or not, of rank rank_w if known; by method auto under
 * this noise, or (noise NULL) by dpm.compare_strategies.  NULL: it is tried.
 */
PG_FUNCTION_INFO_V1(dpm_method_rules_out);
Datum
dpm_method_rules_out(PG_FUNCTION_ARGS)
{
	const StrategyMethod *m = method_arg(fcinfo, 0);
	int			n = PG_ARGISNULL(1) ? 0 : PG_GETARG_INT32(1);
	double		queries = PG_ARGISNULL(4) ? 0.0 : PG_GETARG_FLOAT8(4);
	int			rank_w = PG_ARGISNULL(5) ? 0 : PG_GETARG_INT32(5);
	const char *why;

	if (PG_ARGISNULL(6))
		why = strategy_rules_out(m, n, PG_GETARG_BOOL(2), PG_GETARG_BOOL(3), queries, rank_w);
	else
		why = strategy_auto_rules_out(m, strcmp(text_to_cstring(PG_GETARG_TEXT_PP(6)), "gaussian") == 0, n,
									  PG_GETARG_BOOL(2), PG_GETARG_BOOL(3), queries, rank_w);
	if (why == NULL)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(why));
}

/*
 * dpm_internal.auto_candidates(method, noise, n): the methods tried for
 * method (auto: the registry's in auto's order under this noise over n
 * cells, NULL for a wide domain; any other: itself).
 */
PG_FUNCTION_INFO_V1(dpm_auto_candidates);
Datum
dpm_auto_candidates(PG_FUNCTION_ARGS)
{
	char	   *method = text_to_cstring(PG_GETARG_TEXT_PP(0));
	const StrategyMethod *order[64];
	Datum		names[lengthof(order)];
	int			count;

	if (strcmp(method, "auto") != 0)
	{
		names[0] = PG_GETARG_DATUM(0);
		count = 1;
	}
	else
	{
		count = strategy_auto_order(strcmp(text_to_cstring(PG_GETARG_TEXT_PP(1)), "gaussian") == 0,
									PG_ARGISNULL(2) ? 0 : PG_GETARG_INT32(2), order);
		Assert(count <= (int) lengthof(order));
		for (int i = 0; i < count; i++)
			names[i] = CStringGetTextDatum(order[i]->name);
	}
	PG_RETURN_ARRAYTYPE_P(construct_array(names, count, TEXTOID, -1, false, TYPALIGN_INT));
}

/*
 * dpm_internal.method_traits(method): whether its build finds its own lower
 * bound (auto need not compute the workload's for it), whether its strategy
 * has rank(W) rows, whether its lower_bound bounds every strategy's error.
 */
PG_FUNCTION_INFO_V1(dpm_method_traits);
Datum
dpm_method_traits(PG_FUNCTION_ARGS)
{
	const StrategyMethod *m = method_arg(fcinfo, 0);
	TupleDesc	tupdesc;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = BoolGetDatum(m->spec_build == SPEC_BUILDS_RESIDUAL);
	values[1] = BoolGetDatum(m->rows_are_rank);
	values[2] = BoolGetDatum(m->certifies);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}

/*
 * dpm_internal.has_targets(method, options): is a strategy of this method
 * and options built to meet variance targets (fitness; residual with option
 * targets), which then decide its charge?  false for auto; options NULL:
 * none.
 */
PG_FUNCTION_INFO_V1(dpm_has_targets);
Datum
dpm_has_targets(PG_FUNCTION_ARGS)
{
	const StrategyMethod *m;
	Jsonb	   *options;
	JsonbValue	key;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	m = strategy_method(text_to_cstring(PG_GETARG_TEXT_PP(0)));
	if (m == NULL)
		PG_RETURN_BOOL(false);
	if (PG_ARGISNULL(1))
		PG_RETURN_BOOL(strategy_has_targets(m, false));
	options = PG_GETARG_JSONB_P(1);
	key.type = jbvString;
	key.val.string.val = "targets";
	key.val.string.len = strlen("targets");
	PG_RETURN_BOOL(strategy_has_targets(m, JB_ROOT_IS_OBJECT(options) &&
										findJsonbValueFromContainer(&options->root, JB_FOBJECT, &key) != NULL));
}
