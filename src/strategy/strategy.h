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

typedef struct StrategyOptions
{
	int			branching;		/* hierarchical: children per node, >= 2 */
} StrategyOptions;

#define STRATEGY_METHODS "identity, workload, hierarchical, wavelet"

/* NULL if the method name is unknown */
extern Mat *build_strategy(const Mat *w, const char *method, const StrategyOptions *opts);

extern Mat *strategy_identity(int n);
extern Mat *strategy_hierarchical(int n, int branching);
extern Mat *strategy_wavelet(int n);

#endif
