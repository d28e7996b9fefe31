/*
 * hdmm.h -- strategies of the High-Dimensional Matrix Mechanism (McKenna et
 * al., VLDB 2018) for workloads given by their Gram matrices: Kronecker
 * products of per-attribute strategies (p-Identity, strategy/dense/pidentity.c,
 * or gaussian_optimal) and weighted marginals, measured without a matrix
 * over the cells.
 */
#ifndef DPM_HDMM_H
#define DPM_HDMM_H

#include "inference/nnls.h"
#include "linalg/linalg.h"
#include "mechanism/exact.h"
#include "workload/workload.h"

/* kron.c: Kronecker products of p-Identity factors, theta[a] per attribute */
extern void kron_optimize(const KronGram *kg, Mat **theta, int max_iter, int max_rounds,
						  double *objective, int *evaluations);

/* the SVD bound from the factors: one product term or marginals; NaN otherwise */
extern double kron_svd_bound(const KronGram *kg);
/* a proven lower bound on it for any union of product terms over so many cells (kron.c) */
extern double kron_svd_lower_bound(const KronGram *kg, double cells);

/* the Gaussian counterpart: factors a[] optimal for L2 (gaussian_optimal), from identity */
extern void kron_optimize_l2(const KronGram *kg, Mat **a, int max_rounds, double *objective,
							 int *iterations);

/* marginals.c: weights on the 2^d marginals, for workloads of marginals */
extern bool marginals_applies(const KronGram *kg);
extern double marginals_svd_bound(const KronGram *kg);
/* l2: the Gaussian objective, (sum theta^2) in place of (sum theta)^2 */
extern double *marginals_optimize(const KronGram *kg, bool l2, int max_iter, double *objective,
								  int *evaluations);

/* implicit.c: an HDMM strategy, measured and inverted without a matrix over the cells */
typedef enum HdmmKind
{
	HDMM_KRONECKER,
	HDMM_MARGINALS
} HdmmKind;

typedef struct HdmmStrategy
{
	HdmmKind	kind;
	int			nattrs;
	int		   *sizes;
	Mat		  **factors;		/* Kronecker: A_a = [I; Theta_a] D_a^-1 per attribute */
	double	   *weights;		/* marginals: 2^d weights, bit a set = attribute a kept */
} HdmmStrategy;

/*
 * the rows of marginal b (its cells), and of the whole strategy: here, not in a .c, because both
 * the measurement (exact_measure.c) and the operator built on it (implicit.c) need them
 */
static inline double
hdmm_marginal_rows(const HdmmStrategy *s, int b)
{
	double		r = 1.0;

	for (int a = 0; a < s->nattrs; a++)
		if (b & (1 << a))
			r *= s->sizes[a];
	return r;
}

static inline double
hdmm_rows(const HdmmStrategy *s)
{
	double		rows = 0.0;

	if (s->kind == HDMM_KRONECKER)
	{
		rows = 1.0;
		for (int a = 0; a < s->nattrs; a++)
			rows *= s->factors[a]->rows;
		return rows;
	}
	for (int b = 0; b < 1 << s->nattrs; b++)
		if (s->weights[b] != 0.0)
			rows += hdmm_marginal_rows(s, b);
	return rows;
}

extern double hdmm_sensitivity(const HdmmStrategy *s, int p);
/* A x */
extern double *hdmm_measure(const HdmmStrategy *s, const double *x);
/* A^T y */
extern double *hdmm_measure_t(const HdmmStrategy *s, const double *y);

/* what least squares through a strategy needs, computed once per strategy */
typedef struct HdmmInverse
{
	const HdmmStrategy *s;
	Mat		  **pinv;			/* Kronecker: A_a^+ per attribute */
	Mat		  **cov;			/* Kronecker: (A_a^T A_a)^+ = A_a^+ (A_a^+)^T */
	double	   *lambda;			/* marginals: the eigenvalue of A^T A on each V_s */
} HdmmInverse;

extern HdmmInverse *hdmm_inverse(const HdmmStrategy *s);
extern void hdmm_inverse_free(HdmmInverse *inv);
/* the least-squares x_hat = A^+ y */
extern double *hdmm_solve(const HdmmInverse *inv, const double *y);

/*
 * queries.c: the workload's queries from the spec's blocks (workload_blocks),
 * with no matrix over a block's bins where its rows are runs.
 * w (A^T A)^+ w^T for each of the m queries:
 */
extern double *hdmm_profile(const HdmmInverse *inv, const KronGram *kg, WorkloadBlock ***blocks, double m);
/* W x for the same workload */
extern double *hdmm_workload_apply(const KronGram *kg, WorkloadBlock ***blocks, double m, const double *x);
/*
 * Interval half-widths from simulated reconstructions xd (cells x draws,
 * draws fastest): each query's k-th smallest |error|, a block of queries at a
 * time, in at most hdmm_error_block_doubles() doubles beyond xd's size twice.
 */
extern void hdmm_interval_from_cells(const KronGram *kg, WorkloadBlock ***blocks, const double *xd,
									 int draws, int k, double *half);
extern double hdmm_error_block_doubles(const KronGram *kg, WorkloadBlock ***blocks, int draws);

/*
 * exact_measure.c: a strategy as it is measured.  hdmm_quantize puts it on
 * the dyadic grids of mechanism/exact.h (whoever reads a stored strategy
 * calls it, so every use sees the measured matrix); hdmm_measure_exact is
 * A x exactly for integer counts x; hdmm_sensitivity_bound an upper bound,
 * proven, of the quantized strategy's sensitivity (p = 1 or 2).
 */
extern void hdmm_quantize(HdmmStrategy *s);
extern ExactAnswers *hdmm_measure_exact(const HdmmStrategy *s, const int64 *x);
extern double hdmm_sensitivity_bound(const HdmmStrategy *s, int p);
/* the factor of mechanism/groups.h for a unit in at most g cells (groups.c) */
extern double hdmm_group_factor(const HdmmStrategy *s, int g, int p);

/* the mechanism with an HDMM strategy: as mechanism_run_dense (mechanism.h) */
extern struct Release *hdmm_mechanism_run(const HdmmStrategy *s, const KronGram *kg,
										  WorkloadBlock ***blocks, double m, const double *x,
										  double epsilon, double delta, double rho, double sens_scale,
										  Inference inference, double confidence);

/* the same in two steps (mechanism_measure_dense, mechanism_infer_dense) */
extern struct Measurements *hdmm_mechanism_measure(const HdmmStrategy *s, const double *x, double epsilon,
												   double delta, double rho, double sens_scale);
extern struct Release *hdmm_mechanism_infer(const HdmmStrategy *s, const KronGram *kg,
											WorkloadBlock ***blocks, double m,
											const struct Measurements *meas, Inference inference,
											double confidence);

#endif
