/*
 * total_arith.c -- float8 arithmetic for the steps a release runs after its charge, which must
 * not fail whatever the rows (doc/dev/architecture.md).  SQL's float8 operators raise an error when
 * a product of finite values leaves float8's range or rounds to 0 ("value out of range:
 * overflow", "underflow"); these compute the same in C and hold the result instead.
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "fmgr.h"

/* x * y, held at +-DBL_MAX rather than overflowing; below float8's range, 0 or a denormal */
static double
times_saturating(double x, double y)
{
	double		r = x * y;

	if (isinf(r) && isfinite(x) && isfinite(y))
		return copysign(DBL_MAX, r);
	return r;
}

/*
 * dpm_internal.times(x, y): x * y as above.  A release's answers, standard errors and intervals
 * are scaled to the measure's unit by it (dpm_internal.release_infer), and halved by it for an
 * average's ratio (dpm_internal.release_avg): finite, so that the difference of two of them
 * halved cannot overflow either.
 */
PG_FUNCTION_INFO_V1(dpm_times);
Datum
dpm_times(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(times_saturating(PG_GETARG_FLOAT8(0), PG_GETARG_FLOAT8(1)));
}

/*
 * dpm_internal.interpolate(lo, hi, above, span): lo + (hi - lo) * above / span, the point a
 * fraction above / span (in [0, 1]) of the way through the bin [lo, hi], as dpm.quantiles places
 * a quantile.  In that order of operations, as SQL computed it; where (hi - lo) * above leaves
 * float8's range (bins near its limits: (hi - lo) alone can overflow), the same point from the
 * fraction first, lo (1 - f) + hi f, whose terms cannot overflow.  Held within [lo, hi]; NaN
 * only from a NaN argument.
 */
PG_FUNCTION_INFO_V1(dpm_interpolate);
Datum
dpm_interpolate(PG_FUNCTION_ARGS)
{
	double		lo = PG_GETARG_FLOAT8(0),
				hi = PG_GETARG_FLOAT8(1),
				above = PG_GETARG_FLOAT8(2),
				span = PG_GETARG_FLOAT8(3),
				v = lo + (hi - lo) * above / span;

	if (!isfinite(v) && isfinite(lo) && isfinite(hi) && isfinite(above) && isfinite(span) && span != 0.0)
	{
		double		f = Min(Max(above / span, 0.0), 1.0);

		v = lo * (1.0 - f) + hi * f;
	}
	if (v < lo)
		v = lo;
	if (v > hi)
		v = hi;
	PG_RETURN_FLOAT8(v);
}
