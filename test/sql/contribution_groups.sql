-- Two bounds instead of one (issue 46, item 1): a privacy unit counts in at most max_groups cells
-- of a release, at most max_per_group rows in each.  The sensitivity each strategy form states
-- for it against every pattern of a unit's cells; the capping scan against the table; releases
-- under it, unbiased, with the noise it states; selecting keys; the custodian's report.
\set SHOW_CONTEXT never
SELECT (SELECT last_value FROM dpm.sources_id_seq) AS cg_src_seq, (SELECT last_value FROM dpm.domains_id_seq) AS cg_dom_seq,
       (SELECT last_value FROM dpm.workloads_id_seq) AS cg_wl_seq, (SELECT last_value FROM dpm.measures_id_seq) AS cg_m_seq,
       (SELECT last_value FROM dpm.releases_id_seq) AS cg_rel_seq, (SELECT last_value FROM dpm.strategies_id_seq) AS cg_st_seq \gset

-- Brute force.  A unit in at most g cells, at most c in each, moves the data vector by x with at
-- most g entries not zero, each in [-c, c] (a measure's values may be negative).  ||A x|| is
-- convex in x, so its largest value over each support is at a vertex of the box: entries -c, 0
-- or c.  Every such x of n cells, c = 1 (everything scales with c):
CREATE FUNCTION pg_temp.patterns(n int, g int) RETURNS SETOF int[] LANGUAGE sql AS $$
  SELECT x FROM (SELECT ARRAY(SELECT (v / (3 ^ j)::int) % 3 - 1 FROM generate_series(0, n - 1) j) AS x
                   FROM generate_series(0, (3 ^ n)::int - 1) v) p
   WHERE (SELECT count(*) FROM unnest(x) e WHERE e <> 0) <= g $$;
-- the largest ||A x||_p over them, A a 2-D array (rows, cells)
CREATE FUNCTION pg_temp.brute(a float8[], g int, p int) RETURNS float8 LANGUAGE sql AS $$
  SELECT max(t.nrm) FROM (
    SELECT CASE WHEN p = 1 THEN sum(abs(r.r)) ELSE sqrt(sum(r.r * r.r)) END AS nrm
      FROM pg_temp.patterns(array_length(a, 2), g) x,
           LATERAL (SELECT sum(a[i][j] * x[j]) AS r FROM generate_subscripts(a, 1) i, generate_subscripts(a, 2) j GROUP BY i) r
     GROUP BY x) t $$;
-- A's largest column norm
CREATE FUNCTION pg_temp.colmax(a float8[], p int) RETURNS float8 LANGUAGE sql AS $$
  SELECT max(c.nrm) FROM (SELECT CASE WHEN p = 1 THEN sum(abs(a[i][j])) ELSE sqrt(sum(a[i][j] ^ 2)) END AS nrm
                            FROM generate_subscripts(a, 1) i, generate_subscripts(a, 2) j GROUP BY j) c $$;

-- Dense strategies: the identity (every bound exact: sqrt(g) in L2, g in L1), the hierarchical
-- tree over 4 cells (B3 exact: two sibling leaves, then all four), prefix sums, the Haar wavelet
-- (signed), and a matrix of mixed signs and sizes.  Sound: the bound is never below the largest
-- ||A x||; tight: bound over it (1 is exact).
CREATE TEMP TABLE dense_cases AS
  SELECT * FROM (VALUES
    ('identity', '{{1,0,0,0,0},{0,1,0,0,0},{0,0,1,0,0},{0,0,0,1,0},{0,0,0,0,1}}'::float8[]),
    ('hierarchical', '{{1,1,1,1},{1,1,0,0},{0,0,1,1},{1,0,0,0},{0,1,0,0},{0,0,1,0},{0,0,0,1}}'),
    ('prefix', '{{1,0,0,0,0},{1,1,0,0,0},{1,1,1,0,0},{1,1,1,1,0},{1,1,1,1,1}}'),
    ('haar', '{{1,1,1,1},{1,1,-1,-1},{1,-1,0,0},{0,0,1,-1}}'),
    ('mixed', '{{0.5,-1,0.25,0,2},{1,1,1,1,1},{0,-0.75,0.5,1.5,-0.5}}')) c(name, a);
SELECT c.name, g, norm,
       pg_temp.brute(c.a, g, norm) <= f.f * pg_temp.colmax(c.a, norm) * (1 + 1e-12) AS sound,
       round((f.f * pg_temp.colmax(c.a, norm) / pg_temp.brute(c.a, g, norm))::numeric, 3) AS bound_over_largest
  FROM dense_cases c, generate_series(1, 4) g, generate_series(1, 2) norm,
       LATERAL (SELECT dpm_internal.dense_group_factor(c.a, g, norm) AS f) f
 ORDER BY c.name, norm, g;

-- HDMM's forms, from their parameters only, against their matrices written out: a Kronecker
-- product of two p-Identity factors (3 x 2 cells) and weighted marginals.
CREATE TEMP TABLE hdmm_cases AS
  SELECT * FROM (VALUES
    ('kronecker', '{3,2}'::int[], '{1,1}'::int[], '{1,0.5,0.375, 0.25,2}'::float8[], NULL::float8[]),
    ('marginals', '{3,2}', '{0,0}', '{}', '{0.2,0.5,0.3,1}')) c(kind, sizes, p, theta, weights);
SELECT c.kind, g, norm,
       pg_temp.brute(a.a, g, norm) <= f.f * pg_temp.colmax(a.a, norm) * (1 + 1e-12) AS sound,
       round((f.f * pg_temp.colmax(a.a, norm) / pg_temp.brute(a.a, g, norm))::numeric, 3) AS bound_over_largest
  FROM hdmm_cases c, generate_series(1, 4) g, generate_series(1, 2) norm,
       LATERAL (SELECT dpm_internal.hdmm_matrix(c.sizes, c.kind, c.p, c.theta, c.weights) AS a) a,
       LATERAL (SELECT dpm_internal.hdmm_group_factor(c.sizes, c.kind, c.p, c.theta, c.weights, g, norm) AS f) f
 ORDER BY c.kind, norm, g;

-- ResidualPlanner's Gaussian plans over a 3 x 2 domain.  What a plan measures, by definition
-- (src/strategy/residual/measure.c): for each attribute set A, the marginal table of x on A,
-- centred along each attribute of A, with noise of variance v_A in each entry.  Over its noise, a
-- unit's x moves it by sum_A ||centred marginal||^2 / v_A (squared), computed here from x itself;
-- a cell's is the plan's cost2.  Plans of the 2-way marginal (the identity's equal: exact,
-- sqrt(g)) and of the two 1-way marginals.
SET client_min_messages = warning;
CREATE TABLE cg_cells (a int, b int);
SELECT dpm.register_source('cg_cells', epsilon => 10, delta => 1e-3);
SELECT dpm.create_domain('cg_ab', 'cg_cells', '[{"name": "a", "values": [0, 1, 2]}, {"name": "b", "values": [0, 1]}]');
SELECT dpm.create_workload('cg_joint', 'cg_ab', 'Identity(a) * Identity(b)');
SELECT dpm.create_workload('cg_oneway', 'cg_ab', 'Identity(a) * Total(b) + Total(a) * Identity(b)');
RESET client_min_messages;
CREATE TEMP TABLE o AS
  SELECT n.name, dpm.optimize(n.name, epsilon => 1, delta => 1e-6, method => 'residual') AS id
    FROM (VALUES ('cg_joint'), ('cg_oneway')) n(name);
CREATE TEMP TABLE plans AS
  SELECT w.name, w.spec, d AS dom, (s.residual).attribute_sets AS sets, (s.residual).variances AS v
    FROM o JOIN dpm.workloads w ON w.name = o.name JOIN dpm.domains d ON d.id = w.domain_id JOIN dpm.strategies s ON s.id = o.id;
SELECT name, sets, round(v[1]::numeric, 6) AS v1 FROM plans ORDER BY name;
-- ||x's residual measurements||^2 over their noise; cell (a, b) is x[2 a + b + 1]
CREATE FUNCTION pg_temp.residual_norm2(x int[], sets int[], v float8[]) RETURNS float8 LANGUAGE sql AS $$
  WITH t AS (SELECT a, b, x[2 * a + b + 1]::float8 AS y FROM generate_series(0, 2) a, generate_series(0, 1) b),
       ma AS (SELECT a, sum(y) AS y FROM t GROUP BY a), mb AS (SELECT b, sum(y) AS y FROM t GROUP BY b),
       terms AS (
         SELECT i, CASE WHEN sets[i][1] = 0 THEN (SELECT sum(y) ^ 2 FROM t)
                        WHEN sets[i][2] <> 0 THEN (SELECT sum((t.y - ma.y / 2 - mb.y / 3 + (SELECT sum(y) FROM t) / 6) ^ 2)
                                                     FROM t JOIN ma USING (a) JOIN mb USING (b))
                        WHEN sets[i][1] = 1 THEN (SELECT sum((y - (SELECT avg(y) FROM ma)) ^ 2) FROM ma)
                        ELSE (SELECT sum((y - (SELECT avg(y) FROM mb)) ^ 2) FROM mb) END / v[i] AS q
           FROM generate_subscripts(v, 1) i)
  SELECT sum(q) FROM terms $$;
SELECT p.name, g,
       max(sqrt(pg_temp.residual_norm2(x, p.sets, p.v))) <= f.f * sqrt(c.cost2) * (1 + 1e-12) AS sound,
       round((f.f * sqrt(c.cost2) / max(sqrt(pg_temp.residual_norm2(x, p.sets, p.v))))::numeric, 3) AS bound_over_largest
  FROM plans p, generate_series(1, 4) g, pg_temp.patterns(6, g) x,
       LATERAL (SELECT pg_temp.residual_norm2('{1,0,0,0,0,0}', p.sets, p.v) AS cost2) c,
       LATERAL (SELECT dpm_internal.residual_group_factor(p.spec, p.dom, p.sets, p.v, g) AS f) f
 GROUP BY p.name, g, f.f, c.cost2 ORDER BY p.name, g;

-- Registering: both bounds or neither, each at least 1, with a privacy unit; max_contributions is
-- their product.  Units of user u rate 1 + u^2 % 40 films, in cells of genre x year.
CREATE TABLE cg_ratings AS
  SELECT u AS user_id, (u * 7 + r * 3) % 5 AS genre, 2000 + (u + r) % 4 AS year, (u + r) % 5 + 1 AS rating
    FROM generate_series(1, 200) u, generate_series(1, 1 + (u * u) % 40) r;
SELECT dpm.register_source('cg_ratings', 'user_id', epsilon => 1e6, delta => 1e-3, max_groups => 4);
SELECT dpm.register_source('cg_ratings', 'user_id', epsilon => 1e6, delta => 1e-3, max_groups => 0, max_per_group => 2);
SELECT dpm.register_source('cg_ratings', 'user_id', epsilon => 1e6, delta => 1e-3, max_groups => 100000, max_per_group => 100000);
SELECT dpm.register_source('cg_ratings', 'user_id', 5, epsilon => 1e6, delta => 1e-3, max_groups => 4, max_per_group => 2);
SELECT dpm.register_source('cg_ratings', epsilon => 1e6, delta => 1e-3, max_groups => 4, max_per_group => 2);
SELECT dpm.register_source('cg_ratings', 'user_id', epsilon => 1e6, delta => 1e-3, max_groups => 4, max_per_group => 2);
SELECT max_contributions, max_groups, max_per_group FROM dpm.sources WHERE relation = 'cg_ratings'::regclass;
-- periods read each unit's rows across periods, not by cell: refused
SELECT dpm.set_periods('cg_ratings', 'year');
-- registered again, the bounds its releases were charged under cannot change
SELECT dpm.unregister_source('cg_ratings');
DO $$
DECLARE
  d text;
BEGIN
  PERFORM dpm.register_source('cg_ratings', 'user_id', epsilon => 1e6, delta => 1e-3, max_groups => 3, max_per_group => 2);
EXCEPTION WHEN invalid_parameter_value THEN
  GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;     -- (the message names the source's id)
  RAISE NOTICE 'refused: %', d;
END $$;
SET client_min_messages = warning;
SELECT dpm.register_source('cg_ratings', 'user_id', epsilon => 1e6, delta => 1e-3, max_groups => 4, max_per_group => 2);
-- the custodian is told what the bounds leave out of the domain, in expectation: a unit with rows
-- in G cells keeps each with probability min(1, 4 / G), and there min(n, 2) of its n rows
RESET client_min_messages;
SELECT dpm.create_domain('cg_gy', 'cg_ratings', '[{"name": "genre", "values": [0, 1, 2, 3, 4]},
                                                  {"name": "year", "values": [2000, 2001, 2002, 2003]}]');
WITH uc AS (SELECT user_id, genre, year, count(*) AS n FROM cg_ratings GROUP BY 1, 2, 3),
     u AS (SELECT user_id, sum(n) AS n, count(*) > 4 OR max(n) > 2 AS over, least(1, 4::float8 / count(*)) * sum(least(n, 2)) AS kept
             FROM uc GROUP BY 1)
SELECT c.rows = (SELECT sum(n) FROM u) AND c.units = (SELECT count(*) FROM u) AND c.units_over_bound = (SELECT count(*) FROM u WHERE over)
       AND abs(c.rows_left_out - (SELECT sum(n - kept) FROM u)) < 1e-9 AS coverage_as_the_table
  FROM dpm.contribution_coverage('cg_ratings') c WHERE c.domain = 'cg_gy';

-- The capped scan, against the table, 20 times: each unit keeps min(4, G) of its G cells, and
-- min(2, n) of its n rows in each it keeps
-- (scan i: an argument the call depends on, or the join would read one scan 20 times)
CREATE FUNCTION pg_temp.kept(src dpm.sources, dom dpm.domains, i int) RETURNS TABLE(unit int, cell int, n bigint) LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format('SELECT user_id, dpm_cell__, count(*) FROM %s GROUP BY 1, 2',
                              dpm_internal.source_rows(src, true, NULL, NULL, format('(%s)::int4', dom.cell_expr)));
END $$;
WITH t AS (SELECT user_id AS unit, genre * 4 + year - 2000 AS cell, count(*) AS n FROM cg_ratings GROUP BY 1, 2),
     scans AS (SELECT i, k.* FROM generate_series(1, 20) i, dpm.sources s, dpm.domains d, pg_temp.kept(s, d, i) k
                WHERE s.relation = 'cg_ratings'::regclass AND d.name = 'cg_gy')
SELECT count(*) FILTER (WHERE scans.n = least(2, t.n)) = count(*) AND count(*) = count(t.n) AS rows_per_cell,
       (SELECT bool_and(x.cells = least(4, y.cells))
          FROM (SELECT i, unit, count(*) AS cells FROM scans GROUP BY 1, 2) x
          JOIN (SELECT unit, count(*) AS cells FROM t GROUP BY 1) y USING (unit)) AND
       (SELECT count(DISTINCT (i, unit)) FROM scans) = 20 * (SELECT count(DISTINCT unit) FROM t) AS cells_per_unit
  FROM scans LEFT JOIN t USING (unit, cell);
-- and unbiased: over 300 scans each cell's kept rows average to what dpm.exact_answers says a
-- release estimates (capped_answer), within 5 standard errors: a unit keeps min(2, n) rows of a
-- cell with probability p = min(1, 4 / G), variance min(2, n)^2 p (1 - p) summed over units (a
-- false alarm over the 20 cells below 1.2e-5)
SELECT dpm.create_workload('cg_cells_w', 'cg_gy', 'Identity(genre) * Identity(year)') AS queries;
WITH uc AS (SELECT user_id, genre * 4 + year - 2000 AS cell, count(*) AS n, count(*) OVER (PARTITION BY user_id) AS g
              FROM cg_ratings GROUP BY 1, 2),
     expect AS (SELECT cell, sum(least(2, n) * least(1, 4.0 / g)) AS e,
                       sum(least(2, n) ^ 2 * least(1, 4.0 / g) * (1 - least(1, 4.0 / g))) AS var FROM uc GROUP BY cell),
     scans AS (SELECT dpm_internal.frequency_vector(s, d, current_user::regrole, true) AS v
                 FROM dpm.sources s, dpm.domains d, generate_series(1, 300) i
                WHERE s.relation = 'cg_ratings'::regclass AND d.name = 'cg_gy'),
     means AS (SELECT o - 1 AS cell, avg(x) AS m FROM scans, unnest(v) WITH ORDINALITY u(x, o) GROUP BY o)
SELECT count(*) AS cells, count(*) FILTER (WHERE abs(m.m - x.e) <= 5 * sqrt(x.var / 300)) AS within_5_se,
       count(*) FILTER (WHERE abs(a.capped_answer - x.e) < 1e-9) AS capped_answer_equal
  FROM means m JOIN expect x USING (cell) JOIN dpm.exact_answers('cg_cells_w') a ON a.query = m.cell + 1;

-- The noise: through the identity, a unit moves the counts by at most 2 sqrt(4) = 4 in L2 (the
-- Gaussian's sensitivity, where max_contributions alone would say 8) and by 2 x 4 = 8 in L1; a
-- measure's sums by its bound (5) times that; counts of units (1 in each of at most 4 cells) by
-- sqrt(4) = 2.  The release's errors are explain's.
SELECT dpm.create_measure('cg_rating', 'cg_ratings', 'rating', 1, 5) AS measure_sensitivity;
SELECT x.noise, x.what, round(x.sensitivity::numeric, 4) AS sensitivity
  FROM (SELECT e.noise, 'counts' AS what, e.sensitivity FROM dpm.explain('cg_cells_w', epsilon => 1, delta => 1e-6, method => 'identity') e
        UNION ALL
        SELECT e.noise, 'counts', e.sensitivity FROM dpm.explain('cg_cells_w', epsilon => 1, method => 'identity') e
        UNION ALL
        SELECT e.noise, 'sums', e.sensitivity FROM dpm.explain('cg_cells_w', epsilon => 1, delta => 1e-6, method => 'identity', measure => 'cg_rating') e
        UNION ALL
        SELECT e.noise, 'units', e.sensitivity FROM dpm.explain('cg_cells_w', epsilon => 1, delta => 1e-6, method => 'identity', aggregate => 'units') e) x;
SELECT abs(max(a.stderr) - (SELECT max_stderr FROM dpm.explain('cg_cells_w', epsilon => 1, delta => 1e-6, method => 'identity'))) < 1e-9 AS stderr_as_explained,
       count(*) AS answers
  FROM dpm.answer('cg_cells_w', epsilon => 1, delta => 1e-6, method => 'identity') a;
-- auto ranks its candidates by the error each has for such units (each its own factor), not by
-- one row's: on a genre's cells and prefixes none of the others has less error than its pick
SELECT dpm.create_domain('cg_g', 'cg_ratings', '[{"name": "genre", "values": [0, 1, 2, 3, 4]}]') AS cells;
SELECT dpm.create_workload('cg_ranges', 'cg_g', 'Identity(genre) + Prefix(genre)') AS queries;
SELECT a.strategy_method, round(a.sensitivity::numeric, 4) AS sensitivity,
       a.rms_error <= (SELECT min(e.rms_error) FROM unnest(ARRAY['identity', 'hierarchical', 'wavelet', 'hdmm', 'gaussian_optimal']) m,
                              LATERAL dpm.explain('cg_ranges', epsilon => 1, delta => 1e-6, method => m) e) * (1 + 1e-9) AS least_error
  FROM dpm.explain('cg_ranges', epsilon => 1, delta => 1e-6) a;
-- Unbiased, with the variance it states: 60 releases of the 20 counts, each answer less what it
-- estimates (capped_answer) over sqrt(its stderr^2 + the scan's variance above): 1,200 values of
-- mean 0 and variance 1, within 5 standard errors of each (a false alarm below 1.2e-6)
SET client_min_messages = warning;
WITH uc AS (SELECT user_id, genre * 4 + year - 2000 AS cell, count(*) AS n, count(*) OVER (PARTITION BY user_id) AS g
              FROM cg_ratings GROUP BY 1, 2),
     scanvar AS (SELECT cell, sum(least(2, n) ^ 2 * least(1, 4.0 / g) * (1 - least(1, 4.0 / g))) AS var FROM uc GROUP BY cell),
     z AS (SELECT (a.answer - e.capped_answer) / sqrt(a.stderr ^ 2 + v.var) AS z
             FROM generate_series(1, 60) i,
                  -- (a release for each i: a call that does not depend on it would run once)
                  LATERAL dpm.answer('cg_cells_w', epsilon => 1 + 0 * i, delta => 1e-6, method => 'identity') a
             JOIN dpm.exact_answers('cg_cells_w') e ON e.query = a.query
             JOIN scanvar v ON v.cell = a.query - 1)
SELECT count(*) AS values, count(DISTINCT z) AS distinct_values, abs(avg(z)) < 5 / sqrt(count(*)) AS mean_zero,
       abs(var_samp(z) - 1) < 5 * sqrt(2.0 / (count(*) - 1)) AS variance_one
  FROM z;
RESET client_min_messages;

-- Selecting keys: a unit holds at most max_groups keys (its rows are capped by key), so the
-- threshold and noise are those of a source whose units hold 4 values at most
CREATE TABLE cg_ratings4 AS SELECT * FROM cg_ratings;
SET client_min_messages = warning;
SELECT dpm.register_source('cg_ratings4', 'user_id', 4, epsilon => 1e6, delta => 1e-3);
RESET client_min_messages;
SELECT g.threshold = k.threshold AND g.noise_scale = k.noise_scale AS as_four_keys_a_unit
  FROM dpm.explain_keys('cg_ratings', 'genre', epsilon => 1, delta => 1e-6) g
  JOIN dpm.explain_keys('cg_ratings4', 'genre', epsilon => 1, delta => 1e-6) k USING (units) WHERE g.units = 1;
SELECT dpm.answer_keys('cg_ratings', 'genre', epsilon => 1, delta => 1e-6) AS genres;

SELECT dpm.unregister_source(s) FROM unnest(ARRAY['cg_cells', 'cg_ratings', 'cg_ratings4']::regclass[]) s;
DELETE FROM dpm.ledger WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'cg_%');
DELETE FROM dpm.releases WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'cg_%');
DELETE FROM dpm.strategies WHERE workload_id IN (SELECT w.id FROM dpm.workloads w JOIN dpm.domains d ON d.id = w.domain_id
                                                    JOIN dpm.sources s ON s.id = d.source_id WHERE s.relation::text LIKE 'cg_%');
DELETE FROM dpm.measures WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'cg_%');
DELETE FROM dpm.workloads WHERE domain_id IN (SELECT d.id FROM dpm.domains d JOIN dpm.sources s ON s.id = d.source_id WHERE s.relation::text LIKE 'cg_%');
DELETE FROM dpm.domains WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'cg_%');
DELETE FROM dpm.sources WHERE relation::text LIKE 'cg_%';
DROP TABLE cg_cells, cg_ratings, cg_ratings4;
SELECT setval('dpm.sources_id_seq', :cg_src_seq) IS NOT NULL AND setval('dpm.domains_id_seq', :cg_dom_seq) IS NOT NULL
       AND setval('dpm.workloads_id_seq', :cg_wl_seq) IS NOT NULL AND setval('dpm.measures_id_seq', :cg_m_seq) IS NOT NULL
       AND setval('dpm.releases_id_seq', :cg_rel_seq) IS NOT NULL AND setval('dpm.strategies_id_seq', :cg_st_seq) IS NOT NULL AS sequences_set_back;
