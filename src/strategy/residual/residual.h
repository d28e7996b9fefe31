/*
 * residual.h -- ResidualPlanner (Xiao, He, Zhang and Kifer, NeurIPS
 * 2023): the optimal Gaussian matrix mechanism for a weighted set of
 * marginals, measured one residual per attribute subset.
 *
 * The domain has d attributes of n_1 .. n_d values.  For a subset A, the
 * residual of the marginal table x_A (N_A = prod_{i in A} n_i cells) is its
 * projection (x)_{i in A} (I - J/n_i): what x_A holds beyond its own
 * sub-marginals.  Residuals of different subsets are orthogonal, a
 * marginal S is the sum of the residuals of the subsets of S (each spread
 * uniformly over the attributes of S it lacks), and W^T W of a marginal
 * workload is diagonal in the residual bases.  Measuring residual A with
 * isotropic noise of variance tau_A^2 in its r_A = prod_{i in A} (n_i - 1)
 * dimensions costs r_A / (N_A tau_A^2) of squared L2 sensitivity and adds
 * r_A mu_A tau_A^2 to the total variance of the workload's cells, where
 *   mu_A = sum over workload marginals S containing A of c_S / N_{S \ A}
 * (c_S the marginal's weight squared).  At unit sensitivity the sum of
 * variances is least at tau_A^2 = T / sqrt(mu_A N_A), where it is T^2 with
 *   T = sum_A r_A sqrt(mu_A / N_A),
 * which is also the SVD bound of the workload (Li & Miklau, ICDT 2013): the
 * plan is optimal among all Gaussian matrix mechanisms, and T^2 is its
 * certificate.  Other convex losses of the marginals' variances (the
 * largest, or targets per marginal) need a solve (residual_targets).
 */
#ifndef DPM_RESIDUAL_H
#define DPM_RESIDUAL_H

#include "postgres.h"

#include "utils/hsearch.h"

/* most attributes one marginal may have: its 2^k subsets are enumerated */
#define RESIDUAL_MAX_ORDER 16

/* how a release estimates: least squares, non-negative (nonneg.c), or integer tables too (integer.c) */
typedef enum ResidualInference
{
	RESIDUAL_LS,
	RESIDUAL_NNLS,
	RESIDUAL_INTEGER
} ResidualInference;

/* one residual of the plan: a subset of the attributes and its measurement */
typedef struct Residual
{
	int			order;			/* |A| */
	int16		attrs[RESIDUAL_MAX_ORDER];	/* 0-based, increasing */
	double		rows;			/* r_A */
	double		cells;			/* N_A */
	double		mu;				/* mu_A */
	double		variance;		/* tau_A^2 at unit L2 sensitivity */
} Residual;

typedef struct ResidualPlan
{
	int			count;			/* the residuals measured: rows > 0 and mu > 0 */
	Residual   *residuals;
	double		total;			/* the sum of the cells' variances */
	double		cost2;			/* the squared L2 sensitivity of the measurements */
	int			iterations;		/* of an iterative solve; 0 for the closed form */
	double		gap;			/* its relative duality gap; 0 for the closed form */
} ResidualPlan;

/*
 * A workload of m marginals over attributes of the given sizes: marginal j
 * keeps the attributes attrs[j * width .. j * width + width - 1] (1-based; 0
 * pads a shorter one), with weight weights[j] (NULL: all 1).  Its residuals
 * are every subset of every marginal (mu as above); marginal j's are
 * member[first[j] .. first[j + 1] - 1], each spread over spread[] = N_{S \ A}
 * cells of the marginal.
 */
typedef struct ResidualWorkload
{
	int			count;
	Residual   *residuals;
	int			m;
	int		   *first;
	int		   *member;
	double	   *spread;
	HTAB	   *index;			/* subset -> its residual (residual_find) */
	int			capacity;		/* of residuals */
	/*
	 * Terms whose kept attributes carry other blocks than Identity: block
	 * (j, c) of term j's c-th attribute (in increasing order), NULL for
	 * Identity, and per row r of it u = |b_r|^2 - (1'b_r)^2 / n and
	 * v = (1'b_r)^2 / n^2, the weights of a residual's variance that
	 * keeps or sums out the attribute (residual_term_variances).  blocks
	 * NULL: every term is a plain marginal.
	 */
	int			width;
	struct WorkloadBlock **blocks;
	double	  **u;
	double	  **v;
} ResidualWorkload;

/*
 * The workload; blocks (m x width, NULL for Identity; NULL for all
 * marginals) need attrs increasing in each row.  A term's queries are the
 * rows of its blocks' Kronecker product over the marginal table, and
 * residual A's mu gets weight^2 prod_{i in A} alpha_i / (n_i - 1)
 * prod_{i in S \ A} beta_i / n_i from it, with alpha = sum_r u_r and
 * beta = n sum_r v_r (for Identity, n - 1 and 1: the marginal's c_S /
 * N_{S \ A}).  The plan is then optimal among residual strategies: the
 * marginal algebra that HDMM projects such workloads onto.
 */
extern ResidualWorkload *residual_workload(const int *sizes, int d, const int *attrs, int m,
										   int width, const double *weights, struct WorkloadBlock **blocks);
/*
 * terms.c: the number of queries of term j; their variances, given each
 * residual's noise variance V_A (its estimate's covariance is V_A Pi_A;
 * indexes as w's, 0: not measured); their answers from the term's
 * marginal table (residual_of_marginal(w, j)->cells values).
 */
extern double residual_term_queries(const ResidualWorkload *w, int j, const int *sizes);
extern void residual_term_variances(const ResidualWorkload *w, int j, const int *sizes, const double *variance,
									double *out);
extern void residual_term_answers(const ResidualWorkload *w, int j, const int *sizes, const double *table,
								  double *out);
/* the index of the residual of these attributes (0-based, increasing), -1 if none */
extern int	residual_find(const ResidualWorkload *w, const int16 *attrs, int order);
/* the same, added with all its subsets (mu 0: no query needs them) where missing */
extern int	residual_intern(ResidualWorkload *w, const int16 *attrs, int order, const int *sizes);
/* tables a Laplace plan may measure beyond the workload's own (planner.c says which) */
extern void residual_add_candidates(ResidualWorkload *w, const int *sizes, int d);
/* marginal j's own residual: all of its attributes (the last of its members) */
#define residual_of_marginal(w, j) (&(w)->residuals[(w)->member[(w)->first[(j) + 1] - 1]])
/* the residuals measured (rows > 0, mu > 0) with the given variances (NULL: their own), in a plan of their own */
extern ResidualPlan *residual_measured(const ResidualWorkload *w, const double *variance);

/*
 * The plan for the sum of the cells' variances, each marginal's weighted by
 * weights[j]^2: closed form, at unit L2 sensitivity (cost2 = 1); its total
 * is T^2, the SVD bound.
 */
extern ResidualPlan *residual_plan(const int *sizes, int d, const int *attrs, int m, int width,
								   const double *weights);
/* the same for a workload already gathered, whose residuals receive their variances (0: not measured) */
extern ResidualPlan *residual_plan_workload(ResidualWorkload *w);

/*
 * measure.c: residual r measured from its marginal table (r->cells integer
 * counts, its attributes in order, the last fastest) by the exact Gaussian
 * mechanism, calibrated for the sensitivity of `contributions` records,
 * with noise of standard deviation at least sd (in counts) on each cell
 * before the projection, as a part of joint (sampler.h); out (r->cells
 * values) receives the estimate of Pi_A x_A.  Returns the variance V_A of
 * the noise before the projection: the estimate's covariance is V_A Pi_A.
 */
struct GaussianJoint;
extern double residual_measure(const Residual *r, const int *sizes, const int64 *table, double sd,
							   double contributions, const struct GaussianJoint *joint, double *out);
/* exact answers (mechanism/exact.h) holding these integers */
struct ExactAnswers;
extern void residual_exact_answers(const int128 *t, int cells, struct ExactAnswers *v);
/* t <- Pi_A t over residual r's table, in floating point: (x)_{i in A} (I - J / n_i) */
extern void residual_project(const Residual *r, const int *sizes, double *t);
/* the L2 sensitivity of N_A Pi_A x_A for `contributions` records, rounded up */
extern double residual_l2(const Residual *r, double contributions);
/*
 * The factor of mechanism/groups.h for a unit in at most g cells of a plan
 * measuring w's residuals with these variances (0: not measured), over
 * attributes of these sizes (groups.c).
 */
extern double residual_group_factor(const ResidualWorkload *w, const double *variance, const int *sizes, int d,
									 int g, int p);

/*
 * Adds residual r's estimate est, spread evenly over the attributes of S
 * (order attributes s, 0-based, increasing, containing r's) it lacks, to
 * the marginal table answer of S.
 */
extern void residual_rebuild(const Residual *r, const int *sizes, const double *est, const int16 *s,
							 int order, double *answer);

/*
 * tables.c: what a release reads and computes.  The tables are the
 * workload's marginals that no other contains, one after the other in the
 * order of the workload; every residual is summed out of the first one
 * containing it.
 */
typedef struct ResidualTables
{
	int			count;
	const Residual **sets;		/* each table's attributes and cells */
	double	   *offset;			/* where table t starts in the concatenation */
	double		cells;			/* all the tables' cells */
	int		   *source;			/* per residual of the workload: its table */
} ResidualTables;

/* the same with the tables extra[] (indexes of w's residuals: a Laplace plan's) besides the workload's */
extern ResidualTables *residual_tables(const ResidualWorkload *w, const int *extra, int nextra);
/* residual i's table (its marginal's) in tables, within the table it is summed out of */
extern const int64 *residual_table_of(const ResidualTables *t, int i, const int64 *tables);
/* out <- table a, summed out of table s (a's attributes among s's) */
extern void residual_sum_out(const Residual *s, const int64 *table, const Residual *a, const int *sizes,
							 int64 *out);
/* for each cell of table s, its cell in table a (a's attributes among s's) */
extern int *residual_subset_index(const Residual *s, const Residual *a, const int *sizes);
/* the index in w of set s's subset by mask (bit b: its b-th attribute); -1 if w has none */
extern int	residual_subset(const ResidualWorkload *w, const Residual *s, uint32 mask);

/*
 * The subsets of each of count tables that keep[] marks (indexes of w):
 * for table k, pairs first[k] .. first[k + 1] - 1, each a residual and the
 * map of the table's cells to its cells (residual_subset_index), made once
 * for loops that sum tables out to their residuals again and again.
 */
typedef struct SubsetMaps
{
	int		   *first;
	int		   *residual;
	int		  **map;
} SubsetMaps;

extern SubsetMaps *residual_subset_maps(const ResidualWorkload *w, const Residual *const *tables, int count,
										const int *sizes, const bool *keep);

/* the tables t describes, summed out of a whole frequency vector x over d <= RESIDUAL_MAX_ORDER attributes */
extern int64 *residual_tables_of_vector(const ResidualTables *t, const int *sizes, int d, const int64 *x);

/*
 * The answers of the workload, exact: answers[j] gets term j's from tables
 * (the concatenation residual_tables describes).
 */
extern void residual_exact(const ResidualWorkload *w, const ResidualTables *t, const int *sizes,
						   const int64 *tables, double **answers);

/*
 * One release, in two steps.  Measuring: every residual with variance[i] >
 * 0 (at unit L2 sensitivity; indexes as w's) from its table with noise of
 * standard deviation sigma * sqrt(variance[i]) per cell before the
 * projection, for `contributions` records per privacy unit; one part per
 * measured residual, in w's order, holding its estimate of Pi_A x_A and its
 * V_A.  With tables NULL, only the sampler's checks run (returns NULL).
 * Inference: answers[j] gets term j's answers (non-negative or integer
 * ones: residual_nonneg) and stderrs[j] their least-squares standard errors.
 */
struct Measurements;
extern struct Measurements *residual_gaussian_measure(const ResidualWorkload *w, const ResidualTables *t,
													  const int *sizes, const double *variance, double sigma,
													  double contributions, const int64 *tables);
extern void residual_gaussian_infer(const ResidualWorkload *w, const int *sizes, const double *variance,
									const struct Measurements *m, ResidualInference inference,
									double **answers, double **stderrs);

/*
 * Every term's answers and standard errors (stderrs NULL: not wanted) from
 * the residuals' estimates est[i] (NULL: not measured) with noise
 * variances variance[i] (V_A).
 */
extern void residual_answers(const ResidualWorkload *w, const int *sizes, double **est, const double *variance,
							 double **answers, double **stderrs);

/*
 * nonneg.c: answers[j] (allocated) replaced by term j's answers from the
 * non-negative, consistent re-estimate of the residuals est (variances
 * V_A) nearest the least-squares one (inference nnls), or with integer,
 * from the integer tables of records near it (nnls_integer).
 */
extern void residual_nonneg(const ResidualWorkload *w, const int *sizes, double **est, const double *variance,
							bool integer, double **answers);

/*
 * integer.c: out (t's tables, one after the other) <- the tables of
 * records near the non-negative, consistent tables u: integers that agree
 * on what they share.  The distinct records take at most max_bytes (or as
 * many as the largest table has cells).
 */
extern void residual_integer_tables(const ResidualTables *t, const int *sizes, const double *u, double max_bytes,
									double *out);

/*
 * The least squared L2 sensitivity (cost2) at which every cell of marginal j
 * has variance at most targets[j] (NULL: all 1, which at cost2 = 1 makes
 * the largest variance least; Xiao et al. solve the same convex problem).
 * Solved in its Lagrange dual by multiplicative updates, until the relative
 * duality gap is below tol or max_iter; the variances returned meet every
 * target, and cost2 is within gap of the optimum.
 */
extern ResidualPlan *residual_targets(const int *sizes, int d, const int *attrs, int m, int width,
									  const double *targets, double tol, int max_iter);

/*
 * laplace.c: marginal tables under Laplace noise.  The plan measures the
 * tables sets[0 .. count - 1] (indexes of w's residuals: their attributes)
 * with weights theta summing to 1 (L1 sensitivity 1); objective is the
 * workload's total variance at epsilon = 1 over 2 (HDMM's objective).
 */
typedef struct LaplacePlan
{
	int			count;
	int		   *sets;
	double	   *theta;
	double		objective;
	int			iterations;
} LaplacePlan;

extern LaplacePlan *residual_laplace_plan(const ResidualWorkload *w, int max_iter);
/* each residual's V_A at epsilon 1 under such tables (0: not needed or not covered) */
extern void residual_laplace_variances(const ResidualWorkload *w, const int *sets, const double *theta, int count,
									   double *variance);
/*
 * One release of the tables at epsilon-DP for `contributions` records per
 * privacy unit, in two steps.  Measuring: table sets[i] gets epsilon
 * theta_i / sum theta, one part per table; with tables NULL, only the
 * samplers' checks (and those of intervals at confidence) run.  Inference:
 * answers and stderrs as residual_gaussian_infer's, half[j] the half-widths
 * of term j's intervals at this confidence (NO_INTERVALS: none) by
 * simulating the noise; returns the simulated draws behind them (0: none).
 */
extern struct Measurements *residual_laplace_measure(const ResidualWorkload *w, const ResidualTables *t,
													 const int *sizes, const int *sets, const double *theta,
													 int count, double epsilon, double contributions,
													 const int64 *tables, double confidence);
extern int	residual_laplace_infer(const ResidualWorkload *w, const int *sizes, const int *sets, int count,
								   const struct Measurements *m, ResidualInference inference, double confidence,
								   double **answers, double **stderrs, double **half);

#endif
