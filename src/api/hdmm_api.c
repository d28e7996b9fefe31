/*
 * hdmm_api.c -- dpm._hdmm(spec, domain..., options): HDMM strategies for a
 * workload spec over a multi-attribute domain, optimized from the factors of
 * its Gram matrix (never an n x n matrix over the cells), and
 * dpm._hdmm_matrix(...): the same strategy as a dense matrix, for checking
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
#include "utils/array.h"
#include "utils/builtins.h"

#include "api/array.h"
#include "api/options.h"
#include "api/workload_api.h"
#include "hdmm/hdmm.h"

static const char *const parameterizations[] = {"auto", "kronecker", "marginals", NULL};

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
 * total squared error at Laplace variance 1 (sensitivity 1 x variance 1).
 */
PG_FUNCTION_INFO_V1(dpm_hdmm);
Datum
dpm_hdmm(PG_FUNCTION_ARGS)
{
	char	   *spec = text_to_cstring(PG_GETARG_TEXT_PP(0));
	Jsonb	   *options = PG_GETARG_JSONB_P(6);
	static const char *const keys[] = {"parameterization", "p", "max_iter", "rounds", NULL};
	WorkloadDomain dom;
	KronGram   *kg;
	int			kind,
				p_fixed,
				max_iter,
				rounds,
				d;
	Mat		  **best_theta = NULL;
	double	   *weights = NULL;
	double		best = HUGE_VAL;
	int			evaluations = 0;
	TupleDesc	tupdesc;
	Datum		values[7];
	bool		nulls[7] = {false};
	int		   *p;
	int			total = 0;
	double	   *flat;

	domain_from_args(fcinfo, &dom);
	options_check_keys(options, keys, "method hdmm");
	kind = options_get_choice(options, "parameterization", parameterizations, 0);
	p_fixed = options_get_int(options, "p", -1, 0, 100000);
	max_iter = options_get_int(options, "max_iter", 15000, 1, 10000000);
	rounds = options_get_int(options, "rounds", 20, 1, 10000);
	kg = workload_kron_gram(&dom, workload_parse(&dom, spec));
	d = kg->nattrs;

	if (kind == 2 && !marginals_applies(kg))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the marginals parameterization needs a workload of marginals"),
				 errdetail("Every term must be Identity or Total on each attribute, over at most 12 attributes."),
				 errhint("Use the kronecker parameterization.")));
	if (kind != 2)
	{
		/* p from the option, or the best of a few sizes (HDMM's p ~ n/16 among them) */
		static const int divisors[] = {32, 16, 8};

		for (int i = 0; i < (p_fixed >= 0 ? 1 : lengthof(divisors)); i++)
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
		double	   *w = marginals_optimize(kg, max_iter, &f, &evals);

		evaluations += evals;
		if (f < best)
		{
			best = f;
			weights = w;
			best_theta = NULL;
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
	values[0] = CStringGetTextDatum(weights ? "marginals" : "kronecker");
	values[1] = Float8GetDatum(best);
	values[2] = Int32GetDatum(evaluations);
	values[3] = int_array(kg->sizes, d);
	values[4] = int_array(p, d);
	values[5] = PointerGetDatum(vec_to_array(flat, total));
	if (weights)
		values[6] = PointerGetDatum(vec_to_array(weights, 1 << d));
	else
		nulls[6] = true;
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}

/* the strategy as a dense matrix over the cells (last attribute fastest) */
PG_FUNCTION_INFO_V1(dpm_hdmm_matrix);
Datum
dpm_hdmm_matrix(PG_FUNCTION_ARGS)
{
	text	   *kind;
	ArrayType  *sizes_arr,
			   *p_arr;
	double	   *theta;
	int			ntheta,
				d;
	int		   *sizes,
			   *p;
	Mat		   *a = NULL;

	for (int i = 0; i < 4; i++)
		if (PG_ARGISNULL(i))
			PG_RETURN_NULL();
	kind = PG_GETARG_TEXT_PP(0);
	sizes_arr = PG_GETARG_ARRAYTYPE_P(1);
	p_arr = PG_GETARG_ARRAYTYPE_P(2);
	d = ArrayGetNItems(ARR_NDIM(sizes_arr), ARR_DIMS(sizes_arr));
	sizes = (int *) ARR_DATA_PTR(sizes_arr);
	p = (int *) ARR_DATA_PTR(p_arr);
	if (strcmp(text_to_cstring(kind), "kronecker") != 0 && PG_ARGISNULL(4))
		PG_RETURN_NULL();
	if (ARR_HASNULL(sizes_arr) || ARR_HASNULL(p_arr) ||
		ArrayGetNItems(ARR_NDIM(p_arr), ARR_DIMS(p_arr)) != d)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sizes and p must have one value per attribute")));
	if (strcmp(text_to_cstring(kind), "kronecker") == 0)
	{
		int			off = 0;

		theta = array_to_vec(PG_GETARG_ARRAYTYPE_P(3), "theta", &ntheta);
		for (int i = 0; i < d; i++)
		{
			Mat			t;
			Mat		   *f,
					   *next;

			if (sizes[i] < 1 || p[i] < 0 || off + (int64) p[i] * sizes[i] > ntheta)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("theta does not hold the factors that sizes and p describe")));
			t.rows = p[i];
			t.cols = sizes[i];
			t.data = theta + off;
			off += p[i] * sizes[i];
			f = pidentity_strategy(&t);
			if (a == NULL)
				a = f;
			else
			{
				next = mat_kron(a, f);
				mat_free(a);
				mat_free(f);
				a = next;
			}
		}
	}
	else
	{
		int			nw;
		double	   *w = array_to_vec(PG_GETARG_ARRAYTYPE_P(4), "weights", &nw);
		double		cells = 1.0,
					rows = 0.0;
		int			r = 0;

		if (d > 12 || nw != 1 << d)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("weights must have 2^d values for d attributes")));
		for (int i = 0; i < d; i++)
			cells *= sizes[i];
		for (int b = 0; b < nw; b++)
		{
			double		k = 1.0;

			for (int i = 0; i < d; i++)
				if (b & (1 << i))
					k *= sizes[i];
			rows += w[b] != 0.0 ? k : 0.0;
		}
		mat_check_size(rows, cells, "marginals strategy");
		a = mat_new((int) rows, (int) cells);
		for (int b = 0; b < nw; b++)
		{
			Mat		   *m = NULL;

			if (w[b] == 0.0)
				continue;
			for (int i = 0; i < d; i++)
			{
				Mat		   *f,
						   *next;

				if (b & (1 << i))
					f = mat_identity(sizes[i]);
				else
				{
					f = mat_new(1, sizes[i]);
					for (int j = 0; j < sizes[i]; j++)
						f->data[j] = 1.0;
				}
				if (m == NULL)
					m = f;
				else
				{
					next = mat_kron(m, f);
					mat_free(m);
					mat_free(f);
					m = next;
				}
			}
			for (int j = 0; j < m->cols; j++)
				for (int i = 0; i < m->rows; i++)
					MAT(a, r + i, j) = w[b] * MAT(m, i, j);
			r += m->rows;
			mat_free(m);
		}
	}
	PG_RETURN_ARRAYTYPE_P(mat_to_array(a));
}
