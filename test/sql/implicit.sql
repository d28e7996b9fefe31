-- Workloads from a spec are kept as their spec, W beside it only up to a sixteenth of
-- dpm.max_matrix_mb, and the identity strategy over a spec is a Kronecker product of identities
-- at any size, never an n x n matrix (issue 22, item 4).  A dense method over a workload kept
-- without W builds W when it runs, and gets what it gets with W stored.  Here dpm.max_matrix_mb = 1
-- makes a 200-cell workload (320 kB) implicit.
\set SHOW_CONTEXT never
SET client_min_messages = warning;
CREATE TABLE imp_people AS SELECT g AS id, g % 20 AS a, (g / 20) % 10 AS b FROM generate_series(1, 4000) g;
SELECT dpm.register_source('imp_people', epsilon => 100, delta => 1e-5);
SELECT dpm.create_domain('imp_d', 'imp_people',
  '[{"name": "a", "bins": {"min": 0, "max": 20, "width": 1}}, {"name": "b", "bins": {"min": 0, "max": 10, "width": 1}}]');
SELECT dpm.create_workload('imp_stored', 'imp_d', 'Identity(a) * Identity(b) + Prefix(a)');
SET dpm.max_matrix_mb = 1;
SELECT dpm.create_workload('imp_spec', 'imp_d', 'Identity(a) * Identity(b) + Prefix(a)');
SELECT name, matrix IS NULL AS implicit, m, n FROM dpm.workloads WHERE name LIKE 'imp_%' ORDER BY name;

-- identity: kept by its parameters, with the closed forms: sensitivity 1, and each query's
-- variance factor its number of cells (a Prefix(a) row of j bins covers 10 j cells)
SELECT dpm.optimize('imp_spec', method => 'identity') AS imp_id \gset
SELECT matrix IS NULL AND (kronecker).kind = 'kronecker' AND (kronecker).p = '{0,0}' AS by_parameters, rows,
       sensitivity_l1, sensitivity_l2, profile_trace = 200 + 10 * (20 * 21 / 2) AS trace_closed_form,
       max_profile = 200 AS max_closed_form
  FROM dpm.strategies WHERE id = :imp_id;
-- so is it over a small spec whose W is kept, and both give the figures of the dense identity over
-- the same W given as a matrix
SELECT dpm.optimize('imp_stored', method => 'identity') AS imp_small_id \gset
SELECT dpm.create_workload('imp_matrix', 'imp_d', (SELECT matrix FROM dpm.workloads WHERE name = 'imp_stored')) > 0 AS made;
SELECT dpm.optimize('imp_matrix', method => 'identity') AS imp_dense_id \gset
SELECT abs(i.profile_trace - d.profile_trace) < 1e-9 * d.profile_trace AS same_trace,
       abs(i.ratio_to_bound - d.ratio_to_bound) < 1e-9 AS same_ratio, d.matrix IS NOT NULL AS dense_was_dense,
       s.matrix IS NULL AND (s.kronecker).kind = 'kronecker' AS small_by_parameters,
       abs(s.profile_trace - d.profile_trace) < 1e-9 * d.profile_trace AS small_same_trace
  FROM dpm.strategies i, dpm.strategies d, dpm.strategies s
 WHERE i.id = :imp_id AND d.id = :imp_dense_id AND s.id = :imp_small_id;

-- a dense method builds W from the spec: the same strategy as over the stored W
SELECT dpm.optimize('imp_spec', method => 'hierarchical') AS imp_h \gset
SELECT dpm.optimize('imp_stored', method => 'hierarchical') AS imp_dense_h \gset
SELECT i.matrix = d.matrix AS same_matrix, abs(i.profile_trace - d.profile_trace) < 1e-9 * d.profile_trace AS same_trace
  FROM dpm.strategies i, dpm.strategies d WHERE i.id = :imp_h AND d.id = :imp_dense_h;

-- exact answers from the spec equal the plain GROUP BY
SELECT count(*) AS queries,
       bool_and(e.answer = (SELECT count(*) FROM imp_people p
                             WHERE (e.query <= 200 AND p.a * 10 + p.b = e.query - 1) OR (e.query > 200 AND p.a < e.query - 200)))
         AS equal_group_by
  FROM dpm.exact_answers('imp_spec') e;

-- releases with both strategies, W built for the dense one; standard errors as the closed forms
-- say: Laplace, b = 1/epsilon, a cell's variance 2 b^2 (to 1e-6: the exact sampler's grid
-- rounds the scale up by about 1e-10)
SELECT count(*) AS answers,
       bool_and(abs(stderr / (sqrt(2.0) * sqrt(CASE WHEN query <= 200 THEN 1 ELSE 10 * (query - 200) END)) - 1) < 1e-6)
         AS identity_stderr
  FROM dpm.answer('imp_spec', epsilon => 1, strategy => :imp_id);
SELECT count(*) AS answers, bool_and(stderr > 0) AS hierarchical_answers
  FROM dpm.answer('imp_spec', epsilon => 1, strategy => :imp_h);
RESET dpm.max_matrix_mb;
SELECT count(*) AS charges FROM dpm.ledger l JOIN dpm.sources s ON s.id = l.source_id WHERE s.relation = 'imp_people'::regclass;

DELETE FROM dpm.ledger WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation = 'imp_people'::regclass);
DELETE FROM dpm.releases WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation = 'imp_people'::regclass);
DELETE FROM dpm.domains WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation = 'imp_people'::regclass);
DELETE FROM dpm.sources WHERE relation = 'imp_people'::regclass;
DROP TABLE imp_people;
