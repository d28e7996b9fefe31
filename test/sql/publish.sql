-- dpm.publish: a release as a plain view for a reporting role (the ODBC client's view of it is
-- test/odbc.sh).  One column per attribute, republishing under the same name, and refusals.
\set SHOW_CONTEXT never
SET client_min_messages = warning;
CREATE TABLE pub_people AS
  SELECT g AS id, g % 4 AS kind, CASE WHEN g % 2 = 0 THEN 'F' ELSE 'M' END AS sex FROM generate_series(1, 400) g;
SELECT dpm.register_source('pub_people', epsilon => 10);
SELECT dpm.create_domain('pub_dom', 'pub_people', '[{"name": "kind", "values": [0,1,2,3]}, {"name": "sex", "values": ["F","M"]}]');
SELECT dpm.create_workload('pub_w', 'pub_dom', 'Prefix(kind) * Identity(sex) + Total(kind)');
CREATE TEMP TABLE pub_a AS SELECT * FROM dpm.answer('pub_w', epsilon => 1, method => 'identity');
SELECT max(id) AS rel1 FROM dpm.releases \gset
CREATE SCHEMA pub_reports;
CREATE ROLE regress_pub_reader;
GRANT USAGE ON SCHEMA pub_reports TO regress_pub_reader;
SELECT dpm.publish(:rel1, 'pub_reports.kinds', 'regress_pub_reader');
SELECT query, label, kind, kind_from, kind_to, sex, sex_from, sex_to FROM pub_reports.kinds ORDER BY query;
-- the view shows the stored release exactly
SELECT bool_and(v.answer = a.answer AND v.stderr = a.stderr AND v.ci_low = a.ci_low AND v.ci_high = a.ci_high
                AND v.release_id = :rel1) AS same_as_release
  FROM pub_reports.kinds v JOIN pub_a a USING (query);
-- the reader sees the view and nothing else
SET ROLE regress_pub_reader;
SELECT count(*) AS rows FROM pub_reports.kinds WHERE sex = 'F';
SELECT count(*) FROM dpm.release_answers;
SELECT * FROM dpm.release(:rel1);
RESET ROLE;
-- republishing switches the same view to a newer release
CREATE TEMP TABLE pub_b AS SELECT * FROM dpm.answer('pub_w', epsilon => 1, method => 'identity');
SELECT max(id) AS rel2 FROM dpm.releases \gset
SELECT dpm.publish(:rel2, 'pub_reports.kinds');
SELECT count(DISTINCT release_id) = 1 AND min(release_id) = :rel2 AS newer_release FROM pub_reports.kinds;
SELECT view_name, release_id = :rel2 AS current FROM dpm.publications;
-- which term of the spec each row comes from (issue 22): Identity(kind) + Prefix(kind) give two rows
-- labelled kind = 0 with the same answer, which a dashboard tells apart by term; the split of a spec
-- into its terms ignores + inside parentheses, brackets and quotes
SELECT dpm.create_domain('pub_dom4', 'pub_people', '[{"name": "kind", "values": [0,1,2,3]}]');
SELECT dpm.create_workload('pub_w4', 'pub_dom4', 'Identity(kind) + Prefix(kind) + 2 * Ranges(kind, ''0'':''1'', ''2'':''3'')');
CREATE TEMP TABLE pub_t AS SELECT * FROM dpm.answer('pub_w4', epsilon => 1, method => 'identity');
SELECT dpm.publish((SELECT max(id) FROM dpm.releases), 'pub_reports.terms');
SELECT query, label, term, term_spec, kind FROM pub_reports.terms ORDER BY query;
SELECT count(*) AS rows, count(DISTINCT term) AS terms FROM pub_reports.terms WHERE label = 'kind = 0';
SELECT dpm.unpublish('pub_reports.terms');
SELECT * FROM dpm_internal.spec_summands('Marginal(a, "b+c") + Ranges(x, [0, 1e+3), ''a+'') +Total(x)');
-- columns a BI tool charts by type (issue 45): a key as its column's type, numeric and calendar
-- bins with their run's typed bounds (<a>_lo, <a>_hi: the first bin's lower edge, the last's upper)
ALTER TABLE pub_people ADD COLUMN joined date, ADD COLUMN score numeric;
UPDATE pub_people SET joined = date '2024-01-01' + id % 366, score = id % 100;
SELECT dpm.create_domain('pub_dom5', 'pub_people', '[{"name": "kind", "values": [0,1,2,3]},
  {"name": "joined", "bins": {"min": "2024-01-01", "max": "2025-01-01", "width": "3 months"}},
  {"name": "score", "bins": {"min": 0, "max": 100, "width": 25}}]');
SELECT dpm.create_workload('pub_w5', 'pub_dom5', 'Identity(joined) + Prefix(score) + Identity(kind)');
CREATE TEMP TABLE pub_e AS SELECT * FROM dpm.answer('pub_w5', epsilon => 1, method => 'identity');
SELECT dpm.publish((SELECT max(id) FROM dpm.releases), 'pub_reports.typed');
SELECT attname, format_type(atttypid, atttypmod) AS type FROM pg_attribute
 WHERE attrelid = 'pub_reports.typed'::regclass AND attname ~ '^(kind|joined|score)' ORDER BY attnum;
SELECT query, label, joined, joined_lo, joined_hi, score_from, score_to, score_lo, score_hi, kind
  FROM pub_reports.typed ORDER BY query;
SELECT dpm.unpublish('pub_reports.typed');
-- each marginal of Marginals(k) a term of its own, in the workload's order: every row's label
-- conditions on exactly its term's attributes
SELECT dpm.create_workload('pub_w6', 'pub_dom5', 'Marginals(2) + Total(kind) + 3 * Marginals(1, score, kind)');
CREATE TEMP TABLE pub_f AS SELECT * FROM dpm.answer('pub_w6', epsilon => 1, method => 'identity');
SELECT dpm.publish((SELECT max(id) FROM dpm.releases), 'pub_reports.marginals');
SELECT term, term_spec, count(*) AS rows,
       bool_and((kind IS NOT NULL) = (term_spec LIKE '%Marginal(%kind%') AND (joined IS NOT NULL) = (term_spec LIKE '%Marginal(%joined%')
                AND (score IS NOT NULL) = (term_spec LIKE '%Marginal(%score%')) AS labels_match
  FROM pub_reports.marginals GROUP BY term, term_spec ORDER BY term;
SELECT dpm.unpublish('pub_reports.marginals');
-- refusals: unknown release, a name taken by another relation, a view of another domain, an
-- attribute named like a fixed column, a schema the caller may not create in, unpublishing
-- what was not published
SELECT dpm.publish(999999, 'pub_reports.nothing');
CREATE TABLE pub_reports.taken (x int);
SELECT dpm.publish(:rel1, 'pub_reports.taken');
SELECT dpm.create_domain('pub_dom2', 'pub_people', '[{"name": "kind", "values": [0,1,2,3]}]');
SELECT dpm.create_workload('pub_w2', 'pub_dom2', 'Identity(kind)');
CREATE TEMP TABLE pub_c AS SELECT * FROM dpm.answer('pub_w2', epsilon => 1, method => 'identity');
SELECT dpm.publish((SELECT max(id) FROM dpm.releases), 'pub_reports.kinds');
SELECT dpm.publish(:rel1, 'a.b.c');
SELECT dpm.create_domain('pub_dom3', 'pub_people', '[{"name": "answer", "column": "kind", "values": [0,1,2,3]}]');
SELECT dpm.create_workload('pub_w3', 'pub_dom3', 'Identity(answer)');
CREATE TEMP TABLE pub_d AS SELECT * FROM dpm.answer('pub_w3', epsilon => 1, method => 'identity');
SELECT dpm.publish((SELECT max(id) FROM dpm.releases), 'pub_reports.clash');
CREATE ROLE regress_pub_custodian IN ROLE dpm_admin;
GRANT SELECT ON pub_people TO regress_pub_custodian;
SET ROLE regress_pub_custodian;
SELECT dpm.publish(:rel1, 'pub_reports.mine');
SELECT dpm.unpublish('pub_reports.kinds');
RESET ROLE;
SELECT dpm.unpublish('pub_reports.never');
SELECT dpm.unpublish('pub_reports.kinds');
SELECT to_regclass('pub_reports.kinds') AS dropped, (SELECT count(*) FROM dpm.publications) AS publications;
REVOKE SELECT ON pub_people FROM regress_pub_custodian;
DROP ROLE regress_pub_custodian;
REVOKE USAGE ON SCHEMA pub_reports FROM regress_pub_reader;
DROP ROLE regress_pub_reader;
RESET client_min_messages;
