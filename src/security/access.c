/*
 * access.c -- who is calling, and running custodian SQL with the rights of
 * the role that wrote it.
 *
 * Catalog functions run as the extension owner (SECURITY DEFINER) so that the
 * catalog is writable only through them.  Two things must not run with the
 * owner's rights: a source scan (its cell expression holds conditions a
 * custodian wrote), and privilege checks on the caller.  dpm_internal.exec_as runs a
 * query as a given role under SECURITY_RESTRICTED_OPERATION, the way
 * PostgreSQL runs a materialized view refresh as the view's owner, so a
 * custodian's condition can read exactly what that custodian can read.
 */
#include "postgres.h"

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "port.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "security/access.h"

double		security_exec_as_ms = 0;

/*
 * dpm_internal.invoker(): the role the session acts as outside any SECURITY DEFINER
 * function (the login role, or the role chosen by SET ROLE).  Privilege
 * checks made with it can never grant more than that role could do itself.
 */
PG_FUNCTION_INFO_V1(dpm_invoker);
Datum
dpm_invoker(PG_FUNCTION_ARGS)
{
	PG_RETURN_OID(GetOuterUserId());
}

static void
as_role(AsRole *saved, Oid role, int restricted)
{
	if (!SearchSysCacheExists1(AUTHOID, ObjectIdGetDatum(role)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("role with OID %u does not exist", role)));
	GetUserIdAndSecContext(&saved->userid, &saved->sec_context);
	SetUserIdAndSecContext(role, saved->sec_context | SECURITY_LOCAL_USERID_CHANGE | restricted);
	/* a fixed search_path, undone below or on error */
	saved->nestlevel = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
}

void
security_as_role_begin(AsRole *saved, Oid role)
{
	as_role(saved, role, SECURITY_RESTRICTED_OPERATION);
}

void
security_as_owner_begin(AsRole *saved, Oid owner)
{
	as_role(saved, owner, 0);
}

void
security_as_role_end(const AsRole *saved)
{
	AtEOXact_GUC(false, saved->nestlevel);
	SetUserIdAndSecContext(saved->userid, saved->sec_context);
}

/*
 * Where exec_as's query sends its rows: the first column of a first row is
 * copied straight into the caller's memory.  SPI's own receiver would copy
 * the row into a tuple table first, and the value out of it after: a scan's
 * tables (157 MB for all 3-way marginals of 50 attributes) twice more,
 * beside the aggregate's state and its result.
 */
typedef struct FirstValue
{
	DestReceiver pub;			/* mydest DestTuplestore: SPI takes DestNone for a
								 * discarded result, DestSPI for its own */
	MemoryContext cxt;			/* where the value is copied */
	Oid			type;			/* what the first column must be */
	uint64		rows;
	bool		isnull;
	Datum		value;
} FirstValue;

static bool
first_value_receive(TupleTableSlot *slot, DestReceiver *self)
{
	FirstValue *r = (FirstValue *) self;

	if (r->rows++ == 0 && slot->tts_tupleDescriptor->natts >= 1)
	{
		Oid			type = TupleDescAttr(slot->tts_tupleDescriptor, 0)->atttypid;
		int16		len;
		bool		byval;

		if (type != r->type)
			elog(ERROR, "dpm_internal.exec_as: the query must return %s", format_type_be(r->type));
		r->value = slot_getattr(slot, 1, &r->isnull);
		if (!r->isnull)
		{
			MemoryContext old = MemoryContextSwitchTo(r->cxt);

			get_typlenbyval(type, &len, &byval);
			r->value = datumCopy(r->value, byval, len);
			MemoryContextSwitchTo(old);
		}
	}
	return true;
}

static void
first_value_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
}

static void
first_value_nothing(DestReceiver *self)
{
}

/*
 * dpm_internal.exec_as(role, sql): the first column of the first row of a query
 * (float8[]; exec_as_text: text[]), run as role.  Only the extension owner may
 * call it, and only with SQL built from the catalog.
 */
PG_FUNCTION_INFO_V1(dpm_exec_as);
Datum
dpm_exec_as(PG_FUNCTION_ARGS)
{
	Oid			role = PG_GETARG_OID(0);
	char	   *sql = text_to_cstring(PG_GETARG_TEXT_PP(1));
	AsRole		saved;
	TimestampTz start;
	FirstValue	r = {
		.pub = {first_value_receive, first_value_startup, first_value_nothing, first_value_nothing, DestTuplestore},
		.cxt = CurrentMemoryContext,
		.type = get_fn_expr_rettype(fcinfo->flinfo),
		.isnull = true,
	};
	SPIExecuteOptions options = {.read_only = true, .dest = &r.pub};

	start = GetCurrentTimestamp();
	security_as_role_begin(&saved, role);
	SPI_connect();
	/* no row limit: the executor runs a query with one serially, and the scan may be large */
	if (SPI_execute_extended(sql, &options) != SPI_OK_SELECT)
		elog(ERROR, "dpm_internal.exec_as: not a query");
	SPI_finish();
	security_as_role_end(&saved);
	security_exec_as_ms += (double) (GetCurrentTimestamp() - start) / 1000.0;
	/* a query of more than one row answers nothing */
	if (r.rows != 1 || r.isnull)
		PG_RETURN_NULL();
	PG_RETURN_DATUM(r.value);
}
