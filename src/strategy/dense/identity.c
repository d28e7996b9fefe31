/*
 * identity.c -- the identity strategy: measure every cell once.
 * Sensitivity 1, spherical error profile (Li et al., PODS 2010, Example 6).
 */
#include "postgres.h"

#include "strategy/dense/fixed.h"

Mat *
strategy_identity(int n)
{
	return mat_identity(n);
}
