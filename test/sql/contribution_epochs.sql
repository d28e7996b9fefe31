-- Changing a source's bounds is a new epoch of the same budget, and a second source of the same
-- people spends the first's budget (issue 46, item 4).
\set SHOW_CONTEXT never
SELECT (SELECT last_value FROM dpm.sources_id_seq) AS ce_src_seq, (SELECT last_value FROM dpm.domains_id_seq) AS ce_dom_seq,
       (SELECT last_value FROM dpm.workloads_id_seq) AS ce_wl_seq, (SELECT last_value FROM dpm.releases_id_seq) AS ce_rel_seq,
       (SELECT last_value FROM dpm.strategies_id_seq) AS ce_st_seq \gset
SET client_min_messages = warning;
-- 200 units, unit u with 1 + u % 9 rows over 5 cells
CREATE TABLE ce_visits AS SELECT u AS uid, (u * 7 + r) % 5 AS c FROM generate_series(1, 200) u, generate_series(1, 1 + u % 9) r;
SELECT dpm.register_source('ce_visits', 'uid', 3, epsilon => 10, delta => 1e-3);
SELECT dpm.create_domain('ce_c', 'ce_visits', '[{"name": "c", "values": [0, 1, 2, 3, 4]}]');
SELECT dpm.create_workload('ce_w', 'ce_c', 'Identity(c)');
CREATE TEMP TABLE first AS SELECT * FROM dpm.answer('ce_w', epsilon => 1, delta => 1e-6, method => 'identity');
RESET client_min_messages;
-- each release keeps the bounds it was charged and computed under
SELECT r.bounds, r.status FROM dpm.releases r JOIN dpm.sources s ON s.id = r.source_id WHERE s.relation = 'ce_visits'::regclass;
SELECT round(sensitivity::numeric, 4) AS sensitivity FROM dpm.explain('ce_w', epsilon => 1, delta => 1e-6, method => 'identity');

-- New bounds: checked as at registration (nothing changes on a refusal); the same ones change nothing
SELECT dpm.set_bounds('ce_visits', max_groups => 2);
SELECT dpm.set_bounds('ce_visits', 5, max_groups => 2, max_per_group => 2);
SELECT dpm.set_bounds('ce_visits', 0);
SELECT dpm.set_bounds('ce_visits');
SELECT dpm.set_bounds(NULL, 2);
SELECT dpm.set_bounds('ce_visits', 3);
SELECT max_contributions, max_groups, max_per_group FROM dpm.sources WHERE relation = 'ce_visits'::regclass;
-- the change: the custodian is told what it leaves out now, and that the budget carries over
SELECT epsilon_spent, delta_spent, releases FROM dpm.budget('ce_visits');
SELECT dpm.set_bounds('ce_visits', max_groups => 2, max_per_group => 2);
SELECT epsilon_spent, delta_spent, releases FROM dpm.budget('ce_visits');
-- a release now scans and adds noise under the new bounds (identity, Gaussian: 2 sqrt(2), was 3) ...
SELECT round(sensitivity::numeric, 4) AS sensitivity FROM dpm.explain('ce_w', epsilon => 1, delta => 1e-6, method => 'identity');
-- ... the earlier release replays as it was, under its own ...
SELECT count(*) AS answers, bool_and(r.answer = f.answer AND r.stderr = f.stderr) AS replayed
  FROM dpm.release((SELECT min(r.id) FROM dpm.releases r JOIN dpm.sources s ON s.id = r.source_id
                     WHERE s.relation = 'ce_visits'::regclass)) r JOIN first f USING (query);
SELECT (dpm_internal.release_source(r)).max_contributions AS its_bound, (dpm_internal.release_source(r)).max_groups AS its_groups
  FROM dpm.releases r JOIN dpm.sources s ON s.id = r.source_id WHERE s.relation = 'ce_visits'::regclass;
-- ... and no estimate combines it with releases under the new bounds, which count other rows
SELECT count(*) FROM dpm.estimate('ce_w');
SELECT count(*) FROM dpm.answer('ce_w', epsilon => 1, delta => 1e-6, reuse => 'only');
SET client_min_messages = warning;
SELECT count(*) AS answers FROM dpm.answer('ce_w', epsilon => 1, delta => 1e-6, method => 'identity');
RESET client_min_messages;
SELECT count(*) AS answers, bool_and(abs(x.stderr - n.stderr) < 1e-9) AS from_the_new_release_alone
  FROM dpm.estimate('ce_w') x JOIN dpm.release((SELECT max(r.id) FROM dpm.releases r)) n USING (query);
SELECT r.bounds FROM dpm.releases r JOIN dpm.sources s ON s.id = r.source_id WHERE s.relation = 'ce_visits'::regclass ORDER BY r.id;
-- a source of one row a unit: no bound keeps fewer, the same counts are estimated, and combined
CREATE TABLE ce_people AS SELECT g AS id, g % 5 AS c FROM generate_series(1, 300) g;
ALTER TABLE ce_people ADD PRIMARY KEY (id);
SET client_min_messages = warning;
SELECT dpm.register_source('ce_people', 'id', 2, epsilon => 10, delta => 1e-3);
SELECT dpm.create_domain('ce_pc', 'ce_people', '[{"name": "c", "values": [0, 1, 2, 3, 4]}]');
SELECT dpm.create_workload('ce_pw', 'ce_pc', 'Identity(c)');
SELECT count(*) FROM dpm.answer('ce_pw', epsilon => 1, delta => 1e-6);
SELECT dpm.set_bounds('ce_people', 1);
SELECT count(*) FROM dpm.answer('ce_pw', epsilon => 1, delta => 1e-6);
RESET client_min_messages;
SELECT count(*) AS answers, bool_and(x.stderr < f.stderr) AS combines_both
  FROM dpm.estimate('ce_pw') x JOIN dpm.release((SELECT max(r.id) FROM dpm.releases r)) f USING (query);

-- The same people.  A view of a registered table is registered with a budget of its own unless
-- the custodian says they are the same people: then it spends that source's, one ledger for both.
CREATE VIEW ce_recent AS SELECT * FROM ce_visits WHERE c < 4;
CREATE VIEW ce_older AS SELECT * FROM ce_visits WHERE c > 0;
SELECT dpm.register_source('ce_recent', 'uid', 3, epsilon => 10, delta => 1e-3);
SELECT dpm.register_source('ce_older', 'uid', 3, same_people_as => 'ce_visits', epsilon => 1);
SELECT dpm.register_source('ce_older', 'uid', 3, same_people_as => 'ce_nothing');
SELECT dpm.register_source('ce_older', 'uid', 3, same_people_as => 'ce_visits');
SELECT s.relation, o.relation AS spends_budget_of, s.model, s.budget_epsilon, s.budget_delta
  FROM dpm.sources s LEFT JOIN dpm.sources o ON o.id = s.budget_of
 WHERE s.relation::text LIKE 'ce_%' ORDER BY s.id;
SET client_min_messages = warning;
SELECT dpm.create_domain('ce_oc', 'ce_older', '[{"name": "c", "values": [0, 1, 2, 3, 4]}]');
SELECT dpm.create_workload('ce_ow', 'ce_oc', 'Identity(c)');
SELECT count(*) FROM dpm.answer('ce_ow', epsilon => 2, delta => 1e-6);
RESET client_min_messages;
-- both show one budget, spent by both: 1 + 1 + 2
SELECT b.epsilon_spent, b.delta_spent, b.releases, b.epsilon_remaining
  FROM unnest(ARRAY['ce_visits', 'ce_older']::regclass[]) s, dpm.budget(s) b;
-- its budget is set where it is kept, and both follow
SELECT dpm.set_budget('ce_older', epsilon => 20);
SELECT dpm.set_budget('ce_visits', epsilon => 6);
SELECT relation, budget_epsilon FROM dpm.sources WHERE relation IN ('ce_visits'::regclass, 'ce_older'::regclass) ORDER BY id;
-- 2 is left: a charge of 3 on either is refused, one of 2 passes, and then nothing is left for either
SELECT count(*) FROM dpm.answer('ce_ow', epsilon => 3, delta => 1e-6);
SELECT count(*) FROM dpm.answer('ce_w', epsilon => 3, delta => 1e-6);
SET client_min_messages = warning;
SELECT count(*) FROM dpm.answer('ce_w', epsilon => 2, delta => 1e-6);
RESET client_min_messages;
SELECT count(*) FROM dpm.answer('ce_ow', epsilon => 0.5, delta => 1e-6);
-- periods give each period a budget of its own, which another source cannot share
SELECT dpm.set_periods('ce_older', 'c');
SELECT dpm.set_periods('ce_visits', 'c');

-- A new model, with a new budget: what was spent counts there.  A pure source's two releases of
-- epsilon 1 and 2 spend rho 0.5 + 2 = 2.5 in zCDP (an epsilon-DP release is epsilon^2 / 2-zCDP)
CREATE TABLE ce_pure AS SELECT g AS id, g % 5 AS c FROM generate_series(1, 300) g;
SET client_min_messages = warning;
SELECT dpm.register_source('ce_pure', epsilon => 5);
SELECT dpm.create_domain('ce_qc', 'ce_pure', '[{"name": "c", "values": [0, 1, 2, 3, 4]}]');
SELECT dpm.create_workload('ce_qw', 'ce_qc', 'Identity(c)');
SELECT count(*) FROM dpm.answer('ce_qw', epsilon => 1);
SELECT count(*) FROM dpm.answer('ce_qw', epsilon => 2);
RESET client_min_messages;
SELECT dpm.set_model('ce_pure', epsilon => 5);
SELECT dpm.set_model('ce_pure', rho => 2);
SELECT dpm.set_model('ce_pure', rho => 3, delta => 1e-6);
SELECT model, rho_budget, rho_spent, delta_budget, releases FROM dpm.budget('ce_pure');
-- its releases now take rho (Gaussian noise): 0.5 fits, 0.1 more does not
SET client_min_messages = warning;
SELECT count(*) FROM dpm.answer('ce_qw', rho => 0.5);
RESET client_min_messages;
SELECT count(*) FROM dpm.answer('ce_qw', rho => 0.1);
-- rho spent is an (epsilon, delta) only for a delta chosen for it; delta spent is no zCDP: refused
SELECT dpm.set_model('ce_pure', epsilon => 10, delta => 1e-5);
SELECT dpm.set_model('ce_visits', rho => 10);
-- a source of the same people follows its budget's source
SELECT dpm.set_model('ce_older', epsilon => 10);

SET client_min_messages = warning;
SELECT dpm.unregister_source(s.relation) FROM dpm.sources s WHERE s.relation::text LIKE 'ce_%' AND s.unregistered_at IS NULL;
DELETE FROM dpm.ledger WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'ce_%');
DELETE FROM dpm.releases WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'ce_%');
DELETE FROM dpm.strategies WHERE workload_id IN (SELECT w.id FROM dpm.workloads w JOIN dpm.domains d ON d.id = w.domain_id
                                                    JOIN dpm.sources s ON s.id = d.source_id WHERE s.relation::text LIKE 'ce_%');
DELETE FROM dpm.workloads WHERE domain_id IN (SELECT d.id FROM dpm.domains d JOIN dpm.sources s ON s.id = d.source_id WHERE s.relation::text LIKE 'ce_%');
DELETE FROM dpm.domains WHERE source_id IN (SELECT id FROM dpm.sources WHERE relation::text LIKE 'ce_%');
UPDATE dpm.sources SET budget_of = NULL WHERE relation::text LIKE 'ce_%';
DELETE FROM dpm.sources WHERE relation::text LIKE 'ce_%';
DROP VIEW ce_recent, ce_older;
DROP TABLE ce_visits, ce_people, ce_pure;
RESET client_min_messages;
SELECT setval('dpm.sources_id_seq', :ce_src_seq) IS NOT NULL AND setval('dpm.domains_id_seq', :ce_dom_seq) IS NOT NULL
       AND setval('dpm.workloads_id_seq', :ce_wl_seq) IS NOT NULL AND setval('dpm.releases_id_seq', :ce_rel_seq) IS NOT NULL
       AND setval('dpm.strategies_id_seq', :ce_st_seq) IS NOT NULL AS sequences_set_back;
