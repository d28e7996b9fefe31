/*
 * fixed.h -- the dense strategies that need no optimizer: identity,
 * hierarchical and wavelet (one file each), over n cells.
 */
#ifndef DPM_STRATEGY_DENSE_FIXED_H
#define DPM_STRATEGY_DENSE_FIXED_H

#include "linalg/linalg.h"

extern Mat *strategy_identity(int n);
extern Mat *strategy_hierarchical(int n, int branching);
extern Mat *strategy_wavelet(int n);

#endif
