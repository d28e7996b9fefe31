/*
 * fitness_api.h -- the fitness-for-use strategy from a workload and options.
 */
#ifndef DPM_API_FITNESS_API_H
#define DPM_API_FITNESS_API_H

#include "postgres.h"
#include "utils/jsonb.h"

#include "strategy/fitness/fitness.h"

typedef struct FitnessRun
{
	Mat		   *b;				/* the basis */
	Mat		   *sigma;			/* the noise covariance on B x */
	FitnessReport rep;
} FitnessRun;

/*
 * The strategy C^-1 B for workload w and options (targets required; basis,
 * lambda, max_iter, mu, tol, newton_tol, cg_iters).
 */
/* option targets, required, each positive and finite (not yet matched to w's queries) */
extern double *api_fitness_targets(Jsonb *options, int *count);
extern Mat *api_fitness_from_options(const Mat *w, Jsonb *options, FitnessRun *run);

#endif
