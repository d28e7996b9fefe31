/*
 * strategy_api.c -- dpm.strategy(w, method, options), dpm_internal.strategy_report
 * (the same with the optimizer's report, for dpm.optimize) and
 * dpm.svd_bound(w, epsilon, delta).
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "api/array.h"
#include "api/fitness_api.h"
#include "api/options.h"
#include "mechanism/calibrate.h"
#include "mechanism/exact.h"
#include "strategy/strategy.h"

static const char *const augment_choices[] = {"none", "l1", "l2", NULL};

/*
 * Entries of a computed strategy below 1e-100 in magnitude become zeros.
 * Matrices entering dpmatrix may not hold such values (array.c), and a
 * strategy enters again as soon as it is stored (dpm.optimize computes its
 * sensitivity and cache from the array); entries that small are rounding
 * residue far below anything that moves an answer or an error.
 */
static Mat *
flush_tiny(Mat *a)
{
	for (size_t i = 0; i < (size_t) a->rows * a->cols; i++)
		if (fabs(a->data[i]) < 1e-100)
			a->data[i] = 0.0;
	return a;
}

static Mat *
strategy_from_args(FunctionCallInfo fcinfo, OptReport *rep)
{
	Mat		   *w = array_to_mat(PG_GETARG_ARRAYTYPE_P(0), "w");
	char	   *method = text_to_cstring(PG_GETARG_TEXT_PP(1));
	Jsonb	   *options = PG_GETARG_JSONB_P(2);
	bool		iterative = strcmp(method, "eigen_design") == 0 ||
		strcmp(method, "gaussian_optimal") == 0;
	StrategyOptions opts = {0};
	Mat		   *a;

	if (strcmp(method, "fitness") == 0)
	{
		FitnessRun	run;

		a = fitness_from_options(w, options, &run);
		/* stored as it will be measured, as build_strategy stores the others */
		exact_quantize(a->data, (size_t) a->rows * a->cols);
		rep->iterations = run.rep.iterations;
		rep->objective = run.rep.cost2;
		rep->lower_bound = NAN;
		return flush_tiny(a);
	}
	if (strcmp(method, "hierarchical") == 0)
	{
		static const char *const keys[] = {"branching", "augment", NULL};

		options_check_keys(options, keys, "method hierarchical");
		opts.branching = options_get_int(options, "branching", 2, 2, 1 << 20);
	}
	else if (strcmp(method, "min_sensitivity") == 0)
	{
		static const char *const keys[] = {"base", "branching", "max_sweeps", "augment", NULL};

		options_check_keys(options, keys, "method min_sensitivity");
		opts.base = options_get_text(options, "base", "hierarchical");
		opts.branching = options_get_int(options, "branching", 2, 2, 1 << 20);
		opts.max_sweeps = options_get_int(options, "max_sweeps", 50, 1, 100000);
		opts.tol = 1e-6;
		opts.max_iter = 10000;
	}
	else if (strcmp(method, "lrm") == 0)
	{
		static const char *const keys[] = {"rank", "gamma", "max_iter", "augment", NULL};

		options_check_keys(options, keys, "method lrm");
		opts.rank = options_get_int(options, "rank", 0, 0, 1000000);
		opts.gamma = options_get_float(options, "gamma", 1e-4, 1e-12, 1.0);
		opts.max_iter = options_get_int(options, "max_iter", 1000, 1, 10000000);
	}
	else if (strcmp(method, "hdmm") == 0)
	{
		static const char *const keys[] = {"p", "max_iter", "augment", NULL};
		int			n = ARR_NDIM(PG_GETARG_ARRAYTYPE_P(0)) == 2 ? ARR_DIMS(PG_GETARG_ARRAYTYPE_P(0))[1] : 1;

		options_check_keys(options, keys, "method hdmm");
		opts.p = options_get_int(options, "p", Max(1, n / 16), 0, 100000);
		opts.max_iter = options_get_int(options, "max_iter", 200, 1, 10000000);
	}
	else if (iterative)
	{
		static const char *const keys[] = {"tol", "max_iter", "augment", NULL};

		options_check_keys(options, keys, psprintf("method %s", method));
		opts.tol = options_get_float(options, "tol", 1e-6, 1e-12, 1.0);
		opts.max_iter = options_get_int(options, "max_iter", 10000, 1, 10000000);
	}
	else
	{
		static const char *const keys[] = {"augment", NULL};

		options_check_keys(options, keys, psprintf("method %s", method));
	}
	/* eigen_design is completed in L2 by default, as its design assumes (section 5.3) */
	opts.augment = options_get_choice(options, "augment", augment_choices,
									  strcmp(method, "eigen_design") == 0 ? 2 : 0);

	check_strategy_memory(method, w->rows, w->cols);
	a = build_strategy(w, method, &opts, rep);
	if (a == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown strategy method \"%s\"", method),
				 errhint("Valid methods: " STRATEGY_METHODS ".")));
	return flush_tiny(a);
}

PG_FUNCTION_INFO_V1(dpm_strategy);
Datum
dpm_strategy(PG_FUNCTION_ARGS)
{
	OptReport	rep;

	PG_RETURN_ARRAYTYPE_P(mat_to_array(strategy_from_args(fcinfo, &rep)));
}

/* (matrix, iterations, objective, lower_bound) */
PG_FUNCTION_INFO_V1(dpm_strategy_report);
Datum
dpm_strategy_report(PG_FUNCTION_ARGS)
{
	OptReport	rep;
	Mat		   *a = strategy_from_args(fcinfo, &rep);
	TupleDesc	tupdesc;
	Datum		values[4];
	bool		nulls[4] = {false, false, isnan(rep.objective), isnan(rep.lower_bound)};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = PointerGetDatum(mat_to_array(a));
	values[1] = Int32GetDatum(rep.iterations);
	values[2] = Float8GetDatum(rep.objective);
	values[3] = Float8GetDatum(rep.lower_bound);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}

/*
 * The SVD bound times the noise constant: with epsilon NULL the bound itself
 * ((sum of singular values)^2 / n); with delta > 0 times sigma(epsilon,
 * delta)^2 of the analytic Gaussian mechanism at sensitivity 1; with
 * delta = 0 times the Laplace variance 2 / epsilon^2 (valid, since
 * Delta_1 >= Delta_2, but loose).
 */
PG_FUNCTION_INFO_V1(dpm_svd_bound);
Datum
dpm_svd_bound(PG_FUNCTION_ARGS)
{
	Mat		   *w;
	Mat		   *g;
	int			nonzero;
	double		bound;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("w and delta must not be NULL")));
	w = array_to_mat(PG_GETARG_ARRAYTYPE_P(0), "w");
	g = mat_gram(w);
	bound = svd_bound(g, &nonzero);
	if (!PG_ARGISNULL(1))
	{
		double		epsilon = PG_GETARG_FLOAT8(1);
		double		delta = PG_GETARG_FLOAT8(2);

		check_epsilon_delta(epsilon, delta);
		bound *= delta > 0 ? pow(gaussian_sigma(epsilon, delta, 1.0), 2) : laplace_variance(1.0, epsilon);
	}
	PG_RETURN_FLOAT8(bound);
}

/* dpm.gram_root(g): R with R^T R = g, for a symmetric positive semidefinite g */
PG_FUNCTION_INFO_V1(dpm_gram_root);
Datum
dpm_gram_root(PG_FUNCTION_ARGS)
{
	Mat		   *g = array_to_mat(PG_GETARG_ARRAYTYPE_P(0), "g");
	double		scale = 0.0;
	Mat		   *r;

	if (g->rows != g->cols)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("g must be square, not %d x %d", g->rows, g->cols)));
	for (size_t i = 0; i < (size_t) g->rows * g->cols; i++)
		scale = fmax(scale, fabs(g->data[i]));
	for (int j = 0; j < g->cols; j++)
		for (int i = 0; i < j; i++)
			if (fabs(MAT(g, i, j) - MAT(g, j, i)) > 1e-12 * scale)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("g must be symmetric: entries (%d,%d) and (%d,%d) differ", i + 1, j + 1, j + 1, i + 1)));
	r = gram_root(g);
	/* a negative eigenvalue beyond rounding means g is no Gram matrix */
	{
		Mat		   *back = mat_gram(r);

		for (size_t i = 0; i < (size_t) g->rows * g->cols; i++)
			if (fabs(back->data[i] - g->data[i]) > 1e-9 * Max(scale, 1e-300))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("g must be positive semidefinite")));
	}
	PG_RETURN_ARRAYTYPE_P(mat_to_array(r));
}

/* dpm_internal.strategy_memory_mb(method, m, n): the estimate dpm.max_memory_mb is checked against */
PG_FUNCTION_INFO_V1(dpm_strategy_memory_mb);
Datum
dpm_strategy_memory_mb(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(strategy_memory_mb(text_to_cstring(PG_GETARG_TEXT_PP(0)),
										PG_GETARG_INT32(1), PG_GETARG_INT32(2)));
}
