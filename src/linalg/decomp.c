/*
 * decomp.c -- the decompositions over LAPACK: symmetric eigenvalues, the SVD
 * (with the tall case through QR), least squares and the pseudo-inverse
 * (linalg.h).  Split from linalg.c, whose products and norms these build on.
 */
#include "postgres.h"

#include <float.h>
#include <limits.h>
#include <math.h>

#include "miscadmin.h"

#include "linalg/lapack.h"
#include "linalg/linalg.h"

/* LAPACK's optimal workspace from a size query, at least min */
static int
query_lwork(double wq, int min)
{
	return Max((int) wq, min);
}

/*
 * one dsyevd call, with eigenvectors (jobz "V": up to n = 1024 it takes at
 * most 0.15 s) or without ("N": the tridiagonal reduction and dsterf, at any n)
 */
static void
sym_eig_one_call(Mat *a, double *w, const char *jobz)
{
	int			n = a->rows;
	int			info,
				lwork = -1,
				liwork = -1,
				iwq;
	double		wq;
	double	   *work;
	int		   *iwork;

	dsyevd_(jobz, "U", &n, a->data, &n, w, &wq, &lwork, &iwq, &liwork, &info, 1, 1);
	lwork = query_lwork(wq, 1);
	liwork = Max(iwq, 1);
	work = vec_new(lwork);
	iwork = palloc_extended(sizeof(int) * liwork, MCXT_ALLOC_HUGE);
	dsyevd_(jobz, "U", &n, a->data, &n, w, work, &lwork, iwork, &liwork, &info, 1, 1);
	pfree(work);
	pfree(iwork);
	if (info != 0)
		elog(ERROR, "dsyevd failed to converge (info %d)", info);
}

/*
 * Above n = 1024, dsyevd's three stages called one by one (tridiagonal
 * reduction, divide and conquer on the tridiagonal matrix,
 * back-transformation), so that a cancel is seen between them: at n = 2048
 * one stage takes at most 0.35 s, the whole 0.75 s, and at n = 4096 one call
 * would hold the backend for 6 s.  Up to n = 1024 one dsyevd call is quick
 * enough, and it keeps the eigenvectors bit for bit what they were (fitness
 * for use's Newton steps depend on the basis LAPACK picks within repeated
 * eigenvalues: 80, 144 or 279 steps on one problem with three equally valid
 * eigendecompositions).  dsyevd's rescaling of matrices whose norm is beyond
 * 1e+-154 is left out of the staged path: G = W^T W of finite counts that
 * large would already have overflowed.
 */
void
mat_sym_eig(Mat *a, double *w)
{
	int			n = a->rows;
	int			info,
				lwork = -1,
				liwork = -1,
				iwq;
	double		wq;
	double	   *e,
			   *tau,
			   *work;
	int		   *iwork;
	Mat		   *z;

	Assert(a->rows == a->cols);
	if (n == 0)
		return;
	CHECK_FOR_INTERRUPTS();
	if (n <= 1024)
	{
		sym_eig_one_call(a, w, "V");
		return;
	}
	e = vec_new(n);
	tau = vec_new(n);
	z = mat_new(n, n);

	dsytrd_("L", &n, a->data, &n, w, e, tau, &wq, &lwork, &info, 1);
	lwork = query_lwork(wq, 1);
	work = vec_new(lwork);
	dsytrd_("L", &n, a->data, &n, w, e, tau, work, &lwork, &info, 1);
	pfree(work);
	if (info != 0)
		elog(ERROR, "dsytrd: illegal argument %d", -info);
	CHECK_FOR_INTERRUPTS();

	lwork = -1;
	dstedc_("I", &n, w, e, z->data, &n, &wq, &lwork, &iwq, &liwork, &info, 1);
	lwork = query_lwork(wq, 1 + 4 * n + n * n);
	liwork = Max(iwq, 3 + 5 * n);
	work = vec_new(lwork);
	iwork = palloc_extended(sizeof(int) * liwork, MCXT_ALLOC_HUGE);
	dstedc_("I", &n, w, e, z->data, &n, work, &lwork, iwork, &liwork, &info, 1);
	pfree(work);
	pfree(iwork);
	if (info != 0)
		elog(ERROR, "dstedc failed to converge (info %d)", info);
	CHECK_FOR_INTERRUPTS();

	/* eigenvectors of A = Q (eigenvectors of the tridiagonal matrix) */
	lwork = -1;
	dormtr_("L", "L", "N", &n, &n, a->data, &n, tau, z->data, &n, &wq, &lwork, &info, 1, 1, 1);
	lwork = query_lwork(wq, n);
	work = vec_new(lwork);
	dormtr_("L", "L", "N", &n, &n, a->data, &n, tau, z->data, &n, work, &lwork, &info, 1, 1, 1);
	pfree(work);
	if (info != 0)
		elog(ERROR, "dormtr: illegal argument %d", -info);
	memcpy(a->data, z->data, sizeof(double) * (size_t) n * n);
	mat_free(z);
	pfree(e);
	pfree(tau);
}

void
mat_sym_eigvals(Mat *a, double *w)
{
	if (a->rows == 0)
		return;
	CHECK_FOR_INTERRUPTS();
	sym_eig_one_call(a, w, "N");
}

double
svd_tolerance(const Svd *svd, int rows, int cols)
{
	double		smax = svd->r > 0 ? svd->s[0] : 0.0;

	/* the numpy/MATLAB convention for rank decisions */
	return smax * Max(rows, cols) * DBL_EPSILON;
}

/*
 * SVD of a tall matrix (m >= n; a is overwritten): u (m x n), s, vt (n x n).
 * dgesdd's own path for jobz = 'S' (QR first when m is well above n, then
 * bidiagonalization, divide and conquer on the bidiagonal matrix, and the
 * back-transformations), called stage by stage so that a cancel is seen
 * between them (see mat_sym_eig).
 */
static void
svd_tall(Mat *a, double *s, Mat *u, Mat *vt)
{
	int			m = a->rows,
				n = a->cols,
				info,
				lwork,
				rm;
	double		wq;
	double	   *work,
			   *e,
			   *tauq,
			   *taup,
			   *tau = NULL;
	int		   *iwork;
	bool		qr = m >= n * 11 / 6 && m > n;	/* dgesdd's crossover */
	Mat		   *r = a,
			   *ur;

	CHECK_FOR_INTERRUPTS();
	if (qr)
	{
		tau = vec_new(n);
		lwork = -1;
		dgeqrf_(&m, &n, a->data, &m, tau, &wq, &lwork, &info);
		lwork = query_lwork(wq, n);
		work = vec_new(lwork);
		dgeqrf_(&m, &n, a->data, &m, tau, work, &lwork, &info);
		pfree(work);
		if (info != 0)
			elog(ERROR, "dgeqrf: illegal argument %d", -info);
		CHECK_FOR_INTERRUPTS();
		r = mat_new(n, n);
		for (int j = 0; j < n; j++)
			memcpy(&MAT(r, 0, j), &MAT(a, 0, j), sizeof(double) * (j + 1));
	}
	rm = r->rows;

	/* R = Q_b B P_b^T with B upper bidiagonal (diagonal into s) */
	e = vec_new(n);
	tauq = vec_new(n);
	taup = vec_new(n);
	lwork = -1;
	dgebrd_(&rm, &n, r->data, &rm, s, e, tauq, taup, &wq, &lwork, &info);
	lwork = query_lwork(wq, rm + n);
	work = vec_new(lwork);
	dgebrd_(&rm, &n, r->data, &rm, s, e, tauq, taup, work, &lwork, &info);
	pfree(work);
	if (info != 0)
		elog(ERROR, "dgebrd: illegal argument %d", -info);
	CHECK_FOR_INTERRUPTS();

	/* B = U_b S V_b^T, singular values in decreasing order */
	ur = mat_new(rm, n);
	{
		Mat		   *ub = mat_new(n, n);

		work = vec_new((size_t) 3 * n * n + 4 * (size_t) n);
		iwork = palloc_extended(sizeof(int) * 8 * (size_t) n, MCXT_ALLOC_HUGE);
		dbdsdc_("U", "I", &n, s, e, ub->data, &n, vt->data, &n, NULL, NULL, work, iwork,
				&info, 1, 1);
		pfree(work);
		pfree(iwork);
		if (info != 0)
			elog(ERROR, "dbdsdc failed to converge (info %d)", info);
		for (int j = 0; j < n; j++)
			memcpy(&MAT(ur, 0, j), &MAT(ub, 0, j), sizeof(double) * n);
		mat_free(ub);
	}
	CHECK_FOR_INTERRUPTS();

	/* U_r = Q_b [U_b; 0], V^T = V_b^T P_b^T */
	lwork = -1;
	dormbr_("Q", "L", "N", &rm, &n, &n, r->data, &rm, tauq, ur->data, &rm, &wq, &lwork, &info,
			1, 1, 1);
	lwork = query_lwork(wq, n);
	work = vec_new(lwork);
	dormbr_("Q", "L", "N", &rm, &n, &n, r->data, &rm, tauq, ur->data, &rm, work, &lwork, &info,
			1, 1, 1);
	pfree(work);
	lwork = -1;
	dormbr_("P", "R", "T", &n, &n, &rm, r->data, &rm, taup, vt->data, &n, &wq, &lwork, &info,
			1, 1, 1);
	lwork = query_lwork(wq, n);
	work = vec_new(lwork);
	dormbr_("P", "R", "T", &n, &n, &rm, r->data, &rm, taup, vt->data, &n, work, &lwork, &info,
			1, 1, 1);
	pfree(work);
	if (info != 0)
		elog(ERROR, "dormbr: illegal argument %d", -info);
	pfree(e);
	pfree(tauq);
	pfree(taup);

	/* U = Q [U_r; 0] */
	for (int j = 0; j < n; j++)
	{
		memcpy(&MAT(u, 0, j), &MAT(ur, 0, j), sizeof(double) * rm);
		memset(&MAT(u, rm, j), 0, sizeof(double) * (m - rm));
	}
	mat_free(ur);
	if (qr)
	{
		CHECK_FOR_INTERRUPTS();
		mat_free(r);
		lwork = -1;
		dormqr_("L", "N", &m, &n, &n, a->data, &m, tau, u->data, &m, &wq, &lwork, &info, 1, 1);
		lwork = query_lwork(wq, n);
		work = vec_new(lwork);
		dormqr_("L", "N", &m, &n, &n, a->data, &m, tau, u->data, &m, work, &lwork, &info, 1, 1);
		pfree(work);
		pfree(tau);
		if (info != 0)
			elog(ERROR, "dormqr: illegal argument %d", -info);
	}
}

Svd *
mat_svd(const Mat *a, bool want_u)
{
	int			m = a->rows,
				n = a->cols,
				r = Min(m, n);
	Svd		   *svd = palloc0(sizeof(Svd));

	svd->r = r;
	svd->s = vec_new(r);
	if (r == 0)
	{
		svd->u = mat_new(m, 0);
		svd->v = mat_new(n, 0);
	}
	else if (m >= n)
	{
		Mat		   *acopy = mat_copy(a),
				   *vt = mat_new(n, n);

		svd->u = mat_new(m, n);
		svd_tall(acopy, svd->s, svd->u, vt);
		mat_free(acopy);
		svd->v = mat_transpose(vt);
		mat_free(vt);
	}
	else
	{
		/* A^T = U' S V'^T, so A = V' S U'^T: U = V', V = U' */
		Mat		   *at = mat_transpose(a),
				   *vt = mat_new(m, m);

		svd->v = mat_new(n, m);
		svd_tall(at, svd->s, svd->v, vt);
		mat_free(at);
		svd->u = mat_transpose(vt);
		mat_free(vt);
	}
	if (!want_u)
	{
		mat_free(svd->u);
		svd->u = NULL;
	}

	{
		double		tol = svd_tolerance(svd, m, n);

		svd->rank = 0;
		while (svd->rank < r && svd->s[svd->rank] > tol)
			svd->rank++;
	}
	return svd;
}

double *
mat_lstsq(const Mat *a, const double *b, int *rank)
{
	int			m = a->rows,
				n = a->cols,
				nrhs = 1,
				ldb = Max(m, n);
	int			info,
				lwork = -1,
				rk,
				iwq;
	/*
	 * The rank decision of svd_tolerance: with dgelsd's default (machine
	 * precision) a rank-deficient A keeps singular values that are rounding
	 * noise, and the estimate blows up along them.
	 */
	double		rcond = Max(m, n) * DBL_EPSILON,
				wq;
	double	   *work,
			   *s,
			   *x;
	int		   *iwork;
	Mat		   *acopy = mat_copy(a);

	x = vec_new(ldb);
	memcpy(x, b, sizeof(double) * m);
	s = vec_new(Min(m, n));
	if (m == 0 || n == 0)
	{
		*rank = 0;
		return x;
	}
	/* SVD-based: stable for ill-conditioned strategies and minimum-norm if rank deficient */
	dgelsd_(&m, &n, &nrhs, acopy->data, &m, x, &ldb, s, &rcond, &rk,
			&wq, &lwork, &iwq, &info);
	lwork = (int) wq;
	work = vec_new(lwork);
	iwork = palloc_extended(sizeof(int) * Max(iwq, 1), MCXT_ALLOC_HUGE);
	dgelsd_(&m, &n, &nrhs, acopy->data, &m, x, &ldb, s, &rcond, &rk,
			work, &lwork, iwork, &info);
	pfree(work);
	pfree(iwork);
	pfree(s);
	mat_free(acopy);
	if (info != 0)
		elog(ERROR, "dgelsd failed to converge (info %d)", info);
	if (rank)
		*rank = rk;
	return x;
}

Mat *
mat_pinv(const Mat *a)
{
	return svd_pinv(mat_svd(a, true), a->rows, a->cols);
}

Mat *
svd_pinv(const Svd *svd, int rows, int cols)
{
	Mat		   *vs = mat_new(cols, svd->rank);
	Mat		   *ur = mat_new(rows, svd->rank);
	Mat		   *p;

	/* A^+ = V_r diag(1/s_r) U_r^T */
	for (int j = 0; j < svd->rank; j++)
	{
		for (int i = 0; i < cols; i++)
			MAT(vs, i, j) = MAT(svd->v, i, j) / svd->s[j];
		memcpy(&MAT(ur, 0, j), &MAT(svd->u, 0, j), sizeof(double) * rows);
	}
	p = mat_mul(vs, false, ur, true);
	mat_free(vs);
	mat_free(ur);
	return p;
}
