/*
 * rates.c -- this machine's dense linear algebra rates through the OpenBLAS
 * the extension links: dgemm (the reference rate) against the symmetric
 * eigendecomposition (dsyevd, and its three stages dsytrd, dstedc, dormtr,
 * which is how the extension runs it so that it can be cancelled between
 * stages) and the SVD (dgesdd).  Prints "name n seconds gflops" lines for
 * bench/linalg.sh.  Flop counts are the usual nominal ones: 2n^3 for dgemm,
 * 4/3 n^3 for the tridiagonal reduction, 2n^3 for applying its reflectors
 * to the n eigenvectors, and so 10/3 n^3 for the whole eigendecomposition
 * (divide and conquer on the tridiagonal matrix does work that depends on
 * deflation and is left out, so that rate is a lower bound); 12n^3 for the
 * SVD with both factors (Golub and Van Loan's R-SVD count, m = n).
 *
 * Build: cc -O2 -o rates rates.c -lopenblas
 * Run:   OPENBLAS_NUM_THREADS=2 ./rates 2048
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern void dgemm_(const char *, const char *, const int *, const int *, const int *,
				   const double *, const double *, const int *, const double *, const int *,
				   const double *, double *, const int *, size_t, size_t);
extern void dsyevd_(const char *, const char *, const int *, double *, const int *, double *,
					double *, const int *, int *, const int *, int *, size_t, size_t);
extern void dsytrd_(const char *, const int *, double *, const int *, double *, double *,
					double *, double *, const int *, int *, size_t);
extern void dstedc_(const char *, const int *, double *, double *, double *, const int *,
					double *, const int *, int *, const int *, int *, size_t);
extern void dormtr_(const char *, const char *, const char *, const int *, const int *,
					const double *, const int *, const double *, double *, const int *,
					double *, const int *, int *, size_t, size_t, size_t);
extern void dgesdd_(const char *, const int *, const int *, double *, const int *, double *,
					double *, const int *, double *, const int *, double *, const int *,
					int *, int *, size_t);

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void
report(const char *name, int n, double secs, double flops)
{
	printf("%s %d %.4f %.2f\n", name, n, secs, flops / secs * 1e-9);
}

/* a random symmetric matrix with a spread spectrum (a Gram matrix G = B^T B) */
static void
fill_gram(double *g, int n)
{
	double	   *b = malloc(sizeof(double) * n * n);
	double		one = 1.0,
				zero = 0.0;

	for (size_t i = 0; i < (size_t) n * n; i++)
		b[i] = (double) rand() / RAND_MAX - 0.5;
	dgemm_("T", "N", &n, &n, &n, &one, b, &n, b, &n, &zero, g, &n, 1, 1);
	free(b);
}

int
main(int argc, char **argv)
{
	int			n = argc > 1 ? atoi(argv[1]) : 2048;
	size_t		nn = (size_t) n * n;
	double	   *a = malloc(sizeof(double) * nn),
			   *b = malloc(sizeof(double) * nn),
			   *c = malloc(sizeof(double) * nn),
			   *g = malloc(sizeof(double) * nn),
			   *w = malloc(sizeof(double) * n),
			   *e = malloc(sizeof(double) * n),
			   *tau = malloc(sizeof(double) * n);
	double		one = 1.0,
				zero = 0.0,
				wq,
				t0,
				best;
	int			info,
				lwork,
				liwork,
				iwq;
	double	   *work;
	int		   *iwork;

	srand(1);
	for (size_t i = 0; i < nn; i++)
	{
		a[i] = (double) rand() / RAND_MAX;
		b[i] = (double) rand() / RAND_MAX;
	}
	/* dgemm: best of 3 after a warm-up */
	dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
	best = 1e300;
	for (int r = 0; r < 3; r++)
	{
		t0 = now();
		dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
		if (now() - t0 < best)
			best = now() - t0;
	}
	report("dgemm", n, best, 2.0 * n * n * (double) n);

	fill_gram(g, n);

	/* dsyevd in one call */
	memcpy(a, g, sizeof(double) * nn);
	lwork = liwork = -1;
	dsyevd_("V", "U", &n, a, &n, w, &wq, &lwork, &iwq, &liwork, &info, 1, 1);
	lwork = (int) wq;
	liwork = iwq;
	work = malloc(sizeof(double) * lwork);
	iwork = malloc(sizeof(int) * liwork);
	t0 = now();
	dsyevd_("V", "U", &n, a, &n, w, work, &lwork, iwork, &liwork, &info, 1, 1);
	report("dsyevd", n, now() - t0, 10.0 / 3.0 * n * n * (double) n);
	free(work);
	free(iwork);

	/* the same in three stages */
	memcpy(a, g, sizeof(double) * nn);
	lwork = -1;
	dsytrd_("U", &n, a, &n, w, e, tau, &wq, &lwork, &info, 1);
	lwork = (int) wq + n * n;
	work = malloc(sizeof(double) * (lwork + 2 * (size_t) n * n));
	iwork = malloc(sizeof(int) * (6 + 5 * n) * 2);
	t0 = now();
	dsytrd_("U", &n, a, &n, w, e, tau, work, &lwork, &info, 1);
	report("dsytrd", n, now() - t0, 4.0 / 3.0 * n * n * (double) n);
	{
		int			lw = 1 + 4 * n + n * n,
					liw = 3 + 5 * n;

		t0 = now();
		dstedc_("I", &n, w, e, c, &n, work, &lw, iwork, &liw, &info, 1);
		printf("dstedc %d %.4f -\n", n, now() - t0);
	}
	{
		int			lw = lwork;

		t0 = now();
		dormtr_("L", "U", "N", &n, &n, a, &n, tau, c, &n, work, &lw, &info, 1, 1, 1);
		report("dormtr", n, now() - t0, 2.0 * n * n * (double) n);
	}

	/* SVD of a square matrix, both factors */
	memcpy(a, g, sizeof(double) * nn);
	{
		int		   *iw = malloc(sizeof(int) * 8 * n);

		lwork = -1;
		dgesdd_("S", &n, &n, a, &n, w, b, &n, c, &n, &wq, &lwork, iw, &info, 1);
		lwork = (int) wq;
		free(work);
		work = malloc(sizeof(double) * lwork);
		t0 = now();
		dgesdd_("S", &n, &n, a, &n, w, b, &n, c, &n, work, &lwork, iw, &info, 1);
		report("dgesdd", n, now() - t0, 12.0 * n * n * (double) n);
		free(iw);
	}
	return 0;
}
