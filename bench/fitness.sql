-- Fitness for use (Xiao et al., PVLDB 2020, section 7): per-query variance targets met at the least
-- privacy cost.  As in the paper, every method is given the privacy cost fitness for use needs and
-- the table shows the largest ratio of a query's variance to its target: input perturbation (IP,
-- identity), the hierarchical mechanism (HM), the optimal matrix mechanism for total error (CA,
-- gaussian_optimal) and CA on rows weighted by target^-1/2 (wCA-I) and target^-1/4 (wCA-II);
-- fitness for use (SM-II) is 1 by construction (checked: its largest ratio is printed).  Also its
-- total error relative to CA at the same cost, its time and Newton steps.  Workloads generated as
-- the paper describes, with fixed seeds, at the paper's sizes up to d = 256 (512 for marginals,
-- whose rank is smaller): beyond, one optimization takes minutes on this machine.
\set ON_ERROR_STOP 1
SET dpm.progress_interval = 0;
\pset footer off
SET dpm.blas_threads = 2;
SET jit = off;

\ir generators.sql

CREATE TEMP TABLE fresults (section text, workload text, d int, m int, targets text, seconds float8, steps int,
                            sm float8, ip float8, hm float8, ca float8, wca1 float8, wca2 float8, sse_vs_ca float8);

-- per-query variances under unit Gaussian noise on strategy a
CREATE FUNCTION pg_temp.unit_var(w float8[], a float8[]) RETURNS float8[] LANGUAGE sql AS $$
  SELECT array_agg(e.variance / dpm.gaussian_sigma(1, 1e-6, dpm.sensitivity(a, 'l2')) ^ 2 ORDER BY e.query)
    FROM dpm.expected_error(w, a, 1, 1e-6) e $$;
-- the largest variance-to-target ratio of strategy a given privacy cost `cost`: its noise scaled
-- so that Delta_2(A) / sigma = cost
CREATE FUNCTION pg_temp.max_ratio(w float8[], a float8[], c float8[], cost float8) RETURNS float8 LANGUAGE sql AS $$
  SELECT max(v / c[j]) * (dpm.sensitivity(a, 'l2') / cost) ^ 2
    FROM unnest(pg_temp.unit_var(w, a)) WITH ORDINALITY u(v, j) $$;
CREATE FUNCTION pg_temp.total(w float8[], a float8[], cost float8) RETURNS float8 LANGUAGE sql AS $$
  SELECT sum(v) * (dpm.sensitivity(a, 'l2') / cost) ^ 2 FROM unnest(pg_temp.unit_var(w, a)) v $$;
CREATE FUNCTION pg_temp.scale_rows(w float8[], s float8[]) RETURNS float8[] LANGUAGE sql AS $$
  SELECT array_agg(r ORDER BY i) FROM (
    SELECT i, array_agg(w[i][j] * s[i] ORDER BY j) r
      FROM generate_subscripts(w, 1) i, generate_subscripts(w, 2) j GROUP BY i) t $$;
CREATE FUNCTION pg_temp.uniform_targets(m int) RETURNS float8[] LANGUAGE sql AS $$
  SELECT array_fill(1.0::float8, ARRAY[m]) $$;
CREATE FUNCTION pg_temp.random_targets(m int, seed float8) RETURNS float8[] LANGUAGE sql AS $$
  SELECT array_agg(1 + 9 * random()) FROM (SELECT setseed(seed)) s, generate_series(1, m) $$;

CREATE PROCEDURE pg_temp.run(section text, name text, w float8[], c float8[], kind text,
                             options jsonb DEFAULT '{}') LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz := clock_timestamp();
  r record;
  secs float8;
  cost float8;
  ca float8[] := dpm.strategy(w, 'gaussian_optimal');
  uniform boolean := (SELECT min(x) = max(x) FROM unnest(c) x);
BEGIN
  r := dpm_internal.strategy_report(w, 'fitness', options || jsonb_build_object('targets', to_jsonb(c)));
  secs := extract(epoch FROM clock_timestamp() - t0);
  cost := dpm.sensitivity(r.matrix, 'l2');
  INSERT INTO fresults VALUES (section, name, array_length(w, 2), array_length(w, 1), kind, secs, r.iterations,
    pg_temp.max_ratio(w, r.matrix, c, cost),
    pg_temp.max_ratio(w, dpm.strategy(w, 'identity'), c, cost),
    pg_temp.max_ratio(w, dpm.strategy(w, 'hierarchical'), c, cost),
    pg_temp.max_ratio(w, ca, c, cost),
    CASE WHEN uniform THEN pg_temp.max_ratio(w, ca, c, cost) ELSE pg_temp.max_ratio(w,
      dpm.strategy(pg_temp.scale_rows(w, ARRAY(SELECT x ^ -0.5 FROM unnest(c) x)), 'gaussian_optimal'), c, cost) END,
    CASE WHEN uniform THEN pg_temp.max_ratio(w, ca, c, cost) ELSE pg_temp.max_ratio(w,
      dpm.strategy(pg_temp.scale_rows(w, ARRAY(SELECT x ^ -0.25 FROM unnest(c) x)), 'gaussian_optimal'), c, cost) END,
    pg_temp.total(w, r.matrix, cost) / pg_temp.total(w, ca, cost));
  COMMIT;
END $$;

-- section 7.2: identity queries plus their sum, target 1 for the cells and k for the sum
CREATE FUNCTION pg_temp.idsum(d int) RETURNS float8[] LANGUAGE sql AS $$
  SELECT array_cat(ARRAY(SELECT ARRAY(SELECT (i = j)::int::float8 FROM generate_series(1, d) j ORDER BY j)
                           FROM generate_series(1, d) i ORDER BY i),
                   ARRAY[array_fill(1.0::float8, ARRAY[d])]) $$;
-- section 7.5: each entry 1 with probability 0.2, else -1
CREATE FUNCTION pg_temp.random_queries(m int, d int, seed float8) RETURNS float8[] LANGUAGE sql AS $$
  SELECT array_agg(r ORDER BY q) FROM (SELECT setseed(seed)) s, LATERAL (
    SELECT q, array_agg(CASE WHEN random() < 0.2 THEN 1.0 ELSE -1.0 END ORDER BY j) r
      FROM generate_series(1, m) q, generate_series(1, d) j GROUP BY q) t $$;
-- section 7.3: PL-94, cells (voting age 2) x (Hispanic 2) x (race: 63 non-empty sets of 6);
-- the two binary marginals, the 6 single races and the 57 combinations (the race marginal), and
-- every cell.
CREATE FUNCTION pg_temp.pl94() RETURNS float8[] LANGUAGE sql AS $$
  WITH cells AS (SELECT c, c / 126 AS va, (c / 63) % 2 AS eth, c % 63 AS race FROM generate_series(0, 251) c),
       queries AS (SELECT 'va' AS kind, v AS val, 1 AS ord FROM generate_series(0, 1) v
                   UNION ALL SELECT 'eth', v, 2 FROM generate_series(0, 1) v
                   UNION ALL SELECT 'race', v, 3 FROM generate_series(0, 62) v
                   UNION ALL SELECT 'cell', v, 4 FROM generate_series(0, 251) v)
  SELECT array_agg(r ORDER BY ord, val) FROM (
    SELECT q.ord, q.val, array_agg((CASE q.kind WHEN 'va' THEN va = q.val WHEN 'eth' THEN eth = q.val
                                                WHEN 'race' THEN race = q.val ELSE c = q.val END)::int::float8 ORDER BY c) r
      FROM queries q, cells GROUP BY q.ord, q.val) t $$;
-- section 7.6: age pyramids, cells (sex 2) x (age 0..115); for males, females and both: every
-- prefix age <= x and the voting age 18..115
CREATE FUNCTION pg_temp.age_pyramid() RETURNS float8[] LANGUAGE sql AS $$
  WITH cells AS (SELECT c, c / 116 AS sex, c % 116 AS age FROM generate_series(0, 231) c),
       ranges AS (SELECT 0 AS lo, x AS hi FROM generate_series(0, 115) x UNION ALL SELECT 18, 115)
  SELECT array_agg(r ORDER BY g, lo, hi) FROM (
    SELECT g, lo, hi, array_agg((age BETWEEN lo AND hi AND (g = 2 OR sex = g))::int::float8 ORDER BY c) r
      FROM generate_series(0, 2) g, ranges, cells GROUP BY g, lo, hi) t $$;
-- section 7.7: all one- and two-way marginals of 3 attributes of t values (d = t^3)
CREATE FUNCTION pg_temp.marginals(t int) RETURNS float8[] LANGUAGE sql AS $$
  WITH cells AS (SELECT c, ARRAY[c / (t * t), (c / t) % t, c % t] AS v FROM generate_series(0, t * t * t - 1) c),
       queries AS (SELECT ARRAY[a] AS attrs, ARRAY[x] AS vals FROM generate_series(1, 3) a, generate_series(0, t - 1) x
                   UNION ALL
                   SELECT ARRAY[a, b], ARRAY[x, y] FROM generate_series(1, 3) a, generate_series(1, 3) b,
                          generate_series(0, t - 1) x, generate_series(0, t - 1) y WHERE a < b)
  SELECT array_agg(r ORDER BY attrs, vals) FROM (
    SELECT q.attrs, q.vals,
           array_agg((v[q.attrs[1]] = q.vals[1] AND (cardinality(q.attrs) = 1 OR v[q.attrs[2]] = q.vals[2]))::int::float8 ORDER BY c) r
      FROM queries q, cells GROUP BY q.attrs, q.vals) t $$;

-- Table 2 and 3 of the paper: prefix queries, unit targets
CREATE TEMP TABLE fprefix (d int, paper float8, cost2 float8, seconds float8, steps int);
CREATE PROCEDURE pg_temp.prefix(d int, paper float8) LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz := clock_timestamp();
  f record;
BEGIN
  SELECT * INTO f FROM dpm_internal.fitness(ARRAY(SELECT ARRAY(SELECT (j >= i)::int::float8 FROM generate_series(1, d) j ORDER BY j)
                                            FROM generate_series(1, d) i ORDER BY i), '{"targets": 1}');
  INSERT INTO fprefix VALUES (d, paper, f.privacy_cost ^ 2, extract(epoch FROM clock_timestamp() - t0), f.iterations);
  COMMIT;
END $$;
CALL pg_temp.prefix(2, 1.33);
CALL pg_temp.prefix(4, 1.76);
CALL pg_temp.prefix(8, 2.28);
CALL pg_temp.prefix(16, 2.91);
CALL pg_temp.prefix(64, 4.46);
CALL pg_temp.prefix(256, NULL);

CALL pg_temp.run('7.2 identity-sum', 'k = 1', pg_temp.idsum(256), pg_temp.uniform_targets(257), 'sum k');
CALL pg_temp.run('7.2 identity-sum', 'k = 4', pg_temp.idsum(256), pg_temp.uniform_targets(256) || 4.0::float8, 'sum k');
CALL pg_temp.run('7.2 identity-sum', 'k = 16', pg_temp.idsum(256), pg_temp.uniform_targets(256) || 16.0::float8, 'sum k');
CALL pg_temp.run('7.2 identity-sum', 'k = 64', pg_temp.idsum(256), pg_temp.uniform_targets(256) || 64.0::float8, 'sum k');
CALL pg_temp.run('7.3 PL-94', 'PL94', pg_temp.pl94(), pg_temp.uniform_targets(319), 'uniform', '{"basis": "upper"}');
CALL pg_temp.run('7.4 ranges', '2d random', pg_temp.wrange(128, 64, 0.1), pg_temp.uniform_targets(128), 'uniform');
CALL pg_temp.run('7.4 ranges', '2d random', pg_temp.wrange(256, 128, 0.2), pg_temp.uniform_targets(256), 'uniform');
CALL pg_temp.run('7.4 ranges', '2d random', pg_temp.wrange(512, 256, 0.3), pg_temp.uniform_targets(512), 'uniform');
CALL pg_temp.run('7.4 ranges', '2d random', pg_temp.wrange(128, 64, 0.1), pg_temp.random_targets(128, 0.4), 'random');
CALL pg_temp.run('7.4 ranges', '2d random', pg_temp.wrange(256, 128, 0.2), pg_temp.random_targets(256, 0.5), 'random');
CALL pg_temp.run('7.4 ranges', '2d random', pg_temp.wrange(512, 256, 0.3), pg_temp.random_targets(512, 0.6), 'random');
CALL pg_temp.run('7.5 random queries', '+-1, P(1) = 0.2', pg_temp.random_queries(128, 64, 0.1), pg_temp.uniform_targets(128), 'uniform');
CALL pg_temp.run('7.5 random queries', '+-1, P(1) = 0.2', pg_temp.random_queries(256, 128, 0.2), pg_temp.uniform_targets(256), 'uniform');
CALL pg_temp.run('7.5 random queries', '+-1, P(1) = 0.2', pg_temp.random_queries(128, 64, 0.1), pg_temp.random_targets(128, 0.4), 'random');
CALL pg_temp.run('7.5 random queries', '+-1, P(1) = 0.2', pg_temp.random_queries(256, 128, 0.2), pg_temp.random_targets(256, 0.5), 'random');
CALL pg_temp.run('7.6 age pyramids', 'AGE', pg_temp.age_pyramid(), pg_temp.uniform_targets(351), 'uniform', '{"basis": "upper"}');
CALL pg_temp.run('7.7 marginals', 't = 2', pg_temp.marginals(2), pg_temp.uniform_targets(18), 'uniform');
CALL pg_temp.run('7.7 marginals', 't = 4', pg_temp.marginals(4), pg_temp.uniform_targets(60), 'uniform');
CALL pg_temp.run('7.7 marginals', 't = 6', pg_temp.marginals(6), pg_temp.uniform_targets(126), 'uniform');
CALL pg_temp.run('7.7 marginals', 't = 8', pg_temp.marginals(8), pg_temp.uniform_targets(216), 'uniform');
CALL pg_temp.run('7.8 WRelated', 'm = s = d/2', pg_temp.wrelated(32, 64, 32, 0.1), pg_temp.uniform_targets(32), 'uniform');
CALL pg_temp.run('7.8 WRelated', 'm = s = d/2', pg_temp.wrelated(64, 128, 64, 0.2), pg_temp.uniform_targets(64), 'uniform');
CALL pg_temp.run('7.8 WRelated', 'm = s = d/2', pg_temp.wrelated(128, 256, 128, 0.3), pg_temp.uniform_targets(128), 'uniform');

\echo
\echo == fitness for use, paper Tables 2-3: squared privacy cost of prefix queries with unit targets
SELECT d, paper, round(cost2::numeric, 4) AS dpmatrix, round(seconds::numeric, 3) AS seconds, steps FROM fprefix ORDER BY d;
\echo
\echo == fitness for use, paper section 7: largest variance / target at the privacy cost fitness for use needs
SELECT section, workload, d, m, targets, round(sm::numeric, 4) AS "SM-II", round(ip::numeric, 2) AS "IP",
       round(hm::numeric, 2) AS "HM", round(ca::numeric, 2) AS "CA", round(wca1::numeric, 2) AS "wCA-I",
       round(wca2::numeric, 2) AS "wCA-II", round(sse_vs_ca::numeric, 3) AS "SSE/CA",
       round(seconds::numeric, 1) AS seconds, steps
  FROM fresults ORDER BY section, workload, targets, d;
