/*
 * ratio.c -- averages from a noisy sum and count (ratio.h).  Written here:
 * Fieller's interval is a few roots of a quadratic, which no library we use
 * provides.
 */
#include "postgres.h"

#include <math.h>

#include "inference/ratio.h"

/* q(r): the bound |e_S - r e_C| exceeds with probability at most 1 - c */
static double
noise_bound(double s_half, double c_half, bool joint, double r)
{
	return joint ? sqrt(s_half * s_half + r * r * c_half * c_half) : s_half + fabs(r) * c_half;
}

/* is r consistent with the noisy sum and count (up to rounding of the roots)? */
static bool
consistent(double s, double c, double s_half, double c_half, bool joint, double r)
{
	double		d = fabs(s - r * c),
				q = noise_bound(s_half, c_half, joint, r);

	return d - q <= 1e-12 * (fabs(s) + fabs(r * c) + q);
}

/* adds the real roots of a r^2 + b r + k = 0 to out, computed without cancellation */
static int
quadratic_roots(double a, double b, double k, double *out)
{
	double		disc,
				h;

	if (a == 0.0)
	{
		if (b == 0.0)
			return 0;
		out[0] = -k / b;
		return 1;
	}
	disc = b * b - 4.0 * a * k;
	if (disc < 0.0)
		return 0;
	h = -0.5 * (b + copysign(sqrt(disc), b));
	out[0] = h / a;
	if (h == 0.0)
		return 1;
	out[1] = k / h;
	return 2;
}

RatioEstimate
ratio_estimate(double s, double s_sd, double s_half, double c, double c_sd, double c_half,
			   double lo, double hi, bool joint)
{
	RatioEstimate e = {NAN, NAN, NAN, NAN};
	double		cand[10];
	int			nc = 0;

	if (c > 0.0)
	{
		e.answer = Min(Max(s / c, lo), hi);
		e.stderr_ = sqrt(s_sd * s_sd + e.answer * e.answer * c_sd * c_sd) / c;
	}
	if (isnan(s_half) || isnan(c_half))
		return e;

	/*
	 * The ends of the set: lo, hi, and where |s - r c| = q(r); and, for a
	 * piece on which both sides are equal throughout, where the pieces meet.
	 */
	cand[nc++] = lo;
	cand[nc++] = hi;
	cand[nc++] = 0.0;
	if (c != 0.0)
		cand[nc++] = s / c;
	if (joint)
		/* (s - r c)^2 = s_half^2 + r^2 c_half^2 */
		nc += quadratic_roots(c * c - c_half * c_half, -2.0 * s * c, s * s - s_half * s_half, cand + nc);
	else
		/* on each piece of sign(s - r c) = u, sign(r) = v: u (s - r c) = s_half + v r c_half */
		for (int u = -1; u <= 1; u += 2)
			for (int v = -1; v <= 1; v += 2)
			{
				double		den = u * c + v * c_half;

				if (den != 0.0)
					cand[nc++] = (u * s - s_half) / den;
			}

	for (int i = 0; i < nc; i++)
	{
		double		r = cand[i];

		if (!(r >= lo && r <= hi) || !consistent(s, c, s_half, c_half, joint, r))
			continue;
		if (isnan(e.ci_low) || r < e.ci_low)
			e.ci_low = r;
		if (isnan(e.ci_high) || r > e.ci_high)
			e.ci_high = r;
	}
	return e;
}
