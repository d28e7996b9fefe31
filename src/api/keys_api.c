/*
 * keys_api.c -- dpm_internal.keys_scan: partition selection (mechanism/partition.h)
 * over the rows of a query as the executor produces them.
 *
 * A selection runs after its charge, so its memory must not depend on the
 * rare values a table holds.  The query (sql/26_keys.sql) yields one row per
 * candidate key with its count of units; PostgreSQL's own aggregation and
 * sorts spill to disk past work_mem.  This receiver judges each row as it
 * arrives and keeps only the keys that pass, in a tuplestore (which spills
 * too): no candidate outlives its row.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "funcapi.h"
#include "tcop/dest.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "security/access.h"
#include "mechanism/partition.h"

typedef struct KeysReceiver
{
	DestReceiver pub;
	PartitionLaw law;
	Tuplestorestate *keys;
	TupleDesc	keys_desc;
	MemoryContext row_context;	/* what judging one row allocates */
} KeysReceiver;

static void
keys_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
	if (typeinfo->natts != 2 || TupleDescAttr(typeinfo, 0)->atttypid != TEXTOID ||
		TupleDescAttr(typeinfo, 1)->atttypid != INT8OID)
		elog(ERROR, "dpm_internal.keys_scan: the query must return (key text, units bigint)");
}

static bool
keys_receive(TupleTableSlot *slot, DestReceiver *self)
{
	KeysReceiver *r = (KeysReceiver *) self;
	MemoryContext old = MemoryContextSwitchTo(r->row_context);
	bool		isnull[2];
	Datum		key = slot_getattr(slot, 1, &isnull[0]);
	Datum		units = slot_getattr(slot, 2, &isnull[1]);

	/* the query leaves NULL keys out; a NULL count would be a key held by no unit */
	if (!isnull[0] && !isnull[1] && partition_passes(&r->law, DatumGetInt64(units)))
	{
		/* a key of the table's rows may still be toasted there: only the ones kept are read */
		key = PointerGetDatum(PG_DETOAST_DATUM_PACKED(key));
		tuplestore_putvalues(r->keys, r->keys_desc, &key, &isnull[0]);	/* copies it */
	}
	MemoryContextSwitchTo(old);
	MemoryContextReset(r->row_context);
	return true;
}

static void
keys_shutdown(DestReceiver *self)
{
}

static void
keys_destroy(DestReceiver *self)
{
}

/*
 * dpm_internal.keys_scan(role, sql, keys_per_unit, epsilon, delta, rho): the
 * keys of the rows (key text, units bigint) of sql, run as role, whose noisy
 * count passes partition selection's threshold, in the query's order;
 * Gaussian noise when rho is given.  Only the extension owner may call it,
 * and only with SQL built from the catalog.
 */
PG_FUNCTION_INFO_V1(dpm_keys_scan);
Datum
dpm_keys_scan(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	KeysReceiver r = {{0}};
	SPIExecuteOptions options = {0};
	AsRole		saved;
	char	   *sql;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(4) ||
		(PG_ARGISNULL(3) && PG_ARGISNULL(5)))
		elog(ERROR, "dpm_internal.keys_scan: role, sql, keys per unit, delta, and epsilon or rho must not be NULL");
	sql = text_to_cstring(PG_GETARG_TEXT_PP(1));
	/* the checks, before the scan */
	partition_begin(&r.law, PG_GETARG_INT32(2), PG_ARGISNULL(3) ? 0.0 : PG_GETARG_FLOAT8(3), PG_GETARG_FLOAT8(4),
					PG_ARGISNULL(5) ? 0.0 : PG_GETARG_FLOAT8(5));

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	r.keys = rsinfo->setResult;
	r.keys_desc = rsinfo->setDesc;
	r.row_context = AllocSetContextCreate(CurrentMemoryContext, "dpm keys_scan row", ALLOCSET_SMALL_SIZES);
	r.pub.receiveSlot = keys_receive;
	r.pub.rStartup = keys_startup;
	r.pub.rShutdown = keys_shutdown;
	r.pub.rDestroy = keys_destroy;
	/* not DestNone, whose rows SPI counts as discarded; nor DestSPI, whose rows it checks it holds */
	r.pub.mydest = DestTuplestore;

	security_as_role_begin(&saved, PG_GETARG_OID(0));
	SPI_connect();
	/* the rows go to the receiver as the executor makes them, never into SPI_tuptable */
	options.read_only = true;
	options.dest = (DestReceiver *) &r;
	if (SPI_execute_extended(sql, &options) != SPI_OK_SELECT)
		elog(ERROR, "dpm_internal.keys_scan: not a query");
	SPI_finish();
	security_as_role_end(&saved);
	MemoryContextDelete(r.row_context);
	return (Datum) 0;
}
