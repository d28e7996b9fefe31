/*
 * context.c -- errors speak of the user's statement, not of dpmatrix's insides.
 *
 * Most of the interface is PL/pgSQL calling PL/pgSQL and SQL built on the fly, so an error
 * raised deep inside (a typo in a workload's name, a value that does not fit a column) would
 * reach psql or a BI tool with ten lines of CONTEXT naming internal functions and a QUERY with
 * generated SQL.  Where the report is emitted (emit_log_hook, before the server log and the
 * client see it), the frames of dpmatrix's own functions and the internal query are cut off;
 * the frames of the caller's code (their functions calling dpm.answer) stay.  The context stack
 * lists the innermost frame first, and a dpmatrix function calls only dpmatrix functions or
 * PostgreSQL's, so every line up to the last frame of a function in schema dpm or dpm_internal
 * belongs to us.  dpm.internal_context = on keeps everything, for debugging.
 *
 * Only reports that reach the server log pass this hook (every ERROR with the default
 * log_min_messages); a NOTICE's context is not shown by psql by default.
 */
#include "postgres.h"

#include "utils/elog.h"

#include "errors/errors.h"

bool		errors_internal_context = false;

static emit_log_hook_type prev_emit_log_hook = NULL;

/* whether a line of the context stack is the frame of one of dpmatrix's PL/pgSQL functions */
static bool
own_frame(const char *line)
{
	/* and the front door's call of its internal functions (api/query_api.c) */
	static const char *const frames[] = {"PL/pgSQL function dpm.", "PL/pgSQL function dpm_internal.",
	"SQL statement \"SELECT * FROM dpm_internal.", "SQL statement \"SELECT dpm_internal."};

	for (int i = 0; i < lengthof(frames); i++)
		if (strncmp(line, frames[i], strlen(frames[i])) == 0)
			return true;
	return false;
}

/*
 * The part of a context stack after dpmatrix's own frames: NULL when nothing is left, the
 * context itself when it holds none of them, else a copy in the current memory context.
 */
char *
errors_user_context(const char *context)
{
	const char *line = context;
	const char *rest = NULL;

	if (context == NULL)
		return NULL;
	while (*line != '\0')
	{
		const char *end = strchr(line, '\n');
		const char *next = end ? end + 1 : line + strlen(line);

		if (own_frame(line))
			rest = next;
		line = next;
	}
	if (rest == NULL)
		return (char *) context;
	return *rest == '\0' ? NULL : pstrdup(rest);
}

static void
cut_internal_context(ErrorData *edata)
{
	if (!errors_internal_context && edata->context != NULL)
	{
		char	   *context = errors_user_context(edata->context);

		if (context != edata->context)
		{
			/* ours: ErrorContext's memory (EmitErrorReport runs in edata's), freed with it */
			edata->context = context;
			edata->internalquery = NULL;
			edata->internalpos = 0;
		}
	}
	if (prev_emit_log_hook)
		prev_emit_log_hook(edata);
}

void
errors_install(void)
{
	prev_emit_log_hook = emit_log_hook;
	emit_log_hook = cut_internal_context;
}
