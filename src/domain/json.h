/*
 * json.h -- a JSON document as jsonb holds it, for the domain parser.
 *
 * The SQL function receives jsonb and reads it as text (jsonb's output); the
 * fuzz target passes any JSON text.  Parsing gives both the same tree,
 * because it does what jsonb's input does: keys in jsonb's order (shorter
 * first, then bytewise), the last of duplicate keys kept, numbers as
 * numeric prints them.  Plain C over PostgreSQL's common JSON lexer.
 */
#ifndef DPM_DOMAIN_JSON_H
#define DPM_DOMAIN_JSON_H

#include "lib/stringinfo.h"

typedef enum DomainJsonType
{
	DOMAIN_JSON_NULL,
	DOMAIN_JSON_STRING,
	DOMAIN_JSON_NUMBER,
	DOMAIN_JSON_BOOL,
	DOMAIN_JSON_ARRAY,
	DOMAIN_JSON_OBJECT
} DomainJsonType;

typedef struct DomainJson
{
	DomainJsonType type;
	/* a string's text; a number as numeric_out prints it; "true" or "false" */
	char	   *str;
	int			n;				/* elements of an array, pairs of an object */
	char	  **keys;			/* an object's keys, in jsonb's order */
	struct DomainJson **items;	/* an array's elements, an object's values */
} DomainJson;

/*
 * Parses len bytes of JSON text (a server-encoded string without NUL), with
 * jsonb's input errors: invalid JSON, a \u0000 escape, a number beyond
 * numeric's range.
 */
extern DomainJson *domain_json_parse(const char *text, int len);

/* the value of key in an object, or NULL (also when v is no object) */
extern DomainJson *domain_json_get(const DomainJson *v, const char *key);

/* v as jsonb_out prints it */
extern void domain_json_append(StringInfo out, const DomainJson *v);
extern char *domain_json_out(const DomainJson *v);

/*
 * What ->> gives: NULL for no value or JSON null, a string's text, a
 * number's or boolean's text, the JSON text of an array or object.
 */
extern char *domain_json_text(const DomainJson *v);

#endif
