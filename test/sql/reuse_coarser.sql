-- Reuse across domains (issue 24): releases over a finer domain answer the queries of a coarser
-- one, whose cells are unions of theirs, at no cost.  The cell map comes from the definitions
-- (and NOT NULL constraints) alone, never from the rows.
\set SHOW_CONTEXT never
SET client_min_messages = warning;
SET dpm.reuse = auto;
CREATE TABLE rc_people AS
  SELECT u AS unit, (u * 7) % 100 AS age, CASE WHEN u % 3 = 0 THEN 'F' ELSE 'M' END AS sex, u % 2 = 0 AS member,
         date '2024-01-01' + (u % 366) AS day
    FROM generate_series(1, 2000) u;
ALTER TABLE rc_people ALTER COLUMN age SET NOT NULL, ALTER COLUMN member SET NOT NULL;
SELECT dpm.register_source('rc_people', 'unit', 1, epsilon => 1000);
CREATE FUNCTION pg_temp.dom(text) RETURNS dpm.domains LANGUAGE sql AS $$ SELECT d FROM dpm.domains d WHERE d.name = $1 $$;

-- fine: ages by 10 x sex (a catch-all last bin: every row is in one)
SELECT dpm.create_domain('rc_fine', 'rc_people', '[{"name": "age", "bins": {"min": 0, "max": 100, "width": 10}},
  {"name": "sex", "bins": [{"label": "F", "condition": "sex = ''F''"}, {"label": "other", "condition": "true"}]}]');
SELECT dpm.create_domain('rc_age20', 'rc_people', '[{"name": "age", "bins": {"min": 0, "max": 100, "width": 20}}]');
SELECT dpm.create_domain('rc_age15', 'rc_people', '[{"name": "age", "bins": {"min": 0, "max": 100, "width": 15}}]');
SELECT dpm.create_domain('rc_age_40_80', 'rc_people', '[{"name": "age", "bins": [{"lo": 40, "hi": 60}, {"lo": 60, "hi": 80}]}]');
SELECT dpm.create_domain('rc_under60', 'rc_people', '[{"name": "age", "bins": [{"hi": 60}, {"lo": 60, "hi": 100}]}]');
SELECT dpm.create_domain('rc_sex', 'rc_people', '[{"name": "sex", "bins": [{"label": "F", "condition": "sex = ''F''"}, {"label": "other", "condition": "true"}]}]');
-- open-ended ages over a NOT NULL column and a NOT NULL boolean: both hold every row
SELECT dpm.create_domain('rc_open', 'rc_people', '[{"name": "member", "values": [true, false]},
  {"name": "age", "bins": [{"hi": 30}, {"lo": 30, "hi": 60}, {"lo": 60}]}]');
SELECT dpm.create_domain('rc_member', 'rc_people', '[{"name": "member", "values": [true]}]');
SELECT dpm.create_domain('rc_age60', 'rc_people', '[{"name": "years", "column": "age", "bins": [{"hi": 60}, {"lo": 60}]}]');
-- calendar bins: months nest in quarters, weeks do not
SELECT dpm.create_domain('rc_month', 'rc_people', '[{"name": "day", "bins": {"min": "2024-01-01", "max": "2025-01-01", "width": "1 month"}}]');
SELECT dpm.create_domain('rc_quarter', 'rc_people', '[{"name": "day", "bins": {"min": "2024-01-01", "max": "2025-01-01", "width": "3 months"}}]');
SELECT dpm.create_domain('rc_week', 'rc_people', '[{"name": "day", "bins": {"min": "2024-01-01", "max": "2025-01-01", "width": "1 week"}}]');
-- values: a subset nests, a value the finer domain lacks does not
SELECT dpm.create_domain('rc_sex_values', 'rc_people', '[{"name": "sex", "values": ["F", "M", "X"]}]');
SELECT dpm.create_domain('rc_sex_m', 'rc_people', '[{"name": "sex", "values": ["M"]}]');
SELECT dpm.create_domain('rc_sex_my', 'rc_people', '[{"name": "sex", "values": ["M", "Y"]}]');

-- the maps (fine cell -> coarse cell, -1: in none; the last attribute varies fastest)
SELECT f.name AS fine, c.name AS coarse, dpm_internal.cell_map(f, c) AS map
  FROM (VALUES (1, 'rc_fine', 'rc_age20'),
               (2, 'rc_fine', 'rc_age_40_80'),
               (3, 'rc_fine', 'rc_fine'),
               (4, 'rc_fine', 'rc_age15'),       -- [0,15) is not a union of ages by 10
               (5, 'rc_fine', 'rc_under60'),     -- [-inf,60) holds ages below 0, in no fine cell
               (6, 'rc_fine', 'rc_sex'),         -- ages by 10 miss ages past 100: not summed out
               (7, 'rc_age20', 'rc_fine'),       -- coarser to finer
               (8, 'rc_open', 'rc_member'),
               (9, 'rc_open', 'rc_age60'),
               (10, 'rc_open', 'rc_under60'),
               (11, 'rc_month', 'rc_quarter'),
               (12, 'rc_month', 'rc_week'),
               (13, 'rc_sex_values', 'rc_sex_m'),
               (14, 'rc_sex_values', 'rc_sex_my'),
               (15, 'rc_sex_values', 'rc_sex'))
         AS p(k, fn, cn), LATERAL pg_temp.dom(p.fn) f, LATERAL pg_temp.dom(p.cn) c
 ORDER BY p.k;

SELECT dpm.create_workload('rc_fine_id', 'rc_fine', 'Identity(age) * Identity(sex)');
SELECT dpm.create_workload('rc_age20_id', 'rc_age20', 'Identity(age)');
SELECT dpm.create_workload('rc_age20_prefix', 'rc_age20', 'Prefix(age)');
SELECT dpm.create_workload('rc_age15_id', 'rc_age15', 'Identity(age)');
SELECT dpm.create_workload('rc_sex_id', 'rc_sex', 'Identity(sex)');
SELECT count(*) AS ledger_before FROM dpm.ledger \gset

-- nothing measured: reuse only refuses, charging nothing
SELECT * FROM dpm.answer('rc_age20_id', epsilon => 1, reuse => 'only');
-- every fine cell (identity, Laplace scale 1: variance 2)
SELECT * INTO TEMP rc_f FROM dpm.answer('rc_fine_id', epsilon => 1, method => 'identity');
-- each age by 20 is the sum of 4 fine cells: that sum exactly, stderr sqrt(4 * 2), determined, free
SELECT e.query, e.label, e.determined,
       abs(e.answer - (SELECT sum(f.answer) FROM rc_f f WHERE (f.query - 1) / 4 = e.query - 1)) < 1e-9 * 2000 AS sum_of_fine,
       abs(e.stderr - sqrt(8)) < 1e-9 AS stderr
  FROM dpm.estimate('rc_age20_id') e ORDER BY e.query;
-- reuse auto takes a free answer when it is at least as accurate as the workload measured through
-- itself at the privacy asked: variance 8 here, 2 / epsilon^2 for that release, so at epsilon 0.5
-- (8) every query is free and at epsilon 1 (2) none is (dpm.explain shows it, charging nothing)
SELECT e.epsilon, x.free_queries, x.queries FROM (VALUES (0.5), (1)) e(epsilon), LATERAL dpm.explain('rc_age20_id', epsilon => e.epsilon) x;
-- dpm.answer with reuse auto answers from them at no cost, as dpm.estimate does; so do prefixes
SELECT bool_and(abs(a.answer - e.answer) < 1e-9 * 2000 AND abs(a.stderr - e.stderr) < 1e-12) AS as_estimate, count(*) AS queries
  FROM dpm.answer('rc_age20_id', epsilon => 0.5) a JOIN dpm.estimate('rc_age20_id') e USING (query);
SELECT query, abs(answer - (SELECT sum(f.answer) FROM rc_f f WHERE (f.query - 1) / 4 < p.query)) < 1e-9 * 2000 AS prefix,
       abs(stderr - sqrt(8 * query)) < 1e-9 AS stderr
  FROM dpm.answer('rc_age20_prefix', epsilon => 1, reuse => 'only') p ORDER BY query;
-- the sexes are not determined (ages past 100 are in no fine cell): reuse only refuses, and so
-- do ages by 15
SELECT * FROM dpm.answer('rc_sex_id', epsilon => 1, reuse => 'only');
SELECT * FROM dpm.answer('rc_age15_id', epsilon => 1, reuse => 'only');
SELECT count(*) - :ledger_before AS charges FROM dpm.ledger;

-- a release of the coarse domain itself combines with the fine one: per age by 20, weights
-- 1 / variance, var = 8 v / (8 + v) for the coarse release's variance v (Laplace scale 1/0.5: v = 8)
SELECT * INTO TEMP rc_c FROM dpm.answer('rc_age20_id', epsilon => 0.5, method => 'identity', reuse => 'never');
SELECT e.query, abs(e.stderr - sqrt(8 * 8 / 16.0)) < 1e-9 AS combined_stderr,
       abs(e.answer - ((SELECT sum(f.answer) FROM rc_f f WHERE (f.query - 1) / 4 = e.query - 1) / 8 + c.answer / 8)
                      / (1 / 8.0 + 1 / 8.0)) < 1e-9 * 2000 AS combined_answer
  FROM dpm.estimate('rc_age20_id') e JOIN rc_c c USING (query) ORDER BY e.query;
-- the fine domain's own estimate gains nothing from the coarse release but its sums: the
-- fine cells' stderr drops below sqrt(2), and their total over an age by 20 is the combined one
SELECT bool_and(e.stderr < sqrt(2) AND e.stderr > 1) AS finer_cells_improve,
       abs(sum(e.answer) FILTER (WHERE e.query <= 4)
           - (SELECT answer FROM dpm.estimate('rc_age20_id') WHERE query = 1)) < 1e-9 * 2000 AS consistent
  FROM dpm.estimate('rc_fine_id') e;

-- another source's domains are never used, even over the same column and bins
CREATE TABLE rc_other AS SELECT * FROM rc_people;
ALTER TABLE rc_other ALTER COLUMN age SET NOT NULL;
SELECT dpm.register_source('rc_other', 'unit', 1, epsilon => 1000);
SELECT dpm.create_domain('rc_other_age20', 'rc_other', '[{"name": "age", "bins": {"min": 0, "max": 100, "width": 20}}]');
SELECT dpm.create_workload('rc_other_id', 'rc_other_age20', 'Identity(age)');
SELECT * FROM dpm.answer('rc_other_id', epsilon => 1, reuse => 'only');
SELECT dpm_internal.cell_map(pg_temp.dom('rc_fine'), pg_temp.dom('rc_other_age20')) AS other_source;
-- dpm.explain counts the free queries
SELECT free_queries FROM dpm.explain('rc_age20_prefix', epsilon => 1);

-- a wide domain (135 cells, more than dpm.max_cells: no dense cells) combines its residual
-- releases residual by residual: one release is estimated as it answered, two equal ones halve
-- the variances, a marginal of the measured ones is free, and a 3-way one (a residual none
-- measured) is not determined
SET dpm.max_cells = 100;
CREATE TABLE rc_wide AS SELECT u AS unit, u % 3 AS a, (u / 3) % 3 AS b, (u / 9) % 3 AS c, (u / 27) % 5 AS d
  FROM generate_series(1, 2700) u;
SELECT dpm.register_source('rc_wide', 'unit', 1, rho => 100);
SELECT dpm.create_domain('rc_wide_abc', 'rc_wide', '[{"name": "a", "values": [0, 1, 2]}, {"name": "b", "values": [0, 1, 2]},
  {"name": "c", "values": [0, 1, 2]}, {"name": "d", "values": [0, 1, 2, 3, 4]}]');
SELECT dpm.create_workload('rc_wide_2', 'rc_wide_abc', 'Marginals(2)');
SELECT dpm.create_workload('rc_wide_ab', 'rc_wide_abc', 'Marginal(a, b)');
SELECT dpm.create_workload('rc_wide_abc3', 'rc_wide_abc', 'Marginal(a, b, c)');
SELECT * INTO TEMP rc_w1 FROM dpm.answer('rc_wide_2', rho => 0.5, method => 'residual', confidence => NULL, reuse => 'never');
SELECT bool_and(abs(e.answer - a.answer) < 1e-9 * 2700) AS as_released, bool_and(abs(e.stderr - a.stderr) < 1e-9 * a.stderr) AS same_stderr,
       bool_and(abs((e.ci_high - e.ci_low) / 2 - 1.959963984540054 * e.stderr) < 1e-9 * e.stderr) AS normal_interval,
       bool_and(e.determined) AS determined, count(*) AS queries
  FROM dpm.estimate('rc_wide_2') e JOIN rc_w1 a USING (query);
SELECT * INTO TEMP rc_w2 FROM dpm.answer('rc_wide_2', rho => 0.5, method => 'residual', confidence => NULL, reuse => 'never');
SELECT bool_and(abs(e.stderr ^ 2 - a.stderr ^ 2 / 2) < 1e-9 * e.stderr ^ 2) AS variance_halved,
       bool_and(abs(e.answer - (a.answer + b.answer) / 2) < 1e-9 * 2700) AS mean_of_both
  FROM dpm.estimate('rc_wide_2', confidence => NULL) e JOIN rc_w1 a USING (query) JOIN rc_w2 b USING (query);
SELECT count(*) AS ledger_wide FROM dpm.ledger \gset
SELECT count(*) AS free, bool_and(a.stderr > 0) AS answered FROM dpm.answer('rc_wide_ab', rho => 0.5, reuse => 'only') a;
SELECT * FROM dpm.answer('rc_wide_abc3', rho => 0.5, reuse => 'only');
SELECT count(*) - :ledger_wide AS charges FROM dpm.ledger;
-- under Laplace noise too (a plan of weighted tables): estimated as released
CREATE TABLE rc_widel AS SELECT * FROM rc_wide;
SELECT dpm.register_source('rc_widel', 'unit', 1, epsilon => 100);
SELECT dpm.create_domain('rc_widel_abc', 'rc_widel', '[{"name": "a", "values": [0, 1, 2]}, {"name": "b", "values": [0, 1, 2]},
  {"name": "c", "values": [0, 1, 2]}, {"name": "d", "values": [0, 1, 2, 3, 4]}]');
SELECT dpm.create_workload('rc_widel_2', 'rc_widel_abc', 'Marginals(2)');
SET dpm.max_cells = 200;     -- the Laplace plan may measure larger tables; the domain stays wide
SELECT * INTO TEMP rc_wl FROM dpm.answer('rc_widel_2', epsilon => 1, method => 'residual', confidence => NULL, reuse => 'never');
SELECT bool_and(abs(e.answer - a.answer) < 1e-9 * 2700) AS as_released, bool_and(abs(e.stderr - a.stderr) < 1e-9 * a.stderr) AS same_stderr,
       bool_and(e.ci_low IS NULL) AS no_interval, count(*) AS queries
  FROM dpm.estimate('rc_widel_2') e JOIN rc_wl a USING (query);
RESET dpm.max_cells;

DELETE FROM dpm.ledger WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'rc\_%');
DELETE FROM dpm.releases WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'rc\_%');
DELETE FROM dpm.domains WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'rc\_%');
DELETE FROM dpm.sources WHERE relation::text LIKE 'rc\_%';
DROP TABLE rc_people, rc_other, rc_wide, rc_widel;
