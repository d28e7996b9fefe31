/*
 * histogram.h -- the frequency-vector aggregate.
 */
#ifndef DPM_HISTOGRAM_H
#define DPM_HISTOGRAM_H

#include "common/int.h"

/* dpm.max_cells: the largest frequency vector (domain) we agree to build */
extern int	dpm_max_cells;

/* dpm.capping_memory_mb: the memory of a capped scan's table of units before it spills */
extern int	dpm_capping_memory_mb;

/* a + b, held at the int64 limits (a sum of units saturates rather than wrapping or failing) */
static inline int64
add_saturating(int64 a, int64 b)
{
	int64		r;

	if (pg_add_s64_overflow(a, b, &r))
		return b > 0 ? PG_INT64_MAX : PG_INT64_MIN;
	return r;
}

#endif
