-- Privacy domains on columns (issue 44, item 1): a custodian states once per column what analysts
-- may group and filter a source by, on a grid (values, numeric bins of a finest width, calendar
-- bins, booleans), and which columns are measures; checked as a domain's attributes are, kept in
-- dpm.column_domains, which analysts read.  Nothing is charged.
\set SHOW_CONTEXT never
CREATE TABLE cd_people AS
  SELECT g AS id, CASE WHEN g % 2 = 0 THEN 'F' ELSE 'M' END AS sex, g % 90 AS age,
         date '2024-01-01' + g % 366 AS joined, g % 3 = 0 AS member, (g % 50)::numeric / 10 AS rating,
         'x' || g AS note
    FROM generate_series(1, 500) g;
CREATE ROLE regress_cd_custodian IN ROLE dpm_admin;
CREATE ROLE regress_cd_analyst IN ROLE dpm_analyst;
GRANT SELECT ON cd_people TO regress_cd_custodian;
SET ROLE regress_cd_custodian;
SET client_min_messages = warning;
SELECT dpm.register_source('cd_people', 'id', 1, epsilon => 1);
RESET client_min_messages;
SELECT count(*) AS charges_before FROM dpm.ledger \gset

-- one call per source: values, a numeric range of width 5 (18 bins), calendar months (12), a
-- boolean, and a measure named after its column
SELECT * FROM dpm.set_column_domains('cd_people', '[
  {"column": "sex", "values": ["F", "M"]},
  {"column": "age", "bins": {"min": 0, "max": 90, "width": 5}},
  {"column": "joined", "bins": {"min": "2024-01-01", "max": "2025-01-01", "width": "1 month"}},
  {"column": "member", "values": [true, false]},
  {"column": "rating", "measure": {"lo": 0, "hi": 5}}]');
SELECT column_name, kind, bins, attribute FROM dpm.column_domains ORDER BY column_name;
SELECT name, expression, lo, hi FROM dpm.measures WHERE name = 'rating';
-- declared again: replaced (age in decades), the others kept; the same measure again is no change
SELECT * FROM dpm.set_column_domains('cd_people', '[{"column": "age", "bins": {"min": 0, "max": 90, "width": 10}},
                                                     {"column": "rating", "measure": {"lo": 0, "hi": 5}}]');
SELECT column_name, bins FROM dpm.column_domains ORDER BY column_name;

-- an existing domain's grid attributes are taken; an expression or conditions are named, not taken
SELECT dpm.create_domain('cd_dom', 'cd_people',
  '[{"name": "sex", "column": "sex", "values": ["F", "M"]},
    {"name": "decade", "expression": "age / 10", "values": [0, 1, 2, 3, 4, 5, 6, 7, 8]},
    {"name": "member", "column": "member", "bins": [{"label": "yes", "condition": "member"}, {"label": "no", "condition": "NOT member"}]}]');
SELECT dpm.drop_column_domain('cd_people', 'sex');
SELECT * FROM dpm.set_column_domains('cd_people', from_domain => 'cd_dom');
SELECT column_name, kind, bins FROM dpm.column_domains ORDER BY column_name;

-- refused, with what is supported said, and nothing changed
SELECT count(*) AS declared_before FROM dpm.column_domains \gset
SELECT * FROM dpm.set_column_domains('cd_people', '[{"column": "nope", "values": [1]}]');
SELECT * FROM dpm.set_column_domains('cd_people', '[{"column": "age", "expression": "age / 2", "values": [1]}]');
SELECT * FROM dpm.set_column_domains('cd_people', '[{"column": "age", "bins": [{"lo": 0, "hi": 18}]}]');
SELECT * FROM dpm.set_column_domains('cd_people', '[{"column": "age", "bins": {"min": 0, "max": 90}}]');
SELECT * FROM dpm.set_column_domains('cd_people', '[{"column": "age"}]');
SELECT * FROM dpm.set_column_domains('cd_people', '[{"column": "age", "values": [1], "bins": {"min": 0, "max": 9, "width": 1}}]');
SELECT * FROM dpm.set_column_domains('cd_people', '["age"]');
SELECT * FROM dpm.set_column_domains('cd_people', '{"column": "age"}');
SELECT * FROM dpm.set_column_domains('cd_people', '[]');
SELECT * FROM dpm.set_column_domains('cd_people');
-- a value its column cannot hold, named with the column and the value (checked as create_domain does)
SELECT * FROM dpm.set_column_domains('cd_people', '[{"column": "note", "values": ["x1"]}, {"column": "age", "values": [1, "old"]}]');
SELECT * FROM dpm.set_column_domains('cd_people', '[{"column": "joined", "bins": {"min": "2024-01-01", "max": "2025-01-01", "width": "1 fortnight"}}]');
SELECT * FROM dpm.set_column_domains('cd_people', '[{"column": "rating", "measure": {"lo": 0, "hi": 10}}]');
SELECT * FROM dpm.set_column_domains('cd_people', '[{"column": "rating", "measure": {"lo": 0}}]');
SELECT * FROM dpm.set_column_domains('cd_people', '[{"column": "rating", "measure": {"lo": null, "hi": 5}}]');
SELECT * FROM dpm.set_column_domains('cd_people', '[{"column": "rating", "measure": {"lo": "NaN", "hi": 5}}]');
SELECT * FROM dpm.set_column_domains(NULL, '[{"column": "sex", "values": ["F"]}]');
SELECT dpm.drop_column_domain('cd_people', NULL);
SELECT * FROM dpm.set_column_domains('cd_people', from_domain => 'nope');
SELECT dpm.drop_column_domain('cd_people', 'nope');
-- all or nothing: the first column of the failed call above (note) was not kept
SELECT count(*) = :declared_before AS nothing_changed FROM dpm.column_domains;
RESET ROLE;

-- analysts read the declarations, and may not change them
SET ROLE regress_cd_analyst;
SELECT column_name, kind FROM dpm.column_domains WHERE column_name = 'age';
SELECT * FROM dpm.set_column_domains('cd_people', '[{"column": "sex", "values": ["F"]}]');
SELECT dpm.drop_column_domain('cd_people', 'age');
RESET ROLE;
-- a custodian who may not read the table may not declare its columns either
CREATE ROLE regress_cd_custodian2 IN ROLE dpm_admin;
SET ROLE regress_cd_custodian2;
SELECT * FROM dpm.set_column_domains('cd_people', '[{"column": "sex", "values": ["F"]}]');
RESET ROLE;
SELECT count(*) = :charges_before AS nothing_charged FROM dpm.ledger;
