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
