/*
 * pgstub.c -- just enough of the PostgreSQL backend to run dpmatrix's parsing
 * code outside a server, for fuzzing.  Written for these harnesses, not taken
 * from PostgreSQL; string formatting, stringinfo, qsort, shortest-decimal and
 * the UTF-8 tables come from PostgreSQL's own libpgcommon/libpgport.
 *
 *  - memory: every palloc is its own malloc (so AddressSanitizer sees each
 *    chunk's bounds), chained into one arena that fuzz_end() frees after each
 *    input, as the end of a statement resets its memory context.  pfree and
 *    repalloc really free, so use-after-free and double pfree are caught.
 *  - errors: ereport/elog(ERROR) records the error and siglongjmps to
 *    PG_exception_stack, as pg_re_throw() does, so the harnesses use PG_TRY.
 *
 * What counts as a finding (fuzz_fail, which aborts so libFuzzer saves the
 * input), beyond what the sanitizers report:
 *  - an elog(ERROR) without an errcode (ERRCODE_INTERNAL_ERROR): the code's
 *    "can't happen" paths, or an invalid palloc size, which a backend
 *    reports as an internal error;
 *  - FATAL or PANIC, an Assert failure (the code is built with
 *    USE_ASSERT_CHECKING), "(null)" in a message (unless the input has it);
 *  - more than FUZZ_MEM_LIMIT_MB (default 1024) palloc'd at once for one
 *    input, while dpm.max_matrix_mb is 64: a backend has no such cap and
 *    would go on until the machine runs out of memory.
 *
 * Environment: FUZZ_VERBOSE=1 prints every error raised; FUZZ_MEM_LIMIT_MB.
 */
#include "postgres.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "utils/elog.h"
#include "utils/memutils.h"

#include "linalg/linalg.h"

#include "fuzz_common.h"

/* ---------------------------------------------------------------- globals */

sigjmp_buf *PG_exception_stack = NULL;
ErrorContextCallback *error_context_stack = NULL;
volatile sig_atomic_t InterruptPending = false;

FuzzError	fuzz_last_error;
const char *fuzz_user_text;

static int	verbose = -1;
static size_t mem_limit;

static void
read_env(void)
{
	const char *v;

	if (verbose >= 0)
		return;
	v = getenv("FUZZ_VERBOSE");
	verbose = v != NULL && *v != '\0' && *v != '0';
	v = getenv("FUZZ_MEM_LIMIT_MB");
	mem_limit = (size_t) (v ? atol(v) : 1024) * 1024 * 1024;
}

/* the five-character SQLSTATE of an errcode (MAKE_SQLSTATE packs 6 bits a character) */
char *
unpack_sql_state(int sql_state)
{
	static char buf[2][6];
	static int	which;
	char	   *s = buf[which ^= 1];

	for (int i = 0; i < 5; i++, sql_state >>= 6)
		s[i] = PGUNSIXBIT(sql_state);
	s[5] = '\0';
	return s;
}

void
fuzz_fail(const char *fmt,...)
{
	va_list		args;

	fprintf(stderr, "\n==FUZZ FINDING== ");
	va_start(args, fmt);
	vfprintf(stderr, fmt, args);
	va_end(args);
	fprintf(stderr, "\n");
	if (fuzz_last_error.elevel != 0)
		fprintf(stderr, "  last error (level %d, sqlstate %s) at %s:%d (%s): %s\n"
				"  detail: %s\n  hint: %s\n",
				fuzz_last_error.elevel, unpack_sql_state(fuzz_last_error.sqlerrcode),
				fuzz_last_error.filename ? fuzz_last_error.filename : "?",
				fuzz_last_error.lineno,
				fuzz_last_error.funcname ? fuzz_last_error.funcname : "?",
				fuzz_last_error.message, fuzz_last_error.detail, fuzz_last_error.hint);
	fflush(stderr);
	abort();
}

void
ExceptionalCondition(const char *conditionName, const char *errorType,
					 const char *fileName, int lineNumber)
{
	fuzz_fail("%s(\"%s\", File: \"%s\", Line: %d)", errorType ? errorType : "Assert",
			  conditionName ? conditionName : "?", fileName ? fileName : "?", lineNumber);
}

/* ----------------------------------------------------------------- memory */

#define CHUNK_MAGIC 0x5041524e45u	/* marks a live chunk */

typedef struct Chunk
{
	struct Chunk *prev;
	struct Chunk *next;
	size_t		size;
	uint64		magic;
	max_align_t data[FLEXIBLE_ARRAY_MEMBER];
} Chunk;

static Chunk *arena;
static size_t arena_bytes;
static size_t arena_peak;

size_t
fuzz_arena_bytes(void)
{
	return arena_bytes;
}

size_t
fuzz_arena_peak(void)
{
	return arena_peak;
}

static Chunk *
chunk_of(void *pointer, const char *caller)
{
	Chunk	   *c;

	if (pointer == NULL)
		fuzz_fail("%s(NULL)", caller);
	c = (Chunk *) ((char *) pointer - offsetof(Chunk, data));
	/* reading the header of a freed chunk is a use-after-free for ASan */
	if (c->magic != CHUNK_MAGIC)
		fuzz_fail("%s of a pointer that palloc did not return", caller);
	return c;
}

static void *
chunk_alloc(Size size, bool zero, bool huge, bool no_oom)
{
	Chunk	   *c;

	read_env();
	if (huge ? !AllocHugeSizeIsValid(size) : !AllocSizeIsValid(size))
	{
		/* PostgreSQL: elog(ERROR, "invalid memory alloc request size"), an internal error */
		if (no_oom)
			return NULL;
		fuzz_fail("invalid memory alloc request size %zu%s", (size_t) size,
				  huge ? " (huge)" : "");
	}
	if (size > mem_limit - Min(arena_bytes, mem_limit))
		fuzz_fail("unbounded memory: %zu bytes palloc'd for one input, another %zu requested "
				  "(limit FUZZ_MEM_LIMIT_MB=%zu, dpm_max_matrix_mb=%d)",
				  arena_bytes, (size_t) size, mem_limit >> 20, dpm_max_matrix_mb);
	c = zero ? calloc(1, offsetof(Chunk, data) + size) : malloc(offsetof(Chunk, data) + size);
	if (c == NULL)
	{
		if (no_oom)
			return NULL;
		fuzz_fail("malloc of %zu bytes failed", (size_t) size);
	}
	c->size = size;
	c->magic = CHUNK_MAGIC;
	c->prev = NULL;
	c->next = arena;
	if (arena)
		arena->prev = c;
	arena = c;
	arena_bytes += size;
	arena_peak = Max(arena_peak, arena_bytes);
	return c->data;
}

static void
chunk_free(Chunk *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		arena = c->next;
	if (c->next)
		c->next->prev = c->prev;
	arena_bytes -= c->size;
	c->magic = 0;
	free(c);
}

void *
palloc(Size size)
{
	return chunk_alloc(size, false, false, false);
}

void *
palloc0(Size size)
{
	return chunk_alloc(size, true, false, false);
}

void *
palloc_extended(Size size, int flags)
{
	return chunk_alloc(size, (flags & MCXT_ALLOC_ZERO) != 0, (flags & MCXT_ALLOC_HUGE) != 0,
					   (flags & MCXT_ALLOC_NO_OOM) != 0);
}

static void *
realloc_chunk(void *pointer, Size size, bool huge)
{
	Chunk	   *old = chunk_of(pointer, "repalloc");
	void	   *p = chunk_alloc(size, false, huge, false);

	/* always move, so that a stale pointer to the old chunk is a use-after-free */
	memcpy(p, pointer, Min(old->size, size));
	chunk_free(old);
	return p;
}

void *
repalloc(void *pointer, Size size)
{
	return realloc_chunk(pointer, size, false);
}

void *
repalloc_huge(void *pointer, Size size)
{
	return realloc_chunk(pointer, size, true);
}

void
pfree(void *pointer)
{
	chunk_free(chunk_of(pointer, "pfree"));
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

/* ----------------------------------------------------------------- errors */

static int	cur_elevel;
static char *stack_base;

void
fuzz_begin(void)
{
	read_env();
	memset(&fuzz_last_error, 0, sizeof(fuzz_last_error));
	fuzz_user_text = NULL;
	cur_elevel = 0;
	arena_peak = arena_bytes;
	PG_exception_stack = NULL;
	error_context_stack = NULL;
	stack_base = (char *) __builtin_frame_address(0);
}

void
fuzz_end(void)
{
	while (arena)
		chunk_free(arena);
	arena_bytes = 0;
	PG_exception_stack = NULL;
	error_context_stack = NULL;
}

bool
errstart(int elevel, const char *domain)
{
	if (elevel < ERROR && !verbose)
		return false;
	cur_elevel = elevel;
	if (elevel >= ERROR)
	{
		memset(&fuzz_last_error, 0, sizeof(fuzz_last_error));
		fuzz_last_error.elevel = elevel;
		/* what errstart() defaults to: an elog() without errcode is an internal error */
		fuzz_last_error.sqlerrcode = ERRCODE_INTERNAL_ERROR;
	}
	return true;
}

bool
errstart_cold(int elevel, const char *domain)
{
	return errstart(elevel, domain);
}

void
errfinish(const char *filename, int lineno, const char *funcname)
{
	FuzzError  *e = &fuzz_last_error;

	if (cur_elevel < ERROR)
	{
		if (verbose)
			fprintf(stderr, "fuzz: level %d at %s:%d: %s\n", cur_elevel, filename, lineno,
					e->message);
		return;
	}
	e->filename = filename;
	e->lineno = lineno;
	e->funcname = funcname;
	if (verbose)
		fprintf(stderr, "fuzz: ERROR %s at %s:%d: %s | %s | %s\n",
				unpack_sql_state(e->sqlerrcode), filename, lineno,
				e->message, e->detail, e->hint);
	if (cur_elevel >= FATAL)
		fuzz_fail("level %d error", cur_elevel);
	if (e->sqlerrcode == ERRCODE_INTERNAL_ERROR)
		fuzz_fail("internal error (elog without errcode) reached");
	if ((strstr(e->message, "(null)") || strstr(e->detail, "(null)") || strstr(e->hint, "(null)")) &&
		!(fuzz_user_text && strstr(fuzz_user_text, "(null)")))
		fuzz_fail("NULL string formatted into an error message");
	if (PG_exception_stack == NULL)
		fuzz_fail("ERROR raised outside PG_TRY");
	siglongjmp(*PG_exception_stack, 1);
}

/* PG_END_TRY after PG_FINALLY: pass the error on to the enclosing PG_TRY */
void
pg_re_throw(void)
{
	if (PG_exception_stack == NULL)
		fuzz_fail("ERROR re-thrown outside PG_TRY");
	siglongjmp(*PG_exception_stack, 1);
}

int
errcode(int sqlerrcode)
{
	fuzz_last_error.sqlerrcode = sqlerrcode;
	return 0;
}

/* messages are formatted (with PostgreSQL's snprintf), so formats and arguments are exercised */
#define FORMATTER(name, field) \
int \
name(const char *fmt,...) \
{ \
	va_list		args; \
	va_start(args, fmt); \
	pg_vsnprintf(fuzz_last_error.field, sizeof(fuzz_last_error.field), fmt, args); \
	va_end(args); \
	return 0; \
}
FORMATTER(errmsg, message)
FORMATTER(errmsg_internal, message)
FORMATTER(errdetail, detail)
FORMATTER(errdetail_internal, detail)
FORMATTER(errhint, hint)

/*
 * linalg.c's per-iteration contexts (mat_loop_context) are linked in with it,
 * but no parser under test makes one.
 */
MemoryContext CurrentMemoryContext = NULL;

MemoryContext
AllocSetContextCreateInternal(MemoryContext parent, const char *name, Size minContextSize,
							  Size initBlockSize, Size maxBlockSize)
{
	fuzz_fail("AllocSetContextCreateInternal(%s) called under fuzzing", name);
	return NULL;
}

/* like the backend with max_stack_depth = 2MB, measured from the harness's frame */
void
check_stack_depth(void)
{
	char		here;
	long		depth = (long) (stack_base - &here);

	if (stack_base != NULL && depth > 2L * 1024 * 1024)
		ereport(ERROR,
				(errcode(ERRCODE_STATEMENT_TOO_COMPLEX),
				 errmsg("stack depth limit exceeded")));
}

void
ProcessInterrupts(void)
{
	InterruptPending = false;
}

/* ------------------------------------------------------------------ lists */

static List *
list_new(NodeTag type, int length)
{
	int			max = Max(length, 4);
	List	   *l = palloc(offsetof(List, initial_elements) + sizeof(ListCell) * max);

	l->type = type;
	l->length = length;
	l->max_length = max;
	l->elements = l->initial_elements;
	return l;
}

static void
list_reserve(List *l, int length)
{
	if (length > l->max_length)
	{
		int			max = Max(length, 2 * l->max_length);
		ListCell   *e = palloc(sizeof(ListCell) * (Size) max);

		memcpy(e, l->elements, sizeof(ListCell) * l->length);
		if (l->elements != l->initial_elements)
			pfree(l->elements);
		l->elements = e;
		l->max_length = max;
	}
}

List *
list_make1_impl(NodeTag t, ListCell datum1)
{
	List	   *l = list_new(t, 1);

	l->elements[0] = datum1;
	return l;
}

List *
lappend(List *list, void *datum)
{
	if (list == NIL)
		list = list_new(T_List, 0);
	list_reserve(list, list->length + 1);
	list->elements[list->length++].ptr_value = datum;
	return list;
}

List *
list_concat(List *list1, const List *list2)
{
	int			n2 = list_length(list2);

	if (list1 == NIL)
	{
		if (list2 == NIL)
			return NIL;
		list1 = list_new(list2->type, 0);
	}
	if (n2 == 0)
		return list1;
	list_reserve(list1, list1->length + n2);
	memcpy(list1->elements + list1->length, list2->elements, sizeof(ListCell) * n2);
	list1->length += n2;
	return list1;
}

/* ------------------------------------------- multibyte: a UTF-8 database */

int
GetDatabaseEncoding(void)
{
	return PG_UTF8;
}

int
pg_mblen(const char *mbstr)
{
	return pg_encoding_mblen(PG_UTF8, mbstr);
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
