/*
 * lapack.h -- Fortran-ABI prototypes of the BLAS/LAPACK routines we call.
 *
 * Declared here rather than through lapacke.h/cblas.h so that the only link
 * dependency is OpenBLAS itself; the trailing size_t arguments are the
 * hidden character-length arguments of gfortran-compiled LAPACK.
 */
#ifndef DPM_LAPACK_H
#define DPM_LAPACK_H

#include <stddef.h>

extern void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
				   const double *alpha, const double *a, const int *lda,
				   const double *b, const int *ldb, const double *beta,
				   double *c, const int *ldc, size_t, size_t);
extern void dgemv_(const char *t, const int *m, const int *n, const double *alpha,
				   const double *a, const int *lda, const double *x, const int *incx,
				   const double *beta, double *y, const int *incy, size_t);
extern void dsyrk_(const char *uplo, const char *t, const int *n, const int *k,
				   const double *alpha, const double *a, const int *lda,
				   const double *beta, double *c, const int *ldc, size_t, size_t);
extern void dtrsm_(const char *side, const char *uplo, const char *ta, const char *diag,
				   const int *m, const int *n, const double *alpha, const double *a, const int *lda,
				   double *b, const int *ldb, size_t, size_t, size_t, size_t);
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t);
extern void dpocon_(const char *uplo, const int *n, const double *a, const int *lda, const double *anorm,
					double *rcond, double *work, int *iwork, int *info, size_t);
extern void dsyevd_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
					double *w, double *work, const int *lwork, int *iwork, const int *liwork,
					int *info, size_t, size_t);
extern void dsytrd_(const char *uplo, const int *n, double *a, const int *lda, double *d,
					double *e, double *tau, double *work, const int *lwork, int *info, size_t);
extern void dstedc_(const char *compz, const int *n, double *d, double *e, double *z,
					const int *ldz, double *work, const int *lwork, int *iwork,
					const int *liwork, int *info, size_t);
extern void dormtr_(const char *side, const char *uplo, const char *trans, const int *m,
					const int *n, const double *a, const int *lda, const double *tau,
					double *c, const int *ldc, double *work, const int *lwork, int *info,
					size_t, size_t, size_t);
extern void dgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau,
					double *work, const int *lwork, int *info);
extern void dormqr_(const char *side, const char *trans, const int *m, const int *n,
					const int *k, const double *a, const int *lda, const double *tau,
					double *c, const int *ldc, double *work, const int *lwork, int *info,
					size_t, size_t);
extern void dgebrd_(const int *m, const int *n, double *a, const int *lda, double *d,
					double *e, double *tauq, double *taup, double *work, const int *lwork,
					int *info);
extern void dbdsdc_(const char *uplo, const char *compq, const int *n, double *d, double *e,
					double *u, const int *ldu, double *vt, const int *ldvt, double *q,
					int *iq, double *work, int *iwork, int *info, size_t, size_t);
extern void dormbr_(const char *vect, const char *side, const char *trans, const int *m,
					const int *n, const int *k, const double *a, const int *lda,
					const double *tau, double *c, const int *ldc, double *work,
					const int *lwork, int *info, size_t, size_t, size_t);
extern void dgelsd_(const int *m, const int *n, const int *nrhs, double *a, const int *lda,
					double *b, const int *ldb, double *s, const double *rcond, int *rank,
					double *work, const int *lwork, int *iwork, int *info);
extern void openblas_set_num_threads(int);

#endif
