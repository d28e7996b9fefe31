/*
 * hdmm_api.c -- dpm_internal.hdmm(spec, domain, options): HDMM strategies for a
 * workload spec over a multi-attribute domain, optimized from the factors of
 * its Gram matrix (never an n x n matrix over the cells), and
 * dpm_internal.hdmm_matrix(sizes, strategy): the same strategy as a dense matrix, for checking
 * the implicit computations on small domains.
 *
 * A strategy is (kind, sizes, p, theta, weights): kind 'kronecker' has one
 * p-Identity factor per attribute, theta holding each p_a x n_a matrix
 * column-major, one after the other; kind 'marginals' has weights[b] on the
 * marginal keeping the attributes whose bits are set in b (bit a for
 * attribute a).
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "api/args.h"
#include "convert/measurements.h"
#include "api/pure_api.h"
#include "api/options.h"
#include "api/workload_api.h"
#include "strategy/hdmm/hdmm.h"
#include "strategy/dense/gram_strategies.h"
#include "strategy/strategy.h"
#include "mechanism/mechanism.h"


/* theta[a], p_a x n_a, for each attribute: p = max(1, n_a / divisor), or p_fixed if >= 0 */
static Mat **
kron_start(const KronGram *kg, int p_fixed, int divisor)
{
	Mat		  **theta = palloc(sizeof(Mat *) * Max(kg->nattrs, 1));

	for (int a = 0; a < kg->nattrs; a++)
	{
		int			n = kg->sizes[a];

		theta[a] = mat_new(p_fixed >= 0 ? p_fixed : Max(1, n / divisor), n);
		pidentity_random(theta[a]);
	}
	return theta;
}

static Datum
int_array(const int *v, int count)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(count, 1));

	for (int i = 0; i < count; i++)
		d[i] = Int32GetDatum(v[i]);
	return PointerGetDatum(construct_array(d, count, INT4OID, 4, true, TYPALIGN_INT));
}

/*
 * (kind, objective, evaluations, sizes, p, theta, weights); objective is the
 * total squared error per unit of noise variance and of squared sensitivity
 * (L1 for Laplace, the default; L2 with option noise = gaussian).
 * Parameterization 0 is auto, 1 kronecker, 2 marginals.
 */
PG_FUNCTION_INFO_V1(dpm_hdmm);
Datum
dpm_hdmm(PG_FUNCTION_ARGS)
{
	char	   *spec = text_to_cstring(PG_GETARG_TEXT_PP(0));
	Jsonb	   *options = PG_GETARG_JSONB_P(SPEC_ARGS);
	StrategyOptions opts;
	WorkloadDomain dom;
	KronGram   *kg;
	int			kind,
				l2,
				p_fixed,
				max_iter,
				rounds,
				d;
	Mat		  **best_theta = NULL;
	double	   *weights = NULL;
	bool		factors = false;
	double		best = HUGE_VAL;
	int			evaluations = 0;
	TupleDesc	tupdesc;
	Datum		values[7];
	bool		nulls[7] = {false};
	int		   *p;
	int			total = 0;
	double	   *flat;

	api_domain_arg(fcinfo, &dom);
	/* the options of method hdmm over a spec, as the registry describes them (strategy/methods.c) */
	api_method_options(strategy_method("hdmm"), options, true, &opts);
	kind = opts.parameterization;
	p_fixed = opts.p;
	max_iter = opts.max_iter;
	rounds = opts.rounds;
	/* the error the strategy is optimized for: L1 sensitivity (Laplace) or L2 (Gaussian) */
	l2 = opts.noise == 0;
	kg = workload_kron_gram(&dom, workload_parse(&dom, spec));
	d = kg->nattrs;

	if (kind == 2 && !marginals_applies(kg))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the marginals parameterization needs a workload of marginals"),
				 errdetail("Every term must be Identity or Total on each attribute, over at most 12 attributes."),
				 errhint("Use the kronecker parameterization.")));
	if (kind != 2 && l2)
	{
		/* Gaussian: gaussian_optimal factors, combined by the Kronecker product */
		Mat		  **a = palloc(sizeof(Mat *) * Max(d, 1));

		if (p_fixed >= 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option p applies to Laplace (p-Identity) strategies only")));
		kron_optimize_l2(kg, a, rounds, &best, &evaluations);
		best_theta = a;
		factors = true;
	}
	else if (kind != 2)
	{
		/*
		 * p from the option, or the best of a few sizes (HDMM's p ~ n/16
		 * among them) while every attribute has at most 256 values.  Past
		 * that a start takes seconds to minutes (an evaluation is p n^2,
		 * and L-BFGS-B runs to its stall), and n/16 alone is below the best
		 * of three seeds of HDMM's reference on AllRange and Prefix at 1024
		 * and 2048 cells (bench/hdmm_pidentity.sh), in a fraction of the time.
		 */
		static const int divisors[] = {16, 32, 8};
		int			sizes = lengthof(divisors);

		for (int a = 0; a < d; a++)
			if (kg->sizes[a] > 256)
				sizes = 1;
		for (int i = 0; i < (p_fixed >= 0 ? 1 : sizes); i++)
		{
			Mat		  **theta = kron_start(kg, p_fixed, divisors[i]);
			double		f;
			int			evals;

			kron_optimize(kg, theta, max_iter, rounds, &f, &evals);
			evaluations += evals;
			if (f < best)
			{
				best = f;
				best_theta = theta;
			}
		}
	}
	if (kind == 2 || (kind == 0 && marginals_applies(kg)))
	{
		double		f;
		int			evals;
		double	   *w = marginals_optimize(kg, l2, max_iter, &f, &evals);

		evaluations += evals;
		if (f < best)
		{
			best = f;
			weights = w;
			best_theta = NULL;
			factors = false;
		}
	}

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	p = palloc(sizeof(int) * Max(d, 1));
	for (int a = 0; a < d; a++)
	{
		p[a] = best_theta ? best_theta[a]->rows : 0;
		total += p[a] * kg->sizes[a];
	}
	flat = palloc(sizeof(double) * Max(total, 1));
	total = 0;
	for (int a = 0; best_theta && a < d; a++)
	{
		memcpy(flat + total, best_theta[a]->data, sizeof(double) * p[a] * kg->sizes[a]);
		total += p[a] * kg->sizes[a];
	}
	values[0] = CStringGetTextDatum(weights ? "marginals" : factors ? "factors" : "kronecker");
	values[1] = Float8GetDatum(best);
	values[2] = Int32GetDatum(evaluations);
	values[3] = int_array(kg->sizes, d);
	values[4] = int_array(p, d);
	values[5] = PointerGetDatum(array_from_vec(flat, total));
	if (weights)
		values[6] = PointerGetDatum(array_from_vec(weights, 1 << d));
	else
		nulls[6] = true;
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}

/*
 * The strategy given as (kind, p, theta, weights) at arguments off..off+3,
 * for d attributes of the given sizes, checked.
 */
static HdmmStrategy *
strategy_from_args(FunctionCallInfo fcinfo, int off, int *sizes, int d)
{
	HdmmStrategy *s = palloc0(sizeof(HdmmStrategy));
	char	   *kind;
	ArrayType  *p_arr;
	int		   *p;

	for (int i = off; i < off + 3; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("the strategy's kind, p and theta must not be NULL")));
	kind = text_to_cstring(PG_GETARG_TEXT_PP(off));
	p_arr = PG_GETARG_ARRAYTYPE_P(off + 1);
	if (ARR_NDIM(p_arr) != 1 || ARR_HASNULL(p_arr) || ARR_DIMS(p_arr)[0] != d)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("p must have one value per attribute (%d)", d)));
	p = (int *) ARR_DATA_PTR(p_arr);
	s->nattrs = d;
	s->sizes = sizes;
	if (strcmp(kind, "kronecker") == 0)
	{
		int			ntheta = 0,
					used = 0;
		double	   *theta = NULL;
		int64		needed = 0;

		for (int a = 0; a < d; a++)
			needed += (int64) Max(p[a], 0) * sizes[a];
		/* with p = 0 everywhere (the identity) theta is empty, which array_to_vec refuses */
		if (needed > 0 || ArrayGetNItems(ARR_NDIM(PG_GETARG_ARRAYTYPE_P(off + 2)),
										 ARR_DIMS(PG_GETARG_ARRAYTYPE_P(off + 2))) > 0)
			theta = array_to_vec(PG_GETARG_ARRAYTYPE_P(off + 2), "theta", &ntheta);

		s->kind = HDMM_KRONECKER;
		s->factors = palloc(sizeof(Mat *) * Max(d, 1));
		for (int a = 0; a < d; a++)
		{
			Mat			t;

			if (sizes[a] < 1 || p[a] < 0 || used + (int64) p[a] * sizes[a] > ntheta)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("theta does not hold the factors that the sizes and p describe")));
			t.rows = p[a];
			t.cols = sizes[a];
			t.data = theta + used;
			for (int i = 0; i < p[a] * sizes[a]; i++)
				if (t.data[i] < 0)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("theta must be nonnegative")));
			used += p[a] * sizes[a];
			s->factors[a] = pidentity_strategy(&t);
		}
		if (used != ntheta)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("theta has %d values, the sizes and p describe %d", ntheta, used)));
	}
	else if (strcmp(kind, "factors") == 0)
	{
		int			ntheta,
					used = 0;
		double	   *theta = array_to_vec(PG_GETARG_ARRAYTYPE_P(off + 2), "theta", &ntheta);

		s->kind = HDMM_KRONECKER;
		s->factors = palloc(sizeof(Mat *) * Max(d, 1));
		for (int a = 0; a < d; a++)
		{
			if (sizes[a] < 1 || p[a] < 1 || used + (int64) p[a] * sizes[a] > ntheta)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("theta does not hold the factors that the sizes and p describe")));
			s->factors[a] = mat_new(p[a], sizes[a]);
			memcpy(s->factors[a]->data, theta + used, sizeof(double) * p[a] * sizes[a]);
			used += p[a] * sizes[a];
		}
		if (used != ntheta)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("theta has %d values, the sizes and p describe %d", ntheta, used)));
	}
	else if (strcmp(kind, "marginals") == 0)
	{
		int			nw;

		if (PG_ARGISNULL(off + 3))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("a marginals strategy needs its weights")));
		s->kind = HDMM_MARGINALS;
		s->weights = array_to_vec(PG_GETARG_ARRAYTYPE_P(off + 3), "weights", &nw);
		if (d > 12 || nw != 1 << d)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("weights must have 2^d values for d attributes (at most 12)")));
	}
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown HDMM strategy kind \"%s\"", kind),
				 errhint("Kinds: kronecker, factors, marginals.")));
	/* every use sees the matrix that is measured (sampler.c, section 0) */
	hdmm_quantize(s);
	return s;
}

/* the attribute sizes at argument arg: a one-dimensional int[] without NULLs */
static ArrayType *
sizes_arg(FunctionCallInfo fcinfo, int arg)
{
	ArrayType  *sizes_arr = PG_GETARG_ARRAYTYPE_P(arg);

	if (ARR_NDIM(sizes_arr) != 1 || ARR_HASNULL(sizes_arr))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sizes must be a one-dimensional array without NULLs")));
	return sizes_arr;
}

/* dpm_internal.hdmm_matrix(sizes, kind, p, theta, weights): the strategy as a dense matrix */
PG_FUNCTION_INFO_V1(dpm_hdmm_matrix);
Datum
dpm_hdmm_matrix(PG_FUNCTION_ARGS)
{
	ArrayType  *sizes_arr;
	int			d;
	HdmmStrategy *s;
	double		n = 1.0;
	Mat		   *a,
			   *id;
	double	   *col;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	sizes_arr = sizes_arg(fcinfo, 0);
	d = ARR_DIMS(sizes_arr)[0];
	s = strategy_from_args(fcinfo, 1, (int *) ARR_DATA_PTR(sizes_arr), d);
	for (int i = 0; i < d; i++)
		n *= s->sizes[i];
	/* dpm_internal.hdmm_sensitivity: the same arguments and the norm */
	if (PG_NARGS() > 5 && !PG_ARGISNULL(5))
		PG_RETURN_DATUM(Float8GetDatum(hdmm_sensitivity(s, PG_GETARG_INT32(5) == 1 ? 1 : 2)));
	mat_check_size(hdmm_rows(s), n, "strategy matrix");
	/* column j of A is A e_j */
	a = mat_new((int) hdmm_rows(s), (int) n);
	id = mat_identity((int) n);
	for (int j = 0; j < (int) n; j++)
	{
		CHECK_FOR_INTERRUPTS();
		col = hdmm_measure(s, &MAT(id, 0, j));
		memcpy(&MAT(a, 0, j), col, sizeof(double) * a->rows);
		pfree(col);
	}
	PG_RETURN_ARRAYTYPE_P(array_from_mat(a));
}

/*
 * dpm_internal.hdmm_group_factor(sizes, kind, p, theta, weights, groups,
 * norm): mechanism/groups.h's factor for this strategy over attributes of
 * these sizes, a unit in at most groups cells, in the L1 (norm 1) or L2 norm.
 */
PG_FUNCTION_INFO_V1(dpm_hdmm_group_factor);
Datum
dpm_hdmm_group_factor(PG_FUNCTION_ARGS)
{
	ArrayType  *sizes_arr = sizes_arg(fcinfo, 0);
	int			d = ARR_DIMS(sizes_arr)[0];

	if (PG_ARGISNULL(5) || PG_ARGISNULL(6))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("groups and norm must not be NULL")));
	PG_RETURN_FLOAT8(hdmm_group_factor(strategy_from_args(fcinfo, 1, (int *) ARR_DATA_PTR(sizes_arr), d),
									   PG_GETARG_INT32(5), PG_GETARG_INT32(6)));
}

/* the workload of arguments 0..5 with its factors and blocks */
typedef struct ImplicitWorkload
{
	WorkloadDomain dom;
	KronGram   *kg;
	WorkloadBlock ***blocks;
	double		m;
} ImplicitWorkload;

static void
workload_from_args(FunctionCallInfo fcinfo, ImplicitWorkload *w)
{
	char	   *spec;
	List	   *terms;

	for (int i = 0; i < SPEC_ARGS; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("the workload spec and its domain must not be NULL")));
	spec = text_to_cstring(PG_GETARG_TEXT_PP(0));
	api_domain_arg(fcinfo, &w->dom);
	terms = workload_parse(&w->dom, spec);
	w->kg = workload_kron_gram(&w->dom, terms);
	w->blocks = workload_blocks(w->kg, terms, &w->m);
	mat_check_size(w->m, 1, "workload answers");
}

/* x must have one count per cell of the domain */
static void
check_cells(int n, const int *sizes, int d)
{
	double		cells = 1.0;

	for (int a = 0; a < d; a++)
		cells *= sizes[a];
	if (n != cells)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("x has %d values but the domain has %.0f cells", n, cells)));
}

/* dpm_internal.hdmm_profile(spec, domain, strategy): w (A^T A)^+ w^T per query */
PG_FUNCTION_INFO_V1(dpm_hdmm_profile);
Datum
dpm_hdmm_profile(PG_FUNCTION_ARGS)
{
	ImplicitWorkload w;
	HdmmStrategy *s;

	workload_from_args(fcinfo, &w);
	s = strategy_from_args(fcinfo, SPEC_ARGS, w.kg->sizes, w.kg->nattrs);
	PG_RETURN_ARRAYTYPE_P(array_from_vec(hdmm_profile(hdmm_inverse(s), w.kg, w.blocks, w.m), (int) w.m));
}

/* dpm_internal.hdmm_reconstruct(spec, domain, strategy, y): W A^+ y */
PG_FUNCTION_INFO_V1(dpm_hdmm_reconstruct);
Datum
dpm_hdmm_reconstruct(PG_FUNCTION_ARGS)
{
	ImplicitWorkload w;
	HdmmStrategy *s;
	double	   *y,
			   *x;
	int			ny;

	workload_from_args(fcinfo, &w);
	s = strategy_from_args(fcinfo, SPEC_ARGS, w.kg->sizes, w.kg->nattrs);
	if (PG_ARGISNULL(SPEC_ARGS + 4))
		PG_RETURN_NULL();
	y = array_to_vec(PG_GETARG_ARRAYTYPE_P(SPEC_ARGS + 4), "y", &ny);
	if (ny != hdmm_rows(s))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("y has %d values, the strategy has %.0f rows", ny, hdmm_rows(s))));
	x = hdmm_solve(hdmm_inverse(s), y);
	PG_RETURN_ARRAYTYPE_P(array_from_vec(hdmm_workload_apply(w.kg, w.blocks, w.m, x), (int) w.m));
}

/*
 * The arguments of hdmm_mechanism and hdmm_measure: workload spec and domain,
 * strategy, the data vector x (one count per cell) at SPEC_ARGS + 4, and the
 * privacy arguments after it.
 */
static HdmmStrategy *
mechanism_args(FunctionCallInfo fcinfo, ImplicitWorkload *w, double **x, double *epsilon, double *delta,
			   double *scale, double *rho)
{
	HdmmStrategy *s;
	int			n;

	if (PG_ARGISNULL(SPEC_ARGS + 4))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("x must not be NULL")));
	api_privacy_args(fcinfo, SPEC_ARGS + 5, epsilon, delta, scale, rho);
	workload_from_args(fcinfo, w);
	s = strategy_from_args(fcinfo, SPEC_ARGS, w->kg->sizes, w->kg->nattrs);
	*x = array_to_vec(PG_GETARG_ARRAYTYPE_P(SPEC_ARGS + 4), "x", &n);
	check_cells(n, w->kg->sizes, w->kg->nattrs);
	return s;
}

/*
 * dpm_internal.hdmm_mechanism(spec, domain, strategy, x, epsilon, delta,
 * sensitivity_scale, rho): dpm.mechanism with an HDMM strategy.
 */
PG_FUNCTION_INFO_V1(dpm_hdmm_mechanism);
Datum
dpm_hdmm_mechanism(PG_FUNCTION_ARGS)
{
	ImplicitWorkload w;
	HdmmStrategy *s;
	double	   *x;
	double		epsilon,
				delta,
				scale,
				rho;
	Release    *rel;

	s = mechanism_args(fcinfo, &w, &x, &epsilon, &delta, &scale, &rho);
	rel = hdmm_mechanism_run(s, w.kg, w.blocks, w.m, x, epsilon, delta, rho, scale, api_inference_arg(fcinfo, SPEC_ARGS + 9),
							 api_confidence_arg(fcinfo, SPEC_ARGS + 10));
	return api_release_rows(fcinfo, rel);
}

/*
 * dpm_internal.hdmm_measure(spec, domain, strategy, x, epsilon, delta,
 * sensitivity_scale, rho) and dpm_internal.hdmm_infer(spec, domain,
 * strategy, measurements, inference, confidence): dpm_internal.hdmm_mechanism in
 * two steps, a release's noisy measurements and the answers from them.
 */
PG_FUNCTION_INFO_V1(dpm_hdmm_measure);
Datum
dpm_hdmm_measure(PG_FUNCTION_ARGS)
{
	ImplicitWorkload w;
	HdmmStrategy *s;
	double	   *x;
	double		epsilon,
				delta,
				scale,
				rho;

	s = mechanism_args(fcinfo, &w, &x, &epsilon, &delta, &scale, &rho);
	return convert_measurements_datum(fcinfo, hdmm_mechanism_measure(s, x, epsilon, delta, rho, scale));
}

PG_FUNCTION_INFO_V1(dpm_hdmm_infer);
Datum
dpm_hdmm_infer(PG_FUNCTION_ARGS)
{
	ImplicitWorkload w;
	HdmmStrategy *s;

	workload_from_args(fcinfo, &w);
	s = strategy_from_args(fcinfo, SPEC_ARGS, w.kg->sizes, w.kg->nattrs);
	return api_release_rows(fcinfo, hdmm_mechanism_infer(s, w.kg, w.blocks, w.m, convert_measurements_arg(fcinfo, SPEC_ARGS + 4),
														 api_inference_arg(fcinfo, SPEC_ARGS + 5),
														 api_confidence_arg(fcinfo, SPEC_ARGS + 6)));
}

/*
 * dpm_internal.hdmm_exact_matvec(sizes, kind, p, theta, weights, x, grid_exp):
 * internal, for tests.  dpm_internal.exact_matvec for an HDMM strategy: its exact
 * answers on x before noise, in units of the grid 2^grid_exp, and the
 * sensitivity bounds (L1, L2) the mechanism calibrates for.
 */
PG_FUNCTION_INFO_V1(dpm_hdmm_exact_matvec);
Datum
dpm_hdmm_exact_matvec(PG_FUNCTION_ARGS)
{
	ArrayType  *sizes_arr;
	HdmmStrategy *s;
	double	   *x;
	int			n;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(5) || PG_ARGISNULL(6))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("sizes, x and grid_exp must not be NULL")));
	sizes_arr = sizes_arg(fcinfo, 0);
	s = strategy_from_args(fcinfo, 1, (int *) ARR_DATA_PTR(sizes_arr), ARR_DIMS(sizes_arr)[0]);
	x = array_to_vec(PG_GETARG_ARRAYTYPE_P(5), "x", &n);
	check_cells(n, s->sizes, s->nattrs);
	PG_RETURN_DATUM(api_exact_answers_row(fcinfo, hdmm_measure_exact(s, exact_counts(x, n)), PG_GETARG_INT32(6),
									  hdmm_sensitivity_bound(s, 1), hdmm_sensitivity_bound(s, 2)));
}

/* dpm_internal.spec_matvec(spec, domain, x): W x from the spec's blocks, without W */
PG_FUNCTION_INFO_V1(dpm_spec_matvec);
Datum
dpm_spec_matvec(PG_FUNCTION_ARGS)
{
	ImplicitWorkload w;
	double	   *x;
	int			n;

	workload_from_args(fcinfo, &w);
	if (PG_ARGISNULL(SPEC_ARGS))
		PG_RETURN_NULL();
	x = array_to_vec(PG_GETARG_ARRAYTYPE_P(SPEC_ARGS), "x", &n);
	check_cells(n, w.kg->sizes, w.kg->nattrs);
	PG_RETURN_ARRAYTYPE_P(array_from_vec(hdmm_workload_apply(w.kg, w.blocks, w.m, x), (int) w.m));
}

/* dpm_internal.hdmm_rows(sizes, strategy): its number of measurements */
PG_FUNCTION_INFO_V1(dpm_hdmm_rows);
Datum
dpm_hdmm_rows(PG_FUNCTION_ARGS)
{
	ArrayType  *sizes_arr;
	HdmmStrategy *s;
	double		rows;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	sizes_arr = sizes_arg(fcinfo, 0);
	s = strategy_from_args(fcinfo, 1, (int *) ARR_DATA_PTR(sizes_arr), ARR_DIMS(sizes_arr)[0]);
	rows = hdmm_rows(s);
	if (rows > INT_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the strategy has %.0f measurements, too many", rows)));
	PG_RETURN_INT32((int) rows);
}

/*
 * dpm_internal.spec_svd_bound(spec, domain): the SVD bound without W: from the
 * factors where the structure allows, else from the dense Gram matrix when
 * it fits in dpm.max_matrix_mb, else NULL.
 */
PG_FUNCTION_INFO_V1(dpm_spec_svd_bound);
Datum
dpm_spec_svd_bound(PG_FUNCTION_ARGS)
{
	WorkloadDomain dom;
	List	   *terms;
	KronGram   *kg;
	double		bound;

	for (int i = 0; i < SPEC_ARGS; i++)
		if (PG_ARGISNULL(i))
			PG_RETURN_NULL();
	api_domain_arg(fcinfo, &dom);
	terms = workload_parse(&dom, text_to_cstring(PG_GETARG_TEXT_PP(0)));
	kg = workload_kron_gram(&dom, terms);
	bound = kron_svd_bound(kg);
	if (isnan(bound))
	{
		int			nonzero;

		/* W^T W over every cell, where it fits; else a lower bound from the terms alone */
		if ((double) dom.cells * dom.cells * sizeof(double) > (double) dpm_max_matrix_mb * 1024 * 1024)
			bound = kron_svd_lower_bound(kg, dom.cells);
		else
			bound = strategy_svd_bound(workload_gram(&dom, terms), &nonzero);
	}
	PG_RETURN_FLOAT8(bound);
}
