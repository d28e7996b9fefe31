/*
 * json_jsonb.c -- the tree of json.h from a jsonb value, read with jsonb's
 * own iterator (keys already in jsonb's order, duplicates already
 * resolved), and values printed for messages with jsonb's own output.
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "domain/json.h"

static DomainJson *from_container(JsonbContainer *c);

/* a scalar, or a nested container as the iterator hands it over (jbvBinary) */
static DomainJson *
from_value(const JsonbValue *v)
{
	switch (v->type)
	{
		case jbvNull:
			return domain_json_node(DOMAIN_JSON_NULL, "null");
		case jbvString:
			return domain_json_node(DOMAIN_JSON_STRING, pnstrdup(v->val.string.val, v->val.string.len));
		case jbvNumeric:
			return domain_json_node(DOMAIN_JSON_NUMBER,
							DatumGetCString(DirectFunctionCall1(numeric_out,
																NumericGetDatum(v->val.numeric))));
		case jbvBool:
			return domain_json_node(DOMAIN_JSON_BOOL, v->val.boolean ? "true" : "false");
		case jbvBinary:
			return from_container(v->val.binary.data);
		default:
			elog(ERROR, "unexpected jsonb value type %d", (int) v->type);
	}
	return NULL;				/* not reached */
}

static DomainJson *
from_container(JsonbContainer *c)
{
	JsonbIterator *it = JsonbIteratorInit(c);
	JsonbValue	v;
	JsonbIteratorToken tok;
	DomainJson *node;
	int			size;

	check_stack_depth();
	tok = JsonbIteratorNext(&it, &v, true);
	/* a scalar document is an array of one, marked raw */
	if (tok == WJB_BEGIN_ARRAY && v.val.array.rawScalar)
	{
		tok = JsonbIteratorNext(&it, &v, true);
		Assert(tok == WJB_ELEM);
		return from_value(&v);
	}
	if (tok == WJB_BEGIN_ARRAY)
	{
		node = domain_json_node(DOMAIN_JSON_ARRAY, NULL);
		size = v.val.array.nElems;
	}
	else
	{
		Assert(tok == WJB_BEGIN_OBJECT);
		node = domain_json_node(DOMAIN_JSON_OBJECT, NULL);
		size = v.val.object.nPairs;
		node->keys = palloc(sizeof(char *) * Max(size, 1));
	}
	node->items = palloc(sizeof(DomainJson *) * Max(size, 1));
	node->origin = c;
	/* nested containers come whole (skipNested), each read by its own iterator */
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
			node->keys[node->n] = pnstrdup(v.val.string.val, v.val.string.len);
		else if (tok == WJB_VALUE || tok == WJB_ELEM)
			node->items[node->n++] = from_value(&v);
	}
	Assert(node->n == size);
	return node;
}

DomainJson *
domain_json_from_jsonb(JsonbContainer *root)
{
	return from_container(root);
}

char *
domain_json_out(const DomainJson *v)
{
	StringInfoData out;

	initStringInfo(&out);
	if (v->type == DOMAIN_JSON_ARRAY || v->type == DOMAIN_JSON_OBJECT)
		JsonbToCString(&out, unconstify(void *, v->origin), -1);
	else if (v->type == DOMAIN_JSON_STRING)
		escape_json(&out, v->str);
	else
		appendStringInfoString(&out, v->str);
	return out.data;
}
