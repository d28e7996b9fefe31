-- demo.sql -- dpmatrix end to end on a sample table; run by scripts/demo.sh on a throw-away
-- cluster (psql -X -v ON_ERROR_STOP=1 -f scripts/demo.sql).  Generates 100,000 people, answers
-- all age ranges by sex with epsilon = 1, and prints the private answers with their standard
-- errors beside the true values.
\set ON_ERROR_STOP on
\pset footer off
SET client_min_messages = warning;

\echo
\echo '== a sample table: 100,000 people (ages skewed young), reproducible with setseed'
SELECT setseed(0.25) \g /dev/null
CREATE TABLE people AS
SELECT i AS id,
       least(99, floor(100 * (1 - sqrt(random()))))::int AS age,
       CASE WHEN random() < 0.51 THEN 'F' ELSE 'M' END AS sex,
       (ARRAY['north', 'south', 'east', 'west'])[1 + floor(random() * 4)::int] AS region
  FROM generate_series(1, 100000) AS i;

\echo
\echo '== the custodian registers the table, defines the cells, and an analyst defines the queries'
\set ECHO queries
CREATE EXTENSION dpmatrix;
SELECT dpm.register_source('people'::regclass, epsilon => 10);
SELECT dpm.create_domain('age_sex', 'people'::regclass,
  '[{"name": "age", "column": "age", "bins": {"min": 0, "max": 100, "width": 10}},
    {"name": "sex", "column": "sex", "values": ["F", "M"]}]') AS cells;
SELECT dpm.create_workload('ranges', 'age_sex', 'AllRange(age) * Identity(sex) + Total(age)') AS queries;
\set ECHO none

\echo
\echo '== one release: epsilon 1 of the budget of 10, the best strategy (auto), Laplace noise'
\set ECHO queries
CREATE TEMP TABLE private AS
SELECT * FROM dpm.answer('ranges', epsilon => 1.0);
\set ECHO none
-- the custodian's view: the true answers, which analysts never see
CREATE TEMP TABLE truth AS SELECT * FROM dpm.exact_answers('ranges');

\echo
\echo '== the first 14 queries and the total: private answer, standard error, 95% interval, true value'
SELECT p.query,
       p.label,
       round(p.answer::numeric, 1) AS private_answer,
       round(p.stderr::numeric, 1) AS stderr,
       round(p.ci_low::numeric, 1) AS ci_low,
       round(p.ci_high::numeric, 1) AS ci_high,
       t.answer::bigint AS true_value,
       round((p.answer - t.answer)::numeric, 1) AS error
  FROM private p JOIN truth t USING (query)
 WHERE p.query <= 14 OR p.query = (SELECT max(query) FROM private)
 ORDER BY p.query;

\echo
\echo '== all queries: the root-mean-square error against the root-mean-square standard error'
SELECT count(*) AS queries,
       round(sqrt(avg((p.answer - t.answer) ^ 2))::numeric, 1) AS rms_error,
       round(sqrt(avg(p.stderr ^ 2))::numeric, 1) AS rms_stderr,
       round(100.0 * count(*) FILTER (WHERE t.answer BETWEEN p.ci_low AND p.ci_high) / count(*), 1)
         AS pct_in_95_interval
  FROM private p JOIN truth t USING (query);

\echo
\echo '== the budget after the release'
SELECT * FROM dpm.budget('people'::regclass);
\echo
\echo '== choosing a strategy: expected root-mean-square error per query at epsilon 1 (pure functions:'
\echo '   no data read, no budget spent); dpm.optimize(''ranges'') with method auto takes the lowest'
SELECT m.method,
       array_length(a, 1) AS strategy_rows,
       round(sqrt(dpm.total_error(w.matrix, a, epsilon => 1.0) / w.m)::numeric, 1) AS expected_rms_error
  FROM dpm.workloads w,
       (VALUES ('identity'), ('hierarchical'), ('wavelet')) AS m(method),
       LATERAL dpm.strategy(w.matrix, m.method) AS a
 WHERE w.name = 'ranges'
 ORDER BY expected_rms_error;
