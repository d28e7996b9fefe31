/*
 * strategy.c -- choose a strategy builder by method name.
 */
#include "postgres.h"

#include "strategy/strategy.h"

Mat *
build_strategy(const Mat *w, const char *method, const StrategyOptions *opts)
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
