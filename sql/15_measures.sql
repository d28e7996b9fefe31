-- Measures: numeric expressions over a source's rows that releases sum per cell (dpm.measures).

CREATE OR REPLACE FUNCTION dpm_internal.measure_grid(lo float8, hi float8) RETURNS int
AS 'MODULE_PATHNAME', 'dpm_measure_grid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The type of a measure's expression over the relation, once it is known to be one numeric
-- expression that cannot fail on any row for run_as, who scans the source (src/security/safe_expr.c).
CREATE OR REPLACE FUNCTION dpm_internal.check_measure(run_as regrole, relation regclass, name text, expr text)
RETURNS regtype
AS 'MODULE_PATHNAME', 'dpm_check_measure' LANGUAGE C VOLATILE STRICT;

-- The largest value of a row in units of the measure's grid: with max_contributions, what one
-- privacy unit adds to one cell's sum at most (the sensitivity of the sums, in grid units).
CREATE OR REPLACE FUNCTION dpm_internal.measure_units(m dpm.measures) RETURNS float8
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$ SELECT round(greatest(abs(m.lo), abs(m.hi)) * 2::float8 ^ (-m.grid_exp)) $$;

-- A live measure of a source by name, or its error.
CREATE OR REPLACE FUNCTION dpm_internal.measure(src dpm.sources, name text) RETURNS dpm.measures
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  m dpm.measures;
BEGIN
  SELECT * INTO m FROM dpm.measures x WHERE x.source_id = src.id AND x.name = measure.name AND x.dropped_at IS NULL;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'source "%" has no measure "%"', src.relation, name
      USING ERRCODE = 'undefined_object', HINT = 'Measures are listed in dpm.measures; a custodian declares them with dpm.create_measure.';
  END IF;
  RETURN m;
END
$$;

-- The bounds a measure may have: finite, lo <= hi, not both 0, and the larger of |lo| and |hi|
-- within [1e-100, 1e100], which keeps every step of every release of it finite and nonzero where
-- SQL's float8 arithmetic would raise an error (overflow, underflow), whatever the rows:
--   * its grid 2^grid_exp (dpm_internal.measure_grid) is between 2^-356 and 2^309, and its square
--     (variances: dpm.explain, dpm.estimate) between 2^-712 and 2^618: normal float8s;
--   * a value is at most 2^24 units and a cell's sum is held at 2^53 units (src/histogram), so in
--     the answers' unit a cell is below 2^362 ~ 1e109, a query over all of dpm.max_cells' at most
--     2^31 cells below 2^393 ~ 1e118, its square below 1e237: 1e71 to spare for the strategy's
--     weights and the noise, whose scale is what one unit adds (max_contributions <= 2^31 times
--     2^24 units) over epsilon (>= 1e-18);
--   * hi - lo, and the sensitivity create_measure returns (max_contributions * 1e100), are finite;
--   * a quarter unit of the grid, below which a value rounds to 0 (numeric_measure, units_sql),
--     is at least 2^-358, a normal float8.
-- After the charge the answers' scaling also saturates (dpm_internal.times): a factor beyond
-- that margin could not raise an error either.  Checked when the measure is declared and again
-- before each release's charge (dpm_internal.release_plan), for measures declared before.
CREATE OR REPLACE FUNCTION dpm_internal.check_measure_bounds(name text, lo float8, hi float8) RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF NOT (lo > '-Infinity' AND hi < 'Infinity' AND lo <= hi) OR lo = 'NaN' OR hi = 'NaN' THEN
    RAISE EXCEPTION 'the bounds of measure "%" must be finite numbers with lo <= hi, got [%, %]', name, lo, hi
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Values outside [lo, hi] are clamped to it; choose the bounds from what the column can hold, not from the data.';
  END IF;
  IF lo = 0 AND hi = 0 THEN
    RAISE EXCEPTION 'measure "%" has bounds [0, 0]: every value would be clamped to 0', name
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF greatest(abs(lo), abs(hi)) > '1e100'::float8 THEN
    RAISE EXCEPTION 'the bounds of measure "%" must lie within [-1e100, 1e100], got [%, %]', name, lo, hi
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Past 1e100, sums and their noise could leave the range of double precision. Measure in larger units: divide the expression by a power of ten.';
  END IF;
  IF greatest(abs(lo), abs(hi)) < '1e-100'::float8 THEN
    RAISE EXCEPTION 'the bounds of measure "%" are too close to 0, got [%, %]: the larger of |lo| and |hi| must be at least 1e-100', name, lo, hi
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Measure in smaller units: multiply the expression by a power of ten.';
  END IF;
END
$$;

-- A custodian who may read the table declares a measure: a numeric expression over its rows (a
-- column, or arithmetic that cannot fail), clamped to the public bounds [lo, hi].  The bounds
-- must not be chosen by looking at the data: they are part of what is released.  Returns the
-- sensitivity of a sum per privacy unit, max_contributions * max(|lo|, |hi|).
CREATE OR REPLACE FUNCTION dpm.create_measure(name text, source regclass, expression text, lo float8, hi float8,
                                   nulls text DEFAULT 'zero')
RETURNS float8
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  src dpm.sources;
  m dpm.measures;
BEGIN
  IF source IS NULL OR name IS NULL OR expression IS NULL OR lo IS NULL OR hi IS NULL OR nulls IS NULL THEN
    RAISE EXCEPTION 'the arguments of dpm.create_measure must not be NULL' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  src := dpm_internal.source(source);
  PERFORM dpm_internal.check_can_read(source);
  IF name = '' THEN
    RAISE EXCEPTION 'a measure needs a name' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  PERFORM dpm_internal.check_measure_bounds(name, lo, hi);
  IF nulls NOT IN ('zero', 'drop') THEN
    RAISE EXCEPTION 'unknown nulls rule "%"', nulls
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'zero: a NULL value counts as 0; drop: its row is left out of sums and of the counts an average divides by.';
  END IF;
  -- parsed, planned and checked with the custodian's own rights, reading no row
  PERFORM dpm_internal.check_measure(dpm_internal.invoker(), source, name, expression);
  PERFORM dpm_internal.check_foreign_columns(dpm_internal.invoker(), source);
  BEGIN
    INSERT INTO dpm.measures (source_id, name, expression, lo, hi, nulls, grid_exp)
    VALUES (src.id, name, expression, lo, hi, nulls, dpm_internal.measure_grid(lo, hi))
    RETURNING * INTO m;
  EXCEPTION WHEN unique_violation THEN
    RAISE EXCEPTION 'source "%" already has a measure "%"', source, name USING ERRCODE = 'duplicate_object';
  END;
  RETURN src.max_contributions * greatest(abs(lo), abs(hi));
END
$$;
COMMENT ON FUNCTION dpm.create_measure(text, regclass, text, float8, float8, text) IS
  'custodian: declare a measure of a source, a column or expression clamped to public bounds [lo, hi]; returns the sensitivity of its sums per unit';

CREATE OR REPLACE FUNCTION dpm.drop_measure(measure text, source regclass) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  m dpm.measures := dpm_internal.measure(dpm_internal.source(drop_measure.source), drop_measure.measure);
BEGIN
  PERFORM dpm_internal.check_can_read(source);
  UPDATE dpm.measures x SET dropped_at = now() WHERE x.id = m.id;
END
$$;
COMMENT ON FUNCTION dpm.drop_measure(text, regclass) IS
  'custodian: drop a measure; the releases that summed it are kept';

-- x * y held at +-1.8e308 instead of SQL's overflow and underflow errors (src/api/total_arith.c):
-- how the steps after a release's charge scale its answers to a measure's unit, halve intervals
-- and take a share of a noisy total (dpm.quantiles).
CREATE OR REPLACE FUNCTION dpm_internal.times(x float8, y float8) RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_times' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- lo + (hi - lo) * above / span within [lo, hi], without SQL's overflow error for bins near
-- float8's limits (src/api/total_arith.c): where dpm.quantiles places a quantile in its bin.
CREATE OR REPLACE FUNCTION dpm_internal.interpolate(lo float8, hi float8, above float8, span float8) RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_interpolate' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- A numeric value clamped to [lo, hi] in its own type, as float8 without an error (src/histogram).
CREATE OR REPLACE FUNCTION dpm_internal.numeric_measure(v numeric, lo float8, hi float8) RETURNS float8
AS 'MODULE_PATHNAME', 'dpm_numeric_measure' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The SQL of a measure's value on a row, as float8 for dpm_internal.histogram_sum, which clamps and
-- rounds it: a numeric expression is clamped first in its own type (numeric to float8 can fail
-- beyond float8's range; the clamped value cannot), the others convert exactly or to the nearest
-- double.  'drop' and 'zero' sum the same: a NULL adds nothing.
CREATE OR REPLACE FUNCTION dpm_internal.measure_value(m dpm.measures, type regtype) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN type = 'numeric'::regtype
              THEN format('dpm_internal.numeric_measure((%s), %s, %s)', m.expression, m.lo, m.hi)
              ELSE format('(%s)::float8', m.expression) END
$$;

-- The measure's arguments of the sum and average aggregates, as SQL: the value on a row
-- (measure_value of its type), lo, hi and grid_exp; for an average (histogram_avg, marginal_avg)
-- also whether a NULL value leaves its row out of the counts.
CREATE OR REPLACE FUNCTION dpm_internal.measure_args(m dpm.measures, type regtype, avg boolean) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT format('%s, %s, %s, %s', dpm_internal.measure_value(m, type), m.lo, m.hi, m.grid_exp)
         || CASE WHEN NOT avg THEN '' WHEN m.nulls = 'drop' THEN ', true' ELSE ', false' END
$$;

-- What each group of a grouped scan (dpm_internal.scan) adds to the sum aggregates' state: its
-- sum of units, and for an average its rows (those with a value, when NULLs are dropped).  The
-- sum (numeric: sum(int8) cannot overflow) is held at +-2^53 units, where the aggregates hold a
-- cell's sum anyway, before it becomes an int8 (more than 2^39 rows of 2^24 units would not fit).
CREATE OR REPLACE FUNCTION dpm_internal.group_amounts(m dpm.measures, avg boolean) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT format('ARRAY[least(greatest(g.s, -9007199254740992), 9007199254740992)::int8%s]',
                CASE WHEN NOT avg THEN '' WHEN m.nulls = 'drop' THEN ', g.v' ELSE ', g.c' END)
$$;

-- A source's sums of a measure per cell of a domain, in units of the measure's grid, scanned as
-- frequency_vector scans (run_as's rights, max_contributions rows per privacy unit when capped);
-- for an average (avg), followed by the counts it divides them by.  The measure is checked again
-- for run_as first: the table may have changed since it was declared.
CREATE OR REPLACE FUNCTION dpm_internal.measure_vector(src dpm.sources, dom dpm.domains, m dpm.measures, run_as regrole,
                                    capped boolean, avg boolean DEFAULT false, periods int4range DEFAULT NULL)
RETURNS float8[]
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  type regtype := dpm_internal.check_measure(run_as, dpm_internal.source_table(src, dom.name), m.name, m.expression);
BEGIN
  RETURN coalesce(dpm_internal.exec_as(run_as, dpm_internal.scan_sql(src, dom, run_as, capped, periods,
                                    format('dpm_internal.histogram_%s((%s)::int4, %s, %s)', CASE WHEN avg THEN 'avg' ELSE 'sum' END,
                                           dom.cell_expr, dom.n, dpm_internal.measure_args(m, type, avg)),
                                    format('(%s)::int4', dom.cell_expr), dpm_internal.units_sql(m, type),
                                    format('dpm_internal.histogram_groups(g.k, %s, %s)', dom.n, dpm_internal.group_amounts(m, avg)))),
                  array_fill(0::float8, ARRAY[CASE WHEN avg THEN 2 ELSE 1 END * dom.n]));
END
$$;

-- The same as marginal tables of these attribute sets (dpm_internal.marginal_tables), for method
-- residual.
CREATE OR REPLACE FUNCTION dpm_internal.measure_tables(src dpm.sources, dom dpm.domains, m dpm.measures, run_as regrole,
                                    capped boolean, sets int[], avg boolean DEFAULT false, periods int4range DEFAULT NULL)
RETURNS float8[]
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  type regtype := dpm_internal.check_measure(run_as, dpm_internal.source_table(src, dom.name), m.name, m.expression);
BEGIN
  RETURN coalesce(dpm_internal.exec_as(run_as, dpm_internal.scan_sql(src, dom, run_as, capped, periods,
                                    format('dpm_internal.marginal_%s(%s, %L::int4[], %L::int4[], %s)',
                                           CASE WHEN avg THEN 'avg' ELSE 'sums' END, dpm_internal.bins_expr(dom.attr_exprs),
                                           dom.attr_sizes, sets, dpm_internal.measure_args(m, type, avg)),
                                    dpm_internal.bins_expr(dom.attr_exprs), dpm_internal.units_sql(m, type),
                                    format('dpm_internal.marginal_groups(g.k, %L::int4[], %L::int4[], %s)', dom.attr_sizes, sets,
                                           dpm_internal.group_amounts(m, avg)))),
                  array_fill(0::float8, ARRAY[CASE WHEN avg THEN 2 ELSE 1 END * dpm_internal.table_cells(dom.attr_sizes, sets)]));
END
$$;
