/*
 * workload_api.h -- the domain argument convention shared by the SQL
 * functions that read a workload spec.
 */
#ifndef DPM_API_WORKLOAD_API_H
#define DPM_API_WORKLOAD_API_H

#include "fmgr.h"
#include "workload/workload.h"

/*
 * These functions take (spec text, domain dpm.domains, ...): the domain is
 * one value, a row of the catalog, and their own arguments start at
 * SPEC_ARGS.
 */
#define SPEC_ARGS 2

/* the domain passed as argument 1, checked: one with a dense cell index */
extern void api_domain_arg(FunctionCallInfo fcinfo, WorkloadDomain *dom);
/* the same, or a wide one (dom->wide), for functions that never index its cells */
extern void api_domain_arg_wide(FunctionCallInfo fcinfo, WorkloadDomain *dom);

#endif
