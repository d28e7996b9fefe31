/*
 * quotestub.c -- SQL quoting for the domain fuzz target: quote_identifier
 * and quote_literal_cstr with the backend's rules (written for this
 * harness): an identifier stays bare if it is lower-case letters, digits
 * and underscores, not starting with a digit, and no keyword other than an
 * unreserved one (PostgreSQL's keyword list, from libpgcommon); otherwise
 * it is double-quoted with inner quotes doubled.  A literal doubles single
 * quotes and backslashes, and takes an E prefix if it has a backslash.
 */
#include "postgres.h"

#include "common/keywords.h"
#include "utils/builtins.h"

const char *
quote_identifier(const char *ident)
{
	bool		safe = (ident[0] >= 'a' && ident[0] <= 'z') || ident[0] == '_';
	int			quotes = 0;
	char	   *result,
			   *r;

	for (const char *p = ident; *p; p++)
	{
		if ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')
			continue;
		safe = false;
		quotes += *p == '"';
	}
	if (safe)
	{
		int			kw = ScanKeywordLookup(ident, &ScanKeywords);

		if (kw < 0 || ScanKeywordCategories[kw] == UNRESERVED_KEYWORD)
			return ident;
	}
	r = result = palloc(strlen(ident) + quotes + 3);
	*r++ = '"';
	for (const char *p = ident; *p; p++)
	{
		if (*p == '"')
			*r++ = '"';
		*r++ = *p;
	}
	*r++ = '"';
	*r = '\0';
	return result;
}

char *
quote_literal_cstr(const char *rawstr)
{
	char	   *result = palloc(strlen(rawstr) * 2 + 4),
			   *r = result;

	if (strchr(rawstr, '\\') != NULL)
		*r++ = 'E';
	*r++ = '\'';
	for (const char *p = rawstr; *p; p++)
	{
		if (*p == '\'' || *p == '\\')
			*r++ = *p;
		*r++ = *p;
	}
	*r++ = '\'';
	*r = '\0';
	return result;
}
