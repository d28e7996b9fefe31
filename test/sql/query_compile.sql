-- The SQL front door's compiler (issue 44, item 2, first part): an analyst's SELECT parsed and
-- analyzed by PostgreSQL's own parser (never by matching strings), described as the front door
-- maps it, or refused naming the construct and saying what is supported.  Nothing runs: the
-- table is never read (its privileges stay as they are).
\set SHOW_CONTEXT never
CREATE TABLE qc_people (id int, sex text, age int, joined date, member boolean, rating numeric,
                        region varchar(10));
CREATE TABLE qc_other (id int);
CREATE ROLE regress_qc_analyst;
GRANT USAGE ON SCHEMA dpm_internal TO regress_qc_analyst;
GRANT EXECUTE ON FUNCTION dpm_internal.compile_query(text) TO regress_qc_analyst;

-- supported: grouping columns and count, sum, avg of columns, in any order and with aliases
SELECT jsonb_pretty(dpm_internal.compile_query('SELECT sex, count(*) FROM qc_people GROUP BY sex'));
SELECT dpm_internal.compile_query('SELECT count(*) AS n, sum(rating), sex, avg(rating) AS mean FROM qc_people GROUP BY sex');
SELECT dpm_internal.compile_query('SELECT count(*) FROM qc_people');
SELECT dpm_internal.compile_query('SELECT sex, region, count(age) FROM public.qc_people GROUP BY region, sex');
-- WHERE: comparisons either way round (the operator seen from the column), BETWEEN as two
-- comparisons, IN and NOT IN lists, IS [NOT] NULL, AND, OR, NOT; constants as their type's text
SELECT dpm_internal.compile_query('SELECT count(*) FROM qc_people WHERE age >= 18 AND 65 > age')->'where';
SELECT dpm_internal.compile_query('SELECT count(*) FROM qc_people WHERE age BETWEEN 18 AND 64')->'where';
SELECT dpm_internal.compile_query($$SELECT count(*) FROM qc_people WHERE sex IN ('F', 'M') OR region NOT IN ('north')$$)->'where';
SELECT dpm_internal.compile_query($$SELECT count(*) FROM qc_people WHERE region NOT IN ('north', 'south')$$)->'where';
SELECT dpm_internal.compile_query($$SELECT count(*) FROM qc_people WHERE NOT (member IS NULL) AND joined < '2025-01-01'$$)->'where';
SELECT dpm_internal.compile_query($$SELECT count(*) FROM qc_people WHERE region = 'o''brien' AND sex <> 'F'$$)->'where';
-- GROUP BY generalizations of a column that can fall on its grid, by position or alias too
SELECT dpm_internal.compile_query($$SELECT date_trunc('month', joined), count(*) FROM qc_people GROUP BY 1$$)->'columns';
SELECT dpm_internal.compile_query('SELECT extract(year FROM joined) AS y, count(*) FROM qc_people GROUP BY y')->'group_by';
SELECT dpm_internal.compile_query($$SELECT date_part('month', joined), count(*) FROM qc_people GROUP BY 1$$)->'group_by';
SELECT dpm_internal.compile_query('SELECT width_bucket(age, 0, 100, 10), count(*) FROM qc_people GROUP BY 1')->'group_by';
SELECT dpm_internal.compile_query('SELECT floor(rating / 0.5) * 0.5 AS r, count(*) FROM qc_people GROUP BY 1')->'group_by';
SELECT dpm_internal.compile_query('SELECT age / 10 * 10 AS decade, sex, count(*) FROM qc_people GROUP BY decade, sex')->'group_by';
-- GROUPING SETS, ROLLUP and CUBE: each set as positions in group_by
SELECT dpm_internal.compile_query('SELECT sex, region, count(*) FROM qc_people GROUP BY ROLLUP (sex, region)')->'grouping_sets';
SELECT dpm_internal.compile_query('SELECT sex, region, count(*) FROM qc_people GROUP BY CUBE (region, sex)')->'grouping_sets';
SELECT dpm_internal.compile_query('SELECT sex, count(*) FROM qc_people GROUP BY GROUPING SETS ((sex), ())')->'grouping_sets';
-- HAVING, ORDER BY, LIMIT and OFFSET over the statement's own columns (by position), applied to the answers
SELECT q->'having' AS having, q->'order_by' AS order_by, q->'limit' AS lim, q->'offset' AS off
  FROM dpm_internal.compile_query('SELECT sex, count(*) AS n, avg(age) FROM qc_people GROUP BY sex
                                   HAVING count(*) > 10 AND NOT (avg(age) < 3 OR sex = ''F'') ORDER BY n DESC, 1 LIMIT 5 OFFSET 1') q;
SELECT dpm_internal.compile_query('SELECT sex, count(*) FROM qc_people GROUP BY sex HAVING 10 <= count(*) ORDER BY sex NULLS FIRST')->'having';
-- what the analyst may not read is still analyzed, not run
SET ROLE regress_qc_analyst;
SELECT dpm_internal.compile_query('SELECT sex, count(*) FROM qc_people GROUP BY sex')->>'source';
SELECT count(*) FROM qc_people;
RESET ROLE;

-- refused before anything runs, naming the construct
SELECT dpm_internal.compile_query('SELECT * FROM qc_people');
SELECT dpm_internal.compile_query('SELECT id FROM qc_people');
SELECT dpm_internal.compile_query('SELECT sex, count(*) FROM qc_people');
SELECT dpm_internal.compile_query('SELECT count(*) FROM qc_people; SELECT 1');
SELECT dpm_internal.compile_query('DELETE FROM qc_people');
SELECT dpm_internal.compile_query('SELECT count(*) FROM qc_people UNION SELECT count(*) FROM qc_people');
SELECT dpm_internal.compile_query('WITH t AS (SELECT * FROM qc_people) SELECT count(*) FROM t');
SELECT dpm_internal.compile_query('SELECT count(*) FROM (SELECT * FROM qc_people) s');
SELECT dpm_internal.compile_query('SELECT count(*) FROM qc_people p JOIN qc_other o ON o.id = p.id');
SELECT dpm_internal.compile_query('SELECT count(*) FROM qc_people, qc_other');
SELECT dpm_internal.compile_query('SELECT count(*) FROM qc_people WHERE id IN (SELECT id FROM qc_other)');
SELECT dpm_internal.compile_query('SELECT count(*) OVER () FROM qc_people');
SELECT dpm_internal.compile_query('SELECT DISTINCT sex FROM qc_people');
SELECT dpm_internal.compile_query('SELECT count(DISTINCT sex) FROM qc_people');    -- of the privacy unit only: query_plan decides
SELECT dpm_internal.compile_query('SELECT sum(DISTINCT age) FROM qc_people');
SELECT dpm_internal.compile_query('SELECT count(*) FILTER (WHERE age > 3) FROM qc_people');
SELECT dpm_internal.compile_query('SELECT max(age) FROM qc_people');
SELECT dpm_internal.compile_query('SELECT sum(age * 2) FROM qc_people');
SELECT dpm_internal.compile_query('SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY age) FROM qc_people');
SELECT dpm_internal.compile_query('SELECT count(*) * 2 FROM qc_people');
SELECT dpm_internal.compile_query('SELECT age / 10, count(*) FROM qc_people GROUP BY age / 10');
SELECT dpm_internal.compile_query('SELECT floor(age / 10) * 5, count(*) FROM qc_people GROUP BY 1');
SELECT dpm_internal.compile_query('SELECT age + 1, count(*) FROM qc_people GROUP BY 1');
SELECT dpm_internal.compile_query('SELECT sex || region, count(*) FROM qc_people GROUP BY 1');
SELECT dpm_internal.compile_query('SELECT sex, count(*) FROM qc_people GROUP BY sex HAVING sum(age) > 10');
SELECT dpm_internal.compile_query('SELECT sex, count(*) FROM qc_people GROUP BY sex HAVING count(*) > avg(age)');
SELECT dpm_internal.compile_query('SELECT sex, count(*) FROM qc_people GROUP BY sex ORDER BY avg(age)');
SELECT dpm_internal.compile_query('SELECT sex, count(*) FROM qc_people GROUP BY sex ORDER BY 1 USING ~<~');
SELECT dpm_internal.compile_query('SELECT sex, count(*) FROM qc_people GROUP BY sex LIMIT (SELECT 1)');
SELECT dpm_internal.compile_query('SELECT sex, count(*) FROM qc_people GROUP BY sex ORDER BY 2 FETCH FIRST 1 ROWS WITH TIES');
SELECT dpm_internal.compile_query('SELECT sex, grouping(sex), count(*) FROM qc_people GROUP BY ROLLUP (sex)');
SELECT dpm_internal.compile_query('SELECT count(*) FROM qc_people WHERE age + 1 > 3');
SELECT dpm_internal.compile_query('SELECT count(*) FROM qc_people WHERE age > id');
SELECT dpm_internal.compile_query('SELECT count(*) FROM qc_people WHERE sex LIKE ''F%''');
SELECT dpm_internal.compile_query('SELECT count(*) FROM qc_people WHERE age = NULL');
SELECT dpm_internal.compile_query('SELECT count(*) FROM qc_people WHERE sex IN (''F'', NULL)');
SELECT dpm_internal.compile_query('SELECT count(*) FROM qc_people WHERE xmin = ''1''');
SELECT dpm_internal.compile_query('SELECT count(*) FROM qc_people TABLESAMPLE SYSTEM (10)');
SELECT dpm_internal.compile_query('SELECT count(*) FROM qc_people FOR UPDATE');
SELECT dpm_internal.compile_query('VALUES (1)');
SELECT dpm_internal.compile_query('SELECT count(*) FROM no_such_table');
SELECT dpm_internal.compile_query('SELEC count(*)');
