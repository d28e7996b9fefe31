/*
 * lbfgsb.h -- bound-constrained minimization by L-BFGS-B, one evaluation at
 * a time:
 *
 *     LbfgsbState *s = lbfgsb_begin(n, x, 0.0, max_iter, report);
 *     while (lbfgsb_next(s, &f, g))
 *         f = objective(x, g);          (value and gradient at x)
 *     lbfgsb_end(s);                    (x is the result)
 */
#ifndef DPM_LBFGSB_H
#define DPM_LBFGSB_H

typedef struct LbfgsbState LbfgsbState;

/*
 * Told of each new iterate ("l-bfgs-b", iterations so far, f, NaN): the
 * caller's progress reporting (progress_update fits), since linear algebra
 * reports to no one itself.  May be NULL.
 */
typedef void (*LbfgsbReport) (const char *what, int iteration, double objective, double gap);

/* minimize over x >= lower, starting from x (kept and updated in place) */
extern LbfgsbState *lbfgsb_begin(int n, double *x, double lower, int max_iter,
								 LbfgsbReport report);
/* true: evaluate f and g at x, then call again */
extern bool lbfgsb_next(LbfgsbState *s, double *f, double *g);
/* stop when f falls by less than factr machine epsilons, or |projected gradient| <= pgtol */
extern void lbfgsb_set_tolerance(LbfgsbState *s, double factr, double pgtol);
/*
 * also stop when f fell by at most rel |f| over the last window iterations:
 * for objectives that creep on far past a useful precision (p-Identity)
 */
extern void lbfgsb_set_stall(LbfgsbState *s, int window, double rel);
extern int	lbfgsb_iterations(const LbfgsbState *s);
extern void lbfgsb_end(LbfgsbState *s);

#endif
