/*
 * strategy.c -- choose a strategy builder by method name.
 */
#include "postgres.h"

#include <math.h>

#include "hdmm/hdmm.h"
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
	return a;
}
