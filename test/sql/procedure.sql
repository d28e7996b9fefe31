-- The publication job of examples/publication_job.sql: a PROCEDURE that answers several
-- workloads and commits between them.  With budget for two of three, the first two are
-- published and charged exactly once, and the third is refused without a charge.
\set SHOW_CONTEXT never
SET client_min_messages = warning;
CREATE TABLE job_people AS SELECT g AS id, g % 6 AS kind FROM generate_series(1, 600) g;
SELECT dpm.register_source('job_people', epsilon => 2.5);
SELECT dpm.create_domain('job_kind', 'job_people', '[{"name": "kind", "values": [0,1,2,3,4,5]}]');
SELECT dpm.create_workload('job_cells', 'job_kind', 'Identity(kind)');
SELECT dpm.create_workload('job_ranges', 'job_kind', 'AllRange(kind)');
SELECT dpm.create_workload('job_total', 'job_kind', 'Total(kind)');
\i examples/publication_job.sql
SET client_min_messages = notice;
CALL publish_nightly(ARRAY['job_cells', 'job_ranges', 'job_total'], 1);
SET client_min_messages = warning;
SELECT workload, count(*) AS rows, count(DISTINCT release_id) AS releases FROM published_counts GROUP BY 1 ORDER BY 1;
SELECT w.name, count(l.*) AS charges, sum(l.epsilon) AS epsilon
  FROM dpm.workloads w JOIN dpm.releases r ON r.workload_id = w.id JOIN dpm.ledger l ON l.release_id = r.id
 WHERE w.name LIKE 'job\_%' GROUP BY 1 ORDER BY 1;
SELECT epsilon_spent, epsilon_remaining FROM dpm.budget('job_people');
-- what was published is the release, row for row
SELECT bool_and(p.answer = r.answer AND p.ci_low = r.ci_low) AS as_released
  FROM published_counts p, LATERAL dpm.release(p.release_id) r WHERE r.query = p.query;
-- inside a transaction block the procedure cannot commit, and says so before any charge
BEGIN;
CALL publish_nightly(ARRAY['job_total'], 0.1);
ROLLBACK;
SELECT epsilon_spent FROM dpm.budget('job_people');
RESET client_min_messages;
