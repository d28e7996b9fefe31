/*
 * sampler.c -- exact discrete Laplace and discrete Gaussian noise from a
 * cryptographically secure source, and the Laplace and Gaussian mechanisms
 * built on them over a fine power-of-two grid.
 *
 * Why not b * log(U): Mironov (CCS 2012) showed that x + Laplace noise
 * computed in floating point leaks x through which doubles the sum can take,
 * enough to rebuild a database.  Here every random decision is made in
 * integer arithmetic (the samplers of Canonne, Kamath & Steinke, "The
 * Discrete Gaussian for Differential Privacy", NeurIPS 2020, hereafter CKS),
 * the noise is an exact integer Z, the answer it is added to is exact
 * (section 0), and the released double is a fixed function of the exact
 * integer (rounded answer + Z).  Floating point only chooses parameters that
 * depend on no data (grid, t, S, the sensitivity's rounding up), always
 * rounded up.
 *
 * PROOF SKETCH
 *
 * 0. Exact answers (mechanism/exact.c, strategy/hdmm/exact_measure.c).  Sections 5
 *    and 6 need v = A x exactly, for the matrix A actually measured, and an
 *    upper bound D of that A's sensitivity.  So:
 *    - x holds integer counts with |x_j| <= 2^53; anything else is refused
 *      before noise exists (a release's counts always qualify).
 *    - A is quantized: a_ij = q_ij 2^K with integers |q_ij| <= 2^40,
 *      K = ceil(log2 max |a_ij|) - 40 (entries move by at most 2^-41 of the
 *      largest).  Dense strategies are quantized when built (every method
 *      of strategy_build), so the stored matrix, its pseudo-inverse and its
 *      profile are those of the measured matrix (quantizing again is the
 *      identity: the second K is K or K - 1, a finer grid holding the same
 *      values).  Any other matrix (dpm.mechanism's argument, a fitness
 *      strategy, one stored before quantization) is quantized as it is read
 *      and its answers are those of the quantized matrix: the privacy
 *      argument is the same; only a pseudo-inverse stored for the
 *      unquantized matrix reconstructs with a bias of at most
 *      ||A^+|| ||A_q - A|| ||x||, a relative 2^-41 (dpm.mechanism builds its
 *      own from the quantized matrix).
 *      HDMM strategies are quantized as they are read (each Kronecker factor
 *      on its own grid 2^K_a, the marginal weights on one grid), by every
 *      function that reads them, so measurement, reconstruction, profile and
 *      sensitivity all see the same matrix.
 *    - S_i = sum_j q_ij x_j is summed in integers, v_i = S_i 2^K exactly.
 *      Dense: 128-bit accumulators, |q_ij x_j| <= 2^93 and n < 2^31 terms, so
 *      |S_i| < 2^124.  Marginals: integer marginal counts c (|c| < 2^84)
 *      times the weight's q_b, below 2^124.  Kronecker A_1 x ... x A_d:
 *      |S_i| <= B = 2^53 prod_a max_r sum_j |q_a,rj| for every admissible x
 *      (a bound that depends on no data); S is computed mode by mode modulo
 *      k primes p_t in (2^61, 2^62) with 61 k > log2 B + 1, and recovered by
 *      Chinese remaindering (Garner) from the symmetric range
 *      |S| <= (prod p_t - 1) / 2, which contains [-B, B].
 *    - D is the quantized matrix's largest column norm from exact integer
 *      column sums sum_i |q_ij| (L1) or sum_i q_ij^2 (L2), converted to a
 *      double rounded up (the square root then rounded up): D >= ||A e_j||
 *      for every j.  Kronecker: a column of the product is the product of
 *      the factors' columns, so its norm is the product of their norms, each
 *      factor's bound rounded up and every product rounded up.  Marginals:
 *      each cell is in one query of each marginal, so the norms are
 *      sum_b |w_b| and sqrt(sum_b w_b^2), likewise exact and rounded up.
 *      D times c (below) is rounded up too.
 *    Then for neighbours x, x' (integer vectors with ||x - x'||_1 <= c, c the
 *    privacy unit's contributions, by which D is scaled),
 *    ||v - v'||_p <= c D exactly, with no floating-point term: the argument
 *    below holds for every such pair, whatever the counts' size.  The
 *    rounding R_i = round(v_i / g) = floor(S_i 2^(K - e) + 1/2) is a shift
 *    of the exact integer S_i, and the output is computed from the exact
 *    integer R_i + Z_i (section 5).  dpm.mechanism takes the caller's x
 *    through the same code: the guarantee there is the same, for integer
 *    count vectors, and other x are refused.
 *
 * 1. Bits.  pg_strong_random (OpenSSL's CSPRNG, or /dev/urandom) is read in
 *    4 kB blocks and its bits are assumed independent and fair (the usual
 *    computational assumption).  Uniform on [0, n): draw k = ceil(log2 n)
 *    bits, reject values >= n.  Each trial is uniform on [0, 2^k), so the
 *    accepted value is uniform on [0, n) (no modulo bias); a trial fails
 *    with probability below 1/2.
 *
 * 2. Bernoulli(num/den): P[U < num] = num/den for U uniform on [0, den).
 *    Bernoulli(exp(-gamma)) for gamma = num/den in [0, 1] (CKS Algorithm 1):
 *    step k of the loop continues with probability gamma/k, so
 *    P[K > k] = gamma^k / k! and P[K odd] = sum_j (-gamma)^j / j! = e^-gamma.
 *    Bernoulli(gamma/k) is drawn as Bernoulli(gamma) AND Bernoulli(1/k),
 *    independent events whose joint probability is gamma/k, so den * k never
 *    has to be formed.  For gamma > 1, e^-gamma is e^-1 to the power
 *    floor(gamma) times e^-(gamma - floor(gamma)), one independent coin each.
 *
 * 3. Discrete Laplace, P[Z = z] proportional to e^(-|z|/t), t >= 1 integer
 *    (CKS Algorithm 2).  U uniform on [0, t) is kept with probability
 *    e^(-U/t); V counts successes of Bernoulli(e^-1) before the first
 *    failure, so P[V = v] is proportional to e^-v; hence X = U + t V has
 *    P[X = x] proportional to e^(-x/t) on x >= 0.  A fair sign, with
 *    "negative zero" rejected, gives zero the same weight as any other value.
 *
 * 4. Discrete Gaussian, P[Z = z] proportional to e^(-z^2 / (2S)) (CKS
 *    Algorithm 3).  Propose Y ~ discrete Laplace(t), t = floor(sqrt S) + 1,
 *    accept with probability exp(-(|Y| - S/t)^2 / (2S)).  Expanding the
 *    square, e^(-|y|/t) e^(-(|y| - S/t)^2 / (2S)) = e^(-y^2 / (2S)) times a
 *    constant, so the accepted law is the discrete Gaussian (any t > 0 is
 *    correct; this t makes the expected number of proposals small).  The
 *    exponent is the rational (|Y| t - S)^2 / (2 S t^2), exact in 128 bits.
 *
 * 5. Laplace mechanism.  Let g = 2^e, R(v) = round(v / g) and v, v'
 *    neighbours with ||v - v'||_1 <= D.  Rounding moves each coordinate by at
 *    most g/2, so |R_i - R'_i| <= |v_i - v'_i| / g + 1 and
 *    ||R - R'||_1 <= D/g + m.  With Z_i independent discrete Laplace(t),
 *    P[R + Z = w] / P[R' + Z = w] = exp((||w - R'||_1 - ||w - R||_1) / t)
 *    <= exp(||R - R'||_1 / t) <= e^epsilon once t >= (D/g + m) / epsilon.
 *    R_i is computed exactly from S_i (section 0), R_i + Z_i in integers of
 *    a few words, and the released double is the double nearest to
 *    g (R_i + Z_i) (the top 63 bits with a sticky bit for the rest, one
 *    correctly rounded conversion, an exact power-of-two scaling: results
 *    are normal doubles since g >= 2^-705): a fixed function of the exact
 *    integer R_i + Z_i, so post-processing.
 *
 * 6. Gaussian mechanism.  Each rounding error lies in [-g/2, g/2], so
 *    ||R - R'||_2 <= (D + sqrt(m) g) / g in grid units.  The analytic
 *    Gaussian condition (Balle & Wang 2018) depends on sigma / D only, so
 *    scaling the caller's sigma by 1 + r, r = sqrt(m) g / D, keeps the
 *    caller's continuous (epsilon, delta) for the rounded answers.
 *    It remains to compare discrete and continuous noise of the same
 *    s = (sigma'/g)^2 >= 2^52 (grid units).  Let P_D be the discrete
 *    Gaussian on Z^m and P_R the law of round(N(0, s I)).  For integer x,
 *    x + round(N) = round(x + N), so adding P_R noise is post-processing of
 *    the continuous mechanism and inherits its (eps0, delta0).  Per
 *    coordinate, by Poisson summation the discrete normaliser is
 *    sqrt(2 pi s) (1 + O(e^(-2 pi^2 s))), so up to that factor
 *      P_R(k) / P_D(k) = int_{-1/2}^{1/2} e^(-(2ku + u^2) / (2s)) du,
 *    which lies in [e^(-1/(8s)), e^(k^2 / (24 s^2))] (sinh(a)/a is in
 *    [1, e^(a^2/6)]).
 *    So for every event A, P_D(A) <= e^eta1 P_R(A) with eta1 = m / (8s); and
 *    P_R(A) <= e^eta2 P_D(A) + beta, where eta2 = (m + c) / (24 s) holds
 *    on ||k||^2 <= s (m + c), c = 57 sqrt(m) + 1600, whose complement has
 *    chi-square probability beta <= e^-800 (Laurent & Massart), below any
 *    positive double delta.  Chaining, the discrete mechanism is
 *    (eps0 + eta, e^eta1 delta0 + 3 beta)-DP with eta = eta1 + eta2
 *    = (m/6 + 2.4 sqrt(m) + 67) / s.  For the analytic Gaussian with
 *    tau = D / sigma, a = tau/2 - eps/tau, b = -tau/2 - eps/tau:
 *    d delta / d eps = -e^eps Phi(b), d delta / d tau = phi(a), and
 *    e^eps phi(b) = phi(a).  Mills' ratio (Phi(b)/phi(b) <= 1/|b| <= 2/tau;
 *    Phi(a)/phi(a) <= 3.5 whenever delta < 0.3) then shows that shrinking
 *    tau by the factor 1 + kappa with
 *      kappa >= (2 eta + 3.5 eta1) max(1, 1/tau^2)
 *    pays for both slacks, to first order, for every epsilon.  We take
 *    twice that, kappa = (1.55 m + 9.6 sqrt(m) + 268) max(g/sigma, g/D)^2,
 *    and accept a grid only when kappa <= 2^-8.  This is about 1.5 r^2,
 *    second order in the rounding cost r already paid; for the sizes dpmatrix
 *    uses it is 1e-7 or (much) less.  The discrete Gaussian also satisfies
 *    exactly the continuous zCDP bound rho = D'^2 / (2 sigma'^2) (CKS), with
 *    no approximation at all.  Output is exact as in 5.
 *    Parts of one mechanism (the residuals of a plan, each its own call
 *    with its own grid): the continuous parts together are one Gaussian
 *    mechanism whose tau is the root of the sum of the parts' tau^2, and
 *    each part's rounding keeps its own ratio, so the whole's.  eta1 and
 *    eta2 add up over all M answers of the parts (the chi-square bound taken
 *    over all of them, each coordinate over its own s), with s >= 2^52 for
 *    every part (sigma/g >= 2^26 on either grid).  So each part shrinks
 *    its tau by the same 1 + kappa, kappa = (1.55 M + 9.6 sqrt(M) + 268)
 *    2^-52 max(1, 1/tau^2) for the whole's tau, and the whole's shrinks by
 *    as much: the whole is (epsilon, delta)-DP for the caller's calibration
 *    of its sensitivity over sigma.
 *
 * 7. Grids and overflow.  Laplace: b/g in [2^40, 2^41), t <= 2^42, so
 *    |Z| < t (V + 1) < 2^53 unless V >= 2047 (probability e^-2047, reported
 *    as an error, never wrapped).  The scale grows by the relative
 *    m g / D <= (m / epsilon) 2^-40 (refused above 1/256) plus 2^-40.
 *    Gaussian: sigma/g in [2^27, 2^28) (or [2^26, 2^27) when the inflation
 *    would push S past its bound), S <= 2^57, so t <= 2^28.5 + 1,
 *    2 S t^2 < 2^117, and (|Y| t - S)^2 fits in 128 bits unless V >= 127
 *    (probability e^-127 per proposal, an error).  sigma grows by
 *    r = sqrt(m) (sigma/D) 2^-27 at most (2^-26 on the fallback grid), plus
 *    kappa (refused above 1/256, i.e. once sqrt(m) sigma/D passes 7e6-1e7).  The finer grids that would
 *    make these costs smaller need wider than 128-bit arithmetic.
 *    Rounding: R_i + Z_i takes the answer's words plus 2 plus
 *    ceil((K - e) / 64) words, refused above 128 (K - e is about
 *    log2 epsilon: a data-independent condition, checked before any draw).
 *
 * Sampling time depends only on the random bits, never on the data; the
 * exact products and roundings run the same loops whatever the counts (only
 * the search for an answer's top word varies, by nanoseconds).  The
 * random block is per backend; the postmaster never draws, so no two
 * processes start from the same buffered bits.
 */
#include "postgres.h"

#include <math.h>
#include <float.h>

#include "common/pg_prng.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"

#include "mechanism/exact.h"
#include "mechanism/sampler.h"
#include "privacy/args.h"
#include "security/random.h"

#ifndef HAVE_INT128
#error "dpmatrix's exact samplers need a 128-bit integer type"
#endif


/* supported noise scales: keeps every grid value a normal double */
#define MIN_SCALE			1e-200
#define MAX_SCALE			1e200

#define LAPLACE_GRID_BITS	41	/* b/g in [2^40, 2^41) */
#define LAPLACE_MAX_T		(UINT64CONST(1) << 42)
#define LAPLACE_MAX_INFLATION (1.0 / 256.0)
#define GAUSSIAN_GRID_BITS	28	/* sigma/g in [2^27, 2^28) */
#define GAUSSIAN_MAX_S		(UINT64CONST(1) << 57)
#define GAUSSIAN_MAX_KAPPA	(1.0 / 256.0)
/* (g / sigma)^2 on either grid of any part of a joint mechanism: sigma / g >= 2^26 */
#define JOINT_WORST2		ldexp(1.0, -2 * (GAUSSIAN_GRID_BITS - 2))
#define EXACT_LIMIT			(UINT64CONST(1) << 53)	/* |Z| below this is an exact double */

/* floating-point parameter choices are rounded up by this relative margin */
#define ROUND_UP_MARGIN		(64.0 * DBL_EPSILON)

static uint64 bit_pool;
static int	bit_count;

/* k fresh random bits, 1 <= k <= 64; bits are never reused */
static uint64
random_bits(int k)
{
	uint64		r;
	uint64		w;
	int			need;

	Assert(k >= 1 && k <= 64);
	if (bit_count >= k)
	{
		r = (k == 64) ? bit_pool : bit_pool & ((UINT64CONST(1) << k) - 1);
		bit_pool = (k == 64) ? 0 : bit_pool >> k;
		bit_count -= k;
		return r;
	}
	w = security_random_word();
	need = k - bit_count;
	r = bit_pool | ((need == 64 ? w : w & ((UINT64CONST(1) << need) - 1)) << bit_count);
	bit_pool = (need == 64) ? 0 : w >> need;
	bit_count = 64 - need;
	return r;
}

/* uniform on [0, n) by rejection of ceil(log2 n)-bit draws, n >= 1 */
static uint64
uniform_u64(uint64 n)
{
	int			k;

	if (n <= 1)
		return 0;
	k = pg_leftmost_one_pos64(n - 1) + 1;
	for (;;)
	{
		uint64		x = random_bits(k);

		if (x < n)
			return x;
	}
}

static uint128
uniform_u128(uint128 n)
{
	int			k;

	if (n <= PG_UINT64_MAX)
		return uniform_u64((uint64) n);
	k = pg_leftmost_one_pos64((uint64) ((n - 1) >> 64)) + 1;
	for (;;)
	{
		uint128		hi = random_bits(k);
		uint128		x = (hi << 64) | random_bits(64);

		if (x < n)
			return x;
	}
}

/* Bernoulli(num/den), 0 <= num <= den, den >= 1 */
static bool
bernoulli_ratio(uint128 num, uint128 den)
{
	Assert(den > 0 && num <= den);
	if (num == 0)
		return false;
	if (num >= den)
		return true;
	return uniform_u128(den) < num;
}

/* Bernoulli(exp(-num/den)) for num <= den (CKS Algorithm 1) */
static bool
bernoulli_exp_small(uint128 num, uint128 den)
{
	uint64		k = 1;

	Assert(num <= den);
	while (bernoulli_ratio(num, den) && bernoulli_ratio(1, k))
		k++;
	return (k & 1) == 1;
}

/* Bernoulli(exp(-num/den)) for any num/den >= 0 */
static bool
bernoulli_exp(uint128 num, uint128 den)
{
	uint128		whole = num / den;

	for (uint128 i = 0; i < whole; i++)
		if (!bernoulli_exp_small(1, 1))
			return false;
	return bernoulli_exp_small(num % den, den);
}

/* P[z] proportional to exp(-|z|/t), 1 <= t <= LAPLACE_MAX_T (CKS Algorithm 2) */
static int64
discrete_laplace(uint64 t)
{
	uint64		max_v = EXACT_LIMIT / t - 1;

	Assert(t >= 1 && t <= LAPLACE_MAX_T);
	for (;;)
	{
		uint64		u = uniform_u64(t);
		uint64		v = 0;
		uint64		x;
		bool		negative;

		if (!bernoulli_exp(u, t))
			continue;
		while (bernoulli_exp_small(1, 1))
		{
			if (v == max_v)
				ereport(ERROR,
						(errcode(ERRCODE_INTERNAL_ERROR),
						 errmsg("discrete laplace draw exceeds the exact range"),
						 errdetail("This happens with probability below e^-2047; retry.")));
			v++;
		}
		x = u + t * v;
		negative = random_bits(1) == 1;
		if (negative && x == 0)
			continue;
		return negative ? -(int64) x : (int64) x;
	}
}

static uint64
isqrt_u64(uint64 n)
{
	/* the double square root is only a first guess, corrected exactly */
	uint64		r = (uint64) sqrt((double) n);

	while ((uint128) r * r > n)
		r--;
	while ((uint128) (r + 1) * (r + 1) <= n)
		r++;
	return r;
}

/* P[z] proportional to exp(-z^2 / (2 s2)), 1 <= s2 <= GAUSSIAN_MAX_S (CKS Algorithm 3) */
static int64
discrete_gaussian(uint64 s2)
{
	uint64		t = isqrt_u64(s2) + 1;
	uint128		den = (uint128) s2 * t * t * 2;

	Assert(s2 >= 1 && s2 <= GAUSSIAN_MAX_S);
	for (;;)
	{
		int64		y = discrete_laplace(t);
		uint128		a = (uint128) (uint64) (y < 0 ? -y : y) * t;
		uint128		d = a >= s2 ? a - s2 : s2 - a;

		if (d > PG_UINT64_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("discrete gaussian proposal exceeds the exact range"),
					 errdetail("This happens with probability below e^-127; retry.")));
		if (bernoulli_exp(d * d, den))
			return y;
	}
}

static void
check_scale(double scale, const char *what)
{
	if (!(scale > 0) || !isfinite(scale))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a positive finite number, got %g", what, scale)));
	if (scale < MIN_SCALE || scale > MAX_SCALE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s %g is outside the supported range [%g, %g]",
						what, scale, MIN_SCALE, MAX_SCALE)));
}

static void
check_count(int count)
{
	if (count < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of values must not be negative, got %d", count)));
}

/* exponent e of the grid 2^e putting scale / 2^e in [2^(bits-1), 2^bits) */
static int
grid_exponent(double scale, int bits)
{
	int			p;

	(void) frexp(scale, &p);
	return p - bits;
}

/* round up a positive double to an integer, with margin for its rounding errors */
static uint64
ceil_with_margin(double x)
{
	return (uint64) ceil(x * (1.0 + ROUND_UP_MARGIN));
}

/*
 * Round each exact answer to the grid 2^e and add 2^e times fresh noise, in
 * integers; one correct rounding to a double at the end (see 5 above).
 */
static void
add_grid_noise(const ExactAnswers *v, int e, bool gaussian, uint64 param, double *out)
{
	/* a grid too fine for the answers is refused now, not after some noise was drawn */
	(void) exact_grid_words(v, e);
	for (int i = 0; i < v->m; i++)
	{
		int64		z;

		CHECK_FOR_INTERRUPTS();
		z = gaussian ? discrete_gaussian(param) : discrete_laplace(param);
		out[i] = exact_round_noisy(v, i, e, z);
	}
}

/* variance of discrete Laplace(t): 2 q / (1 - q)^2, q = e^(-1/t) */
static double
discrete_laplace_variance(uint64 t)
{
	double		one_minus_q = -expm1(-1.0 / (double) t);

	return 2.0 * exp(-1.0 / (double) t) / (one_minus_q * one_minus_q);
}

/*
 * The Laplace mechanism's grid 2^e and parameter t for m answers, refusing
 * what the sampler cannot do; no noise is drawn.
 */
static void
laplace_grid(int m, double l1_sens, double epsilon, int *e, uint64 *t)
{
	double		b;

	check_count(m);
	check_scale(l1_sens, "L1 sensitivity");
	privacy_check_epsilon(epsilon, PRIVACY_RELEASE);
	b = l1_sens / epsilon;
	check_scale(b, "Laplace noise scale");

	/*
	 * t = b/g + m/epsilon: the second term is the rounding's share and does
	 * not shrink with g, so a coarser grid never helps; refuse when it would
	 * add more than LAPLACE_MAX_INFLATION to the scale.
	 */
	*e = grid_exponent(b, LAPLACE_GRID_BITS);
	if (!((double) m * ldexp(1.0, *e) / l1_sens <= LAPLACE_MAX_INFLATION))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%d answers at epsilon %g exceed the range of the exact Laplace sampler",
						m, epsilon),
				 errdetail("Rounding to the sampler's grid would inflate the noise by more than %g%%.",
						   100.0 * LAPLACE_MAX_INFLATION),
				 errhint("Use a larger epsilon or a strategy with fewer rows.")));
	*t = ceil_with_margin((ldexp(l1_sens, -*e) + (double) m) / epsilon);
	Assert(*t <= LAPLACE_MAX_T);
}

void
dpm_laplace_check(int m, double l1_sens, double epsilon)
{
	int			e;
	uint64		t;

	laplace_grid(m, l1_sens, epsilon, &e, &t);
}

void
dpm_laplace_law(int m, double l1_sens, double epsilon, LaplaceLaw *law)
{
	uint64		t;

	laplace_grid(m, l1_sens, epsilon, &law->grid_exp, &t);
	law->t = (double) t;
}

double
dpm_laplace_mechanism(const ExactAnswers *v, double l1_sens, double epsilon, LaplaceLaw *law,
					  double *out)
{
	int			e;
	uint64		t;

	laplace_grid(v->m, l1_sens, epsilon, &e, &t);
	add_grid_noise(v, e, false, t, out);
	if (law)
	{
		law->grid_exp = e;
		law->t = (double) t;
	}
	return ldexp(1.0, 2 * e) * discrete_laplace_variance(t);
}

/*
 * DiscreteLaplace(t) is the difference of two geometric variables G with
 * P(G >= k) = e^(-k/t), and floor(t E) for E ~ Exp(1) is such a G.
 */
void
dpm_simulate_laplace(const LaplaceLaw *law, pg_prng_state *rng, int n, double *out)
{
	for (int i = 0; i < n; i++)
	{
		double		g1 = floor(-law->t * log(1.0 - pg_prng_double(rng)));
		double		g2 = floor(-law->t * log(1.0 - pg_prng_double(rng)));

		out[i] = ldexp(g1 - g2, law->grid_exp);
	}
}

/*
 * Rounding inflation and discrete-gap allowance for a Gaussian mechanism on
 * the grid 2^e (sections 6 and 7 above); false if the grid does not fit.
 */
static bool
gaussian_grid_fits(double sigma, double l2_sens, int m, int e, const GaussianJoint *joint, uint64 *s2)
{
	double		g = ldexp(1.0, e);
	double		r = sqrt((double) m) * g / l2_sens;
	double		worst = Max(g / sigma, g / l2_sens);
	double		kappa = (1.55 * m + 9.6 * sqrt((double) m) + 268.0) * worst * worst;
	double		units,
				units2;

	/* a part of a joint mechanism pays for the slack of all the parts' answers (section 6) */
	if (joint)
		kappa = (1.55 * joint->m + 9.6 * sqrt(joint->m) + 268.0) * JOINT_WORST2 *
			Max(1.0, 1.0 / (joint->tau * joint->tau));
	units = ldexp(sigma, -e) * (1.0 + r) * (1.0 + kappa);
	units2 = units * units;

	if (!(kappa <= GAUSSIAN_MAX_KAPPA) ||
		!(units2 * (1.0 + ROUND_UP_MARGIN) < (double) GAUSSIAN_MAX_S))
		return false;
	*s2 = ceil_with_margin(units2);
	return true;
}

/*
 * The Gaussian mechanism's grid exponent and S for m answers, refusing what
 * the sampler cannot do; no noise is drawn.
 */
static int
gaussian_grid(int m, double l2_sens, double sigma, const GaussianJoint *joint, uint64 *s2)
{
	int			e0,
				e;

	check_count(m);
	check_scale(l2_sens, "L2 sensitivity");
	check_scale(sigma, "Gaussian noise standard deviation");

	/*
	 * Finest grid first; the next coarser one can still fit when the
	 * rounding inflation pushes S past GAUSSIAN_MAX_S.  Coarser still only
	 * raises kappa, so two tries suffice.
	 */
	e0 = grid_exponent(sigma, GAUSSIAN_GRID_BITS);
	for (e = e0; e <= e0 + 1; e++)
		if (gaussian_grid_fits(sigma, l2_sens, m, e, joint, s2))
			return e;
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("%d answers with noise %g times their L2 sensitivity exceed the range of the exact Gaussian sampler",
					m, sigma / l2_sens),
			 errdetail("Rounding to the sampler's grid would inflate the noise by more than a few percent."),
			 errhint("Use a larger epsilon or delta, or a strategy with fewer rows.")));
	return 0;					/* not reached */
}

void
dpm_gaussian_check(int m, double l2_sens, double sigma)
{
	dpm_gaussian_check_part(m, l2_sens, sigma, NULL);
}

void
dpm_gaussian_check_part(int m, double l2_sens, double sigma, const GaussianJoint *joint)
{
	uint64		s2;

	(void) gaussian_grid(m, l2_sens, sigma, joint, &s2);
}

double
dpm_gaussian_mechanism(const ExactAnswers *v, double l2_sens, double sigma, double *out)
{
	return dpm_gaussian_mechanism_part(v, l2_sens, sigma, NULL, out);
}

double
dpm_gaussian_mechanism_part(const ExactAnswers *v, double l2_sens, double sigma, const GaussianJoint *joint,
							double *out)
{
	uint64		s2 = 0;
	int			e = gaussian_grid(v->m, l2_sens, sigma, joint, &s2);

	add_grid_noise(v, e, true, s2, out);
	return ldexp((double) s2, 2 * e);
}

double
dpm_gaussian_actual_sd(int m, double l2_sens, double sigma)
{
	int			e0;
	uint64		s2 = 0;

	check_count(m);
	check_scale(l2_sens, "L2 sensitivity");
	check_scale(sigma, "Gaussian noise standard deviation");
	e0 = grid_exponent(sigma, GAUSSIAN_GRID_BITS);
	for (int e = e0; e <= e0 + 1; e++)
		if (gaussian_grid_fits(sigma, l2_sens, m, e, NULL, &s2))
			return sqrt(ldexp((double) s2, 2 * e));
	return INFINITY;
}

void
dpm_sample_laplace(double b, int count, double *out)
{
	int			e;
	uint64		t;

	check_scale(b, "Laplace scale");
	check_count(count);
	e = grid_exponent(b, LAPLACE_GRID_BITS);
	t = (uint64) ceil(ldexp(b, -e));	/* exact: scaling by 2^-e loses nothing */
	for (int i = 0; i < count; i++)
	{
		CHECK_FOR_INTERRUPTS();
		out[i] = ldexp((double) discrete_laplace(t), e);
	}
}

void
dpm_sample_gaussian(double s, int count, double *out)
{
	int			e;
	uint64		s2;

	check_scale(s, "Gaussian standard deviation");
	check_count(count);
	e = grid_exponent(s, GAUSSIAN_GRID_BITS);
	s2 = ceil_with_margin(ldexp(s, -e) * ldexp(s, -e));
	for (int i = 0; i < count; i++)
	{
		CHECK_FOR_INTERRUPTS();
		out[i] = ldexp((double) discrete_gaussian(s2), e);
	}
}
