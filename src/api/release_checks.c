/*
 * release_checks.c -- checks dpm._release_plan makes before anything is
 * charged, so that a release refused for a reason that does not depend on
 * the data is refused at no cost (and dpm.explain refuses it the same way).
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/xact.h"
#include "fmgr.h"

#include "mechanism/mechanism.h"

/* dpm._in_this_transaction(xmin): a row this transaction wrote, invisible to others */
PG_FUNCTION_INFO_V1(dpm_in_this_transaction);
Datum
dpm_in_this_transaction(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(TransactionIdIsCurrentTransactionId(DatumGetTransactionId(PG_GETARG_DATUM(0))));
}

/*
 * dpm._check_noise(rows, l1, l2, epsilon, delta, rho): the sampler's own
 * checks for a release of rows strategy answers, run through the very call a
 * release makes (mechanism_noise) on answers of zero; the noise drawn here is
 * thrown away.  NULL epsilon or rho: not given.
 */
PG_FUNCTION_INFO_V1(dpm_check_noise);
Datum
dpm_check_noise(PG_FUNCTION_ARGS)
{
	int			rows;
	double	   *zeros;
	LaplaceLaw	law;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(4))
		elog(ERROR, "dpm._check_noise: NULL rows, sensitivity or delta");
	rows = PG_GETARG_INT32(0);
	zeros = palloc0(sizeof(double) * Max(rows, 1));
	(void) mechanism_noise(zeros, rows, PG_GETARG_FLOAT8(1), PG_GETARG_FLOAT8(2),
						   PG_ARGISNULL(3) ? 0.0 : PG_GETARG_FLOAT8(3), PG_GETARG_FLOAT8(4),
						   PG_ARGISNULL(5) ? 0.0 : PG_GETARG_FLOAT8(5), &law);
	pfree(zeros);
	PG_RETURN_VOID();
}
