/*
 * mechanism.h -- the matrix mechanism: noisy strategy answers, least-squares
 * reconstruction, workload answers with their standard errors.
 */
#ifndef DPM_MECHANISM_H
#define DPM_MECHANISM_H

#include "inference/nnls.h"
#include "linalg/linalg.h"
#include "mechanism/interval.h"
#include "mechanism/operator.h"
#include "mechanism/sampler.h"

typedef struct Release
{
	int			p;				/* workload queries */
	double	   *answers;		/* W x_hat */
	double	   *stderrs;		/* sqrt of each answer's noise variance */
	double		noise_var;		/* variance of the noise on each strategy answer */
	double	   *half;			/* confidence interval half-widths, or NULL */
	int			ci_draws;		/* simulated draws behind them; 0 when exact */
} Release;

/*
 * The noisy measurements of a release: what inference needs besides the
 * strategy and the workload, kept with the release so that answers can be
 * derived from them again at no privacy cost (dpm.release_measurements).
 * One part for a dense or implicit strategy; one per measured residual or
 * marginal table for method residual (src/residual).
 */
typedef struct Measurements
{
	int			parts;
	int		   *sizes;			/* values of each part */
	double	   *variance;		/* the noise variance of each value of each part */
	LaplaceLaw *laws;			/* each part's Laplace law; t = 0: Gaussian noise */
	double	   *y;				/* the values, part after part */
	size_t		total;			/* their number */
} Measurements;

/* room for parts of these sizes, laws zero (Gaussian) */
extern Measurements *measurements_new(int parts, const int *sizes);

/* part i's first value */
extern double *measurements_part(const Measurements *m, int i);

/*
 * Refuses (as invalid parameters) measurements that are not `parts` parts
 * of these sizes (NULL: any), or hold non-finite values or variances that
 * are not positive and finite: they reach inference from the catalog or a
 * caller.
 */
extern void measurements_check(const Measurements *m, int parts, const int *sizes);

typedef struct StrategyCache
{
	const Mat  *pinv;		/* n x m, A^+ */
	double	   *profile;		/* one term per workload query */
} StrategyCache;

/*
 * Answer workload w on data vector x through strategy A, given as at = A^T
 * (n x m: a strategy's row-major SQL array read in place, with no
 * transposing copy of tens of megabytes per release): rho-zCDP Gaussian
 * noise when rho > 0; otherwise epsilon-DP Laplace noise when delta = 0,
 * (epsilon, delta)-DP Gaussian noise when delta > 0.
 * sens_scale multiplies the strategy's sensitivity (a privacy unit that may
 * contribute several rows).  inference chooses the estimate of x from the
 * noisy answers (least squares, or non-negative); the standard errors and
 * interval half-widths at confidence (see interval.h) are least squares' in
 * every case.  cache: mechanism_strategy_cache(w, A), or NULL to compute it here
 * (from A quantized as it is measured; exact.h).  x must hold integer counts
 * (exact_counts); A x is computed exactly.  Every check that can fail runs
 * before any noise is drawn.
 */
extern Release *mechanism_run_dense(const Mat *w, const Mat *at, const StrategyCache *cache,
							  const double *x, double epsilon, double delta, double rho,
							  double sens_scale, Inference inference, double confidence);

/*
 * The mechanism over a strategy operator (operator.h): y = A x exactly for
 * the integer counts x plus noise as the privacy arguments of mechanism_run_dense
 * call for, x_hat = A^+ y (then inference), the answers W x_hat with their
 * standard errors and, at confidence, interval half-widths.  The caller
 * checks the intervals asked for first (interval_check), so that every check
 * that can fail runs before any noise is drawn.
 */
extern Release *mechanism_run(const StrategyOp *op, const int64 *counts, double epsilon,
							  double delta, double rho, double sens_scale, Inference inference,
							  double confidence);

/* mechanism_run in two steps: the noisy measurements, then the answers from them */
extern Measurements *mechanism_measure(const StrategyOp *op, const int64 *counts, double epsilon,
									   double delta, double rho, double sens_scale);
extern Release *mechanism_infer(const StrategyOp *op, const Measurements *m, Inference inference,
								double confidence);

/*
 * mechanism_run_dense in the same two steps.  Measuring needs only A;
 * inference needs W, A and the cache (NULL: computed here as
 * mechanism_run_dense does), and refuses measurements of another shape.
 */
extern Measurements *mechanism_measure_dense(const Mat *at, const double *x, double epsilon, double delta,
											 double rho, double sens_scale);
extern Release *mechanism_infer_dense(const Mat *w, const Mat *at, const StrategyCache *cache,
									  const Measurements *m, Inference inference, double confidence);

/*
 * What answering through a dense strategy A needs besides A, computed once
 * when a strategy is stored (one SVD of A) so that a release is a few
 * matrix-vector products: A's pseudo-inverse and every query's profile term
 * w (A^T A)^+ w^T.  Errors out, naming the query, when A cannot answer one.
 */
extern StrategyCache *mechanism_strategy_cache(const Mat *w, const Mat *a);

/*
 * The noisy answers out (v->m of them) from the exact strategy answers v
 * (exact.h), for sens, an upper bound of the measured matrix's sensitivity
 * in the norm of the noise (L1 for Laplace, see MECHANISM_LAPLACE; L2
 * otherwise), already scaled; returns the noise variance per answer, and in
 * *law the law of Laplace noise (t = 0 for Gaussian).  Refuses answers too
 * large for a double, before any noise is drawn.
 */
extern double mechanism_noise(const ExactAnswers *v, double *out, double sens, double epsilon,
							  double delta, double rho, LaplaceLaw *law);

/*
 * The sampler's checks of mechanism_noise for m answers of sensitivity sens
 * (the one of the noise these arguments call for), drawing nothing.
 */
extern void mechanism_check(int m, double sens, double epsilon, double delta, double rho);

/* sens * sens_scale, rounded up: still an upper bound */
extern double mechanism_scaled_sensitivity(double sens, double sens_scale);

/* true when these privacy arguments call for Laplace noise */
#define MECHANISM_LAPLACE(delta, rho) (!((rho) > 0.0) && (delta) == 0.0)

#endif
