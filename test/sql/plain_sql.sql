-- Plain SQL over a source (issue 45, item 1): a role whose privacy policy says plain_sql types
-- its SELECT ... GROUP BY as if it could read the table, and gets the statement's own columns
-- with their SQL types, answered privately (src/query/plain.c).  Answers are compared with the
-- truth at an epsilon so large that the noise is tiny (Gaussian, sd 0.05 for a count, 0.2 for a
-- sum): a count within 0.5 (10 sd, a false alarm below 1e-20) is its rounded truth.  Roles
-- without such a policy, and tables that are not sources, behave as before; refusals charge nothing.
\set SHOW_CONTEXT never
LOAD 'dpmatrix';
SET dpm.reuse = auto;
CREATE TABLE ps_ratings AS
  SELECT 1 + g % 97 AS user_id,
         (ARRAY['Drama', 'Comedy', 'Action'])[1 + g % 3] AS genre,
         ((g * 7) % 10 + 1) / 2.0 AS rating,
         date '2014-01-01' + (g * 13) % 730 AS rated_on,
         (g * 11) % 60 AS age
    FROM generate_series(1, 3000) g;
CREATE TABLE ps_open (genre text, n int);
INSERT INTO ps_open VALUES ('Drama', 1), ('Drama', 2), ('Comedy', 3);
CREATE ROLE regress_ps_custodian IN ROLE dpm_admin;
CREATE ROLE regress_ps_plain IN ROLE dpm_analyst;
CREATE ROLE regress_ps_call IN ROLE dpm_analyst;
CREATE ROLE regress_ps_none IN ROLE dpm_analyst;
GRANT SELECT ON ps_ratings TO regress_ps_custodian;
GRANT SELECT ON ps_open TO regress_ps_plain, regress_ps_call, regress_ps_none;
SET ROLE regress_ps_custodian;
SET client_min_messages = warning;
SELECT dpm.register_source('ps_ratings', 'user_id', max_contributions => 40, epsilon => 1e12, delta => 1e-3);
SELECT count(*) AS columns FROM dpm.set_column_domains('ps_ratings', '[
  {"column": "genre", "values": ["Drama", "Comedy", "Action"]},
  {"column": "rated_on", "bins": {"min": "2014-01-01", "max": "2016-01-01", "width": "1 month"}},
  {"column": "age", "bins": {"min": 0, "max": 60, "width": 5}},
  {"column": "rating", "measure": {"lo": 0, "hi": 5}}]');
-- plain statements of regress_ps_plain are answered at its policy's statement budget; those of
-- regress_ps_call are not (it calls dpm.answer_query); regress_ps_none has no policy
SELECT dpm.set_privacy_policy('ps_ratings', 'regress_ps_plain', epsilon => 1e11, delta => 1e-3,
                              statement_epsilon => 1e6, statement_delta => 1e-6, plain_sql => true);
SELECT dpm.set_privacy_policy('ps_ratings', 'regress_ps_call', epsilon => 1e11, delta => 1e-3,
                              statement_epsilon => 1e6, statement_delta => 1e-6);
SELECT role_name, plain_sql FROM dpm.privacy_policies WHERE role_name::text LIKE 'regress_ps%' ORDER BY 1;
RESET client_min_messages;
RESET ROLE;
CREATE TABLE ps_truth AS SELECT genre, count(*) AS n, sum(rating) AS s FROM ps_ratings GROUP BY genre;
GRANT SELECT ON ps_truth TO regress_ps_plain;
SELECT count(*) AS charges_before FROM dpm.ledger \gset

-- the statement as is: its own columns and types
SET ROLE regress_ps_plain;
SET client_min_messages = warning;
SELECT genre, count(*) AS n FROM ps_ratings GROUP BY genre \gdesc
-- counts are bigint (rounded: exact at this epsilon); the sum and average are numeric, as rating is
SELECT genre, count(*) AS n, count(*) * 2 AS twice FROM ps_ratings GROUP BY genre ORDER BY genre;
SELECT sum(rating) AS s, avg(rating) AS a FROM ps_ratings WHERE genre = 'Drama' \gdesc
SELECT sum(rating) AS s, avg(rating) AS a FROM ps_ratings WHERE genre = 'Drama' \gset
SELECT abs(:s - s) < 2 AS sum_equal, abs(:a - s / n) < 0.01 AS avg_equal FROM ps_truth WHERE genre = 'Drama';
SELECT date_trunc('year', rated_on) AS y, floor(age / 30) * 30 AS band, count(*)
  FROM ps_ratings WHERE genre <> 'Comedy' GROUP BY 1, 2 ORDER BY 1, 2 \gdesc
SELECT date_trunc('year', rated_on) AS y, floor(age / 30) * 30 AS band, count(*) > 0 AS counted
  FROM ps_ratings WHERE genre <> 'Comedy' GROUP BY 1, 2 ORDER BY 1, 2;
-- every form of statement the front door answers, typed as is, equals dpm.answer_query of its
-- text (which replays the plain statement's release: the same numbers, counts rounded to integers)
CREATE FUNCTION pg_temp.ps_same(statement text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r record;
  plain jsonb[] := '{}';
  k int := 0;
  a jsonb;
  b jsonb;
  key text;
  n int := 0;
BEGIN
  FOR r IN EXECUTE statement LOOP
    plain := plain || to_jsonb(r);
  END LOOP;
  FOR a IN SELECT q.result::jsonb FROM dpm.answer_query(statement) q LOOP
    k := k + 1;
    IF k > cardinality(plain) THEN
      RETURN 'more rows through dpm.answer_query';
    END IF;
    FOR key IN SELECT jsonb_object_keys(plain[k]) LOOP
      b := plain[k]->key;
      n := n + 1;
      CONTINUE WHEN a->key = b OR (jsonb_typeof(a->key) = 'number' AND jsonb_typeof(b) = 'number'
                                   AND abs((a->>key)::numeric - (b #>> '{}')::numeric) <= 0.5)
                    OR (jsonb_typeof(a->key) = 'string' AND (a->>key)::timestamptz = (b #>> '{}')::timestamptz);
      RETURN format('row %s, %s: %s through dpm.answer_query, %s typed as is', k, key, a->key, b);
    END LOOP;
  END LOOP;
  RETURN CASE WHEN k = cardinality(plain) THEN format('%s rows, %s values equal', k, n) ELSE 'fewer rows through dpm.answer_query' END;
END
$$;
SELECT f.k, pg_temp.ps_same(f.statement) AS same FROM (VALUES
  (1, 'SELECT genre, count(*) FROM ps_ratings GROUP BY genre'),
  (2, $q$SELECT date_trunc('quarter', rated_on) AS quarter, count(*) AS n, sum(rating), avg(rating)
           FROM ps_ratings WHERE genre IN ('Drama', 'Action') AND rated_on >= '2014-07-01' GROUP BY 1 ORDER BY 1$q$),
  (3, $q$SELECT genre, floor(age / 20) * 20 AS band, count(*) FROM ps_ratings
           WHERE NOT (age < 10 OR age >= 50) AND genre <> 'Comedy' GROUP BY genre, band ORDER BY 1, 2$q$),
  (4, 'SELECT extract(month FROM rated_on) AS month, count(*) FROM ps_ratings WHERE age BETWEEN 20 AND 39 GROUP BY 1 ORDER BY 1'),
  (5, 'SELECT width_bucket(age, 0, 60, 4) AS b, genre, avg(rating) FROM ps_ratings GROUP BY genre, b ORDER BY 1, 2'),
  (6, $q$SELECT genre, date_trunc('year', rated_on) AS y, count(*) FROM ps_ratings GROUP BY ROLLUP (genre, 2) ORDER BY 1, 2$q$),
  (7, 'SELECT genre, floor(age / 30) * 30 AS band, sum(rating) FROM ps_ratings GROUP BY GROUPING SETS ((genre), (band), ())'),
  (8, $q$SELECT extract(month FROM rated_on) AS month, count(*) FROM ps_ratings
           GROUP BY 1 HAVING count(*) > 240 ORDER BY month DESC LIMIT 5 OFFSET 1$q$),
  (9, 'SELECT genre, percentile_cont(0.5) WITHIN GROUP (ORDER BY age) AS median FROM ps_ratings GROUP BY genre ORDER BY 1'),
  (10, $q$SELECT genre, count(*) * 2 AS twice, round(avg(rating), 1) AS mean, genre || '!' AS shout FROM ps_ratings GROUP BY genre$q$),
  (11, 'SELECT count(age) FROM ps_ratings WHERE age IS NOT NULL AND genre NOT IN (''Drama'')')) f(k, statement)
 ORDER BY f.k;
-- the same text through dpm.answer_query: the same release, at no cost, the same numbers
SELECT bool_and(round((q.result->>'n')::numeric) = t.n) AS equal, count(*) AS rows, min(q.cost) AS cost
  FROM dpm.answer_query('SELECT genre, count(*) AS n, count(*) * 2 AS twice FROM ps_ratings GROUP BY genre ORDER BY genre') q JOIN ps_truth t ON t.genre = q.result->>'genre';
-- inside a function and through PREPARE, the statement is compiled the same way
CREATE FUNCTION pg_temp.ps_drama() RETURNS bigint LANGUAGE sql AS
  $$SELECT count(*) FROM ps_ratings WHERE genre = 'Drama'$$;
SELECT pg_temp.ps_drama() = (SELECT n FROM ps_truth WHERE genre = 'Drama') AS function_equal;
PREPARE ps_by_genre AS SELECT genre, count(*) FROM ps_ratings GROUP BY genre;
CREATE TEMP TABLE ps_prepared AS EXECUTE ps_by_genre;
SELECT count(*) AS groups, count(*) FILTER (WHERE p.count = t.n) AS equal FROM ps_prepared p JOIN ps_truth t USING (genre);
DEALLOCATE ps_by_genre;
-- with parameters, bound when it runs: compiled then, with their values, before any charge
PREPARE ps_genre(text) AS SELECT count(*) AS n FROM ps_ratings WHERE genre = $1;
CREATE TEMP TABLE ps_by_param AS EXECUTE ps_genre('Comedy');
SELECT p.n = t.n AS param_equal FROM ps_by_param p, ps_truth t WHERE t.genre = 'Comedy';
EXECUTE ps_genre(NULL);
PREPARE ps_age(int) AS SELECT count(*) AS n FROM ps_ratings WHERE age < $1;
EXECUTE ps_age(17);
-- a cursor, as drivers fetch in batches
BEGIN;
DECLARE ps_cursor CURSOR FOR SELECT genre, count(*) FROM ps_ratings GROUP BY genre ORDER BY genre;
FETCH 2 FROM ps_cursor;
FETCH 2 FROM ps_cursor;
COMMIT;
-- CREATE TABLE AS and a view of the analyst's own hold the private statement, not the rows
CREATE TEMP TABLE ps_kept AS SELECT genre, count(*) AS n FROM ps_ratings GROUP BY genre;
CREATE TEMP VIEW ps_counts AS SELECT genre, count(*) AS n FROM ps_ratings GROUP BY genre;
SELECT k.genre, k.n, c.n AS from_view FROM ps_kept k JOIN ps_counts c USING (genre) ORDER BY genre;
-- each aggregate's error, the release and the cost of the session's last plain statement
SELECT genre, count(*) AS n FROM ps_ratings WHERE age >= 30 GROUP BY genre ORDER BY genre;
SELECT count(*) AS rows, bool_and(result::jsonb ? 'n_stderr' AND result::jsonb ? 'n_ci_low') AS with_errors,
       count(DISTINCT release_id) AS releases, min(cost) AS cost
  FROM dpm.last_answers();
-- the session's budget of a statement, in place of its policy's default
SET dpm.statement_epsilon = 2e6;
SELECT count(*) AS n FROM ps_ratings WHERE age >= 40;
SELECT cost FROM dpm.last_answers();
RESET dpm.statement_epsilon;
RESET client_min_messages;
-- EXPLAIN shows the private plan, charging nothing; EXPLAIN ANALYZE would answer it: refused
SELECT count(*) AS charges_before FROM dpm.ledger \gset
CREATE FUNCTION pg_temp.ps_explain(statement text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN ' || statement LOOP
    RETURN NEXT line;
  END LOOP;
END
$$;
SELECT count(*) FILTER (WHERE line LIKE '%"spec": %Identity(genre)%') AS spec,
       count(*) FILTER (WHERE line LIKE '%"charge_epsilon": 1000000,%') AS charge,
       count(*) FILTER (WHERE line LIKE '%"n_stderr": %') AS rows_with_errors
  FROM pg_temp.ps_explain('SELECT genre, count(*) AS n FROM ps_ratings WHERE age < 30 GROUP BY genre') line;
EXPLAIN ANALYZE SELECT genre, count(*) FROM ps_ratings GROUP BY genre;
SELECT count(*) - :charges_before AS charged FROM dpm.ledger;
-- what is not a private statement is refused before anything is charged, naming what it is
SELECT count(*) AS charges_before FROM dpm.ledger \gset
SELECT * FROM ps_ratings LIMIT 1;
SELECT user_id FROM ps_ratings;
SELECT genre, count(*) FROM ps_ratings r JOIN ps_open o USING (genre) GROUP BY genre;
SELECT count(*) FROM (SELECT * FROM ps_ratings) x;
SELECT max(rating) FROM ps_ratings;
SELECT genre, count(*) FROM ps_ratings WHERE genre IS NULL OR age < 20 GROUP BY genre;
SELECT count(*) FROM ps_ratings WHERE age < 17;
WITH x AS (SELECT * FROM ps_ratings) SELECT count(*) FROM x;
SELECT (SELECT count(*) FROM ps_ratings);
SELECT count(*) FROM ps_open WHERE n IN (SELECT age FROM ps_ratings);
COPY (SELECT * FROM ps_ratings) TO STDOUT;
CREATE TEMP VIEW ps_rows AS SELECT * FROM ps_ratings;
SELECT user_id, count(*) FROM ps_ratings GROUP BY user_id;
SELECT count(*) FROM ps_ratings WHERE user_id = 5;
SELECT genre FROM ps_ratings GROUP BY genre;
SELECT DISTINCT genre FROM ps_ratings;
SELECT string_agg(genre, ',') FROM ps_ratings;
SELECT array_agg(age) FROM ps_ratings;
SELECT json_agg(r) FROM ps_ratings r;
SELECT count(*) FROM ps_ratings TABLESAMPLE SYSTEM (10);
SELECT ctid, count(*) FROM ps_ratings GROUP BY ctid;
SELECT count(*) OVER () FROM ps_ratings;
SELECT genre, count(*) FROM ps_ratings GROUP BY genre HAVING max(age) > 3;
TABLE ps_ratings;
SELECT * FROM ps_ratings FOR UPDATE;
SELECT min(age) FROM ps_ratings;
SELECT count(DISTINCT genre) FROM ps_ratings;
SELECT sum(age) FROM ps_ratings;
SELECT count(*) FILTER (WHERE age > 3) FROM ps_ratings;
SELECT genre, count(*) FROM ps_ratings GROUP BY genre UNION SELECT 'x', 1;
SELECT count(*) FROM ps_ratings WHERE genre LIKE 'D%';
SELECT count(*) FROM ps_ratings WHERE age::text = '5';
SELECT pg_sleep(0), count(*) FROM ps_ratings;
SELECT count(*) FROM ps_ratings WHERE age > (SELECT 3);
SELECT count(*) FROM ps_ratings WHERE ps_ratings IS NOT NULL;
SELECT lower(genre), count(*) FROM ps_ratings GROUP BY 1;
BEGIN;
DECLARE ps_rows CURSOR FOR SELECT * FROM ps_ratings;
ROLLBACK;
CREATE TEMP TABLE ps_copy AS SELECT * FROM ps_ratings;
CREATE FUNCTION pg_temp.ps_leak() RETURNS SETOF ps_ratings LANGUAGE sql AS 'SELECT * FROM ps_ratings';
CREATE TEMP TABLE ps_mine (x int);
CREATE FUNCTION pg_temp.ps_peek() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM * FROM ps_ratings;
  RETURN NEW;
END
$$;
CREATE TRIGGER ps_peek BEFORE INSERT ON ps_mine FOR EACH ROW EXECUTE FUNCTION pg_temp.ps_peek();
INSERT INTO ps_mine VALUES (1);
INSERT INTO ps_open SELECT genre, age FROM ps_ratings;
UPDATE ps_ratings SET age = 1 RETURNING *;
SELECT count(*) - :charges_before AS charged FROM dpm.ledger;
-- a table that is not a source, and the catalog, as before
SELECT genre, sum(n) FROM ps_open GROUP BY genre ORDER BY genre;
-- dpm.answer_plain checks its column definitions against the statement before anything else
SELECT * FROM dpm.answer_plain('SELECT genre, count(*) FROM ps_ratings GROUP BY genre') AS t(genre text, n int);
SELECT * FROM dpm.answer_plain('SELECT genre, count(*) FROM ps_ratings GROUP BY genre');
SELECT * FROM dpm.answer_plain(NULL) AS t(n bigint);
SELECT * FROM dpm.answer_plain('SELECT count(*) FROM ps_ratings WHERE genre = $1', params => '{Drama}',
                               param_types => '{text,int}') AS t(n bigint);
SELECT * FROM dpm.answer_plain('SELECT count(*) FROM ps_ratings WHERE genre = $1', params => '{Drama}',
                               param_types => NULL) AS t(n bigint);
SELECT * FROM dpm.answer_plain('SELECT count(*) FROM ps_ratings WHERE age < $1', params => '{ten}',
                               param_types => '{int}') AS t(n bigint);
SET dpm.statement_epsilon = -1;
SET dpm.statement_epsilon = 'NaN';
SELECT count(*) - :charges_before AS charged FROM dpm.ledger;
RESET ROLE;

-- how long a refresh is free is the custodian's choice: refresh_after
SET ROLE regress_ps_custodian;
SELECT dpm.set_privacy_policy('ps_ratings', 'regress_ps_plain', epsilon => 1e11, delta => 1e-3, statement_epsilon => 1e6,
                              statement_delta => 1e-6, plain_sql => true, refresh_after => '0 seconds');
SELECT dpm.set_privacy_policy('ps_ratings', 'regress_ps_plain', epsilon => 1e11, refresh_after => '-1 day');
SET ROLE regress_ps_plain;
SET client_min_messages = warning;
SELECT genre, count(*) AS n FROM ps_ratings GROUP BY genre ORDER BY genre;
SELECT min(cost) AS measured_again FROM dpm.last_answers();
RESET ROLE;
SET ROLE regress_ps_custodian;
SELECT dpm.set_privacy_policy('ps_ratings', 'regress_ps_plain', epsilon => 1e11, delta => 1e-3, statement_epsilon => 1e6,
                              statement_delta => 1e-6, plain_sql => true, refresh_after => '1 day');
SET ROLE regress_ps_plain;
SELECT genre, count(*) AS n FROM ps_ratings GROUP BY genre ORDER BY genre;
SELECT min(cost) AS replayed FROM dpm.last_answers();
RESET client_min_messages;
RESET ROLE;

-- without plain_sql, or without a policy: the table's privileges answer, as before
SET ROLE regress_ps_call;
SELECT genre, count(*) FROM ps_ratings GROUP BY genre;
SET ROLE regress_ps_none;
SELECT genre, count(*) FROM ps_ratings GROUP BY genre;
SELECT genre, sum(n) FROM ps_open GROUP BY genre ORDER BY genre;
RESET ROLE;
-- the custodian reads the table itself
SET ROLE regress_ps_custodian;
SELECT genre, count(*) FROM ps_ratings GROUP BY genre ORDER BY genre;
RESET ROLE;

SET client_min_messages = warning;
SELECT dpm.drop_privacy_policy('ps_ratings', 'regress_ps_plain'), dpm.drop_privacy_policy('ps_ratings', 'regress_ps_call');
SELECT dpm.unregister_source('ps_ratings');
RESET client_min_messages;
DROP TABLE ps_ratings, ps_open, ps_truth;
DROP OWNED BY regress_ps_custodian, regress_ps_plain, regress_ps_call, regress_ps_none;
DROP ROLE regress_ps_custodian, regress_ps_plain, regress_ps_call, regress_ps_none;
