-- Date bins (issue 22): a date or timestamp column binned by a calendar width, with labels such as
-- 2024-01; the bounds are midnights, in UTC for timestamptz whatever the session's time zone.
\set SHOW_CONTEXT never
SET client_min_messages = warning;
CREATE TABLE db_people AS
  SELECT g AS id, DATE '2023-12-01' + (g * 7) % 500 AS signup,
         TIMESTAMPTZ '2024-01-01 00:00:00+00' + ((g * 13) % 900) * interval '1 hour' AS seen,
         TIMESTAMP '2024-01-01 00:00:00' + ((g * 5) % 400) * interval '1 day' AS local_seen
    FROM generate_series(1, 1000) g;
SELECT dpm.register_source('db_people', 'id', 1, epsilon => 10);

-- months of 2024: labels 2024-01 .. 2024-12; each bin's count is that of the month in SQL
SELECT dpm.create_domain('db_month', 'db_people',
  '[{"name": "signup", "bins": {"min": "2024-01-01", "max": "2025-01-01", "width": "1 month"}}]');
SELECT bin_labels FROM dpm.domains WHERE name = 'db_month';
SELECT dpm.create_workload('db_month_w', 'db_month', 'Identity(signup) + Ranges(signup, ''2024-01'':''2024-03'')');
SELECT e.query, e.label, e.answer = t.n AS exact
  FROM dpm.exact_answers('db_month_w') e
  JOIN (SELECT to_char(signup, 'YYYY-MM') AS month, count(*) AS n FROM db_people
         WHERE signup >= '2024-01-01' AND signup < '2025-01-01' GROUP BY 1) t
    ON e.label = 'signup = ' || t.month
 ORDER BY e.query;
SELECT label, answer = (SELECT count(*) FROM db_people WHERE signup >= '2024-01-01' AND signup < '2024-04-01') AS exact
  FROM dpm.exact_answers('db_month_w') WHERE query = 13;

-- weeks of a timestamptz column, in UTC: the same bins in any session time zone
SET TimeZone = 'America/New_York';
SELECT dpm.create_domain('db_week', 'db_people',
  '[{"name": "seen", "bins": {"min": "2024-01-01", "max": "2024-02-01", "width": "1 week"}}]');
RESET TimeZone;
SELECT bin_labels FROM dpm.domains WHERE name = 'db_week';
SELECT dpm.create_workload('db_week_w', 'db_week', 'Identity(seen)');
SET TimeZone = 'Asia/Tokyo';
SELECT bool_and(e.answer = (SELECT count(*) FROM db_people
                             WHERE seen >= TIMESTAMPTZ '2024-01-01 00:00:00+00' + (e.query - 1) * interval '1 week'
                               AND seen < least(TIMESTAMPTZ '2024-01-01 00:00:00+00' + e.query * interval '1 week',
                                                TIMESTAMPTZ '2024-02-01 00:00:00+00'))) AS utc_weeks
  FROM dpm.exact_answers('db_week_w') e;
RESET TimeZone;

-- years, days, several months, and a timestamp column; a last bin cut at max reads as an interval
SELECT dpm.create_domain('db_misc', 'db_people',
  '[{"name": "y", "column": "signup", "bins": {"min": "2023-01-01", "max": "2025-01-01", "width": "1 year"}},
    {"name": "q", "column": "signup", "bins": {"min": "2024-01-01", "max": "2024-08-01", "width": "3 months"}},
    {"name": "day", "column": "local_seen", "bins": {"min": "2024-02-27", "max": "2024-03-02", "width": "1 day"}}]');
SELECT attr_names, bin_labels FROM dpm.domains WHERE name = 'db_misc';
-- and a release over months, as over any bins
SELECT count(*) AS answers FROM dpm.answer('db_month_w', epsilon => 1, method => 'identity');

-- bad input: a day that does not exist, a date not written YYYY-MM-DD, an unknown unit, a zero
-- width, max not after min, months from a 31st, a number where a date goes, an unknown key
SELECT dpm.create_domain('db_bad', 'db_people', '[{"name": "signup", "bins": {"min": "2023-02-29", "max": "2024-01-01", "width": "1 day"}}]');
SELECT dpm.create_domain('db_bad', 'db_people', '[{"name": "signup", "bins": {"min": "2024-1-1", "max": "2025-01-01", "width": "1 day"}}]');
SELECT dpm.create_domain('db_bad', 'db_people', '[{"name": "signup", "bins": {"min": "2024-01-01", "max": "2025-01-01", "width": "1 fortnight"}}]');
SELECT dpm.create_domain('db_bad', 'db_people', '[{"name": "signup", "bins": {"min": "2024-01-01", "max": "2025-01-01", "width": "0 days"}}]');
SELECT dpm.create_domain('db_bad', 'db_people', '[{"name": "signup", "bins": {"min": "2024-01-01", "max": "2024-01-01", "width": "1 day"}}]');
SELECT dpm.create_domain('db_bad', 'db_people', '[{"name": "signup", "bins": {"min": "2024-01-31", "max": "2025-01-01", "width": "1 month"}}]');
SELECT dpm.create_domain('db_bad', 'db_people', '[{"name": "signup", "bins": {"min": 0, "max": 10, "width": 1}}]');
SELECT dpm.create_domain('db_bad', 'db_people', '[{"name": "signup", "bins": {"min": "2024-01-01", "max": "2025-01-01", "width": "1 day", "tz": "UTC"}}]');
-- too many bins for dpm.max_cells
SET dpm.max_cells = 100;
SELECT dpm.create_domain('db_bad', 'db_people', '[{"name": "signup", "bins": {"min": "2024-01-01", "max": "2025-01-01", "width": "1 day"}}]');
RESET dpm.max_cells;
SELECT count(*) AS bad_domains FROM dpm.domains WHERE name = 'db_bad';

-- an expression in place of a column, under the rules of conditions: decades of a day count, a
-- COALESCE of two dates binned by month
CREATE TABLE db_people2 AS SELECT id, signup, CASE WHEN id % 4 = 0 THEN NULL ELSE signup END AS maybe,
                                 (id * 37) % 100 AS age FROM db_people;
SELECT dpm.register_source('db_people2', 'id', 1, epsilon => 10);
SELECT dpm.create_domain('db_expr', 'db_people2',
  '[{"name": "decade", "expression": "age / 10", "values": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]},
    {"name": "m", "expression": "coalesce(maybe, signup)", "bins": {"min": "2024-01-01", "max": "2024-04-01", "width": "1 month"}}]');
SELECT attr_names, bin_labels, attr_exprs[1] AS decade_expr FROM dpm.domains WHERE name = 'db_expr';
SELECT dpm.create_workload('db_expr_w', 'db_expr', 'Identity(decade) * Total(m) + Total(decade) * Identity(m)');
SELECT bool_and(e.answer = t.n) AS exact, count(*) AS queries
  FROM dpm.exact_answers('db_expr_w') e
  JOIN (SELECT 'decade = ' || age / 10 AS label, count(*) AS n FROM db_people2
         WHERE signup >= '2024-01-01' AND signup < '2024-04-01' GROUP BY 1
        UNION ALL
        SELECT 'm = ' || to_char(signup, 'YYYY-MM'), count(*) FROM db_people2
         WHERE signup >= '2024-01-01' AND signup < '2024-04-01' GROUP BY 1) t USING (label);
-- the year and the hour of a part extracted by a field that fits every date or timestamp (the
-- issue's own example), counted exactly
ALTER TABLE db_people2 ADD COLUMN seen timestamp, ADD COLUMN seen_tz timestamptz;
UPDATE db_people2 SET seen = signup + make_interval(hours => id % 24), seen_tz = signup;
SELECT dpm.create_domain('db_extract', 'db_people2',
  '[{"name": "y", "expression": "extract(year from signup)", "values": [2023, 2024, 2025]},
    {"name": "h", "expression": "date_part(''hour'', seen)", "bins": {"min": 0, "max": 24, "width": 6}}]');
SELECT dpm.create_workload('db_extract_w', 'db_extract', 'Identity(y) * Total(h) + Total(y) * Identity(h)');
SELECT bool_and(e.answer = t.n) AS exact, count(*) AS queries
  FROM dpm.exact_answers('db_extract_w') e
  JOIN (SELECT 'y = ' || extract(year FROM signup) AS label, count(*) AS n FROM db_people2
         WHERE extract(year FROM signup) IN (2023, 2024, 2025) GROUP BY 1
        UNION ALL
        SELECT 'h in [' || 6 * (extract(hour FROM seen)::int / 6) || ',' || 6 * (extract(hour FROM seen)::int / 6) + 6 || ')',
               count(*) FROM db_people2 GROUP BY 1) t USING (label);
-- every field extract is allowed gives a value, never an error, at the ends of each type's range
-- and at the infinities (src/security/safe_expr.c vets them so)
SELECT count(*) AS tried,
       count(pg_catalog."extract"(f, d)) + count(pg_catalog."extract"(f, t)) + count(g) AS values
  FROM unnest('{year,month,day,quarter,week,doy,dow,isodow,isoyear,decade,century,millennium,epoch,julian}'::text[]) f,
       unnest('{infinity,-infinity,4714-11-24 BC,5874897-12-31,2024-02-29}'::date[]) d,
       unnest('{infinity,-infinity,4714-11-24 00:00 BC,294276-12-31 23:59:59.999999,2024-02-29 12:00}'::timestamp[]) t,
       LATERAL (SELECT pg_catalog."extract"(h, t) FROM unnest('{hour,minute,second,milliseconds,microseconds}'::text[]) h) x(g);
-- refused: a field a date does not have (it would fail on every row, so on whether there is one),
-- a field given as a column, a timestamptz (its parts follow the session's time zone)
SELECT dpm.create_domain('db_bad', 'db_people2', '[{"name": "a", "expression": "extract(hour from signup)", "values": [1]}]');
SELECT dpm.create_domain('db_bad', 'db_people2', '[{"name": "a", "expression": "date_part(CASE WHEN id > 0 THEN ''hour'' ELSE ''day'' END, seen)", "values": [1]}]');
SELECT dpm.create_domain('db_bad', 'db_people2', '[{"name": "a", "expression": "extract(year from seen_tz)", "values": [2024]}]');
-- refused: both a column and an expression, not one expression, an escape from the parentheses, an
-- unknown column, one that could fail on some row (a division by a column)
SELECT dpm.create_domain('db_bad', 'db_people2', '[{"name": "a", "column": "age", "expression": "age", "values": [1]}]');
SELECT dpm.create_domain('db_bad', 'db_people2', '[{"name": "a", "expression": "age), (age", "values": [1]}]');
SELECT dpm.create_domain('db_bad', 'db_people2', '[{"name": "a", "expression": "1) FROM pg_class UNION SELECT (1", "values": [1]}]');
SELECT dpm.create_domain('db_bad', 'db_people2', '[{"name": "a", "expression": "agee / 10", "values": [1]}]');
SELECT dpm.create_domain('db_bad', 'db_people2', '[{"name": "a", "expression": "100 / age", "values": [1]}]');
SELECT count(*) AS bad_domains FROM dpm.domains WHERE name = 'db_bad';
