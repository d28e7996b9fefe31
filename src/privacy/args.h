/*
 * args.h -- the ranges of the privacy parameters, checked here for every function that takes
 * them, from SQL (dpm_internal.check_privacy_args) or from C.
 */
#ifndef DPM_PRIVACY_ARGS_H
#define DPM_PRIVACY_ARGS_H

/* what the parameters are for: the names in the messages and the range of delta */
typedef enum PrivacyUse
{
	PRIVACY_RELEASE,			/* noise for one release: delta in [0, 1) */
	PRIVACY_BUDGET,				/* a source's total budget: delta in [0, 1) */
	PRIVACY_CONVERSION			/* a Gaussian calibration or an epsilon for a delta: delta in (0, 1) */
} PrivacyUse;

extern void privacy_check_epsilon(double epsilon, PrivacyUse use);
extern void privacy_check_delta(double delta, PrivacyUse use);
extern void privacy_check_rho(double rho, PrivacyUse use);

#endif
