/*
 * isotonic.h -- the non-decreasing sequence nearest a noisy one in least
 * squares (isotonic regression), for cumulative counts such as a noisy CDF.
 */
#ifndef DPM_ISOTONIC_H
#define DPM_ISOTONIC_H

#include <stddef.h>

/*
 * v[0 .. n-1] replaced by its isotonic regression with weights w (NULL:
 * all 1): pool adjacent violators, O(n).  Written here because neither
 * LAPACK nor PostgreSQL has it, and it is a dozen lines.
 */
extern void isotonic_regression(double *v, const double *w, size_t n);

#endif
