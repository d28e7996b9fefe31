/*
 * array.c -- float8[][] at the SQL boundary.
 *
 * SQL arrays are row-major (one query a row); Mat is column-major for LAPACK.
 * This file is the only place the two layouts meet.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/float.h"
#include "utils/lsyscache.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "convert/array.h"

#define DPM_MAX_ABS_VALUE 1e100
/*
 * The least nonzero magnitude in a matrix: squares and products of smaller
 * entries (a weight times an entry, a variance) underflow PostgreSQL's
 * float8 arithmetic, as those beyond 1e100 overflow it.
 */
#define DPM_MIN_ABS_VALUE 1e-100

/* whether x is 0 or of a magnitude in [1e-100, 1e100] (NaN is not) */
#define IN_MATRIX_RANGE(x) \
	((fabs(x) <= DPM_MAX_ABS_VALUE) & ((fabs(x) >= DPM_MIN_ABS_VALUE) | ((x) == 0.0)))

/*
 * Refuse values that are not finite or beyond +-1e100, and in a matrix
 * (matrix true) nonzero ones below 1e-100 too, naming the first.  Vectors
 * (data, answers, stored parameters) may hold tiny values: they are not
 * multiplied by weights, and an optimizer's parameters may be that small.
 */
static void
check_values(const double *v, size_t count, const char *argname, bool matrix)
{
	bool		ok = true;

	/* one branch-free pass (NaN fails the comparison); the loop below only names the culprit */
	for (size_t i = 0; i < count; i++)
		ok &= matrix ? IN_MATRIX_RANGE(v[i]) : fabs(v[i]) <= DPM_MAX_ABS_VALUE;
	if (ok)
		return;
	for (size_t i = 0; i < count; i++)
	{
		if (!isfinite(v[i]))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("%s must contain only finite values, found %g at position %zu",
							argname, v[i], i + 1)));
		/* beyond this, sums and squares overflow long before any result is useful */
		if (fabs(v[i]) > DPM_MAX_ABS_VALUE)
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("%s holds %s at position %zu, outside the supported range [-1e100, 1e100]",
							argname, float8out_internal(v[i]), i + 1)));
		if (matrix && !IN_MATRIX_RANGE(v[i]))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("%s holds %s at position %zu, below the smallest supported nonzero magnitude, 1e-100",
							argname, float8out_internal(v[i]), i + 1),
					 errhint("Write it as 0, or scale the matrix up.")));
	}
}

static const double *array_data(ArrayType *arr, const char *argname, int *count);

/*
 * The elements in array order.  Without NULLs a float8 array's data is a
 * plain C array of doubles, read in place (a stored strategy's arrays hold
 * millions of values, and deconstruct_array would allocate a Datum for each).
 */
static const double *
array_values(ArrayType *arr, const char *argname, int *count)
{
	const double *v = array_data(arr, argname, count);

	check_values(v, *count, argname, false);
	return v;
}

/* the elements in array order, unchecked (see array_values) */
static const double *
array_data(ArrayType *arr, const char *argname, int *count)
{
	if (ARR_ELEMTYPE(arr) != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s must be a float8 array", argname)));
	*count = ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
	if (ARR_HASNULL(arr) && array_contains_nulls(arr))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not contain NULL values", argname)));
	return (const double *) ARR_DATA_PTR(arr);
}

/*
 * The matrix shape of an array, checked: a flat array is one row.  PostgreSQL
 * arrays are always rectangular, so "ragged" input fails in array_in.
 */
static void
matrix_shape(ArrayType *arr, const char *argname, int *rows, int *cols)
{
	int			ndim = ARR_NDIM(arr);

	if (ndim == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must not be empty", argname)));
	if (ndim > 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a matrix (float8[][]), not a %d-dimensional array",
						argname, ndim)));
	*rows = ndim == 2 ? ARR_DIMS(arr)[0] : 1;
	*cols = ndim == 2 ? ARR_DIMS(arr)[1] : ARR_DIMS(arr)[0];
	mat_check_size(*rows, *cols, argname);
}

Mat *
array_to_mat(ArrayType *arr, const char *argname)
{
	int			rows,
				cols,
				count;
	const double *v;
	Mat		   *m;
	bool		ok = true;

	matrix_shape(arr, argname, &rows, &cols);
	v = array_data(arr, argname, &count);
	m = mat_new_uninit(rows, cols);

	/*
	 * Row-major to column-major in 16 x 16 tiles that stay in L1, checking
	 * the values on the way: a stored strategy is tens of megabytes, and
	 * every pass over it costs a release milliseconds.
	 */
	for (int i0 = 0; i0 < rows; i0 += 16)
		for (int j0 = 0; j0 < cols; j0 += 16)
			for (int i = i0; i < Min(i0 + 16, rows); i++)
				for (int j = j0; j < Min(j0 + 16, cols); j++)
				{
					double		x = v[(size_t) i * cols + j];

					ok &= IN_MATRIX_RANGE(x);
					MAT(m, i, j) = x;
				}
	if (!ok)
		check_values(v, count, argname, true);
	return m;
}

/*
 * A float8 array of rows x cols (cols 0: a vector of rows values) without
 * NULLs, its data left for the caller to fill.
 */
static ArrayType *
new_float8_array(int rows, int cols)
{
	int			ndim = cols == 0 ? 1 : 2;
	size_t		nbytes = ARR_OVERHEAD_NONULLS(ndim) + sizeof(double) * (size_t) rows * Max(cols, 1);
	ArrayType  *arr;

	if (!AllocSizeIsValid(nbytes))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 ndim == 1 ?
				 errmsg("a vector of %d values is too large for a PostgreSQL array (1 GB)", rows) :
				 errmsg("a matrix of %d x %d is too large for a PostgreSQL array (1 GB)", rows, cols)));
	arr = palloc0(nbytes);
	SET_VARSIZE(arr, nbytes);
	arr->ndim = ndim;
	arr->dataoffset = 0;
	arr->elemtype = FLOAT8OID;
	for (int d = 0; d < ndim; d++)
	{
		ARR_DIMS(arr)[d] = d == 0 ? rows : cols;
		ARR_LBOUND(arr)[d] = 1;
	}
	return arr;
}

ArrayType *
array_from_mat(const Mat *m)
{
	ArrayType  *arr;
	double	   *v;

	if (m->rows == 0 || m->cols == 0)
		return construct_empty_array(FLOAT8OID);
	arr = new_float8_array(m->rows, m->cols);
	v = (double *) ARR_DATA_PTR(arr);
	/* column-major to row-major, in tiles that stay in cache */
	for (int j0 = 0; j0 < m->cols; j0 += 64)
		for (int i0 = 0; i0 < m->rows; i0 += 64)
			for (int j = j0; j < Min(j0 + 64, m->cols); j++)
				for (int i = i0; i < Min(i0 + 64, m->rows); i++)
					v[(size_t) i * m->cols + j] = MAT(m, i, j);
	return arr;
}

/*
 * M^T as an array: its rows are M's columns, so the array's data is M's own
 * column-major data and no reordering is needed either way.  For matrices
 * only dpmatrix reads (a stored strategy's pseudo-inverse).
 */
ArrayType *
array_from_mat_transposed(const Mat *m)
{
	ArrayType  *arr;

	if (m->rows == 0 || m->cols == 0)
		return construct_empty_array(FLOAT8OID);
	arr = new_float8_array(m->cols, m->rows);
	memcpy(ARR_DATA_PTR(arr), m->data, sizeof(double) * (size_t) m->rows * m->cols);
	return arr;
}

Mat *
array_view_transposed(ArrayType *arr, const char *argname)
{
	int			count;
	const double *v;
	Mat		   *m = palloc(sizeof(Mat));

	/* A (cols x rows of the view) has the array's shape */
	matrix_shape(arr, argname, &m->cols, &m->rows);
	/* no lower limit: only a stored strategy and its pseudo-inverse come this way, computed */
	v = array_values(arr, argname, &count);
	m->data = (double *) v;
	return m;
}

double *
array_to_vec(ArrayType *arr, const char *argname, int *len)
{
	/* a copy: callers may change it, and the array may be the caller's own datum */
	const double *v = array_vec_view(arr, argname, len);
	double	   *copy = palloc_extended(sizeof(double) * Max(*len, 1), MCXT_ALLOC_HUGE);

	memcpy(copy, v, sizeof(double) * *len);
	return copy;
}

/*
 * PG_GETARG_ARRAYTYPE_P flattens an expanded array (a PL/pgSQL variable's)
 * into a new copy; the expanded form of a flat array keeps that flat value
 * while it is valid (utils/array.h, fvalue), which serves as it is.
 */
ArrayType *
array_arg_flat(Datum d)
{
	if (VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)))
	{
		ExpandedArrayHeader *eah = (ExpandedArrayHeader *) DatumGetEOHP(d);

		if (eah->ea_magic == EA_MAGIC && eah->fvalue != NULL)
			return eah->fvalue;
	}
	return DatumGetArrayTypeP(d);
}

const double *
array_vec_view(ArrayType *arr, const char *argname, int *len)
{
	if (ARR_NDIM(arr) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must not be empty", argname)));
	if (ARR_NDIM(arr) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a one-dimensional array", argname)));
	mat_check_size(1, ARR_DIMS(arr)[0], argname);
	return array_values(arr, argname, len);
}

/*
 * Written in place rather than by construct_array, which takes the values as
 * Datums: a second copy of every vector on the way out (115 MB for a wide
 * release's 14.4 M measurements, 157 MB for its tables).
 */
ArrayType *
array_new_vector(int len)
{
	if (len == 0)
		return construct_empty_array(FLOAT8OID);
	return new_float8_array(len, 0);
}

ArrayType *
array_from_vec(const double *v, int len)
{
	ArrayType  *arr = array_new_vector(len);

	if (len > 0)
		memcpy(ARR_DATA_PTR(arr), v, sizeof(double) * (size_t) len);
	return arr;
}
