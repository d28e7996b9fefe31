-- Privileges.  Nothing is granted to PUBLIC except the pure functions, which read no data;
-- nothing in dpm_internal is granted to analysts but the rows of the view dpm.progress.

-- Every internal function says so in \df+ and a BI catalog browser.
DO $$
DECLARE
  f regprocedure;
BEGIN
  FOR f IN SELECT p.oid FROM pg_catalog.pg_proc p
            WHERE p.pronamespace = 'dpm_internal'::regnamespace
              AND pg_catalog.obj_description(p.oid, 'pg_proc') IS NULL LOOP
    EXECUTE pg_catalog.format('COMMENT ON FUNCTION %s IS %L', f,
                              'internal to dpmatrix (called by its public functions); not a stable interface');
  END LOOP;
END
$$;

REVOKE ALL ON ALL TABLES IN SCHEMA dpm FROM PUBLIC;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA dpm FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA dpm FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA dpm_internal FROM PUBLIC;
REVOKE ALL ON SCHEMA dpm_internal FROM PUBLIC;
GRANT USAGE ON SCHEMA dpm TO PUBLIC;
GRANT EXECUTE ON FUNCTION
  dpm.sensitivity(float8[], text), dpm.error_profile(float8[]), dpm.gaussian_sigma(float8, float8, float8),
  dpm.gaussian_epsilon(float8, float8, float8), dpm.gaussian_delta(float8, float8, float8),
  dpm.expected_error(float8[], float8[], float8, float8), dpm.total_error(float8[], float8[], float8, float8),
  dpm.reconstruct(float8[], float8[], text), dpm.strategy(float8[], text, jsonb), dpm.strategy_methods(),
  dpm.svd_bound(float8[], float8, float8), dpm.gram_root(float8[]),
  dpm.mechanism(float8[], float8[], float8[], float8, float8, float8, float8, text, float8), dpm.noise(text, float8, int),
  dpm.histogram(int, int)
  TO PUBLIC;
GRANT SELECT ON dpm.sources, dpm.domains, dpm.workloads, dpm.strategies, dpm.releases,
                dpm.release_answers, dpm.release_answer_blocks, dpm.release_measurements, dpm.release_keys, dpm.measures, dpm.column_domains, dpm.privacy_policies, dpm.ledger,
                dpm.publications, dpm.progress TO dpm_analyst;
GRANT EXECUTE ON FUNCTION
  dpm.create_workload(text, text, text), dpm.create_workload(text, text, float8[], float8[]),
  dpm.optimize(text, float8, float8, float8, text, jsonb, text),
  dpm.compare_strategies(text, float8, float8, float8, text),
  dpm.fitness_privacy(int, float8, float8, float8), dpm.privacy_profile(int),
  dpm.answer(text, float8, float8, float8, int, text, jsonb, text, float8, text, text, float8, text, date, date), dpm.release(bigint, text, float8),
  dpm.budget(regclass, float8),
  dpm.explain(text, float8, float8, float8, int, text, jsonb, text, float8, text, text, float8, text, date, date),
  dpm.explain_queries(text, float8, float8, float8, int, text, jsonb, text, float8, text, text, float8, text, date, date),
  dpm.quantile_workload(text, text, text, text[]),
  dpm.quantiles(bigint, text, float8[], text[], float8), dpm.drop_workload(text), dpm.rename_workload(text, text), dpm.drop_strategy(int),
  dpm.answer_keys(regclass, name, float8, float8, float8, date, date, int), dpm.answer_contributions(regclass, float8, float8, float8, text),
  dpm.explain_keys(regclass, name, float8, float8, float8, date, date, int), dpm.estimate(text, float8, text, date, date),
  dpm.periods(regclass),
  dpm.answer_query(text, float8, float8, float8, text, float8, text),
  dpm.answer_query(text[], float8, float8, float8, text, float8, text),
  dpm.answer_plain(text, float8, float8, float8, text, float8, text, text[], regtype[]), dpm.last_answers(),
  dpm.explain_query(text, float8, float8, float8, text, float8, text),
  dpm.explain_query(text[], float8, float8, float8, text, float8, text)
  TO dpm_analyst;
GRANT EXECUTE ON FUNCTION
  dpm.register_source(regclass, name, int, float8, float8, float8, int, int, regclass), dpm.unregister_source(regclass),
  dpm.drop_domain(text, boolean), dpm.rename_domain(text, text),
  dpm.set_budget(regclass, float8, float8, float8), dpm.set_bounds(regclass, int, int, int), dpm.set_model(regclass, float8, float8, float8),
  dpm.set_periods(regclass, name, interval, date, int),
  dpm.set_max_key_bytes(regclass, int),
  dpm.create_domain(text, regclass, jsonb), dpm.domain_coverage(text), dpm.contribution_coverage(regclass), dpm.exact_answers(text, text, text),
  dpm.publish(bigint, text, regrole), dpm.unpublish(text),
  dpm.create_measure(text, regclass, text, float8, float8, text), dpm.drop_measure(text, regclass),
  dpm.set_column_domains(regclass, jsonb, text), dpm.drop_column_domain(regclass, name),
  dpm.set_privacy_policy(regclass, regrole, float8, float8, float8, float8, float8, float8, float8, float8, float8, boolean,
                         interval),
  dpm.drop_privacy_policy(regclass, regrole),
  dpm_internal.random_key(), dpm_internal.marginal_counts(int[], int[], int[]),
  dpm_internal.histogram_sum(int, int, float8, float8, float8, int), dpm_internal.numeric_measure(numeric, float8, float8),
  dpm_internal.marginal_sums(int[], int[], int[], float8, float8, float8, int),
  dpm_internal.histogram_avg(int, int, float8, float8, float8, int, boolean),
  dpm_internal.marginal_avg(int[], int[], int[], float8, float8, float8, int, boolean),
  dpm_internal.histogram_groups(int, int, int8[]), dpm_internal.marginal_groups(int[], int[], int[], int8[]),
  dpm_internal.capped_groups(anyelement, int, int4[], int8), dpm_internal.capped_rows(int8[])
  TO dpm_admin;
-- a release's scan runs as the domain's creator, a custodian: random_key picks each privacy
-- unit's rows in it, marginal_counts counts them for method residual, histogram_sum and
-- marginal_sums sum a measure over them, histogram_avg and marginal_avg sum and count it;
-- grouped scans (Citus, postgres_fdw) add up the groups with histogram_groups and
-- marginal_groups, capped on the servers holding the rows with capped_groups and capped_rows
GRANT USAGE ON SCHEMA dpm_internal TO dpm_admin;
-- the view dpm.progress reads its rows with the caller's right to execute (as every view's
-- functions do): the function only, not the schema, which analysts still cannot use
GRANT EXECUTE ON FUNCTION dpm_internal.progress_rows() TO dpm_analyst;
