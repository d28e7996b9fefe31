/*
 * exact_measure.c -- HDMM strategies measured exactly (sampler.c, section
 * 0 of the proof sketch): the strategy quantized as it is read, A x in
 * integers, and proven bounds of its sensitivities.
 *
 * Marginals: a marginal's answers are its integer counts times its weight,
 * so 128 bits suffice.  Kronecker products: the answers need about 53 bits
 * plus 40 + log2(n_a) per attribute, more than any fixed integer type, so
 * A x is computed mode by mode modulo a few primes near 2^62 (each pass is
 * the same sparse product as in floating point, in 128-bit accumulators)
 * and recovered by Chinese remaindering (mechanism/exact.c).
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "strategy/hdmm/hdmm.h"
#include "mechanism/exact.h"

/* a factor's columns: up to this, a row's sum of |q| stays below 2^63 and its products below 2^125 */
#define MAX_FACTOR_COLS (1 << 23)

/* one quantized Kronecker factor, q_rj = a_rj 2^-exp, by rows, zeros left out */
typedef struct SparseFactor
{
	int			rows;
	int			cols;
	int			exp;
	int		   *start;			/* row r's entries at start[r] .. start[r + 1] - 1 */
	int		   *col;
	int64	   *q;
	uint64	   *negative;		/* row r's sum of |q| over its negative entries */
} SparseFactor;

/* the integers of v on its grid (exact for a quantized v; rounded as exact_quantize would otherwise) */
static int64
grid_integer(double v, int exp)
{
	return (int64) rint(ldexp(v, -exp));
}

void
hdmm_quantize(HdmmStrategy *s)
{
	if (s->kind == HDMM_KRONECKER)
		for (int a = 0; a < s->nattrs; a++)
			exact_quantize(s->factors[a]->data, (size_t) s->factors[a]->rows * s->factors[a]->cols);
	else
		exact_quantize(s->weights, (size_t) 1 << s->nattrs);
}

static SparseFactor *
sparse_factor(const Mat *f)
{
	SparseFactor *sf = palloc(sizeof(SparseFactor));
	int			nnz = 0;

	if (f->cols > MAX_FACTOR_COLS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("an attribute of %d bins is too large to measure exactly", f->cols),
				 errdetail("Exact measurement supports at most %d bins per attribute.", MAX_FACTOR_COLS)));
	sf->rows = f->rows;
	sf->cols = f->cols;
	sf->exp = exact_grid_exponent(vec_max_abs(f->data, (size_t) f->rows * f->cols));
	sf->start = palloc(sizeof(int) * (f->rows + 1));
	for (int r = 0; r < f->rows; r++)
		for (int j = 0; j < f->cols; j++)
			nnz += grid_integer(MAT(f, r, j), sf->exp) != 0;
	sf->col = palloc(sizeof(int) * Max(nnz, 1));
	sf->q = palloc(sizeof(int64) * Max(nnz, 1));
	sf->negative = palloc0(sizeof(uint64) * Max(f->rows, 1));
	nnz = 0;
	for (int r = 0; r < f->rows; r++)
	{
		sf->start[r] = nnz;
		for (int j = 0; j < f->cols; j++)
		{
			int64		q = grid_integer(MAT(f, r, j), sf->exp);

			if (q != 0)
			{
				sf->col[nnz] = j;
				sf->q[nnz++] = q;
				if (q < 0)
					sf->negative[r] += (uint64) -q;
			}
		}
	}
	sf->start[f->rows] = nnz;
	return sf;
}

/* ceil(log2 x) for x >= 1, 0 for x = 0 */
static int
ceil_log2(uint128 x)
{
	int			b = 0;

	while (b < 128 && ((uint128) 1 << b) < x)
		b++;
	return b;
}

/*
 * One mode of the product modulo p_t: cur holds left x cols x right values
 * (right fastest) below 2 p_t, next receives left x rows x right of them,
 * reduced to [0, p_t) when last is set, else only below 2 p_t
 * (exact_reduce_lazy).  A row's terms q v, |q| <= 2^40, sum to at least
 * -negative[r] 2 p_t and at most (sum |q|) 2 p_t < 2^126: adding
 * negative[r] 2 p_t, a multiple of p_t, makes the sum a nonnegative 128-bit
 * integer of the same residue, reduced without a sign test.
 */
static void
mode_product_mod(const SparseFactor *f, const uint64 *cur, uint64 *next, size_t left, size_t right,
				 int t, bool last, int128 *acc)
{
	uint64		two_p = 2 * EXACT_PRIME(t);

	for (size_t l = 0; l < left; l++)
	{
		const uint64 *src = cur + l * f->cols * right;
		uint64	   *dst = next + l * f->rows * right;

		CHECK_FOR_INTERRUPTS();
		for (int r = 0; r < f->rows; r++)
		{
			int			first = f->start[r],
						end = f->start[r + 1];
			int128		offset = (int128) ((uint128) f->negative[r] * two_p);

			if (first == end)
			{
				memset(dst + (size_t) r * right, 0, sizeof(uint64) * right);
				continue;
			}
			if (right == 1)
			{
				int128		sum = offset;

				for (int k = first; k < end; k++)
					sum += (int128) f->q[k] * (int64) src[f->col[k]];
				dst[r] = last ? exact_reduce((uint128) sum, t) : exact_reduce_lazy((uint128) sum, t);
				continue;
			}
			{
				int64		q = f->q[first];
				const uint64 *v = src + (size_t) f->col[first] * right;

				for (size_t i = 0; i < right; i++)
					acc[i] = offset + (int128) q * (int64) v[i];
			}
			for (int k = first + 1; k < end; k++)
			{
				int64		q = f->q[k];
				const uint64 *v = src + (size_t) f->col[k] * right;

				for (size_t i = 0; i < right; i++)
					acc[i] += (int128) q * (int64) v[i];
			}
			if (last)
				for (size_t i = 0; i < right; i++)
					dst[(size_t) r * right + i] = exact_reduce((uint128) acc[i], t);
			else
				for (size_t i = 0; i < right; i++)
					dst[(size_t) r * right + i] = exact_reduce_lazy((uint128) acc[i], t);
		}
	}
}

static ExactAnswers *
measure_kronecker(const HdmmStrategy *s, const int64 *x)
{
	int			d = s->nattrs,
				k,
				bits = EXACT_COUNT_BITS;
	SparseFactor **f = palloc(sizeof(SparseFactor *) * Max(d, 1));
	ExactAnswers *v = palloc(sizeof(ExactAnswers));
	double		rows = 1.0,
				n = 1.0,
				longest;
	uint64	   *cur,
			   *next;
	int128	   *acc;

	v->exp = 0;
	for (int a = 0; a < d; a++)
	{
		uint128		row_max = 0;

		f[a] = sparse_factor(s->factors[a]);
		v->exp += f[a]->exp;
		rows *= f[a]->rows;
		n *= f[a]->cols;
		/* |S_i| <= 2^53 prod_a max_r sum_j |q_a,rj|, whatever the counts */
		for (int r = 0; r < f[a]->rows; r++)
		{
			uint128		sum = 0;

			for (int j = f[a]->start[r]; j < f[a]->start[r + 1]; j++)
				sum += (uint64) (f[a]->q[j] < 0 ? -f[a]->q[j] : f[a]->q[j]);
			row_max = Max(row_max, sum);
		}
		bits += ceil_log2(row_max);
	}
	k = exact_primes_for_bits(bits);
	if (k < 0)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the strategy's answers need %d bits, more than exact measurement supports", bits),
				 errhint("Use fewer attributes, or the marginals parameterization.")));

	/* the longest intermediate of the mode products */
	longest = n;
	for (int a = 0; a < d; a++)
	{
		double		len = 1.0;

		for (int b = 0; b < d; b++)
			len *= b <= a ? f[b]->rows : f[b]->cols;
		longest = Max(longest, len);
	}
	mat_check_size(longest, 2, "exact measurement");
	mat_check_size(rows, k, "exact measurement");
	v->m = (int) rows;
	v->words = k;
	v->data = palloc_extended(sizeof(uint64) * Max((size_t) rows * k, 1), MCXT_ALLOC_HUGE);
	cur = palloc_extended(sizeof(uint64) * (size_t) longest, MCXT_ALLOC_HUGE);
	next = palloc_extended(sizeof(uint64) * (size_t) longest, MCXT_ALLOC_HUGE);
	/* the longest run of the later modes: that of the first mode */
	acc = palloc_extended(sizeof(int128) * Max((size_t) (n / f[0]->cols), 1), MCXT_ALLOC_HUGE);

	for (int t = 0; t < k; t++)
	{
		size_t		left = 1;

		/* |x_i| <= 2^53 < p_t */
		for (size_t i = 0; i < (size_t) n; i++)
			cur[i] = x[i] >= 0 ? (uint64) x[i] : (uint64) (x[i] + (int64) EXACT_PRIME(t));
		for (int a = 0; a < d; a++)
		{
			size_t		right = 1;
			uint64	   *swap;

			for (int b = a + 1; b < d; b++)
				right *= f[b]->cols;
			mode_product_mod(f[a], cur, next, left, right, t, a == d - 1, acc);
			left *= f[a]->rows;
			swap = cur;
			cur = next;
			next = swap;
		}
		for (size_t i = 0; i < (size_t) rows; i++)
			v->data[i * k + t] = cur[i];
	}
	pfree(cur);
	pfree(next);
	pfree(acc);
	exact_crt(v->data, (size_t) rows, k);
	return v;
}

/* a marginal's integer counts, its attributes (the bits of b) in mixed radix, last fastest */
static int128 *
marginal_counts(const HdmmStrategy *s, int b, const int64 *x, size_t n, size_t rows)
{
	int			d = s->nattrs;
	size_t	   *stride = palloc(sizeof(size_t) * Max(d, 1));
	int		   *digit = palloc0(sizeof(int) * Max(d, 1));
	int128	   *c = palloc_extended(sizeof(int128) * Max(rows, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	size_t		step = 1,
				idx = 0;

	for (int a = d - 1; a >= 0; a--)
	{
		stride[a] = (b & (1 << a)) ? step : 0;
		if (b & (1 << a))
			step *= s->sizes[a];
	}
	/* fewer than 2^31 cells of at most 2^53: each count below 2^84 */
	for (size_t i = 0; i < n; i++)
	{
		if ((i & 65535) == 0)
			CHECK_FOR_INTERRUPTS();
		c[idx] += x[i];
		for (int a = d - 1; a >= 0; a--)
		{
			idx += stride[a];
			if (++digit[a] < s->sizes[a])
				break;
			idx -= stride[a] * s->sizes[a];
			digit[a] = 0;
		}
	}
	pfree(stride);
	pfree(digit);
	return c;
}

static ExactAnswers *
measure_marginals(const HdmmStrategy *s, const int64 *x)
{
	int			d = s->nattrs;
	ExactAnswers *v = palloc(sizeof(ExactAnswers));
	double		rows = hdmm_rows(s),
				n = 1.0;
	size_t		off = 0;

	for (int a = 0; a < d; a++)
		n *= s->sizes[a];
	mat_check_size(rows, 2, "exact measurement");
	v->m = (int) rows;
	v->words = 2;
	v->exp = exact_grid_exponent(vec_max_abs(s->weights, (size_t) 1 << d));
	v->data = palloc_extended(sizeof(uint64) * 2 * Max((size_t) rows, 1), MCXT_ALLOC_HUGE);
	/* the marginals in hdmm_measure's order: those of nonzero weight, by b */
	for (int b = 0; b < 1 << d; b++)
	{
		int64		q = grid_integer(s->weights[b], v->exp);
		size_t		r = 1;
		int128	   *c;

		if (s->weights[b] == 0.0)
			continue;
		for (int a = 0; a < d; a++)
			if (b & (1 << a))
				r *= s->sizes[a];
		c = marginal_counts(s, b, x, (size_t) n, r);
		for (size_t i = 0; i < r; i++)
		{
			/* |q| <= 2^40 times a count below 2^84 */
			int128		prod = (int128) q * c[i];

			v->data[2 * (off + i)] = (uint64) prod;
			v->data[2 * (off + i) + 1] = (uint64) ((uint128) prod >> 64);
		}
		off += r;
		pfree(c);
	}
	return v;
}

ExactAnswers *
hdmm_measure_exact(const HdmmStrategy *s, const int64 *x)
{
	return s->kind == HDMM_KRONECKER ? measure_kronecker(s, x) : measure_marginals(s, x);
}

/* the largest column norm of the quantized matrix with these entries, rounded up */
static double
column_norm_bound(const double *a, int rows, int cols, int p)
{
	int			exp = exact_grid_exponent(vec_max_abs(a, (size_t) rows * cols));
	uint128		best = 0;

	for (int j = 0; j < cols; j++)
	{
		uint128		sum = 0;

		for (int i = 0; i < rows; i++)
		{
			int64		q = grid_integer(a[i + (size_t) j * rows], exp);

			sum += p == 1 ? (uint128) (q < 0 ? -q : q) : (uint128) ((int128) q * q);
		}
		best = Max(best, sum);
	}
	return p == 1 ? exact_u128_up(best, exp) : ldexp(exact_sqrt_up(exact_u128_up(best, 0)), exp);
}

double
hdmm_sensitivity_bound(const HdmmStrategy *s, int p)
{
	double		sens = 1.0;

	if (s->kind == HDMM_MARGINALS)
	{
		/* every cell is in one query of each marginal: the norm of the weights */
		return column_norm_bound(s->weights, 1 << s->nattrs, 1, p);
	}
	/* a column of a Kronecker product is the product of the factors' columns */
	for (int a = 0; a < s->nattrs; a++)
		sens = exact_mul_up(sens, column_norm_bound(s->factors[a]->data, s->factors[a]->rows,
													s->factors[a]->cols, p));
	return sens;
}
