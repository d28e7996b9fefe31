/*
 * histogram.c -- the frequency-vector aggregate dpm.histogram(cell, n), the
 * same for the sum of a measure per cell (dpm_internal.histogram_sum), and
 * both at once for an average (dpm_internal.histogram_avg: sums, then counts);
 * the same states from rows grouped by cell on other servers (_groups).
 *
 * The transition state is one int64 counter per cell, allocated once in the
 * aggregate context (memory independent of the number of rows).  Combine,
 * serialize and deserialize let PostgreSQL run it in parallel workers and
 * merge the partial vectors.  A sum is kept in integer units of its
 * measure's grid, so that the mechanism measures it exactly as it does
 * counts (src/mechanism/exact.h); sums that would pass the largest value the
 * mechanism takes, 2^53 units, are held there (saturation moves a sum no
 * farther from a neighbour's, so the sensitivity stands).
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "common/int.h"
#include "fmgr.h"
#include "libpq/pqformat.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#include "histogram/histogram.h"

int			dpm_max_cells = 10000000;

/* the largest sum the mechanism measures exactly (EXACT_COUNT_MAX in src/mechanism/exact.h) */
#define HIST_MAX	((int64) 1 << 53)
/* a measure's value is at most 2^MEASURE_UNIT_BITS units of its grid */
#define MEASURE_UNIT_BITS	24

typedef struct HistState
{
	int32		n;
	int64		counts[FLEXIBLE_ARRAY_MEMBER];
} HistState;

/* a zeroed state of n counters */
static HistState *
hist_alloc(MemoryContext cxt, int32 n)
{
	HistState  *st = MemoryContextAllocExtended(cxt, offsetof(HistState, counts) + sizeof(int64) * (size_t) n,
												MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);

	st->n = n;
	return st;
}

/* the state of `copies` vectors of n cells each (an average keeps its sums and its counts) */
static HistState *
hist_new(MemoryContext cxt, int32 n, int copies)
{
	if (n < 1 || n > dpm_max_cells)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("histogram size %d is outside 1 .. %d", n, dpm_max_cells),
				 errhint("Use fewer cells, or raise dpm.max_cells.")));
	if ((int64) n * copies > PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("an average over %d cells needs more than %d counters", n, PG_INT32_MAX)));
	return hist_alloc(cxt, n * copies);
}

static MemoryContext
agg_context(FunctionCallInfo fcinfo, const char *fname)
{
	MemoryContext cxt;

	if (!AggCheckCallContext(fcinfo, &cxt))
		elog(ERROR, "%s called in non-aggregate context", fname);
	return cxt;
}

/*
 * The state of a histogram aggregate of the size at argument 2 (made at the
 * first row, `copies` vectors of it), and in *cell the row's 0-based cell at
 * argument 1, checked against it: -1 for a row that falls in no cell (a NULL
 * cell).
 */
static HistState *
hist_row(FunctionCallInfo fcinfo, const char *fname, int copies, int32 *cell)
{
	MemoryContext cxt = agg_context(fcinfo, fname);
	HistState  *st = PG_ARGISNULL(0) ? NULL : (HistState *) PG_GETARG_POINTER(0);
	int32		n;

	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("histogram size must not be NULL")));
	n = PG_GETARG_INT32(2);
	if (st == NULL)
		st = hist_new(cxt, n, copies);
	else if (st->n != n * copies)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("histogram size changed from %d to %d within one aggregate", st->n / copies, n)));
	*cell = PG_ARGISNULL(1) ? -1 : PG_GETARG_INT32(1);
	if (!PG_ARGISNULL(1) && (*cell < 0 || *cell >= n))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cell index %d is outside 0 .. %d", *cell, n - 1)));
	return st;
}

PG_FUNCTION_INFO_V1(dpm_histogram_transfn);
Datum
dpm_histogram_transfn(PG_FUNCTION_ARGS)
{
	int32		cell;
	HistState  *st = hist_row(fcinfo, "dpm_histogram_transfn", 1, &cell);

	if (cell >= 0)
		st->counts[cell]++;
	PG_RETURN_POINTER(st);
}

/*
 * The bounds and grid of a sum at arguments first .. first + 2, checked; and
 * a value's units on that grid: clamped, scaled by a power of two (exact)
 * and rounded half to even, within +-2^53.  false for NaN (adds nothing).
 */
static void
sum_args(FunctionCallInfo fcinfo, int first, double *lo, double *hi, int32 *grid_exp)
{
	for (int i = first; i < first + 3; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("the bounds and grid of a sum must not be NULL")));
	*lo = PG_GETARG_FLOAT8(first);
	*hi = PG_GETARG_FLOAT8(first + 1);
	*grid_exp = PG_GETARG_INT32(first + 2);
	if (!(isfinite(*lo) && isfinite(*hi) && *lo <= *hi))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the bounds of a sum must be finite with lo <= hi, got [%g, %g]", *lo, *hi)));
}

static bool
value_units(double v, double lo, double hi, int32 grid_exp, int64 *units)
{
	double		u;

	if (isnan(v))
		return false;
	u = rint(ldexp(Min(Max(v, lo), hi), -grid_exp));
	*units = (int64) Max(Min(u, (double) HIST_MAX), (double) -HIST_MAX);
	return true;
}

/* an average's rule for NULL values at argument i: true to leave their rows out of the counts */
static bool
avg_drop_arg(FunctionCallInfo fcinfo, int i)
{
	if (PG_ARGISNULL(i))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the NULL rule of an average must not be NULL")));
	return PG_GETARG_BOOL(i);
}

/*
 * The state of a histogram aggregate of a measure (`copies` vectors), the
 * row's cell (-1: none), and true with the row's value in units when it has
 * one (not NULL or NaN); the bounds and grid at arguments 4 .. 6.
 */
static inline bool
hist_value(FunctionCallInfo fcinfo, const char *fname, int copies, HistState **st, int32 *cell,
		   int64 *units)
{
	int32		grid_exp;
	double		lo,
				hi;

	sum_args(fcinfo, 4, &lo, &hi, &grid_exp);
	*st = hist_row(fcinfo, fname, copies, cell);
	return *cell >= 0 && !PG_ARGISNULL(3) && value_units(PG_GETARG_FLOAT8(3), lo, hi, grid_exp, units);
}

/*
 * dpm_internal.histogram_sum(cell, n, value, lo, hi, grid_exp): per cell, the
 * sum of the rows' values clamped to [lo, hi] and rounded (half to even) to
 * integer units of 2^grid_exp.  A NULL or NaN value adds nothing.
 */
PG_FUNCTION_INFO_V1(dpm_histogram_sum_transfn);
Datum
dpm_histogram_sum_transfn(PG_FUNCTION_ARGS)
{
	int32		cell;
	int64		units;
	HistState  *st;

	if (hist_value(fcinfo, "dpm_histogram_sum_transfn", 1, &st, &cell, &units))
		st->counts[cell] = add_saturating(st->counts[cell], units);
	PG_RETURN_POINTER(st);
}

/*
 * dpm_internal.histogram_avg(cell, n, value, lo, hi, grid_exp, drop): what an
 * average divides, in one scan: the sums of histogram_sum in cells 0 .. n-1,
 * then each cell's count of rows, leaving out rows whose value is NULL or NaN
 * when drop (they add nothing to the sum either).
 */
PG_FUNCTION_INFO_V1(dpm_histogram_avg_transfn);
Datum
dpm_histogram_avg_transfn(PG_FUNCTION_ARGS)
{
	int32		cell;
	int64		units;
	HistState  *st;
	bool		drop = avg_drop_arg(fcinfo, 7);
	bool		valued = hist_value(fcinfo, "dpm_histogram_avg_transfn", 2, &st, &cell, &units);

	if (valued)
		st->counts[cell] = add_saturating(st->counts[cell], units);
	if (cell >= 0 && (valued || !drop))
		st->counts[st->n / 2 + cell]++;
	PG_RETURN_POINTER(st);
}

/*
 * dpm_internal.numeric_measure(v, lo, hi): a numeric value clamped to [lo, hi]
 * in its own type (+-Infinity too), then as float8; NaN stays NaN, which
 * histogram_sum skips.  Total: a clamped value is within float8's range, and
 * one too close to 0 for a float8 (1e-400) becomes 0 or a denormal rather
 * than an error (numeric_float8_no_overflow ignores strtod's ERANGE, which
 * numeric_float8 raises); any of those is less than a quarter of a unit of
 * the grid (at least 2^-356: dpm_internal.check_measure_bounds), so it adds
 * 0, as it would exactly.  STRICT: a NULL stays NULL (GREATEST and LEAST
 * would have made it a bound).
 */
PG_FUNCTION_INFO_V1(dpm_numeric_measure);
Datum
dpm_numeric_measure(PG_FUNCTION_ARGS)
{
	Numeric		v = PG_GETARG_NUMERIC(0);
	double		lo = PG_GETARG_FLOAT8(1),
				hi = PG_GETARG_FLOAT8(2);

	if (numeric_is_nan(v))
		PG_RETURN_FLOAT8(get_float8_nan());
	if (DatumGetInt32(DirectFunctionCall2(numeric_cmp, NumericGetDatum(v),
										  DirectFunctionCall1(float8_numeric, Float8GetDatum(lo)))) < 0)
		PG_RETURN_FLOAT8(lo);
	if (DatumGetInt32(DirectFunctionCall2(numeric_cmp, NumericGetDatum(v),
										  DirectFunctionCall1(float8_numeric, Float8GetDatum(hi)))) > 0)
		PG_RETURN_FLOAT8(hi);
	return DirectFunctionCall1(numeric_float8_no_overflow, NumericGetDatum(v));
}

/*
 * dpm_internal.value_units(v, lo, hi, grid_exp): a value's units as the sum
 * aggregates take it (value_units), NULL for NaN: the grouped scans' SQL
 * (dpm_internal.units_sql) takes the units of the bounds from here, so that
 * both forms round alike and a bound's product with the grid's scale, which
 * could underflow in SQL (1e-300 * 2^-300 raises an error), is never formed.
 */
PG_FUNCTION_INFO_V1(dpm_value_units);
Datum
dpm_value_units(PG_FUNCTION_ARGS)
{
	double		lo,
				hi;
	int32		grid_exp;
	int64		units;

	sum_args(fcinfo, 1, &lo, &hi, &grid_exp);
	if (PG_ARGISNULL(0) || !value_units(PG_GETARG_FLOAT8(0), lo, hi, grid_exp, &units))
		PG_RETURN_NULL();
	PG_RETURN_INT64(units);
}

/*
 * dpm_internal.measure_grid(lo, hi): the exponent g of a measure's grid, with
 * max(|lo|, |hi|) / 2^g in [2^23, 2^24): a value is then at most 2^24 units,
 * so sums of up to 2^29 values per cell are measured exactly, and a value
 * moves by at most 2^-25 of the bound when rounded.
 */
PG_FUNCTION_INFO_V1(dpm_measure_grid);
Datum
dpm_measure_grid(PG_FUNCTION_ARGS)
{
	double		lo = PG_GETARG_FLOAT8(0),
				hi = PG_GETARG_FLOAT8(1),
				b = Max(fabs(lo), fabs(hi));
	int			e;

	if (!(isfinite(b) && b > 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a measure needs finite bounds, not both zero, got [%g, %g]", lo, hi)));
	/* b = f 2^e with f in [0.5, 1): b / 2^(e - 24) = f 2^24 is in [2^23, 2^24) */
	(void) frexp(b, &e);
	PG_RETURN_INT32(e - MEASURE_UNIT_BITS);
}

PG_FUNCTION_INFO_V1(dpm_histogram_combinefn);
Datum
dpm_histogram_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = agg_context(fcinfo, "dpm_histogram_combinefn");
	HistState  *a = PG_ARGISNULL(0) ? NULL : (HistState *) PG_GETARG_POINTER(0);
	HistState  *b = PG_ARGISNULL(1) ? NULL : (HistState *) PG_GETARG_POINTER(1);

	if (b == NULL)
		PG_RETURN_POINTER(a);
	if (a == NULL)
	{
		/* the result must live in the aggregate context, not in b's */
		a = hist_alloc(cxt, b->n);
		memcpy(a->counts, b->counts, sizeof(int64) * (size_t) b->n);
		PG_RETURN_POINTER(a);
	}
	if (a->n != b->n)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot combine histograms of sizes %d and %d", a->n, b->n)));
	for (int32 i = 0; i < a->n; i++)
		a->counts[i] = add_saturating(a->counts[i], b->counts[i]);
	PG_RETURN_POINTER(a);
}

PG_FUNCTION_INFO_V1(dpm_histogram_serialfn);
Datum
dpm_histogram_serialfn(PG_FUNCTION_ARGS)
{
	HistState  *st = (HistState *) PG_GETARG_POINTER(0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendint32(&buf, st->n);
	for (int32 i = 0; i < st->n; i++)
		pq_sendint64(&buf, st->counts[i]);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

PG_FUNCTION_INFO_V1(dpm_histogram_deserialfn);
Datum
dpm_histogram_deserialfn(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = agg_context(fcinfo, "dpm_histogram_deserialfn");
	bytea	   *raw = PG_GETARG_BYTEA_PP(0);
	StringInfoData buf;
	HistState  *st;
	int32		n;

	buf.data = VARDATA_ANY(raw);
	buf.len = VARSIZE_ANY_EXHDR(raw);
	buf.maxlen = buf.len;
	buf.cursor = 0;
	n = pq_getmsgint(&buf, 4);
	if (n < 1 || n > (buf.len - 4) / 8)
		elog(ERROR, "invalid histogram state of %d counters in %d bytes", n, buf.len);
	st = hist_alloc(cxt, n);
	for (int32 i = 0; i < st->n; i++)
		st->counts[i] = pq_getmsgint64(&buf);
	pq_getmsgend(&buf);
	PG_RETURN_POINTER(st);
}

PG_FUNCTION_INFO_V1(dpm_histogram_finalfn);
Datum
dpm_histogram_finalfn(PG_FUNCTION_ARGS)
{
	HistState  *st;
	size_t		nbytes;
	ArrayType  *arr;
	double	   *v;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (HistState *) PG_GETARG_POINTER(0);
	if (st->n == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(FLOAT8OID));
	/*
	 * The counts straight into a float8[] made here: construct_array takes a
	 * Datum per cell first, one more copy of the tables (157 MB for all
	 * 3-way marginals of 50 attributes).
	 */
	nbytes = ARR_OVERHEAD_NONULLS(1) + sizeof(double) * (size_t) st->n;
	if (!AllocSizeIsValid(nbytes))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a histogram of %d counters is too large for a PostgreSQL array (1 GB)", st->n)));
	arr = palloc(nbytes);
	SET_VARSIZE(arr, nbytes);
	arr->ndim = 1;
	arr->dataoffset = 0;
	arr->elemtype = FLOAT8OID;
	ARR_DIMS(arr)[0] = st->n;
	ARR_LBOUND(arr)[0] = 1;
	v = (double *) ARR_DATA_PTR(arr);
	for (int32 i = 0; i < st->n; i++)
		v[i] = (double) Max(Min(st->counts[i], HIST_MAX), -HIST_MAX);
	PG_RETURN_ARRAYTYPE_P(arr);
}

/*
 * dpm_internal.marginal_counts(bins, sizes, sets): the same state, holding
 * the marginal tables of the attribute sets (rows of sets, 1-based, 0
 * pads) one after the other, each in mixed radix with its last attribute
 * fastest; a row adds one to a cell of every table.  bins[a] is the row's
 * bin (0-based) of attribute a of the given sizes; a row with a NULL bin
 * falls in no cell of the domain and is not counted.  The layout is read
 * once per query into fn_extra.
 */
typedef struct MarginalLayout
{
	int			d;
	int			nsets;
	int			width;
	int32	   *sizes;
	int		   *attrs;			/* nsets x width, 0-based, -1 pads */
	int64	   *stride;			/* nsets x width: each attribute's step within its table */
	int64	   *offset;			/* where each table starts */
	int64		cells;
} MarginalLayout;

static MarginalLayout *
marginal_layout(FunctionCallInfo fcinfo)
{
	MarginalLayout *l = fcinfo->flinfo->fn_extra;
	ArrayType  *sizes,
			   *sets;
	MemoryContext old;

	if (l != NULL)
		return l;
	if (PG_ARGISNULL(2) || PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("sizes and sets must not be NULL")));
	sizes = PG_GETARG_ARRAYTYPE_P(2);
	sets = PG_GETARG_ARRAYTYPE_P(3);
	if (ARR_NDIM(sizes) != 1 || ARR_HASNULL(sizes) || ARR_NDIM(sets) != 2 || ARR_HASNULL(sets))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sizes must be a one-dimensional and sets a two-dimensional array, without NULLs")));
	old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	l = palloc0(sizeof(MarginalLayout));
	l->d = ARR_DIMS(sizes)[0];
	l->nsets = ARR_DIMS(sets)[0];
	l->width = ARR_DIMS(sets)[1];
	l->sizes = palloc(sizeof(int32) * l->d);
	memcpy(l->sizes, ARR_DATA_PTR(sizes), sizeof(int32) * l->d);
	l->attrs = palloc(sizeof(int) * l->nsets * l->width);
	l->stride = palloc(sizeof(int64) * l->nsets * l->width);
	l->offset = palloc(sizeof(int64) * l->nsets);
	for (int t = 0; t < l->nsets; t++)
	{
		const int32 *row = (const int32 *) ARR_DATA_PTR(sets) + (size_t) t * l->width;
		double		cells = 1;

		l->offset[t] = l->cells;
		for (int c = l->width - 1; c >= 0; c--)
		{
			int			a = row[c] - 1;

			if (a < -1 || a >= l->d || (a >= 0 && l->sizes[a] < 1))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("set %d names attribute %d, which the %d sizes do not describe", t + 1, a + 1, l->d)));
			l->attrs[t * l->width + c] = a;
			l->stride[t * l->width + c] = (int64) cells;
			if (a >= 0)
				cells *= l->sizes[a];
		}
		if (l->cells + cells > dpm_max_cells)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("the marginal tables have more than dpm.max_cells (%d) cells in all", dpm_max_cells),
					 errhint("Ask for fewer or smaller marginals, or raise dpm.max_cells.")));
		l->cells += (int64) cells;
	}
	MemoryContextSwitchTo(old);
	fcinfo->flinfo->fn_extra = l;
	return l;
}

/*
 * Adds amount to the cell of every table that the row with bins argument 1
 * falls in, the tables starting at counter base.
 */
static HistState *
marginal_add(FunctionCallInfo fcinfo, HistState *st, const MarginalLayout *l, int64 base, int64 amount)
{
	ArrayType  *bins;
	const int32 *b;

	if (PG_ARGISNULL(1))
		return st;
	bins = PG_GETARG_ARRAYTYPE_P(1);
	if (ARR_NDIM(bins) != 1 || ARR_DIMS(bins)[0] != l->d)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bins must have one value per attribute (%d)", l->d)));
	if (ARR_HASNULL(bins))
		return st;
	b = (const int32 *) ARR_DATA_PTR(bins);
	for (int a = 0; a < l->d; a++)
		if (b[a] < 0 || b[a] >= l->sizes[a])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("bin %d of attribute %d is outside 0 .. %d", b[a], a + 1, l->sizes[a] - 1)));
	for (int t = 0; t < l->nsets; t++)
	{
		int64		cell = base + l->offset[t];

		for (int c = 0; c < l->width; c++)
		{
			int			a = l->attrs[t * l->width + c];

			if (a >= 0)
				cell += b[a] * l->stride[t * l->width + c];
		}
		st->counts[cell] = add_saturating(st->counts[cell], amount);
	}
	return st;
}

/*
 * The state of a marginal aggregate (`copies` sets of tables, made at the
 * first row) and in *l its layout.
 */
static HistState *
marginal_state(FunctionCallInfo fcinfo, const char *fname, int copies, MarginalLayout **l)
{
	MemoryContext cxt = agg_context(fcinfo, fname);
	HistState  *st = PG_ARGISNULL(0) ? NULL : (HistState *) PG_GETARG_POINTER(0);
	int32		cells;

	*l = marginal_layout(fcinfo);
	cells = (int32) Max((*l)->cells, 1);
	if (st == NULL)
		return hist_new(cxt, cells, copies);
	if (st->n != cells * copies)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the histogram size or the number of amounts changed within one aggregate")));
	return st;
}

PG_FUNCTION_INFO_V1(dpm_marginal_counts_transfn);
Datum
dpm_marginal_counts_transfn(PG_FUNCTION_ARGS)
{
	MarginalLayout *l;
	HistState  *st = marginal_state(fcinfo, "dpm_marginal_counts_transfn", 1, &l);

	PG_RETURN_POINTER(marginal_add(fcinfo, st, l, 0, 1));
}

/*
 * The state of a marginal aggregate of a measure (`copies` sets of tables),
 * its layout, and the bounds and grid at arguments 5 .. 7; true with the
 * row's value in units when it has one (not NULL or NaN).
 */
static bool
marginal_value(FunctionCallInfo fcinfo, const char *fname, int copies, HistState **st,
			   MarginalLayout **l, int64 *units)
{
	double		lo,
				hi;
	int32		grid_exp;

	*st = marginal_state(fcinfo, fname, copies, l);
	sum_args(fcinfo, 5, &lo, &hi, &grid_exp);
	return !PG_ARGISNULL(4) && value_units(PG_GETARG_FLOAT8(4), lo, hi, grid_exp, units);
}

/*
 * dpm_internal.marginal_sums(bins, sizes, sets, value, lo, hi, grid_exp): the
 * same tables holding sums of a measure, each row's value as histogram_sum
 * takes it.
 */
PG_FUNCTION_INFO_V1(dpm_marginal_sums_transfn);
Datum
dpm_marginal_sums_transfn(PG_FUNCTION_ARGS)
{
	HistState  *st;
	MarginalLayout *l;
	int64		units;

	if (marginal_value(fcinfo, "dpm_marginal_sums_transfn", 1, &st, &l, &units))
		st = marginal_add(fcinfo, st, l, 0, units);
	PG_RETURN_POINTER(st);
}

/*
 * dpm_internal.marginal_avg(bins, sizes, sets, value, lo, hi, grid_exp, drop):
 * the tables of marginal_sums, then the same tables of counts, as
 * histogram_avg keeps them.
 */
PG_FUNCTION_INFO_V1(dpm_marginal_avg_transfn);
Datum
dpm_marginal_avg_transfn(PG_FUNCTION_ARGS)
{
	HistState  *st;
	MarginalLayout *l;
	int64		units;
	bool		drop = avg_drop_arg(fcinfo, 8);
	bool		valued = marginal_value(fcinfo, "dpm_marginal_avg_transfn", 2, &st, &l, &units);

	if (valued)
		st = marginal_add(fcinfo, st, l, 0, units);
	if (valued || !drop)
		st = marginal_add(fcinfo, st, l, st->n / 2, 1);
	PG_RETURN_POINTER(st);
}

/*
 * The amounts of one group of rows at argument i (int8[], one per copy of the
 * state, at most max_copies; a NULL element adds nothing), and their number.
 */
static int
group_amounts(FunctionCallInfo fcinfo, int i, int64 *amounts, int max_copies)
{
	ArrayType  *a;
	Datum	   *elems;
	bool	   *nulls;
	int			k;

	if (PG_ARGISNULL(i))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the amounts of a group must not be NULL")));
	a = PG_GETARG_ARRAYTYPE_P(i);
	deconstruct_array(a, INT8OID, sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &elems, &nulls, &k);
	if (ARR_NDIM(a) != 1 || k < 1 || k > max_copies)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a group needs 1 to %d amounts, got %d", max_copies, k)));
	for (int j = 0; j < k; j++)
		amounts[j] = nulls[j] ? 0 : DatumGetInt64(elems[j]);
	return k;
}

/*
 * dpm_internal.histogram_groups(cell, n, amounts): the state of histogram,
 * histogram_sum or histogram_avg from rows already grouped by cell (each
 * group's count, or sum of units, per copy), as a grouped query on other
 * servers returns them (Citus, postgres_fdw: dpm_internal.scan_sql in sql/17_scans.sql).
 */
PG_FUNCTION_INFO_V1(dpm_histogram_groups_transfn);
Datum
dpm_histogram_groups_transfn(PG_FUNCTION_ARGS)
{
	int64		amounts[2];
	int			copies = group_amounts(fcinfo, 3, amounts, 2);
	int32		cell;
	HistState  *st;

	if (!PG_ARGISNULL(0) && !PG_ARGISNULL(2)
		&& ((HistState *) PG_GETARG_POINTER(0))->n != (int64) PG_GETARG_INT32(2) * copies)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the histogram size or the number of amounts changed within one aggregate")));
	st = hist_row(fcinfo, "dpm_histogram_groups_transfn", copies, &cell);

	if (cell >= 0)
		for (int j = 0; j < copies; j++)
			st->counts[j * (st->n / copies) + cell] = add_saturating(st->counts[j * (st->n / copies) + cell], amounts[j]);
	PG_RETURN_POINTER(st);
}

/*
 * dpm_internal.marginal_groups(bins, sizes, sets, amounts): the same for the
 * marginal aggregates, from rows grouped by their bins.
 */
PG_FUNCTION_INFO_V1(dpm_marginal_groups_transfn);
Datum
dpm_marginal_groups_transfn(PG_FUNCTION_ARGS)
{
	MarginalLayout *l;
	int64		amounts[2];
	int			copies = group_amounts(fcinfo, 4, amounts, 2);
	HistState  *st = marginal_state(fcinfo, "dpm_marginal_groups_transfn", copies, &l);

	for (int j = 0; j < copies; j++)
		st = marginal_add(fcinfo, st, l, j * (st->n / copies), amounts[j]);
	PG_RETURN_POINTER(st);
}

/* dpm.max_cells for the SQL side; calling it also loads the module, which defines the GUC */
PG_FUNCTION_INFO_V1(dpm_max_cells_fn);
Datum
dpm_max_cells_fn(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(dpm_max_cells);
}
