/*
 * fitness_api.c -- method "fitness" of dpm.strategy / dpm.optimize, and
 * dpm_internal.fitness(w, options), which also returns the covariance and basis.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "funcapi.h"

#include "api/args.h"
#include "api/fitness_api.h"
#include "api/options.h"
#include "strategy/strategy.h"

double *
api_fitness_targets(Jsonb *options, int *count)
{
	double	   *c = options_get_targets(options, "targets", count);

	if (c == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("method fitness needs variance targets"),
				 errhint("Give options {\"targets\": v} (every query), an array with one variance per query, or one per block of the workload spec.")));
	return c;
}

Mat *
api_fitness_from_options(const Mat *w, Jsonb *options, FitnessRun *run)
{
	StrategyOptions opts;
	Mat		   *l;
	int			nc;
	double	   *c;

	/* its options as the registry describes them (strategy/methods.c) */
	api_method_options(strategy_method("fitness"), options, false, &opts);
	c = api_fitness_targets(options, &nc);
	if (nc == 1)
	{
		double		t = c[0];

		c = palloc(sizeof(double) * w->rows);
		for (int j = 0; j < w->rows; j++)
			c[j] = t;
		nc = w->rows;
	}
	if (nc != w->rows)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("targets must have one value, or one per query (%d), not %d", w->rows, nc)));
	for (int j = 0; j < w->rows; j++)
	{
		bool		zero = true;

		for (int i = 0; i < w->cols && zero; i++)
			zero = MAT(w, j, i) == 0.0;
		if (zero)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("workload query %d is all zeros", j + 1),
					 errhint("Drop it: its answer is 0 without noise.")));
	}
	fitness_basis(w, (FitnessBasis) opts.basis, &run->b, &l);
	run->sigma = fitness_optimize(run->b, l, c, &opts.fitness, &run->rep);
	return fitness_strategy(run->b, run->sigma);
}

/* (sigma, basis, strategy, privacy_cost, iterations) */
PG_FUNCTION_INFO_V1(dpm_fitness);
Datum
dpm_fitness(PG_FUNCTION_ARGS)
{
	Mat		   *w = array_to_mat(PG_GETARG_ARRAYTYPE_P(0), "w");
	FitnessRun	run;
	Mat		   *a = api_fitness_from_options(w, PG_GETARG_JSONB_P(1), &run);
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5] = {false, false, false, false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = PointerGetDatum(array_from_mat(run.sigma));
	values[1] = PointerGetDatum(array_from_mat(run.b));
	values[2] = PointerGetDatum(array_from_mat(a));
	values[3] = Float8GetDatum(sqrt(run.rep.cost2));
	values[4] = Int32GetDatum(run.rep.iterations);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}
