/* placeholder: core entry points being written */
#include "postgres.h"
#include "fmgr.h"
#define STUB(f) PG_FUNCTION_INFO_V1(f); Datum f(PG_FUNCTION_ARGS) { elog(ERROR, "not implemented yet"); }
STUB(dpm_sensitivity)
STUB(dpm_error_profile)
STUB(dpm_gaussian_sigma)
STUB(dpm_expected_error)
STUB(dpm_total_error)
STUB(dpm_reconstruct)
STUB(dpm_strategy)
STUB(dpm_mechanism)
STUB(dpm_histogram_transfn)
STUB(dpm_histogram_combinefn)
STUB(dpm_histogram_serialfn)
STUB(dpm_histogram_deserialfn)
STUB(dpm_histogram_finalfn)
PG_MODULE_MAGIC;
