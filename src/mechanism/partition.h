/*
 * partition.h -- differentially private partition selection: which of the
 * keys found in the data may be released, from noisy counts of the privacy
 * units holding each.
 *
 * Each unit holds at most k keys (the rows it may contribute), so removing a
 * unit lowers at most k counts by 1 each: the Laplace mechanism with L1
 * sensitivity k makes the counts of the keys both neighbours hold
 * epsilon-DP.  The keys only one of them holds are held by that unit alone
 * (count 1); such a key passes the threshold
 *   tau = 1 + s ln(k / delta),  s the noise's actual scale,
 * with probability q^K / (1 + q) < e^(-(tau - 1)/s) = delta / k for the
 * discrete Laplace law of parameter t (q = e^(-1/t), K = (tau - 1)/g in grid
 * units g, s = g t), so some of the k passes with probability below delta:
 * the released set of keys is (epsilon, delta)-DP (Korolova et al. 2009;
 * Wilson et al. 2020, for bounded contributions).
 *
 * Under zCDP the noise is Gaussian instead, of parameter sigma for L2
 * sensitivity sqrt(k) and rho (a unit moves k counts by 1: k / (2 sigma^2) =
 * rho), and the threshold tau = 1 + sigma sqrt(2 ln(2k / delta)): the
 * discrete Gaussian is sigma^2-subgaussian (Canonne, Kamath & Steinke 2020),
 * so a count of 1 passes with probability below delta / (2k), and the set is
 * (rho, delta)-approximately zCDP.
 *
 * Each key is measured on its own (one answer per call), so that the law, and
 * with it tau, does not depend on how many keys the data holds; and only on a
 * grid no coarser than 1, on which the integer counts need no rounding.
 */
#ifndef DPM_PARTITION_H
#define DPM_PARTITION_H

#include "postgres.h"

/*
 * The law of one selection: keys per unit k, Laplace noise for epsilon or
 * Gaussian for rho > 0, threshold tau and the noise's scale (s or sigma).
 */
typedef struct PartitionLaw
{
	int			k;
	double		epsilon;
	double		rho;
	double		sigma;			/* Gaussian noise: the sampler's parameter */
	double		threshold;
	double		scale;
	double		q;				/* Laplace noise: the discrete law's e^(-1/t) */
	double		grid;			/* and its grid g */
} PartitionLaw;

/*
 * The law, after its checks: refuses (before any draw) parameters whose grid
 * would round the counts.
 */
extern void partition_begin(PartitionLaw *law, int k, double epsilon, double delta, double rho);

/*
 * Whether a key held by count units passes: one fresh draw, so that keys can
 * be judged one at a time as a scan finds them.
 */
extern bool partition_passes(const PartitionLaw *law, int64 count);

/*
 * counts[0 .. n-1]: units per key (integers); selected[i]: key i passes;
 * *threshold and *scale: tau and the noise's scale.
 */
extern void partition_select(const int64 *counts, int n, int k, double epsilon, double delta, double rho,
							 bool *selected, double *threshold, double *scale);

/*
 * The probability that a key held by count units passes, drawing nothing:
 * exact for Laplace noise (the discrete law on its grid), for Gaussian noise
 * the normal law of the same standard deviation (the discrete Gaussian on a
 * grid of at most 1 differs from it by far less than the probabilities shown).
 */
extern double partition_pass_chance(const PartitionLaw *law, double count);

/* the same checks and tau and scale, drawing nothing */
extern void partition_threshold(int k, double epsilon, double delta, double rho, double *threshold,
								double *scale);

#endif
