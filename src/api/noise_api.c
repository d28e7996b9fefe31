/* placeholder: the secure noise samplers' SQL entry point lands here */
#include "postgres.h"
#include "fmgr.h"

PG_FUNCTION_INFO_V1(dpm_noise);
Datum
dpm_noise(PG_FUNCTION_ARGS)
{
	elog(ERROR, "not implemented yet");
}
