/*
 * args.h -- the arguments many entry points share (args.c), and the float8
 * arrays they convert (convert/array.h).
 */
#ifndef DPM_API_ARGS_H
#define DPM_API_ARGS_H

#include "postgres.h"
#include "fmgr.h"

#include "convert/array.h"
#include "mechanism/mechanism.h"

/* common argument checks */
extern void api_check_epsilon_delta(double epsilon, double delta);

/*
 * The privacy arguments of the mechanism functions, at positions first
 * (epsilon), first + 1 (delta), first + 2 (sensitivity_scale) and first + 3
 * (rho): either epsilon (with delta) or rho, each checked.
 */
extern void api_privacy_args(FunctionCallInfo fcinfo, int first, double *epsilon, double *delta,
						 double *scale, double *rho);
/* the same at the positions given; delta NULL is 0 */
extern void api_privacy_args_at(FunctionCallInfo fcinfo, int eps_arg, int delta_arg, int rho_arg,
								int scale_arg, double *epsilon, double *delta, double *scale,
								double *rho);

/* argument i, the inference of a release by name ("ls" when the function has no such argument) */
extern Inference api_inference_arg(FunctionCallInfo fcinfo, int i);

/* argument i: a confidence in (0, 1), or NO_INTERVALS when absent or NULL */
extern double api_confidence_arg(FunctionCallInfo fcinfo, int i);

/* a release as the rows (query, answer, stderr, ci_low, ci_high, ci_draws) of a set-returning function */
extern Datum api_release_rows(FunctionCallInfo fcinfo, const Release *rel);

#endif
