/*
 * errors.h -- how dpmatrix's errors reach the user.
 */
#ifndef DPM_ERRORS_H
#define DPM_ERRORS_H

#include "postgres.h"

extern bool errors_internal_context;

extern void errors_install(void);
extern char *errors_user_context(const char *context);

#endif
