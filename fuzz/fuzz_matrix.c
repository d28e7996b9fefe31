/*
 * fuzz_matrix.c -- libFuzzer target: float8 arrays at the SQL boundary,
 * src/convert/array.c (array_to_mat, array_to_vec, and through them
 * array_values; array_from_mat and array_from_vec on the way back).
 *
 * Input (missing bytes read as zero):
 *   byte 0        bits 0-2: ndim (0..6; 7 reads as 0)
 *                 bit 3: array_to_vec instead of array_to_mat
 *                 bit 4: the array has a null bitmap
 *                 bits 5-7: element type, 6 = int8, 7 = float4, else float8
 *   2 bytes/dim   the dimension (0..255) and a lower-bound selector
 *   ceil(n/8)     with a bitmap: one bit per element, set = NULL
 *   8 bytes/elem  the values, raw IEEE doubles (NaN, infinities, -0, subnormals...)
 * with n, the product of the dimensions, at most 4096.  The array is well
 * formed as PostgreSQL would hand it over (no items makes it 0-D, bounds do
 * not overflow).
 *
 * Beyond crashes and sanitizer reports, the harness checks the outcome
 * against the documented contract: an array must be rejected exactly when
 * it is empty, of the wrong shape or type, or holds a NULL, a non-finite
 * value or one beyond 1e100 in magnitude, and then with the SQLSTATE of one
 * of those reasons; an accepted one must come back with the same values in
 * the same places, and round-trip through array_from_mat / array_from_vec.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/array.h"

#include "convert/array.h"
#include "linalg/linalg.h"

#include "fuzz_common.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ITEMS 4096

typedef struct Input
{
	const uint8_t *data;
	size_t		size;
	size_t		pos;
} Input;

static uint8_t
next_byte(Input *in)
{
	return in->pos < in->size ? in->data[in->pos++] : 0;
}

static int
lower_bound(uint8_t sel, int dim)
{
	switch (sel & 7)
	{
		case 0:
			return 1;
		case 1:
			return 0;
		case 2:
			return -1;
		case 3:
			return (int8) sel;
		case 4:
			return PG_INT32_MIN;
		case 5:
			return PG_INT32_MAX - dim;
		case 6:
			return -dim;
		default:
			return 1 + (sel >> 3) * 1000003;
	}
}

/* the checks array.c promises, as a set of acceptable SQLSTATEs (none: must succeed) */
typedef struct Expect
{
	int			ncodes;
	int			codes[6];
} Expect;

static void
expect_code(Expect *e, int code)
{
	e->codes[e->ncodes++] = code;
}

static void
check_array_back(ArrayType *arr, int ndim, const int *dims, const double *values, int n)
{
	Datum	   *elems;
	bool	   *nulls;
	int			count;

	if (ARR_NDIM(arr) != ndim || ARR_ELEMTYPE(arr) != FLOAT8OID || ARR_HASNULL(arr))
		fuzz_fail("result array has ndim %d, type %u, hasnull %d; expected %d, float8, no nulls",
				  ARR_NDIM(arr), ARR_ELEMTYPE(arr), ARR_HASNULL(arr), ndim);
	for (int d = 0; d < ndim; d++)
		if (ARR_DIMS(arr)[d] != dims[d] || ARR_LBOUND(arr)[d] != 1)
			fuzz_fail("result array dimension %d is [%d:%d], expected [1:%d]", d + 1,
					  ARR_LBOUND(arr)[d], ARR_LBOUND(arr)[d] + ARR_DIMS(arr)[d] - 1, dims[d]);
	deconstruct_array(arr, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &elems, &nulls, &count);
	if (count != n)
		fuzz_fail("result array has %d elements, expected %d", count, n);
	for (int i = 0; i < n; i++)
	{
		double		v = DatumGetFloat8(elems[i]);

		if (nulls[i] || memcmp(&v, &values[i], sizeof(double)) != 0)
			fuzz_fail("result array element %d is %g, expected %g", i + 1, v, values[i]);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input		in = {data, size, 0};
	uint8_t		flags;
	int			ndim,
				dims[MAXDIM],
				lbs[MAXDIM];
	bool		to_vec,
				with_bitmap;
	Oid			elemtype;
	int64		n = 1;
	bool	   *nulls;
	double	   *values;
	Expect		expect = {0};
	ArrayType  *arr;
	volatile bool failed = false;
	Mat		   *volatile m = NULL;
	double	   *volatile v = NULL;
	volatile int len = -1;

	if (size == 0)
		return 0;
	flags = next_byte(&in);
	ndim = (flags & 7) % 7;
	to_vec = (flags & 0x08) != 0;
	with_bitmap = (flags & 0x10) != 0;
	elemtype = (flags >> 5) == 7 ? FLOAT4OID : (flags >> 5) == 6 ? INT8OID : FLOAT8OID;
	for (int d = 0; d < ndim; d++)
	{
		dims[d] = next_byte(&in);
		lbs[d] = lower_bound(next_byte(&in), dims[d]);
		n *= dims[d];
		if (n > MAX_ITEMS)
			return -1;			/* keep inputs small; size limits are tested in SQL */
	}
	if (ndim == 0 || n == 0)
		n = 0;

	fuzz_begin();
	dpm_max_matrix_mb = 64;
	nulls = palloc0(sizeof(bool) * Max(n, 1));
	values = palloc0(sizeof(double) * Max(n, 1));
	if (with_bitmap)
		for (int i = 0; i < n; i += 8)
		{
			uint8_t		b = next_byte(&in);

			for (int k = 0; k < 8 && i + k < n; k++)
				nulls[i + k] = (b >> k) & 1;
		}
	for (int i = 0; i < n; i++)
		for (int k = 0; k < 8; k++)
			((uint8_t *) &values[i])[k] = next_byte(&in);
	arr = fuzz_make_array(ndim, dims, lbs, elemtype, with_bitmap, nulls, values);
	ndim = ARR_NDIM(arr);		/* 0 when there are no items */

	/* what must happen */
	if (ndim == 0 || (to_vec ? ndim != 1 : ndim > 2))
		expect_code(&expect, ERRCODE_INVALID_PARAMETER_VALUE);
	if (elemtype != FLOAT8OID)
		expect_code(&expect, ERRCODE_DATATYPE_MISMATCH);
	else
	{
		bool		any_null = false,
					any_nonfinite = false,
					any_huge = false;

		for (int i = 0; i < n; i++)
		{
			if (with_bitmap && nulls[i])
				any_null = true;
			else if (!isfinite(values[i]))
				any_nonfinite = true;
			else if (fabs(values[i]) > 1e100)
				any_huge = true;
		}
		if (any_null)
			expect_code(&expect, ERRCODE_NULL_VALUE_NOT_ALLOWED);
		if (any_nonfinite)
			expect_code(&expect, ERRCODE_DATA_EXCEPTION);
		if (any_huge)
			expect_code(&expect, ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE);
	}

	PG_TRY();
	{
		if (to_vec)
		{
			int			l;

			v = array_to_vec(arr, "x", &l);
			len = l;
		}
		else
			m = array_to_mat(arr, "a");
	}
	PG_CATCH();
	{
		failed = true;
	}
	PG_END_TRY();

	if (failed)
	{
		bool		known = false;

		if (expect.ncodes == 0)
			fuzz_fail("a valid %d-dimensional float8 array of %lld values was rejected",
					  ndim, (long long) n);
		for (int i = 0; i < expect.ncodes; i++)
			known |= fuzz_last_error.sqlerrcode == expect.codes[i];
		if (!known)
			fuzz_fail("rejected with SQLSTATE %s, which none of its defects calls for",
					  unpack_sql_state(fuzz_last_error.sqlerrcode));
	}
	else if (expect.ncodes > 0)
		fuzz_fail("an invalid array was accepted (expected SQLSTATE %s)",
				  unpack_sql_state(expect.codes[0]));
	else if (to_vec)
	{
		int			back = len;

		if (len != n)
			fuzz_fail("array_to_vec returned %d values for %lld", len, (long long) n);
		for (int i = 0; i < n; i++)
			if (memcmp(&v[i], &values[i], sizeof(double)) != 0)
				fuzz_fail("array_to_vec: value %d is %g, expected %g", i + 1, v[i], values[i]);
		check_array_back(array_from_vec(v, len), 1, &back, values, n);
	}
	else
	{
		int			rows = ndim == 2 ? dims[0] : 1;
		int			cols = ndim == 2 ? dims[1] : dims[0];
		int			back[2];

		if (m->rows != rows || m->cols != cols)
			fuzz_fail("array_to_mat gave %d x %d for a %d x %d array", m->rows, m->cols, rows, cols);
		for (int i = 0; i < rows; i++)
			for (int j = 0; j < cols; j++)
				if (memcmp(&MAT(m, i, j), &values[i * cols + j], sizeof(double)) != 0)
					fuzz_fail("array_to_mat: (%d,%d) is %g, expected %g", i + 1, j + 1,
							  MAT(m, i, j), values[i * cols + j]);
		back[0] = rows;
		back[1] = cols;
		check_array_back(array_from_mat(m), 2, back, values, n);
	}
	fuzz_end();
	return 0;
}
