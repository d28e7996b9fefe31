/*
 * exact.h -- strategy answers A x computed exactly, so that the noise is
 * added to the true answers of the measured matrix rather than to a
 * floating-point approximation whose error grows with the counts (the
 * argument is section 0 of the proof sketch at the top of sampler.c).
 *
 * Counts are integers, a measured matrix is quantized to a dyadic grid
 * (every entry a multiple of 2^K, |a_ij| / 2^K <= 2^EXACT_ENTRY_BITS), and
 * A x is summed in integer arithmetic.  An answer is kept as S_i 2^exp, S_i
 * a two's complement integer of a few 64-bit words.
 */
#ifndef DPM_EXACT_H
#define DPM_EXACT_H

#include "linalg/linalg.h"

#ifndef HAVE_INT128
#error "dpmatrix's exact measurements need a 128-bit integer type"
#endif

/* a quantized entry is at most 2^40 grid units: A moves by at most 2^-41 of its largest entry */
#define EXACT_ENTRY_BITS	40
/* the largest count: every integer up to 2^53 is a double, and the bit budgets assume it */
#define EXACT_COUNT_BITS	53
#define EXACT_COUNT_MAX		((int64) 1 << EXACT_COUNT_BITS)

typedef struct ExactAnswers
{
	int			m;				/* answers */
	int			words;			/* 64-bit words per answer, least significant first */
	int			exp;			/* answer i is S_i 2^exp exactly */
	uint64	   *data;			/* m * words: S_i at data + i * words, two's complement */
} ExactAnswers;

/*
 * The grid of a quantized vector or matrix: the K with max|a| / 2^K in
 * (2^39, 2^40], 0 when every entry is 0.  Quantizing twice changes nothing
 * (the second K is the first or one less, a finer grid holding the same
 * values), so a stored strategy quantized when it was built is measured as
 * stored.
 */
extern int	exact_grid_exponent(double maxabs);

/* len values rounded in place to multiples of 2^exact_grid_exponent(max |v|), half to even */
extern void exact_quantize(double *v, size_t len);

/*
 * x as integer counts, refusing (before any noise exists) values that are
 * not integers or exceed EXACT_COUNT_MAX in magnitude.
 */
extern int64 *exact_counts(const double *x, int n);

/*
 * A x exactly for the strategy whose transpose at holds (n x m, as
 * mechanism_run_dense receives it), A quantized on the fly by the rule above (the
 * identity on a quantized matrix).  *sens receives an upper bound, proven
 * (exact integer column sums, rounded up once), of the quantized A's largest
 * column norm: L1 when norm = 1, L2 when norm = 2.
 */
extern ExactAnswers *exact_matvec(const Mat *at, const int64 *x, int norm, double *sens);

/* upper bounds for sensitivities: S 2^exp (S >= 0), sqrt(d), a b (a, b >= 0), rounded up */
extern double exact_u128_up(uint128 s, int exp);
extern double exact_sqrt_up(double d);
extern double exact_mul_up(double a, double b);

/* floor(log2 |S_i 2^exp|), or INT_MIN when S_i = 0 */
extern int	exact_log2(const ExactAnswers *v, int i);

/*
 * The 64-bit words that rounding v to the grid 2^e takes; refuses (before any
 * noise is drawn, on data-independent grounds) grids too fine for them.
 */
extern int	exact_grid_words(const ExactAnswers *v, int e);

/*
 * The answer on the grid g = 2^e plus noise: the double nearest to
 * g (round(S_i 2^exp / g) + z), round() taking halves up.  Exact integer
 * arithmetic throughout, one correct rounding at the end: the result is a
 * fixed function of the integer round(...) + z.
 */
extern double exact_round_noisy(const ExactAnswers *v, int i, int e, int64 z);

/* the same without noise, in grid units, as a decimal string (tests) */
extern char *exact_grid_units(const ExactAnswers *v, int i, int e);

/*
 * Chinese remaindering for answers too wide for 128 bits: residues modulo
 * up to EXACT_MAX_PRIMES primes p_t = 2^62 - c_t.
 */
#define EXACT_MAX_PRIMES	32

extern const uint16 exact_prime_offsets[EXACT_MAX_PRIMES];

#define EXACT_PRIME(t)		((UINT64CONST(1) << 62) - exact_prime_offsets[t])
#define EXACT_MASK62		((UINT64CONST(1) << 62) - 1)

/* primes needed to recover every integer of magnitude below 2^bits */
extern int	exact_primes_for_bits(int bits);

/*
 * u mod p_t in [0, p_t), for any u < 2^128: since 2^62 = c_t (mod p_t),
 * three folds of the bits above 62 (below 2^77, then 2^62 + 2^25, then
 * 2^62 + c_t) and one conditional subtraction.  No division, no branch but
 * the last.
 */
static inline uint64
exact_reduce(uint128 u, int t)
{
	uint64		c = exact_prime_offsets[t],
				r;

	u = (u >> 62) * c + (u & EXACT_MASK62);
	u = (u >> 62) * c + (u & EXACT_MASK62);
	r = (uint64) (u >> 62) * c + ((uint64) u & EXACT_MASK62);
	return r >= EXACT_PRIME(t) ? r - EXACT_PRIME(t) : r;
}

/*
 * The same but for the last fold and subtraction: a value of u's residue
 * class below 2^62 + 2^25 < 2 p_t, for intermediates that are reduced again.
 */
static inline uint64
exact_reduce_lazy(uint128 u, int t)
{
	uint64		c = exact_prime_offsets[t];

	u = (u >> 62) * c + (u & EXACT_MASK62);
	return (uint64) ((u >> 62) * c + (u & EXACT_MASK62));
}

/* acc mod p_t in [0, p_t), for any int128 but its most negative value */
extern uint64 exact_mod(int128 acc, int t);
/*
 * res holds m rows of k residues (row i's modulo p_0 .. p_{k-1} at
 * res + i k); each row becomes, in place, the k-word two's complement
 * integer of magnitude below prod p_t / 2 with those residues.
 */
extern void exact_crt(uint64 *res, size_t m, int k);

#endif
