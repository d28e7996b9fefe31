/*
 * methods.c -- the registry of strategy methods: each method's name, options,
 * builder, peak memory and the workloads it applies to, in one table that
 * dpm.strategy (api/strategy_api.c), dpm.optimize, method auto and
 * dpm.compare_strategies (through dpm.strategy_methods and
 * dpm_internal.method_ruled_out) all read.
 */
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"

#include "mechanism/exact.h"
#include "strategy/strategy.h"

#define OPT(field) offsetof(StrategyOptions, field)

static Mat *
build_identity(const Mat *w, const StrategyOptions *o, OptReport *rep)
{
	return strategy_identity(w->cols);
}

static Mat *
build_workload(const Mat *w, const StrategyOptions *o, OptReport *rep)
{
	return mat_copy(w);
}

static Mat *
build_hierarchical(const Mat *w, const StrategyOptions *o, OptReport *rep)
{
	return strategy_hierarchical(w->cols, o->branching);
}

static Mat *
build_wavelet(const Mat *w, const StrategyOptions *o, OptReport *rep)
{
	return strategy_wavelet(w->cols);
}

static Mat *
build_eigen(const Mat *g, const StrategyOptions *o, OptReport *rep)
{
	return strategy_eigen(g, rep);
}

static Mat *
build_eigen_design(const Mat *g, const StrategyOptions *o, OptReport *rep)
{
	return strategy_eigen_design(g, o->tol, o->max_iter, rep);
}

static Mat *
build_gaussian_optimal(const Mat *g, const StrategyOptions *o, OptReport *rep)
{
	return strategy_gaussian_optimal(g, o->tol, o->max_iter, rep);
}

static Mat *
build_lrm(const Mat *g, const StrategyOptions *o, OptReport *rep)
{
	return strategy_lrm(g, o->rank, o->gamma, o->max_iter, rep);
}

/* the base method's strategy (with its own defaults), rotated to a lower L1 sensitivity */
static Mat *
build_min_sensitivity(const Mat *w, const StrategyOptions *o, OptReport *rep)
{
	const StrategyMethod *base = strategy_method(o->base);	/* checked by api_method_options */
	StrategyOptions base_opts;
	Mat		   *a;
	Mat		   *rotated;

	Assert(base != NULL && base->build != NULL && base->build != build_min_sensitivity);
	strategy_default_options(base, &base_opts);
	base_opts.branching = o->branching;
	base_opts.augment = 0;
	a = strategy_build(w, base, &base_opts, rep);
	rotated = strategy_min_sensitivity(a, o->max_sweeps, rep);
	mat_free(a);
	return rotated;
}

/* HDMM's p-Identity strategy over the dense workload; p defaults to n / 16 */
static Mat *
build_hdmm(const Mat *g, const StrategyOptions *o, OptReport *rep)
{
	Mat		   *theta = mat_new(o->p >= 0 ? o->p : Max(1, g->cols / 16), g->cols);
	Mat		   *a;

	pidentity_random(theta);
	pidentity_optimize(g, theta, o->max_iter, &rep->objective, &rep->iterations);
	a = pidentity_strategy(theta);
	mat_free(theta);
	return a;
}

static const char *const loss_choices[] = {"sum", "max", NULL};
static const char *const augment_choices[] = {"none", "l1", "l2", NULL};
static const char *const noise_choices[] = {"gaussian", "laplace", NULL};
static const char *const parameterization_choices[] = {"auto", "kronecker", "marginals", NULL};
/* in the order of FitnessBasis */
static const char *const basis_choices[] = {"auto", "identity", "upper", "workload", NULL};

/* the options of the convex programs: relative duality gap to reach, iteration cap */
#define TOL_OPTION {"tol", OPTION_FLOAT, 1e-6, 1e-12, 1.0, OPT(tol)}
#define MAX_ITER_OPTION {"max_iter", OPTION_INT, 10000, 1, 10000000, OPT(max_iter)}

/*
 * The options of every dense builder: complete deficient columns (-1: in
 * the norm of the noise if the method's augment is AUGMENT_BY_NOISE, else
 * not at all), and the noise the strategy is for (gaussian by default).
 */
#define AUGMENT_OPTION(scope) {"augment", OPTION_CHOICE, -1, 0, 0, OPT(augment), NULL, augment_choices, scope}
#define NOISE_OPTION(dflt, scope) {"noise", OPTION_CHOICE, dflt, 0, 0, OPT(noise), NULL, noise_choices, scope}
#define DENSE_OPTIONS AUGMENT_OPTION(OPTION_ANYWHERE), NOISE_OPTION(0, OPTION_ANYWHERE)

/*
 * In the order method auto tries them: the cheapest first (at 1024 cells
 * residual and identity take milliseconds, the structured ones and eigen
 * tenths of a second, lrm, gaussian_optimal and hdmm seconds), so that its
 * stop at a certified optimum skips the dearest (sql/19_optimize.sql,
 * choose_strategy; bench/auto.sql).  Peak memory: measured as the
 * backend's peak resident set over dpm.strategy on AllRange's n x n Gram
 * root at n = 1024 and 2048 (bench/memory.sh), rounded up; lrm at rank n
 * (its default rank is at most 1.2 rank(W)), and min_sensitivity from its
 * buffers (its sweeps are O(n^3) each, so it is not run at these sizes).
 * doc/guide/performance-and-settings.md, "Memory", gives the same table.
 */
static const StrategyMethod methods[] = {
	/*
	 * ResidualPlanner (strategy/residual/): Gaussian noise on the residuals of a
	 * marginal workload, optimal for the sum or the largest of the variances
	 * (with other blocks than Identity, the best in the marginal algebra),
	 * or at least privacy cost under per-marginal variance targets; its
	 * memory grows with the marginals, not the cells
	 */
	{"residual", NULL, false, 0, METHOD_IF_MARGINALS, AUGMENT_NONE,
		{{"loss", OPTION_CHOICE, 0, 0, 0, OPT(loss), NULL, loss_choices},
		 {"targets", OPTION_TARGETS},
		 TOL_OPTION, MAX_ITER_OPTION, NOISE_OPTION(0, OPTION_ANYWHERE), {NULL}},
	SPEC_BUILDS_RESIDUAL},
	/* over a spec, a Kronecker product of identities (sql/19_optimize.sql): no options */
	{"identity", build_identity, false, 4, METHOD_ALWAYS, AUGMENT_NONE,
		{AUGMENT_OPTION(OPTION_MATRIX_ONLY), NOISE_OPTION(0, OPTION_MATRIX_ONLY), {NULL}},
	SPEC_BUILDS_IDENTITY},
	{"hierarchical", build_hierarchical, false, 6, METHOD_ALWAYS, AUGMENT_NONE,
		{{"branching", OPTION_INT, 2, 2, 1 << 20, OPT(branching)}, DENSE_OPTIONS, {NULL}}},
	{"wavelet", build_wavelet, false, 4, METHOD_ALWAYS, AUGMENT_NONE, {DENSE_OPTIONS, {NULL}}},
	{"workload", build_workload, false, 4, METHOD_ALWAYS, AUGMENT_NONE, {DENSE_OPTIONS, {NULL}}},
	/* as many rows as the rank of W (matrix-mechanism section 5.2), which auto learns from it */
	{"eigen", build_eigen, true, 8, METHOD_ALWAYS, AUGMENT_NONE, {DENSE_OPTIONS, {NULL}},
	SPEC_BUILDS_MATRIX, true},
	/* completed in the norm of the noise, as its design assumes (matrix-mechanism section 5.3) */
	{"eigen_design", build_eigen_design, true, 12, METHOD_ALWAYS, AUGMENT_BY_NOISE,
		{TOL_OPTION, MAX_ITER_OPTION, DENSE_OPTIONS, {NULL}}},
	/*
	 * Only where it factors W through fewer rows than cells: that is the
	 * low-rank case the mechanism is for, and elsewhere its iterations cost
	 * far more than the other methods'.
	 */
	{"lrm", build_lrm, true, 24, METHOD_IF_LOW_RANK, AUGMENT_NONE,
		{{"rank", OPTION_INT, 0, 0, 1000000, OPT(rank)},
		 {"gamma", OPTION_FLOAT, 1e-4, 1e-12, 1.0, OPT(gamma)},
		 {"max_iter", OPTION_INT, 1000, 1, 10000000, OPT(max_iter)}, DENSE_OPTIONS, {NULL}}},
	/*
	 * Its dual value is a lower bound on every strategy's error (Gaussian
	 * noise), at which auto stops; a program for Gaussian noise alone, which
	 * auto leaves under Laplace noise to be asked for by name.
	 */
	{"gaussian_optimal", build_gaussian_optimal, true, 10, METHOD_ALWAYS, AUGMENT_NONE,
		{TOL_OPTION, MAX_ITER_OPTION, DENSE_OPTIONS, {NULL}},
	SPEC_BUILDS_MATRIX, false, true, true},
	/*
	 * A dense workload is better served by the others; a spec is kept
	 * implicit (api/hdmm_api.c, strategy/hdmm/), for Laplace noise unless told
	 * otherwise.  L-BFGS-B runs until it gains under 1e-4 in 100
	 * iterations (strategy/dense/pidentity.c); max_iter only caps it.
	 */
	{"hdmm", build_hdmm, true, 18, METHOD_IF_SPEC, AUGMENT_NONE,
		{{"p", OPTION_INT, -1, 0, 100000, OPT(p)},
		 {"max_iter", OPTION_INT, 10000, 1, 10000000, OPT(max_iter)},
		 {"parameterization", OPTION_CHOICE, 0, 0, 0, OPT(parameterization), NULL, parameterization_choices,
		 OPTION_SPEC_ONLY},
		 {"rounds", OPTION_INT, 20, 1, 10000, OPT(rounds), NULL, NULL, OPTION_SPEC_ONLY},
		 AUGMENT_OPTION(OPTION_MATRIX_ONLY), NOISE_OPTION(1, OPTION_ANYWHERE), {NULL}},
	SPEC_BUILDS_KRONECKER},
	/*
	 * On request only: its rotation sweeps take seconds from 64 cells up
	 * (O(n^3) each), and on every family of bench/methods.sql it ends at its
	 * base's error, never below the best of the others (bench/RESULTS.md).
	 */
	{"min_sensitivity", build_min_sensitivity, false, 12, METHOD_ON_REQUEST, AUGMENT_NONE,
		{{"base", OPTION_METHOD, 0, 0, 0, OPT(base), "hierarchical"},
		 {"branching", OPTION_INT, 2, 2, 1 << 20, OPT(branching)},
		 {"max_sweeps", OPTION_INT, 50, 1, 100000, OPT(max_sweeps)}, DENSE_OPTIONS, {NULL}}},
	/* built by strategy/fitness/ (api/fitness_api.c) to meet the workload's per-query variance targets */
	{"fitness", NULL, false, 20, METHOD_ON_REQUEST, AUGMENT_NONE,
		{{"targets", OPTION_TARGETS},
		 {"basis", OPTION_CHOICE, FITNESS_BASIS_AUTO, 0, 0, OPT(basis), NULL, basis_choices},
		 {"lambda", OPTION_FLOAT, 0.0, 0.0, 1e12, OPT(fitness.lambda)},
		 {"max_iter", OPTION_INT, 1000, 1, 10000000, OPT(fitness.max_iter)},
		 {"mu", OPTION_FLOAT, 5.0, 1.01, 1000.0, OPT(fitness.mu)},
		 {"tol", OPTION_FLOAT, 1e-5, 1e-12, 1.0, OPT(fitness.tol)},
		 {"newton_tol", OPTION_FLOAT, 1e-10, 1e-16, 1.0, OPT(fitness.newton_tol)},
		 {"cg_iters", OPTION_INT, 200, 1, 100000, OPT(fitness.cg_iters)}, {NULL}},
	SPEC_BUILDS_MATRIX, false, false, false, true},
	{NULL}
};

const StrategyMethod *
strategy_method(const char *name)
{
	for (const StrategyMethod *m = methods; m->name; m++)
		if (strcmp(m->name, name) == 0)
			return m;
	return NULL;
}

const StrategyMethod *
strategy_method_at(int i)
{
	return i >= 0 && i < (int) lengthof(methods) - 1 ? &methods[i] : NULL;
}

char *
strategy_method_names(void)
{
	StringInfoData names;

	initStringInfo(&names);
	for (const StrategyMethod *m = methods; m->name; m++)
		appendStringInfo(&names, "%s%s", m == methods ? "" : ", ", m->name);
	return names.data;
}

bool
strategy_option_applies(const MethodOption *o, bool is_spec)
{
	return o->scope == OPTION_ANYWHERE || (o->scope == OPTION_SPEC_ONLY) == is_spec;
}

void
strategy_default_options(const StrategyMethod *m, StrategyOptions *opts)
{
	memset(opts, 0, sizeof(*opts));
	for (const MethodOption *o = m->options; o->key; o++)
	{
		char	   *field = (char *) opts + o->offset;

		if (o->kind == OPTION_INT || o->kind == OPTION_CHOICE)
			*(int *) field = (int) o->dflt;
		else if (o->kind == OPTION_FLOAT)
			*(double *) field = o->dflt;
		else if (o->kind == OPTION_METHOD)
			*(const char **) field = o->text_dflt;
	}
	strategy_resolve_augment(m, opts);
}

/* augment -1 (not given): the norm of the noise where m's augment follows it, else none */
void
strategy_resolve_augment(const StrategyMethod *m, StrategyOptions *opts)
{
	if (opts->augment < 0)
		opts->augment = m->augment == AUGMENT_BY_NOISE ? (opts->noise == 0 ? 2 : 1) : 0;
}

const char *
strategy_ruled_out(const StrategyMethod *m, int n, bool is_spec, int rank_w)
{
	if (n == 0 && m->applies != METHOD_IF_MARGINALS)
		return "the domain is too wide for a dense cell index";
	switch (m->applies)
	{
		case METHOD_ALWAYS:
			return NULL;
		case METHOD_IF_LOW_RANK:
			return rank_w > 0 && 1.2 * rank_w < n ? NULL
				: psprintf("W is not of low rank (it applies when 1.2 rank(W) < n = %d)", n);
		case METHOD_IF_SPEC:
		case METHOD_IF_MARGINALS:
			return is_spec ? NULL : "the workload is an explicit matrix, not a spec";
		case METHOD_ON_REQUEST:
			return "it is built only on request";
	}
	return NULL;
}

/* dpm.max_memory_mb: refuse an optimization whose estimated peak memory is larger */
int			dpm_max_memory_mb = 4096;

double
strategy_memory_mb(const StrategyMethod *m, double rows, double n)
{
	/* unknown methods: the largest, rounded up; plus what a backend's own structures grow by */
	double		per_n2 = m ? m->memory_per_n2 : 24;

	return (per_n2 * n * n + 2.0 * rows * n) * sizeof(double) / (1024.0 * 1024.0) + 8.0;
}

void
strategy_check_memory(const StrategyMethod *m, int rows, int n)
{
	double		mb = strategy_memory_mb(m, rows, n);

	if (mb > dpm_max_memory_mb)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("method %s on %d cells would need about %.0f MB, above dpm.max_memory_mb (%d MB)",
						m->name, n, ceil(mb), dpm_max_memory_mb),
				 errdetail("Its peak memory is about %g n^2 + 2 m n doubles for n cells and m queries, plus 8 MB.",
						   m->memory_per_n2),
				 errhint("A superuser can raise dpm.max_memory_mb; hierarchical and wavelet need the least, and hdmm over a spec workload never builds an n x n matrix.")));
}

Mat *
strategy_build(const Mat *w, const StrategyMethod *m, const StrategyOptions *opts, OptReport *rep)
{
	Mat		   *g = m->from_gram ? mat_gram(w) : NULL;
	Mat		   *a;

	rep->iterations = 0;
	rep->objective = NAN;
	rep->lower_bound = NAN;
	a = m->build(g ? g : w, opts, rep);
	if (g)
		mat_free(g);
	if (opts->augment)
		a = strategy_augment(a, opts->augment);
	/* stored as it will be measured: on the exact mechanism's grid (mechanism/exact.h) */
	exact_quantize(a->data, (size_t) a->rows * a->cols);
	return a;
}

const char *
strategy_rules_out(const StrategyMethod *m, int n, bool is_spec, bool kept_as_spec, double queries, int rank_w)
{
	const char *why = strategy_ruled_out(m, n, is_spec, rank_w);

	/*
	 * A workload kept as its spec (too large to keep W, sql/18_workloads.sql)
	 * is too large for the dense builders to try here; asked for by name,
	 * they build W.
	 */
	if (why == NULL && kept_as_spec && m->spec_build == SPEC_BUILDS_MATRIX)
		why = psprintf("workload of %.0f queries over %d cells kept as its spec: too large to try here (ask for it by name)",
					   queries, n);
	return why;
}

const char *
strategy_auto_rules_out(const StrategyMethod *m, bool gaussian, int n, bool is_spec, bool kept_as_spec,
						double queries, int rank_w)
{
	const char *why = strategy_rules_out(m, n, is_spec, kept_as_spec, queries, rank_w);

	if (why == NULL && m->gaussian_only && !gaussian)
		why = "a program for Gaussian noise: under Laplace noise, ask for it by name";
	return why;
}

/*
 * Under Gaussian noise up to this many cells, a certifying method closes its
 * duality gap, which no strategy beats, in milliseconds: less than the
 * structured candidates it would otherwise follow (bench/auto.sql), so it
 * goes right after the two that take none (the registry's first two).
 */
#define AUTO_SMALL_CELLS 128

int
strategy_auto_order(bool gaussian, int n, const StrategyMethod **order)
{
	int			count = 0;
	bool		small = gaussian && n > 0 && n <= AUTO_SMALL_CELLS;

	for (int i = 0; methods[i].name; i++)
	{
		if (methods[i].applies == METHOD_ON_REQUEST || (small && methods[i].certifies))
			continue;
		order[count++] = &methods[i];
		if (small && i == 1)
			for (int j = 0; methods[j].name; j++)
				if (methods[j].certifies && methods[j].applies != METHOD_ON_REQUEST)
					order[count++] = &methods[j];
	}
	return count;
}

bool
strategy_has_targets(const StrategyMethod *m, bool given_targets)
{
	if (m->targets_always)
		return true;
	for (const MethodOption *o = m->options; o->key; o++)
		if (o->kind == OPTION_TARGETS)
			return given_targets;
	return false;
}
