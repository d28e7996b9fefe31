/*
 * pure_api.c -- SQL entry points of the pure functions: sensitivity, error,
 * error profile, reconstruction, Gaussian calibration, and the mechanism on
 * a caller-supplied vector.  Argument checks and conversion only.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"

#include "api/args.h"
#include "convert/matrix_cache.h"
#include "convert/measurements.h"
#include "api/pure_api.h"
#include "inference/isotonic.h"
#include "inference/ratio.h"
#include "privacy/args.h"
#include "mechanism/calibrate.h"
#include "mechanism/error.h"
#include "mechanism/exact.h"
#include "mechanism/groups.h"
#include "mechanism/mechanism.h"
#include "mechanism/sampler.h"

static int
norm_arg(text *t)
{
	char	   *s = text_to_cstring(t);

	if (pg_strcasecmp(s, "l1") == 0)
		return 1;
	if (pg_strcasecmp(s, "l2") == 0)
		return 2;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown norm \"%s\"", s),
			 errhint("Use 'l1' (Laplace mechanism) or 'l2' (Gaussian mechanism).")));
	return 0;
}

static void
check_same_cells(const Mat *w, const Mat *a)
{
	if (w->cols != a->cols)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("workload has %d columns but strategy has %d", w->cols, a->cols),
				 errhint("Both matrices need one column per cell of the same domain.")));
}

PG_FUNCTION_INFO_V1(dpm_sensitivity);
Datum
dpm_sensitivity(PG_FUNCTION_ARGS)
{
	Mat		   *a = array_to_mat(PG_GETARG_ARRAYTYPE_P(0), "a");

	PG_RETURN_FLOAT8(mat_max_col_norm(a, norm_arg(PG_GETARG_TEXT_PP(1))));
}

PG_FUNCTION_INFO_V1(dpm_error_profile);
Datum
dpm_error_profile(PG_FUNCTION_ARGS)
{
	Mat		   *a = array_to_mat(PG_GETARG_ARRAYTYPE_P(0), "a");
	Svd		   *svd;
	Mat		   *vs;

	mat_check_size(a->cols, a->cols, "error profile");
	svd = mat_svd(a, false);
	/* (A^T A)^+ = (V_r S_r^-1)(V_r S_r^-1)^T */
	vs = mat_new(a->cols, svd->rank);
	for (int k = 0; k < svd->rank; k++)
		for (int j = 0; j < a->cols; j++)
			MAT(vs, j, k) = MAT(svd->v, j, k) / svd->s[k];
	PG_RETURN_ARRAYTYPE_P(array_from_mat(mat_mul(vs, false, vs, true)));
}

PG_FUNCTION_INFO_V1(dpm_gaussian_sigma);
Datum
dpm_gaussian_sigma(PG_FUNCTION_ARGS)
{
	double		epsilon = PG_GETARG_FLOAT8(0);
	double		delta = PG_GETARG_FLOAT8(1);
	double		sens = PG_GETARG_FLOAT8(2);

	api_check_epsilon_delta(epsilon, delta);
	if (delta == 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the Gaussian mechanism needs delta > 0")));
	if (!(sens > 0) || !isfinite(sens))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sensitivity must be a positive finite number, got %g", sens)));
	PG_RETURN_FLOAT8(calibrate_gaussian_sigma(epsilon, delta, sens));
}

static void
check_positive(double v, const char *what)
{
	if (!(v > 0) || !isfinite(v))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a positive finite number, got %g", what, v)));
}

/* dpm.gaussian_epsilon(delta, sigma, sensitivity): Corollary 1 solved for epsilon */
PG_FUNCTION_INFO_V1(dpm_gaussian_epsilon);
Datum
dpm_gaussian_epsilon(PG_FUNCTION_ARGS)
{
	double		delta = PG_GETARG_FLOAT8(0);

	privacy_check_delta(delta, PRIVACY_CONVERSION);
	check_positive(PG_GETARG_FLOAT8(1), "sigma");
	check_positive(PG_GETARG_FLOAT8(2), "sensitivity");
	PG_RETURN_FLOAT8(calibrate_gaussian_epsilon(delta, PG_GETARG_FLOAT8(1), PG_GETARG_FLOAT8(2)));
}

/* dpm.gaussian_delta(epsilon, sigma, sensitivity): Corollary 1 */
PG_FUNCTION_INFO_V1(dpm_gaussian_delta);
Datum
dpm_gaussian_delta(PG_FUNCTION_ARGS)
{
	double		epsilon = PG_GETARG_FLOAT8(0);

	if (!(epsilon >= 0) || !isfinite(epsilon))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon must be a non-negative finite number, got %g", epsilon)));
	check_positive(PG_GETARG_FLOAT8(1), "sigma");
	check_positive(PG_GETARG_FLOAT8(2), "sensitivity");
	PG_RETURN_FLOAT8(fmax(calibrate_gaussian_delta(epsilon, PG_GETARG_FLOAT8(1), PG_GETARG_FLOAT8(2)), 0.0));
}

/* dpm_internal.gaussian_actual_sd(m, sensitivity, sigma): what the sampler adds for sigma */
PG_FUNCTION_INFO_V1(dpm_gaussian_actual_sd_sql);
Datum
dpm_gaussian_actual_sd_sql(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(dpm_gaussian_actual_sd(PG_GETARG_INT32(0), PG_GETARG_FLOAT8(1), PG_GETARG_FLOAT8(2)));
}

/* dpm_internal.column_norms(a): the L2 norm of each column (the privacy profile of unit noise on a) */
PG_FUNCTION_INFO_V1(dpm_column_norms);
Datum
dpm_column_norms(PG_FUNCTION_ARGS)
{
	Mat		   *a = array_to_mat(PG_GETARG_ARRAYTYPE_P(0), "a");
	double	   *norms = palloc0(sizeof(double) * Max(a->cols, 1));

	for (int j = 0; j < a->cols; j++)
	{
		for (int i = 0; i < a->rows; i++)
			norms[j] += MAT(a, i, j) * MAT(a, i, j);
		norms[j] = sqrt(norms[j]);
	}
	PG_RETURN_ARRAYTYPE_P(array_from_vec(norms, a->cols));
}

/* per-query variances of w under strategy a; shared by expected_error and total_error */
static double *
query_variances(FunctionCallInfo fcinfo, int *p)
{
	Mat		   *w = array_to_mat(PG_GETARG_ARRAYTYPE_P(0), "w");
	Mat		   *a = array_to_mat(PG_GETARG_ARRAYTYPE_P(1), "a");
	double		epsilon = PG_GETARG_FLOAT8(2);
	double		delta = PG_ARGISNULL(3) ? 0.0 : PG_GETARG_FLOAT8(3);	/* not given: 0 */
	double	   *terms;
	double		var;

	api_check_epsilon_delta(epsilon, delta);
	check_same_cells(w, a);
	terms = mechanism_profile_terms(w, mat_svd(a, false));
	var = mechanism_noise_variance(a, epsilon, delta, 1.0);
	for (int i = 0; i < w->rows; i++)
		terms[i] *= var;
	*p = w->rows;
	return terms;
}

PG_FUNCTION_INFO_V1(dpm_expected_error);
Datum
dpm_expected_error(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			p;
	double	   *v;

	InitMaterializedSRF(fcinfo, 0);
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		return (Datum) 0;		/* no rows, as when it was strict */
	v = query_variances(fcinfo, &p);
	for (int i = 0; i < p; i++)
	{
		Datum		values[2] = {Int32GetDatum(i + 1), Float8GetDatum(v[i])};
		bool		nulls[2] = {false, false};

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(dpm_total_error);
Datum
dpm_total_error(PG_FUNCTION_ARGS)
{
	int			p;
	double	   *v;
	double		total = 0.0;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_NULL();		/* as when it was strict */
	v = query_variances(fcinfo, &p);

	for (int i = 0; i < p; i++)
		total += v[i];
	PG_RETURN_FLOAT8(total);
}

PG_FUNCTION_INFO_V1(dpm_reconstruct);
Datum
dpm_reconstruct(PG_FUNCTION_ARGS)
{
	Mat		   *a = array_to_mat(PG_GETARG_ARRAYTYPE_P(0), "a");
	int			len,
				rank;
	double	   *y = array_to_vec(PG_GETARG_ARRAYTYPE_P(1), "y", &len);
	Inference	inference = api_inference_arg(fcinfo, 2);
	double	   *x;

	if (len != a->rows)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("y has %d values but the strategy has %d rows", len, a->rows)));
	x = mat_lstsq(a, y, &rank);
	if (inference != INFERENCE_LS)
	{
		LinOp		op;

		inference_linop_dense(&op, a);
		inference_apply(inference, &op, y, x);
	}
	PG_RETURN_ARRAYTYPE_P(array_from_vec(x, a->cols));
}

/* w and a (given as A^T) must be over the same cells */
static void
check_strategy_cells(const Mat *w, const Mat *at)
{
	if (w->cols != at->rows)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("workload has %d columns but strategy has %d", w->cols, at->rows),
				 errhint("Both matrices need one column per cell of the same domain.")));
}

/* dpm.mechanism(w, a, x, epsilon, delta, rho, sensitivity_scale, inference, confidence) */
/*
 * Arguments first (A, its row-major array read in place as A^T column-major)
 * and first + 1 (the data vector x) of the mechanism functions, with the
 * privacy arguments after them (public: epsilon, delta, rho, scale; internal:
 * epsilon, delta, scale, rho): no NULL up to x, nor after but epsilon, delta
 * or rho; one value of x per column of A.
 */
static const Mat *
strategy_data_args(FunctionCallInfo fcinfo, int first, bool public_order, double **x, double *epsilon,
				   double *delta, double *scale, double *rho)
{
	const Mat  *at;
	int			n;

	for (int i = 0; i <= first + 1; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("only epsilon, delta or rho may be NULL")));
	if (public_order)
		api_privacy_args_at(fcinfo, first + 2, first + 3, first + 4, first + 5, epsilon, delta, scale, rho);
	else
		api_privacy_args(fcinfo, first + 2, epsilon, delta, scale, rho);
	at = convert_stored_matrix(PG_GETARG_DATUM(first), true, "a");
	*x = array_to_vec(PG_GETARG_ARRAYTYPE_P(first + 1), "x", &n);
	if (n != at->rows)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("x has %d values but the strategy has %d columns", n, at->rows)));
	return at;
}

PG_FUNCTION_INFO_V1(dpm_mechanism);
Datum
dpm_mechanism(PG_FUNCTION_ARGS)
{
	const Mat  *w,
			   *at;
	double	   *x;
	double		epsilon,
				delta,
				scale,
				rho;

	at = strategy_data_args(fcinfo, 1, true, &x, &epsilon, &delta, &scale, &rho);	/* and w not NULL */
	w = convert_stored_matrix(PG_GETARG_DATUM(0), false, "w");
	check_strategy_cells(w, at);
	return api_release_rows(fcinfo, mechanism_run_dense(w, at, NULL, x, epsilon, delta, rho, scale,
														api_inference_arg(fcinfo, 7),
														api_confidence_arg(fcinfo, 8)));
}

/*
 * dpm_internal.dense_measure(a, x, epsilon, delta, sensitivity_scale, rho):
 * a release's noisy measurements through dense strategy a.
 */
PG_FUNCTION_INFO_V1(dpm_dense_measure);
Datum
dpm_dense_measure(PG_FUNCTION_ARGS)
{
	const Mat  *at;
	double	   *x;
	double		epsilon,
				delta,
				scale,
				rho;

	at = strategy_data_args(fcinfo, 0, false, &x, &epsilon, &delta, &scale, &rho);
	return convert_measurements_datum(fcinfo, mechanism_measure_dense(at, x, epsilon, delta, rho, scale));
}

/*
 * dpm_internal.dense_infer(w, a, pinv, profile, measurements, inference,
 * confidence): the answers of workload w from measurements through dense
 * strategy a, with the strategy's cache (dpm_internal.strategy_cache) as
 * stored, or computed here when pinv is NULL.
 */
PG_FUNCTION_INFO_V1(dpm_dense_infer);
Datum
dpm_dense_infer(PG_FUNCTION_ARGS)
{
	const Mat  *w,
			   *at;
	StrategyCache cache,
			   *c = NULL;

	for (int i = 0; i <= 1; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("the workload and the strategy must not be NULL")));
	w = convert_stored_matrix(PG_GETARG_DATUM(0), false, "w");
	at = convert_stored_matrix(PG_GETARG_DATUM(1), true, "a");
	check_strategy_cells(w, at);
	if (!PG_ARGISNULL(2) && !PG_ARGISNULL(3))
	{
		int			p;

		cache.pinv = convert_stored_matrix(PG_GETARG_DATUM(2), true, "pinv");
		cache.profile = array_to_vec(PG_GETARG_ARRAYTYPE_P(3), "profile", &p);
		if (cache.pinv->rows != at->rows || cache.pinv->cols != at->cols || p != w->rows)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the cache does not fit the strategy and workload")));
		c = &cache;
	}
	return api_release_rows(fcinfo, mechanism_infer_dense(w, at, c, convert_measurements_arg(fcinfo, 4),
														  api_inference_arg(fcinfo, 5),
														  api_confidence_arg(fcinfo, 6)));
}

/* dpm_internal.strategy_cache(w, a): what a stored strategy keeps to answer without factoring A */
PG_FUNCTION_INFO_V1(dpm_strategy_cache);
Datum
dpm_strategy_cache(PG_FUNCTION_ARGS)
{
	Mat		   *w = array_to_mat(PG_GETARG_ARRAYTYPE_P(0), "w");
	Mat		   *a = array_to_mat(PG_GETARG_ARRAYTYPE_P(1), "a");
	StrategyCache *c;
	TupleDesc	tupdesc;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	check_same_cells(w, a);
	c = mechanism_strategy_cache(w, a);
	values[0] = PointerGetDatum(array_from_mat_transposed(c->pinv));
	values[1] = PointerGetDatum(array_from_vec(c->profile, w->rows));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}

/* dpm_internal.strategy_profile(w, a): each query's profile term, without the pseudo-inverse */
PG_FUNCTION_INFO_V1(dpm_strategy_profile);
Datum
dpm_strategy_profile(PG_FUNCTION_ARGS)
{
	Mat		   *w = array_to_mat(PG_GETARG_ARRAYTYPE_P(0), "w");
	Mat		   *a = array_to_mat(PG_GETARG_ARRAYTYPE_P(1), "a");

	check_same_cells(w, a);
	PG_RETURN_ARRAYTYPE_P(array_from_vec(mechanism_profile(w, a), w->rows));
}

/* dpm_internal.isotonic(v, w): the non-decreasing sequence nearest v, weights w (NULL: equal) */
PG_FUNCTION_INFO_V1(dpm_isotonic);
Datum
dpm_isotonic(PG_FUNCTION_ARGS)
{
	int			n,
				nw;
	double	   *v,
			   *w = NULL;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	v = array_to_vec(PG_GETARG_ARRAYTYPE_P(0), "v", &n);
	if (!PG_ARGISNULL(1))
	{
		w = array_to_vec(PG_GETARG_ARRAYTYPE_P(1), "w", &nw);
		if (nw != n)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("w has %d values but v has %d", nw, n)));
		for (int i = 0; i < n; i++)
			if (!(w[i] > 0.0))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("weight %d is not positive", i + 1)));
	}
	isotonic_regression(v, w, (size_t) n);
	PG_RETURN_ARRAYTYPE_P(array_from_vec(v, n));
}

/* a float8 argument, NaN for NULL */
static double
float8_or_nan(FunctionCallInfo fcinfo, int i)
{
	return PG_ARGISNULL(i) ? NAN : PG_GETARG_FLOAT8(i);
}

/*
 * dpm_internal.ratio_estimate(s, s_sd, s_half, c, c_sd, c_half, lo, hi,
 * joint): an average from a noisy sum and count (inference/ratio.h): answer,
 * first-order stderr and interval, NULL where there is none.
 */
PG_FUNCTION_INFO_V1(dpm_ratio_estimate);
Datum
dpm_ratio_estimate(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[4];
	bool		nulls[4];
	RatioEstimate e;
	double		lo,
				hi;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE || tupdesc->natts != 4)
		elog(ERROR, "ratio_estimate must return (answer, stderr, ci_low, ci_high)");
	for (int i = 6; i < 9; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("the bounds of an average and its noise kind must not be NULL")));
	lo = PG_GETARG_FLOAT8(6);
	hi = PG_GETARG_FLOAT8(7);
	if (!(isfinite(lo) && isfinite(hi) && lo <= hi))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the bounds of an average must be finite with lo <= hi, got [%g, %g]", lo, hi)));
	for (int i = 0; i < 6; i++)
		if (!PG_ARGISNULL(i) && !(isfinite(PG_GETARG_FLOAT8(i)) && (i == 0 || i == 3 || PG_GETARG_FLOAT8(i) >= 0.0)))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("argument %d of ratio_estimate must be finite%s", i + 1,
							i == 0 || i == 3 ? "" : " and not negative")));
	e = ratio_estimate(float8_or_nan(fcinfo, 0), float8_or_nan(fcinfo, 1), float8_or_nan(fcinfo, 2),
					   float8_or_nan(fcinfo, 3), float8_or_nan(fcinfo, 4), float8_or_nan(fcinfo, 5),
					   lo, hi, PG_GETARG_BOOL(8));
	values[0] = Float8GetDatum(e.answer);
	values[1] = Float8GetDatum(e.stderr_);
	values[2] = Float8GetDatum(e.ci_low);
	values[3] = Float8GetDatum(e.ci_high);
	for (int i = 0; i < 4; i++)
		nulls[i] = isnan(DatumGetFloat8(values[i]));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}

PG_FUNCTION_INFO_V1(dpm_matvec);
Datum
dpm_matvec(PG_FUNCTION_ARGS)
{
	Mat		   *w = array_to_mat(PG_GETARG_ARRAYTYPE_P(0), "w");
	int			n;
	double	   *x = array_to_vec(PG_GETARG_ARRAYTYPE_P(1), "x", &n);
	double	   *y;

	if (n != w->cols)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("x has %d values but the matrix has %d columns", n, w->cols)));
	y = palloc(sizeof(double) * Max(w->rows, 1));
	mat_vec(w, false, x, y);
	PG_RETURN_ARRAYTYPE_P(array_from_vec(y, w->rows));
}

Datum
api_exact_answers_row(FunctionCallInfo fcinfo, const ExactAnswers *v, int e, double l1, double l2)
{
	TupleDesc	tupdesc;
	Datum	   *units = palloc(sizeof(Datum) * Max(v->m, 1));
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	for (int i = 0; i < v->m; i++)
		units[i] = DirectFunctionCall3(numeric_in, CStringGetDatum(exact_grid_units(v, i, e)),
									   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	values[0] = PointerGetDatum(construct_array(units, v->m, NUMERICOID, -1, false, TYPALIGN_INT));
	values[1] = Float8GetDatum(l1);
	values[2] = Float8GetDatum(l2);
	return HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls));
}

/*
 * dpm_internal.exact_matvec(a, x, grid_exp): internal, for tests.  What the
 * mechanism measures before any noise: A x exactly for the quantized a and
 * integer x, rounded to the grid 2^grid_exp (halves up), in grid units; and
 * the sensitivity bounds it would calibrate for (L1, L2).
 */
PG_FUNCTION_INFO_V1(dpm_exact_matvec);
Datum
dpm_exact_matvec(PG_FUNCTION_ARGS)
{
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(0);
	const Mat  *at = array_view_transposed(arr, "a");
	int			n;
	double	   *x = array_to_vec(PG_GETARG_ARRAYTYPE_P(1), "x", &n);
	int64	   *counts;
	ExactAnswers *v;
	double		l1,
				l2;

	if (n != at->rows)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("x has %d values but the matrix has %d columns", n, at->rows)));
	counts = exact_counts(x, n);
	(void) exact_matvec(at, counts, 2, &l2);
	v = exact_matvec(at, counts, 1, &l1);
	PG_RETURN_DATUM(api_exact_answers_row(fcinfo, v, PG_GETARG_INT32(2), l1, l2));
}

/*
 * dpm_internal.dense_group_factor(a, groups, norm): mechanism/groups.h's
 * factor for strategy a as it is measured (quantized, exact.h), a unit in at
 * most groups cells, in the L1 (norm 1) or L2 norm.
 */
PG_FUNCTION_INFO_V1(dpm_dense_group_factor);
Datum
dpm_dense_group_factor(PG_FUNCTION_ARGS)
{
	Mat		   *a = array_to_mat(PG_GETARG_ARRAYTYPE_P(0), "a");

	exact_quantize(a->data, (size_t) a->rows * a->cols);
	PG_RETURN_FLOAT8(groups_dense_factor(a, PG_GETARG_INT32(1), PG_GETARG_INT32(2)));
}
