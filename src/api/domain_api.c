/*
 * domain_api.c -- SQL entry point of the domain parser (src/domain):
 * dpm_internal.attribute_bins reads one attribute of dpm.create_domain's
 * definition against its source.  The catalog supplies the column's type;
 * the checks, bins and expression are domain_attribute_parse's.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "api/array.h"
#include "domain/domain.h"
#include "domain/json.h"
#include "histogram/histogram.h"

/*
 * The type of a column of the relation as format_type(atttypid, atttypmod)
 * prints it (with the caller's search_path: a type outside it is
 * schema-qualified), or NULL when the relation has no such user column.
 */
static char *
column_type(void *arg, const char *column)
{
	Oid			relid = *(Oid *) arg;
	AttrNumber	attnum;
	Oid			typid,
				collid;
	int32		typmod;

	/* attname = column: a name too long for the catalog matches none, not its truncation */
	if (!OidIsValid(relid) || strlen(column) >= NAMEDATALEN)
		return NULL;
	attnum = get_attnum(relid, column);
	if (attnum <= 0)			/* none (or dropped), or a system column */
		return NULL;
	get_atttypetypmodcoll(relid, attnum, &typid, &typmod, &collid);
	return format_type_with_typemod(typid, typmod);
}

/*
 * dpm_internal.attribute_bins(source regclass, attr jsonb, OUT aname text,
 * OUT labels text[], OUT lo float8[], OUT hi float8[], OUT expr text).
 * Not strict: a NULL attribute fails as one without a name.
 */
PG_FUNCTION_INFO_V1(dpm_attribute_bins);
Datum
dpm_attribute_bins(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_ARGISNULL(0) ? InvalidOid : PG_GETARG_OID(0);
	DomainJson *attr = NULL;
	DomainSource src;
	DomainAttr *a;
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5] = {false};
	Datum	   *labels;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (!PG_ARGISNULL(1))
		attr = domain_json_from_jsonb(&PG_GETARG_JSONB_P(1)->root);
	/* messages name the relation as regclass prints it (a NULL one as RAISE printed it) */
	src.name = PG_ARGISNULL(0) ? "<NULL>"
		: DatumGetCString(DirectFunctionCall1(regclassout, ObjectIdGetDatum(relid)));
	src.column_type = column_type;
	src.arg = &relid;
	src.max_cells = dpm_max_cells;
	a = domain_attribute_parse(attr, &src);

	labels = palloc(sizeof(Datum) * a->nbins);
	for (int i = 0; i < a->nbins; i++)
		labels[i] = CStringGetTextDatum(a->labels[i]);
	values[0] = CStringGetTextDatum(a->name);
	values[1] = PointerGetDatum(construct_array(labels, a->nbins, TEXTOID, -1, false, TYPALIGN_INT));
	values[2] = PointerGetDatum(array_from_vec(a->lo, a->nbins));
	values[3] = PointerGetDatum(array_from_vec(a->hi, a->nbins));
	values[4] = CStringGetTextDatum(a->expr);
	tupdesc = BlessTupleDesc(tupdesc);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
