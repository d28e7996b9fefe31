-- dpmatrix 0.2 -> 0.3, after the parts: what the step sql/updates/0.2--0.3.sql leaves to this
-- version's functions.
--
-- Each publication's view read the answers' rows, which 0.3 keeps in blocks: re-made on the
-- blocks (dpm_internal.publication_view, with the same columns: its readers' grants stay), then
-- the rows go.  PostgreSQL lets an update script replace only the extension's own objects, so
-- each view is the extension's for that moment.
DO $$
DECLARE
  p record;
BEGIN
  FOR p IN SELECT x.view_name, d FROM dpm.publications x JOIN dpm.domains d ON d.id = x.domain_id
            WHERE to_regclass(x.view_name) IS NOT NULL LOOP
    EXECUTE format('ALTER EXTENSION dpmatrix ADD VIEW %s', p.view_name);
    PERFORM dpm_internal.publication_view(p.view_name, p.d);
    EXECUTE format('ALTER EXTENSION dpmatrix DROP VIEW %s', p.view_name);
  END LOOP;
END
$$;
DROP TABLE IF EXISTS dpm_internal.release_answer_rows;
