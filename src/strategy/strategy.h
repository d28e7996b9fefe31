/*
 * strategy.h -- strategy matrices for a workload.
 *
 * Each method lives in its own file; strategy.c dispatches by name.  All
 * functions return a fresh Mat with one strategy query per row over the
 * workload's n cells.
 */
#ifndef DPM_STRATEGY_H
#define DPM_STRATEGY_H

#include "linalg/linalg.h"
#include "strategy/gram_strategies.h"

typedef struct StrategyOptions
{
	int			branching;		/* hierarchical: children per node, >= 2 */
	double		tol;			/* iterative methods: relative duality gap to reach */
	int			max_iter;		/* iterative methods: iteration cap */
	int			augment;		/* 0: none; 1 or 2: complete columns in that norm */
	const char *base;			/* min_sensitivity: the method whose profile is kept */
	int			max_sweeps;		/* min_sensitivity: rotation sweeps per starting point */
	int			rank;			/* lrm: rows of L, 0 for 1.2 rank(W) */
	double		gamma;			/* lrm: ||W - B L||_F / ||W||_F to reach */
	int			p;				/* hdmm: rows of Theta in p-Identity strategies */
} StrategyOptions;

#define STRATEGY_METHODS "identity, workload, hierarchical, wavelet, eigen, eigen_design, gaussian_optimal, min_sensitivity, lrm, hdmm, fitness"

/*
 * NULL if the method name is unknown.  rep gets the optimizer's report:
 * iterations, and for the Gram-based methods the objective
 * Delta_2^2 trace(W^T W (A^T A)^+) and a certified lower bound on it (NaN
 * where a method has none).
 */
extern int	dpm_max_memory_mb;
/* estimated peak memory (MB) of a method over n cells and m queries, and its check */
extern double strategy_memory_mb(const char *method, double m, double n);
extern void check_strategy_memory(const char *method, int m, int n);
extern Mat *build_strategy(const Mat *w, const char *method, const StrategyOptions *opts,
						   OptReport *rep);

extern Mat *strategy_identity(int n);
extern Mat *strategy_hierarchical(int n, int branching);
extern Mat *strategy_wavelet(int n);

#endif
