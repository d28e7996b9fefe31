-- Sources that grow by periods (issue 24, item 4): each period of a date column is a disjoint
-- set of rows with the source's budget to itself (parallel composition); a release names the
-- periods it reads, is charged in each of them, and reads only their rows; a privacy unit counts
-- in its first max_periods periods only.  Dates are in 2020, long begun whatever day this runs.
\set SHOW_CONTEXT never
SET client_min_messages = warning;
CREATE ROLE regress_per_custodian IN ROLE dpm_admin;
CREATE ROLE regress_per_analyst IN ROLE dpm_analyst;
-- 30 days from 2020-01-01; on day d, 10 + d units of their own with 2 rows each (ages j % 3);
-- units 1..5 also have one row (age 0) on each of days 0, 10 and 20
CREATE TABLE per_events (uid int, day date, age int);
INSERT INTO per_events
SELECT 1000 * (d + 1) + j, date '2020-01-01' + d, j % 3 FROM generate_series(0, 29) d, generate_series(1, 10 + d) j, generate_series(1, 2);
INSERT INTO per_events SELECT u, date '2020-01-01' + d, 0 FROM generate_series(1, 5) u, generate_series(0, 20, 10) d;
INSERT INTO per_events VALUES (9999, NULL, 1), (9998, '2019-12-31', 1);    -- in no period
CREATE VIEW per_exact AS SELECT * FROM per_events;
GRANT SELECT ON per_events, per_exact TO regress_per_custodian;
SET ROLE regress_per_custodian;
SELECT dpm.register_source('per_events', 'uid', 3, epsilon => 1);
SELECT dpm.register_source('per_exact', 'uid', 3, epsilon => 5000);

-- declaring periods: refusals first, nothing changed by them
SELECT dpm.set_periods('per_events', 'age', '1 day', '2020-01-01');
SELECT dpm.set_periods('per_events', 'nope', '1 day', '2020-01-01');
SELECT dpm.set_periods('per_events', 'day', '1 day 2 hours', '2020-01-01');
SELECT dpm.set_periods('per_events', 'day', '12 hours', '2020-01-01');
SELECT dpm.set_periods('per_events', 'day', '1 month', '2020-01-15');
SELECT dpm.set_periods('per_events', 'day', '-1 day', '2020-01-01');
SELECT dpm.set_periods('per_events', 'day', '1 day', NULL);
SELECT dpm.set_periods('per_events', 'day', '1 day', '2020-01-01', max_periods => 0);
SELECT period_column FROM dpm.sources WHERE relation = 'per_events'::regclass;
-- the custodian is told what falls outside and which units span more periods than counted
SET client_min_messages = notice;
SELECT dpm.set_periods('per_events', 'day', '1 day', '2020-01-01', max_periods => 2);
SELECT dpm.set_periods('per_exact', 'day', '1 day', '2020-01-01', max_periods => 2);
SET client_min_messages = warning;
SELECT period_column, period_width, period_start, max_periods FROM dpm.sources WHERE relation = 'per_events'::regclass;
SELECT dpm.create_domain('per_age', 'per_events', '[{"name": "age", "values": [0, 1, 2]}]');
SELECT dpm.create_workload('per_cells', 'per_age', 'Identity(age)');
SELECT dpm.create_workload('per_total', 'per_age', 'Total(age)');
SELECT dpm.create_domain('per_xage', 'per_exact', '[{"name": "age", "values": [0, 1, 2]}]');
SELECT dpm.create_workload('per_xcells', 'per_xage', 'Identity(age)');
RESET ROLE;

-- analysts may not declare periods, and are told who may
SET ROLE regress_per_analyst;
SELECT dpm.set_periods('per_events', 'day', '1 week', '2020-01-01');
RESET ROLE;

-- a release reads only its periods' rows, each unit in its first two periods only: at epsilon 500
-- (Laplace stderr 0.0085 per cell) every answer is the exact count to 0.5 (false alarm < 1e-20).
-- Day 0: 10 units x 2 rows and the 5 spanning units' first period; day 10 (their second): the same;
-- day 20 (their third): not counted; days 0 to 2: the three days together.
CREATE TEMP TABLE per_expect AS
SELECT d AS day_from, d2 AS day_to,
       (SELECT count(*) FROM per_events e WHERE e.age = a AND e.day BETWEEN date '2020-01-01' + d AND date '2020-01-01' + d2
           AND (e.uid > 5 OR e.day < date '2020-01-21')) AS expect, a
  FROM (VALUES (0, 0), (10, 10), (20, 20), (0, 2)) v(d, d2), generate_series(0, 2) a;
SELECT v.day_from, v.day_to, bool_and(abs(r.answer - x.expect) < 0.5) AS exact, sum(x.expect) AS rows
  FROM (SELECT DISTINCT day_from, day_to FROM per_expect) v
 CROSS JOIN LATERAL dpm.answer('per_xcells', epsilon => 500, method => 'identity', confidence => NULL,
                               period_from => date '2020-01-01' + v.day_from, period_to => date '2020-01-01' + v.day_to) r
  JOIN per_expect x ON x.day_from = v.day_from AND x.day_to = v.day_to AND x.a = r.query - 1
 GROUP BY 1, 2 ORDER BY 1, 2;
-- each charged in full in each period it read, and nowhere else
SELECT lower(l.periods) AS first, upper(l.periods) - 1 AS last, l.epsilon
  FROM dpm.ledger l JOIN dpm.sources s ON s.id = l.source_id WHERE s.relation = 'per_exact'::regclass ORDER BY l.id;
SELECT period, label, epsilon_spent, epsilon_remaining, releases
  FROM dpm.periods('per_exact') WHERE period <= 3 OR period IN (10, 20) ORDER BY period;
-- the budget of a source with periods is each period's: dpm.budget reports the most spent
SELECT epsilon_budget, epsilon_spent, epsilon_remaining, releases FROM dpm.budget('per_exact');

-- spending: a release of 2020-01-04 (its units hold rows that day only) is charged in that period
-- only; exhausting it leaves 2020-01-05 untouched
SET ROLE regress_per_analyst;
SELECT count(*) FROM dpm.answer('per_cells', epsilon => 0.6, method => 'identity', period_from => '2020-01-04');
SELECT count(*) FROM dpm.answer('per_cells', epsilon => 0.6, method => 'identity', period_from => '2020-01-04');
SELECT count(*) FROM dpm.answer('per_cells', epsilon => 0.6, method => 'identity', period_from => '2020-01-05');
SELECT count(*) FROM dpm.answer('per_total', epsilon => 0.4, period_from => '2020-01-04');
-- a range is refused when any of its periods cannot pay, and nothing is charged
SELECT count(*) FROM dpm.answer('per_total', epsilon => 0.5, period_from => '2020-01-03', period_to => '2020-01-05');
SELECT period, epsilon_spent, epsilon_remaining, releases FROM dpm.periods('per_events') WHERE period BETWEEN 2 AND 5 ORDER BY period;
SELECT count(*) AS charges FROM dpm.ledger l JOIN dpm.sources s ON s.id = l.source_id WHERE s.relation = 'per_events'::regclass;
-- what explain says is left is the period's
SELECT charge_epsilon, epsilon_remaining, within_budget FROM dpm.explain('per_total', epsilon => 0.4, period_from => '2020-01-04');
SELECT charge_epsilon, epsilon_remaining, within_budget FROM dpm.explain('per_total', epsilon => 0.4, period_from => '2020-01-06');

-- naming periods: refusals, before any charge
SELECT count(*) FROM dpm.answer('per_total', epsilon => 0.1, period_from => '2019-12-31');
SELECT count(*) FROM dpm.answer('per_total', epsilon => 0.1, period_from => '2020-01-09', period_to => '2020-01-08');
\set VERBOSITY terse
SELECT count(*) FROM dpm.answer('per_total', epsilon => 0.1, period_from => '2999-01-01');
SELECT count(*) FROM dpm.answer('per_total', epsilon => 0.1, period_to => '2999-01-01');
\set VERBOSITY default
-- dates no period holds (issue 41, item 5): infinite ones, and the last date PostgreSQL has
-- (its period's first instant is past the range of timestamps), refused with a clear error by
-- every function that takes periods, with reuse possible (day 5's cells are released) or not,
-- and nothing is charged
SELECT count(*) AS per_charges, sum(epsilon) AS per_spent
  FROM dpm.ledger l JOIN dpm.sources s ON s.id = l.source_id WHERE s.relation = 'per_events'::regclass \gset
CREATE FUNCTION pg_temp.refusal(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'accepted';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
SELECT pg_temp.refusal(q) AS refusal
  FROM unnest(ARRAY[$$SELECT dpm.answer('per_total', epsilon => 0.1, period_to => 'infinity')$$,
                    $$SELECT dpm.answer('per_cells', epsilon => 0.1, period_from => '2020-01-05', period_to => 'infinity', reuse => 'auto')$$,
                    $$SELECT dpm.answer('per_cells', epsilon => 0.1, period_from => '-infinity', reuse => 'only')$$,
                    $$SELECT dpm.answer('per_total', epsilon => 0.1, period_to => '5874897-12-31')$$,
                    $$SELECT dpm.explain('per_total', epsilon => 0.1, period_from => 'infinity')$$,
                    $$SELECT dpm.estimate('per_cells', period_from => '2020-01-05', period_to => 'infinity')$$,
                    $$SELECT dpm.estimate('per_cells', period_to => '5874897-12-31')$$,
                    $$SELECT dpm.estimate('per_cells', period_from => '5874897-12-31', period_to => '2020-01-05')$$]) q;
SELECT count(*) = :per_charges AND sum(epsilon) = :per_spent AS nothing_charged
  FROM dpm.ledger l JOIN dpm.sources s ON s.id = l.source_id WHERE s.relation = 'per_events'::regclass;

-- estimates and reuse read the releases of the periods asked for: day 5's one release gives day 5's cells;
-- day 7 (not measured) has no estimate and is refused with reuse only, at no charge
SELECT bool_and(e.determined) AS determined, bool_and(abs(e.answer - r.answer) < 1e-9) AS as_released
  FROM dpm.estimate('per_cells', period_from => '2020-01-05') e
  JOIN dpm.release((SELECT max(id) FROM dpm.releases WHERE periods = int4range(4, 5))) r USING (query);
SELECT count(*) FROM dpm.estimate('per_cells', period_from => '2020-01-07');
SELECT count(*) FROM dpm.answer('per_cells', epsilon => 0.1, reuse => 'only', period_from => '2020-01-07');
SELECT count(*) AS free FROM dpm.answer('per_cells', epsilon => 0.1, reuse => 'only', period_from => '2020-01-05');
-- a range is estimated from the releases of its periods: days 4 and 5 together are day 4's
-- estimate plus day 5's (disjoint rows), their variances adding up; days 4 to 7 are not determined
SELECT bool_and(abs(e.answer - (a.answer + b.answer)) < 1e-9 * (1 + abs(e.answer))) AS sum_of_days,
       bool_and(abs(e.stderr ^ 2 - (a.stderr ^ 2 + b.stderr ^ 2)) < 1e-9 * e.stderr ^ 2) AS variances_add,
       bool_and(e.determined) AS determined, count(*) AS queries
  FROM dpm.estimate('per_cells', confidence => NULL, period_from => '2020-01-04', period_to => '2020-01-05') e
  JOIN dpm.estimate('per_cells', confidence => NULL, period_from => '2020-01-04') a USING (query)
  JOIN dpm.estimate('per_cells', confidence => NULL, period_from => '2020-01-05') b USING (query);
SELECT bool_or(determined) AS determined
  FROM dpm.estimate('per_cells', confidence => NULL, period_from => '2020-01-04', period_to => '2020-01-07');
RESET ROLE;

-- a source without periods takes no period names
CREATE TABLE per_plain AS SELECT g AS id, g % 3 AS age, date '2020-01-01' + g AS day FROM generate_series(1, 30) g;
SELECT dpm.register_source('per_plain', epsilon => 1);
SELECT dpm.create_domain('per_plain_age', 'per_plain', '[{"name": "age", "values": [0, 1, 2]}]');
SELECT dpm.create_workload('per_plain_total', 'per_plain_age', 'Total(age)');
SELECT count(*) FROM dpm.answer('per_plain_total', epsilon => 0.1, period_from => '2020-01-01');
SELECT * FROM dpm.periods('per_plain');

-- once charged by period, periods cannot change (the same settings again are no change)
SELECT dpm.set_periods('per_events', 'day', '1 week', '2020-01-01');
SELECT dpm.set_periods('per_events', 'day', '1 day', '2020-01-01', max_periods => 2);
-- (with no charge by period yet, they can be changed or removed)
SELECT dpm.set_periods('per_plain', 'day', '1 week', '2020-01-01');
SELECT dpm.set_periods('per_plain', NULL);
SELECT period_column FROM dpm.sources WHERE relation = 'per_plain'::regclass;

-- charges made before the source had periods count in every period
CREATE TABLE per_late AS SELECT * FROM per_events;
SELECT dpm.register_source('per_late', 'uid', 3, epsilon => 1);
SELECT dpm.create_domain('per_late_age', 'per_late', '[{"name": "age", "values": [0, 1, 2]}]');
SELECT dpm.create_workload('per_late_total', 'per_late_age', 'Total(age)');
SELECT count(*) FROM dpm.answer('per_late_total', epsilon => 0.3);
SELECT dpm.set_periods('per_late', 'day', '1 month', '2020-01-01', max_periods => 3);
SELECT period, label, first_day, last_day, epsilon_spent FROM dpm.periods('per_late') WHERE period < 3 ORDER BY period;
SELECT count(*) FROM dpm.answer('per_late_total', epsilon => 0.7, period_from => '2020-01-15');
SELECT count(*) FROM dpm.answer('per_late_total', epsilon => 0.1, period_from => '2020-01-15');
SELECT period, epsilon_spent FROM dpm.periods('per_late') WHERE period < 3 ORDER BY period;
-- the period column cannot be retyped, renamed or dropped from under the periods
ALTER TABLE per_late ALTER COLUMN day TYPE text;
ALTER TABLE per_late RENAME COLUMN day TO event_day;
ALTER TABLE per_late DROP COLUMN day;

-- zCDP: rho per period; delta (key selection) per period too
CREATE TABLE per_z AS SELECT * FROM per_events;
SELECT dpm.register_source('per_z', 'uid', 3, rho => 0.5, delta => 1e-5);
SELECT dpm.set_periods('per_z', 'day', '1 week', '2020-01-06', max_periods => 2);
SELECT dpm.create_domain('per_z_age', 'per_z', '[{"name": "age", "values": [0, 1, 2]}]');
SELECT dpm.create_workload('per_z_total', 'per_z_age', 'Total(age)');
SELECT count(*) FROM dpm.answer('per_z_total', rho => 0.5, period_from => '2020-01-06', period_to => '2020-01-13');
SELECT count(*) FROM dpm.answer('per_z_total', rho => 0.1, period_from => '2020-01-12');
SELECT count(*) FROM dpm.answer('per_z_total', rho => 0.5, period_from => '2020-01-20');
SELECT cardinality(dpm.answer_keys('per_z', 'age', rho => 0.1, delta => 1e-5, period_from => '2020-01-27')) >= 0 AS selected;
SELECT dpm.answer_keys('per_z', 'age', rho => 0.1, delta => 1e-5, period_from => '2020-01-27', period_to => 'infinity');
SELECT period, label, rho_spent, delta_spent, rho_remaining, releases FROM dpm.periods('per_z') WHERE period < 4 ORDER BY period;

-- timestamps with a time zone: periods are the custodian's local days, whatever the session's
-- zone.  2020-03-01 03:00 UTC is 2020-02-29 22:00 in New York: a February row.
CREATE TABLE per_tz (ts timestamptz, age int);
INSERT INTO per_tz VALUES ('2020-03-01 03:00+00', 0), ('2020-03-01 06:00+00', 1), ('2020-02-01 04:00+00', 2),
                          ('2020-02-01 06:00+00', 0);
SELECT dpm.register_source('per_tz', epsilon => 5000);
SET TimeZone = 'America/New_York';
SELECT dpm.set_periods('per_tz', 'ts', '1 month', '2020-01-01');
RESET TimeZone;
SET TimeZone = 'UTC';
SELECT dpm.create_domain('per_tz_age', 'per_tz', '[{"name": "age", "values": [0, 1, 2]}]');
SELECT dpm.create_workload('per_tz_cells', 'per_tz_age', 'Identity(age)');
SELECT query, round(answer)::int AS answer
  FROM dpm.answer('per_tz_cells', epsilon => 1000, method => 'identity', confidence => NULL, period_from => '2020-02-10');
RESET TimeZone;

-- the publication job (examples/publication_job.sql) over 30 periods: each night publishes its
-- day with two releases of 0.5, its whole budget; every day is then spent exactly, and a
-- second run of a night is refused without a charge
CREATE TABLE per_job AS SELECT * FROM per_events;
SELECT dpm.register_source('per_job', 'uid', 3, epsilon => 1);
SELECT dpm.set_periods('per_job', 'day', '1 day', '2020-01-01', max_periods => 2);
SELECT dpm.create_domain('per_job_age', 'per_job', '[{"name": "age", "values": [0, 1, 2]}]');
SELECT dpm.create_workload('per_job_cells', 'per_job_age', 'Identity(age)');
SELECT dpm.create_workload('per_job_total', 'per_job_age', 'Total(age)');
\i examples/publication_job.sql
DO $$
BEGIN
  FOR d IN 0 .. 29 LOOP
    CALL publish_nightly(ARRAY['per_job_cells', 'per_job_total'], 0.5, date '2020-01-01' + d);
  END LOOP;
END
$$;
SELECT count(DISTINCT period) AS periods, count(DISTINCT release_id) AS releases, count(*) AS rows FROM published_counts;
SELECT count(*) AS periods, min(epsilon_spent) AS least, max(epsilon_spent) AS most, sum(releases) AS releases
  FROM dpm.periods('per_job') WHERE period < 30;
SET client_min_messages = notice;
CALL publish_nightly(ARRAY['per_job_total'], 0.5, '2020-01-10');
SET client_min_messages = warning;
SELECT count(*) AS charges FROM dpm.ledger l JOIN dpm.sources s ON s.id = l.source_id WHERE s.relation = 'per_job'::regclass;
-- each day's published total is its day's rows (each unit in its first two days) within 10 of its
-- Laplace stderrs: false alarm 30 exp(-10 sqrt 2) < 3e-5 for the 30 together
SELECT count(*) AS totals, bool_and(abs(p.answer - (SELECT count(*) FROM per_job e WHERE e.day = p.period
                                                        AND (e.uid > 5 OR e.day < '2020-01-21'))) < 10 * p.stderr) AS within_noise
  FROM published_counts p WHERE p.workload = 'per_job_total';
RESET client_min_messages;
DROP TABLE published_counts;
DROP PROCEDURE publish_nightly;
DROP OWNED BY regress_per_custodian, regress_per_analyst;
DROP ROLE regress_per_custodian, regress_per_analyst;
