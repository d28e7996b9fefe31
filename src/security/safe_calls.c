/*
 * safe_calls.c -- the functions a release may call on every row of its
 * source: dpmatrix's own list, each entry with the reason it returns a value
 * for every argument (src/security/safe_expr.c walks the expressions and asks
 * here about each call).
 *
 * Why a list of our own.  PostgreSQL's LEAKPROOF marking promises that a
 * function leaks nothing through its errors, not that it raises none:
 * starts_with is LEAKPROOF and fails on every row under a nondeterministic
 * collation, md5 fails on a server in FIPS mode.  Each entry below was read
 * in PostgreSQL 15's source, checked against what 16 to 18 changed (such as
 * 17's infinite intervals), and is run on the extreme values of every type it
 * takes, on 15 and 18, by test/sql/vetted_calls.sql,
 * which enumerates this table through dpm_internal.vetted_calls(): an entry
 * cannot be added untested.  The list is the same on every version, so a
 * condition is accepted or refused alike on each (test/sql/pg_versions.sql).
 *
 * Text comparisons follow a collation.  Under C, POSIX and libc collations
 * they compare bytes or call strcoll, which cannot fail; under ICU in a UTF-8
 * database they call ucol_strcollUTF8, which cannot fail either.  ICU in
 * another encoding converts each value to UTF-16 first, in a buffer twice its
 * size: a value over 512 MB fails to allocate, so those are refused.  With no
 * collation at all (two columns of different collations) the call fails on
 * its first row.  Nondeterministic collations compare (so = and < are
 * allowed) but starts_with raises on them, and LIKE did up to PostgreSQL 17
 * (refused on every version, so as to accept the same), and an IN list of 9 or
 * more values is hashed through an ICU sort key, whose size follows the
 * value's (safe_expr.c refuses those).
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "fmgr.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "nodes/primnodes.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/regproc.h"
#include "utils/ruleutils.h"
#include "utils/typcache.h"

#include "pg_compat.h"
#include "security/safe_calls.h"

typedef enum VetRule
{
	VET_TOTAL,					/* a value for every argument */
	VET_COLLATED,				/* total under a collation safe_calls_collation accepts */
	VET_DETERMINISTIC,			/* the same, and the collation must be deterministic */
	VET_DIVISOR,				/* integer division: a constant divisor other than 0 and -1 */
	VET_LIKE,					/* LIKE: a constant pattern (like_pattern), deterministic */
	VET_EXTRACT_DATE,			/* extract of a date by a field every date has */
	VET_EXTRACT_TIMESTAMP,		/* extract of a timestamp by a field every timestamp has */
	VET_WIDTH_BUCKET,			/* width_bucket over constant thresholds */
	VET_REFUSED					/* refused, for the reason given: the common mistakes */
} VetRule;

static const char *const rule_names[] = {"total", "collated", "deterministic", "divisor", "like",
	"extract_date", "extract_timestamp", "width_bucket", "refused"};

typedef struct VetCall
{
	Oid			fn;
	VetRule		rule;
	const char *why;			/* why it cannot fail (or, refused, why it can) */
} VetCall;

/* the reasons, one per family */
#define WHY_BOOL "booleans and \"char\" compare as small integers"
#define WHY_INT "integers of any width compare exactly, widened to int8"
#define WHY_FLOAT "floats are totally ordered: NaN equals itself and sorts above every number, infinities are ordinary values"
#define WHY_NUMERIC "numeric comparison orders NaN and the infinities, and converts nothing"
#define WHY_FIXED "fixed-length values (oid, money, dates, times, timestamps, uuid, network and MAC addresses) compare as integers or bytes; infinite dates and timestamps are the ends of the order, and comparing two timestamptz involves no time zone"
#define WHY_INTERVAL "intervals compare by a 128-bit span, which no field can overflow"
#define WHY_BYTES "byte strings and bit strings compare by memcmp, shorter first on a tie"
#define WHY_PATTERN "the pattern comparisons compare bytes and ignore the collation"
#define WHY_TEXT "text comparisons compare bytes or call strcoll or ucol_strcollUTF8, none of which fails, given a collation safe_calls_collation accepts"
#define WHY_STARTS "starts_with compares bytes under a deterministic collation (it raises under a nondeterministic one)"
#define WHY_WIDEN "a widening conversion: every value of the smaller type has one in the larger (rounded for floats, which hold 3.4e38 and more)"
#define WHY_TO_NUMERIC "numeric holds every integer and every float, NaN and the infinities included"
#define WHY_NAME "conversions between text and name copy, or truncate to 63 bytes on a character boundary; char(n) to text trims blanks"
#define WHY_DIVISOR "integer division and modulo fail only for a divisor of 0, or -1 (overflow of the smallest value)"
#define WHY_LIKE "LIKE fails only on a pattern ending with its escape character, or under a nondeterministic collation"
#define WHY_EXTRACT "extract by a field every value of the type has, infinities and the ends of the range included (test/sql/date_bins.sql)"
#define WHY_SESSION "the session's role, database or first schema on the search path: one value, the same on every row; current_user, current_role, user, session_user, current_catalog and current_schema are calls of these from PostgreSQL 16 on (SQLValueFunction before)"
#define WHY_WIDTH "width_bucket over a constant array without NULLs only compares, by the type's comparison, which must be on this list"

static const VetCall vet_calls[] = {
	/* booleans and "char" */
	{F_BOOLEQ, VET_TOTAL, WHY_BOOL}, {F_BOOLNE, VET_TOTAL, WHY_BOOL}, {F_BOOLLT, VET_TOTAL, WHY_BOOL},
	{F_BOOLLE, VET_TOTAL, WHY_BOOL}, {F_BOOLGT, VET_TOTAL, WHY_BOOL}, {F_BOOLGE, VET_TOTAL, WHY_BOOL},
	{F_BTBOOLCMP, VET_TOTAL, WHY_BOOL},
	{F_CHAREQ, VET_TOTAL, WHY_BOOL}, {F_CHARNE, VET_TOTAL, WHY_BOOL}, {F_CHARLT, VET_TOTAL, WHY_BOOL},
	{F_CHARLE, VET_TOTAL, WHY_BOOL}, {F_CHARGT, VET_TOTAL, WHY_BOOL}, {F_CHARGE, VET_TOTAL, WHY_BOOL},
	{F_BTCHARCMP, VET_TOTAL, WHY_BOOL},
	/* integers, and across widths */
#define INT_CMP(p) {F_##p##EQ, VET_TOTAL, WHY_INT}, {F_##p##NE, VET_TOTAL, WHY_INT}, {F_##p##LT, VET_TOTAL, WHY_INT}, \
	{F_##p##LE, VET_TOTAL, WHY_INT}, {F_##p##GT, VET_TOTAL, WHY_INT}, {F_##p##GE, VET_TOTAL, WHY_INT}, \
	{F_BT##p##CMP, VET_TOTAL, WHY_INT}
	INT_CMP(INT2), INT_CMP(INT4), INT_CMP(INT8), INT_CMP(INT24), INT_CMP(INT42), INT_CMP(INT28),
	INT_CMP(INT82), INT_CMP(INT48), INT_CMP(INT84),
	/* floats, and across widths */
#define FLOAT_CMP(p) {F_##p##EQ, VET_TOTAL, WHY_FLOAT}, {F_##p##NE, VET_TOTAL, WHY_FLOAT}, {F_##p##LT, VET_TOTAL, WHY_FLOAT}, \
	{F_##p##LE, VET_TOTAL, WHY_FLOAT}, {F_##p##GT, VET_TOTAL, WHY_FLOAT}, {F_##p##GE, VET_TOTAL, WHY_FLOAT}, \
	{F_BT##p##CMP, VET_TOTAL, WHY_FLOAT}
	FLOAT_CMP(FLOAT4), FLOAT_CMP(FLOAT8), FLOAT_CMP(FLOAT48), FLOAT_CMP(FLOAT84),
	/* numeric */
	{F_NUMERIC_EQ, VET_TOTAL, WHY_NUMERIC}, {F_NUMERIC_NE, VET_TOTAL, WHY_NUMERIC},
	{F_NUMERIC_LT, VET_TOTAL, WHY_NUMERIC}, {F_NUMERIC_LE, VET_TOTAL, WHY_NUMERIC},
	{F_NUMERIC_GT, VET_TOTAL, WHY_NUMERIC}, {F_NUMERIC_GE, VET_TOTAL, WHY_NUMERIC},
	{F_NUMERIC_CMP, VET_TOTAL, WHY_NUMERIC},
	/* fixed-length types: name_eq, ..., name_cmp */
#define FIXED_CMP(p, why) {F_##p##_EQ, VET_TOTAL, why}, {F_##p##_NE, VET_TOTAL, why}, {F_##p##_LT, VET_TOTAL, why}, \
	{F_##p##_LE, VET_TOTAL, why}, {F_##p##_GT, VET_TOTAL, why}, {F_##p##_GE, VET_TOTAL, why}, \
	{F_##p##_CMP, VET_TOTAL, why}
	FIXED_CMP(CASH, WHY_FIXED), FIXED_CMP(DATE, WHY_FIXED), FIXED_CMP(TIME, WHY_FIXED),
	FIXED_CMP(TIMETZ, WHY_FIXED), FIXED_CMP(TIMESTAMP, WHY_FIXED), FIXED_CMP(TIMESTAMPTZ, WHY_FIXED),
	FIXED_CMP(UUID, WHY_FIXED), FIXED_CMP(NETWORK, WHY_FIXED), FIXED_CMP(MACADDR, WHY_FIXED),
	FIXED_CMP(MACADDR8, WHY_FIXED), FIXED_CMP(INTERVAL, WHY_INTERVAL),
	{F_OIDEQ, VET_TOTAL, WHY_FIXED}, {F_OIDNE, VET_TOTAL, WHY_FIXED}, {F_OIDLT, VET_TOTAL, WHY_FIXED},
	{F_OIDLE, VET_TOTAL, WHY_FIXED}, {F_OIDGT, VET_TOTAL, WHY_FIXED}, {F_OIDGE, VET_TOTAL, WHY_FIXED},
	{F_BTOIDCMP, VET_TOTAL, WHY_FIXED},
	/* bytea, bit, bit varying */
#define BYTES_CMP(p, cmp) {F_##p##EQ, VET_TOTAL, WHY_BYTES}, {F_##p##NE, VET_TOTAL, WHY_BYTES}, \
	{F_##p##LT, VET_TOTAL, WHY_BYTES}, {F_##p##LE, VET_TOTAL, WHY_BYTES}, {F_##p##GT, VET_TOTAL, WHY_BYTES}, \
	{F_##p##GE, VET_TOTAL, WHY_BYTES}, {cmp, VET_TOTAL, WHY_BYTES}
	BYTES_CMP(BYTEA, F_BYTEACMP), BYTES_CMP(BIT, F_BITCMP), BYTES_CMP(VARBIT, F_VARBITCMP),
	/* text and char(n) by bytes, whatever the collation */
	{F_TEXT_PATTERN_LT, VET_TOTAL, WHY_PATTERN}, {F_TEXT_PATTERN_LE, VET_TOTAL, WHY_PATTERN},
	{F_TEXT_PATTERN_GT, VET_TOTAL, WHY_PATTERN}, {F_TEXT_PATTERN_GE, VET_TOTAL, WHY_PATTERN},
	{F_BTTEXT_PATTERN_CMP, VET_TOTAL, WHY_PATTERN},
	{F_BPCHAR_PATTERN_LT, VET_TOTAL, WHY_PATTERN}, {F_BPCHAR_PATTERN_LE, VET_TOTAL, WHY_PATTERN},
	{F_BPCHAR_PATTERN_GT, VET_TOTAL, WHY_PATTERN}, {F_BPCHAR_PATTERN_GE, VET_TOTAL, WHY_PATTERN},
	{F_BTBPCHAR_PATTERN_CMP, VET_TOTAL, WHY_PATTERN},
	/* text, char(n) and name under their collation */
#define TEXT_CMP(eq, ne, lt, le, gt, ge, cmp) {eq, VET_COLLATED, WHY_TEXT}, {ne, VET_COLLATED, WHY_TEXT}, \
	{lt, VET_COLLATED, WHY_TEXT}, {le, VET_COLLATED, WHY_TEXT}, {gt, VET_COLLATED, WHY_TEXT}, \
	{ge, VET_COLLATED, WHY_TEXT}, {cmp, VET_COLLATED, WHY_TEXT}
	TEXT_CMP(F_TEXTEQ, F_TEXTNE, F_TEXT_LT, F_TEXT_LE, F_TEXT_GT, F_TEXT_GE, F_BTTEXTCMP),
	TEXT_CMP(F_BPCHAREQ, F_BPCHARNE, F_BPCHARLT, F_BPCHARLE, F_BPCHARGT, F_BPCHARGE, F_BPCHARCMP),
	TEXT_CMP(F_NAMEEQ, F_NAMENE, F_NAMELT, F_NAMELE, F_NAMEGT, F_NAMEGE, F_BTNAMECMP),
	TEXT_CMP(F_NAMEEQTEXT, F_NAMENETEXT, F_NAMELTTEXT, F_NAMELETEXT, F_NAMEGTTEXT, F_NAMEGETEXT, F_BTNAMETEXTCMP),
	TEXT_CMP(F_TEXTEQNAME, F_TEXTNENAME, F_TEXTLTNAME, F_TEXTLENAME, F_TEXTGTNAME, F_TEXTGENAME, F_BTTEXTNAMECMP),
	{F_TEXT_LARGER, VET_COLLATED, WHY_TEXT}, {F_TEXT_SMALLER, VET_COLLATED, WHY_TEXT},
	{F_BPCHAR_LARGER, VET_COLLATED, WHY_TEXT}, {F_BPCHAR_SMALLER, VET_COLLATED, WHY_TEXT},
	{F_STARTS_WITH, VET_DETERMINISTIC, WHY_STARTS},
	/* conversions that cannot fail */
	{F_INT4_INT2, VET_TOTAL, WHY_WIDEN}, {F_INT8_INT2, VET_TOTAL, WHY_WIDEN}, {F_INT8_INT4, VET_TOTAL, WHY_WIDEN},
	{F_FLOAT4_INT2, VET_TOTAL, WHY_WIDEN}, {F_FLOAT8_INT2, VET_TOTAL, WHY_WIDEN},
	{F_FLOAT4_INT4, VET_TOTAL, WHY_WIDEN}, {F_FLOAT8_INT4, VET_TOTAL, WHY_WIDEN},
	{F_FLOAT4_INT8, VET_TOTAL, WHY_WIDEN}, {F_FLOAT8_INT8, VET_TOTAL, WHY_WIDEN},
	{F_FLOAT8_FLOAT4, VET_TOTAL, WHY_WIDEN}, {F_INT8_OID, VET_TOTAL, WHY_WIDEN},
	{F_INT4_BOOL, VET_TOTAL, WHY_WIDEN}, {F_BOOL_INT4, VET_TOTAL, "an integer is true unless it is 0"},
	{F_INTERVAL_TIME, VET_TOTAL, WHY_WIDEN}, {F_MACADDR8, VET_TOTAL, WHY_WIDEN},
	{F_NUMERIC_INT2, VET_TOTAL, WHY_TO_NUMERIC}, {F_NUMERIC_INT4, VET_TOTAL, WHY_TO_NUMERIC},
	{F_NUMERIC_INT8, VET_TOTAL, WHY_TO_NUMERIC}, {F_NUMERIC_FLOAT4, VET_TOTAL, WHY_TO_NUMERIC},
	{F_NUMERIC_FLOAT8, VET_TOTAL, WHY_TO_NUMERIC},
	{F_TEXT_NAME, VET_TOTAL, WHY_NAME}, {F_NAME_TEXT, VET_TOTAL, WHY_NAME}, {F_NAME_BPCHAR, VET_TOTAL, WHY_NAME},
	{F_NAME_VARCHAR, VET_TOTAL, WHY_NAME}, {F_VARCHAR_NAME, VET_TOTAL, WHY_NAME},
	{F_TEXT_BPCHAR, VET_TOTAL, WHY_NAME},
	/* total for some arguments only, checked in the call */
	{F_INT2DIV, VET_DIVISOR, WHY_DIVISOR}, {F_INT4DIV, VET_DIVISOR, WHY_DIVISOR}, {F_INT8DIV, VET_DIVISOR, WHY_DIVISOR},
	{F_INT24DIV, VET_DIVISOR, WHY_DIVISOR}, {F_INT42DIV, VET_DIVISOR, WHY_DIVISOR},
	{F_INT28DIV, VET_DIVISOR, WHY_DIVISOR}, {F_INT82DIV, VET_DIVISOR, WHY_DIVISOR},
	{F_INT48DIV, VET_DIVISOR, WHY_DIVISOR}, {F_INT84DIV, VET_DIVISOR, WHY_DIVISOR},
	{F_INT2MOD, VET_DIVISOR, WHY_DIVISOR}, {F_INT4MOD, VET_DIVISOR, WHY_DIVISOR}, {F_INT8MOD, VET_DIVISOR, WHY_DIVISOR},
	{F_TEXTLIKE, VET_LIKE, WHY_LIKE}, {F_TEXTNLIKE, VET_LIKE, WHY_LIKE}, {F_BPCHARLIKE, VET_LIKE, WHY_LIKE},
	{F_BPCHARNLIKE, VET_LIKE, WHY_LIKE}, {F_NAMELIKE, VET_LIKE, WHY_LIKE}, {F_NAMENLIKE, VET_LIKE, WHY_LIKE},
	{F_EXTRACT_TEXT_DATE, VET_EXTRACT_DATE, WHY_EXTRACT},
	{F_EXTRACT_TEXT_TIMESTAMP, VET_EXTRACT_TIMESTAMP, WHY_EXTRACT},
	{F_DATE_PART_TEXT_TIMESTAMP, VET_EXTRACT_TIMESTAMP, WHY_EXTRACT},
	{F_WIDTH_BUCKET_ANYCOMPATIBLE_ANYCOMPATIBLEARRAY, VET_WIDTH_BUCKET, WHY_WIDTH},
	/* the session's names */
	{F_CURRENT_USER, VET_TOTAL, WHY_SESSION}, {F_SESSION_USER, VET_TOTAL, WHY_SESSION},
	{F_CURRENT_DATABASE, VET_TOTAL, WHY_SESSION}, {F_CURRENT_SCHEMA, VET_TOTAL, WHY_SESSION},
	/* refused with a reason of their own: what is written most often */
	{F_FLOAT8_NUMERIC, VET_REFUSED, "numeric to double precision fails on a value beyond float8's range, such as 1e-400 or 1e400: compare as numeric"},
	{F_FLOAT4_NUMERIC, VET_REFUSED, "numeric to real fails on a value beyond float4's range: compare as numeric"},
	{F_FLOAT4_FLOAT8, VET_REFUSED, "double precision to real fails on a value beyond float4's range (1e39, 1e-46): compare as double precision"},
#define NARROW "a narrowing conversion fails on values the smaller type cannot hold (NaN and infinities for integers): compare in the column's own type, with a constant of that type"
	{F_INT2_INT4, VET_REFUSED, NARROW}, {F_INT2_INT8, VET_REFUSED, NARROW}, {F_INT4_INT8, VET_REFUSED, NARROW},
	{F_INT2_NUMERIC, VET_REFUSED, NARROW}, {F_INT4_NUMERIC, VET_REFUSED, NARROW}, {F_INT8_NUMERIC, VET_REFUSED, NARROW},
	{F_INT2_FLOAT4, VET_REFUSED, NARROW}, {F_INT4_FLOAT4, VET_REFUSED, NARROW}, {F_INT8_FLOAT4, VET_REFUSED, NARROW},
	{F_INT2_FLOAT8, VET_REFUSED, NARROW}, {F_INT4_FLOAT8, VET_REFUSED, NARROW}, {F_INT8_FLOAT8, VET_REFUSED, NARROW},
	{F_TIMESTAMP_DATE, VET_REFUSED, "date to timestamp fails on dates after 294276 AD: compare with a date"},
	{F_TIMESTAMPTZ_DATE, VET_REFUSED, "date to timestamptz fails on dates after 294276 AD and follows the session's time zone: compare with a date"},
	{F_TIMESTAMPTZ_TIMESTAMP, VET_REFUSED, "timestamp to timestamptz follows the session's time zone, and fails near the ends of the range: compare with a timestamp"},
	{F_TIMESTAMP_TIMESTAMPTZ, VET_REFUSED, "timestamptz to timestamp follows the session's time zone, and fails near the ends of the range: compare with a timestamptz"},
	{F_MD5_TEXT, VET_REFUSED, "md5 fails on a server in FIPS mode"},
	{F_MD5_BYTEA, VET_REFUSED, "md5 fails on a server in FIPS mode"},
};

static const VetCall *
vet_call(Oid fn)
{
	for (int i = 0; i < lengthof(vet_calls); i++)
		if (vet_calls[i].fn == fn)
			return &vet_calls[i];
	return NULL;
}

/*
 * Can a comparison under this collation fail?  Returns why, or NULL.
 * Loading the collation's locale here raises its error now, on no row
 * ("could not create locale"), rather than at a release's first row.
 */
const char *
safe_calls_collation(Oid collid, bool deterministic)
{
	pg_locale_t locale;

	if (!OidIsValid(collid))
		return "this comparison of text has no collation (its two sides have different ones), and fails on its first row: add COLLATE to one side";
	if (pg_compat_collate_is_c(collid))
		return NULL;
	locale = pg_newlocale_from_collation(collid);
	if (locale == NULL)
		return NULL;			/* the database's libc default */
	if (deterministic && !locale->deterministic)
		return psprintf("collation %s is nondeterministic, under which this call is refused (starts_with, and LIKE before PostgreSQL 18, raise an error on the first row they read): apply a deterministic collation (col COLLATE \"C\" LIKE 'a%%') or compare with =",
						generate_collation_name(collid));
	if (locale->provider == COLLPROVIDER_ICU && GetDatabaseEncoding() != PG_UTF8)
		return psprintf("collation %s is an ICU collation in a database that is not UTF-8, where each comparison converts its values to UTF-16, which fails beyond 512 MB: use a libc collation or \"C\"",
						generate_collation_name(collid));
	return NULL;
}

/* a divisor that cannot make integer division fail: a constant other than 0 and -1 */
static bool
safe_divisor(Node *arg)
{
	Const	   *c = (Const *) arg;
	int64		v;

	if (!IsA(arg, Const) || c->constisnull)
		return false;
	switch (c->consttype)
	{
		case INT2OID:
			v = DatumGetInt16(c->constvalue);
			break;
		case INT4OID:
			v = DatumGetInt32(c->constvalue);
			break;
		case INT8OID:
			v = DatumGetInt64(c->constvalue);
			break;
		default:
			return false;
	}
	return v != 0 && v != -1;
}

/*
 * A LIKE pattern that cannot fail: a constant (PostgreSQL raises "LIKE
 * pattern must not end with escape character" only when the match reaches
 * that end, which depends on the value), and with at most LIKE_MAX_PERCENT
 * wildcards: each % the match passes is a recursive call that checks the
 * stack depth, so a pattern of thousands would fail on some values only.
 */
#define LIKE_MAX_PERCENT 100

static const char *
unsafe_like(List *args, Oid collid)
{
	Const	   *c = list_length(args) == 2 ? (Const *) lsecond(args) : NULL;
	text	   *t;
	const char *p;
	int			len;
	int			percents = 0;
	bool		after_percent = false;

	if (c == NULL || !IsA(c, Const) || c->constisnull)
		return "LIKE is allowed only with a constant pattern";
	t = DatumGetTextPP(c->constvalue);
	p = VARDATA_ANY(t);
	len = VARSIZE_ANY_EXHDR(t);
	for (int i = 0; i < len; i++)
	{
		bool		escaped = false;

		if (p[i] == '\\')
		{
			if (++i == len)
				return "LIKE is allowed only with a constant pattern that does not end with a backslash";
			escaped = true;
		}
		if (p[i] == '%' && !escaped && !after_percent)
			percents++;
		after_percent = p[i] == '%' && !escaped;
	}
	if (percents > LIKE_MAX_PERCENT)
		return psprintf("a LIKE pattern may hold at most %d %% wildcards", LIKE_MAX_PERCENT);
	return OidIsValid(collid) ? safe_calls_collation(collid, true) : NULL;
}

/*
 * A constant field of extract or date_part that yields a number for every
 * value of the type, infinities and the ends of its range included (each was
 * tried on those; test/sql/date_bins.sql).  A date has no hour: extract would
 * fail on every row, so whether a release failed would say whether any row
 * was read.  Synonyms PostgreSQL also takes ("years", "mon") are not listed:
 * the hint gives these names.
 */
static const char *const date_fields[] = {"year", "month", "day", "quarter", "week", "doy", "dow",
	"isodow", "isoyear", "decade", "century", "millennium", "epoch", "julian", NULL};
static const char *const time_fields[] = {"hour", "minute", "second", "milliseconds", "microseconds", NULL};

static const char *
unsafe_extract(List *args, bool with_time)
{
	Const	   *c = list_length(args) == 2 ? (Const *) linitial(args) : NULL;
	char	   *field;

	if (c != NULL && IsA(c, Const) && !c->constisnull && c->consttype == TEXTOID)
	{
		field = TextDatumGetCString(c->constvalue);
		for (int i = 0; date_fields[i]; i++)
			if (strcmp(field, date_fields[i]) == 0)
				return NULL;
		for (int i = 0; with_time && time_fields[i]; i++)
			if (strcmp(field, time_fields[i]) == 0)
				return NULL;
	}
	return psprintf("extract takes a constant field of %s: %s%s", with_time ? "a timestamp" : "a date",
					"year, month, day, quarter, week, doy, dow, isodow, isoyear, decade, century, millennium, epoch, julian",
					with_time ? ", hour, minute, second, milliseconds, microseconds" : "");
}

/*
 * Why comparing two values of the type with its default btree comparison
 * (GREATEST, LEAST, width_bucket) could fail, or NULL.
 */
const char *
safe_calls_comparison(Oid type, Oid collid)
{
	TypeCacheEntry *tc = lookup_type_cache(type, TYPECACHE_CMP_PROC);
	const VetCall *v = OidIsValid(tc->cmp_proc) ? vet_call(tc->cmp_proc) : NULL;

	if (v != NULL && v->rule == VET_TOTAL)
		return NULL;
	if (v != NULL && v->rule == VET_COLLATED)
		return safe_calls_collation(collid, false);
	return psprintf("the comparison of type %s is not among those that cannot fail", format_type_be(type));
}

/*
 * width_bucket over a constant one-dimensional array without NULLs
 * (dpmatrix's binary search for width bins) only compares.
 */
static const char *
unsafe_width_bucket(List *args, Oid collid)
{
	Const	   *c = list_length(args) == 2 ? (Const *) lsecond(args) : NULL;
	ArrayType  *a;

	if (c == NULL || !IsA(c, Const) || c->constisnull)
		return "width_bucket needs a constant array of thresholds";
	a = DatumGetArrayTypeP(c->constvalue);
	if (ARR_NDIM(a) != 1 || array_contains_nulls(a))
		return "width_bucket needs a one-dimensional array of thresholds without NULLs";
	return safe_calls_comparison(ARR_ELEMTYPE(a), collid);
}

/*
 * Can a call of fn on args, under collation collid, fail on some row?
 * Returns a reason, or NULL.  The arguments themselves are the caller's to
 * check.
 */
const char *
safe_calls_unsafe(Oid fn, List *args, Oid collid)
{
	const VetCall *v = vet_call(fn);

	if (v == NULL)
	{
		if (fn == F_EXTRACT_TEXT_TIMESTAMPTZ || fn == F_DATE_PART_TEXT_TIMESTAMPTZ)
			return "extract from a timestamptz depends on the session's time zone: bin the column by calendar width instead (\"width\": \"1 year\"), or extract from a timestamp column";
		return psprintf("function %s is not among the calls dpmatrix has checked cannot fail on any value (arithmetic can overflow, a conversion can fail)",
						format_procedure(fn));
	}
	switch (v->rule)
	{
		case VET_TOTAL:
			return NULL;
		case VET_COLLATED:
			return safe_calls_collation(collid, false);
		case VET_DETERMINISTIC:
			return safe_calls_collation(collid, true);
		case VET_DIVISOR:
			return list_length(args) == 2 && safe_divisor(lsecond(args)) ? NULL :
				"integer division or modulo fails for a divisor of 0 or -1: divide only by a constant other than those";
		case VET_LIKE:
			return unsafe_like(args, collid);
		case VET_EXTRACT_DATE:
			return unsafe_extract(args, false);
		case VET_EXTRACT_TIMESTAMP:
			return unsafe_extract(args, true);
		case VET_WIDTH_BUCKET:
			return unsafe_width_bucket(args, collid);
		case VET_REFUSED:
			return v->why;
	}
	return "unknown rule";
}

/*
 * dpm_internal.vetted_calls(): the list, for its test (every entry is run on
 * extreme values) and for a custodian who wants to know.
 */
PG_FUNCTION_INFO_V1(dpm_vetted_calls);
Datum
dpm_vetted_calls(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < lengthof(vet_calls); i++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		values[0] = ObjectIdGetDatum(vet_calls[i].fn);
		values[1] = CStringGetTextDatum(rule_names[vet_calls[i].rule]);
		values[2] = CStringGetTextDatum(vet_calls[i].why);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
