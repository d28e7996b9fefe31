-- What the bound on each privacy unit's rows leaves out (issue 46, item 2): told to the custodian
-- when the source is registered and when a domain is made, and on demand by
-- dpm.contribution_coverage, against the table itself; analysts are refused.
\set SHOW_CONTEXT never
-- (what is made here is deleted at the end, and the sequences set back: the tests that follow
-- print ids)
SELECT (SELECT last_value FROM dpm.sources_id_seq) AS cb_src_seq, (SELECT last_value FROM dpm.domains_id_seq) AS cb_dom_seq,
       (SELECT last_value FROM dpm.workloads_id_seq) AS cb_wl_seq, (SELECT last_value FROM dpm.measures_id_seq) AS cb_m_seq,
       (SELECT last_value FROM dpm.releases_id_seq) AS cb_rel_seq, (SELECT last_value FROM dpm.strategies_id_seq) AS cb_st_seq \gset
-- 40 units, unit u holding u rows: a bound of 10 rows leaves out sum over u = 11 .. 40 of (u - 10)
-- = 465 of the 820 rows, of 30 units; every ninth row has no age, in no bin of the domain
CREATE TABLE cb_people AS
  SELECT u AS unit, r, CASE WHEN r % 9 <> 0 THEN (u * 7 + r) % 90 END AS age
    FROM generate_series(1, 40) u, generate_series(1, u) r;
SELECT dpm.register_source('cb_people', 'unit', 10, epsilon => 1);
SELECT dpm.create_domain('cb_age', 'cb_people', '[{"name": "age", "column": "age", "bins": {"min": 0, "max": 90, "width": 10}}]');
SELECT domain, rows, units, units_over_bound, round(rows_left_out::numeric, 2) AS rows_left_out, largest_unit
  FROM dpm.contribution_coverage('cb_people');
-- the same from the table: a unit of n rows, d of them in the domain's cells, loses n - 10 rows,
-- and d (n - 10) / n of the domain's in expectation
WITH u AS (SELECT unit, count(*) AS n, count(age) AS d FROM cb_people GROUP BY unit)
SELECT coalesce(c.domain, 'the table') AS scope,
       c.rows = t.rows AND c.units = t.units AND c.units_over_bound = t.over AND abs(c.rows_left_out - t.left_out) < 1e-9 AS equal
  FROM dpm.contribution_coverage('cb_people') c
  JOIN (SELECT NULL::text AS domain, sum(n) AS rows, count(*) AS units, count(*) FILTER (WHERE n > 10) AS over,
               sum(greatest(n - 10, 0))::float8 AS left_out FROM u
        UNION ALL
        SELECT 'cb_age', sum(d), count(*) FILTER (WHERE d > 0), count(*) FILTER (WHERE d > 0 AND n > 10),
               sum(d * greatest(n - 10, 0)::float8 / n) FROM u) t ON t.domain IS NOT DISTINCT FROM c.domain;
-- and what releases read: the rows of the domain a release keeps, over 300 scans, average to its
-- rows less those left out, within 5 standard errors (a unit keeps 10 of its n rows at random, d of
-- them in cells: hypergeometric, variance 10 (d / n)(1 - d / n)(n - 10) / (n - 1); a false alarm
-- below 6e-7)
WITH kept AS (SELECT (SELECT sum(x) FROM unnest(dpm_internal.frequency_vector(s, d, current_user::regrole, true)) x) AS k
                FROM dpm.sources s, dpm.domains d, generate_series(1, 300) i
               WHERE s.relation = 'cb_people'::regclass AND d.name = 'cb_age'),
     u AS (SELECT count(*) AS n, count(age) AS d FROM cb_people GROUP BY unit)
SELECT abs(avg(k) - (c.rows - c.rows_left_out)) < 5 * sqrt((SELECT sum(CASE WHEN n > 10 THEN 10 * (d::float8 / n) * (1 - d::float8 / n) * (n - 10) / (n - 1) ELSE 0 END) FROM u) / 300)
         AS expected_as_scanned
  FROM kept, dpm.contribution_coverage('cb_people') c WHERE c.domain = 'cb_age' GROUP BY c.rows, c.rows_left_out;
-- dpm.exact_answers gives both truths: every row's, and what a release's answer estimates, the
-- same over the rows a release keeps in expectation (a unit of n rows keeps each with
-- probability 10 / n); the counts and a measure's sums of each bin, against the table
SELECT dpm.create_workload('cb_by_age', 'cb_age', 'Identity(age)') AS queries;
SELECT dpm.create_measure('cb_r', 'cb_people', 'r', 0, 40) > 0 AS measure;
WITH w AS (SELECT unit, age, r, least(1, 10::float8 / count(*) OVER (PARTITION BY unit)) AS p FROM cb_people),
     t AS (SELECT width_bucket(age, 0, 90, 9) - 1 AS bin, count(*) AS n, sum(p) AS capped, sum(r) AS s, sum(r * p) AS capped_s
             FROM w WHERE age IS NOT NULL GROUP BY 1)
SELECT count(*) AS bins,
       count(*) FILTER (WHERE e.answer = t.n AND abs(e.capped_answer - t.capped) < 1e-9 AND e.capped_answer < e.answer) AS counts_equal,
       count(*) FILTER (WHERE es.answer = t.s AND abs(es.capped_answer - t.capped_s) < 1e-9) AS sums_equal
  FROM dpm.exact_answers('cb_by_age') e JOIN dpm.exact_answers('cb_by_age', 'cb_r') es ON es.query = e.query
  JOIN t ON t.bin = e.query - 1;
-- counts of distinct privacy units (issue 46, item 6; dpm.answer's aggregate units): each unit once
-- in each cell it has rows in, in at most max_contributions of them, chosen at random: it adds 1 to
-- at most that many cells, as that many rows would, and its noise is a count's.  Unit u has
-- 1 + u % 25 rows, at places (3u + r) % 9: up to 9 places
CREATE TABLE cb_visits AS
  SELECT u AS unit, (3 * u + r) % 9 AS place FROM generate_series(1, 300) u, generate_series(1, 1 + u % 25) r;
SET client_min_messages = warning;
SELECT dpm.register_source('cb_visits', 'unit', 9, epsilon => 1e9, delta => 1e-6);
SELECT dpm.create_domain('cb_place', 'cb_visits', '[{"name": "place", "column": "place", "values": [0, 1, 2, 3, 4, 5, 6, 7, 8]}]');
SELECT dpm.create_workload('cb_places', 'cb_place', 'Identity(place) + Total(place)') AS queries;
RESET client_min_messages;
-- a bound of 9 cells keeps every unit in every place it has: each place's count is its
-- count(DISTINCT unit), and the total sums them, a unit once in each place it has (noise of sd
-- about 1e-7 at epsilon 1e8)
SELECT count(*) AS queries, count(*) FILTER (WHERE abs(a.answer - t.n) < 0.5) AS equal
  FROM dpm.answer('cb_places', epsilon => 1e8, aggregate => 'units') a
  JOIN (SELECT place + 1 AS query, count(DISTINCT unit) AS n FROM cb_visits GROUP BY place
        UNION ALL SELECT 10, (SELECT count(*) FROM (SELECT DISTINCT unit, place FROM cb_visits) p)) t ON t.query = a.query;
-- the same charge and errors as counts of rows
SELECT (SELECT round(rms_error::numeric, 9) FROM dpm.explain('cb_places', epsilon => 1, aggregate => 'units'))
       = (SELECT round(rms_error::numeric, 9) FROM dpm.explain('cb_places', epsilon => 1)) AS same_error;
-- never reused as counts of rows, nor estimated from earlier releases
SELECT * FROM dpm.answer('cb_places', epsilon => 1, reuse => 'only');
SELECT * FROM dpm.answer('cb_places', epsilon => 1, aggregate => 'units', reuse => 'only');
SELECT * FROM dpm.answer('cb_places', epsilon => 1, aggregate => 'units', measure => 'cb_r');
SELECT counted, count(*) AS releases FROM dpm.releases
 WHERE source_id = (SELECT id FROM dpm.sources WHERE relation = 'cb_visits'::regclass) GROUP BY 1;
-- a bound of 4: a unit in c places keeps each with probability min(1, 4 / c); 300 scans of what a
-- release reads average to that expectation within 5 standard errors (a unit's kept places are a
-- random 4 of its c: each place's count is a sum of independent hypergeometric draws; a false
-- alarm below 6e-7 for each place)
UPDATE dpm.sources SET max_contributions = 4 WHERE relation = 'cb_visits'::regclass;
WITH u AS (SELECT unit, count(DISTINCT place) AS c FROM cb_visits GROUP BY unit),
     e AS (SELECT v.place, sum(least(1, 4.0 / u.c)) AS expected, sum(least(1, 4.0 / u.c) * (1 - least(1, 4.0 / u.c))) AS var
             FROM (SELECT DISTINCT unit, place FROM cb_visits) v JOIN u USING (unit) GROUP BY v.place),
     s AS (SELECT i, dpm_internal.units_data((SELECT r FROM dpm.releases r WHERE r.source_id = src.id AND r.counted = 'units' LIMIT 1),
                                             src, d) AS x
             FROM generate_series(1, 300) i, dpm.sources src, dpm.domains d
            WHERE src.relation = 'cb_visits'::regclass AND d.name = 'cb_place')
SELECT count(*) AS places, count(*) FILTER (WHERE abs(m.mean - e.expected) < 5 * sqrt(e.var / 300)) AS as_expected
  FROM e JOIN (SELECT p - 1 AS place, avg(s.x[p]) AS mean FROM s, generate_series(1, 9) p GROUP BY p) m USING (place);
-- help to choose the bound without looking (issue 46, item 3): dpm.answer_contributions, charged,
-- counts each unit once, in the bin of its rows (and of its cells of a domain): a unit moves one
-- count by 1.  At epsilon 1e6 (noise of sd about 1e-6) its quantiles are the table's, each the
-- largest value of the bin holding it (each value up to 8, then four bins an octave: 24 and 25 are
-- in 24 to 27)
UPDATE dpm.sources SET max_contributions = 9 WHERE relation = 'cb_visits'::regclass;
SELECT count(*) AS charges_before FROM dpm.ledger \gset
SELECT * FROM dpm.answer_contributions('cb_visits', epsilon => 1e6, domain => 'cb_place');
-- (a domain's cells bound the cells per unit: the bins of cells stop at its 9)
WITH u AS (SELECT unit, count(*) AS n, count(DISTINCT place) AS c FROM cb_visits GROUP BY unit)
SELECT f AS fraction, percentile_disc(f) WITHIN GROUP (ORDER BY n) AS rows_per_unit, percentile_disc(f) WITHIN GROUP (ORDER BY c) AS cells_per_unit
  FROM u, unnest(ARRAY[0.5, 0.75, 0.9, 0.95, 0.99]) f GROUP BY f ORDER BY f;
-- charged once, as a release of units by their rows and cells
SELECT count(*) - :charges_before AS charged FROM dpm.ledger;
SELECT r.counted, w.spec FROM dpm.releases r JOIN dpm.workloads w ON w.id = r.workload_id WHERE r.counted = 'profile' ORDER BY r.id;
-- refused before any charge
SELECT * FROM dpm.answer_contributions('cb_people', epsilon => 1, delta => 0.5);
SELECT * FROM dpm.answer_contributions('cb_visits', epsilon => 1, domain => 'cb_age');
SELECT * FROM dpm.answer_contributions('cb_visits', epsilon => -1);
SELECT * FROM dpm.answer_contributions('cb_visits', epsilon => 'NaN');
SELECT * FROM dpm.answer_contributions('cb_visits');
SELECT * FROM dpm.answer_contributions(NULL, epsilon => 1);
SELECT * FROM dpm.answer_contributions('cb_visits', epsilon => 1, domain => 'no_such_domain');
SELECT * FROM dpm.contribution_coverage(NULL);
SELECT count(*) - :charges_before AS charged FROM dpm.ledger;
-- a source without a privacy unit (a unit a row), or whose units hold at most the bound: nothing
-- left out, and no NOTICE
CREATE TABLE cb_rows AS SELECT g AS id, g % 7 AS x FROM generate_series(1, 50) g;
SELECT dpm.register_source('cb_rows', epsilon => 1);
SELECT * FROM dpm.contribution_coverage('cb_rows');
SELECT * FROM dpm.answer_contributions('cb_rows', epsilon => 1);
-- analysts never see these numbers
CREATE ROLE regress_cb_analyst IN ROLE dpm_analyst;
SET ROLE regress_cb_analyst;
SELECT * FROM dpm.contribution_coverage('cb_people');
RESET ROLE;
DROP ROLE regress_cb_analyst;

DELETE FROM dpm.ledger WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'cb_%');
DELETE FROM dpm.releases WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'cb_%');
DELETE FROM dpm.strategies WHERE workload_id IN (SELECT w.id FROM dpm.workloads w JOIN dpm.domains d ON d.id = w.domain_id
                                                    JOIN dpm.sources s ON s.id = d.source_id WHERE s.relation::text LIKE 'cb_%');
DELETE FROM dpm.measures WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'cb_%');
DELETE FROM dpm.workloads WHERE domain_id IN (SELECT d.id FROM dpm.domains d JOIN dpm.sources s ON s.id = d.source_id WHERE s.relation::text LIKE 'cb_%');
DELETE FROM dpm.domains WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'cb_%');
DELETE FROM dpm.sources WHERE relation::text LIKE 'cb_%';
DROP TABLE cb_people, cb_rows, cb_visits;
SELECT setval('dpm.sources_id_seq', :cb_src_seq) IS NOT NULL AND setval('dpm.domains_id_seq', :cb_dom_seq) IS NOT NULL
       AND setval('dpm.workloads_id_seq', :cb_wl_seq) IS NOT NULL AND setval('dpm.measures_id_seq', :cb_m_seq) IS NOT NULL
       AND setval('dpm.releases_id_seq', :cb_rel_seq) IS NOT NULL AND setval('dpm.strategies_id_seq', :cb_st_seq) IS NOT NULL AS sequences_set_back;
