/*
 * strategy.c -- choose a strategy builder by method name.
 */
#include "postgres.h"

#include <math.h>

#include "mechanism/exact.h"
#include "strategy/strategy.h"

static Mat *
fixed_strategy(const Mat *w, const char *method, const StrategyOptions *opts)
{
	if (strcmp(method, "identity") == 0)
		return strategy_identity(w->cols);
	if (strcmp(method, "workload") == 0)
		return mat_copy(w);
	if (strcmp(method, "hierarchical") == 0)
		return strategy_hierarchical(w->cols, opts->branching);
	if (strcmp(method, "wavelet") == 0)
		return strategy_wavelet(w->cols);
	return NULL;
}

/* dpm.max_memory_mb: refuse an optimization whose estimated peak memory is larger */
int			dpm_max_memory_mb = 4096;

/*
 * Peak working memory of each method over n cells, in doubles per n^2,
 * beyond the workload itself (2 m n doubles: the array and its copy) and
 * about 8 MB of the backend's own.
 * Measured as the backend's peak resident set over dpm.strategy on
 * AllRange's n x n Gram root at n = 1024 and 2048 (bench/memory.sh), rounded
 * up; lrm at rank n (its default rank is at most 1.2 rank(W)), and
 * min_sensitivity from its buffers (its sweeps are O(n^3) each, so it is
 * not run at these sizes).  README "Memory" gives the same table.
 */
static const struct
{
	const char *method;
	double		per_n2;
}			method_memory[] =
{
	{"identity", 4}, {"workload", 4}, {"wavelet", 4}, {"hierarchical", 6},
	{"eigen", 8}, {"gaussian_optimal", 10}, {"eigen_design", 12}, {"lrm", 24},
	{"hdmm", 18}, {"min_sensitivity", 12}, {NULL, 0}
};

/* c of the estimate c n^2 + 2 m n doubles for a method */
static double
method_per_n2(const char *method)
{
	for (int i = 0; method_memory[i].method; i++)
		if (strcmp(method_memory[i].method, method) == 0)
			return method_memory[i].per_n2;
	return 20;					/* unknown methods: the largest, rounded up */
}

double
strategy_memory_mb(const char *method, double m, double n)
{
	/* plus what a backend's own structures grow by during the call */
	return (method_per_n2(method) * n * n + 2.0 * m * n) * sizeof(double) / (1024.0 * 1024.0) + 8.0;
}

void
check_strategy_memory(const char *method, int m, int n)
{
	double		mb = strategy_memory_mb(method, m, n);

	if (mb > dpm_max_memory_mb)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("method %s on %d cells would need about %.0f MB, above dpm.max_memory_mb (%d MB)",
						method, n, ceil(mb), dpm_max_memory_mb),
				 errdetail("Its peak memory is about %g n^2 + 2 m n doubles for n cells and m queries, plus 8 MB.",
						   method_per_n2(method)),
				 errhint("A superuser can raise dpm.max_memory_mb; hierarchical and wavelet need the least, and hdmm over a spec workload never builds an n x n matrix.")));
}

Mat *
build_strategy(const Mat *w, const char *method, const StrategyOptions *opts, OptReport *rep)
{
	Mat		   *a = fixed_strategy(w, method, opts);

	rep->iterations = 0;
	rep->objective = NAN;
	rep->lower_bound = NAN;
	if (a == NULL && strcmp(method, "min_sensitivity") == 0)
	{
		StrategyOptions base_opts = *opts;
		Mat		   *base;

		base_opts.augment = 0;
		if (strcmp(opts->base, "min_sensitivity") == 0 ||
			(base = build_strategy(w, opts->base, &base_opts, rep)) == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("\"%s\" is not a base method for min_sensitivity", opts->base)));
		a = strategy_min_sensitivity(base, opts->max_sweeps, rep);
	}
	else if (a == NULL && strcmp(method, "hdmm") == 0)
	{
		Mat		   *g = mat_gram(w);
		Mat		   *theta = mat_new(opts->p, w->cols);

		pidentity_random(theta);
		pidentity_optimize(g, theta, opts->max_iter, &rep->objective, &rep->iterations);

		a = pidentity_strategy(theta);
		mat_free(theta);
		mat_free(g);
	}
	else if (a == NULL)
	{
		Mat		   *g;

		if (strcmp(method, "eigen") != 0 && strcmp(method, "eigen_design") != 0 &&
			strcmp(method, "gaussian_optimal") != 0 && strcmp(method, "lrm") != 0)
			return NULL;
		g = mat_gram(w);
		if (strcmp(method, "eigen") == 0)
			a = strategy_eigen(g, rep);
		else if (strcmp(method, "eigen_design") == 0)
			a = strategy_eigen_design(g, opts->tol, opts->max_iter, rep);
		else if (strcmp(method, "lrm") == 0)
			a = strategy_lrm(g, opts->rank, opts->gamma, opts->max_iter, rep);
		else
			a = strategy_gaussian_optimal(g, opts->tol, opts->max_iter, rep);
		mat_free(g);
	}
	if (opts->augment)
		a = strategy_augment(a, opts->augment);
	/* stored as it will be measured: on the exact mechanism's grid (mechanism/exact.h) */
	if (a != NULL)
		exact_quantize(a->data, (size_t) a->rows * a->cols);
	return a;
}
