-- Roles.  Cluster-wide, so created only if missing (another database may already have them);
-- they outlive DROP EXTENSION.  dpm_admin: custodians; dpm_analyst: analysts.  Grant them to
-- login roles; every right they carry is granted in 99_grants.sql.

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'dpm_analyst') THEN
    CREATE ROLE dpm_analyst NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'dpm_admin') THEN
    CREATE ROLE dpm_admin NOLOGIN;
  END IF;
  IF NOT pg_catalog.pg_has_role('dpm_admin', 'dpm_analyst', 'MEMBER') THEN
    GRANT dpm_analyst TO dpm_admin;
  END IF;
END
$$;

-- The role the session acts as outside any SECURITY DEFINER function (login role or SET ROLE):
-- whom catalog rows are attributed to and whose privileges custodian functions check.
CREATE OR REPLACE FUNCTION dpm_internal.invoker() RETURNS regrole
AS 'MODULE_PATHNAME', 'dpm_invoker' LANGUAGE C STABLE PARALLEL SAFE;

-- The dpm functions and the role each is granted to, as the hint on "permission denied for
-- function" names it (src/security/role_hint.c); test/sql/security.sql compares it with the grants.
CREATE OR REPLACE FUNCTION dpm_internal.role_hints() RETURNS TABLE(function text, role text)
AS 'MODULE_PATHNAME', 'dpm_role_hints' LANGUAGE C STABLE;
