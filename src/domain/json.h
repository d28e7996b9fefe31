/*
 * json.h -- a JSON document as jsonb holds it, for the domain parser: keys
 * in jsonb's order (shorter first, then bytewise), the last of duplicate
 * keys kept, numbers as numeric prints them.
 *
 * The extension reads the tree out of the jsonb argument with jsonb's own
 * iterator and prints values with jsonb's output (json_jsonb.c); the fuzz
 * target, which has no server, builds it from JSON text (fuzz/json_stub.c).
 * attribute.c and json.c only walk it.
 */
#ifndef DPM_DOMAIN_JSON_H
#define DPM_DOMAIN_JSON_H

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
	/* a string's text; a number as numeric_out prints it; "true", "false" or "null" */
	char	   *str;
	int			n;				/* elements of an array, pairs of an object */
	char	  **keys;			/* an object's keys, in jsonb's order */
	struct DomainJson **items;	/* an array's elements, an object's values */
	const void *origin;			/* the reader's own handle on the value, for printing */
} DomainJson;

/*
 * a new node of a tree, for the readers that build one (json_jsonb.c, the fuzzer's stand-in);
 * here, not in json.c, so that a reader does not depend on the walker that depends on it
 * (domain_json_out)
 */
static inline DomainJson *
domain_json_node(DomainJsonType type, char *str)
{
	DomainJson *v = palloc0(sizeof(DomainJson));

	v->type = type;
	v->str = str;
	return v;
}

/* the value of key in an object, or NULL (also when v is no object) */
extern DomainJson *domain_json_get(const DomainJson *v, const char *key);

/*
 * What ->> gives: NULL for no value or JSON null, a string's text, a
 * number's or boolean's text, the JSON text of an array or object.
 */
extern char *domain_json_text(const DomainJson *v);

/* v as jsonb_out prints it (by the reader that made the tree) */
extern char *domain_json_out(const DomainJson *v);

/* the tree of a jsonb value (json_jsonb.c) */
struct JsonbContainer;
extern DomainJson *domain_json_from_jsonb(struct JsonbContainer *root);

#endif
