/*
 * exact.c -- exact strategy answers: integer counts, strategies quantized to
 * a dyadic grid, integer sums, and the one rounding of an exact answer to
 * the noise grid (sampler.c, section 0 of the proof sketch, says why).
 *
 * Dense strategies fit 128 bits: |q_ij| <= 2^40, |x_j| <= 2^53 and fewer
 * than 2^31 cells give |sum_j q_ij x_j| < 2^124.  Wider answers (HDMM's
 * Kronecker products, src/strategy/hdmm/exact_measure.c) are computed modulo several
 * primes and recovered here by Chinese remaindering.
 */
#include "postgres.h"

#include <limits.h>
#include <math.h>

#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "utils/float.h"

#include "mechanism/exact.h"

/* 1.5 * 2^52: (t + MAGIC) - MAGIC is t rounded to an integer, halves to even, for |t| <= 2^51 */
#define ROUND_MAGIC			6755399441055744.0

/* the widest intermediate of a rounding: answers of up to 32 words shifted by up to 6000 bits */
#define BIG_MAX_WORDS		128

/* a grid finer than 2^-1000 of an entry would need scales that overflow a double */
#define MIN_GRID_EXPONENT	(-1000)

int
exact_grid_exponent(double maxabs)
{
	int			p;
	double		f;

	if (!(maxabs > 0))
		return 0;
	f = frexp(maxabs, &p);		/* maxabs = f 2^p, f in [0.5, 1) */
	/* ceil(log2 maxabs) is p, or p - 1 for a power of two */
	return (f == 0.5 ? p - 1 : p) - EXACT_ENTRY_BITS;
}

static int
checked_grid_exponent(double maxabs)
{
	int			k = exact_grid_exponent(maxabs);

	if (k < MIN_GRID_EXPONENT)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("strategy entries of magnitude %g are too small to measure exactly", maxabs),
				 errhint("Scale the strategy up; its answers are then reconstructed the same way.")));
	return k;
}

void
exact_quantize(double *v, size_t len)
{
	int			k = checked_grid_exponent(vec_max_abs(v, len));

	for (size_t i = 0; i < len; i++)
		v[i] = ldexp(rint(ldexp(v[i], -k)), k) + 0.0;	/* + 0.0: no negative zero */
}

int64 *
exact_counts(const double *x, int n)
{
	int64	   *c = palloc(sizeof(int64) * Max(n, 1));

	for (int i = 0; i < n; i++)
	{
		if (!(fabs(x[i]) <= (double) EXACT_COUNT_MAX))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("x holds %s at position %d, beyond the largest count the mechanism measures, 2^53",
							float8out_internal(x[i]), i + 1)));
		if (x[i] != floor(x[i]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("x holds %s at position %d, which is not a whole count",
							float8out_internal(x[i]), i + 1),
					 errdetail("The mechanism measures integer counts exactly."),
					 errhint("Round the data vector to whole counts.")));
		c[i] = (int64) x[i];
	}
	return c;
}

double
exact_u128_up(uint128 s, int exp)
{
	double		d = (double) s;

	/* s < 2^127 here, so d <= 2^127 converts back without overflow */
	if ((uint128) d < s)
		d = nextafter(d, INFINITY);
	return ldexp(d, exp);
}

double
exact_sqrt_up(double d)
{
	double		r = sqrt(d);

	/* sqrt is correctly rounded; step up when it rounded down */
	return fma(r, r, -d) < 0 ? nextafter(r, INFINITY) : r;
}

double
exact_mul_up(double a, double b)
{
	double		r = a * b;

	return fma(a, b, -r) > 0 ? nextafter(r, INFINITY) : r;
}

ExactAnswers *
exact_matvec(const Mat *at, const int64 *x, int norm, double *sens)
{
	int			n = at->rows,
				m = at->cols;
	ExactAnswers *v = palloc(sizeof(ExactAnswers));
	int			k = checked_grid_exponent(vec_max_abs(at->data, (size_t) n * m));
	double		scale = ldexp(1.0, -k);
	uint128    *total = palloc0(sizeof(uint128) * Max(n, 1));
	uint64	   *part = norm == 1 ? palloc0(sizeof(uint64) * Max(n, 1)) : NULL;
	uint128		best = 0;

	Assert(norm == 1 || norm == 2);
	v->m = m;
	v->words = 2;
	v->exp = k;
	v->data = palloc_extended(sizeof(uint64) * 2 * Max(m, 1), MCXT_ALLOC_HUGE);

	/*
	 * Row i of A is column i of at, contiguous.  Each entry is quantized as it
	 * is read (exactly what exact_quantize stores) and its column's norm
	 * accumulated in the same pass.
	 */
	for (int i = 0; i < m; i++)
	{
		const double *row = at->data + (size_t) i * n;
		int128		s = 0;

		if ((i & 63) == 0)
			CHECK_FOR_INTERRUPTS();
		if (norm == 1)
		{
			for (int j = 0; j < n; j++)
			{
				int64		q = (int64) ((row[j] * scale + ROUND_MAGIC) - ROUND_MAGIC);

				s += (int128) q * x[j];
				part[j] += (uint64) (q < 0 ? -q : q);
			}
			/* part[j] <= 2^23 * 2^40 < 2^64: fold it into the wide total in time */
			if (((i + 1) & ((1 << 23) - 1)) == 0)
				for (int j = 0; j < n; j++)
				{
					total[j] += part[j];
					part[j] = 0;
				}
		}
		else
		{
			for (int j = 0; j < n; j++)
			{
				int64		q = (int64) ((row[j] * scale + ROUND_MAGIC) - ROUND_MAGIC);

				s += (int128) q * x[j];
				total[j] += (uint128) ((int128) q * q);
			}
		}
		v->data[2 * (size_t) i] = (uint64) s;
		v->data[2 * (size_t) i + 1] = (uint64) ((uint128) s >> 64);
	}
	for (int j = 0; j < n; j++)
	{
		if (part)
			total[j] += part[j];
		best = Max(best, total[j]);
	}
	if (norm == 1)
		*sens = exact_u128_up(best, k);
	else
		*sens = ldexp(exact_sqrt_up(exact_u128_up(best, 0)), k);
	pfree(total);
	if (part)
		pfree(part);
	return v;
}

/*
 * Integers of W 64-bit words, two's complement, least significant first:
 * just what rounding an answer to the grid and Chinese remaindering need.
 */

static bool
big_negative(const uint64 *a, int w)
{
	return (a[w - 1] >> 63) != 0;
}

static void
big_negate(uint64 *a, int w)
{
	uint64		carry = 1;

	for (int i = 0; i < w; i++)
	{
		uint64		t = ~a[i] + carry;

		carry = (carry && t == 0) ? 1 : 0;
		a[i] = t;
	}
}

/* src (sw words) sign-extended into dst (w >= sw words) */
static void
big_load(uint64 *dst, int w, const uint64 *src, int sw)
{
	uint64		fill = big_negative(src, sw) ? PG_UINT64_MAX : 0;

	memcpy(dst, src, sizeof(uint64) * sw);
	for (int i = sw; i < w; i++)
		dst[i] = fill;
}

/* a <<= s; the caller leaves room */
static void
big_shl(uint64 *a, int w, int s)
{
	int			ws = s / 64,
				bs = s % 64;

	for (int i = w - 1; i >= 0; i--)
	{
		uint64		hi = i - ws >= 0 ? a[i - ws] : 0;
		uint64		lo = i - ws - 1 >= 0 ? a[i - ws - 1] : 0;

		a[i] = bs == 0 ? hi : (hi << bs) | (lo >> (64 - bs));
	}
}

/* a >>= s, arithmetic (rounding toward minus infinity), 0 <= s < 64 w */
static void
big_sar(uint64 *a, int w, int s)
{
	int			ws = s / 64,
				bs = s % 64;
	uint64		fill = big_negative(a, w) ? PG_UINT64_MAX : 0;

	for (int i = 0; i < w; i++)
	{
		uint64		lo = i + ws < w ? a[i + ws] : fill;
		uint64		hi = i + ws + 1 < w ? a[i + ws + 1] : fill;

		a[i] = bs == 0 ? lo : (lo >> bs) | (hi << (64 - bs));
	}
}

/* a += z 2^(64 at), z's words above the first being fill (0, or all ones for a negative z) */
static void
big_add_word(uint64 *a, int w, int at, uint64 z, uint64 fill)
{
	uint64		carry = 0;

	for (int i = at; i < w; i++)
	{
		uint128		t = (uint128) a[i] + (i == at ? z : fill) + carry;

		a[i] = (uint64) t;
		carry = (uint64) (t >> 64);
	}
}

/* the highest set bit of a nonnegative a, -1 when a = 0 */
static int
big_top_bit(const uint64 *a, int w)
{
	for (int i = w - 1; i >= 0; i--)
		if (a[i] != 0)
			return 64 * i + pg_leftmost_one_pos64(a[i]);
	return -1;
}

int
exact_log2(const ExactAnswers *v, int i)
{
	uint64		t[BIG_MAX_WORDS];
	int			top;

	big_load(t, v->words, v->data + (size_t) i * v->words, v->words);
	if (big_negative(t, v->words))
		big_negate(t, v->words);
	top = big_top_bit(t, v->words);
	return top < 0 ? INT_MIN : top + v->exp;
}

/* words of the integer round(S_i 2^(exp - e)) + z; refuses grids needing more than BIG_MAX_WORDS */
int
exact_grid_words(const ExactAnswers *v, int e)
{
	double		shift = (double) v->exp - e;
	double		w = v->words + 2 + (shift > 0 ? ceil(shift / 64) : 0);

	if (w > BIG_MAX_WORDS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the noise grid 2^%d is too fine for strategy answers on the grid 2^%d", e, v->exp),
				 errhint("Use a smaller epsilon or rho.")));
	return (int) w;
}

/* t := round(S_i 2^(exp - e)), halves up, in exact_grid_words(v, e) words */
static int
grid_units(const ExactAnswers *v, int i, int e, uint64 *t)
{
	int			w = exact_grid_words(v, e),
				shift = v->exp - e;

	big_load(t, w, v->data + (size_t) i * v->words, v->words);
	if (shift >= 0)
		big_shl(t, w, shift);
	else if (-shift >= 64 * v->words)
		memset(t, 0, sizeof(uint64) * w);	/* |S_i| <= 2^(64 words - 1): rounds to 0 */
	else
	{
		/* floor((S + 2^(s-1)) / 2^s) */
		int			s = -shift;

		big_add_word(t, w, (s - 1) / 64, UINT64CONST(1) << ((s - 1) % 64), 0);
		big_sar(t, w, s);
	}
	return w;
}

/*
 * The double nearest to t 2^e (halves to even): the top 63 bits with a
 * sticky bit for all below, converted by one correctly rounded conversion,
 * then scaled by a power of two (exact: the results are normal doubles).
 */
static double
big_to_double(uint64 *t, int w, int e)
{
	bool		negative = big_negative(t, w);
	int			top,
				lo;
	uint64		bits;
	bool		sticky = false;
	double		d;

	if (negative)
		big_negate(t, w);
	top = big_top_bit(t, w);
	if (top < 0)
		return 0.0;
	if (top < 63)
		d = (double) (int64) t[0];
	else
	{
		lo = top - 62;
		bits = t[lo / 64] >> (lo % 64);
		if (lo % 64 != 0 && lo / 64 + 1 < w)
			bits |= t[lo / 64 + 1] << (64 - lo % 64);
		bits &= ~(UINT64CONST(1) << 63);
		sticky = (t[lo / 64] & ((UINT64CONST(1) << (lo % 64)) - 1)) != 0;
		for (int i = 0; i < lo / 64 && !sticky; i++)
			sticky = t[i] != 0;
		/* bit 0 lies below the rounding position (bit 10): it only says "more below" */
		d = ldexp((double) (int64) (bits | (sticky ? 1 : 0)), lo);
	}
	return ldexp(negative ? -d : d, e);
}

double
exact_round_noisy(const ExactAnswers *v, int i, int e, int64 z)
{
	uint64		t[BIG_MAX_WORDS];
	int			w = grid_units(v, i, e, t);

	big_add_word(t, w, 0, (uint64) z, z < 0 ? PG_UINT64_MAX : 0);
	return big_to_double(t, w, e);
}

char *
exact_grid_units(const ExactAnswers *v, int i, int e)
{
	uint64		t[BIG_MAX_WORDS];
	uint64		chunk[2 * BIG_MAX_WORDS];
	int			w = grid_units(v, i, e, t),
				nchunks = 0;
	bool		negative = big_negative(t, w);
	StringInfoData s;

	if (negative)
		big_negate(t, w);
	/* base 10^19 digits, least significant first */
	while (big_top_bit(t, w) >= 0)
	{
		uint128		rem = 0;

		for (int j = w - 1; j >= 0; j--)
		{
			uint128		cur = (rem << 64) | t[j];

			t[j] = (uint64) (cur / UINT64CONST(10000000000000000000));
			rem = cur % UINT64CONST(10000000000000000000);
		}
		chunk[nchunks++] = (uint64) rem;
	}
	initStringInfo(&s);
	if (nchunks == 0)
		appendStringInfoChar(&s, '0');
	else
	{
		appendStringInfo(&s, "%s" UINT64_FORMAT, negative ? "-" : "", chunk[nchunks - 1]);
		for (int j = nchunks - 2; j >= 0; j--)
			appendStringInfo(&s, "%019llu", (unsigned long long) chunk[j]);
	}
	return s.data;
}

/* c_t of the primes p_t = 2^62 - c_t, ascending c: the 32 largest primes below 2^62 */
const uint16 exact_prime_offsets[EXACT_MAX_PRIMES] = {
	57, 87, 117, 143, 153, 167, 171, 195, 203, 273, 287, 317, 443, 483, 495, 575,
	581, 603, 633, 663, 765, 773, 777, 791, 813, 831, 923, 981, 993, 1001, 1007, 1017
};

int
exact_primes_for_bits(int bits)
{
	/* every p_t > 2^61: k primes recover |S| < 2^(61k - 1) from the symmetric residue range */
	int			k = (bits + 1 + 60) / 61;

	return k <= EXACT_MAX_PRIMES ? Max(k, 1) : -1;
}

uint64
exact_mod(int128 acc, int t)
{
	uint64		r;

	if (acc >= 0)
		return exact_reduce((uint128) acc, t);
	r = exact_reduce((uint128) -acc, t);
	return r != 0 ? EXACT_PRIME(t) - r : 0;
}

static uint64
mod_mul(uint64 a, uint64 b, int t)
{
	return exact_reduce((uint128) a * b, t);
}

static uint64
mod_pow(uint64 a, uint64 e, int t)
{
	uint64		r = 1;

	for (; e; e >>= 1)
	{
		if (e & 1)
			r = mod_mul(r, a, t);
		a = mod_mul(a, a, t);
	}
	return r;
}

void
exact_crt(uint64 *res, size_t m, int k)
{
	uint64		inv[EXACT_MAX_PRIMES],
				big_p[EXACT_MAX_PRIMES + 1] = {0},
				half[EXACT_MAX_PRIMES + 1];
	uint64		radix[EXACT_MAX_PRIMES][EXACT_MAX_PRIMES];	/* p_0 ... p_{u-1} mod p_t */

	Assert(k >= 1 && k <= EXACT_MAX_PRIMES);
	for (int t = 0; t < k; t++)
	{
		radix[0][t] = 1;
		for (int u = 1; u <= t; u++)
			radix[u][t] = mod_mul(radix[u - 1][t], exact_reduce(EXACT_PRIME(u - 1), t), t);
	}
	/* inv[t] = (p_0 ... p_{t-1})^-1 mod p_t (Fermat: p_t is prime) */
	for (int t = 1; t < k; t++)
		inv[t] = mod_pow(radix[t][t], EXACT_PRIME(t) - 2, t);
	/* P = prod p_t and (P - 1) / 2, in k words (P < 2^(62 k)) */
	big_p[0] = 1;
	for (int t = 0; t < k; t++)
	{
		uint64		carry = 0;

		for (int j = 0; j < k; j++)
		{
			uint128		x = (uint128) big_p[j] * EXACT_PRIME(t) + carry;

			big_p[j] = (uint64) x;
			carry = (uint64) (x >> 64);
		}
	}
	memcpy(half, big_p, sizeof(uint64) * k);
	half[0] -= 1;				/* P is odd */
	for (int j = 0; j < k; j++)
		half[j] = (half[j] >> 1) | (j + 1 < k ? half[j + 1] << 63 : 0);

	for (size_t i = 0; i < m; i++)
	{
		uint64	   *r = res + i * k;
		uint64		v[EXACT_MAX_PRIMES];
		uint64		s[EXACT_MAX_PRIMES];
		bool		above = false;

		if ((i & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		/* Garner: S = v_0 + v_1 p_0 + v_2 p_0 p_1 + ..., 0 <= v_t < p_t */
		v[0] = r[0];
		for (int t = 1; t < k; t++)
		{
			/*
			 * (v_0 + v_1 p_0 + ... + v_{t-1} p_0 ... p_{t-2}) mod p_t: terms
			 * below 2^124, reduced once per 8 of them (below 2^128 between)
			 */
			uint128		sum = v[0];
			uint64		acc;

			for (int u = 1; u < t; u++)
			{
				sum += (uint128) v[u] * radix[u][t];
				if ((u & 7) == 0)
					sum = exact_reduce(sum, t);
			}
			acc = exact_reduce(sum, t);
			/* (r_t - acc) mod p_t, both below p_t */
			v[t] = mod_mul(r[t] >= acc ? r[t] - acc : r[t] + EXACT_PRIME(t) - acc, inv[t], t);
		}
		/* Horner in k words: S = (... (v_{k-1} p_{k-2} + v_{k-2}) ...) p_0 + v_0 */
		s[0] = v[k - 1];
		for (int j = 1; j < k; j++)
			s[j] = 0;
		for (int t = k - 2; t >= 0; t--)
		{
			uint64		carry = v[t];

			for (int j = 0; j < k; j++)
			{
				uint128		x = (uint128) s[j] * EXACT_PRIME(t) + carry;

				s[j] = (uint64) x;
				carry = (uint64) (x >> 64);
			}
		}
		/* the symmetric range: S > (P - 1) / 2 stands for S - P */
		for (int j = k - 1; j >= 0; j--)
			if (s[j] != half[j])
			{
				above = s[j] > half[j];
				break;
			}
		if (above)
		{
			uint64		borrow = 0;

			for (int j = 0; j < k; j++)
			{
				uint128		x = (uint128) s[j] - big_p[j] - borrow;

				s[j] = (uint64) x;
				borrow = (uint64) (x >> 64) ? 1 : 0;
			}
		}
		memcpy(r, s, sizeof(uint64) * k);
	}
}
