/*
 * sampler.h -- secure noise: exact discrete Laplace and discrete Gaussian
 * samplers (Canonne, Kamath & Steinke 2020) fed by pg_strong_random, and the
 * Laplace and Gaussian mechanisms built on them over a fine power-of-two
 * grid.  The privacy argument is at the top of sampler.c.
 */
#ifndef DPM_SAMPLER_H
#define DPM_SAMPLER_H

#include "mechanism/exact.h"

/*
 * Laplace mechanism: epsilon-DP for L1 sensitivity l1_sens of the exact
 * answers v (v->m of them; exact.h), written to out.  Rounds v exactly to a
 * grid of spacing g = 2^k and adds g Z, Z ~ DiscreteLaplace(t) with
 * t >= (l1_sens / g + m) / epsilon: rounding moves each coordinate of each
 * of two neighbouring inputs by at most g / 2, so the rounded answers are at
 * most l1_sens + m g apart in L1.  l1_sens must bound the L1 distance of the
 * exact answers of neighbours (no floating-point error is left to cover).
 * Returns the per-coordinate variance of the noise actually added,
 * g^2 * 2 e^{-1/t} / (1 - e^{-1/t})^2, and its law in *law (when not NULL).
 */
typedef struct LaplaceLaw
{
	int			grid_exp;		/* the noise is 2^grid_exp times ... */
	double		t;				/* ... DiscreteLaplace(t); t = 0: no Laplace noise */
} LaplaceLaw;

extern double dpm_laplace_mechanism(const ExactAnswers *v, double l1_sens, double epsilon,
									LaplaceLaw *law, double *out);

/*
 * The checks of dpm_laplace_mechanism (epsilon) and dpm_gaussian_mechanism
 * (sigma) for m answers, by the same code, drawing nothing: a release the
 * sampler would refuse is refused before it is charged.
 */
extern void dpm_laplace_check(int m, double l1_sens, double epsilon);
/* the law dpm_laplace_mechanism adds to m answers, drawing nothing */
extern void dpm_laplace_law(int m, double l1_sens, double epsilon, LaplaceLaw *law);
extern void dpm_gaussian_check(int m, double l2_sens, double sigma);

/*
 * n plain draws from law with pg_prng (not pg_strong_random): for simulating
 * the noise alone, which needs no secrecy.
 */
struct pg_prng_state;
extern void dpm_simulate_laplace(const LaplaceLaw *law, struct pg_prng_state *rng, int n, double *out);

/*
 * Gaussian mechanism with standard deviation at least sigma, where sigma is
 * the caller's calibration for L2 sensitivity l2_sens of the exact answers
 * v.  Rounds v exactly to a grid g = 2^k, inflates sigma by
 * (l2_sens + sqrt(m) g) / l2_sens to cover the rounding (and by a further
 * relative term far below that one for the discrete-versus-continuous gap),
 * then adds g Z, Z ~ DiscreteGaussian(S) with S = ceil((sigma' / g)^2),
 * writing the results to out.  Returns the noise variance g^2 S.
 */
extern double dpm_gaussian_mechanism(const ExactAnswers *v, double l2_sens, double sigma,
									 double *out);

/*
 * One part of a Gaussian mechanism released in several calls (the residuals
 * of a plan): m answers in all the parts, and tau, the whole's L2
 * sensitivity over its noise.  Each part covers its share of the discrete
 * sampler's slack for the whole (sampler.c, section 6), so the parts
 * together are (epsilon, delta)-DP when tau is calibrated for it.
 */
typedef struct GaussianJoint
{
	double		m;
	double		tau;
} GaussianJoint;

extern double dpm_gaussian_mechanism_part(const ExactAnswers *v, double l2_sens, double sigma,
										  const GaussianJoint *joint, double *out);
extern void dpm_gaussian_check_part(int m, double l2_sens, double sigma, const GaussianJoint *joint);

/*
 * Plain draws on the grid, for tests and dpm.noise: Laplace of scale b,
 * Gaussian of standard deviation s (both rounded up to the grid).
 */
/*
 * The standard deviation dpm_gaussian_mechanism actually adds for these
 * arguments (its grid rounding allowance included; infinite when it would
 * refuse), so a caller can ask for noise no larger than a target.
 */
extern double dpm_gaussian_actual_sd(int m, double l2_sens, double sigma);
extern void dpm_sample_laplace(double b, int count, double *out);
extern void dpm_sample_gaussian(double s, int count, double *out);

#endif
