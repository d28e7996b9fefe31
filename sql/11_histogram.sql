-- The frequency-vector aggregate (src/histogram).

CREATE OR REPLACE FUNCTION dpm_internal.histogram_transfn(internal, int, int) RETURNS internal
AS 'MODULE_PATHNAME', 'dpm_histogram_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dpm_internal.histogram_combinefn(internal, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'dpm_histogram_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dpm_internal.histogram_serialfn(internal) RETURNS bytea
AS 'MODULE_PATHNAME', 'dpm_histogram_serialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dpm_internal.histogram_deserialfn(bytea, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'dpm_histogram_deserialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dpm_internal.histogram_finalfn(internal) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_histogram_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE AGGREGATE dpm.histogram(cell int, n int) (
  SFUNC = dpm_internal.histogram_transfn,
  STYPE = internal,
  COMBINEFUNC = dpm_internal.histogram_combinefn,
  SERIALFUNC = dpm_internal.histogram_serialfn,
  DESERIALFUNC = dpm_internal.histogram_deserialfn,
  FINALFUNC = dpm_internal.histogram_finalfn,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE dpm.histogram(int, int) IS
  'frequency vector: element i+1 counts the rows whose cell is i (0 <= i < n); NULL cells are skipped';
COMMENT ON FUNCTION dpm_internal.histogram_transfn(internal, int, int) IS 'support function of the aggregate dpm.histogram: adds one row''s cell';
COMMENT ON FUNCTION dpm_internal.histogram_combinefn(internal, internal) IS 'support function of the aggregate dpm.histogram: merges the counts of two parallel workers';
COMMENT ON FUNCTION dpm_internal.histogram_serialfn(internal) IS 'support function of the aggregate dpm.histogram: counts to bytes, between parallel workers';
COMMENT ON FUNCTION dpm_internal.histogram_deserialfn(bytea, internal) IS 'support function of the aggregate dpm.histogram: bytes to counts, between parallel workers';
COMMENT ON FUNCTION dpm_internal.histogram_finalfn(internal) IS 'support function of the aggregate dpm.histogram: the counts as float8[]';

-- The marginal tables of a domain's attribute sets in one scan (src/histogram): bins is a row's bin
-- per attribute (NULL in any: the row is in no cell), sets one table's attributes a row (1-based,
-- 0 pads); the tables one after the other, each with its last attribute fastest.
CREATE OR REPLACE FUNCTION dpm_internal.marginal_counts_transfn(internal, int[], int[], int[]) RETURNS internal
AS 'MODULE_PATHNAME', 'dpm_marginal_counts_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE AGGREGATE dpm_internal.marginal_counts(bins int[], sizes int[], sets int[]) (
  SFUNC = dpm_internal.marginal_counts_transfn,
  STYPE = internal,
  COMBINEFUNC = dpm_internal.histogram_combinefn,
  SERIALFUNC = dpm_internal.histogram_serialfn,
  DESERIALFUNC = dpm_internal.histogram_deserialfn,
  FINALFUNC = dpm_internal.histogram_finalfn,
  PARALLEL = SAFE
);
COMMENT ON FUNCTION dpm_internal.marginal_counts_transfn(internal, int[], int[], int[]) IS 'support function of the aggregate dpm_internal.marginal_counts: adds one row to every table';

-- The sum of a measure per cell (src/histogram): each row's value clamped to [lo, hi] and rounded
-- to integer units of 2^grid_exp, NULL and NaN values adding nothing; the same state, combine and
-- serialization as the counts.
CREATE OR REPLACE FUNCTION dpm_internal.histogram_sum_transfn(internal, int, int, float8, float8, float8, int) RETURNS internal
AS 'MODULE_PATHNAME', 'dpm_histogram_sum_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE AGGREGATE dpm_internal.histogram_sum(cell int, n int, value float8, lo float8, hi float8, grid_exp int) (
  SFUNC = dpm_internal.histogram_sum_transfn,
  STYPE = internal,
  COMBINEFUNC = dpm_internal.histogram_combinefn,
  SERIALFUNC = dpm_internal.histogram_serialfn,
  DESERIALFUNC = dpm_internal.histogram_deserialfn,
  FINALFUNC = dpm_internal.histogram_finalfn,
  PARALLEL = SAFE
);
COMMENT ON FUNCTION dpm_internal.histogram_sum_transfn(internal, int, int, float8, float8, float8, int) IS 'support function of the aggregate dpm_internal.histogram_sum: adds one row''s clamped value';

-- A value's units as histogram_sum takes it (clamped to [lo, hi], in units of 2^grid_exp, rounded
-- half to even; NULL for NaN): the grouped scans' SQL takes the units of a measure's bounds from it.
CREATE OR REPLACE FUNCTION dpm_internal.value_units(v float8, lo float8, hi float8, grid_exp int) RETURNS int8
AS 'MODULE_PATHNAME', 'dpm_value_units' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- The marginal tables of sums of a measure (src/histogram): marginal_counts with each row adding
-- its value as histogram_sum takes it.
CREATE OR REPLACE FUNCTION dpm_internal.marginal_sums_transfn(internal, int[], int[], int[], float8, float8, float8, int)
RETURNS internal
AS 'MODULE_PATHNAME', 'dpm_marginal_sums_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE AGGREGATE dpm_internal.marginal_sums(bins int[], sizes int[], sets int[], value float8, lo float8,
                                                       hi float8, grid_exp int) (
  SFUNC = dpm_internal.marginal_sums_transfn,
  STYPE = internal,
  COMBINEFUNC = dpm_internal.histogram_combinefn,
  SERIALFUNC = dpm_internal.histogram_serialfn,
  DESERIALFUNC = dpm_internal.histogram_deserialfn,
  FINALFUNC = dpm_internal.histogram_finalfn,
  PARALLEL = SAFE
);
COMMENT ON FUNCTION dpm_internal.marginal_sums_transfn(internal, int[], int[], int[], float8, float8, float8, int) IS 'support function of the aggregate dpm_internal.marginal_sums: adds one row''s value to every table';

-- What an average divides, in one scan (src/histogram): histogram_sum's sums per cell, then each
-- cell's count of rows, without the rows whose value is NULL or NaN when drop.  2n values.
CREATE OR REPLACE FUNCTION dpm_internal.histogram_avg_transfn(internal, int, int, float8, float8, float8, int, boolean)
RETURNS internal
AS 'MODULE_PATHNAME', 'dpm_histogram_avg_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE AGGREGATE dpm_internal.histogram_avg(cell int, n int, value float8, lo float8, hi float8, grid_exp int,
                                                       drop boolean) (
  SFUNC = dpm_internal.histogram_avg_transfn,
  STYPE = internal,
  COMBINEFUNC = dpm_internal.histogram_combinefn,
  SERIALFUNC = dpm_internal.histogram_serialfn,
  DESERIALFUNC = dpm_internal.histogram_deserialfn,
  FINALFUNC = dpm_internal.histogram_finalfn,
  PARALLEL = SAFE
);
COMMENT ON FUNCTION dpm_internal.histogram_avg_transfn(internal, int, int, float8, float8, float8, int, boolean) IS 'support function of the aggregate dpm_internal.histogram_avg: adds one row''s clamped value and counts its row';

-- The same as marginal tables: marginal_sums' tables, then marginal_counts' (without the rows
-- whose value is NULL or NaN when drop).
CREATE OR REPLACE FUNCTION dpm_internal.marginal_avg_transfn(internal, int[], int[], int[], float8, float8, float8, int, boolean)
RETURNS internal
AS 'MODULE_PATHNAME', 'dpm_marginal_avg_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE AGGREGATE dpm_internal.marginal_avg(bins int[], sizes int[], sets int[], value float8, lo float8,
                                                      hi float8, grid_exp int, drop boolean) (
  SFUNC = dpm_internal.marginal_avg_transfn,
  STYPE = internal,
  COMBINEFUNC = dpm_internal.histogram_combinefn,
  SERIALFUNC = dpm_internal.histogram_serialfn,
  DESERIALFUNC = dpm_internal.histogram_deserialfn,
  FINALFUNC = dpm_internal.histogram_finalfn,
  PARALLEL = SAFE
);
COMMENT ON FUNCTION dpm_internal.marginal_avg_transfn(internal, int[], int[], int[], float8, float8, float8, int, boolean) IS 'support function of the aggregate dpm_internal.marginal_avg: adds one row''s value and its count to every table';

-- The same states from rows already grouped (src/histogram): each group's cell (or bins) and its
-- amounts, one per vector of the state (a count; a sum of units; a sum and a count for an
-- average), as the grouped scans of other servers return them (dpm_internal.scan).
CREATE OR REPLACE FUNCTION dpm_internal.histogram_groups_transfn(internal, int, int, int8[]) RETURNS internal
AS 'MODULE_PATHNAME', 'dpm_histogram_groups_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE AGGREGATE dpm_internal.histogram_groups(cell int, n int, amounts int8[]) (
  SFUNC = dpm_internal.histogram_groups_transfn,
  STYPE = internal,
  COMBINEFUNC = dpm_internal.histogram_combinefn,
  SERIALFUNC = dpm_internal.histogram_serialfn,
  DESERIALFUNC = dpm_internal.histogram_deserialfn,
  FINALFUNC = dpm_internal.histogram_finalfn,
  PARALLEL = SAFE
);
COMMENT ON FUNCTION dpm_internal.histogram_groups_transfn(internal, int, int, int8[]) IS 'support function of the aggregate dpm_internal.histogram_groups: adds one group''s amounts to its cell';

CREATE OR REPLACE FUNCTION dpm_internal.marginal_groups_transfn(internal, int[], int[], int[], int8[]) RETURNS internal
AS 'MODULE_PATHNAME', 'dpm_marginal_groups_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE AGGREGATE dpm_internal.marginal_groups(bins int[], sizes int[], sets int[], amounts int8[]) (
  SFUNC = dpm_internal.marginal_groups_transfn,
  STYPE = internal,
  COMBINEFUNC = dpm_internal.histogram_combinefn,
  SERIALFUNC = dpm_internal.histogram_serialfn,
  DESERIALFUNC = dpm_internal.histogram_deserialfn,
  FINALFUNC = dpm_internal.histogram_finalfn,
  PARALLEL = SAFE
);
COMMENT ON FUNCTION dpm_internal.marginal_groups_transfn(internal, int[], int[], int[], int8[]) IS 'support function of the aggregate dpm_internal.marginal_groups: adds one group''s amounts to every table';

-- The capping of a scan as one aggregate, in one pass (a sort of every row costs several times
-- the scan), and so that postgres_fdw can run it where a foreign partition's rows are
-- (src/histogram/capped.c): each unit's rows, at most k of them chosen at
-- random, grouped by key (a cell, or a row's bins, as int4[]), with their units of a measure.
-- IMMUTABLE only so that postgres_fdw ships it (it sends no mutable function): its randomness
-- picks which rows of a unit count, as the capping window does, and nothing caches its result.
CREATE OR REPLACE FUNCTION dpm_internal.capped_groups_transfn(internal, anyelement, int, int4[], int8) RETURNS internal
AS 'MODULE_PATHNAME', 'dpm_capped_groups_transfn' LANGUAGE C IMMUTABLE;

CREATE OR REPLACE FUNCTION dpm_internal.capped_groups_finalfn(internal, anyelement, int, int4[], int8) RETURNS int8[]
AS 'MODULE_PATHNAME', 'dpm_capped_groups_finalfn' LANGUAGE C IMMUTABLE;

CREATE OR REPLACE AGGREGATE dpm_internal.capped_groups(unit anyelement, k int, key int4[], units int8) (
  SFUNC = dpm_internal.capped_groups_transfn,
  STYPE = internal,
  FINALFUNC = dpm_internal.capped_groups_finalfn,
  FINALFUNC_EXTRA,
  FINALFUNC_MODIFY = READ_WRITE   -- the final function frees the table and reads the spilled rows
);
COMMENT ON FUNCTION dpm_internal.capped_groups_transfn(internal, anyelement, int, int4[], int8) IS 'support function of the aggregate dpm_internal.capped_groups: draws one row of its unit';

-- capped_groups' result as rows: a key, its kept rows, their sum of units, those with a value.
CREATE OR REPLACE FUNCTION dpm_internal.capped_rows(a int8[]) RETURNS TABLE(k int4[], c int8, s int8, v int8)
LANGUAGE sql IMMUTABLE STRICT SET search_path = pg_catalog, pg_temp
AS $$
  SELECT a[2 + i * (a[1] + 3) : 1 + i * (a[1] + 3) + a[1]]::int4[], a[2 + i * (a[1] + 3) + a[1]],
         a[3 + i * (a[1] + 3) + a[1]], a[4 + i * (a[1] + 3) + a[1]]
    FROM generate_series(0, (cardinality(a) - 1) / (a[1] + 3) - 1) i
$$;
