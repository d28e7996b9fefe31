/*
 * histogram.h -- the frequency-vector aggregate.
 */
#ifndef DPM_HISTOGRAM_H
#define DPM_HISTOGRAM_H

/* dpm.max_cells: the largest frequency vector (domain) we agree to build */
extern int	dpm_max_cells;

#endif
