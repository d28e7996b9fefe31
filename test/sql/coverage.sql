-- What a domain covers of its source (issue 22): at create_domain the custodian is told how many
-- rows fall in no bin, per attribute, and which bins are empty; dpm.domain_coverage says it again
-- at any time.  Custodians who may read the table only: analysts never see these counts.
\set SHOW_CONTEXT never
-- values are compared exactly: 'ca' does not match 'CA'; NULLs fall in no bin; ages 20 .. 69
CREATE TABLE cov_people AS
  SELECT g AS id, CASE g % 3 WHEN 0 THEN 'CA' WHEN 1 THEN 'TX' END AS st, 20 + g % 50 AS age
    FROM generate_series(1, 300) g;
CREATE ROLE regress_cov_custodian IN ROLE dpm_admin;
CREATE ROLE regress_cov_custodian2 IN ROLE dpm_admin;   -- may not read the table
CREATE ROLE regress_cov_analyst IN ROLE dpm_analyst;
GRANT SELECT ON cov_people TO regress_cov_custodian;
SET ROLE regress_cov_custodian;
SET client_min_messages = warning;
SELECT dpm.register_source('cov_people', 'id', 1, epsilon => 1);
RESET client_min_messages;
-- a NOTICE: every row is outside attribute st (lower case), and its bins are empty
SELECT dpm.create_domain('cov_lower', 'cov_people',
  '[{"name": "st", "values": ["ca", "tx"]}, {"name": "age", "bins": {"min": 0, "max": 100, "width": 10}}]');
-- the exact counts: 100 NULLs and 200 rows of other values for st; 5 empty decades of age
SELECT * FROM dpm.domain_coverage('cov_lower');
-- with the values as stored, only the NULLs are outside
SELECT dpm.create_domain('cov_upper', 'cov_people',
  '[{"name": "st", "values": ["CA", "TX"]}, {"name": "age", "bins": {"min": 20, "max": 70, "width": 10}}]');
SELECT * FROM dpm.domain_coverage('cov_upper');
-- every row in a bin: no NOTICE
SELECT dpm.create_domain('cov_all', 'cov_people', '[{"name": "age", "bins": {"min": 0, "max": 100, "width": 50}}]');
SELECT * FROM dpm.domain_coverage('cov_all');
-- a total says what the domain's bins cover, from their definition (never from the data, which
-- an analyst's label must not reveal): listed values and bounded ranges leave values out; bins
-- over every number do not
SELECT dpm.create_domain('cov_open', 'cov_people',
  '[{"name": "age", "bins": [{"label": "young", "hi": 40}, {"label": "old", "lo": 40}]}]');
SELECT dpm.create_workload('cov_t_upper', 'cov_upper', 'Total(st) + Identity(st)');
SELECT dpm.create_workload('cov_t_all', 'cov_all', 'Total(age)');
SELECT dpm.create_workload('cov_t_open', 'cov_open', 'Total(age) + Identity(age)');
SELECT label, answer FROM dpm.exact_answers('cov_t_upper')
UNION ALL SELECT label, answer FROM dpm.exact_answers('cov_t_all')
UNION ALL SELECT label, answer FROM dpm.exact_answers('cov_t_open');
-- the counts follow the table
RESET ROLE;
INSERT INTO cov_people VALUES (301, 'CA', 150);
SET ROLE regress_cov_custodian;
SELECT attribute, rows, rows_in_no_bin FROM dpm.domain_coverage('cov_all');
RESET ROLE;

-- refused: an analyst, a custodian who may not read the table, an unknown domain
SET ROLE regress_cov_analyst;
SELECT * FROM dpm.domain_coverage('cov_lower');
SET ROLE regress_cov_custodian2;
SELECT * FROM dpm.domain_coverage('cov_lower');
RESET ROLE;
SELECT * FROM dpm.domain_coverage('no_such_domain');
SELECT * FROM dpm.domain_coverage(NULL);

DROP OWNED BY regress_cov_custodian;
DROP ROLE regress_cov_custodian, regress_cov_custodian2, regress_cov_analyst;

-- a source whose table was dropped: every answer says so plainly, before anything is charged
CREATE TABLE cov_gone AS SELECT g AS id, g % 3 AS k FROM generate_series(1, 30) g;
SET client_min_messages = warning;
SELECT dpm.register_source('cov_gone', 'id', 1, epsilon => 5);
SELECT dpm.create_domain('cov_gone_d', 'cov_gone', '[{"name": "k", "values": [0, 1, 2]}]');
SELECT dpm.create_workload('cov_gone_w', 'cov_gone_d', 'Identity(k)');
RESET client_min_messages;
SELECT s.id AS gone_id FROM dpm.sources s WHERE s.relation = 'cov_gone'::regclass \gset
-- past the guard that refuses it (test/sql/lifecycle.sql): as a replica applying a drop would
SET session_replication_role = replica;
DROP TABLE cov_gone;
RESET session_replication_role;
\set VERBOSITY terse
SELECT * FROM dpm.answer('cov_gone_w', epsilon => 1);
SELECT * FROM dpm.explain('cov_gone_w', epsilon => 1);
SELECT * FROM dpm.exact_answers('cov_gone_w');
SELECT * FROM dpm.domain_coverage('cov_gone_d');
\set VERBOSITY default
SELECT count(*) AS charges FROM dpm.ledger WHERE source_id = :gone_id;
