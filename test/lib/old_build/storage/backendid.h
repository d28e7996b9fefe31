/* storage/backendid.h, gone in PostgreSQL 17, for the old version test/upgrade.sh builds (compat.h) */
#include "storage/procnumber.h"
#define InvalidBackendId (-1)
#define MyBackendId (MyProcNumber == INVALID_PROC_NUMBER ? InvalidBackendId : MyProcNumber + 1)
