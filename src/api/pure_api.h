/*
 * pure_api.h -- what pure_api.c shares with the other entry points.
 */
#ifndef DPM_API_PURE_API_H
#define DPM_API_PURE_API_H

#include "fmgr.h"

#include "mechanism/exact.h"

/*
 * The row (units numeric[], l1 float8, l2 float8) of the exact-measurement
 * test functions: v in units of the grid 2^e, and the sensitivity bounds.
 */
extern Datum api_exact_answers_row(FunctionCallInfo fcinfo, const ExactAnswers *v, int e, double l1,
							   double l2);

#endif
