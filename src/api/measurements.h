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
extern Datum api_measurements_datum(FunctionCallInfo fcinfo, const Measurements *m);

/* argument i, such a row; shapes are checked by the inference that reads it */
extern Measurements *api_measurements_arg(FunctionCallInfo fcinfo, int i);

#endif
