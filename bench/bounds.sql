-- bench/bounds.sql -- one bound against two (issue 46, item 1), on a table shaped like MovieLens:
-- 671 users, 100,000-odd ratings, a user's count log-normal (median 71, mean about 150, the
-- largest 2,400), films by genre (19, skewed) and year (20, recent ones more), ratings 1-5.
-- Each row is a set of bounds on the same table (a view of it registered as its own source),
-- Gaussian noise at epsilon 1, delta 1e-6, the strategy dpm.answer picks: the total squared error
-- of the 380 genre x year counts and of the 19 genres' average rating against the table's truth
-- (every row), averaged over R releases, with the counts' split into bias (what the bounds drop,
-- from dpm.exact_answers' capped_answer) and noise (the release's own stderr).  The baseline is
-- max_contributions alone, at 100 (the bound the issue tried) and at the best of those run.
\set R 8
SELECT set_config('bb.releases', :'R', false) IS NOT NULL AS set;
SET client_min_messages = warning;
SELECT setseed(0.46);
CREATE TABLE bb_ratings AS
  SELECT u AS user_id, r, (floor(19 * random() ^ 1.7))::int AS genre, 1990 + (floor(20 * random() ^ 0.6))::int AS year,
         NULL::int AS rating
    FROM generate_series(1, 671) u,
         -- a standard normal z by Box-Muller (random() depends on u: drawn once per user)
         LATERAL (SELECT least(2400, greatest(20, round(71 * exp(1.25 * x.z))))::int AS n
                    FROM (SELECT sqrt(-2 * ln(1 - random() + 0 * u)) * cos(2 * pi() * random()) AS z) x) n,
         generate_series(1, n.n) r;
UPDATE bb_ratings SET rating = least(5, greatest(1, round(2 + genre / 6.0 + 2 * random())));
CREATE TABLE bb_bounds (name text, max_contributions int, max_groups int, max_per_group int);
INSERT INTO bb_bounds VALUES ('k25', 25, NULL, NULL), ('k100', 100, NULL, NULL), ('k400', 400, NULL, NULL),
                             ('g25c2', NULL, 25, 2), ('g50c2', NULL, 50, 2), ('g100c1', NULL, 100, 1),
                             ('g50c4', NULL, 50, 4), ('g100c2', NULL, 100, 2);
DO $$
DECLARE
  b record;
BEGIN
  FOR b IN SELECT * FROM bb_bounds LOOP
    EXECUTE format('CREATE VIEW %I AS SELECT * FROM bb_ratings', 'bb_' || b.name);
    PERFORM dpm.register_source(('bb_' || b.name)::regclass, 'user_id', b.max_contributions, epsilon => 1e6, delta => 0.5,
                                max_groups => b.max_groups, max_per_group => b.max_per_group);
    PERFORM dpm.create_domain('bbd_' || b.name, ('bb_' || b.name)::regclass,
                              '[{"name": "genre", "bins": {"min": 0, "max": 19, "width": 1}},
                                {"name": "year", "bins": {"min": 1990, "max": 2010, "width": 1}}]');
    PERFORM dpm.create_measure('bbm_' || b.name, ('bb_' || b.name)::regclass, 'rating', 1, 5);
    PERFORM dpm.create_workload('bbc_' || b.name, 'bbd_' || b.name, 'Identity(genre) * Identity(year)');
    PERFORM dpm.create_workload('bba_' || b.name, 'bbd_' || b.name, 'Identity(genre) * Total(year)');
  END LOOP;
END $$;
SELECT count(*) AS ratings, count(DISTINCT user_id) AS users,
       (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY n) FROM (SELECT count(*) AS n FROM bb_ratings GROUP BY user_id) u) AS median_per_user,
       (SELECT max(n) FROM (SELECT count(*) AS n FROM bb_ratings GROUP BY user_id) u) AS largest,
       (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY n) FROM (SELECT count(DISTINCT (genre, year)) AS n FROM bb_ratings GROUP BY user_id) u)
         AS median_cells_per_user
  FROM bb_ratings;

CREATE TABLE bb_truth AS
  SELECT genre * 20 + year - 1990 + 1 AS query, count(*)::float8 AS n FROM bb_ratings GROUP BY 1;
CREATE TABLE bb_truth_avg AS SELECT genre + 1 AS query, avg(rating)::float8 AS a FROM bb_ratings GROUP BY 1;
CREATE TABLE bb_runs (name text, i int, count_sq float8, noise_var float8, avg_sq float8);
DO $$
DECLARE
  b record;
BEGIN
  FOR b IN SELECT * FROM bb_bounds LOOP
    FOR i IN 1 .. current_setting('bb.releases')::int LOOP
      INSERT INTO bb_runs
      SELECT b.name, i,
             (SELECT sum((a.answer - coalesce(t.n, 0)) ^ 2) FROM dpm.answer('bbc_' || b.name, epsilon => 1, delta => 1e-6, reuse => 'never') a
                LEFT JOIN bb_truth t USING (query)),
             (SELECT sum(a.stderr ^ 2) FROM dpm.explain_queries('bbc_' || b.name, epsilon => 1, delta => 1e-6) a),
             (SELECT sum((coalesce(a.answer, 3) - t.a) ^ 2)
                FROM dpm.answer('bba_' || b.name, epsilon => 1, delta => 1e-6, measure => 'bbm_' || b.name, aggregate => 'avg',
                               reuse => 'never') a
                JOIN bb_truth_avg t USING (query));
    END LOOP;
  END LOOP;
END $$;
RESET client_min_messages;

\echo 'counts of 380 genre x year cells and the 19 genres'' average rating, Gaussian noise at epsilon 1, delta 1e-6, mean of' :R 'releases'
SELECT b.name AS bounds, coalesce(b.max_contributions, b.max_groups * b.max_per_group) AS rows_a_user,
       round((SELECT sum(e.capped_answer) FROM dpm.exact_answers('bbc_' || b.name) e)) AS rows_kept,
       round(avg(r.count_sq)) AS count_total_sq_error,
       round((SELECT sum((e.capped_answer - coalesce(t.n, 0)) ^ 2) FROM dpm.exact_answers('bbc_' || b.name) e
                LEFT JOIN bb_truth t USING (query))) AS of_which_bias_sq,
       round(avg(r.noise_var)) AS noise_variance,
       round((avg(r.count_sq) / (SELECT avg(x.count_sq) FROM bb_runs x WHERE x.name = 'k100'))::numeric, 3) AS vs_k100,
       round(avg(r.avg_sq)::numeric, 5) AS avg_rating_total_sq_error
  FROM bb_bounds b JOIN bb_runs r USING (name)
 GROUP BY b.name, b.max_contributions, b.max_groups, b.max_per_group
 ORDER BY b.max_groups IS NOT NULL, count_total_sq_error;
SELECT round(((SELECT min(a) FROM (SELECT avg(count_sq) AS a FROM bb_runs r JOIN bb_bounds b USING (name) WHERE b.max_groups IS NOT NULL GROUP BY name) x)
              / (SELECT min(a) FROM (SELECT avg(count_sq) AS a FROM bb_runs r JOIN bb_bounds b USING (name) WHERE b.max_groups IS NULL GROUP BY name) y))::numeric, 3)
         AS best_two_bounds_over_best_one_bound;

SET client_min_messages = warning;
SELECT dpm.unregister_source(('bb_' || name)::regclass) FROM bb_bounds;
DO $$
DECLARE
  b record;
BEGIN
  FOR b IN SELECT * FROM bb_bounds LOOP
    EXECUTE format('DROP VIEW %I', 'bb_' || b.name);
  END LOOP;
END $$;
DROP TABLE bb_ratings, bb_bounds, bb_truth, bb_truth_avg, bb_runs;
RESET client_min_messages;
