-- dpmatrix 0.1 -> 0.2: the internal functions leave the public schema dpm for dpm_internal,
-- without their leading underscore.  Moved, not dropped and re-created, so that what refers to
-- them by oid (column defaults calling _invoker, the aggregate's support functions) still does.
-- The parts sql/01_* .. sql/99_* follow this file in the built update script and re-create every
-- function with its 0.2 body.
\echo Use "ALTER EXTENSION dpmatrix UPDATE TO '0.2'" to load this file. \quit

CREATE SCHEMA dpm_internal;
COMMENT ON SCHEMA dpm_internal IS 'dpmatrix internals: called by the functions of schema dpm; not a stable interface';

DO $$
DECLARE
  f oid;
  newname text;
BEGIN
  FOR f, newname IN
    SELECT p.oid,
           CASE p.proname WHEN '_strategy' THEN 'strategy_by_id' WHEN '_explain' THEN 'dry_run'
                          ELSE pg_catalog.ltrim(p.proname, '_') END
      FROM pg_catalog.pg_proc p
      JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_proc'::regclass AND d.objid = p.oid
                                 AND d.refclassid = 'pg_catalog.pg_extension'::regclass AND d.deptype = 'e'
      JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'dpmatrix'
     WHERE p.pronamespace = 'dpm'::regnamespace
       AND (p.proname ~ '^_' OR p.proname ~ '^histogram_.*fn$')
  LOOP
    EXECUTE pg_catalog.format('ALTER FUNCTION %s SET SCHEMA dpm_internal', f::regprocedure);
    IF newname <> (SELECT proname FROM pg_catalog.pg_proc WHERE oid = f) THEN
      EXECUTE pg_catalog.format('ALTER FUNCTION %s RENAME TO %I', f::regprocedure, newname);
    END IF;
  END LOOP;
END
$$;

-- written in C now, with a fourth argument (what the parameters are for)
DROP FUNCTION dpm_internal.check_privacy_args(float8, float8, float8);

-- the functions of a workload spec take their domain as one value (a dpm.domains row) instead of
-- five arrays: their new forms are created by the parts that follow
DO $$
DECLARE
  f regprocedure;
BEGIN
  FOR f IN SELECT p.oid FROM pg_catalog.pg_proc p
            WHERE p.pronamespace = 'dpm_internal'::regnamespace
              AND p.proname IN ('workload_matrix', 'workload_gram', 'hdmm', 'hdmm_profile', 'hdmm_reconstruct',
                                'hdmm_mechanism', 'spec_term_rows', 'spec_svd_bound', 'spec_matvec')
              AND p.proargtypes[1] = 'pg_catalog.text[]'::pg_catalog.regtype LOOP
    EXECUTE pg_catalog.format('DROP FUNCTION %s', f);
  END LOOP;
END
$$;
