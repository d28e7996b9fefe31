/*
 * random.h -- the secure random bits every draw of dpmatrix takes: the
 * mechanisms' noise (mechanism/sampler.c) and the rows a privacy unit keeps
 * (dpm_internal.random_key, the capped_groups aggregate).
 */
#ifndef DPM_SECURITY_RANDOM_H
#define DPM_SECURITY_RANDOM_H

#include "postgres.h"

/*
 * 64 fresh bits of pg_strong_random (OpenSSL's CSPRNG, or /dev/urandom),
 * read in 4 kB blocks: one call per word would cost about a microsecond,
 * two seconds for the keys of a million rows.  The same bits are never
 * returned twice.  The block is filled in the process that draws (a
 * backend, a worker), never in the postmaster, so no two processes share
 * one.
 */
extern uint64 security_random_word(void);

#endif
