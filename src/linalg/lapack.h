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
extern void dsyevd_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
					double *w, double *work, const int *lwork, int *iwork, const int *liwork,
					int *info, size_t, size_t);
extern void dgesdd_(const char *jobz, const int *m, const int *n, double *a, const int *lda,
					double *s, double *u, const int *ldu, double *vt, const int *ldvt,
					double *work, const int *lwork, int *iwork, int *info, size_t);
extern void dgelsd_(const int *m, const int *n, const int *nrhs, double *a, const int *lda,
					double *b, const int *ldb, double *s, const double *rcond, int *rank,
					double *work, const int *lwork, int *iwork, int *info);
extern void openblas_set_num_threads(int);

#endif
