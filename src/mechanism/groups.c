/*
 * groups.c -- the bounds of groups.h, and a dense strategy's factor.
 *
 * Why each bound holds, for x with support T (|T| <= g), |x_j| <= c:
 *   B2: A x = sum over T of x_j a_j, so ||A x|| <= c sum over T of ||a_j||
 *       (the triangle inequality, in either norm).
 *   B1: ||A x||_2^2 = x^T G x <= lambda_max(G) ||x||_2^2 <= lambda_max g c^2.
 *   B3: x^T G x <= c^2 sum over j, k in T of |G_jk| <= c^2 sum over j in T of
 *       r_j, r_j the g largest |G_jk| of row j.
 * lambda_max(G) <= rho(|G|) <= rho(|A|^T |A|) (entrywise |G| <= |A|^T |A|,
 * and rho is monotone on non-negative matrices), and for every positive v,
 * rho(M) <= max_j (M v)_j / v_j (Collatz-Wielandt), as well as the largest
 * row sum of M: both hold whatever v a few power iterations give.
 *
 * Floating point: G's entries are dot products of m terms, off by at most
 * gamma_m ||a_j|| ||a_k|| <= gamma_m S^2 (S the largest column norm,
 * gamma_m = m u / (1 - m u)), which B3 adds for every entry it sums; the
 * other sums are of non-negative terms, off by a relative (m + n) u at most,
 * far below groups_factor's relative margin of 1e-6 (which also covers a
 * strategy measured quantized, exact.h: 40 bits an entry).
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "miscadmin.h"

#include "mechanism/groups.h"

/* a Gram matrix is formed for B3 only up to this many multiply-adds (m n^2) */
#define GROUPS_GRAM_WORK	2147483648.0
/* the power iterations of groups_lambda_bound: about this many multiply-adds in all */
#define GROUPS_POWER_WORK	200000000.0

double
groups_top_sum(double *v, int n, int g)
{
	int			lo = 0,
				hi = n - 1;
	double		s = 0.0;

	if (g <= 0)
		return 0.0;
	/* quickselect (descending): afterwards v[0 .. g) are the g largest */
	while (g < n && lo < hi)
	{
		double		pivot = v[lo + (hi - lo) / 2];
		int			i = lo,
					j = hi;

		while (i <= j)
		{
			while (v[i] > pivot)
				i++;
			while (v[j] < pivot)
				j--;
			if (i <= j)
			{
				double		t = v[i];

				v[i++] = v[j];
				v[j--] = t;
			}
		}
		/* v[lo .. j] >= pivot >= v[i .. hi], v[j + 1 .. i - 1] = pivot */
		if (g - 1 <= j)
			hi = j;
		else if (g - 1 >= i)
			lo = i;
		else
			break;
	}
	for (int k = 0; k < Min(g, n); k++)
		s += v[k];
	return s;
}

typedef struct Weighted
{
	double		value;
	double		count;
} Weighted;

/* a product cur[i] * l[j] waiting in merge_top's heap */
typedef struct Cand
{
	double		value;
	int			i;
	int			j;
} Cand;

static void
sift_down(Cand *h, int n, int k)
{
	for (;;)
	{
		int			top = k,
					left = 2 * k + 1,
					right = left + 1;

		if (left < n && h[left].value > h[top].value)
			top = left;
		if (right < n && h[right].value > h[top].value)
			top = right;
		if (top == k)
			return;
		{
			Cand		t = h[k];

			h[k] = h[top];
			h[top] = t;
		}
		k = top;
	}
}

/*
 * The g largest products of cur[0 .. len) with l (both value decreasing),
 * with their multiplicities, value decreasing, into out (room for g); their
 * number.  Each cur[i] times l is a decreasing sequence: a heap of one
 * candidate per i gives the largest left, so memory and time follow g, not
 * len times l's length (10^4 groups of a factor of 10^3 columns would be
 * 10^7 products).
 */
static int
merge_top(const Weighted *cur, int len, const GroupsList *l, int g, Weighted *out)
{
	Cand	   *h;
	int			n = len,
				k = 0;
	double		held = 0.0;

	if (l->len == 0)
		return 0;
	h = palloc(sizeof(Cand) * Max(len, 1));
	for (int i = 0; i < len; i++)
		h[i] = (Cand) {cur[i].value * l->value[0], i, 0};
	for (int i = n / 2 - 1; i >= 0; i--)
		sift_down(h, n, i);
	while (n > 0 && held < g)
	{
		Cand		c = h[0];
		/* counts past g do not matter: they stay below 2^53 */
		double		count = Min(cur[c.i].count * l->count[c.j], (double) g - held);

		out[k++] = (Weighted) {c.value, count};
		held += count;
		if (c.j + 1 < l->len)
			h[0] = (Cand) {cur[c.i].value * l->value[c.j + 1], c.i, c.j + 1};
		else
			h[0] = h[--n];
		sift_down(h, n, 0);
	}
	pfree(h);
	return k;
}

/*
 * Why keeping only the g largest partial products is exact: a product among
 * the g largest of the whole has a partial product with at most g - 1 others
 * above it (all values are non-negative, so multiplying keeps the order).
 */
double
groups_top_product(const GroupsList *lists, int d, int g)
{
	Weighted   *cur = palloc(sizeof(Weighted) * Max(g, 1));
	Weighted   *next = palloc(sizeof(Weighted) * Max(g, 1));
	int			len = 1;
	double		s = 0.0;

	cur[0] = (Weighted) {1.0, 1.0};
	for (int a = 0; a < d && g > 0; a++)
	{
		Weighted   *t;

		CHECK_FOR_INTERRUPTS();
		len = merge_top(cur, len, &lists[a], g, next);
		t = cur;
		cur = next;
		next = t;
	}
	for (int i = 0; i < len && g > 0; i++)
		s += cur[i].value * cur[i].count;
	pfree(cur);
	pfree(next);
	return s;
}

static int
double_desc(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x > y ? -1 : x < y ? 1 : 0;
}

static GroupsList
list_of(double *v, int n)
{
	GroupsList	l = {n, v, palloc(sizeof(double) * Max(n, 1))};

	qsort(v, n, sizeof(double), double_desc);
	for (int i = 0; i < n; i++)
		l.count[i] = 1.0;
	return l;
}

static double
column_norm(const Mat *a, int j, int p)
{
	double		s = 0.0;

	for (int i = 0; i < a->rows; i++)
		s += p == 1 ? fabs(MAT(a, i, j)) : MAT(a, i, j) * MAT(a, i, j);
	return p == 1 ? s : sqrt(s);
}

GroupsList
groups_column_norms(const Mat *a, int p)
{
	double	   *v = palloc(sizeof(double) * Max(a->cols, 1));

	for (int j = 0; j < a->cols; j++)
		v[j] = column_norm(a, j, p);
	return list_of(v, a->cols);
}

/* gamma_m u-rounding of a dot product of m terms, times the largest squared column norm */
static double
gram_slack(const Mat *a, double largest)
{
	double		mu = (a->rows + 2) * (DBL_EPSILON / 2);

	return mu / (1.0 - mu) * largest * largest;
}

GroupsList
groups_gram_profile(const Mat *a)
{
	int			n = a->cols;
	Mat		   *gm = mat_gram(a);
	double	   *best = palloc0(sizeof(double) * Max(n, 1));
	double	   *row = palloc(sizeof(double) * Max(n, 1));
	double		largest = 0.0;
	GroupsList	l;

	for (int j = 0; j < n; j++)
		largest = Max(largest, column_norm(a, j, 2));
	for (int j = 0; j < n; j++)
	{
		CHECK_FOR_INTERRUPTS();
		for (int k = 0; k < n; k++)
			row[k] = fabs(MAT(gm, k, j));
		qsort(row, n, sizeof(double), double_desc);
		for (int t = 0; t < n; t++)
			best[t] = Max(best[t], row[t]);
	}
	for (int t = 0; t < n; t++)
		best[t] += gram_slack(a, largest);
	mat_free(gm);
	pfree(row);
	l = list_of(best, n);
	return l;
}

/* y = |A| x (trans false) or |A|^T x */
static void
abs_apply(const Mat *a, bool trans, const double *x, double *y)
{
	int			out = trans ? a->cols : a->rows;

	for (int i = 0; i < out; i++)
		y[i] = 0.0;
	for (int j = 0; j < a->cols; j++)
		for (int i = 0; i < a->rows; i++)
		{
			if (trans)
				y[j] += fabs(MAT(a, i, j)) * x[i];
			else
				y[i] += fabs(MAT(a, i, j)) * x[j];
		}
}

double
groups_lambda_bound(const Mat *a)
{
	int			m = a->rows,
				n = a->cols;
	double	   *v = palloc(sizeof(double) * Max(n, 1));
	double	   *u = palloc(sizeof(double) * Max(m, 1));
	double	   *w = palloc(sizeof(double) * Max(n, 1));
	double		work = Max(2.0 * m * n, 1.0);
	int			iters = (int) Min(Max(GROUPS_POWER_WORK / work, 3.0), 50.0);
	double		rowsum = 0.0,
				cw = 0.0;

	/* the largest row sum of |A|^T |A|: its product with the ones */
	for (int j = 0; j < n; j++)
		v[j] = 1.0;
	for (int it = 0; it <= iters; it++)
	{
		double		top = 0.0;

		CHECK_FOR_INTERRUPTS();
		abs_apply(a, false, v, u);
		abs_apply(a, true, u, w);
		if (it == 0)
			for (int j = 0; j < n; j++)
				rowsum = Max(rowsum, w[j]);
		cw = 0.0;
		for (int j = 0; j < n; j++)
			cw = Max(cw, w[j] / v[j]);
		for (int j = 0; j < n; j++)
			top = Max(top, w[j]);
		if (top == 0.0)
			return 0.0;
		/* kept positive, so that the last quotient is a bound */
		for (int j = 0; j < n; j++)
			v[j] = w[j] / top + 1e-12;
	}
	pfree(v);
	pfree(u);
	pfree(w);
	/* cw is max_j (M v)_j / v_j for the last v */
	return Min(rowsum, cw) * (1.0 + (m + n + 4) * DBL_EPSILON);
}

double
groups_factor(double bound, double largest, int g)
{
	double		f = bound / largest * (1.0 + 1e-6);

	if (!(largest > 0.0) || !(f <= g))
		return g;
	return Max(f, 1.0);
}

double
groups_dense_factor(const Mat *a, int g, int p)
{
	int			n = a->cols;
	GroupsList	norms = groups_column_norms(a, p);
	double		largest = n > 0 ? norms.value[0] : 0.0;
	double		bound = groups_top_sum(norms.value, n, g);

	if (p == 2 && largest > 0.0)
	{
		bound = Min(bound, sqrt(g * groups_lambda_bound(a)));
		if ((double) a->rows * n * n <= GROUPS_GRAM_WORK)
		{
			Mat		   *gm = mat_gram(a);
			double	   *r = palloc(sizeof(double) * n);
			double	   *row = palloc(sizeof(double) * n);
			double		slack = gram_slack(a, largest);

			for (int j = 0; j < n; j++)
			{
				CHECK_FOR_INTERRUPTS();
				for (int k = 0; k < n; k++)
					row[k] = fabs(MAT(gm, k, j));
				r[j] = groups_top_sum(row, n, g) + Min(g, n) * slack;
			}
			bound = Min(bound, sqrt(groups_top_sum(r, n, g)));
			mat_free(gm);
			pfree(r);
			pfree(row);
		}
	}
	return groups_factor(bound, largest, g);
}
