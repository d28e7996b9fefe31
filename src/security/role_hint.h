/*
 * role_hint.h -- the dpmatrix role to ask for when a dpm function is denied (role_hint.c).
 */
#ifndef DPM_ROLE_HINT_H
#define DPM_ROLE_HINT_H

extern void role_hint_install(void);

#endif
