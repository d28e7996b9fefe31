/*
 * pg_compat.h -- every difference between the PostgreSQL versions dpmatrix
 * builds against (15 to 18), and nowhere else.
 *
 * The code is written against PostgreSQL 18's names; for older versions this
 * header defines them in terms of what those versions have.  A file that
 * uses one of the names below includes this header after PostgreSQL's.
 * Nothing here changes behaviour: each definition gives the same value or
 * answer on every version (16 and 17 take the branch of the version that
 * introduced the name).
 */
#ifndef DPM_PG_COMPAT_H
#define DPM_PG_COMPAT_H

#if PG_VERSION_NUM >= 170000
#include "storage/procnumber.h"
#else
#include "storage/proc.h"

/*
 * 17 names a backend by its PGPROC's index in ProcGlobal->allProcs, counted
 * from 0: MyProcNumber.  Before, the same index was PGPROC.pgprocno (and
 * MyBackendId, counted from 1, was another numbering).  Regular backends and
 * background workers have the numbers 0 .. MaxBackends - 1 on every version.
 */
typedef int ProcNumber;
#define INVALID_PROC_NUMBER (-1)
#define MyProcNumber (MyProc != NULL ? MyProc->pgprocno : INVALID_PROC_NUMBER)

/* the shared transaction and OID counters, renamed in 17 */
#define TransamVariables ShmemVariableCache
#endif

/*
 * 18 marks a function that does not return before its declaration (C11's
 * _Noreturn) and removed pg_attribute_noreturn(), which went after it.
 */
#if PG_VERSION_NUM < 180000
#define pg_noreturn pg_attribute_noreturn()
#endif

/*
 * 18's parse analysis adds a range table entry for the grouping step
 * (RTE_GROUP, with the grouped expressions in groupexprs), which the select
 * list's grouped Vars point to.  Before, no entry has that kind and those
 * Vars point to the table (nodes/parsenodes.h first).
 */
#if PG_VERSION_NUM >= 180000
#define dpm_group_exprs(rte) ((rte)->groupexprs)
#else
#define RTE_GROUP ((RTEKind) -1)
#define dpm_group_exprs(rte) ((List *) NIL)
#endif

/*
 * The role a range table entry's privileges are checked as (InvalidOid: the
 * current user): 16 moved it from the entry to the query's RTEPermissionInfo
 * list.  The user includes parser/parse_relation.h.
 */
#if PG_VERSION_NUM >= 160000
#define pg_compat_rte_check_as_user(query, rte) \
	((rte)->perminfoindex != 0 ? getRTEPermissionInfo((query)->rteperminfos, (rte))->checkAsUser : InvalidOid)
#else
#define pg_compat_rte_check_as_user(query, rte) ((rte)->checkAsUser)
#endif

/*
 * 18's virtual generated columns are computed when a row is read; before,
 * attgenerated is never 'v' and the code that looks for them finds none.
 */
#if PG_VERSION_NUM < 180000
#define ATTRIBUTE_GENERATED_VIRTUAL 'v'
#endif

/*
 * Does the collation compare bytes (C, POSIX and their aliases)?  18 removed
 * lc_collate_is_c and asks the collation's locale; the user includes
 * utils/pg_locale.h.
 */
#if PG_VERSION_NUM >= 180000
#define pg_compat_collate_is_c(collid) (pg_newlocale_from_collation(collid)->collate_is_c)
#else
#define pg_compat_collate_is_c(collid) lc_collate_is_c(collid)
#endif

#endif
