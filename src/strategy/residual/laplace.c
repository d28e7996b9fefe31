/*
 * laplace.c -- marginal tables under Laplace noise (pure epsilon-DP): the
 * strategies of HDMM's marginals parameterization (McKenna et al., PVLDB
 * 2018), planned and reconstructed in the residual basis, so that no
 * matrix over the cells is ever formed and the domain may be wide.
 *
 * The plan measures table S (a subset of the workload's attributes) with
 * weight theta_S, sum theta = 1: a record moves each table by one count,
 * so the weighted tables have L1 sensitivity 1, and table S gets epsilon
 * theta_S of the release's epsilon (basic composition).  Its noise, of
 * variance v_S per cell, summed out to a subset A and projected onto
 * residual A, has covariance N_{S \ A} v_S Pi_A; the tables' estimates of
 * residual A are independent, so least squares (which decouples by
 * residual, W^T W and the strategy's Gram being diagonal in the residual
 * bases) weighs them by 1 / (N_{S \ A} v_S), with variance
 *   V_A = 1 / sum_{S >= A} 1 / (N_{S \ A} v_S) = 2 / (epsilon^2 D_A),
 *   D_A = sum_{S >= A} theta_S^2 / N_{S \ A}.
 * The workload's total is sum_A K_A V_A with K_A = r_A mu_A (residual.h),
 * so the plan minimizes
 *   f(theta) = (sum theta)^2 sum_A K_A / D_A,
 * HDMM's objective for this template restricted to the subsets of the
 * workload's marginals (a table on more attributes than any marginal
 * spreads its noise over cells no query asks for, residual_add_candidates
 * says which larger tables are tried).  f is not convex: a local solve by
 * L-BFGS-B from three starts, the best kept.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "common/pg_prng.h"
#include "portability/instr_time.h"
#include "utils/memutils.h"

#include "linalg/lbfgsb.h"
#include "linalg/linalg.h"
#include "mechanism/exact.h"
#include "mechanism/mechanism.h"
#include "mechanism/interval.h"
#include "mechanism/sampler.h"
#include "progress/progress.h"
#include "strategy/residual/residual.h"

/* the pairs (S, A), A a subset of S, over the workload's residuals */
typedef struct Pairs
{
	int		   *first;			/* per S: its pairs first[S] .. first[S + 1] - 1 */
	int		   *sub;			/* A */
	double	   *inv;			/* 1 / N_{S \ A} */
} Pairs;

static Pairs *
pairs_of(const ResidualWorkload *w)
{
	Pairs	   *pp = palloc(sizeof(Pairs));
	int			count = 0,
				cap = 64;

	pp->first = palloc(sizeof(int) * (w->count + 1));
	pp->sub = palloc(sizeof(int) * cap);
	pp->inv = palloc(sizeof(double) * cap);
	for (int s = 0; s < w->count; s++)
	{
		const Residual *r = &w->residuals[s];

		CHECK_FOR_INTERRUPTS();
		pp->first[s] = count;
		for (uint32 mask = 0; mask < ((uint32) 1 << r->order); mask++)
		{
			int			a = residual_subset(w, r, mask);

			Assert(a >= 0);			/* the residuals are closed under subsets */
			if (count == cap)
			{
				cap *= 2;
				pp->sub = repalloc_huge(pp->sub, sizeof(int) * cap);
				pp->inv = repalloc_huge(pp->inv, sizeof(double) * cap);
			}
			pp->sub[count] = a;
			pp->inv[count++] = w->residuals[a].cells / r->cells;
		}
	}
	pp->first[w->count] = count;
	return pp;
}

/* K_A: what residual A's noise variance weighs in the workload's total (0: no query needs it) */
static double
weight_of(const Residual *r)
{
	return r->rows > 0.0 && r->mu > 0.0 ? r->rows * r->mu : 0.0;
}

/* D_A for every residual */
static void
coverage(const ResidualWorkload *w, const Pairs *pp, const double *theta, double *d)
{
	memset(d, 0, sizeof(double) * w->count);
	for (int s = 0; s < w->count; s++)
		if (theta[s] != 0.0)
			for (int p = pp->first[s]; p < pp->first[s + 1]; p++)
				d[pp->sub[p]] += theta[s] * theta[s] * pp->inv[p];
}

/* f(theta) and its gradient (NULL: not wanted); infinite when a needed residual is not covered */
static double
objective(const ResidualWorkload *w, const Pairs *pp, const double *theta, double *d, double *grad)
{
	double		total = 0.0,
				sum = 0.0;

	coverage(w, pp, theta, d);
	for (int s = 0; s < w->count; s++)
		sum += theta[s];
	for (int a = 0; a < w->count; a++)
	{
		double		k = weight_of(&w->residuals[a]);

		if (k == 0.0)
			continue;
		if (!(d[a] > 0.0))
			return INFINITY;
		total += k / d[a];
	}
	if (grad)
		for (int s = 0; s < w->count; s++)
		{
			double		inner = 0.0;

			for (int p = pp->first[s]; p < pp->first[s + 1]; p++)
			{
				int			a = pp->sub[p];
				double		k = weight_of(&w->residuals[a]);

				if (k > 0.0)
					inner += k * pp->inv[p] / (d[a] * d[a]);
			}
			grad[s] = 2.0 * sum * total - sum * sum * 2.0 * theta[s] * inner;
		}
	return sum * sum * total;
}

/* one local solve from theta (updated in place); its objective */
static double
solve_from(const ResidualWorkload *w, const Pairs *pp, double *theta, int max_iter, int *iterations)
{
	double	   *d = palloc(sizeof(double) * w->count);
	double	   *g = palloc(sizeof(double) * w->count);
	LbfgsbState *st = lbfgsb_begin(w->count, theta, 0.0, max_iter, progress_update);
	double		f = 0.0,
				sum = 0.0;

	lbfgsb_set_tolerance(st, 10.0, 0.0);
	while (lbfgsb_next(st, &f, g))
	{
		CHECK_FOR_INTERRUPTS();
		f = objective(w, pp, theta, d, g);
		if (!isfinite(f))
		{
			/* L-BFGS-B stepped onto a bound that uncovers a residual: a large value sends it back */
			f = 1e300;
			memset(g, 0, sizeof(double) * w->count);
		}
	}
	*iterations += lbfgsb_iterations(st);
	lbfgsb_end(st);
	for (int s = 0; s < w->count; s++)
		sum += theta[s];
	for (int s = 0; s < w->count; s++)
		theta[s] /= sum;
	f = objective(w, pp, theta, d, NULL);
	pfree(d);
	pfree(g);
	return f;
}

LaplacePlan *
residual_laplace_plan(const ResidualWorkload *w, int max_iter)
{
	Pairs	   *pp = pairs_of(w);
	LaplacePlan *plan = palloc0(sizeof(LaplacePlan));
	double	   *best = palloc(sizeof(double) * w->count),
			   *theta = palloc(sizeof(double) * w->count),
			   *d = palloc(sizeof(double) * w->count);
	double		fbest = INFINITY,
				top = 0.0;
	bool	   *maximal = palloc0(sizeof(bool) * w->count),
			   *largest = palloc(sizeof(bool) * w->count);

	/* the tables of the workload's marginals that no other contains */
	for (int j = 0; j < w->m; j++)
		maximal[w->member[w->first[j + 1] - 1]] = true;
	for (int j = 0; j < w->m; j++)
		for (int p = w->first[j]; p < w->first[j + 1] - 1; p++)
			maximal[w->member[p]] = false;
	/* the candidates that no other contains */
	memset(largest, true, sizeof(bool) * w->count);
	for (int s = 0; s < w->count; s++)
		for (int p = pp->first[s]; p < pp->first[s + 1]; p++)
			if (pp->sub[p] != s)
				largest[pp->sub[p]] = false;

	/*
	 * Starts: every table alike; the workload's own tables, the others a
	 * little; the largest candidates, the others a little.  The objective has
	 * local minima between measuring marginals and measuring tables that
	 * contain several of them.
	 */
	for (int start = 0; start < 3; start++)
	{
		double		f;

		for (int s = 0; s < w->count; s++)
			theta[s] = start == 0 || (start == 1 && maximal[s]) || (start == 2 && largest[s]) ? 1.0 : 0.01;
		f = solve_from(w, pp, theta, max_iter, &plan->iterations);
		if (f < fbest)
		{
			fbest = f;
			memcpy(best, theta, sizeof(double) * w->count);
		}
	}

	/* tables of negligible weight are dropped where the others still cover every needed residual */
	for (int s = 0; s < w->count; s++)
		top = Max(top, best[s]);
	for (int s = 0; s < w->count; s++)
		if (best[s] > 0.0 && best[s] < 1e-6 * top)
		{
			double		keep = best[s],
						f;

			best[s] = 0.0;
			f = objective(w, pp, best, d, NULL);
			if (!isfinite(f) || f > fbest * (1.0 + 1e-9))
				best[s] = keep;
		}

	plan->sets = palloc(sizeof(int) * w->count);
	plan->theta = palloc(sizeof(double) * w->count);
	{
		double		sum = 0.0;

		for (int s = 0; s < w->count; s++)
			sum += best[s];
		for (int s = 0; s < w->count; s++)
			if (best[s] > 0.0)
			{
				plan->sets[plan->count] = s;
				plan->theta[plan->count++] = best[s] / sum;
				best[s] /= sum;
			}
	}
	plan->objective = objective(w, pp, best, d, NULL);
	return plan;
}

void
residual_laplace_variances(const ResidualWorkload *w, const int *sets, const double *theta, int count,
						   double *variance)
{
	Pairs	   *pp = pairs_of(w);
	double	   *full = palloc0(sizeof(double) * w->count);
	double		sum = 0.0;

	for (int i = 0; i < count; i++)
	{
		full[sets[i]] = theta[i];
		sum += theta[i];
	}
	coverage(w, pp, full, variance);
	/* V_A at epsilon 1 for L1 sensitivity sum theta: 2 (sum theta)^2 / D_A */
	for (int a = 0; a < w->count; a++)
		variance[a] = weight_of(&w->residuals[a]) > 0.0 && variance[a] > 0.0
			? 2.0 * sum * sum / variance[a] : 0.0;
}

/*
 * The residuals' estimates from noisy tables y[i] (of sets[i]; their
 * subsets' maps in maps) whose noise has variance var[i] per cell: each
 * table's estimate of every residual it contains, weighed by its precision
 * 1 / (N_{S \ A} var); vres[a] gets V_A.
 */
static void
estimate(const ResidualWorkload *w, const int *sizes, const int *sets, int count, const SubsetMaps *maps,
		 double **y, const double *var, double **est, double *vres)
{
	memset(vres, 0, sizeof(double) * w->count);
	for (int i = 0; i < count; i++)
	{
		const Residual *s = &w->residuals[sets[i]];

		for (int p = maps->first[i]; p < maps->first[i + 1]; p++)
		{
			int			a = maps->residual[p];
			const Residual *r = &w->residuals[a];
			double	   *part = palloc0(sizeof(double) * (size_t) r->cells),
						weight = 1.0 / (s->cells / r->cells * var[i]);

			for (int c = 0; c < (int) s->cells; c++)
				part[maps->map[p][c]] += y[i][c];
			residual_project(r, sizes, part);
			if (est[a] == NULL)
				est[a] = palloc0(sizeof(double) * (size_t) r->cells);
			for (int c = 0; c < (int) r->cells; c++)
				est[a][c] += weight * part[c];
			vres[a] += weight;
			pfree(part);
		}
	}
	for (int a = 0; a < w->count; a++)
		if (est[a] != NULL)
		{
			for (int c = 0; c < (int) w->residuals[a].cells; c++)
				est[a][c] /= vres[a];
			vres[a] = 1.0 / vres[a];
		}
}

/* the subsets of the plan's tables that the workload's queries need, mapped once */
static SubsetMaps *
needed_maps(const ResidualWorkload *w, const int *sizes, const int *sets, int count)
{
	const Residual **tables = palloc(sizeof(Residual *) * Max(count, 1));
	bool	   *needed = palloc(sizeof(bool) * Max(w->count, 1));

	for (int i = 0; i < count; i++)
		tables[i] = &w->residuals[sets[i]];
	for (int a = 0; a < w->count; a++)
		needed[a] = weight_of(&w->residuals[a]) > 0.0;
	return residual_subset_maps(w, tables, count, sizes, needed);
}

/*
 * Laplace half-widths (interval.h): the tables' noise simulated alone with
 * their laws and reconstructed as the real noise is, dpm.ci_draws times (as
 * many as dpm.max_matrix_mb holds the errors of, and no longer than
 * dpm.ci_max_seconds once there are enough).
 */
static int
half_widths(const ResidualWorkload *w, const int *sizes, const int *sets, int count, const SubsetMaps *maps,
			const LaplaceLaw *laws, const double *var, double confidence, double **half)
{
	double		queries = 0.0,
				limit = (double) dpm_max_matrix_mb * 1024 * 1024 / sizeof(double);
	int			min_draws = interval_min_draws(confidence),
				draws,
				j;
	Mat		   *e;
	pg_prng_state rng;
	instr_time	start,
				now;
	MemoryContext draw_cxt = mat_loop_context("interval simulation draw"),
				old_cxt;
	double	   *flat;

	for (int t = 0; t < w->m; t++)
		queries += residual_term_queries(w, t, sizes);
	mat_check_size(queries, min_draws, "simulated errors");
	draws = (int) Max(Min((double) dpm_ci_draws, limit / queries), min_draws);
	e = mat_new_uninit((int) queries, draws);
	interval_seed(&rng);
	INSTR_TIME_SET_CURRENT(start);
	for (j = 0; j < draws; j++)
	{
		double	  **y,
				  **est,
				  **ans,
				   *vres;
		double		q = 0;

		CHECK_FOR_INTERRUPTS();
		if (j >= min_draws)
		{
			INSTR_TIME_SET_CURRENT(now);
			INSTR_TIME_SUBTRACT(now, start);
			if (INSTR_TIME_GET_DOUBLE(now) > dpm_ci_max_seconds)
				break;
		}
		progress_update("interval simulation", j, NAN, NAN);
		old_cxt = MemoryContextSwitchTo(draw_cxt);
		y = palloc(sizeof(double *) * count);
		for (int i = 0; i < count; i++)
		{
			y[i] = palloc(sizeof(double) * (size_t) w->residuals[sets[i]].cells);
			dpm_simulate_laplace(&laws[i], &rng, (int) w->residuals[sets[i]].cells, y[i]);
		}
		est = palloc0(sizeof(double *) * w->count);
		vres = palloc(sizeof(double) * w->count);
		ans = palloc0(sizeof(double *) * Max(w->m, 1));
		estimate(w, sizes, sets, count, maps, y, var, est, vres);
		residual_answers(w, sizes, est, vres, ans, NULL);
		for (int t = 0; t < w->m; t++)
		{
			int			nq = (int) residual_term_queries(w, t, sizes);

			memcpy(&MAT(e, (int) q, j), ans[t], sizeof(double) * nq);
			q += nq;
		}
		MemoryContextSwitchTo(old_cxt);
		MemoryContextReset(draw_cxt);
	}
	MemoryContextDelete(draw_cxt);
	e->cols = j;
	flat = palloc(sizeof(double) * (size_t) Max(queries, 1));
	interval_half_from_errors(e, interval_rank(confidence, j), flat);
	for (int t = 0, q = 0; t < w->m; t++)
	{
		int			nq = (int) residual_term_queries(w, t, sizes);

		half[t] = palloc(sizeof(double) * Max(nq, 1));
		memcpy(half[t], flat + q, sizeof(double) * nq);
		q += nq;
	}
	mat_free(e);
	pfree(flat);
	return j;
}

/* the samplers' checks of every table and of the intervals' simulation */
static void
laplace_checks(const ResidualWorkload *w, const int *sizes, const int *sets, const double *theta, int count,
			   double epsilon, double contributions, double confidence)
{
	double		sum = 0.0,
				queries = 0.0;

	for (int i = 0; i < count; i++)
		sum += theta[i];
	for (int j = 0; j < w->m; j++)
		queries += residual_term_queries(w, j, sizes);
	for (int i = 0; i < count; i++)
		dpm_laplace_check((int) w->residuals[sets[i]].cells, contributions, epsilon * theta[i] / sum);
	interval_check(confidence, true, (size_t) queries, false);
}

Measurements *
residual_laplace_measure(const ResidualWorkload *w, const ResidualTables *t, const int *sizes, const int *sets,
						 const double *theta, int count, double epsilon, double contributions,
						 const int64 *tables, double confidence)
{
	int		   *cells = palloc(sizeof(int) * Max(count, 1));
	Measurements *m;
	double		sum = 0.0;

	/* before anything is drawn */
	laplace_checks(w, sizes, sets, theta, count, epsilon, contributions, confidence);
	if (tables == NULL)
		return NULL;
	for (int i = 0; i < count; i++)
	{
		cells[i] = (int) w->residuals[sets[i]].cells;
		sum += theta[i];
	}
	m = measurements_new(count, cells);
	for (int i = 0; i < count; i++)
	{
		const Residual *s = &w->residuals[sets[i]];
		int64	   *table = palloc(sizeof(int64) * cells[i]);
		int128	   *wide = palloc(sizeof(int128) * cells[i]);
		ExactAnswers v;

		residual_sum_out(t->sets[t->source[sets[i]]], residual_table_of(t, sets[i], tables), s, sizes, table);
		for (int c = 0; c < cells[i]; c++)
			wide[c] = table[c];
		residual_exact_answers(wide, cells[i], &v);
		m->variance[i] = dpm_laplace_mechanism(&v, contributions, epsilon * theta[i] / sum, &m->laws[i],
											   measurements_part(m, i));
		pfree(table);
		pfree(wide);
		pfree(v.data);
	}
	return m;
}

int
residual_laplace_infer(const ResidualWorkload *w, const int *sizes, const int *sets, int count,
					   const Measurements *m, ResidualInference inference, double confidence,
					   double **answers, double **stderrs, double **half)
{
	double	  **est = palloc0(sizeof(double *) * Max(w->count, 1));
	double	   *vres = palloc0(sizeof(double) * Max(w->count, 1));
	double	  **y = palloc(sizeof(double *) * Max(count, 1));
	int		   *cells = palloc(sizeof(int) * Max(count, 1));
	SubsetMaps *maps;

	for (int i = 0; i < count; i++)
		cells[i] = (int) w->residuals[sets[i]].cells;
	measurements_check(m, count, cells);
	for (int i = 0; i < count; i++)
	{
		if (!(m->laws[i].t > 0.0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the measurements of a Laplace plan need the law of their Laplace noise")));
		y[i] = measurements_part(m, i);
	}
	if (confidence != NO_INTERVALS)
	{
		double		queries = 0.0;

		for (int j = 0; j < w->m; j++)
			queries += residual_term_queries(w, j, sizes);
		interval_check(confidence, true, (size_t) queries, false);
	}
	maps = needed_maps(w, sizes, sets, count);
	estimate(w, sizes, sets, count, maps, y, m->variance, est, vres);
	residual_answers(w, sizes, est, vres, answers, stderrs);
	if (inference != RESIDUAL_LS)
		residual_nonneg(w, sizes, est, vres, inference == RESIDUAL_INTEGER, answers);
	if (confidence == NO_INTERVALS)
		return 0;
	return half_widths(w, sizes, sets, count, maps, m->laws, m->variance, confidence, half);
}
