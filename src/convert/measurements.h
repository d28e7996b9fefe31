/*
 * measurements.h -- a release's noisy measurements (mechanism.h) as the row
 * of dpm.release_measurements that the measuring functions return and the
 * inference functions take.
 */
#ifndef DPM_API_MEASUREMENTS_H
#define DPM_API_MEASUREMENTS_H

#include "postgres.h"
#include "fmgr.h"

#include "mechanism/mechanism.h"

/* the row (release_id NULL) for a function returning dpm.release_measurements */
extern Datum convert_measurements_datum(FunctionCallInfo fcinfo, Measurements *m);

/* argument i, such a row; shapes are checked by the inference that reads it */
extern Measurements *convert_measurements_arg(FunctionCallInfo fcinfo, int i);

/*
 * The one row of sql ($1 release id, $2 quantity) into d and isnull (ncols
 * columns), read inside SPI with the latest snapshot: dpm.answer combines
 * the release its worker has just committed, which a REPEATABLE READ
 * caller's snapshot cannot see; a release's measurements never change once
 * written.  what: the measurements sql asks for, for the error.
 */
extern void convert_release_row(const char *sql, int64 id, text *quantity, const char *what, int ncols, Datum *d,
							bool *isnull);

#endif
