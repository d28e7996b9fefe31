/*
 * options.h -- reading the jsonb `options` argument of dpmatrix functions.
 */
#ifndef DPM_API_OPTIONS_H
#define DPM_API_OPTIONS_H

#include "postgres.h"
#include "utils/jsonb.h"

/* error unless options is an object whose keys are all in allowed (NULL-terminated) */
extern void options_check_keys(Jsonb *options, const char *const *allowed, const char *context);
/* integer option in [min, max], or dflt when absent */
extern int	options_get_int(Jsonb *options, const char *key, int dflt, int min, int max);
/* number option in [min, max], or dflt when absent */
extern double options_get_float(Jsonb *options, const char *key, double dflt, double min, double max);
/* string option, or dflt when absent */
extern const char *options_get_text(Jsonb *options, const char *key, const char *dflt);
/* string option among choices (NULL-terminated): its index, or dflt when absent */
extern int	options_get_choice(Jsonb *options, const char *key, const char *const *choices, int dflt);
/* a number or an array of numbers (NULL when absent); *count receives how many */
extern double *options_get_numbers(Jsonb *options, const char *key, int *count);

/* variances: a number or a non-empty array of numbers, each positive and finite (NULL when absent) */
extern double *options_get_targets(Jsonb *options, const char *key, int *count);

/*
 * method m's options from the jsonb, checked as the registry describes them,
 * for a workload given as a spec or as a matrix
 */
struct StrategyMethod;
struct StrategyOptions;
extern void api_method_options(const struct StrategyMethod *m, Jsonb *options, bool is_spec,
							   struct StrategyOptions *opts);

#endif
