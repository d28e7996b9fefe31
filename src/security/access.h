/*
 * access.h -- running SQL built from the catalog with the rights of the role
 * that wrote it (see access.c).
 */
#ifndef DPM_API_ACCESS_H
#define DPM_API_ACCESS_H

typedef struct AsRole
{
	Oid			userid;
	int			sec_context;
	int			nestlevel;
} AsRole;

/*
 * Act as role, under SECURITY_RESTRICTED_OPERATION and search_path
 * pg_catalog, pg_temp, as a materialized view refresh runs as the view's
 * owner; security_as_role_end undoes it (an error undoes it too).
 */
extern void security_as_role_begin(AsRole *saved, Oid role);

/*
 * Act as the extension's owner, with search_path pg_catalog, pg_temp, as a
 * SECURITY DEFINER function runs (not restricted: its functions may write the
 * catalog); security_as_role_end undoes it too.
 */
extern void security_as_owner_begin(AsRole *saved, Oid owner);
extern void security_as_role_end(const AsRole *saved);

/*
 * Milliseconds this backend has spent in dpm_internal.exec_as's queries, the
 * reads of a source: a release worker reports them as its release's scan.
 */
extern double security_exec_as_ms;

#endif
