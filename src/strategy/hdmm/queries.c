/*
 * queries.c -- the workload's side of an HDMM strategy, from the spec's
 * blocks without a matrix over an attribute's bins wherever the block's rows
 * are runs of bins (workload/blocks.c): every query's variance
 * w (A^T A)^+ w^T and the answers W x.
 *
 * A run [lo, hi) of attribute a has variance factor sum_{i,j in [lo,hi)} C_ij
 * with C = (A_a^T A_a)^+: four entries of C's 2-D prefix sums.  A block costs
 * O(n_a^2) once plus O(1) a row, where w C w^T row by row costs O(n_a^2) a
 * row (AllRange over 1024 bins: 524,800 rows, 5.5e11 operations).  Its
 * answers are differences of prefix sums of x along the attribute.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "strategy/hdmm/hdmm.h"
#include "mechanism/interval.h"

/*
 * Double-double sums (Knuth's two-sum): a run's variance is a difference of
 * prefix sums much larger than itself when C's entries cancel, as the
 * off-diagonal ones of a good strategy do; carried to about 1e-32 of the
 * sums, the difference is as exact as the dense quadratic form.
 */
static inline void
dd_add(double *hi, double *lo, double bh, double bl)
{
	double		s = *hi + bh,
				v = s - *hi,
				e = (*hi - (s - v)) + (bh - v) + *lo + bl;

	*hi = s + e;
	*lo = e - (*hi - s);
}

/* the 2-D prefix sums S_ij = sum_{p < i, q < j} C_pq, (n+1) x (n+1), as hi + lo */
typedef struct PrefixSums
{
	Mat		   *hi;
	Mat		   *lo;
} PrefixSums;

static PrefixSums *
prefix_sums(const Mat *c)
{
	int			n = c->rows;
	PrefixSums *ps = palloc(sizeof(PrefixSums));

	ps->hi = mat_new(n + 1, n + 1);
	ps->lo = mat_new(n + 1, n + 1);
	for (int j = 0; j < n; j++)
	{
		double		ch = 0.0,
					cl = 0.0;

		CHECK_FOR_INTERRUPTS();
		for (int i = 0; i < n; i++)
		{
			double		h = MAT(ps->hi, i + 1, j),
						l = MAT(ps->lo, i + 1, j);

			/* column j's running sum, added to the prefix sums of the columns before */
			dd_add(&ch, &cl, MAT(c, i, j), 0.0);
			dd_add(&h, &l, ch, cl);
			MAT(ps->hi, i + 1, j + 1) = h;
			MAT(ps->lo, i + 1, j + 1) = l;
		}
	}
	return ps;
}

static void
prefix_sums_free(PrefixSums *ps)
{
	mat_free(ps->hi);
	mat_free(ps->lo);
	pfree(ps);
}

/* sum_{i,j in [lo,hi)} C_ij */
static double
run_variance(const PrefixSums *ps, int lo, int hi)
{
	double		h = MAT(ps->hi, hi, hi),
				l = MAT(ps->lo, hi, hi);

	dd_add(&h, &l, -MAT(ps->hi, lo, hi), -MAT(ps->lo, lo, hi));
	dd_add(&h, &l, -MAT(ps->hi, hi, lo), -MAT(ps->lo, hi, lo));
	dd_add(&h, &l, MAT(ps->hi, lo, lo), MAT(ps->lo, lo, lo));
	return h + l;
}

/* w C w^T for each row w of a block that has no runs (Ranges as written: few rows) */
static void
matrix_variances(const Mat *w, const Mat *c, double *q)
{
	Mat		   *wc = mat_mul(w, false, c, false);

	for (int r = 0; r < w->rows; r++)
	{
		CHECK_FOR_INTERRUPTS();
		q[r] = 0.0;
		for (int j = 0; j < w->cols; j++)
			q[r] += MAT(wc, r, j) * MAT(w, r, j);
	}
	mat_free(wc);
}

/*
 * Per block row, what the profile needs from one attribute: q1 = w C w^T
 * (Kronecker), or q1 = |w|^2 - (sum w)^2 / n and q2 = (sum w)^2 / n
 * (marginals: the parts of w that vary and that are constant).
 */
static void
block_factors(WorkloadBlock *b, const Mat *c, PrefixSums *ps, double *q1, double *q2)
{
	int			rows = (int) b->rows,
				n = b->size;

	if (c && b->lo)
	{
		for (int r = 0; r < rows; r++)
		{
			CHECK_FOR_INTERRUPTS();
			q1[r] = run_variance(ps, b->lo[r], b->hi[r]);
		}
		return;
	}
	if (c)
	{
		matrix_variances(b->matrix, c, q1);
		return;
	}
	for (int r = 0; r < rows; r++)
	{
		double		sq = 0.0,
					sum = 0.0;

		CHECK_FOR_INTERRUPTS();
		if (b->lo)
			sq = sum = b->hi[r] - b->lo[r];
		else
			for (int j = 0; j < n; j++)
			{
				sq += MAT(b->matrix, r, j) * MAT(b->matrix, r, j);
				sum += MAT(b->matrix, r, j);
			}
		q1[r] = sq - sum * sum / n;
		q2[r] = sum * sum / n;
	}
}

/* a marginals query's variance from its blocks' rows digit[] */
static double
marginals_variance(const HdmmInverse *inv, double **q1, double **q2, const int *digit,
				   size_t query)
{
	int			d = inv->s->nattrs;
	double		v = 0.0;

	for (int set = 0; set < 1 << d; set++)
	{
		double		part = 1.0,
					scale = 1.0;

		for (int a = 0; a < d; a++)
		{
			part *= (set & (1 << a)) ? q1[a][digit[a]] : q2[a][digit[a]];
			scale *= q1[a][digit[a]] + q2[a][digit[a]];
		}
		/* rounding leaves parts of order 1e-16 |w|^2 where the query has none */
		if (fabs(part) <= 1e-12 * scale)
			continue;
		if (!(inv->lambda[set] > 0.0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("strategy does not support workload query " UINT64_FORMAT, (uint64) query),
					 errdetail("The marginals it measures do not determine that query.")));
		v += part / inv->lambda[set];
	}
	return v;
}

/*
 * For each query of the workload (terms in order, rows in mixed radix, last
 * attribute fastest): w (A^T A)^+ w^T.  A query the strategy cannot answer
 * is refused.  Memory: the prefix sums, 2 (n_a + 1)^2 doubles per attribute,
 * and two doubles per block row.
 */
double *
hdmm_profile(const HdmmInverse *inv, const KronGram *kg, WorkloadBlock ***blocks, double m)
{
	int			d = inv->s->nattrs;
	bool		kron = inv->s->kind == HDMM_KRONECKER;
	PrefixSums **ps = palloc0(sizeof(PrefixSums *) * Max(d, 1));
	int		   *digit = palloc(sizeof(int) * Max(d, 1));
	double	   *prof;
	size_t		off = 0;

	mat_check_size(m, 1, "workload answers");
	prof = palloc_extended(sizeof(double) * Max((size_t) m, 1), MCXT_ALLOC_HUGE);
	for (int t = 0; t < kg->nterms; t++)
	{
		double	  **q1 = palloc(sizeof(double *) * d),
				  **q2 = palloc(sizeof(double *) * d);
		size_t		rows = 1;

		for (int a = 0; a < d; a++)
		{
			WorkloadBlock *b = blocks[t][a];

			/* one attribute's prefix sums serve every term */
			if (kron && b->lo && ps[a] == NULL)
				ps[a] = prefix_sums(inv->cov[a]);
			q1[a] = palloc_extended(sizeof(double) * (size_t) b->rows, MCXT_ALLOC_HUGE);
			q2[a] = palloc_extended(sizeof(double) * (size_t) b->rows, MCXT_ALLOC_HUGE);
			block_factors(b, kron ? inv->cov[a] : NULL, ps[a], q1[a], q2[a]);
			rows *= (size_t) b->rows;
		}
		for (size_t r = 0; r < rows; r++)
		{
			size_t		rest = r;

			CHECK_FOR_INTERRUPTS();
			for (int a = d - 1; a >= 0; a--)
			{
				digit[a] = rest % (size_t) blocks[t][a]->rows;
				rest /= (size_t) blocks[t][a]->rows;
			}
			if (kron)
			{
				prof[off + r] = 1.0;
				for (int a = 0; a < d; a++)
					prof[off + r] *= q1[a][digit[a]];
			}
			else
				prof[off + r] = marginals_variance(inv, q1, q2, digit, off + r + 1);
		}
		for (int a = 0; a < d; a++)
		{
			pfree(q1[a]);
			pfree(q2[a]);
		}
		pfree(q1);
		pfree(q2);
		off += rows;
	}
	for (int a = 0; a < d; a++)
		if (ps[a])
			prefix_sums_free(ps[a]);
	pfree(ps);
	pfree(digit);
	return prof;
}

/*
 * y = B x along one mode: x is left x k x right and y left x rows x right,
 * last index fastest.  Runs: each row is a difference of prefix sums along
 * the mode, all right positions at once (a (k + 1) x right buffer).  Else
 * the slabs times B^T, as mat_kron_apply.
 */
static void
block_apply_mode(WorkloadBlock *b, const double *x, double *y, size_t left, size_t right)
{
	int			k = b->size,
				rows = (int) b->rows;
	double	   *p;

	if (b->lo == NULL)
	{
		for (size_t l = 0; l < left; l++)
		{
			Mat			z = {(int) right, k, (double *) x + l * right * k};
			Mat			out = {(int) right, rows, y + l * right * rows};

			CHECK_FOR_INTERRUPTS();
			mat_mul_into(&out, &z, false, b->matrix, true);
		}
		return;
	}
	mat_check_size((double) k + 1, (double) right, "prefix sums");
	p = palloc_extended(sizeof(double) * (k + 1) * right, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	for (size_t l = 0; l < left; l++)
	{
		const double *slab = x + l * right * k;
		double	   *out = y + l * right * rows;

		for (int i = 0; i < k; i++)
		{
			CHECK_FOR_INTERRUPTS();
			for (size_t c = 0; c < right; c++)
				p[(i + 1) * right + c] = p[i * right + c] + slab[i * right + c];
		}
		for (int r = 0; r < rows; r++)
		{
			const double *top = p + (size_t) b->hi[r] * right,
					   *bottom = p + (size_t) b->lo[r] * right;

			CHECK_FOR_INTERRUPTS();
			for (size_t c = 0; c < right; c++)
				out[(size_t) r * right + c] = top[c] - bottom[c];
		}
	}
	pfree(p);
}

/*
 * Modes from .. d-1 of (B_0 x ... x B_{d-1}) applied to cur (freed), whose
 * modes before from are done (left rows of them), each cell carrying extra
 * values (1, or the draws of a simulation) as the fastest index.
 */
static double *
blocks_apply_from(WorkloadBlock **f, int d, int from, double *cur, size_t left, size_t extra)
{
	for (int a = from; a < d; a++)
	{
		size_t		right = extra;
		double		out;
		double	   *next;

		for (int b = a + 1; b < d; b++)
			right *= f[b]->size;
		out = (double) left * f[a]->rows * right;
		mat_check_size(out, 1, "Kronecker product result");
		next = palloc_extended(sizeof(double) * Max((size_t) out, 1), MCXT_ALLOC_HUGE);
		block_apply_mode(f[a], cur, next, left, right);
		pfree(cur);
		cur = next;
		left *= (size_t) f[a]->rows;
	}
	return cur;
}

static double
domain_cells(const KronGram *kg)
{
	double		n = 1.0;

	for (int a = 0; a < kg->nattrs; a++)
		n *= kg->sizes[a];
	return n;
}

/* the workload's answers on x: each term's Kronecker product applied */
double *
hdmm_workload_apply(const KronGram *kg, WorkloadBlock ***blocks, double m, const double *x)
{
	size_t		n = (size_t) domain_cells(kg);
	double	   *out;
	size_t		off = 0;

	mat_check_size(m, 1, "workload answers");
	out = palloc_extended(sizeof(double) * Max((size_t) m, 1), MCXT_ALLOC_HUGE);
	for (int t = 0; t < kg->nterms; t++)
	{
		double	   *v = palloc_extended(sizeof(double) * Max(n, 1), MCXT_ALLOC_HUGE);
		size_t		rows = 1;

		memcpy(v, x, sizeof(double) * n);
		v = blocks_apply_from(blocks[t], kg->nattrs, 0, v, 1, 1);
		for (int a = 0; a < kg->nattrs; a++)
			rows *= (size_t) blocks[t][a]->rows;
		memcpy(out + off, v, sizeof(double) * rows);
		off += rows;
		pfree(v);
	}
	return out;
}

/*
 * Simulated errors a block of queries at a time.  The draws' reconstructions
 * are kept, xd (cells x draws, draws fastest), where there are fewer cells
 * than queries; a term's queries come in blocks of rows of its first block,
 * the draws riding along every mode as one more index, so each query's
 * errors are contiguous.  Memory: xd, its prefix sums along the first
 * attribute and one block of errors, never queries x draws.
 */

/* doubles in the largest intermediate of one row of a term's first block */
static double
row_doubles(WorkloadBlock **f, int d, int draws)
{
	double		w = draws;

	for (int a = 1; a < d; a++)
		w *= Max(f[a]->rows, (double) f[a]->size);
	return w;
}

/* the most doubles the errors of one block of queries take, for a choice of path */
double
hdmm_error_block_doubles(const KronGram *kg, WorkloadBlock ***blocks, int draws)
{
	double		most = 0.0;

	for (int t = 0; t < kg->nterms; t++)
		most = Max(most, row_doubles(blocks[t], kg->nattrs, draws));
	return most;
}

/* doubles in a block of errors: bounded by one row of the first block when that is more */
#define ERROR_BLOCK_DOUBLES (1 << 20)

/* rows r0 .. r0 + c - 1 of b along the first mode of xd (k x right) into out (c x right) */
static void
first_mode_rows(WorkloadBlock *b, int r0, int c, const double *xd, const double *prefix, size_t right,
				double *out)
{
	if (b->lo)
	{
		for (int r = 0; r < c; r++)
		{
			const double *top = prefix + (size_t) b->hi[r0 + r] * right,
					   *bottom = prefix + (size_t) b->lo[r0 + r] * right;

			CHECK_FOR_INTERRUPTS();
			for (size_t j = 0; j < right; j++)
				out[(size_t) r * right + j] = top[j] - bottom[j];
		}
	}
	else
	{
		Mat		   *sub = mat_new_uninit(c, b->size);
		Mat			z = {(int) right, b->size, (double *) xd};
		Mat			y = {(int) right, c, out};

		for (int j = 0; j < b->size; j++)
			for (int r = 0; r < c; r++)
				MAT(sub, r, j) = MAT(b->matrix, r0 + r, j);
		mat_mul_into(&y, &z, false, sub, true);
		mat_free(sub);
	}
}

void
hdmm_interval_from_cells(const KronGram *kg, WorkloadBlock ***blocks, const double *xd, int draws, int k,
						 double *half)
{
	int			d = kg->nattrs;
	size_t		n0 = (size_t) kg->sizes[0],
				right = (size_t) (domain_cells(kg) / n0) * draws,
				query = 0;
	double	   *prefix;

	/* every term's first block reads the same prefix sums of xd along the first attribute */
	mat_check_size((double) n0 + 1, (double) right, "prefix sums");
	prefix = palloc_extended(sizeof(double) * (n0 + 1) * right, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	for (size_t i = 0; i < n0; i++)
	{
		CHECK_FOR_INTERRUPTS();
		for (size_t j = 0; j < right; j++)
			prefix[(i + 1) * right + j] = prefix[i * right + j] + xd[i * right + j];
	}
	for (int t = 0; t < kg->nterms; t++)
	{
		WorkloadBlock **f = blocks[t];
		int			rows0 = (int) f[0]->rows;
		int			chunk = (int) Min(rows0, Max(1.0, ERROR_BLOCK_DOUBLES / row_doubles(f, d, draws)));

		for (int r0 = 0; r0 < rows0; r0 += chunk)
		{
			int			c = Min(chunk, rows0 - r0);
			double	   *e;
			size_t		queries = c;

			mat_check_size((double) c, (double) right, "simulated errors");
			e = palloc_extended(sizeof(double) * Max(c * right, 1), MCXT_ALLOC_HUGE);
			first_mode_rows(f[0], r0, c, xd, prefix, right, e);
			e = blocks_apply_from(f, d, 1, e, c, draws);
			for (int a = 1; a < d; a++)
				queries *= (size_t) f[a]->rows;
			for (size_t q = 0; q < queries; q++)
			{
				/* one query's draws, contiguous: a 1 x draws matrix */
				Mat			row = {1, draws, e + q * draws};

				CHECK_FOR_INTERRUPTS();
				interval_from_errors(&row, (int) (query + q), k, half);
			}
			query += queries;
			pfree(e);
		}
	}
	pfree(prefix);
}
