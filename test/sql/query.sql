-- The SQL front door (issue 44, item 2): dpm.answer_query answers an analyst's SELECT ... GROUP BY
-- over a registered source privately, compiled to a workload over the columns' declared grids.
-- Answers are checked against the same statement run by the custodian at an epsilon so large
-- that the noise is tiny (Gaussian, sd 0.05 for a count, 0.2 for a sum, 0.001 for an average):
-- each is compared within 10 sd (a false alarm has probability below 1e-20).  Refusals and
-- dry runs leave the ledger as it was.
\set SHOW_CONTEXT never
SET dpm.reuse = auto;
CREATE TABLE fd_ratings AS
  SELECT 1 + g % 97 AS user_id,
         (ARRAY['Drama', 'Comedy', 'Action'])[1 + g % 3] AS genre,
         ((g * 7) % 10 + 1) / 2.0 AS rating,
         date '2014-01-01' + (g * 13) % 730 AS rated_on,
         (g * 11) % 60 AS age,
         (ARRAY['web', 'app', NULL])[1 + g % 7 % 3] AS device,
         CASE WHEN g % 5 <> 0 THEN (g * 17) % 240 END AS minutes
    FROM generate_series(1, 3000) g;
CREATE ROLE regress_fd_custodian IN ROLE dpm_admin;
CREATE ROLE regress_fd_analyst IN ROLE dpm_analyst;
GRANT SELECT ON fd_ratings TO regress_fd_custodian;
SET ROLE regress_fd_custodian;
SET client_min_messages = warning;
SELECT dpm.register_source('fd_ratings', 'user_id', max_contributions => 40, epsilon => 1e12, delta => 1e-3);
RESET client_min_messages;
SELECT count(*) AS columns FROM dpm.set_column_domains('fd_ratings', '[
  {"column": "genre", "values": ["Drama", "Comedy", "Action"]},
  {"column": "rated_on", "bins": {"min": "2014-01-01", "max": "2016-01-01", "width": "1 month"}},
  {"column": "age", "bins": {"min": 0, "max": 60, "width": 5}},
  {"column": "rating", "measure": {"lo": 0, "hi": 5}},
  {"column": "device", "values": ["web", "app"]}]');
-- a second measure, whose NULLs are left out of its averages
SELECT dpm.create_measure('minutes', 'fd_ratings', 'minutes', 0, 240, nulls => 'drop') > 0 AS measure;
-- the analyst's privacy policy: the front door is open to roles that have one
SELECT dpm.set_privacy_policy('fd_ratings', 'regress_fd_analyst', epsilon => 1e11, delta => 1e-3);
RESET ROLE;
CREATE SCHEMA fd_elsewhere;
GRANT ALL ON SCHEMA fd_elsewhere TO regress_fd_analyst;
-- what the analyst gets back, which the test compares with the truth as superuser
-- (seq: the order rows came in, which the heap need not keep)
CREATE TABLE fd_out (statement int, result json, release bigint, cost text, seq bigserial);
GRANT ALL ON fd_out TO regress_fd_analyst, regress_fd_custodian;
GRANT ALL ON SEQUENCE fd_out_seq_seq TO regress_fd_analyst, regress_fd_custodian;
SELECT count(*) AS charges_before FROM dpm.ledger \gset

-- the analyst asks; she cannot read the table (the NOTICEs name releases, whose ids vary)
SET ROLE regress_fd_analyst;
SELECT count(*) FROM fd_ratings;
SET client_min_messages = warning;
INSERT INTO fd_out SELECT 1, * FROM dpm.answer_query('SELECT genre, count(*) FROM fd_ratings GROUP BY genre', epsilon => 1e6, delta => 1e-6);
INSERT INTO fd_out SELECT 2, * FROM dpm.answer_query($$SELECT date_trunc('quarter', rated_on) AS quarter, count(*) AS n, sum(rating), avg(rating)
                                                  FROM fd_ratings WHERE genre IN ('Drama', 'Action') AND rated_on >= '2014-07-01'
                                                 GROUP BY 1$$, epsilon => 1e6, delta => 1e-6);
INSERT INTO fd_out SELECT 3, * FROM dpm.answer_query($$SELECT genre, floor(age / 20) * 20 AS band, count(*) FROM fd_ratings
                                                WHERE NOT (age < 10 OR age >= 50) AND genre <> 'Comedy' GROUP BY genre, band$$,
                                              epsilon => 1e6, delta => 1e-6);
INSERT INTO fd_out SELECT 4, * FROM dpm.answer_query($$SELECT extract(month FROM rated_on) AS month, count(*) FROM fd_ratings
                                                WHERE age BETWEEN 20 AND 39 GROUP BY 1$$, epsilon => 1e6, delta => 1e-6);
INSERT INTO fd_out SELECT 5, * FROM dpm.answer_query('SELECT count(*), sum(rating) FROM fd_ratings', epsilon => 1e6, delta => 1e-6);
INSERT INTO fd_out SELECT 6, * FROM dpm.answer_query($$SELECT width_bucket(age, 0, 60, 4) AS b, genre, avg(rating) FROM fd_ratings
                                                WHERE rated_on < '2015-01-01' GROUP BY genre, b$$, epsilon => 1e6, delta => 1e-6);
-- GROUPING SETS, ROLLUP and CUBE: one workload, the union of a term per set, one release
INSERT INTO fd_out SELECT 7, * FROM dpm.answer_query($$SELECT genre, date_trunc('year', rated_on) AS y, count(*) FROM fd_ratings
                                                       GROUP BY ROLLUP (genre, 2)$$, epsilon => 1e6, delta => 1e-6);
INSERT INTO fd_out SELECT 8, * FROM dpm.answer_query($$SELECT genre, floor(age / 30) * 30 AS band, sum(rating) FROM fd_ratings
                                                       GROUP BY GROUPING SETS ((genre), (band), ())$$, epsilon => 1e6, delta => 1e-6);
-- HAVING, ORDER BY, LIMIT and OFFSET: on the answers, at no cost
INSERT INTO fd_out SELECT 9, * FROM dpm.answer_query($$SELECT extract(month FROM rated_on) AS month, count(*) FROM fd_ratings
                                                       GROUP BY 1 HAVING count(*) > 240 ORDER BY month DESC LIMIT 5 OFFSET 1$$,
                                                     epsilon => 1e6, delta => 1e-6);
-- a dashboard: three statements from one strategy optimized for them all, one release, one charge
INSERT INTO fd_out SELECT 10 + statement, result, release_id, cost
  FROM dpm.answer_query(ARRAY['SELECT genre, count(*) FROM fd_ratings GROUP BY genre',
                              'SELECT floor(age / 30) * 30 AS band, count(*) FROM fd_ratings WHERE genre <> ''Comedy'' GROUP BY 1',
                              'SELECT count(*) FROM fd_ratings WHERE rated_on >= ''2015-01-01'''], epsilon => 1e6, delta => 1e-6);
-- percentiles of a column declared in numeric bins: one release of its cumulative counts per group
INSERT INTO fd_out SELECT 14, * FROM dpm.answer_query($$SELECT genre, percentile_cont(0.5) WITHIN GROUP (ORDER BY age) AS median,
                                                              percentile_disc(0.9) WITHIN GROUP (ORDER BY age) AS p90, count(*) AS n
                                                         FROM fd_ratings WHERE rated_on < '2015-01-01' GROUP BY genre$$,
                                                      epsilon => 1e6, delta => 1e-6);
-- expressions over the aggregates and groupings, at no cost: evaluated on the answers with the
-- statement's own types (count(*) a bigint: the nearest integer); NULL where they fail on them
INSERT INTO fd_out SELECT 15, * FROM dpm.answer_query($$SELECT genre, count(*) * 2 AS twice, sum(rating) / count(*) AS mean,
                                                              round(avg(rating), 1) AS rounded, genre || '!' AS shout,
                                                              1 / (count(*) - count(*)) AS failed, 'n=' || count(*)::text AS label
                                                         FROM fd_ratings GROUP BY genre HAVING count(*) * 2 > 0 ORDER BY twice DESC$$,
                                                      epsilon => 1e6, delta => 1e-6);
-- OR and NOT across columns, IS NULL: a condition no set of bins of one column keeps is an
-- attribute of its own (whether a row meets it), which the statement selects
INSERT INTO fd_out SELECT 16, * FROM dpm.answer_query($$SELECT genre, count(*) FROM fd_ratings WHERE genre = 'Drama' OR age < 20 GROUP BY genre$$,
                                                      epsilon => 1e6, delta => 1e-6);
INSERT INTO fd_out SELECT 17, * FROM dpm.answer_query($$SELECT floor(age / 20) * 20 AS band, count(*) AS n, avg(rating) FROM fd_ratings
                                                         WHERE NOT (genre = 'Drama' AND age < 20) AND rated_on >= '2015-01-01' GROUP BY 1$$,
                                                      epsilon => 1e6, delta => 1e-6);
INSERT INTO fd_out SELECT 18, * FROM dpm.answer_query($$SELECT genre, count(*) FROM fd_ratings WHERE device IS NULL OR age >= 40 GROUP BY genre$$,
                                                      epsilon => 1e6, delta => 1e-6);
INSERT INTO fd_out SELECT 18 + statement, result, release_id, cost
  FROM dpm.answer_query(ARRAY['SELECT count(*) FROM fd_ratings WHERE device IS NULL',
                              'SELECT genre, count(*) FROM fd_ratings GROUP BY genre'], epsilon => 1e6, delta => 1e-6);
-- several measures in one statement: one release of the counts and each measure's sums (and the
-- counts of minutes' rows with a value, its averages' divisor), each part a share of one charge
INSERT INTO fd_out SELECT 21, * FROM dpm.answer_query($$SELECT genre, count(*) AS n, sum(rating), avg(rating), avg(minutes) AS mins,
                                                              count(minutes) AS timed, sum(minutes) AS total, avg(rating) - avg(minutes) / 60 AS mix
                                                         FROM fd_ratings GROUP BY genre$$, epsilon => 1e6, delta => 1e-6);
INSERT INTO fd_out SELECT 22, * FROM dpm.answer_query('SELECT sum(rating) AS r, sum(minutes) AS m FROM fd_ratings WHERE age >= 30',
                                                      epsilon => 1e6, delta => 1e-6);
INSERT INTO fd_out SELECT 23, * FROM dpm.answer_query('SELECT count(*), avg(minutes) FROM fd_ratings', epsilon => 1e6, delta => 1e-6);
-- count(column) beside count(*): the rows whose value is in a bin, a variant of the statement's
-- queries (or, for a column it groups by, the same rows)
INSERT INTO fd_out SELECT 25, * FROM dpm.answer_query('SELECT genre, count(*) AS n, count(device) AS with_device FROM fd_ratings GROUP BY genre',
                                                      epsilon => 1e6, delta => 1e-6);
INSERT INTO fd_out SELECT 26, * FROM dpm.answer_query($$SELECT count(*) AS n, count(device) AS d, count(genre) AS g, avg(rating), avg(minutes) AS mins
                                                         FROM fd_ratings WHERE age < 30$$, epsilon => 1e6, delta => 1e-6);
INSERT INTO fd_out SELECT 27, * FROM dpm.answer_query('SELECT device, count(*) AS n, count(device) AS d FROM fd_ratings GROUP BY device',
                                                      epsilon => 1e6, delta => 1e-6);
-- count(DISTINCT the privacy unit): the units with a row in each group (a user here has rows in
-- all 3 genres, within the bound of 40 cells: each counted in each)
INSERT INTO fd_out SELECT 28, * FROM dpm.answer_query('SELECT genre, count(DISTINCT user_id) AS users FROM fd_ratings WHERE age < 30 GROUP BY genre',
                                                      epsilon => 1e6, delta => 1e-6);
-- and beside percentiles: a group's sums and averages are its last cumulative row's
INSERT INTO fd_out SELECT 24, * FROM dpm.answer_query($$SELECT genre, percentile_cont(0.5) WITHIN GROUP (ORDER BY age) AS median, count(*) AS n,
                                                              avg(rating), sum(minutes) AS total
                                                         FROM fd_ratings WHERE rated_on < '2015-01-01' GROUP BY genre$$,
                                                      epsilon => 1e6, delta => 1e-6);
RESET client_min_messages;
RESET ROLE;

-- every group of the plain statement, each answer equal to its rounded truth
SELECT 1 AS statement, count(*) AS groups, count(*) FILTER (WHERE abs((o.result->>'count')::numeric - t.n) < 0.5) AS equal
  FROM fd_out o FULL JOIN (SELECT genre, count(*) AS n FROM fd_ratings GROUP BY genre) t ON t.genre = o.result->>'genre'
 WHERE o.statement = 1 OR o.statement IS NULL;
SELECT 2 AS statement, count(*) AS groups,
       count(*) FILTER (WHERE abs((o.result->>'n')::numeric - t.n) < 0.5 AND abs((o.result->>'sum')::numeric - t.s) < 2
                          AND abs((o.result->>'avg')::numeric - t.a) < 0.01) AS equal
  FROM (SELECT * FROM fd_out WHERE statement = 2) o
  FULL JOIN (SELECT date_trunc('quarter', rated_on) AS quarter, count(*) AS n, sum(rating) AS s, avg(rating) AS a FROM fd_ratings
              WHERE genre IN ('Drama', 'Action') AND rated_on >= '2014-07-01' AND rated_on < '2016-01-01' GROUP BY 1) t
    ON t.quarter = (o.result->>'quarter')::timestamptz;
SELECT 3 AS statement, count(*) AS groups, count(*) FILTER (WHERE abs((o.result->>'count')::numeric - t.n) < 0.5) AS equal
  FROM (SELECT * FROM fd_out WHERE statement = 3) o
  FULL JOIN (SELECT genre, floor(age / 20) * 20 AS band, count(*) AS n FROM fd_ratings
              WHERE NOT (age < 10 OR age >= 50) AND genre <> 'Comedy' GROUP BY genre, band) t
    ON t.genre = o.result->>'genre' AND t.band = (o.result->>'band')::float8;
SELECT 4 AS statement, count(*) AS groups, count(*) FILTER (WHERE abs((o.result->>'count')::numeric - t.n) < 0.5) AS equal
  FROM (SELECT * FROM fd_out WHERE statement = 4) o
  FULL JOIN (SELECT extract(month FROM rated_on) AS month, count(*) AS n FROM fd_ratings
              WHERE age BETWEEN 20 AND 39 AND rated_on >= '2014-01-01' AND rated_on < '2016-01-01' GROUP BY 1) t
    ON t.month = (o.result->>'month')::numeric;
SELECT 5 AS statement, abs((o.result->>'count')::numeric - (SELECT count(*) FROM fd_ratings)) < 0.5 AS count_equal,
       abs((o.result->>'sum')::numeric - (SELECT sum(rating) FROM fd_ratings)) < 2 AS sum_equal
  FROM fd_out o WHERE o.statement = 5;
SELECT 6 AS statement, count(*) AS groups, count(*) FILTER (WHERE abs((o.result->>'avg')::numeric - t.a) < 0.01) AS equal
  FROM (SELECT * FROM fd_out WHERE statement = 6) o
  FULL JOIN (SELECT width_bucket(age, 0, 60, 4) AS b, genre, avg(rating) AS a FROM fd_ratings
              WHERE rated_on >= '2014-01-01' AND rated_on < '2015-01-01' GROUP BY genre, b) t
    ON t.genre = o.result->>'genre' AND t.b = (o.result->>'b')::int;
SELECT 7 AS statement, count(*) AS groups, count(*) FILTER (WHERE abs((o.result->>'count')::numeric - t.n) < 0.5) AS equal
  FROM (SELECT * FROM fd_out WHERE statement = 7) o
  FULL JOIN (SELECT genre, date_trunc('year', rated_on) AS y, count(*) AS n FROM fd_ratings GROUP BY ROLLUP (genre, 2)) t
    ON coalesce(t.genre, '-') = coalesce(o.result->>'genre', '-')
   AND coalesce(t.y, '-infinity') = coalesce((o.result->>'y')::timestamptz, '-infinity');
SELECT 8 AS statement, count(*) AS groups, count(*) FILTER (WHERE abs((o.result->>'sum')::numeric - t.s) < 2) AS equal
  FROM (SELECT * FROM fd_out WHERE statement = 8) o
  FULL JOIN (SELECT genre, floor(age / 30) * 30 AS band, sum(rating) AS s FROM fd_ratings GROUP BY GROUPING SETS ((genre), (band), ())) t
    ON coalesce(t.genre, '-') = coalesce(o.result->>'genre', '-') AND coalesce(t.band, -1) = coalesce((o.result->>'band')::float8, -1);
SELECT 9 AS statement, array_agg((result->>'month')::int ORDER BY k) AS months
  FROM (SELECT result, row_number() OVER (ORDER BY seq) AS k FROM fd_out WHERE statement = 9) o;
SELECT array_agg(month::int ORDER BY month DESC) AS plain_months
  FROM (SELECT extract(month FROM rated_on) AS month FROM fd_ratings GROUP BY 1 HAVING count(*) > 240
         ORDER BY month DESC LIMIT 5 OFFSET 1) t;
SELECT 11 AS statement, count(*) AS groups, count(*) FILTER (WHERE abs((o.result->>'count')::numeric - t.n) < 0.5) AS equal
  FROM (SELECT * FROM fd_out WHERE statement = 11) o
  FULL JOIN (SELECT genre, count(*) AS n FROM fd_ratings GROUP BY genre) t ON t.genre = o.result->>'genre';
SELECT 12 AS statement, count(*) AS groups, count(*) FILTER (WHERE abs((o.result->>'count')::numeric - t.n) < 0.5) AS equal
  FROM (SELECT * FROM fd_out WHERE statement = 12) o
  FULL JOIN (SELECT floor(age / 30) * 30 AS band, count(*) AS n FROM fd_ratings WHERE genre <> 'Comedy' GROUP BY 1) t
    ON t.band = (o.result->>'band')::float8;
SELECT 13 AS statement, abs((result->>'count')::numeric - (SELECT count(*) FROM fd_ratings WHERE rated_on >= '2015-01-01')) < 0.5 AS equal
  FROM fd_out WHERE statement = 13;
-- a percentile is read in the bins of its column (width 5 here): within a bin of the truth, and
-- its interval (bin edges) holds the truth; the count beside it is the group's last cumulative count
SELECT 14 AS statement, count(*) AS groups,
       count(*) FILTER (WHERE abs((o.result->>'median')::float8 - t.median) <= 5
                          AND t.median BETWEEN (o.result->>'median_ci_low')::float8 AND (o.result->>'median_ci_high')::float8
                          AND t.p90 BETWEEN (o.result->>'p90_ci_low')::float8 AND (o.result->>'p90_ci_high')::float8
                          AND (o.result->>'p90')::int % 5 = 0) AS within,
       count(*) FILTER (WHERE abs((o.result->>'n')::numeric - t.n) < 0.5 AND (o.result->>'n_stderr')::float8 > 0) AS count_equal
  FROM (SELECT * FROM fd_out WHERE statement = 14) o
  FULL JOIN (SELECT genre, percentile_cont(0.5) WITHIN GROUP (ORDER BY age) AS median,
                    percentile_disc(0.9) WITHIN GROUP (ORDER BY age) AS p90, count(*) AS n
               FROM fd_ratings WHERE rated_on < '2015-01-01' GROUP BY genre) t ON t.genre = o.result->>'genre';
SELECT 15 AS statement, count(*) AS groups,
       count(*) FILTER (WHERE (o.result->>'twice')::bigint = 2 * t.n AND abs((o.result->>'mean')::numeric - t.mean) < 0.01
                          AND abs((o.result->>'rounded')::numeric - t.rounded) <= 0.1 AND o.result->>'shout' = t.genre || '!'
                          AND o.result->>'label' = 'n=' || t.n
                          AND o.result->>'failed' IS NULL AND o.result::jsonb ? 'failed' AND NOT o.result::jsonb ? 'twice_stderr') AS equal,
       array_agg((o.result->>'twice')::bigint ORDER BY o.k) = array_agg(2 * t.n ORDER BY 2 * t.n DESC) AS ordered
  FROM (SELECT result, row_number() OVER (ORDER BY seq) AS k FROM fd_out WHERE statement = 15) o
  FULL JOIN (SELECT genre, count(*) AS n, sum(rating) / count(*) AS mean, round(avg(rating), 1) AS rounded FROM fd_ratings GROUP BY genre) t
    ON t.genre = o.result->>'genre';
SELECT 16 AS statement, count(*) AS groups, count(*) FILTER (WHERE abs((o.result->>'count')::numeric - t.n) < 0.5) AS equal
  FROM (SELECT * FROM fd_out WHERE statement = 16) o
  FULL JOIN (SELECT genre, count(*) AS n FROM fd_ratings WHERE genre = 'Drama' OR age < 20 GROUP BY genre) t ON t.genre = o.result->>'genre';
SELECT 17 AS statement, count(*) AS groups,
       count(*) FILTER (WHERE abs((o.result->>'n')::numeric - t.n) < 0.5 AND abs((o.result->>'avg')::numeric - t.a) < 0.01) AS equal
  FROM (SELECT * FROM fd_out WHERE statement = 17) o
  FULL JOIN (SELECT floor(age / 20) * 20 AS band, count(*) AS n, avg(rating) AS a FROM fd_ratings
              WHERE NOT (genre = 'Drama' AND age < 20) AND rated_on >= '2015-01-01' GROUP BY 1) t ON t.band = (o.result->>'band')::float8;
SELECT 18 AS statement, count(*) AS groups, count(*) FILTER (WHERE abs((o.result->>'count')::numeric - t.n) < 0.5) AS equal
  FROM (SELECT * FROM fd_out WHERE statement = 18) o
  FULL JOIN (SELECT genre, count(*) AS n FROM fd_ratings WHERE device IS NULL OR age >= 40 GROUP BY genre) t ON t.genre = o.result->>'genre';
SELECT 19 AS statement, abs((result->>'count')::numeric - (SELECT count(*) FROM fd_ratings WHERE device IS NULL)) < 0.5 AS equal
  FROM fd_out WHERE statement = 19;
SELECT 20 AS statement, count(*) AS groups, count(*) FILTER (WHERE abs((o.result->>'count')::numeric - t.n) < 0.5) AS equal
  FROM (SELECT * FROM fd_out WHERE statement = 20) o
  FULL JOIN (SELECT genre, count(*) AS n FROM fd_ratings GROUP BY genre) t ON t.genre = o.result->>'genre';
-- (each within 10 of its own standard errors: the noise of a part is that of its share)
SELECT 21 AS statement, count(*) AS groups,
       count(*) FILTER (WHERE abs((o.result->>'n')::numeric - t.n) < 0.5 AND abs((o.result->>'timed')::numeric - t.timed) < 0.5
                          AND abs((o.result->>'sum')::float8 - t.s) < 10 * (o.result->>'sum_stderr')::float8
                          AND abs((o.result->>'avg')::float8 - t.a) < 10 * (o.result->>'avg_stderr')::float8
                          AND abs((o.result->>'mins')::float8 - t.mins) < 10 * (o.result->>'mins_stderr')::float8
                          AND abs((o.result->>'total')::float8 - t.total) < 10 * (o.result->>'total_stderr')::float8
                          AND abs((o.result->>'mix')::float8 - ((o.result->>'avg')::float8 - (o.result->>'mins')::float8 / 60)) < 1e-9) AS equal
  FROM (SELECT * FROM fd_out WHERE statement = 21) o
  FULL JOIN (SELECT genre, count(*) AS n, sum(rating) AS s, avg(rating) AS a, avg(minutes) AS mins, count(minutes) AS timed,
                    sum(minutes) AS total FROM fd_ratings GROUP BY genre) t ON t.genre = o.result->>'genre';
SELECT 22 AS statement, abs((result->>'r')::float8 - (SELECT sum(rating) FROM fd_ratings WHERE age >= 30)) < 10 * (result->>'r_stderr')::float8 AS rating_equal,
       abs((result->>'m')::float8 - (SELECT sum(minutes) FROM fd_ratings WHERE age >= 30)) < 10 * (result->>'m_stderr')::float8 AS minutes_equal
  FROM fd_out WHERE statement = 22;
SELECT 23 AS statement, abs((result->>'count')::numeric - (SELECT count(*) FROM fd_ratings)) < 0.5 AS count_equal,
       abs((result->>'avg')::float8 - (SELECT avg(minutes) FROM fd_ratings)) < 10 * (result->>'avg_stderr')::float8 AS avg_equal
  FROM fd_out WHERE statement = 23;
SELECT 24 AS statement, count(*) AS groups,
       count(*) FILTER (WHERE abs((o.result->>'median')::float8 - t.median) <= 5 AND abs((o.result->>'n')::numeric - t.n) < 0.5
                          AND abs((o.result->>'avg')::float8 - t.a) < 10 * (o.result->>'avg_stderr')::float8
                          AND abs((o.result->>'total')::float8 - t.total) < 10 * (o.result->>'total_stderr')::float8) AS equal
  FROM (SELECT * FROM fd_out WHERE statement = 24) o
  FULL JOIN (SELECT genre, percentile_cont(0.5) WITHIN GROUP (ORDER BY age) AS median, count(*) AS n, avg(rating) AS a,
                    sum(minutes) AS total FROM fd_ratings WHERE rated_on < '2015-01-01' GROUP BY genre) t ON t.genre = o.result->>'genre';
SELECT 25 AS statement, count(*) AS groups,
       count(*) FILTER (WHERE abs((o.result->>'n')::numeric - t.n) < 0.5 AND abs((o.result->>'with_device')::numeric - t.d) < 0.5) AS equal
  FROM (SELECT * FROM fd_out WHERE statement = 25) o
  FULL JOIN (SELECT genre, count(*) AS n, count(device) AS d FROM fd_ratings GROUP BY genre) t ON t.genre = o.result->>'genre';
SELECT 26 AS statement, abs((o.result->>'n')::numeric - t.n) < 0.5 AS n, abs((o.result->>'d')::numeric - t.d) < 0.5 AS d,
       abs((o.result->>'g')::numeric - t.n) < 0.5 AS g, abs((o.result->>'avg')::float8 - t.a) < 10 * (o.result->>'avg_stderr')::float8 AS a,
       abs((o.result->>'mins')::float8 - t.mins) < 10 * (o.result->>'mins_stderr')::float8 AS mins
  FROM fd_out o, (SELECT count(*) AS n, count(device) AS d, avg(rating) AS a, avg(minutes) AS mins FROM fd_ratings WHERE age < 30) t
 WHERE o.statement = 26;
SELECT 27 AS statement, count(*) AS groups,
       count(*) FILTER (WHERE abs((o.result->>'n')::numeric - t.n) < 0.5 AND abs((o.result->>'d')::numeric - t.n) < 0.5) AS equal
  FROM (SELECT * FROM fd_out WHERE statement = 27) o
  FULL JOIN (SELECT device, count(*) AS n FROM fd_ratings WHERE device IS NOT NULL GROUP BY device) t ON t.device = o.result->>'device';
SELECT 28 AS statement, count(*) AS groups, count(*) FILTER (WHERE abs((o.result->>'users')::numeric - t.n) < 0.5) AS equal,
       bool_and(r.counted = 'units') AS units_release
  FROM (SELECT * FROM fd_out WHERE statement = 28) o JOIN dpm.releases r ON r.id = o.release
  FULL JOIN (SELECT genre, count(DISTINCT user_id) AS n FROM fd_ratings WHERE age < 30 GROUP BY genre) t ON t.genre = o.result->>'genre';
-- the parts of those releases and their shares of the charge (the first part's is what the
-- others leave): a sum's share f / (1 - f) times a count's, f the share of an average's sums
SELECT o.statement, r.measure_id IS NOT NULL AS first_part_sums,
       (SELECT array_agg(regexp_replace(e->>'quantity', '[0-9]+', m.name) ORDER BY x.o)
          FROM jsonb_array_elements(r.extra_parts) WITH ORDINALITY x(e, o) JOIN dpm.measures m ON m.id = (e->>'measure_id')::int) AS extra_parts,
       (SELECT array_agg(round((e->>'share')::numeric, 4) ORDER BY x.o) FROM jsonb_array_elements(r.extra_parts) WITH ORDINALITY x(e, o)) AS shares,
       (SELECT array_agg(regexp_replace(x.quantity, '[0-9]+', 'id') ORDER BY x.quantity) FROM dpm.release_measurements x WHERE x.release_id = r.id) AS measured
  FROM (SELECT DISTINCT statement, release FROM fd_out WHERE statement BETWEEN 21 AND 24) o JOIN dpm.releases r ON r.id = o.release
 ORDER BY o.statement;
-- its dry run: each part's standard error as the release had it (a part's noise is decided by its
-- share alone), an average's left to the data
SET ROLE regress_fd_analyst;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE abs((e.r->>'n_stderr')::float8 / (o.result->>'n_stderr')::float8 - 1) < 1e-6
                          AND abs((e.r->>'sum_stderr')::float8 / (o.result->>'sum_stderr')::float8 - 1) < 1e-6
                          AND abs((e.r->>'timed_stderr')::float8 / (o.result->>'timed_stderr')::float8 - 1) < 1e-6
                          AND abs((e.r->>'total_stderr')::float8 / (o.result->>'total_stderr')::float8 - 1) < 1e-6
                          AND e.r ? 'mins_stderr' AND e.r->>'mins_stderr' IS NULL) AS as_released
  FROM (SELECT result, row_number() OVER (ORDER BY seq) AS k FROM fd_out WHERE statement = 21) o
  JOIN (SELECT r, n FROM dpm.explain_query($$SELECT genre, count(*) AS n, sum(rating), avg(rating), avg(minutes) AS mins,
                                                    count(minutes) AS timed, sum(minutes) AS total, avg(rating) - avg(minutes) / 60 AS mix
                                               FROM fd_ratings GROUP BY genre$$, epsilon => 1e6, delta => 1e-6, reuse => 'never') x,
                    jsonb_array_elements(x.plan->'rows') WITH ORDINALITY r(r, n)) e ON e.n = o.k;
RESET ROLE;
-- and as dpm.exact_answers gives the compiled workload's truth to the custodian
SET ROLE regress_fd_custodian;
SELECT count(*) AS queries, count(*) FILTER (WHERE abs((o.result->>'count')::numeric - e.answer::numeric) < 0.5) AS equal
  FROM (SELECT result, row_number() OVER (ORDER BY seq) AS k FROM fd_out WHERE statement = 3) o
  JOIN dpm.exact_answers((SELECT w.name FROM dpm.releases r JOIN dpm.workloads w ON w.id = r.workload_id
                           WHERE r.id = (SELECT max(release) FROM fd_out WHERE statement = 3))) e ON e.query = o.k;
RESET ROLE;
-- the row as the analyst sees it: the statement's columns in order, then each aggregate's error
SELECT json_object_keys(result) AS key FROM fd_out WHERE statement = 2 LIMIT 9;
SELECT result->>'quarter' AS quarter FROM fd_out WHERE statement = 2 ORDER BY 1 LIMIT 2;
-- one release a statement, charged once: an average with its sum and count from one release
SELECT statement, count(DISTINCT release) AS releases, min(cost) AS cost FROM fd_out GROUP BY statement ORDER BY statement;
SELECT count(*) - :charges_before AS charges FROM dpm.ledger;
SELECT r.sum_share IS NOT NULL AS average_release, m.name AS measure
  FROM dpm.releases r LEFT JOIN dpm.measures m ON m.id = r.measure_id
 WHERE r.id = (SELECT max(release) FROM fd_out WHERE statement = 2);
-- what it compiled to: a domain over the touched columns' grids, a workload of the groups
SELECT d.name AS domain, w.spec
  FROM dpm.releases r JOIN dpm.workloads w ON w.id = r.workload_id JOIN dpm.domains d ON d.id = w.domain_id
 WHERE r.id IN (SELECT release FROM fd_out) ORDER BY r.id;

-- asked again: answered at no cost from the same release, identical; reuse => 'never' measures again
SET ROLE regress_fd_analyst;
SELECT count(*) AS charges_before FROM dpm.ledger \gset
SET client_min_messages = warning;
SELECT bool_and(a.result::text = o.result::text AND a.release_id = o.release) AS identical, min(a.cost) AS cost, count(*) AS rows
  FROM dpm.answer_query('SELECT genre, count(*) FROM fd_ratings GROUP BY genre', epsilon => 1e6, delta => 1e-6) WITH ORDINALITY a(result, release_id, cost, k)
  JOIN (SELECT *, row_number() OVER (ORDER BY seq) AS k FROM fd_out WHERE statement = 1) o ON o.k = a.k;
SELECT count(*) - :charges_before AS charged FROM dpm.ledger;
SELECT count(DISTINCT release_id) AS new_release FROM dpm.answer_query('SELECT genre, count(*) FROM fd_ratings GROUP BY genre',
                                                              epsilon => 1e6, delta => 1e-6, reuse => 'never')
 WHERE release_id > (SELECT max(release) FROM fd_out);
RESET client_min_messages;
SELECT count(*) - :charges_before AS charged FROM dpm.ledger;

-- look before you spend: what it compiles to, the charge, the expected error of each row
SELECT count(*) AS charges_before FROM dpm.ledger \gset
SELECT plan->>'spec' AS spec, plan->>'aggregate' AS aggregate, plan->'release'->>'charge_epsilon' AS charge_epsilon,
       plan->>'free' AS free, jsonb_array_length(plan->'rows') AS rows, plan->'rows'->0 ? 'n_stderr' AS has_stderr,
       (plan->'rows'->0->>'n_stderr')::float8 > 0 AS positive
  FROM dpm.explain_query($$SELECT genre AS g, count(*) AS n FROM fd_ratings WHERE age >= 30 GROUP BY genre$$, epsilon => 1, delta => 1e-6);
SELECT plan->>'free' AS free, plan->>'answered_by' IS NOT NULL AS answered_by
  FROM dpm.explain_query('SELECT genre, count(*) FROM fd_ratings GROUP BY genre', epsilon => 1e6, delta => 1e-6);
SELECT plan->>'spec' AS dashboard_spec, jsonb_array_length(plan->'rows') AS rows,
       (SELECT array_agg(DISTINCT (r->>'statement')::int) FROM jsonb_array_elements(plan->'rows') r) AS statements
  FROM dpm.explain_query(ARRAY['SELECT genre, count(*) FROM fd_ratings GROUP BY genre',
                               'SELECT count(*) FROM fd_ratings WHERE age < 30'], epsilon => 1, delta => 1e-6);
-- percentiles: their groups, the charge (a percentile's error depends on the data)
SELECT plan->>'aggregate' AS aggregate, jsonb_array_length(plan->'rows') AS groups,
       plan->'release'->>'charge_epsilon' AS charge_epsilon
  FROM dpm.explain_query('SELECT genre, percentile_cont(0.5) WITHIN GROUP (ORDER BY age) FROM fd_ratings GROUP BY genre',
                         epsilon => 1, delta => 1e-6);
SELECT count(*) - :charges_before AS charged FROM dpm.ledger;

-- parameters through PREPARE: the statement and the budget are parameters of the call
PREPARE fd_ask(text, float8) AS SELECT count(*) AS rows FROM dpm.answer_query($1, epsilon => $2, delta => 1e-6);
SET client_min_messages = warning;
EXECUTE fd_ask('SELECT genre, count(*) FROM fd_ratings WHERE age < 30 GROUP BY genre', 1e6);
EXECUTE fd_ask('SELECT count(*) FROM fd_ratings WHERE age < 30', 1e6);
RESET client_min_messages;
DEALLOCATE fd_ask;

-- names resolve on the caller's search_path, as in her own statements
SET search_path = fd_elsewhere, public;
SET client_min_messages = warning;
SELECT count(*) AS rows FROM dpm.answer_query('SELECT genre, count(*) FROM fd_ratings GROUP BY genre', epsilon => 1e6, delta => 1e-6);
RESET client_min_messages;
RESET search_path;

-- the internal functions stay closed to analysts, whatever description they would pass
SELECT * FROM dpm_internal.query_answer('{"source": "public.fd_ratings"}', 1, 0, NULL, NULL, 0.95, NULL);
SELECT * FROM dpm_internal.compile_query('SELECT count(*) FROM fd_ratings');

-- refused before anything is charged, each naming what is not supported
SELECT count(*) AS charges_before FROM dpm.ledger \gset
SELECT * FROM dpm.answer_query('SELECT user_id, count(*) FROM fd_ratings GROUP BY user_id', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT count(*) FROM fd_ratings WHERE user_id = 3', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT age, count(*) FROM fd_ratings GROUP BY age', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT count(*) FROM fd_ratings WHERE age < 17', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT count(*) FROM fd_ratings WHERE age = 17', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT count(*) FROM fd_ratings WHERE age <> 15', epsilon => 1);
SELECT * FROM dpm.answer_query($$SELECT count(*) FROM fd_ratings WHERE rated_on < '2015-01-15'$$, epsilon => 1);
SELECT * FROM dpm.answer_query($$SELECT count(*) FROM fd_ratings WHERE device IS NULL OR device = 'web'$$, epsilon => 1);
SELECT * FROM dpm.answer_query($$SELECT device, count(*) FROM fd_ratings WHERE device IS NULL GROUP BY device$$, epsilon => 1);
SELECT * FROM dpm.answer_query(ARRAY['SELECT count(*) FROM fd_ratings WHERE device IS NULL',
                                     'SELECT device, count(*) FROM fd_ratings GROUP BY device'], epsilon => 1);
SELECT * FROM dpm.answer_query($$SELECT count(*) FROM fd_ratings WHERE user_id IS NULL$$, epsilon => 1);
SELECT * FROM dpm.answer_query($$SELECT count(*) FROM fd_ratings WHERE genre = 'Drama' OR age < 17$$, epsilon => 1);
SELECT * FROM dpm.answer_query($$SELECT count(*) FROM fd_ratings WHERE age >= 60$$, epsilon => 1);
SELECT * FROM dpm.answer_query($$SELECT genre, count(*) FROM fd_ratings WHERE genre = 'Horror' GROUP BY genre$$, epsilon => 1);
SELECT * FROM dpm.answer_query($$SELECT date_trunc('week', rated_on), count(*) FROM fd_ratings GROUP BY 1$$, epsilon => 1);
SELECT * FROM dpm.answer_query($$SELECT extract(day FROM rated_on), count(*) FROM fd_ratings GROUP BY 1$$, epsilon => 1);
SELECT * FROM dpm.answer_query($$SELECT floor(age / 7) * 7, count(*) FROM fd_ratings GROUP BY 1$$, epsilon => 1);
SELECT * FROM dpm.answer_query($$SELECT width_bucket(age, 0, 60, 7), count(*) FROM fd_ratings GROUP BY 1$$, epsilon => 1);
SELECT * FROM dpm.answer_query($$SELECT sum(age) FROM fd_ratings$$, epsilon => 1);
SELECT * FROM dpm.answer_query($$SELECT count(*), count(genre), percentile_cont(0.5) WITHIN GROUP (ORDER BY age) FROM fd_ratings$$, epsilon => 1);
SELECT * FROM dpm.answer_query($$SELECT genre, count(*) FROM fd_ratings GROUP BY genre$$, epsilon => -1);
-- arguments first: nothing is compiled into the catalog for a call refused on them
SELECT count(*) AS domains_before FROM dpm.domains \gset
SELECT * FROM dpm.answer_query('SELECT count(*) FROM fd_ratings WHERE rated_on >= ''2015-01-01''', epsilon => 'NaN');
SELECT * FROM dpm.explain_query('SELECT count(*) FROM fd_ratings WHERE rated_on >= ''2015-01-01''', epsilon => 1, confidence => 2);
SELECT count(*) - :domains_before AS domains_made FROM dpm.domains;
SELECT * FROM dpm.answer_query($$SELECT genre, count(*) FROM fd_ratings GROUP BY genre$$, epsilon => 1, reuse => 'sometimes');
SELECT * FROM dpm.answer_query(NULL, epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT count(*) FROM pg_class', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT * FROM fd_ratings', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT genre FROM fd_ratings', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT genre, count(*) OVER () FROM fd_ratings', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT count(*) FROM fd_ratings WHERE user_id IN (SELECT 1)', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT ctid, count(*) FROM fd_ratings GROUP BY ctid', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT genre, count(*) FROM fd_ratings GROUP BY genre HAVING sum(rating) > 3', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT DISTINCT genre FROM fd_ratings', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT max(rating) FROM fd_ratings', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT count(*) FROM fd_ratings a JOIN fd_ratings b USING (user_id)', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT count(DISTINCT genre) FROM fd_ratings', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT count(DISTINCT user_id), count(*) FROM fd_ratings', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT sum(DISTINCT rating) FROM fd_ratings', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT count(*) FILTER (WHERE age > 3) FROM fd_ratings', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT sum(rating * 2) FROM fd_ratings', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT count(*) + random() FROM fd_ratings', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT count(*) * 2 FROM fd_ratings HAVING count(*) * 3 > 1', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT count(*)::text::regclass FROM fd_ratings', epsilon => 1);
SELECT * FROM dpm.answer_query($$SELECT genre || 'x', count(*) FROM fd_ratings GROUP BY 1$$, epsilon => 1);
SELECT * FROM dpm.answer_query($$SELECT count(*) FROM fd_ratings WHERE genre LIKE 'D%'$$, epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT count(*) FROM fd_ratings WHERE age + 1 > 3', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT count(*) FROM fd_ratings WHERE age > user_id', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT count(*) FROM fd_ratings WHERE age = NULL', epsilon => 1);
SELECT * FROM dpm.answer_query($$SELECT count(*) FROM fd_ratings WHERE genre IN ('Drama', NULL)$$, epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT count(*) FROM fd_ratings WHERE rated_on > now()', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT count(*) FROM fd_ratings TABLESAMPLE SYSTEM (10)', epsilon => 1);
SELECT * FROM dpm.answer_query('WITH t AS (SELECT * FROM fd_ratings) SELECT count(*) FROM t', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT count(*) FROM (SELECT * FROM fd_ratings) s', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT count(*) FROM fd_ratings UNION SELECT 1', epsilon => 1);
SELECT * FROM dpm.answer_query('VALUES (1)', epsilon => 1);
SELECT * FROM dpm.answer_query('DELETE FROM fd_ratings', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT count(*) FROM fd_ratings; SELECT 1', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY rating) FROM fd_ratings', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT genre, grouping(genre), count(*) FROM fd_ratings GROUP BY ROLLUP (genre)', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT genre, count(*) FROM fd_ratings GROUP BY genre ORDER BY avg(rating)', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT xmin, count(*) FROM fd_ratings GROUP BY xmin', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT genre, count(*) FROM fd_ratings GROUP BY genre HAVING count(*) > age', epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT genre, count(*) FROM fd_ratings GROUP BY genre HAVING count(*) > ''many''', epsilon => 1);
SELECT * FROM dpm.answer_query(ARRAY['SELECT count(*) FROM fd_ratings', 'SELECT count(*) FROM fd_out'], epsilon => 1);
SELECT * FROM dpm.answer_query(ARRAY['SELECT sum(rating) FROM fd_ratings', 'SELECT count(*), avg(age) FROM fd_ratings'], epsilon => 1);
SELECT * FROM dpm.answer_query('SELECT count(rating), sum(rating), sum(minutes) FROM fd_ratings', epsilon => 1);
SELECT * FROM dpm.answer_query(ARRAY['SELECT count(*) FROM fd_ratings', NULL], epsilon => 1);
SELECT * FROM dpm.answer_query(ARRAY[]::text[], epsilon => 1);
SELECT * FROM dpm.answer_query(ARRAY['SELECT count(*) FROM fd_ratings', 'SELECT genre FROM fd_ratings'], epsilon => 1);
SELECT count(*) - :charges_before AS charged FROM dpm.ledger;
-- privacy policies: a role's own budget inside the source's, a default and a largest charge per
-- statement; without one the front door is closed to a role that cannot read the table
RESET ROLE;
CREATE ROLE regress_fd_analyst2 IN ROLE dpm_analyst;
SET ROLE regress_fd_analyst2;
SELECT * FROM dpm.answer_query('SELECT count(*) FROM fd_ratings', epsilon => 1);
SELECT * FROM dpm.explain_query('SELECT count(*) FROM fd_ratings', epsilon => 1);
RESET ROLE;
SET ROLE regress_fd_custodian;
SELECT dpm.set_privacy_policy('fd_ratings', 'regress_fd_analyst2', epsilon => 2.5, delta => 1e-5,
                              statement_epsilon => 1, max_statement_epsilon => 1.5);
SELECT role_name, epsilon, delta, rho, statement_epsilon, max_statement_epsilon FROM dpm.privacy_policies ORDER BY role_name::text;
-- refused, changing nothing: another model's parameter, more than the source has, a default above its cap
SELECT dpm.set_privacy_policy('fd_ratings', 'regress_fd_analyst2', rho => 1);
SELECT dpm.set_privacy_policy('fd_ratings', 'regress_fd_analyst2', epsilon => 1e13);
SELECT dpm.set_privacy_policy('fd_ratings', 'regress_fd_analyst2', epsilon => 1, statement_epsilon => 0.5, max_statement_epsilon => 0.2);
SELECT dpm.set_privacy_policy('fd_ratings', 'regress_fd_analyst2', epsilon => -1);
SELECT dpm.set_privacy_policy('fd_ratings', NULL, epsilon => 1);
SELECT dpm.drop_privacy_policy('fd_ratings', 'regress_fd_custodian');
RESET ROLE;
SET ROLE regress_fd_analyst2;
SET client_min_messages = warning;
-- no budget given: the policy's default, epsilon 1; its explain says so first
SELECT plan->'release'->>'charge_epsilon' AS charge FROM dpm.explain_query('SELECT genre, count(*) FROM fd_ratings GROUP BY genre');
SELECT count(*) AS rows FROM dpm.answer_query('SELECT genre, count(*) FROM fd_ratings GROUP BY genre', reuse => 'never');
-- above the policy's largest charge for a statement
SELECT * FROM dpm.answer_query('SELECT count(*) FROM fd_ratings', epsilon => 2);
SELECT count(*) AS rows FROM dpm.answer_query('SELECT count(*) FROM fd_ratings', epsilon => 1.5, reuse => 'never');
-- the policy is spent (2.5 of 2.5), though the source is not: refused, and so is dpm.answer, which
-- the policy binds as well
SELECT * FROM dpm.answer_query('SELECT count(*) FROM fd_ratings WHERE age < 30', epsilon => 0.1, reuse => 'never');
SELECT * FROM dpm.answer((SELECT w.name FROM dpm.workloads w WHERE w.spec = 'Total(rows)'), epsilon => 0.1, reuse => 'never');
RESET client_min_messages;
-- dpm.budget: the source's, then the policy the analyst acts under
SELECT coalesce(role_name::text, 'source') AS budget_of, epsilon_budget, epsilon_spent, epsilon_remaining, releases
  FROM dpm.budget('fd_ratings') WHERE role_name IS NULL OR role_name = 'regress_fd_analyst2'::regrole;
SELECT count(*) AS policies_seen FROM dpm.privacy_policies;
RESET ROLE;
SET ROLE regress_fd_custodian;
SELECT dpm.drop_privacy_policy('fd_ratings', 'regress_fd_analyst2');
RESET ROLE;
SET ROLE regress_fd_analyst;

-- an analyst's own function or operator is never run by the front door
CREATE FUNCTION fd_elsewhere.date_trunc(text, date) RETURNS date LANGUAGE sql AS 'SELECT $2';
CREATE FUNCTION fd_elsewhere.fd_eq(date, date) RETURNS boolean LANGUAGE sql AS 'SELECT true';
CREATE OPERATOR fd_elsewhere.= (FUNCTION = fd_elsewhere.fd_eq, LEFTARG = date, RIGHTARG = date);
SET search_path = fd_elsewhere, public, pg_catalog;
SELECT * FROM dpm.answer_query($$SELECT date_trunc('month', rated_on) AS m, count(*) FROM fd_ratings GROUP BY 1$$, epsilon => 1);
SELECT * FROM dpm.answer_query($$SELECT count(*) FROM fd_ratings WHERE rated_on = date '2015-01-01'$$, epsilon => 1);
RESET search_path;
RESET ROLE;
DROP SCHEMA fd_elsewhere CASCADE;
