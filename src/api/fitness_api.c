/*
 * fitness_api.c -- dpm._fitness(w, targets, options): the fitness-for-use
 * covariance for workload w with the identity basis (B = I, L = W).
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/jsonb.h"

#include "api/array.h"
#include "api/options.h"
#include "fitness/fitness.h"
#include "mechanism/mechanism.h"

PG_FUNCTION_INFO_V1(dpm_fitness);
Datum
dpm_fitness(PG_FUNCTION_ARGS)
{
	Mat		   *w = array_to_mat(PG_GETARG_ARRAYTYPE_P(0), "w");
	int			nc;
	double	   *c = array_to_vec(PG_GETARG_ARRAYTYPE_P(1), "targets", &nc);
	Jsonb	   *options = PG_GETARG_JSONB_P(2);
	static const char *const keys[] = {"max_iter", "mu", "tol", "newton_tol", "lambda", NULL};
	FitnessOptions opts;
	FitnessReport rep;
	Mat		   *b,
			   *sigma;
	TupleDesc	tupdesc;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	options_check_keys(options, keys, "method fitness");
	opts.max_iter = options_get_int(options, "max_iter", 500, 1, 10000000);
	opts.mu = options_get_float(options, "mu", 5.0, 1.01, 1000.0);
	opts.tol = options_get_float(options, "tol", 1e-5, 1e-12, 1.0);
	opts.newton_tol = options_get_float(options, "newton_tol", 1e-10, 1e-16, 1.0);
	opts.lambda = options_get_float(options, "lambda", 0.0, 0.0, 1e12);
	if (nc == 1)
	{
		/* one target for every query */
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
		if (!(c[j] > 0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("variance targets must be positive, target %d is %g", j + 1, c[j])));
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
	b = mat_identity(w->cols);
	sigma = fitness_optimize(b, w, c, &opts, &rep);
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = PointerGetDatum(mat_to_array(sigma));
	values[1] = Float8GetDatum(sqrt(rep.cost2));
	values[2] = Int32GetDatum(rep.iterations);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}

/*
 * dpm._fitness_mechanism(w, sigma, x, epsilon, delta, sensitivity_scale,
 * rho): W (x + N(0, s^2 Sigma)), s calibrated to the privacy asked for.
 */
PG_FUNCTION_INFO_V1(dpm_fitness_mechanism);
Datum
dpm_fitness_mechanism(PG_FUNCTION_ARGS)
{
	Mat		   *w,
			   *sigma,
			   *b;
	double	   *x;
	int			n;
	double		epsilon,
				delta,
				scale,
				rho;
	Release    *rel;

	for (int i = 0; i < 3; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("only epsilon or rho may be NULL")));
	privacy_args(fcinfo, 3, &epsilon, &delta, &scale, &rho);
	if (rho == 0.0 && delta == 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("fitness for use adds Gaussian noise: give delta > 0 or rho")));
	w = array_to_mat(PG_GETARG_ARRAYTYPE_P(0), "w");
	sigma = array_to_mat(PG_GETARG_ARRAYTYPE_P(1), "sigma");
	x = array_to_vec(PG_GETARG_ARRAYTYPE_P(2), "x", &n);
	if (sigma->rows != w->cols || sigma->cols != w->cols || n != w->cols)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sigma must be %d x %d and x must have %d values, one per cell",
						w->cols, w->cols, w->cols)));
	for (int j = 0; j < n; j++)
		for (int i = 0; i < j; i++)
			if (MAT(sigma, i, j) != MAT(sigma, j, i))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("sigma must be symmetric")));
	b = mat_identity(n);
	rel = fitness_mechanism(b, w, sigma, x, epsilon, delta, rho, scale);
	return release_rows(fcinfo, rel);
}
