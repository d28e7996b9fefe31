/*
 * random.c -- secure random bits in blocks (random.h), and
 * dpm_internal.random_key.
 */
#include "postgres.h"

#include "fmgr.h"
#include "port.h"

#include "security/random.h"

#define RANDOM_BLOCK_SIZE	4096

static uint8 random_block[RANDOM_BLOCK_SIZE];
static int	random_pos = RANDOM_BLOCK_SIZE;

uint64
security_random_word(void)
{
	uint64		w;

	if (random_pos > RANDOM_BLOCK_SIZE - (int) sizeof(uint64))
	{
		if (!pg_strong_random(random_block, RANDOM_BLOCK_SIZE))
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("could not generate random values")));
		random_pos = 0;
	}
	memcpy(&w, random_block + random_pos, sizeof(w));
	random_pos += sizeof(w);
	return w;
}

/* dpm_internal.random_key(): 63 random bits from the secure generator, to pick rows at random */
PG_FUNCTION_INFO_V1(dpm_random_key);
Datum
dpm_random_key(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) (security_random_word() >> 1));
}
