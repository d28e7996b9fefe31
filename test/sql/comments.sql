-- Every object of the extension explains itself in \df+, \dt+ and a BI tool's catalog browser:
-- no function, aggregate, table, view or type of schema dpm is without a comment.
SELECT kind, name FROM (
  SELECT 'function' AS kind, p.oid::regprocedure::text AS name, obj_description(p.oid, 'pg_proc') AS c
    FROM pg_proc p WHERE p.pronamespace = 'dpm'::regnamespace
  UNION ALL
  SELECT CASE c.relkind WHEN 'v' THEN 'view' ELSE 'table' END, c.oid::regclass::text, obj_description(c.oid, 'pg_class')
    FROM pg_class c WHERE c.relnamespace = 'dpm'::regnamespace AND c.relkind IN ('r', 'v', 'm', 'p')
  UNION ALL
  SELECT 'type', t.oid::regtype::text, obj_description(t.oid, 'pg_type')
    FROM pg_type t JOIN pg_class c ON c.oid = t.typrelid
   WHERE t.typnamespace = 'dpm'::regnamespace AND c.relkind = 'c'
) o WHERE c IS NULL OR c = '' ORDER BY 1, 2;
-- the public interface is exactly these functions (the README and doc/reference.md document each;
-- test/readme.sh checks that), each with a real sentence; everything else is in dpm_internal
SELECT p.proname AS public_function, p.pronargs AS args, length(obj_description(p.oid, 'pg_proc')) > 20 AS explained
  FROM pg_proc p WHERE p.pronamespace = 'dpm'::regnamespace ORDER BY 1, 2;
SELECT count(*) AS internal_without_comment
  FROM pg_proc p WHERE p.pronamespace = 'dpm_internal'::regnamespace
   AND coalesce(obj_description(p.oid, 'pg_proc'), '') = '';
-- the install script is the versioned one, ready for upgrade scripts
SELECT extversion FROM pg_extension WHERE extname = 'dpmatrix';
