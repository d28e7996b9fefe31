/*
 * json_stub.c -- a test double for reading the jsonb argument, linked into
 * fuzz_domain in place of src/domain/json_jsonb.c, which walks jsonb with
 * the backend's iterator.  Not part of the extension.
 *
 * It builds json.h's tree from JSON text as jsonb's input would hold it:
 * parsed by PostgreSQL's own JSON parser (common/jsonapi, which runs
 * outside a server), keys in jsonb's order with the last of duplicate keys
 * kept, numbers read and printed as numeric would (by the stand-in for
 * numeric); and prints values as jsonb_out does.  Written for this harness.
 */
#include "postgres.h"

#include "common/jsonapi.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"

#include "domain/decimal.h"
#include "domain/json.h"

#include "domain_stub.h"

/* the containers open while the lexer walks the text */
typedef struct Frame
{
	DomainJson *node;
	int			cap;
	char	   *key;			/* an object's key whose value comes next */
} Frame;

typedef struct Builder
{
	Frame	   *stack;
	int			depth;
	int			cap;
	DomainJson *root;
} Builder;

/* a finished value goes into the innermost open container, or is the document */
static void
attach(Builder *b, DomainJson *v)
{
	Frame	   *f;
	DomainJson *c;

	if (b->depth == 0)
	{
		b->root = v;
		return;
	}
	f = &b->stack[b->depth - 1];
	c = f->node;
	if (c->n == f->cap)
	{
		f->cap = f->cap == 0 ? 4 : f->cap * 2;
		c->items = c->items ? repalloc(c->items, sizeof(DomainJson *) * f->cap)
			: palloc(sizeof(DomainJson *) * f->cap);
		if (c->type == DOMAIN_JSON_OBJECT)
			c->keys = c->keys ? repalloc(c->keys, sizeof(char *) * f->cap)
				: palloc(sizeof(char *) * f->cap);
	}
	if (c->type == DOMAIN_JSON_OBJECT)
	{
		Assert(f->key != NULL);
		c->keys[c->n] = f->key;
		f->key = NULL;
	}
	c->items[c->n++] = v;
}

static void
push(Builder *b, DomainJsonType type)
{
	if (b->depth == b->cap)
	{
		b->cap = b->cap == 0 ? 8 : b->cap * 2;
		b->stack = b->stack ? repalloc(b->stack, sizeof(Frame) * b->cap)
			: palloc(sizeof(Frame) * b->cap);
	}
	b->stack[b->depth].node = domain_json_node(type, NULL);
	b->stack[b->depth].cap = 0;
	b->stack[b->depth].key = NULL;
	b->depth++;
}

typedef struct KeyRef
{
	const char *key;
	int			len;
	int			pos;			/* in the text */
} KeyRef;

/* jsonb's key order: shorter first, then bytewise; ties by position in the text */
static int
keyref_cmp(const void *a, const void *b)
{
	const KeyRef *x = a,
			   *y = b;
	int			c;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	c = memcmp(x->key, y->key, x->len);
	if (c != 0)
		return c;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* keys in jsonb's order, keeping the last value of a key given twice, as jsonb does */
static void
order_keys(DomainJson *obj)
{
	KeyRef	   *refs;
	char	  **keys;
	DomainJson **items;
	int			n = 0;

	if (obj->n < 2)
		return;
	refs = palloc(sizeof(KeyRef) * obj->n);
	for (int i = 0; i < obj->n; i++)
	{
		refs[i].key = obj->keys[i];
		refs[i].len = strlen(obj->keys[i]);
		refs[i].pos = i;
	}
	qsort(refs, obj->n, sizeof(KeyRef), keyref_cmp);
	keys = palloc(sizeof(char *) * obj->n);
	items = palloc(sizeof(DomainJson *) * obj->n);
	for (int i = 0; i < obj->n; i++)
	{
		/* of equal keys, sorted by position, the last wins */
		if (i + 1 < obj->n && refs[i + 1].len == refs[i].len &&
			memcmp(refs[i + 1].key, refs[i].key, refs[i].len) == 0)
			continue;
		keys[n] = obj->keys[refs[i].pos];
		items[n] = obj->items[refs[i].pos];
		n++;
	}
	pfree(refs);
	pfree(obj->keys);
	pfree(obj->items);
	obj->keys = keys;
	obj->items = items;
	obj->n = n;
}

static void
on_object_start(void *state)
{
	push(state, DOMAIN_JSON_OBJECT);
}

static void
on_array_start(void *state)
{
	push(state, DOMAIN_JSON_ARRAY);
}

static void
on_end(void *state)
{
	Builder    *b = state;
	DomainJson *v = b->stack[--b->depth].node;

	if (v->type == DOMAIN_JSON_OBJECT)
		order_keys(v);
	attach(b, v);
}

static void
on_field_start(void *state, char *fname, bool isnull)
{
	Builder    *b = state;

	b->stack[b->depth - 1].key = fname;
}

static void
on_scalar(void *state, char *token, JsonTokenType type)
{
	DomainJson *v;

	switch (type)
	{
		case JSON_TOKEN_STRING:
			v = domain_json_node(DOMAIN_JSON_STRING, token);
			break;
		case JSON_TOKEN_NUMBER:
			/* as numeric reads and prints it: 1e2 is 100, -0.0 is 0.0 */
			v = domain_json_node(DOMAIN_JSON_NUMBER, domain_dec_out(domain_dec_parse(token)));
			break;
		case JSON_TOKEN_TRUE:
		case JSON_TOKEN_FALSE:
			v = domain_json_node(DOMAIN_JSON_BOOL, token);
			break;
		default:
			v = domain_json_node(DOMAIN_JSON_NULL, token);
			break;
	}
	attach(state, v);
}

DomainJson *
domain_json_parse(const char *text, int len)
{
	Builder		b = {0};
	JsonSemAction sem = {0};
	JsonLexContext *lex;
	JsonParseErrorType err;

	sem.semstate = &b;
	sem.object_start = on_object_start;
	sem.object_end = on_end;
	sem.array_start = on_array_start;
	sem.array_end = on_end;
	sem.object_field_start = on_field_start;
	sem.scalar = on_scalar;
	/* the lexer does not write to the text */
	lex = makeJsonLexContextCstringLen(unconstify(char *, text), len, GetDatabaseEncoding(), true);
	err = pg_parse_json(lex, &sem);
	if (err != JSON_SUCCESS || b.root == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s", "json")));
	return b.root;
}

/* a string as jsonb_out quotes it */
static void
append_string(StringInfo out, const char *s)
{
	appendStringInfoChar(out, '"');
	for (; *s; s++)
	{
		unsigned char c = (unsigned char) *s;

		switch (c)
		{
			case '\b':
				appendStringInfoString(out, "\\b");
				break;
			case '\f':
				appendStringInfoString(out, "\\f");
				break;
			case '\n':
				appendStringInfoString(out, "\\n");
				break;
			case '\r':
				appendStringInfoString(out, "\\r");
				break;
			case '\t':
				appendStringInfoString(out, "\\t");
				break;
			case '"':
				appendStringInfoString(out, "\\\"");
				break;
			case '\\':
				appendStringInfoString(out, "\\\\");
				break;
			default:
				if (c < ' ')
					appendStringInfo(out, "\\u%04x", c);
				else
					appendStringInfoChar(out, c);
		}
	}
	appendStringInfoChar(out, '"');
}

static void
append_value(StringInfo out, const DomainJson *v)
{
	check_stack_depth();
	switch (v->type)
	{
		case DOMAIN_JSON_STRING:
			append_string(out, v->str);
			break;
		case DOMAIN_JSON_ARRAY:
			appendStringInfoChar(out, '[');
			for (int i = 0; i < v->n; i++)
			{
				if (i > 0)
					appendStringInfoString(out, ", ");
				append_value(out, v->items[i]);
			}
			appendStringInfoChar(out, ']');
			break;
		case DOMAIN_JSON_OBJECT:
			appendStringInfoChar(out, '{');
			for (int i = 0; i < v->n; i++)
			{
				if (i > 0)
					appendStringInfoString(out, ", ");
				append_string(out, v->keys[i]);
				appendStringInfoString(out, ": ");
				append_value(out, v->items[i]);
			}
			appendStringInfoChar(out, '}');
			break;
		default:
			appendStringInfoString(out, v->str);
			break;
	}
}

char *
domain_json_out(const DomainJson *v)
{
	StringInfoData out;

	initStringInfo(&out);
	append_value(&out, v);
	return out.data;
}
