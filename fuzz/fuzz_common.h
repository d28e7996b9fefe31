/*
 * fuzz_common.h -- what the fuzz targets share with the backend stand-ins of
 * pgstub.c.  Not part of the extension.
 */
#ifndef DPM_FUZZ_COMMON_H
#define DPM_FUZZ_COMMON_H

#include "postgres.h"

/* the last ereport/elog of level ERROR, as the stubs recorded it */
typedef struct FuzzError
{
	int			elevel;
	int			sqlerrcode;
	char		message[1024];
	char		detail[1024];
	char		hint[1024];
	const char *filename;
	int			lineno;
	const char *funcname;
} FuzzError;

extern FuzzError fuzz_last_error;

/* text from the input that messages may quote (a "(null)" in it is not a finding) */
extern const char *fuzz_user_text;

/*
 * Per-input setup and teardown: fuzz_begin() records the stack base for
 * check_stack_depth() and clears the error state; fuzz_end() frees every
 * chunk still allocated, as the end of a statement resets its memory context.
 */
extern void fuzz_begin(void);
extern void fuzz_end(void);

/* bytes currently palloc'd and the peak for this input */
extern size_t fuzz_arena_bytes(void);
extern size_t fuzz_arena_peak(void);

/* print a finding (with the last error, if any) and abort: libFuzzer saves the input */
extern void fuzz_fail(const char *fmt,...) pg_attribute_printf(1, 2) pg_attribute_noreturn();

/* the matrix target's arrays (arraystub.c) */
struct ArrayType;
extern struct ArrayType *fuzz_make_array(int ndim, const int *dims, const int *lbs, Oid elemtype,
										 bool with_bitmap, const bool *nulls,
										 const double *values);

#endif
