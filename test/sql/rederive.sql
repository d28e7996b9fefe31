-- Post-processing is free: dpm.release(id, inference => ..., confidence => ...) derives a release's
-- answers again from its stored measurements (dpm.release_measurements), charging nothing.  For
-- each form of strategy (dense with its cache, HDMM, residual under Gaussian and under Laplace
-- noise): the release's own inference reproduces its stored answers; another inference keeps the
-- least-squares stderr and interval widths as the reference; another confidence gives the
-- interval its noise calls for.  Tolerances are relative, 1e-9: the same code on the same values.
\set SHOW_CONTEXT never
SET client_min_messages = warning;
CREATE TABLE rd_people AS SELECT g AS id, (g * 7) % 12 AS kind, g % 3 AS grp FROM generate_series(1, 600) g;
SELECT dpm.register_source('rd_people', epsilon => 100, delta => 1e-3);
SELECT dpm.create_domain('rd_dom', 'rd_people',
  '[{"name": "kind", "bins": {"min": 0, "max": 12, "width": 1}}, {"name": "grp", "values": [0, 1, 2]}]');
SELECT dpm.create_workload('rd_prefix', 'rd_dom', 'Prefix(kind) * Identity(grp)');
SELECT dpm.create_workload('rd_marg', 'rd_dom', 'Marginals(1)');
-- one release of each form, intervals at 90% (each id read after its release is committed)
CREATE TEMP TABLE rd (form text, id bigint);
SELECT count(*) FROM dpm.answer('rd_prefix', epsilon => 1, method => 'hierarchical', confidence => 0.9);
INSERT INTO rd SELECT 'dense', max(id) FROM dpm.releases;
SELECT count(*) FROM dpm.answer('rd_prefix', epsilon => 1, method => 'hdmm', confidence => 0.9);
INSERT INTO rd SELECT 'hdmm', max(id) FROM dpm.releases;
SELECT count(*) FROM dpm.answer('rd_marg', epsilon => 1, delta => 1e-6, method => 'residual', confidence => 0.9);
INSERT INTO rd SELECT 'residual_gaussian', max(id) FROM dpm.releases;
SELECT count(*) FROM dpm.answer('rd_marg', epsilon => 1, method => 'residual', confidence => 0.9);
INSERT INTO rd SELECT 'residual_laplace', max(id) FROM dpm.releases;
SELECT rd.form, CASE WHEN s.pinv IS NOT NULL THEN 'cached' WHEN s.matrix IS NOT NULL THEN 'dense'
                    WHEN (s.residual).attribute_sets IS NOT NULL THEN 'residual' WHEN (s.kronecker).kind IS NOT NULL THEN 'hdmm' END AS strategy_form,
       r.noise, m.part_sizes, m.laplace_t IS NOT NULL AS laplace_law
  FROM rd JOIN dpm.releases r USING (id) JOIN dpm.strategies s ON s.id = r.strategy_id
  JOIN dpm.release_measurements m ON m.release_id = r.id ORDER BY rd.id;
-- the measurements are the strategy's rows: one value per row of a dense or HDMM strategy, one per
-- cell of each measured residual (12 - 1, 3 - 1 and the total's 1) or marginal table (12, 3)
SELECT rd.form, cardinality(m.y) = (SELECT sum(v) FROM unnest(m.part_sizes) v) AS sizes_add_up,
       cardinality(m.y) = s.rows OR rd.form LIKE 'residual%' AS one_per_strategy_row
  FROM rd JOIN dpm.releases r USING (id) JOIN dpm.strategies s ON s.id = r.strategy_id
  JOIN dpm.release_measurements m ON m.release_id = r.id ORDER BY rd.id;

SELECT sum(epsilon) AS spent_before, count(*) AS charges_before FROM dpm.ledger \gset
-- the release's own inference: its stored answers, stderrs and intervals again
SELECT rd.form, count(*) AS queries,
       bool_and(abs(d.answer - s.answer) <= 1e-9 * (1 + abs(s.answer))) AS same_answers,
       bool_and(abs(d.stderr - s.stderr) <= 1e-9 * s.stderr) AS same_stderr,
       bool_and(abs(d.ci_low - s.ci_low) <= 1e-9 * (1 + abs(s.ci_low))
                AND abs(d.ci_high - s.ci_high) <= 1e-9 * (1 + abs(s.ci_high))) AS same_intervals,
       bool_and(d.label = s.label) AS same_labels
  FROM rd, LATERAL dpm.release(rd.id) s JOIN LATERAL dpm.release(rd.id, inference => 'ls') d USING (query)
 GROUP BY rd.form, rd.id ORDER BY rd.id;
-- non-negative least squares from the same measurements: the marginals' cells and the dense
-- strategy's cells are >= 0 (answers are sums of them), stderr and widths are least squares'
SELECT rd.form,
       bool_and(d.answer >= -1e-9 * (1 + abs(s.answer))) AS non_negative,
       bool_and(abs(d.stderr - s.stderr) <= 1e-9 * s.stderr) AS reference_stderr,
       bool_and(abs((d.ci_high - d.ci_low) - (s.ci_high - s.ci_low)) <= 1e-9 * (s.ci_high - s.ci_low)) AS reference_width,
       bool_and(abs(d.answer - (d.ci_low + d.ci_high) / 2) <= 1e-9 * (1 + abs(d.answer))) AS centred
  FROM rd, LATERAL dpm.release(rd.id) s JOIN LATERAL dpm.release(rd.id, inference => 'nnls') d USING (query)
 WHERE rd.form <> 'hdmm'
 GROUP BY rd.form, rd.id ORDER BY rd.id;
-- the dense strategy's non-negative estimate is dpm.reconstruct's on the stored measurements
SELECT max(abs(d.answer - t.v)) <= 1e-6 * (1 + max(abs(t.v))) AS nnls_as_reconstruct
  FROM rd JOIN dpm.releases r USING (id) JOIN dpm.strategies s ON s.id = r.strategy_id
  JOIN dpm.workloads w ON w.id = r.workload_id JOIN dpm.release_measurements m ON m.release_id = r.id,
       LATERAL unnest(dpm_internal.matvec(w.matrix, dpm.reconstruct(s.matrix, m.y, 'nnls'))) WITH ORDINALITY t(v, query)
  JOIN LATERAL dpm.release(rd.id, inference => 'nnls') d USING (query)
 WHERE rd.form = 'dense';
-- integers: every marginal cell a non-negative integer
SELECT bool_and(answer >= 0 AND answer = round(answer)) AS integer_cells
  FROM rd, LATERAL dpm.release(rd.id, inference => 'nnls_integer') WHERE rd.form = 'residual_gaussian';
-- another confidence: Gaussian intervals are exact, stderr times z(0.75) = 0.6744897501960817 at 50%;
-- Laplace ones are simulated again from dpm.ci_draws = 1000 draws (no time limit here), narrower
-- than the 90% ones from at least 100 draws (the HDMM simulation stops after
-- dpm.ci_max_seconds in the worker; releases.ci_draws says how many it took): fails with
-- probability below 1e-15
SELECT bool_and(abs((ci_high - ci_low) / 2 - 0.6744897501960817 * stderr) <= 1e-9 * stderr) AS gaussian_half_width
  FROM rd, LATERAL dpm.release(rd.id, confidence => 0.5) WHERE rd.form = 'residual_gaussian';
SET dpm.ci_max_seconds = 3600;
SELECT rd.form, bool_and(d.ci_high - d.ci_low < s.ci_high - s.ci_low OR r.ci_draws < 100) AS narrower,
       bool_and(abs(d.answer - s.answer) <= 1e-9 * (1 + abs(s.answer))) AS same_answers
  FROM rd JOIN dpm.releases r USING (id), LATERAL dpm.release(rd.id) s
  JOIN LATERAL dpm.release(rd.id, confidence => 0.5) d USING (query)
 WHERE rd.form IN ('dense', 'hdmm', 'residual_laplace') GROUP BY rd.form, rd.id ORDER BY rd.id;
-- nothing was charged, no release was added
RESET dpm.ci_max_seconds;
SELECT sum(epsilon) = :spent_before AS nothing_spent, count(*) = :charges_before AS no_charge FROM dpm.ledger;
SELECT count(*) = 4 AS no_new_release FROM dpm.releases WHERE source_id = (SELECT id FROM dpm.sources WHERE relation = 'rd_people'::regclass);

-- a release made with nnls: least squares from its measurements is W A^+ y
CREATE TEMP TABLE rd_nnls AS SELECT * FROM dpm.answer('rd_prefix', epsilon => 1, method => 'hierarchical', inference => 'nnls');
SELECT max(id) AS nnls_id FROM dpm.releases \gset
SELECT max(abs(d.answer - t.v)) <= 1e-9 * (1 + max(abs(t.v))) AS ls_is_pinv
  FROM dpm.releases r JOIN dpm.strategies s ON s.id = r.strategy_id JOIN dpm.workloads w ON w.id = r.workload_id
  JOIN dpm.release_measurements m ON m.release_id = r.id,
       LATERAL unnest(dpm_internal.matvec(w.matrix, dpm.reconstruct(s.matrix, m.y))) WITH ORDINALITY t(v, query)
  JOIN LATERAL dpm.release(:nnls_id, inference => 'ls') d USING (query)
 WHERE r.id = :nnls_id;

-- the dense inference with the stored cache or without it (computed from A) agrees
SELECT bool_and(abs(c.answer - n.answer) <= 1e-9 * (1 + abs(c.answer)) AND abs(c.stderr - n.stderr) <= 1e-9 * c.stderr) AS cache_or_not
  FROM dpm.releases r JOIN dpm.strategies s ON s.id = r.strategy_id JOIN dpm.workloads w ON w.id = r.workload_id
  JOIN dpm.release_measurements meas ON meas.release_id = r.id,
       LATERAL dpm_internal.dense_infer(w.matrix, s.matrix, s.pinv, s.profile, meas, confidence => NULL) c
  JOIN LATERAL dpm_internal.dense_infer(w.matrix, s.matrix, NULL::float8[], NULL::float8[], meas, confidence => NULL) n USING (query)
 WHERE r.id = :nnls_id;

-- bad requests, refused with nothing changed
SELECT * FROM dpm.release(:nnls_id, inference => 'lasso');
SELECT * FROM dpm.release(:nnls_id, confidence => 1);
SELECT * FROM dpm.release(NULL, inference => 'ls');
SELECT * FROM dpm.release(-1, inference => 'ls');
-- measurements that do not fit the strategy
SELECT count(*) FROM dpm.releases r JOIN dpm.strategies s ON s.id = r.strategy_id JOIN dpm.workloads w ON w.id = r.workload_id
  JOIN dpm.release_measurements m ON m.release_id = r.id,
       LATERAL dpm_internal.dense_infer(w.matrix, s.matrix, s.pinv, s.profile,
                                        ROW(NULL, m.y[2:], ARRAY[cardinality(m.y) - 1], m.variance, m.laplace_t, m.laplace_grid_exp, m.quantity)::dpm.release_measurements)
 WHERE r.id = :nnls_id;
SELECT count(*) FROM dpm.releases r JOIN dpm.strategies s ON s.id = r.strategy_id JOIN dpm.workloads w ON w.id = r.workload_id
  JOIN dpm.release_measurements m ON m.release_id = r.id,
       LATERAL dpm_internal.dense_infer(w.matrix, s.matrix, s.pinv, s.profile,
                                        ROW(NULL, m.y, m.part_sizes, ARRAY[-1]::float8[], m.laplace_t, m.laplace_grid_exp, m.quantity)::dpm.release_measurements)
 WHERE r.id = :nnls_id;
SELECT count(*) FROM dpm.releases r JOIN dpm.strategies s ON s.id = r.strategy_id JOIN dpm.workloads w ON w.id = r.workload_id
  JOIN dpm.release_measurements m ON m.release_id = r.id,
       LATERAL dpm_internal.dense_infer(w.matrix, s.matrix, s.pinv, s.profile,
                                        ROW(NULL, m.y, m.part_sizes, m.variance, m.laplace_t, NULL, m.quantity)::dpm.release_measurements)
 WHERE r.id = :nnls_id;
-- a release without measurements (made before 0.2) replays, and says why it cannot be derived
DELETE FROM dpm.release_measurements WHERE release_id = :nnls_id;
SELECT count(*) AS replayed FROM dpm.release(:nnls_id);
SELECT * FROM dpm.release(:nnls_id, inference => 'ls');

-- Analysts: their own releases only, measurements included (row-level security)
CREATE ROLE regress_rd_alice IN ROLE dpm_analyst;
CREATE ROLE regress_rd_bob IN ROLE dpm_analyst;
SET ROLE regress_rd_alice;
SELECT dpm.create_workload('rd_alice_w', 'rd_dom', 'Identity(kind) * Total(grp)');
SELECT count(*) FROM dpm.answer('rd_alice_w', epsilon => 1, method => 'identity');
SELECT max(id) AS alice_id FROM dpm.releases \gset
SELECT count(*) AS alice_derives FROM dpm.release(:alice_id, inference => 'nnls');
SELECT count(*) AS alice_sees_measurements FROM dpm.release_measurements WHERE release_id = :alice_id;
SET ROLE regress_rd_bob;
SELECT count(*) AS bob_sees_measurements FROM dpm.release_measurements;
SELECT * FROM dpm.release(:alice_id, inference => 'nnls');
SELECT * FROM dpm.release(:alice_id);
RESET ROLE;

SELECT id AS rd_source FROM dpm.sources WHERE relation = 'rd_people'::regclass \gset
DELETE FROM dpm.ledger WHERE source_id = :rd_source;
DELETE FROM dpm.releases WHERE source_id = :rd_source;
SELECT count(*) AS measurements_left FROM dpm.release_measurements m
 WHERE NOT EXISTS (SELECT 1 FROM dpm.releases r WHERE r.id = m.release_id);
DELETE FROM dpm.domains WHERE source_id = :rd_source;
DELETE FROM dpm.sources WHERE id = :rd_source;
DROP TABLE rd_people;
DROP ROLE regress_rd_alice, regress_rd_bob;
