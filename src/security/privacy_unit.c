/*
 * privacy_unit.c -- whether a privacy unit column can be capped on every value it can hold.
 *
 * Capping keeps at most max_contributions rows of each unit: a window partitioned by the unit
 * column (dpm_internal.source_rows, period_rows), count(DISTINCT unit) for keys, a hash table
 * of units on a remote server (src/histogram/capped.c).  All of them compare units for
 * equality and order them, and they run after the charge.  A type without a default btree
 * operator class (point, json, xml) fails there on the first row; a composite or an array
 * holding one fails only when two values tie on the fields before it, which depends on the
 * rows.  PostgreSQL's type cache already answers "can values of this type be compared" for
 * arrays, composites, ranges and domains, recursively, as the planner asks it
 * (lookup_type_cache): a type it gives equality, ordering and a comparison function for
 * compares any two of its values without an error.
 *
 * A nondeterministic collation (case- or accent-insensitive ICU) makes different strings one
 * unit: the rows of two people would be capped as one person's, and a unit's removal could
 * change which rows of the other count (twice the sensitivity the charge assumed).  Capping by
 * bytes instead would split what the custodian declared one unit.  Neither is what the charge
 * assumes, so such a column is refused, wherever the collation sits (the column, a field of a
 * composite, a range's subtype); the custodian decides by registering a view.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_collation.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

/*
 * The nondeterministic collation that comparing values of type under collation coll would use
 * somewhere, or InvalidOid: the column's own, a composite's fields', an array's elements', a
 * range's subtype's.  *where gets the type that carries it.
 */
static Oid
nondeterministic_collation(Oid type, Oid coll, Oid *where)
{
	Oid			elem;

	check_stack_depth();
	if (OidIsValid(coll) && type_is_collatable(type) && !get_collation_isdeterministic(coll))
	{
		*where = type;
		return coll;
	}
	type = getBaseType(type);
	if (OidIsValid(elem = get_element_type(type)))
		return nondeterministic_collation(elem, coll, where);
	if (type_is_rowtype(type))
	{
		TupleDesc	desc = lookup_rowtype_tupdesc(type, -1);
		Oid			found = InvalidOid;

		for (int i = 0; i < desc->natts && !OidIsValid(found); i++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, i);

			if (!att->attisdropped)
				found = nondeterministic_collation(att->atttypid, att->attcollation, where);
		}
		ReleaseTupleDesc(desc);
		return found;
	}
	if (type_is_range(type))
		return nondeterministic_collation(get_range_subtype(type), get_range_collation(type), where);
	if (type_is_multirange(type))
		return nondeterministic_collation(get_multirange_range(type), InvalidOid, where);
	return InvalidOid;
}

/* the type and collation of column col of rel, which must exist */
static void
unit_column(Oid rel, Name col, Oid *type, Oid *coll)
{
	AttrNumber	att = get_attnum(rel, NameStr(*col));
	int32		typmod;

	if (att == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of \"%s\" does not exist", NameStr(*col), get_rel_name(rel))));
	get_atttypetypmodcoll(rel, att, type, &typmod, coll);
}

/*
 * dpm_internal.check_privacy_unit(rel, col): refuses a privacy unit column whose values the
 * capping cannot compare on every row: no equality and ordering for its type (or for a field or
 * element of it), or a nondeterministic collation anywhere in it.
 */
PG_FUNCTION_INFO_V1(dpm_check_privacy_unit);
Datum
dpm_check_privacy_unit(PG_FUNCTION_ARGS)
{
	Oid			rel = PG_GETARG_OID(0);
	Name		col = PG_GETARG_NAME(1);
	Oid			type,
				coll,
				where = InvalidOid;
	TypeCacheEntry *tc;

	unit_column(rel, col, &type, &coll);
	tc = lookup_type_cache(type, TYPECACHE_EQ_OPR | TYPECACHE_LT_OPR | TYPECACHE_CMP_PROC);
	if (!OidIsValid(tc->eq_opr) || !OidIsValid(tc->lt_opr) || !OidIsValid(tc->cmp_proc))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("privacy unit column \"%s\" of \"%s\" is of type %s, whose values cannot all be compared",
						NameStr(*col), get_rel_name(rel), format_type_be(type)),
				 errdetail("Capping each unit's rows groups and sorts them by this column: its type, and every field or element it holds, needs equality and ordering (a default btree operator class); json, xml, point and other geometric types have none."),
				 errhint("Use a column of a comparable type (integer, bigint, text, uuid...), or register a view that converts it (for example %s::text or %s::jsonb).",
						 quote_identifier(NameStr(*col)), quote_identifier(NameStr(*col)))));
	if (OidIsValid(coll = nondeterministic_collation(type, coll, &where)))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("privacy unit column \"%s\" of \"%s\" compares %s values with the nondeterministic collation \"%s\"",
						NameStr(*col), get_rel_name(rel), format_type_be(where), get_collation_name(coll)),
				 errdetail("Values it holds equal but that differ (such as 'A' and 'a') would be one privacy unit to the capping, which could then count the rows of two people as one's."),
				 errhint("Register a view whose unit column says which values are one unit: compared bytewise (%s COLLATE \"C\"), or normalized first (for example lower(%s)).",
						 quote_identifier(NameStr(*col)), quote_identifier(NameStr(*col)))));
	PG_RETURN_VOID();
}

/*
 * dpm_internal.unit_hashable(rel, col): whether the capping can run as capped_groups, which
 * keeps units in a hash table: the column's type has hashing too (bit, varbit, money, tsvector
 * and tsquery have ordering only; they are capped by the window instead).  false for a relation
 * without that column: the planner may ask it of any foreign table while filtering pg_class.
 */
PG_FUNCTION_INFO_V1(dpm_unit_hashable);
Datum
dpm_unit_hashable(PG_FUNCTION_ARGS)
{
	AttrNumber	att = get_attnum(PG_GETARG_OID(0), NameStr(*PG_GETARG_NAME(1)));
	Oid			type,
				coll;
	int32		typmod;
	TypeCacheEntry *tc;

	if (att == InvalidAttrNumber)
		PG_RETURN_BOOL(false);
	get_atttypetypmodcoll(PG_GETARG_OID(0), att, &type, &typmod, &coll);
	tc = lookup_type_cache(type, TYPECACHE_EQ_OPR | TYPECACHE_HASH_PROC);
	PG_RETURN_BOOL(OidIsValid(tc->eq_opr) && OidIsValid(tc->hash_proc));
}
