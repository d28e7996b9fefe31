/*
 * request_api.c -- dpm_internal.check_request(req): the arguments of a
 * request to dpm.answer, dpm.explain or dpm.explain_queries (a
 * dpm_internal.answer_request), checked on their own, in C, before anything
 * reads the catalog.  What depends on the catalog rows they name (the
 * workload, the strategy, the measure, the source's model and periods) is
 * dpm_internal.release_args's, in SQL, which calls this first.
 */
#include "postgres.h"

#include "executor/executor.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/jsonb.h"

#include "privacy/args.h"
#include "strategy/strategy.h"

/* dpm.ci_draws's range (api/module.c) */
#define CI_DRAWS_MIN 100
#define CI_DRAWS_MAX 100000

static bool
field_null(HeapTupleHeader req, const char *name)
{
	bool		isnull;

	(void) GetAttributeByName(req, name, &isnull);
	return isnull;
}

static Datum
field(HeapTupleHeader req, const char *name, bool *isnull)
{
	return GetAttributeByName(req, name, isnull);
}

static char *
text_field(HeapTupleHeader req, const char *name)
{
	bool		isnull;
	Datum		d = field(req, name, &isnull);

	return isnull ? NULL : TextDatumGetCString(d);
}

/* is the jsonb field `name` given and not an empty object? */
static bool
options_given(HeapTupleHeader req, const char *name)
{
	bool		isnull;
	Datum		d = field(req, name, &isnull);
	Jsonb	   *j;

	if (isnull)
		return false;
	j = DatumGetJsonbP(d);
	return !(JB_ROOT_IS_OBJECT(j) && JB_ROOT_COUNT(j) == 0);
}

/*
 * dpm_internal.check_request(req): every argument on its own, in the order a
 * user meets them; returns the aggregate (count without a measure, sum with
 * one, unless given).
 */
PG_FUNCTION_INFO_V1(dpm_check_request);
Datum
dpm_check_request(PG_FUNCTION_ARGS)
{
	HeapTupleHeader req = PG_GETARG_HEAPTUPLEHEADER(0);
	char	   *inference = text_field(req, "inference");
	char	   *aggregate = text_field(req, "aggregate");
	char	   *method = text_field(req, "method");
	bool		has_measure = !field_null(req, "measure");
	bool		isnull;
	Datum		d;

	if (inference != NULL && strcmp(inference, "ls") != 0 && strcmp(inference, "nnls") != 0 &&
		strcmp(inference, "nnls_integer") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown inference \"%s\"", inference),
				 errhint("Valid: ls (least squares), nnls (non-negative least squares), nnls_integer (the same, rounded to integers).")));
	d = field(req, "confidence", &isnull);
	if (!isnull && !(DatumGetFloat8(d) > 0.0 && DatumGetFloat8(d) < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("confidence must be between 0 and 1 (exclusive), got %s",
						float8out_internal(DatumGetFloat8(d))),
				 errhint("Pass NULL for no intervals.")));
	d = field(req, "ci_draws", &isnull);
	if (!isnull && (DatumGetInt32(d) < CI_DRAWS_MIN || DatumGetInt32(d) > CI_DRAWS_MAX))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ci_draws must be between %d and %d, got %d", CI_DRAWS_MIN, CI_DRAWS_MAX,
						DatumGetInt32(d))));
	if (aggregate == NULL)
		aggregate = has_measure ? "sum" : "count";
	if (strcmp(aggregate, "count") != 0 && strcmp(aggregate, "sum") != 0 && strcmp(aggregate, "avg") != 0 &&
		strcmp(aggregate, "units") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown aggregate \"%s\"", aggregate),
				 errhint("Valid: count, units (distinct privacy units), sum (of a measure), avg (of a measure).")));
	if ((strcmp(aggregate, "count") == 0 || strcmp(aggregate, "units") == 0) == has_measure)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 has_measure ? errmsg("aggregate %s counts %s: it takes no measure", aggregate,
									  strcmp(aggregate, "count") == 0 ? "rows" : "privacy units")
				 : errmsg("aggregate %s needs a measure", aggregate),
				 errhint("Measures are listed in dpm.measures.")));
	d = field(req, "sum_share", &isnull);
	if (!isnull && strcmp(aggregate, "avg") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sum_share splits the charge of an average: it needs aggregate avg")));
	if (!isnull && !(DatumGetFloat8(d) > 0.0 && DatumGetFloat8(d) < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sum_share must be between 0 and 1 (exclusive), got %s",
						float8out_internal(DatumGetFloat8(d))),
				 errhint("Pass NULL for the share that minimizes the error of a typical average.")));

	/* the privacy arguments, as every release checks them (delta not given: 0) */
	d = field(req, "epsilon", &isnull);
	if (!isnull)
		privacy_check_epsilon(DatumGetFloat8(d), PRIVACY_RELEASE);
	d = field(req, "delta", &isnull);
	privacy_check_delta(isnull ? 0.0 : DatumGetFloat8(d), PRIVACY_RELEASE);
	d = field(req, "rho", &isnull);
	if (!isnull)
		privacy_check_rho(DatumGetFloat8(d), PRIVACY_RELEASE);

	/* the strategy: one given, or a method (auto when neither), known to the registry */
	if (!field_null(req, "strategy") && method != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("give a strategy or a method, not both")));
	if ((method != NULL ? strcmp(method, "auto") == 0 : field_null(req, "strategy")) &&
		options_given(req, "options"))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("method auto takes no options")));
	if (method != NULL && strcmp(method, "auto") != 0 && strategy_method(method) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown strategy method \"%s\"", method),
				 errhint("Valid: auto, %s.", strategy_method_names())));
	PG_RETURN_TEXT_P(cstring_to_text(aggregate));
}
