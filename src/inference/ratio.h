/*
 * ratio.h -- an average as the ratio of a noisy sum and a noisy count, with an
 * interval for the ratio found by inverting a test (Fieller's method).
 *
 * The true average r* of a query (of values clamped to [lo, hi]) makes
 * S - r* C = 0 for the true sum S and count C, so the noisy S_hat - r* C_hat
 * is pure noise, e_S - r* e_C.  The interval is every r in [lo, hi] at which
 * |S_hat - r C_hat| <= q(r), for q(r) a bound that noise passes with
 * probability at most 1 - c:
 *   Gaussian noise: e_S - r e_C is N(0, sd_S^2 + r^2 sd_C^2) exactly (the two
 *     are independent), so q(r) = z sqrt(sd_S^2 + r^2 sd_C^2), z the
 *     (1 + c)/2 normal quantile: Fieller's interval, exact;
 *   Laplace noise: no closed form, so each error's own interval at
 *     1 - (1 - c)/2 (simulated) and q(r) = h_S + |r| h_C, valid by the union
 *     bound.
 * The set is a union of intervals whose ends are lo, hi or roots of
 * |S_hat - r C_hat| = q(r); what is returned is its hull.  It may be all of
 * [lo, hi] (a count too noisy to tell the average), or empty, with
 * probability at most 1 - c.
 */
#ifndef DPM_RATIO_H
#define DPM_RATIO_H

#include <stdbool.h>

typedef struct RatioEstimate
{
	double		answer;			/* S_hat / C_hat clamped to [lo, hi]; NaN when C_hat <= 0 */
	double		stderr_;		/* first-order: sqrt(sd_S^2 + answer^2 sd_C^2) / C_hat; NaN likewise */
	double		ci_low;			/* NaN: no interval asked, or an empty one */
	double		ci_high;
} RatioEstimate;

/*
 * s, c: the estimates of sum and count, with standard errors s_sd, c_sd and
 * interval half-widths s_half, c_half (NaN: no interval); lo <= hi bound
 * the average; joint: Gaussian noise, the halves being z sd at the interval's
 * confidence (otherwise Laplace, each half at 1 - (1 - c)/2).
 */
extern RatioEstimate ratio_estimate(double s, double s_sd, double s_half, double c, double c_sd,
									double c_half, double lo, double hi, bool joint);

#endif
