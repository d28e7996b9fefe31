-- A dashboard of 10 related workloads over one domain (16 age bands x 2 sexes, 32 cells), answered
-- in turn, four ways in this one run: without reuse (each measured at epsilon 0.5, its strategy
-- chosen by auto), with reuse at the same per-step epsilon (the cells measured once at 0.5, every
-- later workload answered from them at no cost), with reuse at the same total budget (the cells
-- measured once at 5.0), and with reuse when the coarse workloads come first (each at 0.5, auto:
-- a partly determined workload has only its remainder measured).  Reported: total epsilon
-- charged, releases, total expected variance of the 290 answers (sum of stderr^2), and wall time.
-- Each way has a source of its own.
\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = warning;
SET jit = off;

\o /dev/null
CREATE TABLE bench_dash AS
SELECT g AS person, floor(random() * 80)::int AS age, (ARRAY['F', 'M'])[1 + floor(random() * 2)::int] AS sex
  FROM generate_series(1, 200000) g;
CREATE FUNCTION pg_temp.setup(tag text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE VIEW bench_dash_%s AS SELECT * FROM bench_dash', tag);
  PERFORM dpm.register_source(format('bench_dash_%s', tag)::regclass, 'person', 1, epsilon => 100);
  PERFORM dpm.create_domain('dash_' || tag, format('bench_dash_%s', tag)::regclass,
    '[{"name": "age", "bins": {"min": 0, "max": 80, "width": 5}}, {"name": "sex", "values": ["F", "M"]}]');
END $$;
SELECT pg_temp.setup(t) FROM unnest(ARRAY['never', 'reuse', 'budget', 'rem']) t;
CREATE FUNCTION pg_temp.tag(way text) RETURNS text LANGUAGE sql AS $$
  SELECT CASE way WHEN 'never' THEN 'never' WHEN 'reuse, same step epsilon' THEN 'reuse'
                  WHEN 'reuse, same total budget' THEN 'budget' ELSE 'rem' END $$;
\o

CREATE TEMP TABLE dash_specs (step int, spec text);
INSERT INTO dash_specs VALUES
  (1, 'Identity(age) * Identity(sex)'), (2, 'Total(age) * Total(sex)'), (3, 'Identity(age) * Total(sex)'),
  (4, 'Total(age) * Identity(sex)'), (5, 'Prefix(age) * Total(sex)'), (6, 'Prefix(age) * Identity(sex)'),
  (7, 'AllRange(age) * Total(sex)'), (8, 'Hierarchical(age) * Total(sex)'),
  (9, 'Ranges(age, [0, 20), [20, 65), [65, 80)) * Identity(sex)'), (10, 'Identity(age) * Total(sex) + Total(age) * Identity(sex)');
\o /dev/null
SELECT dpm.create_workload(format('dash_%s_%s', t, step), 'dash_' || t, spec)
  FROM dash_specs, unnest(ARRAY['never', 'reuse', 'budget', 'rem']) t;
\o

CREATE TEMP TABLE dash_results (way text, step int, queries int, variance float8, seconds float8);
CREATE PROCEDURE pg_temp.run(way text, first_epsilon float8, steps int[] DEFAULT '{1,2,3,4,5,6,7,8,9,10}') LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz;
  s record;
BEGIN
  FOR s IN SELECT d.* FROM unnest(steps) WITH ORDINALITY o(step, k) JOIN dash_specs d USING (step) ORDER BY o.k LOOP
    t0 := clock_timestamp();
    INSERT INTO dash_results
    SELECT way, s.step, count(*), sum(a.stderr ^ 2), extract(epoch FROM clock_timestamp() - t0)
      FROM dpm.answer(format('dash_%s_%s', pg_temp.tag(way), s.step),
                      epsilon => CASE WHEN s.step = 1 THEN first_epsilon ELSE 0.5 END, confidence => NULL,
                      method => CASE WHEN s.step = 1 AND way LIKE 'reuse, same%' THEN 'identity' END,
                      reuse => CASE WHEN way = 'never' THEN 'never' ELSE 'auto' END) a;
    COMMIT;
  END LOOP;
END $$;
CALL pg_temp.run('never', 0.5);
CALL pg_temp.run('reuse, same step epsilon', 0.5);
CALL pg_temp.run('reuse, same total budget', 5.0);
-- coarse first: the total, the marginals, then finer and finer; each partly determined workload
-- has its remainder measured (strategy by auto), the cells last
CALL pg_temp.run('reuse, coarse first (remainders)', 0.5, '{2,4,3,10,5,7,8,9,6,1}');

\echo
\echo == a dashboard of 10 workloads (290 answers) on 32 cells, answered in turn
SELECT r.way, (SELECT sum(l.epsilon) FROM dpm.ledger l JOIN dpm.sources s ON s.id = l.source_id
                WHERE s.relation = format('bench_dash_%s', pg_temp.tag(r.way))::regclass) AS epsilon_charged,
       (SELECT count(*) FROM dpm.releases l JOIN dpm.sources s ON s.id = l.source_id
         WHERE s.relation = format('bench_dash_%s', pg_temp.tag(r.way))::regclass) AS releases,
       sum(r.queries) AS answers, round(sum(r.variance)::numeric, 1) AS total_variance,
       round((sum(r.variance) / (SELECT sum(b.variance) FROM dash_results b WHERE b.way = 'never'))::numeric, 3) AS vs_without,
       round(sum(r.seconds)::numeric, 3) AS seconds
  FROM dash_results r GROUP BY r.way ORDER BY r.way;
\echo == per workload: total variance of its answers
SELECT r.step, s.spec, round(max(r.variance) FILTER (WHERE r.way = 'never')::numeric, 1) AS without_reuse,
       round(max(r.variance) FILTER (WHERE r.way = 'reuse, same step epsilon')::numeric, 1) AS reuse_same_step,
       round(max(r.variance) FILTER (WHERE r.way = 'reuse, same total budget')::numeric, 1) AS reuse_same_total,
       round(max(r.variance) FILTER (WHERE r.way LIKE 'reuse, coarse first%')::numeric, 1) AS coarse_first
  FROM dash_results r JOIN dash_specs s USING (step) GROUP BY r.step, s.spec ORDER BY r.step;
