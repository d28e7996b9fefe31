/*
 * residual_release_api.h -- what the entry points of method residual share
 * (residual_release_api.c, and wide_gls_api.c, which reads their releases
 * back): a spec read as marginals, and a stored plan's arguments.
 */
#ifndef DPM_API_RESIDUAL_RELEASE_API_H
#define DPM_API_RESIDUAL_RELEASE_API_H

#include "postgres.h"
#include "fmgr.h"
#include "utils/array.h"

#include "strategy/residual/residual.h"
#include "workload/workload.h"

/* a workload spec read as marginals (workload_marginals), with its residuals */
typedef struct SpecMarginals
{
	int			d;
	int		   *sizes;
	int			m;
	int		   *attrs;
	int			width;
	double	   *weights;
	WorkloadBlock **blocks;			/* NULL for Identity (workload_marginals) */
	bool		plain;			/* every term a plain marginal */
	ResidualWorkload *w;
} SpecMarginals;

/* the spec over dom as marginals, with its residuals, into sm (an error if it is no such spec) */
extern void api_spec_marginals_of(WorkloadDomain *dom, const char *spec, SpecMarginals *sm);
/* a Gaussian plan's variance of each residual of sm's workload (0: not measured) */
extern double *api_residual_plan_variances(SpecMarginals *sm, ArrayType *subsets, ArrayType *variances);
/* a Laplace plan's tables (indexes of the workload's residuals) and weights */
extern int *api_residual_plan_tables(SpecMarginals *sm, ArrayType *subsets, ArrayType *weights, double **theta,
									 int *count);
/* the plan's arguments, the first count of them, are not NULL */
extern void api_residual_check_plan_args(FunctionCallInfo fcinfo, int count);

#endif
