-- The catalog.  Rows are kept by pg_dump (pg_extension_config_dump) and written only through the
-- extension's functions (they run as the extension owner).  Budgets and charges are numeric so
-- that sums are exact.  Runs once, at install: an update script changes these tables itself.

CREATE TABLE dpm.sources (
  id                serial PRIMARY KEY,
  -- NULL once the table is dropped, which only an unregistered source's can be (sql/29_guards.sql)
  relation          regclass,
  privacy_unit      name,
  max_contributions int NOT NULL DEFAULT 1 CHECK (max_contributions >= 1),
  -- 'pure': epsilon-DP, Laplace only, sequential composition.
  -- 'approx': (epsilon, delta)-DP by basic composition; Laplace or Gaussian.
  -- 'zcdp': rho-zCDP, additive; Gaussian (rho) or Laplace (epsilon, charged rho = epsilon^2 / 2);
  --   a delta budget, when given, pays only for partition selection (dpm.answer_keys): the source
  --   is then (rho, delta)-approximately zCDP, both additive.
  model             text NOT NULL CHECK (model IN ('pure', 'approx', 'zcdp')),
  budget_epsilon    numeric CHECK (budget_epsilon > 0),
  budget_delta      numeric NOT NULL DEFAULT 0 CHECK (budget_delta >= 0 AND budget_delta < 1),
  budget_rho        numeric CHECK (budget_rho > 0),
  registered_by     regrole NOT NULL DEFAULT dpm_internal.invoker(),
  registered_at     timestamptz NOT NULL DEFAULT now(),
  CHECK (CASE model WHEN 'zcdp' THEN budget_rho IS NOT NULL AND budget_epsilon IS NULL
                    WHEN 'pure' THEN budget_epsilon IS NOT NULL AND budget_rho IS NULL AND budget_delta = 0
                    ELSE budget_epsilon IS NOT NULL AND budget_rho IS NULL AND budget_delta > 0 END),
  -- dpm.unregister_source: no release reads it any more; its row, releases and ledger stay as the
  -- record of what was spent, and registering the same table again takes them up again
  unregistered_at   timestamptz,
  relation_name     text,                  -- the table's name when it was unregistered
  CHECK (relation IS NOT NULL OR unregistered_at IS NOT NULL),
  -- dpm.set_periods: the source grows by periods of a date or timestamp column, each a disjoint
  -- set of rows with a budget of its own (the budget above, each period's: parallel composition).
  -- Period k holds the rows from period_start + k period_width (local time in period_zone) to the
  -- next; a width is whole days or whole months.  A privacy unit counts in its first max_periods
  -- periods only (sql/16_periods.sql).
  period_column     name,
  period_width      interval,
  period_start      date,
  period_zone       text,
  max_periods       int,
  -- dpm.set_max_key_bytes: the longest value dpm.answer_keys reads as a key (longer ones are no key)
  max_key_bytes     int NOT NULL DEFAULT 256 CHECK (max_key_bytes BETWEEN 1 AND 65536),
  -- two bounds instead of one (dpm.register_source): a release counts a privacy unit's rows in at
  -- most max_groups cells of its domain (keys of a selection), at most max_per_group in each;
  -- max_contributions is then their product, the most rows a unit adds in all.  Not with periods.
  max_groups        int CHECK (max_groups >= 1),
  max_per_group     int CHECK (max_per_group >= 1),
  -- dpm.register_source's same_people_as: this source's privacy units are that source's people, so
  -- its releases spend that source's budget (kept here as a copy), summed over both ledgers
  budget_of         int REFERENCES dpm.sources,
  CHECK ((period_column IS NULL) = (period_width IS NULL) AND (period_column IS NULL) = (period_start IS NULL)
         AND (period_column IS NULL) = (period_zone IS NULL) AND (period_column IS NULL) = (max_periods IS NULL)),
  CHECK (max_periods >= 1 AND (max_periods = 1 OR privacy_unit IS NOT NULL)),
  CHECK ((max_groups IS NULL) = (max_per_group IS NULL)),
  CHECK (max_groups IS NULL OR (max_contributions::int8 = max_groups::int8 * max_per_group AND period_column IS NULL)),
  CHECK (budget_of IS NULL OR (budget_of <> id AND period_column IS NULL))
);
-- one registration a table at a time
CREATE UNIQUE INDEX sources_relation_key ON dpm.sources (relation) WHERE unregistered_at IS NULL;
COMMENT ON TABLE dpm.sources IS 'protected relations, their privacy unit, privacy model and total budget';

CREATE TABLE dpm.domains (
  id          serial PRIMARY KEY,
  name        text NOT NULL,
  source_id   int NOT NULL REFERENCES dpm.sources ON DELETE CASCADE,
  attributes  jsonb NOT NULL,            -- the definition as given
  attr_names  text[] NOT NULL,
  attr_sizes  int[] NOT NULL,
  bin_labels  text[] NOT NULL,           -- flat, attribute by attribute
  bin_lo      float8[] NOT NULL,         -- interval bounds, NaN for value and condition bins
  bin_hi      float8[] NOT NULL,
  -- per attribute, the SQL expression giving a row's bin (0-based; NULL: no bin), built from the
  -- custodian's definition and checked to be unable to fail on any row (dpm_internal.check_cells)
  attr_exprs  text[] NOT NULL,
  -- SQL expression giving a row's cell index (NULL for a row in no cell), and the number of cells;
  -- both NULL for a wide domain (more than dpm.max_cells cells), which has no dense cell index and
  -- answers marginals, measured from the source table by table
  cell_expr   text,
  n           int CHECK (n >= 1),
  -- the source is scanned with this role's privileges: it wrote the conditions in cell_expr
  created_by  regrole NOT NULL DEFAULT dpm_internal.invoker(),
  created_at  timestamptz NOT NULL DEFAULT now(),
  cells       numeric NOT NULL,          -- the product of attr_sizes, for any domain
  CHECK ((n IS NULL) = (cell_expr IS NULL)),
  -- dpm.drop_domain: gone by name (which a new domain may take), kept for the releases made over it
  dropped_at  timestamptz
);
-- A domain's bins are written once and read by every release: kept uncompressed (pglz took a
-- third of create_domain's time at 10^6 bins, and each release would decompress them again)
ALTER TABLE dpm.domains ALTER COLUMN bin_labels SET STORAGE EXTERNAL, ALTER COLUMN bin_lo SET STORAGE EXTERNAL,
  ALTER COLUMN bin_hi SET STORAGE EXTERNAL, ALTER COLUMN attr_exprs SET STORAGE EXTERNAL,
  ALTER COLUMN cell_expr SET STORAGE EXTERNAL;
CREATE UNIQUE INDEX domains_name_key ON dpm.domains (name) WHERE dropped_at IS NULL;
COMMENT ON TABLE dpm.domains IS 'the cells of a frequency vector over a source; cell_expr is built from the custodian''s definition';

CREATE TABLE dpm.workloads (
  id          serial PRIMARY KEY,
  name        text NOT NULL,
  domain_id   int NOT NULL REFERENCES dpm.domains ON DELETE CASCADE,
  spec        text,                      -- NULL for an explicit matrix
  matrix      float8[],                  -- m x n, one query a row; NULL when too large (spec only)
  -- one a query; NULL over a wide domain, whose labels are made from the spec when needed
  -- (dpm_internal.workload_labels): all 3-way marginals of 50 attributes are 19.6 million
  labels      text[],
  m           int NOT NULL,
  n           int,                       -- the domain's; NULL for a wide one
  created_by  regrole NOT NULL DEFAULT dpm_internal.invoker(),
  created_at  timestamptz NOT NULL DEFAULT now(),
  -- how much each query matters to the optimizers (3 * Total(a)); NULL: all 1.  Answers are
  -- always in the queries' own units.  Over a wide domain they stay in the spec.
  weights     float8[] CHECK (weights IS NULL OR cardinality(weights) = m),
  -- m x 2 per attribute: the first and last bin (1-based) each query counts on each attribute,
  -- 0 and 0 for no condition, -1 and -1 for one that is not a run of bins; NULL for an explicit
  -- matrix or a wide domain.  Gives published releases one column per attribute (dpm.publish).
  spans       int[],
  dropped_at  timestamptz,               -- dpm.drop_workload, as for domains
  -- a remainder (dpm.answer's reuse auto): the queries of workload remainder_of (1-based) that
  -- earlier releases did not determine, measured on their own
  remainder_of int REFERENCES dpm.workloads ON DELETE CASCADE,
  queries     int[],
  CHECK ((remainder_of IS NULL) = (queries IS NULL))
);
CREATE UNIQUE INDEX workloads_name_key ON dpm.workloads (name) WHERE dropped_at IS NULL;
COMMENT ON TABLE dpm.workloads IS 'batches of linear counting queries over a domain';

-- A column's privacy domain, for the SQL front door: what analysts may group and filter a source
-- by, stated once per column as the bins of one attribute in dpm.create_domain's terms, kept to a
-- grid (kind values: listed values, or those dpm.answer_keys selected, booleans among them;
-- range: numeric bins of a finest width; calendar: date or time bins of a finest grain).  A
-- column's measure is the dpm.measures row of the same name whose expression is the column.
CREATE TABLE dpm.column_domains (
  source_id   int NOT NULL REFERENCES dpm.sources ON DELETE CASCADE,
  column_name name NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('values', 'range', 'calendar')),
  attribute   jsonb NOT NULL,      -- the attribute definition, as dpm.create_domain takes it
  bins        int NOT NULL CHECK (bins >= 1),
  declared_by regrole NOT NULL DEFAULT dpm_internal.invoker(),
  declared_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (source_id, column_name)
);
COMMENT ON TABLE dpm.column_domains IS 'what analysts may group and filter each column of a source by: its bins, on a grid';

-- A role's privacy policy on a source (dpm.set_privacy_policy): a budget of its own inside the
-- source's, which every release the role makes on the source is charged against as well (under
-- the source's row lock, with the source's budget), and what each of its statements through the
-- front door (dpm.answer_query) is charged when it gives no budget (statement_*) and at most
-- (max_statement_*).  Each in the source's privacy model: epsilon (and delta), or rho.
CREATE TABLE dpm.privacy_policies (
  source_id             int NOT NULL REFERENCES dpm.sources ON DELETE CASCADE,
  role_name             regrole NOT NULL,
  epsilon               numeric CHECK (epsilon > 0),
  delta                 numeric CHECK (delta >= 0),
  rho                   numeric CHECK (rho > 0),
  statement_epsilon     float8 CHECK (statement_epsilon > 0),
  statement_delta       float8 CHECK (statement_delta >= 0),
  statement_rho         float8 CHECK (statement_rho > 0),
  max_statement_epsilon float8 CHECK (max_statement_epsilon > 0),
  max_statement_delta   float8 CHECK (max_statement_delta >= 0),
  max_statement_rho     float8 CHECK (max_statement_rho > 0),
  -- its plain statements over the source (a SELECT ... GROUP BY typed in psql or sent by a BI
  -- tool) are answered privately, as dpm.answer_query answers them (src/query/plain.c)
  plain_sql             boolean NOT NULL DEFAULT false,
  -- how long a statement asked again is answered from its earlier release, free and identically
  -- (a dashboard's refresh); after that it is measured again and charged.  NULL: always.
  refresh_after         interval CHECK (refresh_after >= '0'),
  set_by                regrole NOT NULL DEFAULT dpm_internal.invoker(),
  set_at                timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (source_id, role_name),
  CHECK ((epsilon IS NULL) <> (rho IS NULL))
);
COMMENT ON TABLE dpm.privacy_policies IS 'a role''s own budget on a source, inside the source''s, and its statements'' default and largest charge';

-- Strategies kept by their parameters, never a matrix over all cells; dpm.strategies keeps each
-- strategy in exactly one form (a matrix, or one of these), and src/api/strategy_form_api.c is the
-- one place that dispatches over the forms.
CREATE TYPE dpm.kronecker_strategy AS (kind text, p int[], theta float8[], weights float8[]);
COMMENT ON TYPE dpm.kronecker_strategy IS
  'HDMM strategy kept by its parameters: kind kronecker (one p-Identity factor per attribute, theta = the p_a x n_a matrices column-major, one after the other), factors (the same with the factor matrices themselves, p_a rows each) or marginals (weights[b] on the marginal keeping the attributes of bit set b)';
CREATE TYPE dpm.residual_plan AS (attribute_sets int[], variances float8[], table_weights float8[]);
COMMENT ON TYPE dpm.residual_plan IS
  'ResidualPlanner plan: attribute_sets = the attribute sets measured, one a row, 1-based, 0 pads; for Gaussian noise, variances = their noise variances at unit L2 sensitivity; for Laplace noise, table_weights = the weights of the marginal tables of those sets, summing to 1 (the other NULL)';

-- A request to dpm.answer, dpm.explain or dpm.explain_queries as the analyst made it (typed, so
-- that no check reads it back by key): written by dpm_internal.release_request, checked by
-- dpm_internal.release_args, planned by dpm_internal.release_plan.  queries: only these queries
-- of the workload (a remainder that earlier releases do not determine).
CREATE TYPE dpm_internal.answer_request AS (
  workload text, epsilon float8, delta float8, rho float8, strategy int, method text, options jsonb,
  inference text, confidence float8, ci_draws int, measure text, aggregate text, sum_share float8,
  period_from date, period_to date, queries int[], extra_parts jsonb, counted text);

-- A release as dpm.answer (kind answers) or dpm.answer_keys (keys) planned it, for a release
-- worker to charge and compute (src/release/request.c queues it as text): the catalog rows it
-- names, the charge in the source's model, and what the release keeps.  strategy_id NULL: the
-- strategy (method, options, strategy_noise) was built by the caller and is stored by the worker
-- (dpm_internal.store_built), as is a remainder (remainder_of, queries).
CREATE TYPE dpm_internal.planned_release AS (
  kind text, source_id int, workload_id int, strategy_id int, method text, options jsonb,
  strategy_noise text, noise text, epsilon numeric, delta numeric, rho numeric, inference text,
  confidence float8, ci_draws int, measure_id int, sum_share float8, period_from date,
  period_to date, remainder_of int, queries int[], column_name text, max_key_bytes int, extra_parts jsonb,
  counted text);

CREATE TABLE dpm.strategies (
  id              serial PRIMARY KEY,
  workload_id     int NOT NULL REFERENCES dpm.workloads ON DELETE CASCADE,
  method          text NOT NULL,
  options         jsonb NOT NULL DEFAULT '{}',
  noise           text NOT NULL CHECK (noise IN ('laplace', 'gaussian')),
  matrix          float8[],              -- the strategy, one measurement a row; or
  kronecker       dpm.kronecker_strategy, -- HDMM's parameters (large domains); or
  rows            int NOT NULL,
  sensitivity_l1  float8 NOT NULL,
  sensitivity_l2  float8 NOT NULL,
  -- sum over the workload of weight^2 w (A^T A)^+ w^T: weighted total error = noise variance * profile_trace
  profile_trace   float8 NOT NULL,
  max_profile     float8 NOT NULL,       -- the largest term: max error = noise variance * max_profile
  -- total error / the SVD bound's, at any epsilon: sensitivity^2 profile_trace / svd_bound(W),
  -- with the L1 sensitivity for Laplace noise and L2 for Gaussian (for a union of product terms
  -- too large for W^T W, over a proven lower bound on the SVD bound: kron_svd_lower_bound)
  ratio_to_bound  float8,                -- NULL when the bound is 0 (a workload of zero queries)
  iterations      int NOT NULL DEFAULT 0,
  -- a proven lower bound on L2 sensitivity^2 profile_trace over all strategies: the dual value
  -- of gaussian_optimal, the SVD bound for eigen and eigen_design (src/strategy/dense/gram_strategies.c); NULL
  -- for the other methods
  lower_bound     float8,
  optimize_ms     float8 NOT NULL,
  -- dense strategies: A's pseudo-inverse and each query's w (A^T A)^+ w^T, so that a release
  -- needs no factorization (NULL: computed per release).  pinv is stored transposed (m x n), so
  -- its array data is the column-major matrix LAPACK reads, with no reordering.
  pinv            float8[],
  profile         float8[],
  created_by      regrole NOT NULL DEFAULT dpm_internal.invoker(),
  created_at      timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT strategies_one_form CHECK (num_nonnulls(matrix, kronecker, residual) = 1),
  -- dpm.drop_strategy: no longer reused; kept while a release names it
  dropped_at      timestamptz,
  -- a ResidualPlanner plan (last: 0.3 added it, and an updated catalog must be a fresh one)
  residual        dpm.residual_plan
);
CREATE UNIQUE INDEX strategies_cache_key ON dpm.strategies (workload_id, method, options, noise) WHERE dropped_at IS NULL;
COMMENT ON TABLE dpm.strategies IS 'strategy matrices chosen for workloads; reused by dpm.optimize and dpm.answer';

-- Every release reads the workload, the strategy and its pseudo-inverse (tens of MB at n = 1024):
-- lz4 decompresses them several times faster than the default pglz.  Servers built without lz4
-- keep pglz.
DO $$
BEGIN
  ALTER TABLE dpm.workloads ALTER COLUMN matrix SET COMPRESSION lz4;
  ALTER TABLE dpm.strategies ALTER COLUMN matrix SET COMPRESSION lz4,
                             ALTER COLUMN pinv SET COMPRESSION lz4,
                             ALTER COLUMN profile SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END $$;

-- A release is inserted, with its ledger rows, in a transaction that commits before any noise
-- is drawn (status 'charged'); its answers follow in a second one (status 'released').
CREATE TABLE dpm.releases (
  id              bigserial PRIMARY KEY,
  source_id       int NOT NULL REFERENCES dpm.sources,
  workload_id     int REFERENCES dpm.workloads,
  strategy_id     int REFERENCES dpm.strategies,
  noise           text NOT NULL CHECK (noise IN ('laplace', 'gaussian')),
  epsilon         numeric,               -- the charge, in the source's model (see dpm.ledger)
  delta           numeric NOT NULL DEFAULT 0,
  rho             numeric,
  -- 'interrupted': its worker stopped (crash, kill) between the charge and the answers
  status          text NOT NULL DEFAULT 'charged' CHECK (status IN ('charged', 'released', 'failed', 'interrupted')),
  released_by     regrole NOT NULL,
  released_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- how x was estimated from the noisy strategy answers (post-processing, no privacy cost)
  inference       text NOT NULL DEFAULT 'ls' CHECK (inference IN ('ls', 'nnls', 'nnls_integer')),
  -- the answers' confidence intervals: their confidence (NULL: none) and, for Laplace noise, the
  -- simulated draws of the noise behind them (coverage sd about sqrt(c (1 - c) / ci_draws))
  confidence      float8 CHECK (confidence > 0 AND confidence < 1),
  ci_draws        int,
  -- the measure summed per cell (dpm.measures), or NULL: counts
  measure_id      int,
  -- an average of the measure: the share of the charge its sums were measured with, the rest
  -- going to the counts it is divided by (NULL: not an average)
  sum_share       float8 CHECK (sum_share > 0 AND sum_share < 1),
  -- 'answers': a workload's answers; 'keys': the values of a column chosen by partition selection
  -- (dpm.answer_keys), which has no workload or strategy
  kind            text NOT NULL DEFAULT 'answers' CHECK (kind IN ('answers', 'keys')),
  CHECK (sum_share IS NULL OR measure_id IS NOT NULL),
  CHECK (kind = 'keys' OR (workload_id IS NOT NULL AND strategy_id IS NOT NULL)),
  -- the periods it read of a source that grows by periods (period numbers, dpm.periods), or
  -- NULL: the whole table
  periods         int4range CHECK (NOT isempty(periods) AND lower(periods) >= 0 AND NOT upper_inf(periods)),
  -- what it measured besides its counts or its measure's sums (measure_id, sum_share): the sums
  -- of other measures and the counts of their rows with a value, each a share of the charge (the
  -- parts above sharing the rest), [{"quantity": "sums:<measure id>" or "counts:<measure id>",
  -- "measure_id", "share"}] (dpm_internal.release_parts); NULL: nothing more
  extra_parts     jsonb,
  -- what its counts count: rows; distinct privacy units per cell ('units', aggregate units: each
  -- unit once in each of at most max_contributions cells); or each unit once, in the cell of its
  -- rows and cells ('profile', dpm.answer_contributions).  Only counts of rows combine.
  counted         text NOT NULL DEFAULT 'rows' CHECK (counted IN ('rows', 'units', 'profile')),
  CONSTRAINT releases_counted_counts CHECK (counted = 'rows' OR (measure_id IS NULL AND extra_parts IS NULL)),
  -- the source's bounds on a unit's rows it was charged, capped and calibrated under
  -- (dpm_internal.source_bounds; NULL for a release made before they were kept: the source's)
  bounds          jsonb
);
COMMENT ON TABLE dpm.releases IS 'one row per run of a mechanism on a source; an analyst sees the releases of the roles it belongs to';

-- The answers of each release in blocks of consecutive queries (dpm_internal.store_answers): a row
-- per answer cost a heap tuple, an index entry and a foreign-key check each, 19.7 M of them for
-- all <= 3-way marginals of 50 attributes.  Read as rows through dpm.release_answers.
CREATE TABLE dpm.release_answer_blocks (
  release_id   bigint NOT NULL REFERENCES dpm.releases ON DELETE CASCADE,
  first_query  int NOT NULL,            -- the query of the first element; the next are the next queries
  label        text[] NOT NULL,
  answer       float8[] NOT NULL,       -- a NULL element: an average whose noisy count is not positive
  stderr       float8[] NOT NULL,
  ci_low       float8[] NOT NULL,
  ci_high      float8[] NOT NULL,
  PRIMARY KEY (release_id, first_query),
  CHECK (cardinality(label) > 0 AND cardinality(answer) = cardinality(label) AND cardinality(stderr) = cardinality(label)
         AND cardinality(ci_low) = cardinality(label) AND cardinality(ci_high) = cardinality(label))
);
COMMENT ON TABLE dpm.release_answer_blocks IS 'the noisy answers of each release in blocks of consecutive queries, read as rows in dpm.release_answers';

-- As the reader's role may see them: row-level security of the blocks applies to the caller.
CREATE VIEW dpm.release_answers WITH (security_invoker = true) AS
SELECT b.release_id, (b.first_query + u.i - 1)::int AS query, u.label, u.answer, u.stderr, u.ci_low, u.ci_high
  FROM dpm.release_answer_blocks b,
       unnest(b.label, b.answer, b.stderr, b.ci_low, b.ci_high) WITH ORDINALITY u(label, answer, stderr, ci_low, ci_high, i);
COMMENT ON VIEW dpm.release_answers IS 'the noisy answers of each release, replayable at no cost (dpm.release)';

-- What a release measured: the strategy's noisy answers and the law of their noise, from which
-- dpm.release(id, inference => ...) derives answers again at no cost.  A dense or HDMM strategy
-- has one part (its rows, in order); a residual plan one per measured residual (its estimate,
-- Gaussian) or marginal table (Laplace), in the plan's order.  An average measures twice: the
-- sums of its measure and the counts it divides them by.
CREATE TABLE dpm.release_measurements (
  release_id        bigint NOT NULL REFERENCES dpm.releases ON DELETE CASCADE,
  y                 float8[] NOT NULL,   -- the values, part after part
  part_sizes        int[] NOT NULL,      -- values per part
  variance          float8[] NOT NULL,   -- the noise variance of each value, per part
  -- Laplace noise only: part i's noise is 2^laplace_grid_exp[i] DiscreteLaplace(laplace_t[i])
  laplace_t         float8[],
  laplace_grid_exp  int[],
  -- counts, or the sums of its measure; or of an extra part, "sums:<measure id>", "counts:<measure id>"
  quantity          text NOT NULL CHECK (quantity ~ '^(counts|sums)(:[0-9]+)?$'),
  PRIMARY KEY (release_id, quantity)
);
COMMENT ON TABLE dpm.release_measurements IS 'the noisy measurements of each release and their noise (dpm.release re-derives answers from them at no cost)';

-- What a partition selection (a release of kind 'keys', dpm.answer_keys) read and how: the keys
-- it released are its answers' labels, in order.
CREATE TABLE dpm.release_keys (
  release_id   bigint PRIMARY KEY REFERENCES dpm.releases ON DELETE CASCADE,
  column_name  name NOT NULL,
  threshold    float8,                   -- a key passed when its noisy count of units reached it
  noise_scale  float8,                   -- of the Laplace noise on each count
  -- values longer than this (in bytes) were read as no key
  max_key_bytes int NOT NULL DEFAULT 256 CHECK (max_key_bytes BETWEEN 1 AND 65536),
  -- what it counts of its role's answer quota: while it is computed, the most keys it may store
  -- (what the role had left, at most dpm.max_answers_per_release), then the keys it stored
  keys          bigint NOT NULL DEFAULT 0 CHECK (keys >= 0)
);
COMMENT ON TABLE dpm.release_keys IS 'partition selections: the column whose values were selected, the longest value read as a key, the threshold and the noise';

-- The half-widths of the Laplace intervals of a strategy's workload at unit noise scale, from one
-- simulation of dpm.ci_draws draws: dpm.explain scales them to the noise of each request rather
-- than simulating again (a release always simulates afresh).  A cache: not dumped.
CREATE TABLE dpm.interval_widths (
  strategy_id  int NOT NULL REFERENCES dpm.strategies ON DELETE CASCADE,
  confidence   float8 NOT NULL,
  draws        int NOT NULL,             -- dpm.ci_draws asked for
  unit_half    float8[] NOT NULL,        -- per query, at Laplace scale 1 (variance 2)
  PRIMARY KEY (strategy_id, confidence, draws)
);
COMMENT ON TABLE dpm.interval_widths IS 'Laplace interval half-widths per strategy at unit noise, simulated once for dpm.explain';

-- Numeric measures of a source that releases sum per cell (dpm.create_measure): a custodian's
-- expression over the source's rows, clamped to the public bounds [lo, hi] and summed in integer
-- units of 2^grid_exp (src/histogram), NULLs counting as 0 ('zero') or leaving their row out of
-- the counts an average divides by ('drop').  Dropped measures stay: releases refer to them.
CREATE TABLE dpm.measures (
  id          serial PRIMARY KEY,
  source_id   int NOT NULL REFERENCES dpm.sources ON DELETE CASCADE,
  name        text NOT NULL CHECK (name <> ''),
  expression  text NOT NULL,
  lo          float8 NOT NULL,
  hi          float8 NOT NULL,
  nulls       text NOT NULL CHECK (nulls IN ('zero', 'drop')),
  grid_exp    int NOT NULL,
  created_by  regrole NOT NULL DEFAULT dpm_internal.invoker(),
  created_at  timestamptz NOT NULL DEFAULT now(),
  dropped_at  timestamptz,
  CHECK (lo <= hi AND lo > '-Infinity' AND hi < 'Infinity' AND (lo <> 0 OR hi <> 0))
);
CREATE UNIQUE INDEX measures_name_key ON dpm.measures (source_id, name) WHERE dropped_at IS NULL;
ALTER TABLE dpm.releases ADD FOREIGN KEY (measure_id) REFERENCES dpm.measures;
COMMENT ON TABLE dpm.measures IS 'numeric measures of a source, clamped to public bounds, that releases sum per cell';

-- Append-only record of every charge: epsilon and delta for 'pure' and 'approx' sources, rho
-- (and the epsilon of a Laplace release) for 'zcdp' sources.
CREATE TABLE dpm.ledger (
  id          bigserial PRIMARY KEY,
  source_id   int NOT NULL REFERENCES dpm.sources,
  release_id  bigint REFERENCES dpm.releases,
  epsilon     numeric CHECK (epsilon > 0),
  delta       numeric NOT NULL DEFAULT 0 CHECK (delta >= 0),
  rho         numeric CHECK (rho > 0),
  charged_by  regrole NOT NULL,
  charged_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- the periods charged, each the whole amount (parallel composition); NULL: every period, past
  -- and future (a charge made before the source had periods)
  periods     int4range CHECK (NOT isempty(periods) AND lower(periods) >= 0 AND NOT upper_inf(periods))
);
COMMENT ON TABLE dpm.ledger IS 'every charge against a source''s privacy budget, append-only';

-- Releases published as plain views for reporting roles (dpm.publish).  The view reads the
-- release named here, so republishing under the same name is one update.
CREATE TABLE dpm.publications (
  view_name     text PRIMARY KEY,        -- schema-qualified, quoted as needed
  domain_id     int NOT NULL REFERENCES dpm.domains,
  release_id    bigint NOT NULL REFERENCES dpm.releases,
  published_by  regrole NOT NULL DEFAULT dpm_internal.invoker(),
  published_at  timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE dpm.publications IS 'views made by dpm.publish and the release each one shows';

-- dpm.workloads.spans one query a row, for the views' joins: made by the first dpm.publish of a
-- workload (a subscript of the whole array per row would detoast it per row).
CREATE TABLE dpm.query_spans (
  workload_id  int NOT NULL REFERENCES dpm.workloads ON DELETE CASCADE,
  query        int NOT NULL,
  spans        int[] NOT NULL,           -- first and last bin per attribute, as in dpm.workloads.spans
  PRIMARY KEY (workload_id, query)
);
COMMENT ON TABLE dpm.query_spans IS 'the bins each query of a published workload counts, per attribute';

-- The summands of a published workload's spec and the queries each gives (made by its first
-- dpm.publish): a dashboard filters one term where two give rows with the same label.
CREATE TABLE dpm.workload_terms (
  workload_id  int NOT NULL REFERENCES dpm.workloads ON DELETE CASCADE,
  term         int NOT NULL,             -- 1-based, in the order of the spec's + terms
  first_query  int NOT NULL,
  last_query   int NOT NULL,
  spec         text NOT NULL,            -- the term as the spec wrote it
  PRIMARY KEY (workload_id, term)
);
COMMENT ON TABLE dpm.workload_terms IS 'the terms of a published workload''s spec and the queries each gives';
CREATE INDEX ON dpm.ledger (source_id);
CREATE INDEX ON dpm.releases (workload_id);
-- every charge looks for the source's releases left 'charged' (dpm_internal.release_charge)
CREATE INDEX ON dpm.releases (source_id) WHERE status = 'charged';

SELECT pg_catalog.pg_extension_config_dump('dpm.sources', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.domains', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.workloads', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.strategies', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.releases', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.release_answer_blocks', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.release_measurements', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.release_keys', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.measures', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.measures_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.ledger', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.publications', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.query_spans', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.workload_terms', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.sources_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.domains_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.workloads_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.strategies_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.releases_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('dpm.ledger_id_seq', '');

-- Analysts see the releases and charges of the roles they belong to; custodians see all.  The
-- functions run as the table owner, which row-level security does not restrict.
ALTER TABLE dpm.releases ENABLE ROW LEVEL SECURITY;
ALTER TABLE dpm.release_answer_blocks ENABLE ROW LEVEL SECURITY;
ALTER TABLE dpm.release_measurements ENABLE ROW LEVEL SECURITY;
ALTER TABLE dpm.ledger ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_releases ON dpm.releases FOR SELECT
  USING (pg_catalog.pg_has_role(current_user, released_by, 'USAGE')
         OR pg_catalog.pg_has_role(current_user, 'dpm_admin', 'USAGE'));
CREATE POLICY own_answers ON dpm.release_answer_blocks FOR SELECT
  USING (EXISTS (SELECT 1 FROM dpm.releases r WHERE r.id = release_answer_blocks.release_id));
CREATE POLICY own_measurements ON dpm.release_measurements FOR SELECT
  USING (EXISTS (SELECT 1 FROM dpm.releases r WHERE r.id = release_measurements.release_id));
ALTER TABLE dpm.release_keys ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_keys ON dpm.release_keys FOR SELECT
  USING (EXISTS (SELECT 1 FROM dpm.releases r WHERE r.id = release_keys.release_id));
ALTER TABLE dpm.privacy_policies ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_privacy_policies ON dpm.privacy_policies FOR SELECT
  USING (pg_catalog.pg_has_role(current_user, role_name, 'USAGE')
         OR pg_catalog.pg_has_role(current_user, 'dpm_admin', 'USAGE'));
CREATE POLICY own_charges ON dpm.ledger FOR SELECT
  USING (pg_catalog.pg_has_role(current_user, charged_by, 'USAGE')
         OR pg_catalog.pg_has_role(current_user, 'dpm_admin', 'USAGE'));
