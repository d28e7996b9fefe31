/*
 * options.c -- validated access to jsonb options, so a misspelt option is an
 * error rather than silently ignored.
 */
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "api/options.h"
#include "strategy/strategy.h"

void
options_check_keys(Jsonb *options, const char *const *allowed, const char *context)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	int			depth = 0;

	if (!JB_ROOT_IS_OBJECT(options))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("options must be a JSON object")));
	it = JsonbIteratorInit(&options->root);
	while ((tok = JsonbIteratorNext(&it, &v, false)) != WJB_DONE)
	{
		if (tok == WJB_BEGIN_OBJECT || tok == WJB_BEGIN_ARRAY)
			depth++;
		else if (tok == WJB_END_OBJECT || tok == WJB_END_ARRAY)
			depth--;
		else if (tok == WJB_KEY && depth == 1)
		{
			char	   *key = pnstrdup(v.val.string.val, v.val.string.len);
			bool		ok = false;
			StringInfoData names;

			for (const char *const *a = allowed; *a; a++)
				ok = ok || strcmp(key, *a) == 0;
			if (ok)
				continue;
			initStringInfo(&names);
			for (const char *const *a = allowed; *a; a++)
				appendStringInfo(&names, "%s%s", a == allowed ? "" : ", ", *a);
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown option \"%s\" for %s", key, context),
					 names.len > 0 ? errhint("Valid options: %s.", names.data)
					 : errhint("This method takes no options.")));
		}
	}
}

/* a number option as a double; false when absent */
static bool
option_number(Jsonb *options, const char *key, double *d)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&options->root, key, strlen(key), NULL);

	if (v == NULL)
		return false;
	if (v->type != jbvNumeric)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"%s\" must be a number", key)));
	*d = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(v->val.numeric)));
	return true;
}

int
options_get_int(Jsonb *options, const char *key, int dflt, int min, int max)
{
	double		d;

	if (!option_number(options, key, &d))
		return dflt;
	if (d != floor(d) || d < min || d > max)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"%s\" must be an integer between %d and %d, got %g", key, min, max, d)));
	return (int) d;
}

double
options_get_float(Jsonb *options, const char *key, double dflt, double min, double max)
{
	double		d;

	if (!option_number(options, key, &d))
		return dflt;
	if (!(d >= min && d <= max))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"%s\" must be between %g and %g, got %g", key, min, max, d)));
	return d;
}

int
options_get_choice(Jsonb *options, const char *key, const char *const *choices, int dflt)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&options->root, key, strlen(key), NULL);
	StringInfoData all;

	if (v == NULL)
		return dflt;
	if (v->type == jbvString)
		for (int i = 0; choices[i]; i++)
			if (strlen(choices[i]) == (size_t) v->val.string.len &&
				strncmp(choices[i], v->val.string.val, v->val.string.len) == 0)
				return i;
	initStringInfo(&all);
	for (int i = 0; choices[i]; i++)
		appendStringInfo(&all, "%s\"%s\"", i ? ", " : "", choices[i]);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("option \"%s\" must be one of %s", key, all.data)));
	return dflt;				/* not reached */
}

const char *
options_get_text(Jsonb *options, const char *key, const char *dflt)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&options->root, key, strlen(key), NULL);

	if (v == NULL)
		return dflt;
	if (v->type != jbvString)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"%s\" must be a string", key)));
	return pnstrdup(v->val.string.val, v->val.string.len);
}

double *
options_get_numbers(Jsonb *options, const char *key, int *count)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&options->root, key, strlen(key), NULL);
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;
	double	   *out;
	int			n = 0;

	*count = 0;
	if (v == NULL)
		return NULL;
	if (v->type == jbvNumeric)
	{
		out = palloc(sizeof(double));
		out[0] = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(v->val.numeric)));
		*count = 1;
		return out;
	}
	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data) ||
		JsonContainerSize(v->val.binary.data) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"%s\" must be a number or a non-empty array of numbers", key)));
	out = palloc(sizeof(double) * JsonContainerSize(v->val.binary.data));
	it = JsonbIteratorInit(v->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		if (tok != WJB_ELEM)
			continue;
		if (e.type != jbvNumeric)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"%s\" must be a number or a non-empty array of numbers", key)));
		out[n++] = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(e.val.numeric)));
	}
	*count = n;
	return out;
}

double *
options_get_targets(Jsonb *options, const char *key, int *count)
{
	double	   *c = options_get_numbers(options, key, count);

	for (int j = 0; j < *count; j++)
		if (!(c[j] > 0) || !isfinite(c[j]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("variance targets must be positive and finite, target %d is %g", j + 1, c[j])));
	return c;
}

/*
 * Method m's options from the jsonb, checked (names and values) and read as
 * the registry (strategy/methods.c) describes them, for a workload given as
 * a spec (is_spec: hdmm and identity are then built from the spec, with
 * options of their own) or as a matrix.  Every family reads its options
 * here, and dpm_internal.check_method_options checks a request's options
 * here before anything runs.
 */
void
api_method_options(const StrategyMethod *m, Jsonb *options, bool is_spec, StrategyOptions *opts)
{
	const char *keys[lengthof(m->options)];
	int			nkeys = 0;

	for (const MethodOption *o = m->options; o->key; o++)
		if (strategy_option_applies(o, is_spec))
			keys[nkeys++] = o->key;
	keys[nkeys] = NULL;
	options_check_keys(options, keys, psprintf("method %s", m->name));
	strategy_default_options(m, opts);
	for (const MethodOption *o = m->options; o->key; o++)
	{
		char	   *field = (char *) opts + o->offset;

		if (!strategy_option_applies(o, is_spec))
			continue;
		if (o->kind == OPTION_INT)
			*(int *) field = options_get_int(options, o->key, (int) o->dflt, (int) o->min, (int) o->max);
		else if (o->kind == OPTION_FLOAT)
			*(double *) field = options_get_float(options, o->key, o->dflt, o->min, o->max);
		else if (o->kind == OPTION_CHOICE)
			*(int *) field = options_get_choice(options, o->key, o->choices, (int) o->dflt);
		else if (o->kind == OPTION_TARGETS)
		{
			int			count;

			(void) options_get_targets(options, o->key, &count);
		}
		else if (o->kind == OPTION_METHOD)
		{
			/* another dense method, built with its defaults */
			const StrategyMethod *other;

			*(const char **) field = options_get_text(options, o->key, o->text_dflt);
			other = strategy_method(*(const char **) field);
			if (other == NULL || other->build == NULL || other == m)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("\"%s\" is not a base method for %s", *(const char **) field, m->name)));
		}
	}
	strategy_resolve_augment(m, opts);
}
