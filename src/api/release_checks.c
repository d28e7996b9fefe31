/*
 * release_checks.c -- checks dpm_internal.release_plan makes before anything is
 * charged, so that a release refused for a reason that does not depend on
 * the data is refused at no cost (and dpm.explain refuses it the same way).
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/xact.h"
#include "fmgr.h"

#include "mechanism/mechanism.h"

/* dpm_internal.in_this_transaction(xmin): a row this transaction wrote, invisible to others */
PG_FUNCTION_INFO_V1(dpm_in_this_transaction);
Datum
dpm_in_this_transaction(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(TransactionIdIsCurrentTransactionId(DatumGetTransactionId(PG_GETARG_DATUM(0))));
}

/*
 * dpm_internal.check_noise(rows, l1, l2, epsilon, delta, rho): the sampler's own
 * checks for a release of rows strategy answers (mechanism_check: the code
 * the release runs, drawing nothing).  NULL epsilon or rho: not given.  The
 * release calibrates for the exact sensitivity of the quantized strategy
 * (exact.h), within a relative 2^-40 of the stored one: checked at both
 * ends of a wider interval, so that a release is not refused after its
 * charge on that difference.
 */
PG_FUNCTION_INFO_V1(dpm_check_noise);
Datum
dpm_check_noise(PG_FUNCTION_ARGS)
{
	double		epsilon = PG_ARGISNULL(3) ? 0.0 : PG_GETARG_FLOAT8(3);
	double		delta = PG_GETARG_FLOAT8(4);
	double		rho = PG_ARGISNULL(5) ? 0.0 : PG_GETARG_FLOAT8(5);
	double		sens;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(4))
		elog(ERROR, "dpm_internal.check_noise: NULL rows, sensitivity or delta");
	sens = MECHANISM_LAPLACE(delta, rho) ? PG_GETARG_FLOAT8(1) : PG_GETARG_FLOAT8(2);
	mechanism_check(PG_GETARG_INT32(0), sens * (1 - 1.0 / (1 << 20)), epsilon, delta, rho);
	mechanism_check(PG_GETARG_INT32(0), sens * (1 + 1.0 / (1 << 20)), epsilon, delta, rho);
	PG_RETURN_VOID();
}
