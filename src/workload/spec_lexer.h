/*
 * spec_lexer.h -- the tokens of a workload spec, for its parser (spec.c);
 * not part of workload.h's interface.
 */
#ifndef DPM_WORKLOAD_SPEC_LEXER_H
#define DPM_WORKLOAD_SPEC_LEXER_H

#include "pg_compat.h"
#include "workload/workload.h"

typedef enum TokenType
{
	TOK_END,
	TOK_IDENT,					/* plain identifier */
	TOK_QUOTED,					/* "identifier" */
	TOK_STRING,					/* 'label' */
	TOK_NUMBER,
	TOK_CHAR					/* any other single character */
} TokenType;

typedef struct Token
{
	TokenType	type;
	int			start;			/* byte offsets into the spec */
	int			end;
	char	   *text;			/* identifier or string, quotes removed */
	double		number;
} Token;

typedef struct Parser
{
	const WorkloadDomain *dom;
	const char *spec;
	int			len;
	int			next;			/* byte offset where scanning resumes */
	Token		tok;			/* current token */
} Parser;
/* the character position of a byte offset, for messages only (it counts) */
extern int	spec_position(const Parser *p, int offset);
/* the current token's text as written */
extern char *spec_token_text(const Parser *p);
/* a syntax error at the current token: "expected" says what would have fitted */
pg_noreturn extern void spec_syntax_error(const Parser *p, const char *expected);
/* the next token into p->tok */
extern void spec_advance(Parser *p);
/* whether the current token is the character c; accept_char also consumes it */
extern bool spec_is_char(const Parser *p, char c);
extern bool spec_accept_char(Parser *p, char c);
/* consume c, or a syntax error naming what was expected */
extern void spec_expect_char(Parser *p, char c, const char *expected);

#endif
