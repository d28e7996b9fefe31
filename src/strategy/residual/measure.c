/*
 * measure.c -- one residual measured from its marginal table, and the
 * marginals of a workload rebuilt from the residuals (residual.h).
 *
 * Why this measurement is private, and at which cost.  N_A Pi_A =
 * (x)_{i in A} (n_i I - J) is an integer operator, so v = N_A Pi_A x_A is
 * computed exactly from the integer table x_A.  A record moves x_A by a unit
 * vector, and v by a column of N_A Pi_A, of L2 norm N_A sqrt(r_A / N_A) =
 * sqrt(r_A N_A).  The exact Gaussian mechanism of mechanism/sampler.c
 * (which covers its own grid rounding) adds noise of standard deviation at
 * least N_A sd to each of the N_A coordinates of v for that sensitivity
 * (times the records a privacy unit may contribute), so residual A alone is
 * a Gaussian mechanism whose sensitivity over noise is at most
 * sqrt(r_A / N_A) / sd, and a plan's residuals together one whose squared
 * sensitivity over noise is at most sum_A r_A / (N_A sd_A^2): the plan's
 * cost2 when sd_A^2 are its variances.  Dividing by N_A and projecting onto
 * the residual again (Pi_A) is post-processing; it leaves noise of variance
 * sd^2 (r_A / N_A) in each coordinate, the plan's.  Under zCDP the parts'
 * rho add up; for (epsilon, delta) the residuals are parts of one Gaussian
 * mechanism (sampler.c, section 6), calibrated for the whole's sensitivity.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "mechanism/exact.h"
#include "mechanism/sampler.h"
#include "strategy/residual/residual.h"

/* the sizes of residual r's attributes, in its order */
static void
residual_sizes(const Residual *r, const int *sizes, int *n)
{
	for (int b = 0; b < r->order; b++)
		n[b] = sizes[r->attrs[b]];
}

/*
 * t <- (x)_b (n_b I - J) t over a table of the given attribute sizes (the
 * last fastest), in place: along each attribute, every entry becomes n_b
 * times itself minus the sum of its line.
 */
static void
times_n_pi(int128 *t, const int *n, int order, int cells)
{
	int			stride = cells;

	for (int b = 0; b < order; b++)
	{
		int			inner;

		stride /= n[b];
		inner = stride;
		for (int base = 0; base < cells; base++)
		{
			int128		sum = 0;
			int			k = (base / inner) % n[b];

			if (k != 0)
				continue;		/* one pass per line: from its first entry */
			for (int j = 0; j < n[b]; j++)
				sum += t[base + j * inner];
			for (int j = 0; j < n[b]; j++)
				t[base + j * inner] = n[b] * t[base + j * inner] - sum;
		}
	}
}

void
residual_project(const Residual *r, const int *sizes, double *t)
{
	int			n[RESIDUAL_MAX_ORDER];
	int			order = r->order,
				cells = (int) r->cells,
				stride = cells;

	residual_sizes(r, sizes, n);

	for (int b = 0; b < order; b++)
	{
		stride /= n[b];
		for (int base = 0; base < cells; base++)
		{
			double		mean = 0.0;

			if ((base / stride) % n[b] != 0)
				continue;
			for (int j = 0; j < n[b]; j++)
				mean += t[base + j * stride];
			mean /= n[b];
			for (int j = 0; j < n[b]; j++)
				t[base + j * stride] -= mean;
		}
	}
}

void
residual_exact_answers(const int128 *t, int cells, ExactAnswers *v)
{
	v->m = cells;
	v->words = 2;
	v->exp = 0;
	v->data = palloc(sizeof(uint64) * 2 * Max(cells, 1));
	for (int c = 0; c < cells; c++)
	{
		uint128		u = (uint128) t[c];

		v->data[2 * c] = (uint64) u;
		v->data[2 * c + 1] = (uint64) (u >> 64);
	}
}

double
residual_l2(const Residual *r, double contributions)
{
	return exact_mul_up(contributions, exact_sqrt_up(r->rows * r->cells));
}

double
residual_measure(const Residual *r, const int *sizes, const int64 *table, double sd,
				 double contributions, const GaussianJoint *joint, double *out)
{
	int			n[RESIDUAL_MAX_ORDER];
	int			cells = (int) r->cells,
				bits = EXACT_COUNT_BITS;
	int128	   *t = palloc(sizeof(int128) * cells);
	ExactAnswers v;
	double		variance;

	residual_sizes(r, sizes, n);
	/* |N_A Pi_A x| <= 2^53 prod (2 n_b): it must fit in 127 bits */
	for (int b = 0; b < r->order; b++)
		bits += (int) ceil(log2(2.0 * n[b]));
	if (bits > 126)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a residual over %d attributes of these sizes is too wide to measure exactly", r->order)));
	for (int c = 0; c < cells; c++)
		t[c] = table[c];
	times_n_pi(t, n, r->order, cells);

	residual_exact_answers(t, cells, &v);
	variance = dpm_gaussian_mechanism_part(&v, residual_l2(r, contributions), sd * r->cells, joint, out);
	for (int c = 0; c < cells; c++)
		out[c] /= r->cells;
	residual_project(r, sizes, out);
	pfree(t);
	pfree(v.data);
	return variance / (r->cells * r->cells);
}

void
residual_rebuild(const Residual *r, const int *sizes, const double *est, const int16 *s, int order,
				 double *answer)
{
	int			n_s[RESIDUAL_MAX_ORDER];
	int			cells = 1;
	double		spread = 1.0;

	for (int b = 0; b < order; b++)
	{
		n_s[b] = sizes[s[b]];
		cells *= n_s[b];
	}
	spread = cells / r->cells;
	for (int c = 0; c < cells; c++)
	{
		int			rest = c,
					idx = 0,
					mult = 1;

		/* c's coordinates in S, the last fastest; A's cell from those of A's attributes */
		for (int b = order - 1, k = r->order - 1; b >= 0; b--)
		{
			int			v = rest % n_s[b];

			rest /= n_s[b];
			if (k >= 0 && r->attrs[k] == s[b])
			{
				idx += v * mult;
				mult *= n_s[b];
				k--;
			}
		}
		answer[c] += est[idx] / spread;
	}
}
