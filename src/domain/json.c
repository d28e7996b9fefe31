/*
 * json.c -- walking the tree of json.h: an object's value by key, and the
 * text ->> gives.  Plain C, whichever reader made the tree.
 */
#include "postgres.h"

#include "domain/json.h"

DomainJson *
domain_json_get(const DomainJson *v, const char *key)
{
	int			len = strlen(key),
				lo = 0,
				hi;

	if (v == NULL || v->type != DOMAIN_JSON_OBJECT)
		return NULL;
	/* binary search in jsonb's key order: shorter first, then bytewise */
	hi = v->n - 1;
	while (lo <= hi)
	{
		int			mid = lo + (hi - lo) / 2;
		int			mlen = strlen(v->keys[mid]);
		int			c = mlen != len ? (mlen < len ? -1 : 1) : memcmp(v->keys[mid], key, len);

		if (c == 0)
			return v->items[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

char *
domain_json_text(const DomainJson *v)
{
	if (v == NULL || v->type == DOMAIN_JSON_NULL)
		return NULL;
	if (v->type == DOMAIN_JSON_ARRAY || v->type == DOMAIN_JSON_OBJECT)
		return domain_json_out(v);
	return v->str;
}
