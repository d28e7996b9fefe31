/*
 * spec_lexer.c -- the tokens of a workload spec (spec.c parses them): plain
 * and quoted identifiers, 'labels', numbers and single characters, and the
 * syntax errors that name the token and its position.
 */
#include "postgres.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>

#include "mb/pg_wchar.h"
#include "miscadmin.h"

#include "pg_compat.h"
#include "workload/spec_lexer.h"

/*
 * The character position of a byte offset, for a message: it counts the
 * characters before it, so it is called on the way to an error only (once
 * per attribute, it made a spec of 40,000 terms take 80 s to parse).
 */
int
spec_position(const Parser *p, int offset)
{
	return pg_mbstrlen_with_len(p->spec, offset) + 1;
}

char *
spec_token_text(const Parser *p)
{
	return pnstrdup(p->spec + p->tok.start, p->tok.end - p->tok.start);
}

pg_noreturn void
spec_syntax_error(const Parser *p, const char *expected)
{
	if (p->tok.type == TOK_END)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("syntax error at end of workload spec"),
				 errdetail("Expected %s.", expected)));
	ereport(ERROR,
			(errcode(ERRCODE_SYNTAX_ERROR),
			 errmsg("syntax error at or near \"%s\" at position %d of workload spec",
					spec_token_text(p), spec_position(p, p->tok.start)),
			 errdetail("Expected %s.", expected)));
}

/* a quoted identifier or string; a doubled quote stands for itself */
static void
scan_quoted(Parser *p, char quote, const char *what)
{
	const char *s = p->spec;
	int			i = p->next + 1;
	StringInfoData buf;

	initStringInfo(&buf);
	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		if (i >= p->len)
			ereport(ERROR,
					(errcode(ERRCODE_SYNTAX_ERROR),
					 errmsg("unterminated %s at position %d of workload spec",
							what, spec_position(p, p->next))));
		if (s[i] == quote)
		{
			if (i + 1 < p->len && s[i + 1] == quote)
			{
				appendStringInfoChar(&buf, quote);
				i += 2;
				continue;
			}
			i++;
			break;
		}
		appendStringInfoChar(&buf, s[i++]);
	}
	p->tok.text = buf.data;
	p->next = i;
}

void
spec_advance(Parser *p)
{
	const char *s = p->spec;
	int			i = p->next;

	/* every loop over the spec takes tokens: a long spec can be cancelled */
	CHECK_FOR_INTERRUPTS();
	while (i < p->len && isspace((unsigned char) s[i]))
		i++;
	p->tok.start = p->next = i;
	p->tok.text = NULL;
	if (i >= p->len)
		p->tok.type = TOK_END;
	else if (isalpha((unsigned char) s[i]) || s[i] == '_' || IS_HIGHBIT_SET(s[i]))
	{
		while (i < p->len && (isalnum((unsigned char) s[i]) || s[i] == '_' ||
							  IS_HIGHBIT_SET(s[i])))
			i++;
		p->tok.type = TOK_IDENT;
		p->tok.text = pnstrdup(s + p->next, i - p->next);
		p->next = i;
	}
	else if (s[i] == '"' || s[i] == '\'')
	{
		p->tok.type = s[i] == '"' ? TOK_QUOTED : TOK_STRING;
		scan_quoted(p, s[i], s[i] == '"' ? "quoted identifier" : "quoted bin label");
	}
	else if (isdigit((unsigned char) s[i]) ||
			 (s[i] == '.' && i + 1 < p->len && isdigit((unsigned char) s[i + 1])))
	{
		/* digits, fraction, exponent; signs are the parser's business */
		char	   *num;

		while (i < p->len && isdigit((unsigned char) s[i]))
			i++;
		if (i < p->len && s[i] == '.')
			for (i++; i < p->len && isdigit((unsigned char) s[i]); i++)
				;
		if (i < p->len && (s[i] == 'e' || s[i] == 'E'))
		{
			int			j = i + 1;

			if (j < p->len && (s[j] == '+' || s[j] == '-'))
				j++;
			if (j < p->len && isdigit((unsigned char) s[j]))
				for (i = j; i < p->len && isdigit((unsigned char) s[i]); i++)
					;
		}
		num = pnstrdup(s + p->next, i - p->next);
		p->tok.type = TOK_NUMBER;
		p->tok.number = strtod(num, NULL);
		p->next = i;
	}
	else
	{
		p->tok.type = TOK_CHAR;
		p->next = i + pg_mblen(s + i);
	}
	p->tok.end = p->next;
}

bool
spec_is_char(const Parser *p, char c)
{
	return p->tok.type == TOK_CHAR && p->spec[p->tok.start] == c;
}

bool
spec_accept_char(Parser *p, char c)
{
	if (!spec_is_char(p, c))
		return false;
	spec_advance(p);
	return true;
}

void
spec_expect_char(Parser *p, char c, const char *expected)
{
	if (!spec_accept_char(p, c))
		spec_syntax_error(p, expected);
}
