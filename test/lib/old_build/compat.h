/*
 * compat.h -- test/upgrade.sh builds the old version it updates from (0.1) from its own source,
 * written for PostgreSQL 15, against the PostgreSQL under test.  On 17 and later that source
 * names what those versions renamed or removed; these definitions (forced in with -include, this
 * directory on the include path for storage/backendid.h) give it the new names, for that build
 * only.  dpmatrix itself keeps every version difference in src/pg_compat.h.
 */
#include "pg_config.h"		/* PG_VERSION_NUM: this comes before postgres.h */

#if PG_VERSION_NUM >= 170000
#define ShmemVariableCache TransamVariables
#define pgprocno vxid.procNumber
#endif
#if PG_VERSION_NUM >= 180000
#define pg_attribute_noreturn() __attribute__((noreturn))
#define INT64_MODIFIER "l"
#endif
