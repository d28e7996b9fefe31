-- dpmatrix 0.2 -> 0.3: one voice for the API (doc/dev/api.md).  The functions whose signature
-- changes (argument names, order, defaults, result type) are dropped here and re-created by the
-- parts sql/01_* .. sql/99_* that follow this file in the built update script; no table, row,
-- budget or release is touched.  Also run after sql/updates/0.1--0.2.sql (from 0.1), where some
-- of these do not exist yet: IF EXISTS.
\echo Use "ALTER EXTENSION dpmatrix UPDATE TO '0.3'" to load this file. \quit

-- privacy arguments epsilon, delta, rho in that order, each defaulting to NULL
DROP FUNCTION IF EXISTS dpm.answer(text, float8, float8, float8, int, text, jsonb, text, float8, text, text, float8, text, date, date);
DROP FUNCTION IF EXISTS dpm.optimize(text, text, float8, float8, jsonb, float8, text);
DROP FUNCTION IF EXISTS dpm.compare_strategies(text, float8, float8, float8, text);
DROP FUNCTION IF EXISTS dpm.mechanism(float8[], float8[], float8[], float8, float8, float8, float8, text, float8);
DROP FUNCTION IF EXISTS dpm.expected_error(float8[], float8[], float8, float8);
DROP FUNCTION IF EXISTS dpm.total_error(float8[], float8[], float8, float8);
DROP FUNCTION IF EXISTS dpm.svd_bound(float8[], float8, float8);
-- and the argument names of dpm.answer (explain and explain_queries take them all)
DROP FUNCTION IF EXISTS dpm.explain(text, float8, float8, float8, int, text, jsonb, float8, text, date, date);
DROP FUNCTION IF EXISTS dpm.explain_queries(text, float8, float8, float8, int, text, jsonb, float8, text);
-- the optional arguments in dpm.answer's order (confidence before measure)
DROP FUNCTION IF EXISTS dpm.estimate(text, text, float8, date, date);
-- the same name for the same thing: source, release
DROP FUNCTION IF EXISTS dpm.register_source(regclass, name, int, float8, float8, float8);
DROP FUNCTION IF EXISTS dpm.release(bigint, text, float8);
DROP FUNCTION IF EXISTS dpm.publish(bigint, text, regrole);
DROP FUNCTION IF EXISTS dpm.quantiles(bigint, text, float8[], text[], float8);
-- a new object's name first, then its owner; an existing one first
DROP FUNCTION IF EXISTS dpm.create_measure(regclass, text, text, float8, float8, text);
DROP FUNCTION IF EXISTS dpm.drop_measure(regclass, text);
-- the number of cells as float8, not numeric
DROP FUNCTION IF EXISTS dpm.create_domain(text, regclass, jsonb);
-- a measure and an aggregate
DROP FUNCTION IF EXISTS dpm.exact_answers(text);
-- only calls named answer spend budget
DROP FUNCTION IF EXISTS dpm.select_keys(regclass, name, float8, float8, float8, date, date, int);

-- the rows of the view dpm.progress are internal: moved, so that the view keeps reading them
DO $$
BEGIN
  IF pg_catalog.to_regprocedure('dpm.progress_rows()') IS NOT NULL THEN
    ALTER FUNCTION dpm.progress_rows() SET SCHEMA dpm_internal;
  END IF;
END
$$;

-- internal functions whose decisions moved to C (src/api/methods_api.c, strategy_form_api.c)
DROP FUNCTION IF EXISTS dpm_internal.auto_methods();
DROP FUNCTION IF EXISTS dpm_internal.spec_only_rules_out(text, dpm.workloads);
DROP FUNCTION IF EXISTS dpm_internal.method_ruled_out(text, int, boolean, int);
DROP FUNCTION IF EXISTS dpm_internal.residual_plan_sets(dpm.strategies);
DROP FUNCTION IF EXISTS dpm_internal.release_form(dpm.releases);
DROP FUNCTION IF EXISTS dpm_internal.gls_matrix(dpm.strategies, dpm.workloads, dpm.domains);

-- a stored strategy's form says what it is: HDMM's parameters in kronecker (the former hdmm,
-- renamed with its type, so that what refers to them by oid still does), a ResidualPlanner plan
-- in residual, moved out of the kind 'residual' it shared with them.  The new column comes last,
-- where a fresh install declares it too.
ALTER TYPE dpm.hdmm_strategy RENAME TO kronecker_strategy;
COMMENT ON TYPE dpm.kronecker_strategy IS
  'HDMM strategy kept by its parameters: kind kronecker (one p-Identity factor per attribute, theta = the p_a x n_a matrices column-major, one after the other), factors (the same with the factor matrices themselves, p_a rows each) or marginals (weights[b] on the marginal keeping the attributes of bit set b)';
CREATE TYPE dpm.residual_plan AS (attribute_sets int[], variances float8[], table_weights float8[]);
COMMENT ON TYPE dpm.residual_plan IS
  'ResidualPlanner plan: attribute_sets = the attribute sets measured, one a row, 1-based, 0 pads; for Gaussian noise, variances = their noise variances at unit L2 sensitivity; for Laplace noise, table_weights = the weights of the marginal tables of those sets, summing to 1 (the other NULL)';
ALTER TABLE dpm.strategies RENAME COLUMN hdmm TO kronecker;
ALTER TABLE dpm.strategies ADD COLUMN residual dpm.residual_plan;
ALTER TABLE dpm.strategies DROP CONSTRAINT strategies_one_form;
UPDATE dpm.strategies
   SET residual = ROW((kronecker).p, CASE WHEN noise = 'gaussian' THEN (kronecker).theta END,
                      CASE WHEN noise = 'laplace' THEN (kronecker).theta END)::dpm.residual_plan,
       kronecker = NULL
 WHERE (kronecker).kind = 'residual';
ALTER TABLE dpm.strategies ADD CONSTRAINT strategies_one_form CHECK (num_nonnulls(matrix, kronecker, residual) = 1);

-- a request travels typed (sql/02_catalog.sql), not as jsonb read back by key
CREATE TYPE dpm_internal.answer_request AS (
  workload text, epsilon float8, delta float8, rho float8, strategy int, method text, options jsonb,
  inference text, confidence float8, ci_draws int, measure text, aggregate text, sum_share float8,
  period_from date, period_to date, queries int[], extra_parts jsonb, counted text);
DROP FUNCTION IF EXISTS dpm_internal.release_plan(jsonb, boolean);
DROP FUNCTION IF EXISTS dpm_internal.release_args(jsonb);
DROP FUNCTION IF EXISTS dpm_internal.dry_run(jsonb);
DROP FUNCTION IF EXISTS dpm_internal.release_request(text, float8, float8, float8, int, text, jsonb, text, float8, text,
                                                     text, float8, date, date);
DROP FUNCTION IF EXISTS dpm_internal.explain_request(text, float8, float8, float8, int, text, jsonb, text, float8, text,
                                                     text, float8, text, date, date, boolean);
CREATE TYPE dpm_internal.planned_release AS (
  kind text, source_id int, workload_id int, strategy_id int, method text, options jsonb,
  strategy_noise text, noise text, epsilon numeric, delta numeric, rho numeric, inference text,
  confidence float8, ci_draws int, measure_id int, sum_share float8, period_from date,
  period_to date, remainder_of int, queries int[], column_name text, max_key_bytes int, extra_parts jsonb,
  counted text);
DROP FUNCTION IF EXISTS dpm_internal.run_release(jsonb, dpm.strategies[]);
DROP FUNCTION IF EXISTS dpm_internal.release_charge(regrole, jsonb);
DROP FUNCTION IF EXISTS dpm_internal.store_built(dpm.strategies[], jsonb);
DROP FUNCTION IF EXISTS dpm_internal.period_request(dpm.sources, int4range);

-- several measures in one release (the SQL front door): its extra parts (sql/02_catalog.sql)
ALTER TABLE dpm.releases ADD COLUMN extra_parts jsonb;
-- issue 46: a groups bound and a per-group bound (sql/02_catalog.sql)
ALTER TABLE dpm.sources ADD COLUMN max_groups int CHECK (max_groups >= 1),
                        ADD COLUMN max_per_group int CHECK (max_per_group >= 1),
                        ADD CHECK ((max_groups IS NULL) = (max_per_group IS NULL)),
                        ADD CHECK (max_groups IS NULL OR (max_contributions::int8 = max_groups::int8 * max_per_group
                                                          AND period_column IS NULL));
-- and sources declared to hold the same people as another, spending its budget (issue 46)
ALTER TABLE dpm.sources ADD COLUMN budget_of int REFERENCES dpm.sources,
                        ADD CHECK (budget_of IS NULL OR (budget_of <> id AND period_column IS NULL));
-- and counts of distinct privacy units, and of units by their rows and cells (issue 46)
ALTER TABLE dpm.releases ADD COLUMN counted text NOT NULL DEFAULT 'rows' CHECK (counted IN ('rows', 'units', 'profile')),
  ADD CONSTRAINT releases_counted_counts CHECK (counted = 'rows' OR (measure_id IS NULL AND extra_parts IS NULL));
-- and the bounds each release was made under (dpm.set_bounds changes a source's: issue 46)
ALTER TABLE dpm.releases ADD COLUMN bounds jsonb;
DROP FUNCTION IF EXISTS dpm_internal.release_parts(dpm.sources, dpm.measures, float8);
-- issue 46: the scan caps by cell, and what a unit adds depends on the strategy (dpm_internal.release_rows)
DROP FUNCTION IF EXISTS dpm_internal.source_rows(dpm.sources, boolean, int4range, regclass);
DROP FUNCTION IF EXISTS dpm_internal.unit_scale(dpm.sources, dpm.measures);
DROP FUNCTION IF EXISTS dpm_internal.choose_strategy(dpm.workloads, text, text, jsonb, boolean, boolean);
-- dpm_internal.release_avg reads any measure's parts (the front door's several measures)
DROP FUNCTION IF EXISTS dpm_internal.release_avg(dpm.releases, text, float8);
-- dpm.exact_answers gains capped_answer (issue 46)
DROP FUNCTION IF EXISTS dpm.exact_answers(text, text, text);
ALTER TABLE dpm.release_measurements DROP CONSTRAINT release_measurements_quantity_check;
ALTER TABLE dpm.release_measurements ADD CONSTRAINT release_measurements_quantity_check
  CHECK (quantity ~ '^(counts|sums)(:[0-9]+)?$');

-- the front door's privacy domains on columns (sql/02_catalog.sql)
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

-- privacy policies (sql/02_catalog.sql)
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
ALTER TABLE dpm.privacy_policies ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_privacy_policies ON dpm.privacy_policies FOR SELECT
  USING (pg_catalog.pg_has_role(current_user, role_name, 'USAGE')
         OR pg_catalog.pg_has_role(current_user, 'dpm_admin', 'USAGE'));
-- dpm.budget reports the caller's policies beside the source
DROP FUNCTION IF EXISTS dpm.budget(regclass, float8);
-- issue 47: a domain's bins uncompressed (sql/02_catalog.sql)
ALTER TABLE dpm.domains ALTER COLUMN bin_labels SET STORAGE EXTERNAL, ALTER COLUMN bin_lo SET STORAGE EXTERNAL,
  ALTER COLUMN bin_hi SET STORAGE EXTERNAL, ALTER COLUMN attr_exprs SET STORAGE EXTERNAL,
  ALTER COLUMN cell_expr SET STORAGE EXTERNAL;

-- issue 47: auto says what it skipped (an OUT argument more, a column more)
DROP FUNCTION IF EXISTS dpm_internal.choose_strategy(dpm.workloads, text, text, jsonb, boolean, boolean, int);
DROP FUNCTION IF EXISTS dpm_internal.release_plan(dpm_internal.answer_request, boolean);
DROP FUNCTION IF EXISTS dpm_internal.dry_run(dpm_internal.answer_request);
DROP FUNCTION IF EXISTS dpm.explain(text, float8, float8, float8, int, text, jsonb, text, float8, text, text, float8, text, date, date);

-- issue 47: a release's answers in blocks of consecutive queries (sql/02_catalog.sql), a row each
-- before.  The rows move to dpm_internal for the time it takes to copy them and to re-make the
-- publications' views that read them.
ALTER TABLE dpm.release_answers SET SCHEMA dpm_internal;
ALTER TABLE dpm_internal.release_answers RENAME TO release_answer_rows;
CREATE TABLE dpm.release_answer_blocks (
  release_id   bigint NOT NULL REFERENCES dpm.releases ON DELETE CASCADE,
  first_query  int NOT NULL,
  label        text[] NOT NULL,
  answer       float8[] NOT NULL,
  stderr       float8[] NOT NULL,
  ci_low       float8[] NOT NULL,
  ci_high      float8[] NOT NULL,
  PRIMARY KEY (release_id, first_query),
  CHECK (cardinality(label) > 0 AND cardinality(answer) = cardinality(label) AND cardinality(stderr) = cardinality(label)
         AND cardinality(ci_low) = cardinality(label) AND cardinality(ci_high) = cardinality(label))
);
COMMENT ON TABLE dpm.release_answer_blocks IS 'the noisy answers of each release in blocks of consecutive queries, read as rows in dpm.release_answers';
SELECT pg_catalog.pg_extension_config_dump('dpm.release_answer_blocks', '');
ALTER TABLE dpm.release_answer_blocks ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_answers ON dpm.release_answer_blocks FOR SELECT
  USING (EXISTS (SELECT 1 FROM dpm.releases r WHERE r.id = release_answer_blocks.release_id));
-- blocks of at most 4096 consecutive queries, as dpm_internal.store_answers writes them
INSERT INTO dpm.release_answer_blocks (release_id, first_query, label, answer, stderr, ci_low, ci_high)
SELECT release_id, min(query), array_agg(label ORDER BY query), array_agg(answer ORDER BY query), array_agg(stderr ORDER BY query),
       array_agg(ci_low ORDER BY query), array_agg(ci_high ORDER BY query)
  FROM (SELECT a.*, (row_number() OVER (PARTITION BY release_id, run ORDER BY query) - 1) / 4096 AS block
          FROM (SELECT a.*, query - row_number() OVER (PARTITION BY release_id ORDER BY query) AS run
                  FROM dpm_internal.release_answer_rows a) a) x
 GROUP BY release_id, run, block;
CREATE VIEW dpm.release_answers WITH (security_invoker = true) AS
SELECT b.release_id, (b.first_query + u.i - 1)::int AS query, u.label, u.answer, u.stderr, u.ci_low, u.ci_high
  FROM dpm.release_answer_blocks b,
       unnest(b.label, b.answer, b.stderr, b.ci_low, b.ci_high) WITH ORDINALITY u(label, answer, stderr, ci_low, ci_high, i);
COMMENT ON VIEW dpm.release_answers IS 'the noisy answers of each release, replayable at no cost (dpm.release)';
-- Each publication's view is re-made with the columns it had (a view of 0.1 has fewer), the
-- rows' table replaced by the same columns from the blocks; its grants stay.  PostgreSQL lets an
-- update script replace only the extension's own objects: each view is the extension's for that
-- moment.  A view that no longer reads the rows is left as it is.
DO $$
DECLARE
  v regclass;
  def text;
  opts text;
BEGIN
  FOR v IN SELECT to_regclass(p.view_name) FROM dpm.publications p WHERE to_regclass(p.view_name) IS NOT NULL LOOP
    def := pg_catalog.pg_get_viewdef(v);
    -- qualified or not, as the update's search_path makes it
    CONTINUE WHEN def !~ '(dpm_internal\.)?release_answer_rows ra\M';
    def := regexp_replace(def, '(dpm_internal\.)?release_answer_rows ra\M',
                   '(SELECT b.release_id, (b.first_query + u.i - 1)::int AS query, u.label, u.answer, u.stderr, u.ci_low, u.ci_high
                       FROM dpm.release_answer_blocks b,
                            unnest(b.label, b.answer, b.stderr, b.ci_low, b.ci_high) WITH ORDINALITY u(label, answer, stderr, ci_low, ci_high, i)) ra');
    EXECUTE format('ALTER EXTENSION dpmatrix ADD VIEW %s', v);
    opts := (SELECT ' WITH (' || array_to_string(c.reloptions, ', ') || ')' FROM pg_catalog.pg_class c WHERE c.oid = v);
    EXECUTE format('CREATE OR REPLACE VIEW %s%s AS %s', v, coalesce(opts, ''), def);
    EXECUTE format('ALTER EXTENSION dpmatrix DROP VIEW %s', v);
  END LOOP;
END
$$;
DROP TABLE dpm_internal.release_answer_rows;
