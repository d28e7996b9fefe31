-- audit_kinds.sql -- the release kinds the privacy auditor runs (test/lib/audit.sql says how):
-- for each, a table D, the rows of the one privacy unit that makes D' (inserted and deleted
-- again around D''s releases), the release, the statistic it yields, and what the charge allows.
-- The unit's rows always carry its full contribution, in one cell: max_contributions rows, a
-- measure's values at its bound.  Budgets are huge: the auditor spends them on purpose.
SET client_min_messages = warning;
CREATE EXTENSION dpmatrix;

-- counts through the identity, Laplace noise: 4 cells of 50 rows, a row is a unit
CREATE TABLE a_tab (id int, c int);
INSERT INTO a_tab SELECT g, g % 4 FROM generate_series(1, 200) g;
SELECT dpm.register_source('a_tab', epsilon => 1e9);
SELECT dpm.create_domain('a_dom', 'a_tab', '[{"name": "c", "values": [0, 1, 2, 3]}]');
SELECT dpm.create_workload('a_w', 'a_dom', 'Identity(c)');
INSERT INTO audit.kinds VALUES ('count_identity_laplace',
  $q$SELECT answer AS s, stderr AS se FROM dpm.answer('a_w', epsilon => 2, reuse => 'never') WHERE query = 1$q$,
  1, 50, 2, 0, $q$INSERT INTO a_tab VALUES (100000, 0)$q$, $q$DELETE FROM a_tab WHERE id = 100000$q$);

-- all ranges of 8 cells through optimized strategies, on an (epsilon, delta) source: Gaussian
-- noise through gaussian_optimal, Laplace noise through hdmm.  The statistic is the cell's own
-- answer, least squares over every measurement.
CREATE TABLE b_tab (id int, c int);
INSERT INTO b_tab SELECT g, g % 8 FROM generate_series(1, 320) g;
SELECT dpm.register_source('b_tab', epsilon => 1e9, delta => 0.9);
SELECT dpm.create_domain('b_dom', 'b_tab', '[{"name": "c", "values": [0, 1, 2, 3, 4, 5, 6, 7]}]');
SELECT dpm.create_workload('b_w', 'b_dom', 'Identity(c) + AllRange(c)');
INSERT INTO audit.kinds VALUES ('optimized_gaussian',
  $q$SELECT answer AS s, stderr AS se FROM dpm.answer('b_w', epsilon => 2, delta => 1e-4, method => 'gaussian_optimal', reuse => 'never') WHERE query = 1$q$,
  1, 40, 2, 1e-4, $q$INSERT INTO b_tab VALUES (100000, 0)$q$, $q$DELETE FROM b_tab WHERE id = 100000$q$);
INSERT INTO audit.kinds VALUES ('optimized_laplace',
  $q$SELECT answer AS s, stderr AS se FROM dpm.answer('b_w', epsilon => 2, method => 'hdmm', reuse => 'never') WHERE query = 1$q$,
  1, 40, 2, 0, $q$INSERT INTO b_tab VALUES (100000, 0)$q$, $q$DELETE FROM b_tab WHERE id = 100000$q$);

-- sums and averages, user-level: each unit has 3 rows (max_contributions 3) of a measure in
-- [0, 10]; the neighbour's 3 rows are all at the bound, in one cell: it moves that sum by 30 and
-- that count by 3
CREATE TABLE c_tab (uid int, c int, v numeric);
INSERT INTO c_tab SELECT u, (u + j) % 4, (u * 7 + j) % 11 FROM generate_series(1, 100) u, generate_series(1, 3) j;
SELECT dpm.register_source('c_tab', 'uid', max_contributions => 3, epsilon => 1e9);
SELECT dpm.create_measure('v_sum', 'c_tab', 'v', lo => 0, hi => 10);
SELECT dpm.create_domain('c_dom', 'c_tab', '[{"name": "c", "values": [0, 1, 2, 3]}]');
SELECT dpm.create_workload('c_w', 'c_dom', 'Identity(c)');
INSERT INTO audit.kinds VALUES ('sum_user_level',
  $q$SELECT answer AS s, stderr AS se FROM dpm.answer('c_w', epsilon => 2, measure => 'v_sum', reuse => 'never') WHERE query = 1$q$,
  30, (SELECT sum(v) FROM c_tab WHERE c = 0), 2, 0,
  $q$INSERT INTO c_tab VALUES (100000, 0, 10), (100000, 0, 10), (100000, 0, 10)$q$, $q$DELETE FROM c_tab WHERE uid = 100000$q$);
-- the average: its answer (noisy sum over noisy count) moves from avg(D) to avg(D'); no answer
-- (count not positive) counts as the true average of D.  Its stderr depends on the noisy answer,
-- so the thresholds may not be drawn from it: the test is at the midpoint only (se NULL).
INSERT INTO audit.kinds
SELECT 'average_user_level',
  $q$SELECT coalesce(answer, $q$ || s / n || $q$) AS s, NULL::float8 AS se FROM dpm.answer('c_w', epsilon => 2, measure => 'v_sum', aggregate => 'avg', reuse => 'never') WHERE query = 1$q$,
  (s + 30) / (n + 3) - s / n, s / n, 2, 0,
  $q$INSERT INTO c_tab VALUES (100000, 0, 10), (100000, 0, 10), (100000, 0, 10)$q$, $q$DELETE FROM c_tab WHERE uid = 100000$q$
  FROM (SELECT sum(v)::float8 AS s, count(*)::float8 AS n FROM c_tab WHERE c = 0) t;

-- quantiles: the release of the cumulative counts dpm.quantiles reads (Laplace); the unit's row
-- in the lowest bin moves every cumulative count by 1; the statistic is the first one
CREATE TABLE q_tab (id int, x int);
INSERT INTO q_tab SELECT g, g % 80 FROM generate_series(1, 400) g;
SELECT dpm.register_source('q_tab', epsilon => 1e9);
SELECT dpm.create_domain('q_dom', 'q_tab', '[{"name": "x", "bins": {"min": 0, "max": 80, "width": 10}}]');
SELECT dpm.quantile_workload('q_w', 'q_dom', 'x');
INSERT INTO audit.kinds VALUES ('quantiles_cdf',
  $q$SELECT answer AS s, stderr AS se FROM dpm.answer('q_w', epsilon => 2, reuse => 'never') WHERE query = 1$q$,
  1, 50, 2, 0, $q$INSERT INTO q_tab VALUES (100000, 0)$q$, $q$DELETE FROM q_tab WHERE id = 100000$q$);

-- keys: a value held by 5 units in D and 6 in D' (threshold 1 + ln(1 / delta) / epsilon = 5.6);
-- the statistic is whether the release holds it
CREATE TABLE k_tab (id int, k text);
INSERT INTO k_tab SELECT g, CASE WHEN g <= 5 THEN 'rare' ELSE 'common' END FROM generate_series(1, 300) g;
SELECT dpm.register_source('k_tab', epsilon => 1e9, delta => 0.9);
INSERT INTO audit.kinds VALUES ('keys',
  $q$SELECT ('rare' = ANY (dpm.answer_keys('k_tab', 'k', 2, 1e-4)))::int AS s, NULL::float8 AS se$q$,
  1, 0, 2, 1e-4, $q$INSERT INTO k_tab VALUES (100000, 'rare')$q$, $q$DELETE FROM k_tab WHERE id = 100000$q$, true);

-- a wide domain (3 attributes of 8 values past dpm.max_cells = 100: no cell vector), all 2-way
-- marginals by ResidualPlanner, zCDP (rho 0.5): the unit moves one cell of each marginal; the
-- statistic is the first.  zCDP promises rho, not epsilon: the charge compared is the epsilon
-- rho implies at the audit's delta 1e-4 (dpm_internal.zcdp_epsilon, Bun & Steinke 2016).
SET dpm.max_cells = 100;
CREATE TABLE w_tab (id int, a int, b int, c int);
INSERT INTO w_tab SELECT g, g % 8, (g / 8) % 8, (g / 64) % 8 FROM generate_series(0, 511) g;
SELECT dpm.register_source('w_tab', rho => 1e9);
SELECT dpm.create_domain('w_dom', 'w_tab', '[{"name": "a", "values": [0, 1, 2, 3, 4, 5, 6, 7]},
  {"name": "b", "values": [0, 1, 2, 3, 4, 5, 6, 7]}, {"name": "c", "values": [0, 1, 2, 3, 4, 5, 6, 7]}]');
RESET dpm.max_cells;
SELECT dpm.create_workload('w_w', 'w_dom', 'Marginals(2)');
INSERT INTO audit.kinds VALUES ('wide_marginals_zcdp',
  $q$SELECT answer AS s, stderr AS se FROM dpm.answer('w_w', rho => 0.5, reuse => 'never') WHERE query = 1$q$,
  1, 8, dpm_internal.zcdp_epsilon(0.5, 1e-4), 1e-4, $q$INSERT INTO w_tab VALUES (100000, 0, 0, 0)$q$,
  $q$DELETE FROM w_tab WHERE id = 100000$q$);

-- periods: daily periods, each unit counted in its first period only (max_periods 1), 2 rows a
-- unit; a release of days 1 and 2.  The neighbour has 2 rows in cell 0 on day 1 and 2 more on
-- day 2, which the period rule leaves out: its full contribution is 2.
CREATE TABLE p_tab (uid int, day date, c int);
INSERT INTO p_tab SELECT u, date '2026-01-01' + (u % 2), (u / 2) % 4 FROM generate_series(1, 200) u, generate_series(1, 2) j;
SELECT dpm.register_source('p_tab', 'uid', max_contributions => 2, epsilon => 1e9);
SELECT dpm.set_periods('p_tab', 'day', width => '1 day', start => '2026-01-01', max_periods => 1);
SELECT dpm.create_domain('p_dom', 'p_tab', '[{"name": "c", "values": [0, 1, 2, 3]}]');
SELECT dpm.create_workload('p_w', 'p_dom', 'Identity(c)');
INSERT INTO audit.kinds VALUES ('periods',
  $q$SELECT answer AS s, stderr AS se FROM dpm.answer('p_w', epsilon => 2, period_from => '2026-01-01', period_to => '2026-01-02', reuse => 'never') WHERE query = 1$q$,
  2, (SELECT count(*) FROM p_tab WHERE c = 0), 2, 0,
  $q$INSERT INTO p_tab VALUES (100000, '2026-01-01', 0), (100000, '2026-01-01', 0), (100000, '2026-01-02', 0), (100000, '2026-01-02', 0)$q$,
  $q$DELETE FROM p_tab WHERE uid = 100000$q$);

-- two bounds (issue 46): each unit holds at most 2 cells (max_groups) of at most 2 rows
-- (max_per_group), and the identity's L2 sensitivity is 2 sqrt(2), not max_contributions (4)
-- times 1.  The neighbour holds 2 rows in each of cells 0 and 1; the statistic is the sum of those
-- two answers (independent, each of the release's stderr), which it moves by 4: that direction
-- carries the whole shift, so a noise too small for the sensitivity shows.  D's units hold 1 row
-- each, nothing is capped: the sum is 50.
CREATE TABLE g_tab (uid int, c int);
INSERT INTO g_tab SELECT u, u % 4 FROM generate_series(1, 100) u;
SELECT dpm.register_source('g_tab', 'uid', epsilon => 1e9, delta => 0.9, max_groups => 2, max_per_group => 2);
SELECT dpm.create_domain('g_dom', 'g_tab', '[{"name": "c", "values": [0, 1, 2, 3]}]');
SELECT dpm.create_workload('g_w', 'g_dom', 'Identity(c)');
INSERT INTO audit.kinds VALUES ('groups_identity_gaussian',
  $q$SELECT sum(answer) AS s, sqrt(sum(stderr ^ 2)) AS se FROM dpm.answer('g_w', epsilon => 2, delta => 1e-4, method => 'identity', reuse => 'never') WHERE query <= 2$q$,
  4, 50, 2, 1e-4, $q$INSERT INTO g_tab VALUES (100000, 0), (100000, 0), (100000, 1), (100000, 1)$q$, $q$DELETE FROM g_tab WHERE uid = 100000$q$);
