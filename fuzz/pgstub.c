/*
 * pgstub.c -- just enough of the PostgreSQL backend to run dpmatrix's workload
 * spec code outside a server, for fuzzing.  Written for this harness: memory
 * comes from an arena freed after each input, and an ERROR longjmps back to
 * the harness (fuzz_error_jump), as PostgreSQL's own error recovery would
 * unwind the statement.
 */
#include "postgres.h"

#include <setjmp.h>

#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "utils/memutils.h"

sigjmp_buf *fuzz_error_jump;
volatile sig_atomic_t InterruptPending = false;

void
ProcessInterrupts(void)
{
}

void
check_stack_depth(void)
{
}

/* ---- memory: an arena of malloc'd chunks, each with its size in front ---- */

typedef struct Chunk
{
	struct Chunk *next;
	size_t		size;
	max_align_t data[];
} Chunk;

static Chunk *arena;
static size_t arena_bytes;

/* a backend would fail such a request too (MaxAllocHugeSize); keep the fuzzer's RSS bounded */
#define FUZZ_ARENA_LIMIT ((size_t) 1 << 30)

static void *
chunk_alloc(size_t size, bool zero)
{
	Chunk	   *c;

	if (size > FUZZ_ARENA_LIMIT - arena_bytes)
		elog(ERROR, "fuzz arena: out of memory (%zu bytes)", size);
	c = zero ? calloc(1, sizeof(Chunk) + size) : malloc(sizeof(Chunk) + size);
	if (c == NULL)
		elog(ERROR, "fuzz arena: malloc failed");
	c->size = size;
	c->next = arena;
	arena = c;
	arena_bytes += size;
	return c->data;
}

void
fuzz_arena_reset(void)
{
	while (arena)
	{
		Chunk	   *next = arena->next;

		free(arena);
		arena = next;
	}
	arena_bytes = 0;
}

void *
palloc(Size size)
{
	if (!AllocSizeIsValid(size))
		elog(ERROR, "invalid memory alloc request size %zu", size);
	return chunk_alloc(size, false);
}

void *
palloc0(Size size)
{
	if (!AllocSizeIsValid(size))
		elog(ERROR, "invalid memory alloc request size %zu", size);
	return chunk_alloc(size, true);
}

void *
palloc_extended(Size size, int flags)
{
	if (((flags & MCXT_ALLOC_HUGE) != 0 && !AllocHugeSizeIsValid(size)) ||
		((flags & MCXT_ALLOC_HUGE) == 0 && !AllocSizeIsValid(size)))
		elog(ERROR, "invalid memory alloc request size %zu", size);
	return chunk_alloc(size, (flags & MCXT_ALLOC_ZERO) != 0);
}

void *
repalloc(void *pointer, Size size)
{
	Chunk	   *old = (Chunk *) ((char *) pointer - offsetof(Chunk, data));
	void	   *p = palloc(size);

	memcpy(p, pointer, Min(old->size, size));
	return p;
}

void
pfree(void *pointer)
{
	/* freed with the arena */
}

char *
pnstrdup(const char *in, Size len)
{
	char	   *out;

	len = strnlen(in, len);
	out = palloc(len + 1);
	memcpy(out, in, len);
	out[len] = '\0';
	return out;
}

char *
pstrdup(const char *in)
{
	return pnstrdup(in, strlen(in));
}

/* ---- errors: ERROR and above jump back to the harness ---- */

static int	cur_elevel;

bool
errstart(int elevel, const char *domain)
{
	cur_elevel = elevel;
	return elevel >= ERROR;		/* nothing below ERROR is worth formatting here */
}

bool
errstart_cold(int elevel, const char *domain)
{
	return errstart(elevel, domain);
}

void
errfinish(const char *filename, int lineno, const char *funcname)
{
	if (cur_elevel >= ERROR)
		siglongjmp(*fuzz_error_jump, 1);
}

/* the message is formatted, so that format strings and their arguments are exercised */
static int
format_message(const char *fmt, va_list args)
{
	char		buf[2048];

	vsnprintf(buf, sizeof(buf), fmt, args);
	return 0;
}

#define FORMATTER(name) \
int name(const char *fmt, ...) \
{ \
	va_list		args; \
	va_start(args, fmt); \
	format_message(fmt, args); \
	va_end(args); \
	return 0; \
}
FORMATTER(errmsg)
FORMATTER(errmsg_internal)
FORMATTER(errdetail)
FORMATTER(errhint)

int
errcode(int sqlerrcode)
{
	return 0;
}

/* ---- lists: only the operations the workload code uses ---- */

static List *
list_alloc(int n)
{
	List	   *l = palloc(offsetof(List, initial_elements) + sizeof(ListCell) * Max(n, 4));

	l->type = T_List;
	l->length = n;
	l->max_length = Max(n, 4);
	l->elements = l->initial_elements;
	return l;
}

static void
list_grow(List *l, int n)
{
	if (n > l->max_length)
	{
		int			max = Max(n, 2 * l->max_length);
		ListCell   *e = palloc(sizeof(ListCell) * max);

		memcpy(e, l->elements, sizeof(ListCell) * l->length);
		l->elements = e;
		l->max_length = max;
	}
}

List *
list_make1_impl(NodeTag t, ListCell datum1)
{
	List	   *l = list_alloc(1);

	l->type = t;
	l->elements[0] = datum1;
	return l;
}

List *
lappend(List *list, void *datum)
{
	if (list == NIL)
		return list_make1_impl(T_List, (ListCell) {.ptr_value = datum});
	list_grow(list, list->length + 1);
	list->elements[list->length++].ptr_value = datum;
	return list;
}

List *
list_concat(List *list1, const List *list2)
{
	if (list1 == NIL)
	{
		if (list2 == NIL)
			return NIL;
		list1 = list_alloc(0);
	}
	if (list2 == NIL)
		return list1;
	list_grow(list1, list1->length + list2->length);
	memcpy(list1->elements + list1->length, list2->elements, sizeof(ListCell) * list2->length);
	list1->length += list2->length;
	return list1;
}

/* ---- multibyte: UTF-8, the encoding of the test clusters ---- */

int
pg_mblen(const char *mbstr)
{
	unsigned char c = (unsigned char) *mbstr;

	if (c < 0x80)
		return 1;
	if ((c & 0xe0) == 0xc0)
		return 2;
	if ((c & 0xf0) == 0xe0)
		return 3;
	if ((c & 0xf8) == 0xf0)
		return 4;
	return 1;
}

int
pg_mbstrlen_with_len(const char *mbstr, int limit)
{
	int			len = 0;

	while (limit > 0 && *mbstr)
	{
		int			l = pg_mblen(mbstr);

		limit -= l;
		mbstr += l;
		len++;
	}
	return len;
}
