/* placeholder: the workload spec parser lands here */
#include "postgres.h"
#include "fmgr.h"

PG_FUNCTION_INFO_V1(dpm_workload_matrix);
Datum
dpm_workload_matrix(PG_FUNCTION_ARGS)
{
	elog(ERROR, "not implemented yet");
}
