/*
 * linalg.c -- thin wrappers over BLAS-3 and LAPACK.
 *
 * Every O(n^3) operation in dpmatrix goes through one of these calls; the
 * hand-written loops here are O(size of the matrix) only.
 */
#include "postgres.h"

#include <float.h>
#include <limits.h>
#include <math.h>

#include "miscadmin.h"
#include "utils/memutils.h"

#include "linalg/lapack.h"
#include "linalg/linalg.h"

/* dpm.max_matrix_mb: refuse any single dense matrix larger than this */
int			dpm_max_matrix_mb = 1024;

void
mat_check_size(double rows, double cols, const char *what)
{
	double		mb = rows * cols * sizeof(double) / (1024.0 * 1024.0);

	if (rows > INT_MAX || cols > INT_MAX || mb > dpm_max_matrix_mb)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s of %.0f x %.0f needs %.0f MB, the limit is %d MB",
						what, rows, cols, ceil(mb), dpm_max_matrix_mb),
				 errhint("Use a smaller domain or workload, or raise dpm.max_matrix_mb.")));
}

double *
vec_new(size_t count)
{
	return (double *) palloc_extended(Max(count, 1) * sizeof(double),
									  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
}

Mat *
mat_new(int rows, int cols)
{
	Mat		   *m = mat_new_uninit(rows, cols);

	memset(m->data, 0, sizeof(double) * (size_t) rows * cols);
	return m;
}

/* the same, its contents left undefined: for callers that write every element */
Mat *
mat_new_uninit(int rows, int cols)
{
	Mat		   *m = palloc(sizeof(Mat));

	Assert(rows >= 0 && cols >= 0);
	mat_check_size(rows, cols, "matrix");
	m->rows = rows;
	m->cols = cols;
	m->data = palloc_extended(Max((size_t) rows * cols, 1) * sizeof(double), MCXT_ALLOC_HUGE);
	return m;
}

Mat *
mat_copy(const Mat *a)
{
	Mat		   *m = mat_new(a->rows, a->cols);

	memcpy(m->data, a->data, sizeof(double) * (size_t) a->rows * a->cols);
	return m;
}

Mat *
mat_identity(int n)
{
	Mat		   *m = mat_new(n, n);

	for (int i = 0; i < n; i++)
		MAT(m, i, i) = 1.0;
	return m;
}

void
mat_free(Mat *a)
{
	if (a)
	{
		pfree(a->data);
		pfree(a);
	}
}

void
mat_mul_into(Mat *c, const Mat *a, bool ta, const Mat *b, bool tb)
{
	int			m = ta ? a->cols : a->rows;
	int			k = ta ? a->rows : a->cols;
	int			kb = tb ? b->cols : b->rows;
	int			n = tb ? b->rows : b->cols;
	double		one = 1.0,
				zero = 0.0;

	if (k != kb || c->rows != m || c->cols != n)
		elog(ERROR, "mat_mul: shapes %d x %d, %d x %d and %d x %d do not fit",
			 m, k, kb, n, c->rows, c->cols);
	if (m == 0 || n == 0)
		return;
	if (k == 0)
		memset(c->data, 0, sizeof(double) * m * n);
	else
		dgemm_(ta ? "T" : "N", tb ? "T" : "N", &m, &n, &k, &one,
			   a->data, &(int){Max(a->rows, 1)}, b->data, &(int){Max(b->rows, 1)},
			   &zero, c->data, &(int){Max(m, 1)}, 1, 1);
}

Mat *
mat_mul(const Mat *a, bool ta, const Mat *b, bool tb)
{
	int			k = ta ? a->rows : a->cols;
	int			kb = tb ? b->cols : b->rows;
	Mat		   *c;

	if (k != kb)
		elog(ERROR, "mat_mul: inner dimensions %d and %d differ", k, kb);
	c = mat_new(ta ? a->cols : a->rows, tb ? b->rows : b->cols);
	mat_mul_into(c, a, ta, b, tb);
	return c;
}

void
mat_vec(const Mat *a, bool ta, const double *x, double *y)
{
	double		one = 1.0,
				zero = 0.0;
	int			inc = 1;

	if (a->rows == 0 || a->cols == 0)
	{
		memset(y, 0, sizeof(double) * (ta ? a->cols : a->rows));
		return;
	}
	dgemv_(ta ? "T" : "N", &a->rows, &a->cols, &one, a->data, &a->rows,
		   x, &inc, &zero, y, &inc, 1);
}

void
mat_gram_into(Mat *g, const Mat *a)
{
	int			n = a->cols;
	double		one = 1.0,
				zero = 0.0;

	Assert(g->rows == n && g->cols == n);
	if (n == 0)
		return;
	if (a->rows == 0)
		memset(g->data, 0, sizeof(double) * n * n);
	else
		dsyrk_("U", "T", &n, &a->rows, &one, a->data, &a->rows, &zero,
			   g->data, &n, 1, 1);
	/* dsyrk fills one triangle; mirror it so callers see a full matrix */
	for (int j = 0; j < n; j++)
		for (int i = j + 1; i < n; i++)
			MAT(g, i, j) = MAT(g, j, i);
}

Mat *
mat_gram(const Mat *a)
{
	Mat		   *g = mat_new(a->cols, a->cols);

	mat_gram_into(g, a);
	return g;
}

Mat *
mat_kron(const Mat *a, const Mat *b)
{
	Mat		   *c;

	mat_check_size((double) a->rows * b->rows, (double) a->cols * b->cols, "matrix");
	c = mat_new(a->rows * b->rows, a->cols * b->cols);
	for (int ja = 0; ja < a->cols; ja++)
		for (int ia = 0; ia < a->rows; ia++)
		{
			double		s = MAT(a, ia, ja);

			if (s == 0.0)
				continue;
			for (int jb = 0; jb < b->cols; jb++)
				for (int ib = 0; ib < b->rows; ib++)
					MAT(c, ia * b->rows + ib, ja * b->cols + jb) = s * MAT(b, ib, jb);
		}
	return c;
}

Mat *
mat_vstack(const Mat *a, const Mat *b)
{
	Mat		   *c;

	if (a->cols != b->cols)
		elog(ERROR, "mat_vstack: column counts %d and %d differ", a->cols, b->cols);
	c = mat_new(a->rows + b->rows, a->cols);
	for (int j = 0; j < a->cols; j++)
	{
		memcpy(&MAT(c, 0, j), &MAT(a, 0, j), sizeof(double) * a->rows);
		memcpy(&MAT(c, a->rows, j), &MAT(b, 0, j), sizeof(double) * b->rows);
	}
	return c;
}

bool
mat_cholesky(Mat *a)
{
	int			info;

	Assert(a->rows == a->cols);
	if (a->rows == 0)
		return true;
	dpotrf_("L", &a->rows, a->data, &a->rows, &info, 1);
	if (info < 0)
		elog(ERROR, "dpotrf: illegal argument %d", -info);
	/* zero the strict upper triangle so the factor can be used as a plain matrix */
	for (int j = 1; j < a->cols; j++)
		for (int i = 0; i < j; i++)
			MAT(a, i, j) = 0.0;
	return info == 0;
}

void
mat_solve_lower(const Mat *l, Mat *b, bool trans)
{
	double		one = 1.0;

	Assert(l->rows == l->cols && b->rows == l->rows);
	if (b->rows == 0 || b->cols == 0)
		return;
	dtrsm_("L", "L", trans ? "T" : "N", "N", &b->rows, &b->cols, &one, l->data, &l->rows,
		   b->data, &b->rows, 1, 1, 1, 1);
}

void
mat_solve_right_chol(Mat *b, const Mat *l)
{
	double		one = 1.0;

	Assert(l->rows == l->cols && b->cols == l->rows);
	if (b->rows == 0 || b->cols == 0)
		return;
	/* b L^-T, then (b L^-T) L^-1 */
	dtrsm_("R", "L", "T", "N", &b->rows, &b->cols, &one, l->data, &l->rows, b->data, &b->rows,
		   1, 1, 1, 1);
	dtrsm_("R", "L", "N", "N", &b->rows, &b->cols, &one, l->data, &l->rows, b->data, &b->rows,
		   1, 1, 1, 1);
}

void
mat_solve_right_lower_t(Mat *b, const Mat *l)
{
	double		one = 1.0;

	Assert(l->rows == l->cols && b->cols == l->rows);
	if (b->rows == 0 || b->cols == 0)
		return;
	dtrsm_("R", "L", "T", "N", &b->rows, &b->cols, &one, l->data, &l->rows, b->data, &b->rows,
		   1, 1, 1, 1);
}

double
mat_cholesky_rcond(const Mat *l, double norm1)
{
	int			n = l->rows,
				info;
	double		rcond;
	double	   *work = palloc(sizeof(double) * 3 * Max(n, 1));
	int		   *iwork = palloc(sizeof(int) * Max(n, 1));

	if (n == 0)
		return 1.0;
	dpocon_("L", &n, l->data, &n, &norm1, &rcond, work, iwork, &info, 1);
	if (info != 0)
		elog(ERROR, "dpocon: illegal argument %d", -info);
	pfree(work);
	pfree(iwork);
	return rcond;
}

/* A^T, column-major, in tiles so both sides stay in cache */
Mat *
mat_transpose(const Mat *a)
{
	Mat		   *t = mat_new(a->cols, a->rows);

	for (int j0 = 0; j0 < a->cols; j0 += 64)
		for (int i0 = 0; i0 < a->rows; i0 += 64)
			for (int j = j0; j < Min(j0 + 64, a->cols); j++)
				for (int i = i0; i < Min(i0 + 64, a->rows); i++)
					MAT(t, j, i) = MAT(a, i, j);
	return t;
}

double
mat_max_col_norm(const Mat *a, int p)
{
	double		best = 0.0;

	for (int j = 0; j < a->cols; j++)
	{
		/* four partial sums: the loop runs at memory speed, not at one add's latency */
		double		s[4] = {0.0, 0.0, 0.0, 0.0},
					t;
		const double *col = &MAT(a, 0, j);
		int			i = 0;

		if (p == 1)
			for (; i + 4 <= a->rows; i += 4)
				for (int k = 0; k < 4; k++)
					s[k] += fabs(col[i + k]);
		else
			for (; i + 4 <= a->rows; i += 4)
				for (int k = 0; k < 4; k++)
					s[k] += col[i + k] * col[i + k];
		for (; i < a->rows; i++)
			s[0] += (p == 1) ? fabs(col[i]) : col[i] * col[i];
		t = (s[0] + s[1]) + (s[2] + s[3]);
		if (p == 2)
			t = sqrt(t);
		best = Max(best, t);
	}
	return best;
}

double *
mat_kron_apply(Mat *const *f, int d, const double *x)
{
	double		len = 1.0;
	double	   *cur,
			   *next;
	size_t		left = 1,
				right;

	for (int a = 0; a < d; a++)
		len *= f[a]->cols;
	cur = palloc_extended(sizeof(double) * Max((size_t) len, 1), MCXT_ALLOC_HUGE);
	memcpy(cur, x, sizeof(double) * (size_t) len);
	for (int a = 0; a < d; a++)
	{
		const Mat  *m = f[a];
		double		out = 1.0;

		/* cur has dims r_1..r_{a-1} (left), c_a, c_{a+1}..c_d (right), last fastest */
		right = 1;
		for (int b = a + 1; b < d; b++)
			right *= f[b]->cols;
		for (int b = 0; b <= a; b++)
			out *= f[b]->rows;
		out *= right;
		mat_check_size(out, 1, "Kronecker product result");
		next = palloc_extended(sizeof(double) * Max((size_t) out, 1), MCXT_ALLOC_HUGE);
		if (right == 1 && left <= INT_MAX)
		{
			/* the last mode: all slabs at once, c_a x left times M on the left */
			Mat			z = {m->cols, (int) left, cur};
			Mat			y = {m->rows, (int) left, next};

			mat_mul_into(&y, m, false, &z, false);
		}
		else
		{
			for (size_t l = 0; l < left; l++)
			{
				/* the slab (right x c_a, column-major) times M^T gives right x r_a */
				Mat			z = {(int) right, m->cols, cur + l * right * m->cols};
				Mat			y = {(int) right, m->rows, next + l * right * m->rows};

				CHECK_FOR_INTERRUPTS();
				mat_mul_into(&y, &z, false, m, true);
			}
		}
		pfree(cur);
		cur = next;
		left *= m->rows;
	}
	return cur;
}

/* the largest row norm (p = 1 or 2): A's sensitivity when a holds A^T */
double
mat_max_row_norm(const Mat *a, int p)
{
	double	   *acc = palloc0(sizeof(double) * Max(a->rows, 1));
	double		best = 0.0;

	/* column by column, accumulating every row at once: one pass at memory speed */
	for (int j = 0; j < a->cols; j++)
	{
		const double *col = &MAT(a, 0, j);

		if (p == 1)
			for (int i = 0; i < a->rows; i++)
				acc[i] += fabs(col[i]);
		else
			for (int i = 0; i < a->rows; i++)
				acc[i] += col[i] * col[i];
	}
	for (int i = 0; i < a->rows; i++)
		best = Max(best, p == 2 ? sqrt(acc[i]) : acc[i]);
	pfree(acc);
	return best;
}

double
vec_max_abs(const double *v, size_t len)
{
	/* four running maxima: the loop is bound by memory, not by one dependency chain */
	double		m0 = 0.0,
				m1 = 0.0,
				m2 = 0.0,
				m3 = 0.0;
	size_t		i = 0;

	for (; i + 4 <= len; i += 4)
	{
		m0 = Max(m0, fabs(v[i]));
		m1 = Max(m1, fabs(v[i + 1]));
		m2 = Max(m2, fabs(v[i + 2]));
		m3 = Max(m3, fabs(v[i + 3]));
	}
	for (; i < len; i++)
		m0 = Max(m0, fabs(v[i]));
	return Max(Max(m0, m1), Max(m2, m3));
}

/*
 * With the default sizes, a context reset every iteration grows fresh blocks
 * each time (8 kB, 16 kB, ... doubling), and malloc maps and unmaps the large
 * ones: page faults took a tenth of fitness for use's time on small problems
 * (d = 32).  A 1 MB first block is allocated once and kept by every reset, so
 * a reset gives back only the chunks above 8 kB, each its own malloc block
 * as it would be when freed by hand.
 */
#define LOOP_CONTEXT_BLOCK (1024 * 1024)

MemoryContext
mat_loop_context(const char *name)
{
	/* the Internal form: AllocSetContextCreate checks that name is a literal, which ours are */
	return AllocSetContextCreateInternal(CurrentMemoryContext, name, 0, LOOP_CONTEXT_BLOCK,
										 ALLOCSET_DEFAULT_MAXSIZE);
}
