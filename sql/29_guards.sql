-- Guards on the relations sources read.  The catalog holds a source by oid and its domains as SQL
-- over its columns: DDL that would leave them pointing at nothing fails now, saying what to do,
-- rather than a release failing later.  Renaming a source's table is harmless (the oid follows).

-- DROP of a registered source's relation (DROP TABLE, DROP VIEW, DROP SCHEMA ... CASCADE, DROP
-- OWNED) fails; an unregistered source whose table goes keeps its name and loses the oid, which a
-- new relation could take.
CREATE OR REPLACE FUNCTION dpm_internal.guard_drop() RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  o record;
  sid int;
BEGIN
  FOR o IN SELECT d.objid, d.object_identity FROM pg_event_trigger_dropped_objects() d
            WHERE d.classid = 'pg_class'::regclass AND d.objsubid = 0 LOOP
    SELECT s.id INTO sid FROM dpm.sources s WHERE s.relation = o.objid AND s.unregistered_at IS NULL;
    IF FOUND THEN
      RAISE EXCEPTION 'cannot drop % because it is dpmatrix source %', o.object_identity, sid
        USING ERRCODE = 'dependent_objects_still_exist',
              HINT = format('A custodian unregisters it first (SELECT dpm.unregister_source(%L)); its releases and ledger are kept.',
                            o.object_identity);
    END IF;
    UPDATE dpm.sources s SET relation = NULL, relation_name = o.object_identity WHERE s.relation = o.objid;
  END LOOP;
END
$$;

-- ALTER of a registered source's relation (columns renamed, dropped or retyped, a view
-- redefined) fails if a live domain over it no longer plans, or could now fail on some row, or
-- the privacy unit column is gone or can no longer be compared (dpm_internal.check_privacy_unit).
CREATE OR REPLACE FUNCTION dpm_internal.guard_alter() RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  src dpm.sources;
  dom dpm.domains;
  msg text;
BEGIN
  FOR src IN SELECT DISTINCT ON (s.id) s.* FROM pg_event_trigger_ddl_commands() c
               JOIN dpm.sources s ON s.relation = c.objid AND s.unregistered_at IS NULL
              WHERE c.classid = 'pg_class'::regclass LOOP
    IF src.privacy_unit IS NOT NULL AND NOT dpm_internal.has_column(src.relation, src.privacy_unit) THEN
      RAISE EXCEPTION 'this change to % removes column "%", the privacy unit of dpmatrix source %', src.relation,
        src.privacy_unit, src.id
        USING ERRCODE = 'dependent_objects_still_exist',
              HINT = 'Undo it, or have a custodian unregister the source first (dpm.unregister_source).';
    END IF;
    -- a unit column retyped to one the capping cannot compare (json, point, a nondeterministic collation)
    PERFORM dpm_internal.check_source_unit(src);
    PERFORM dpm_internal.check_periods(src, src.registered_by);
    FOR dom IN SELECT * FROM dpm.domains d WHERE d.source_id = src.id AND d.dropped_at IS NULL ORDER BY d.id LOOP
      -- a creator who can no longer read the source is told at its next release
      CONTINUE WHEN NOT has_table_privilege(dom.created_by, src.relation, 'SELECT');
      BEGIN
        PERFORM dpm_internal.check_domain(dom, src);
      EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT;
        RAISE EXCEPTION 'this change to % breaks dpmatrix domain "%": %', src.relation, dom.name, msg
          USING ERRCODE = 'dependent_objects_still_exist',
                HINT = format('Undo it, or have a custodian drop the domain first (SELECT dpm.drop_domain(%L)) and define it again.',
                              dom.name);
      END;
    END LOOP;
    PERFORM dpm_internal.check_source(src.registered_by, src.relation);   -- a source without domains too
  END LOOP;
END
$$;

DROP EVENT TRIGGER IF EXISTS dpm_guard_drop;
CREATE EVENT TRIGGER dpm_guard_drop ON sql_drop EXECUTE FUNCTION dpm_internal.guard_drop();
DROP EVENT TRIGGER IF EXISTS dpm_guard_alter;
CREATE EVENT TRIGGER dpm_guard_alter ON ddl_command_end
  WHEN TAG IN ('ALTER TABLE', 'ALTER VIEW', 'ALTER MATERIALIZED VIEW', 'ALTER FOREIGN TABLE', 'CREATE VIEW')
  EXECUTE FUNCTION dpm_internal.guard_alter();
