/*
 * linalg.h -- dense matrices and the BLAS/LAPACK calls dpmatrix is built on.
 *
 * Matrices are column-major (LAPACK's layout) and palloc'd in the current
 * memory context.  Nothing here knows about fmgr or SQL; failures of LAPACK
 * routines are reported with elog(ERROR) because they indicate a bug or a
 * numerically impossible input that the caller should have rejected.
 */
#ifndef DPM_LINALG_H
#define DPM_LINALG_H

#include <stddef.h>

typedef struct Mat
{
	int			rows;
	int			cols;
	double	   *data;			/* column-major: element (i,j) at data[i + j*rows] */
} Mat;

#define MAT(M, i, j) ((M)->data[(size_t) (i) + (size_t) (j) * (size_t) (M)->rows])

/* dpm.max_matrix_mb: the largest single dense matrix we allocate */
extern int	dpm_max_matrix_mb;

/* allocation (zero-filled); refuses sizes above dpm.max_matrix_mb */
extern Mat *mat_new(int rows, int cols);
extern Mat *mat_new_uninit(int rows, int cols);
extern Mat *mat_copy(const Mat *a);
extern Mat *mat_identity(int n);
extern void mat_free(Mat *a);
extern void mat_check_size(double rows, double cols, const char *what);
/* count doubles (at least one), zero-filled, beyond 1 GB if need be (LAPACK's workspaces) */
extern double *vec_new(size_t count);

/* C = alpha * op(A) op(B), op = transpose when the flag is set (dgemm) */
extern Mat *mat_mul(const Mat *a, bool ta, const Mat *b, bool tb);
/* the same into an existing c of the right shape (no allocation in loops) */
extern void mat_mul_into(Mat *c, const Mat *a, bool ta, const Mat *b, bool tb);
/* y = op(A) x (dgemv) */
extern void mat_vec(const Mat *a, bool ta, const double *x, double *y);
/* Gram matrix A^T A (dsyrk), full symmetric result */
extern Mat *mat_gram(const Mat *a);
extern void mat_gram_into(Mat *g, const Mat *a);
/* Kronecker product */
extern Mat *mat_kron(const Mat *a, const Mat *b);
/*
 * (f_0 x f_1 x ... x f_{d-1}) x without forming the product: one matrix
 * product per mode.  x is indexed in mixed radix, last factor fastest.
 */
extern double *mat_kron_apply(Mat *const *f, int d, const double *x);
/* stack rows of b below a (union of query sets) */
extern Mat *mat_vstack(const Mat *a, const Mat *b);

/* Cholesky factor of a symmetric positive definite matrix, lower triangle; false if not PD */
extern bool mat_cholesky(Mat *a);
/* b := L^-1 b, or L^-T b when trans, for a lower triangular L (dtrsm) */
extern void mat_solve_lower(const Mat *l, Mat *b, bool trans);
/* b := b X^-1 for X = L L^T, given the factor L from mat_cholesky (two dtrsm) */
extern void mat_solve_right_chol(Mat *b, const Mat *l);
/* b := b L^-T for a lower triangular L (dtrsm) */
extern void mat_solve_right_lower_t(Mat *b, const Mat *l);
/*
 * The reciprocal condition number (1-norm, LAPACK's estimate, dpocon) of
 * X = L L^T, given its factor L from mat_cholesky and ||X||_1.
 */
extern double mat_cholesky_rcond(const Mat *l, double norm1);

/* symmetric eigendecomposition: eigenvalues ascending in w, eigenvectors replace a (dsyevd) */
extern void mat_sym_eig(Mat *a, double *w);
/* its eigenvalues alone, ascending (dsyevd without vectors: the tridiagonal reduction and dsterf); a is destroyed */
extern void mat_sym_eigvals(Mat *a, double *w);

/*
 * Thin SVD A = U diag(s) V^T with r = min(m, n) (dgesdd).  U is m x r, V is
 * n x r.  Either output may be NULL when not needed.
 */
typedef struct Svd
{
	Mat		   *u;
	double	   *s;				/* descending, length r */
	Mat		   *v;
	int			r;
	int			rank;			/* singular values above the tolerance */
} Svd;

extern Svd *mat_svd(const Mat *a, bool want_u);

/* minimum-norm least squares solution of A x = b for one right-hand side (dgelsd) */
extern double *mat_lstsq(const Mat *a, const double *b, int *rank);

/* Moore-Penrose pseudo-inverse via SVD */
extern Mat *mat_pinv(const Mat *a);
/* the same from A's thin SVD (with U), A being rows x cols */
extern Mat *svd_pinv(const Svd *svd, int rows, int cols);

/* column norms: max_j sum_i |a_ij| (p = 1) or max_j sqrt(sum_i a_ij^2) (p = 2) */
extern double mat_max_col_norm(const Mat *a, int p);
/* the largest row norm, p = 1 or 2 */
extern double mat_max_row_norm(const Mat *a, int p);
/* A^T */
extern Mat *mat_transpose(const Mat *a);

/* relative tolerance below which a singular value counts as zero */
extern double svd_tolerance(const Svd *svd, int rows, int cols);

/* the largest |v_i|, 0 for an empty vector */
extern double vec_max_abs(const double *v, size_t len);

/*
 * A sum carried with its rounding error (Neumaier's compensated summation):
 * off by about one rounding whatever the number of terms, where a plain
 * sum of n terms may be off by n of them.  A strategy's total error over
 * 10^8 queries is divided by its lower bound, and the ratio must not
 * round below 1.
 */
typedef struct VecSum
{
	double		sum;
	double		carry;
} VecSum;

static inline void
vec_sum_add(VecSum *s, double x)
{
	double		t = s->sum + x;

	if ((s->sum >= 0 ? s->sum : -s->sum) >= (x >= 0 ? x : -x))
		s->carry += (s->sum - t) + x;
	else
		s->carry += (x - t) + s->sum;
	s->sum = t;
}

static inline double
vec_sum_value(const VecSum *s)
{
	return s->sum + s->carry;
}

/*
 * A child of the current memory context for the matrices of one iteration
 * of a loop, which resets it each time round (MemoryContextReset) and
 * deletes it after.  Its first block, kept by a reset, holds an iteration's
 * small chunks (see linalg.c).  name: a string constant.
 */
extern MemoryContext mat_loop_context(const char *name);

#endif
