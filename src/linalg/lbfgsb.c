/*
 * lbfgsb.c -- a loop around L-BFGS-B 3.0 (Byrd, Lu, Nocedal, Zhu; Debian's
 * liblbfgsb), the bound-constrained quasi-Newton method HDMM uses.  Its
 * reverse-communication interface hands control back for every function
 * evaluation, so the caller evaluates in its own memory context and can be
 * cancelled between evaluations: no callback, no longjmp through Fortran.
 */
#include "postgres.h"

#include <math.h>

#include "linalg/lbfgsb.h"

/* L-BFGS-B's entry point (Fortran: character arguments carry hidden lengths) */
extern void setulb_(const int *n, const int *m, double *x, const double *l, const double *u,
					const int *nbd, double *f, double *g, const double *factr,
					const double *pgtol, double *wa, int *iwa, char *task, const int *iprint,
					char *csave, int *lsave, int *isave, double *dsave, size_t task_len,
					size_t csave_len);

#define TASK_LEN 60
#define MEMORY 10				/* correction pairs kept, as scipy's default */

struct LbfgsbState
{
	int			n;
	int			max_iter;
	LbfgsbReport report;
	double		factr;
	double		pgtol;
	int			stall_window;	/* 0: no stall test */
	double		stall_rel;
	double	   *recent;			/* f after each of the last stall_window iterations, a ring */
	double	   *x;
	double	   *lower;
	double	   *upper;
	int		   *nbd;
	double	   *wa;
	int		   *iwa;
	char		task[TASK_LEN];
	char		csave[TASK_LEN];
	int			lsave[4];
	int			isave[44];
	double		dsave[29];
};

static void
set_task(LbfgsbState *s, const char *text)
{
	size_t		len = strlen(text);

	memset(s->task, ' ', TASK_LEN);
	memcpy(s->task, text, Min(len, TASK_LEN));
}

LbfgsbState *
lbfgsb_begin(int n, double *x, double lower, int max_iter, LbfgsbReport report)
{
	LbfgsbState *s = palloc0(sizeof(LbfgsbState));

	s->n = n;
	s->max_iter = max_iter;
	s->report = report;
	/* scipy's defaults: stop when f stalls to 1e7 machine epsilons or the projected gradient is tiny */
	s->factr = 1e7;
	s->pgtol = 1e-5;
	s->x = x;
	s->lower = palloc(sizeof(double) * Max(n, 1));
	s->upper = palloc0(sizeof(double) * Max(n, 1));
	s->nbd = palloc(sizeof(int) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		s->lower[i] = lower;
		s->nbd[i] = 1;			/* bounded below only */
		if (x[i] < lower)
			x[i] = lower;
	}
	s->wa = palloc(sizeof(double) * ((size_t) (2 * MEMORY + 5) * Max(n, 1) +
									 11 * MEMORY * MEMORY + 8 * MEMORY));
	s->iwa = palloc(sizeof(int) * 3 * (size_t) Max(n, 1));
	set_task(s, "START");
	return s;
}

bool
lbfgsb_next(LbfgsbState *s, double *f, double *g)
{
	const int	m = MEMORY,
				iprint = -1;

	if (s->n == 0)
		return false;
	for (;;)
	{
		setulb_(&s->n, &m, s->x, s->lower, s->upper, s->nbd, f, g, &s->factr, &s->pgtol,
				s->wa, s->iwa, s->task, &iprint, s->csave, s->lsave, s->isave, s->dsave,
				TASK_LEN, TASK_LEN);
		if (strncmp(s->task, "FG", 2) == 0)
			return true;
		if (strncmp(s->task, "NEW_X", 5) != 0)
			return false;		/* converged, stopped, or an abnormal line search: x is the best */
		/* isave(30): iterations so far */
		if (s->report)
			s->report("l-bfgs-b", s->isave[29], *f, NAN);
		if (s->isave[29] >= s->max_iter)
			set_task(s, "STOP: ITERATION LIMIT");
		else if (s->stall_window > 0)
		{
			double	   *then = &s->recent[s->isave[29] % s->stall_window];

			if (s->isave[29] > s->stall_window && *then - *f <= s->stall_rel * fabs(*f))
				set_task(s, "STOP: STALLED");
			*then = *f;
		}
	}
}

void
lbfgsb_set_tolerance(LbfgsbState *s, double factr, double pgtol)
{
	s->factr = factr;
	s->pgtol = pgtol;
}

void
lbfgsb_set_stall(LbfgsbState *s, int window, double rel)
{
	Assert(window > 0);
	s->stall_window = window;
	s->stall_rel = rel;
	s->recent = palloc(sizeof(double) * window);
}

int
lbfgsb_iterations(const LbfgsbState *s)
{
	return s->isave[29];
}

void
lbfgsb_end(LbfgsbState *s)
{
	if (strncmp(s->task, "ERROR", 5) == 0)
		elog(ERROR, "L-BFGS-B: %.*s", TASK_LEN, s->task);
	pfree(s->lower);
	pfree(s->upper);
	pfree(s->nbd);
	pfree(s->wa);
	pfree(s->iwa);
	if (s->recent)
		pfree(s->recent);
	pfree(s);
}
