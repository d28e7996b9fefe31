/*
 * workload_api.h -- the domain argument convention shared by the SQL
 * functions that read a workload spec.
 */
#ifndef DPM_API_WORKLOAD_API_H
#define DPM_API_WORKLOAD_API_H

#include "fmgr.h"
#include "workload/workload.h"

/* the domain passed as arguments 1..5 (names, sizes, labels, lo, hi), checked */
extern void domain_from_args(FunctionCallInfo fcinfo, WorkloadDomain *dom);

#endif
