/*
 * plain.h -- plain statements over a source answered privately (plain.c).
 */
#ifndef DPM_QUERY_PLAIN_H
#define DPM_QUERY_PLAIN_H

/* installs the parse analysis hook; called once, from _PG_init */
extern void query_plain_install(void);

#endif
