/*
 * fuzz_matrix.c -- libFuzzer target: float8[] arrays at the SQL boundary
 * (src/api/array.c: array_to_mat, array_to_vec and back).
 *
 * Input: byte 0 gives the number of dimensions (0..6), the next bytes the
 * dimensions (0..255 each, as PostgreSQL allows empty and large ones), then
 * one byte per element (NULL or not) and 8 bytes per value, including NaN,
 * infinities, subnormals and huge magnitudes.  The array is well formed, as
 * PostgreSQL would hand it over; every ERROR is an expected outcome.
 */
#include "postgres.h"

#include <setjmp.h>

#include "api/array.h"
#include "linalg/linalg.h"

extern sigjmp_buf *fuzz_error_jump;
extern void fuzz_arena_reset(void);
extern ArrayType *fuzz_make_array(int ndim, const int *dims, const bool *nulls, const double *values);
int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sigjmp_buf	jb;
	int			ndim,
				dims[6];
	int64		n = 1;
	size_t		pos;

	if (size < 1)
		return 0;
	ndim = data[0] % 7;
	if (size < 1 + (size_t) ndim)
		return 0;
	for (int d = 0; d < ndim; d++)
	{
		dims[d] = data[1 + d];
		n *= dims[d];
		if (n > 4096)
			return 0;			/* keep inputs small; size limits are tested in SQL */
	}
	if (ndim == 0)
		n = 0;
	pos = 1 + ndim;
	if (n > 4096 || size < pos + (size_t) n * 9)
		return 0;

	dpm_max_matrix_mb = 64;
	fuzz_error_jump = &jb;
	if (sigsetjmp(jb, 0) == 0)
	{
		bool	   *nulls = palloc0(sizeof(bool) * Max(n, 1));
		double	   *values = palloc0(sizeof(double) * Max(n, 1));
		ArrayType  *arr;
		int			len;

		for (int i = 0; i < n; i++)
		{
			nulls[i] = data[pos + i] == 0xff;
			memcpy(&values[i], data + pos + n + (size_t) i * 8, sizeof(double));
		}
		arr = fuzz_make_array(ndim, dims, nulls, values);
		if (data[0] & 0x80)
		{
			double	   *v = array_to_vec(arr, "x", &len);

			(void) vec_to_array(v, len);
		}
		else
		{
			Mat		   *m = array_to_mat(arr, "a");

			(void) mat_to_array(m);
		}
	}
	fuzz_arena_reset();
	return 0;
}
