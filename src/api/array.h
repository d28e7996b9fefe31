/*
 * array.h -- conversion between SQL float8 arrays and Mat, with the checks
 * every entry point needs (shape, NULLs, NaN/Inf, size).
 */
#ifndef DPM_API_ARRAY_H
#define DPM_API_ARRAY_H

#include "postgres.h"
#include "fmgr.h"
#include "utils/array.h"

#include "linalg/linalg.h"
#include "mechanism/mechanism.h"

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

/*
 * array_to_mat (transposed false) or array_view_transposed (true) of a
 * float8[][] argument as the function received it (PG_GETARG_DATUM).  In the
 * resident release worker (release_am_worker), a value stored out of line is
 * read once and kept, keyed by its TOAST pointer (matrix_cache.c).  Read-only.
 */
extern const Mat *api_stored_matrix(Datum d, bool transposed, const char *argname);

/* float8[] -> C vector of *len elements */
extern double *array_to_vec(ArrayType *arr, const char *argname, int *len);
extern ArrayType *array_from_vec(const double *v, int len);

/* common argument checks */
extern void api_check_epsilon_delta(double epsilon, double delta);

/*
 * The privacy arguments of the mechanism functions, at positions first
 * (epsilon), first + 1 (delta), first + 2 (sensitivity_scale) and first + 3
 * (rho): either epsilon (with delta) or rho, each checked.
 */
extern void api_privacy_args(FunctionCallInfo fcinfo, int first, double *epsilon, double *delta,
						 double *scale, double *rho);
/* the same at the positions given; delta NULL is 0 */
extern void api_privacy_args_at(FunctionCallInfo fcinfo, int eps_arg, int delta_arg, int rho_arg,
								int scale_arg, double *epsilon, double *delta, double *scale,
								double *rho);

/* argument i, the inference of a release by name ("ls" when the function has no such argument) */
extern Inference api_inference_arg(FunctionCallInfo fcinfo, int i);

/* argument i: a confidence in (0, 1), or NO_INTERVALS when absent or NULL */
extern double api_confidence_arg(FunctionCallInfo fcinfo, int i);

/* a release as the rows (query, answer, stderr, ci_low, ci_high, ci_draws) of a set-returning function */
extern Datum api_release_rows(FunctionCallInfo fcinfo, const Release *rel);

#endif
