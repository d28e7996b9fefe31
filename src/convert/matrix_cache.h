/*
 * matrix_cache.h -- a stored matrix argument, read once per resident release
 * worker (see matrix_cache.c).
 */
#ifndef DPM_CONVERT_MATRIX_CACHE_H
#define DPM_CONVERT_MATRIX_CACHE_H

#include "postgres.h"

#include "linalg/linalg.h"

/*
 * array_to_mat (transposed false) or array_view_transposed (true) of a
 * float8[][] argument as the function received it (PG_GETARG_DATUM).  In the
 * resident release worker (release_keep_cxt), a value stored out of line is
 * read once and kept, keyed by its TOAST pointer (matrix_cache.c).  Read-only.
 */
extern const Mat *convert_stored_matrix(Datum d, bool transposed, const char *argname);

#endif
