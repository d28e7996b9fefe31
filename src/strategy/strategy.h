/*
 * strategy.h -- strategy matrices for a workload.
 *
 * Each method lives in its own file; methods.c is their registry.  All
 * functions return a fresh Mat with one strategy query per row over the
 * workload's n cells.
 */
#ifndef DPM_STRATEGY_H
#define DPM_STRATEGY_H

#include "strategy/fitness/fitness.h"
#include "linalg/linalg.h"
#include "strategy/dense/fixed.h"
#include "strategy/dense/gram_strategies.h"

/*
 * Every method's options, read from the jsonb by api_method_options (one
 * table, methods.c, for every family: strategy/dense/'s builders, strategy/fitness/,
 * strategy/hdmm/ and strategy/residual/).
 */
typedef struct StrategyOptions
{
	int			branching;		/* hierarchical: children per node, >= 2 */
	double		tol;			/* iterative methods: relative duality gap to reach */
	int			max_iter;		/* iterative methods: iteration cap */
	int			augment;		/* 0: none; 1 or 2: complete columns in that norm; -1: by noise */
	int			noise;			/* 0 gaussian, 1 laplace: the noise the strategy is for */
	const char *base;			/* min_sensitivity: the method whose profile is kept */
	int			max_sweeps;		/* min_sensitivity: rotation sweeps per starting point */
	int			rank;			/* lrm: rows of L, 0 for 1.2 rank(W) */
	double		gamma;			/* lrm: ||W - B L||_F / ||W||_F to reach */
	int			p;				/* hdmm: rows of Theta in p-Identity strategies, -1 for n / 16 */
	int			parameterization;	/* hdmm over a spec: 0 auto, 1 kronecker, 2 marginals */
	int			rounds;			/* hdmm over a spec: rounds over the attributes */
	int			loss;			/* residual: 0 the sum of variances, 1 the largest (choices) */
	int			basis;			/* fitness: a FitnessBasis */
	FitnessOptions fitness;		/* fitness: its solver's */
} StrategyOptions;

/* an option a method takes, read from dpm.strategy's jsonb options by api/ */
typedef enum OptionKind
{
	OPTION_INT,
	OPTION_FLOAT,
	OPTION_METHOD,				/* the name of another method */
	OPTION_CHOICE,				/* one of choices, kept as its index; dflt is the default's */
	OPTION_TARGETS				/* variances, positive and finite: a number or an array of them,
								 * which the method reads itself (no field) */
} OptionKind;

/*
 * Where an option applies: hdmm and identity over a workload given as a
 * spec are built from the spec (strategy/hdmm/, a Kronecker product of identities),
 * with options of their own; over an explicit matrix, by the dense builders.
 */
typedef enum OptionScope
{
	OPTION_ANYWHERE,
	OPTION_SPEC_ONLY,
	OPTION_MATRIX_ONLY
} OptionScope;

typedef struct MethodOption
{
	const char *key;			/* NULL ends a list */
	OptionKind	kind;
	double		dflt;			/* numbers: the default and the range allowed */
	double		min;
	double		max;
	size_t		offset;			/* of its field in StrategyOptions */
	const char *text_dflt;		/* OPTION_METHOD: the default */
	const char *const *choices;	/* OPTION_CHOICE: NULL-terminated */
	OptionScope scope;
} MethodOption;

/* which workloads a method applies to; all but ON_REQUEST are tried by method auto */
typedef enum MethodScope
{
	METHOD_ALWAYS,
	METHOD_IF_LOW_RANK,			/* 1.2 rank(W) < n */
	METHOD_IF_SPEC,				/* the workload is a spec, not an explicit matrix */
	METHOD_IF_MARGINALS,		/* a spec (marginals with any blocks), over any domain, even a wide one */
	METHOD_ON_REQUEST			/* never tried by auto */
} MethodScope;

/* the default of the common option "augment": none, or the norm of the noise (l2 without one) */
typedef enum MethodAugment
{
	AUGMENT_NONE,
	AUGMENT_BY_NOISE
} MethodAugment;

/* how a method builds over a workload given as a spec (sql/19_optimize.sql, strategy_build) */
typedef enum SpecBuild
{
	SPEC_BUILDS_MATRIX,			/* W over the cells (if it fits), then the builder */
	SPEC_BUILDS_IDENTITY,		/* a Kronecker product of identities, nothing to optimize */
	SPEC_BUILDS_KRONECKER,		/* HDMM's optimizers over the spec's blocks (strategy/hdmm/) */
	SPEC_BUILDS_RESIDUAL		/* ResidualPlanner over its marginals, from the spec only */
} SpecBuild;

typedef struct StrategyMethod
{
	const char *name;
	/* NULL: built elsewhere (strategy/fitness/, strategy/residual/); input is W, or W^T W if from_gram */
	Mat		   *(*build) (const Mat *input, const StrategyOptions *opts, OptReport *rep);
	bool		from_gram;
	double		memory_per_n2;	/* peak memory c n^2 + 2 m n doubles, beyond the backend's */
	MethodScope applies;
	MethodAugment augment;
	MethodOption options[10];
	SpecBuild	spec_build;
	bool		rows_are_rank;	/* its strategy has rank(W) rows (which rules lrm in or out) */
	bool		certifies;		/* its lower_bound bounds every strategy's error: auto may stop */
	bool		gaussian_only;	/* a program for Gaussian noise: auto skips it under Laplace */
	bool		targets_always; /* built for variance targets, which decide its charge */
} StrategyMethod;

/* NULL if the name is unknown */
extern const StrategyMethod *strategy_method(const char *name);
/* the i-th method in the order method auto tries them, NULL past the last */
extern const StrategyMethod *strategy_method_at(int i);
/* "identity, hierarchical, ...", for hints */
extern char *strategy_method_names(void);
/* m's options at their defaults (augment from noise) */
extern void strategy_default_options(const StrategyMethod *m, StrategyOptions *opts);
/* augment -1 (not given) as m's default for opts' noise */
extern void strategy_resolve_augment(const StrategyMethod *m, StrategyOptions *opts);
/* whether m takes option o for a workload given as a spec (is_spec) or as a matrix */
extern bool strategy_option_applies(const MethodOption *o, bool is_spec);
/*
 * why method auto does not try m on this workload of n cells (0: a wide
 * domain, with no dense cell index), or NULL (rank_w: 0 if unknown)
 */
extern const char *strategy_ruled_out(const StrategyMethod *m, int n, bool is_spec, int rank_w);

/*
 * Why neither method auto nor dpm.compare_strategies tries m on a workload
 * of `queries` queries over n cells (as strategy_ruled_out), kept as its spec
 * without W (kept_as_spec), or NULL; and for auto under this noise.
 */
extern const char *strategy_rules_out(const StrategyMethod *m, int n, bool is_spec, bool kept_as_spec,
									  double queries, int rank_w);
extern const char *strategy_auto_rules_out(const StrategyMethod *m, bool gaussian, int n, bool is_spec,
										   bool kept_as_spec, double queries, int rank_w);
/* the methods auto tries, in its order, under this noise over n cells (0: wide); returns the count */
extern int	strategy_auto_order(bool gaussian, int n, const StrategyMethod **order);
/* is m built to meet variance targets (always, or given as option "targets": given_targets)? */
extern bool strategy_has_targets(const StrategyMethod *m, bool given_targets);

extern int	dpm_max_memory_mb;
/* estimated peak memory (MB) of a method (NULL: unknown) over n cells and m queries, and its check */
extern double strategy_memory_mb(const StrategyMethod *m, double rows, double n);
extern void strategy_check_memory(const StrategyMethod *m, int rows, int n);

/*
 * A method with a builder, over W.  rep gets the optimizer's report:
 * iterations, and for the Gram-based methods the objective
 * Delta_2^2 trace(W^T W (A^T A)^+) and a certified lower bound on it (NaN
 * where a method has none).
 */
extern Mat *strategy_build(const Mat *w, const StrategyMethod *m, const StrategyOptions *opts,
						   OptReport *rep);


#endif
