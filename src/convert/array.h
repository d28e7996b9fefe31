/*
 * array.h -- conversion between SQL float8 arrays and Mat, with the checks
 * every entry point needs (shape, NULLs, NaN/Inf, size).
 */
#ifndef DPM_CONVERT_ARRAY_H
#define DPM_CONVERT_ARRAY_H

#include "postgres.h"
#include "fmgr.h"
#include "utils/array.h"

#include "linalg/linalg.h"

/* float8[][] (or float8[], read as one row) -> Mat; argname appears in errors */
extern Mat *array_to_mat(ArrayType *arr, const char *argname);
extern ArrayType *array_from_mat(const Mat *m);
/* the same for M^T, read back by array_view_transposed: no reordering either way */
extern ArrayType *array_from_mat_transposed(const Mat *m);
/*
 * The matrix whose transpose the array holds, as a view of the array's own
 * data (checked, not copied): read-only, and never passed to mat_free.
 */
extern Mat *array_view_transposed(ArrayType *arr, const char *argname);

/* float8[] -> C vector of *len elements */
extern double *array_to_vec(ArrayType *arr, const char *argname, int *len);
/* the same, as a view of the array's own data (checked, not copied): read-only */
extern const double *array_vec_view(ArrayType *arr, const char *argname, int *len);
/* an array argument, flat, not copied where it need not be: read-only */
extern ArrayType *array_arg_flat(Datum d);
extern ArrayType *array_from_vec(const double *v, int len);
/* a float8[] of len values to be written at ARR_DATA_PTR (len 0: the empty array) */
extern ArrayType *array_new_vector(int len);

#endif
