/*
 * fitness_api.c -- method "fitness" of dpm.strategy / dpm.optimize, and
 * dpm_internal.fitness(w, options), which also returns the covariance and basis.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "funcapi.h"

#include "api/array.h"
#include "api/fitness_api.h"
#include "api/options.h"

static const char *const basis_choices[] = {"auto", "identity", "upper", "workload", NULL};

Mat *
api_fitness_from_options(const Mat *w, Jsonb *options, FitnessRun *run)
{
	static const char *const keys[] = {"targets", "basis", "lambda", "max_iter", "mu", "tol",
	"newton_tol", "cg_iters", NULL};
	FitnessOptions opts;
	Mat		   *l;
	int			nc;
	double	   *c;

	options_check_keys(options, keys, "method fitness");
	c = options_get_numbers(options, "targets", &nc);
	if (c == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("method fitness needs variance targets"),
				 errhint("Give options {\"targets\": v} (every query), an array with one variance per query, or one per block of the workload spec.")));
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
	for (int j = 0; j < nc; j++)
		if (!(c[j] > 0) || !isfinite(c[j]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("variance targets must be positive and finite, target %d is %g", j + 1, c[j])));
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
	opts.max_iter = options_get_int(options, "max_iter", 1000, 1, 10000000);
	opts.mu = options_get_float(options, "mu", 5.0, 1.01, 1000.0);
	opts.tol = options_get_float(options, "tol", 1e-5, 1e-12, 1.0);
	opts.newton_tol = options_get_float(options, "newton_tol", 1e-10, 1e-16, 1.0);
	opts.lambda = options_get_float(options, "lambda", 0.0, 0.0, 1e12);
	opts.cg_iters = options_get_int(options, "cg_iters", 200, 1, 100000);

	fitness_basis(w, (FitnessBasis) options_get_choice(options, "basis", basis_choices, 0),
				  &run->b, &l);
	run->sigma = fitness_optimize(run->b, l, c, &opts, &run->rep);
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
