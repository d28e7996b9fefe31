/*
 * replay.c -- the stored answers of a release (dpm.release), at no cost.
 *
 * Read with the latest snapshot rather than the caller's: dpm.answer reads
 * here what its worker has just committed, which a REPEATABLE READ or
 * SERIALIZABLE caller's transaction snapshot cannot see.  Whether the
 * release is visible is asked as the session's role, so that row-level
 * security decides as for that role, inside SECURITY DEFINER functions too.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/snapmgr.h"

#include "security/access.h"
#include "release/release.h"

static SPITupleTable *
latest(const char *sql, int64 id)
{
	SPIPlanPtr	plan;
	Oid			type = INT8OID;
	Datum		value = Int64GetDatum(id);

	plan = SPI_prepare(sql, 1, &type);
	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
	if (SPI_execute_snapshot(plan, &value, NULL, GetLatestSnapshot(), InvalidSnapshot,
							 true, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute_snapshot failed");
	return SPI_tuptable;
}

/*
 * Refuses a release the session's role may not see (row-level security
 * decides, as for that role: dpm.release runs as the extension's owner) or
 * that has no answers.
 */
static void
check_release(int64 id)
{
	SPITupleTable *tt;
	char	   *status;
	AsRole		saved;

	security_as_role_begin(&saved, GetOuterUserId());
	tt = latest("SELECT status FROM dpm.releases WHERE id = $1", id);
	security_as_role_end(&saved);
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("release %lld does not exist or is not yours", (long long) id),
				 errhint("Your releases are listed in dpm.releases.")));
	status = SPI_getvalue(tt->vals[0], tt->tupdesc, 1);
	/* a release left 'charged' whose worker holds no lock on it will never be computed */
	if (strcmp(status, "charged") == 0 &&
		!DatumGetBool(DirectFunctionCall1(dpm_release_in_progress, Int64GetDatum(id))))
		status = "interrupted";
	if (strcmp(status, "released") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("release %lld has no answers", (long long) id),
				 strcmp(status, "failed") == 0 ?
				 errdetail("It failed after it was charged; the charge stands.") :
				 strcmp(status, "interrupted") == 0 ?
				 errdetail("It was interrupted after it was charged: its worker stopped (a crash, a kill or a shutdown) before the answers were computed.  The charge stands.") :
				 errdetail("It is charged and its answers are being computed."),
				 strcmp(status, "charged") == 0 ?
				 errhint("Replay it once it is computed.") :
				 errhint("The custodian can find the cause in the server log.")));
}

/* dpm_internal.check_release(id): check_release, for dpm.release's derivations */
PG_FUNCTION_INFO_V1(dpm_check_release);
Datum
dpm_check_release(PG_FUNCTION_ARGS)
{
	SPI_connect();
	check_release(PG_GETARG_INT64(0));
	SPI_finish();
	PG_RETURN_VOID();
}

/* dpm_internal.stored_answers(id): a release's answers as stored */
PG_FUNCTION_INFO_V1(dpm_stored_answers);
Datum
dpm_stored_answers(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int64		id = PG_GETARG_INT64(0);

	InitMaterializedSRF(fcinfo, 0);
	SPI_connect();
	check_release(id);
	release_answers_read(id, rsinfo->setResult, rsinfo->setDesc);
	SPI_finish();
	return (Datum) 0;
}
