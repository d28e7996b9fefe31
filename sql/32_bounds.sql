-- Contribution bounds (issue 46): what a source's bound on each privacy unit's rows leaves out of
-- it, for its custodians, who may read the table anyway.  Analysts never see these numbers.

-- How many cells of a release one privacy unit's contribution is bounded in, when the strategy's
-- own factor for them (dpm_internal.strategy_group_factor) is what bounds it: max_groups for rows
-- (NULL without: max_contributions rows anywhere); for counts of units, each 1 in a cell
-- (counted 'units'), max_groups or else max_contributions; none for a profile (1 in one cell).
CREATE OR REPLACE FUNCTION dpm_internal.unit_groups(src dpm.sources, counted text) RETURNS int
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE coalesce(counted, 'rows') WHEN 'profile' THEN NULL WHEN 'units' THEN coalesce(src.max_groups, src.max_contributions)
                                        ELSE src.max_groups END
$$;

-- What one privacy unit adds to a release's strategy answers, in rows of one cell times the
-- strategy's largest column norm: factor is the strategy's for dpm_internal.unit_groups cells
-- (NULL when that is NULL); max_per_group rows in each of them, or 1 unit; else
-- max_contributions rows (the triangle inequality), or 1 for a profile.
CREATE OR REPLACE FUNCTION dpm_internal.unit_rows(src dpm.sources, counted text, factor float8) RETURNS float8
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE coalesce(counted, 'rows') WHEN 'profile' THEN 1 WHEN 'units' THEN factor
                                        ELSE coalesce(src.max_per_group * factor, src.max_contributions) END
$$;

-- dpm_internal.unit_rows for a release of source src through a strategy (its form columns and
-- st_noise, stored or built), of workload spec over dom, with noise (the factor's norm: L1 for
-- Laplace, L2 otherwise).  The strategy's matrices are read only when a factor is needed.
CREATE OR REPLACE FUNCTION dpm_internal.strategy_rows(src dpm.sources, counted text, matrix float8[],
                                                      kronecker dpm.kronecker_strategy, residual dpm.residual_plan,
                                                      st_noise text, spec text, dom dpm.domains, noise text) RETURNS float8
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT dpm_internal.unit_rows(src, counted,
                                CASE WHEN g.g IS NOT NULL
                                     THEN dpm_internal.strategy_group_factor(matrix, kronecker, residual, st_noise, spec, dom, g.g, noise) END)
    FROM (SELECT dpm_internal.unit_groups(src, counted) AS g) g
$$;

-- The same through stored strategy strategy_id (none: no factor, dpm_internal.unit_rows's bound).
CREATE OR REPLACE FUNCTION dpm_internal.release_rows(src dpm.sources, counted text, strategy_id int, spec text, dom dpm.domains,
                                                     noise text) RETURNS float8
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT coalesce((SELECT dpm_internal.strategy_rows(src, counted, s.matrix, s.kronecker, s.residual, s.noise, spec, dom, noise)
                     FROM dpm.strategies s WHERE s.id = strategy_id),
                  dpm_internal.unit_rows(src, counted, NULL))
$$;

-- The bounds a custodian gives a source's privacy units, checked (dpm.register_source,
-- dpm.set_bounds): max_groups and max_per_group both or neither, each at least 1, and then
-- max_contributions their product (which may be left out); max_contributions at least 1 (1 when
-- not given), and above 1, or two bounds, only with a privacy unit.  Returns max_contributions.
CREATE OR REPLACE FUNCTION dpm_internal.check_bounds(privacy_unit name, max_contributions int, max_groups int,
                                                     max_per_group int) RETURNS int
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF (max_groups IS NULL) <> (max_per_group IS NULL) THEN
    RAISE EXCEPTION 'give both max_groups and max_per_group, or neither' USING ERRCODE = 'invalid_parameter_value',
      HINT = 'A unit''s rows then count in at most max_groups cells of a release, at most max_per_group in each.';
  END IF;
  IF max_groups < 1 OR max_per_group < 1 THEN
    RAISE EXCEPTION 'max_groups and max_per_group must be at least 1' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF max_groups::int8 * max_per_group > 2147483647 THEN
    RAISE EXCEPTION 'max_groups times max_per_group must be at most 2147483647' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF max_groups IS NOT NULL AND max_contributions IS DISTINCT FROM max_groups * max_per_group AND max_contributions IS NOT NULL THEN
    RAISE EXCEPTION 'with max_groups and max_per_group, max_contributions is their product, %', max_groups * max_per_group
      USING ERRCODE = 'invalid_parameter_value', HINT = 'Leave max_contributions out.';
  END IF;
  max_contributions := coalesce(max_contributions, max_groups * max_per_group, 1);
  IF max_contributions < 1 THEN
    RAISE EXCEPTION 'max_contributions must be at least 1' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF privacy_unit IS NULL AND (max_contributions <> 1 OR max_groups IS NOT NULL) THEN
    RAISE EXCEPTION '% needs a privacy_unit column', CASE WHEN max_groups IS NULL THEN 'max_contributions' ELSE 'max_groups' END
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Without a privacy unit every row is its own unit and contributes once.';
  END IF;
  RETURN max_contributions;
END
$$;

-- A source's bounds on its units, as a release keeps them (dpm.releases.bounds).
CREATE OR REPLACE FUNCTION dpm_internal.source_bounds(src dpm.sources) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT jsonb_strip_nulls(jsonb_build_object('max_contributions', src.max_contributions, 'max_groups', src.max_groups,
                                              'max_per_group', src.max_per_group))
$$;

-- Release r's source as r was charged under it: with the bounds r keeps (none kept: the
-- source's).  A release's scan and noise read its bounds here, so that dpm.set_bounds between
-- its charge and its answers changes neither.
CREATE OR REPLACE FUNCTION dpm_internal.release_source(r dpm.releases) RETURNS dpm.sources
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  src dpm.sources := (SELECT s FROM dpm.sources s WHERE s.id = r.source_id);
BEGIN
  IF r.bounds IS NOT NULL THEN
    src.max_contributions := (r.bounds->>'max_contributions')::int;
    src.max_groups := (r.bounds->>'max_groups')::int;
    src.max_per_group := (r.bounds->>'max_per_group')::int;
  END IF;
  RETURN src;
END
$$;

-- Whether release r's measurements may be combined with, or stand for, new ones of its source:
-- made under the bounds the source has now, or of a source whose units are not capped (a unit of
-- one row is kept whole by any bound: the same counts are estimated).
CREATE OR REPLACE FUNCTION dpm_internal.bounds_combine(r dpm.releases) RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT r.bounds IS NULL OR r.bounds = dpm_internal.source_bounds(s) OR NOT dpm_internal.units_capped(s)
    FROM dpm.sources s WHERE s.id = r.source_id
$$;

-- Custodians: new bounds on a source's privacy units (item 4 of issue 46).  The source is the
-- same people: its budget and what it spent carry over, its earlier releases stay readable
-- (dpm.release replays them, each under the bounds it was made under), and no estimate, reuse or
-- replay of a statement combines them with releases under other bounds (dpm_internal.bounds_combine).
CREATE OR REPLACE FUNCTION dpm.set_bounds(source regclass, max_contributions int DEFAULT NULL, max_groups int DEFAULT NULL,
                                          max_per_group int DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  src dpm.sources := dpm_internal.source(source);
  k int;
  old jsonb;
  n bigint;
BEGIN
  PERFORM dpm_internal.check_can_read(source);
  IF max_contributions IS NULL AND max_groups IS NULL AND max_per_group IS NULL THEN
    RAISE EXCEPTION 'give the new bounds: max_contributions, or max_groups and max_per_group'
      USING ERRCODE = 'null_value_not_allowed';
  END IF;
  k := dpm_internal.check_bounds(src.privacy_unit, max_contributions, max_groups, max_per_group);
  -- the lock a charge takes: a release is charged under the bounds before or after, never between
  PERFORM dpm_internal.require_read_committed('dpm.set_bounds');
  SELECT * INTO src FROM dpm.sources s WHERE s.id = src.id FOR UPDATE;
  IF max_groups IS NOT NULL AND src.period_column IS NOT NULL THEN
    RAISE EXCEPTION 'source "%" has periods, which read one bound only: max_contributions', source
      USING ERRCODE = 'feature_not_supported';
  END IF;
  old := dpm_internal.source_bounds(src);
  IF old = jsonb_strip_nulls(jsonb_build_object('max_contributions', k, 'max_groups', max_groups, 'max_per_group', max_per_group)) THEN
    RETURN;
  END IF;
  -- releases made before releases kept their bounds were made under these
  UPDATE dpm.releases r SET bounds = old WHERE r.source_id = src.id AND r.bounds IS NULL;
  UPDATE dpm.sources s SET max_contributions = k, max_groups = set_bounds.max_groups, max_per_group = set_bounds.max_per_group
   WHERE s.id = src.id RETURNING * INTO src;
  SELECT count(*) INTO n FROM dpm.releases r WHERE r.source_id = src.id AND r.status = 'released';
  RAISE NOTICE 'source "%": a privacy unit now adds at most %, and its budget and spending carry over', source,
    dpm_internal.bound_text(src)
    USING DETAIL = CASE WHEN n = 0 THEN 'It has no release yet.'
                        ELSE format('Its %s releases stay readable under the bounds they were made under%s.', n,
                                    CASE WHEN NOT dpm_internal.units_capped(src) THEN ''
                                         ELSE ', and no estimate combines them with releases under the new ones' END) END;
  PERFORM dpm_internal.bound_notice(src, NULL, dpm_internal.invoker());
  PERFORM dpm_internal.bound_notice(src, d, dpm_internal.invoker())
     FROM dpm.domains d WHERE d.source_id = src.id AND d.dropped_at IS NULL ORDER BY d.name;
END
$$;
COMMENT ON FUNCTION dpm.set_bounds(regclass, int, int, int) IS
  'custodian: new bounds on what a privacy unit adds (max_contributions, or max_groups cells of max_per_group): the same budget; earlier releases stay, uncombined with new ones';

-- What max_contributions leaves out of a source's table now, every row read as run_as (no privacy:
-- a custodian's): for the whole table (domain NULL), then for each of doms, its rows (those in a
-- cell), the privacy units holding them, those of the units over the bound, the rows the bound
-- leaves out, and the most rows one unit holds.  A release keeps max_contributions of a unit's
-- rows, chosen at random among all of them (dpm_internal.source_rows): the table's rows left out
-- are exact, a domain's are their expectation (a unit of n rows keeps each with probability
-- max_contributions / n).  The whole table, as a release of every period reads it.
CREATE OR REPLACE FUNCTION dpm_internal.bound_coverage(src dpm.sources, doms dpm.domains[], run_as regrole)
RETURNS TABLE(domain text, rows bigint, units bigint, units_over_bound bigint, rows_left_out float8, largest_unit bigint)
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  k int := src.max_contributions;
  capped boolean := dpm_internal.units_capped(src);
  -- whether a row is in a cell of each domain
  incell text[] := ARRAY(SELECT CASE WHEN (doms[o]).cell_expr IS NOT NULL THEN format('(%s) IS NOT NULL', (doms[o]).cell_expr)
                                     ELSE format('num_nulls(VARIADIC %s) = 0', dpm_internal.bins_expr((doms[o]).attr_exprs)) END
                           FROM generate_subscripts(doms, 1) o ORDER BY o);
  v float8[];
BEGIN
  -- per unit its rows n and its rows in each domain's cells d1, d2, ...; a unit when none is a row
  v := dpm_internal.exec_as(run_as, format(
         'SELECT ARRAY[count(*), sum(n), count(*) FILTER (WHERE n > %1$s), sum(greatest(n - %1$s, 0)), max(n)%2$s]::float8[]
            FROM (SELECT %3$s AS n%4$s FROM %5$s s%6$s) u',
         k,
         (SELECT string_agg(format(', sum(d%1$s), count(*) FILTER (WHERE d%1$s > 0), count(*) FILTER (WHERE d%1$s > 0 AND n > %2$s),
                                   sum(d%1$s * greatest(n - %2$s, 0)::float8 / n)', o, k), '' ORDER BY o)
            FROM generate_subscripts(incell, 1) o),
         CASE WHEN capped THEN 'count(*)' ELSE '1::bigint' END,
         (SELECT string_agg(format(', %s AS d%s', CASE WHEN capped THEN format('count(*) FILTER (WHERE %s)', incell[o])
                                                       ELSE format('(%s)::int', incell[o]) END, o), '' ORDER BY o)
            FROM generate_subscripts(incell, 1) o),
         dpm_internal.source_table(src),
         CASE WHEN capped THEN format(' GROUP BY %I', src.privacy_unit) ELSE '' END));
  RETURN QUERY
    SELECT NULL::text, coalesce(v[2], 0)::bigint, v[1]::bigint, v[3]::bigint, coalesce(v[4], 0), coalesce(v[5], 0)::bigint
    UNION ALL
    SELECT (doms[o]).name, coalesce(v[6 + 4 * (o - 1)], 0)::bigint, v[7 + 4 * (o - 1)]::bigint, v[8 + 4 * (o - 1)]::bigint,
           coalesce(v[9 + 4 * (o - 1)], 0), NULL::bigint
      FROM generate_subscripts(incell, 1) o WHERE NOT capped OR src.max_groups IS NULL
    UNION ALL
    SELECT (doms[o]).name, g.rows, g.units, g.units_over_bound, g.rows_left_out, NULL::bigint
      FROM generate_subscripts(incell, 1) o, dpm_internal.group_coverage(src, doms[o], run_as) g
     WHERE capped AND src.max_groups IS NOT NULL;
END
$$;

-- With max_groups, what the bounds leave out of one domain (those rows of bound_coverage): a unit
-- whose rows are in G cells keeps each cell with probability min(1, max_groups / G), and there
-- max_per_group of its n rows (all if fewer): rows left out in expectation; units over a bound.
CREATE OR REPLACE FUNCTION dpm_internal.group_coverage(src dpm.sources, dom dpm.domains, run_as regrole,
                                                       OUT rows bigint, OUT units bigint, OUT units_over_bound bigint,
                                                       OUT rows_left_out float8)
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  cell text := CASE WHEN dom.cell_expr IS NOT NULL THEN format('(%s)::int4', dom.cell_expr) ELSE dpm_internal.bins_expr(dom.attr_exprs) END;
  v float8[] := dpm_internal.exec_as(run_as, format(
    'SELECT ARRAY[sum(y.n), count(*), count(*) FILTER (WHERE y.over), sum(y.n - y.kept)]::float8[]
       FROM (SELECT sum(x.n) AS n, count(*) > %1$s OR max(x.n) > %2$s AS over,
                    least(1, %1$s::float8 / count(*)) * sum(least(x.n, %2$s)) AS kept
               FROM (SELECT %3$I AS u, %4$s AS c, count(*) AS n FROM %5$s s WHERE %6$s GROUP BY 1, 2) x GROUP BY x.u) y',
    src.max_groups, src.max_per_group, src.privacy_unit, cell, dpm_internal.source_table(src),
    CASE WHEN dom.cell_expr IS NOT NULL THEN format('(%s) IS NOT NULL', dom.cell_expr) ELSE format('num_nulls(VARIADIC %s) = 0', cell) END));
BEGIN
  rows := coalesce(v[1], 0);
  units := v[2];
  units_over_bound := v[3];
  rows_left_out := coalesce(v[4], 0);
END
$$;

CREATE OR REPLACE FUNCTION dpm.contribution_coverage(source regclass)
RETURNS TABLE(domain text, rows bigint, units bigint, units_over_bound bigint, rows_left_out float8, largest_unit bigint)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  src dpm.sources := dpm_internal.source(source);
BEGIN
  PERFORM dpm_internal.check_can_read(source);
  RETURN QUERY SELECT * FROM dpm_internal.bound_coverage(src, ARRAY(
                 SELECT d FROM dpm.domains d WHERE d.source_id = src.id AND d.dropped_at IS NULL ORDER BY d.name), dpm_internal.invoker());
END
$$;
COMMENT ON FUNCTION dpm.contribution_coverage(regclass) IS
  'custodian: what the bound on each privacy unit''s rows leaves out of a source now (no privacy): rows, units, units over it, rows left out, the largest unit; per domain too';

-- A source's bound on each privacy unit, in words: '3 rows', or '2 cells of 3 rows' (max_groups).
CREATE OR REPLACE FUNCTION dpm_internal.bound_text(src dpm.sources) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN src.max_groups IS NULL THEN format('%s rows', src.max_contributions)
              ELSE format('%s cells of %s rows', src.max_groups, src.max_per_group) END
$$;

-- Says to a custodian what a source's bound leaves out of it, or of one of its domains (a NOTICE;
-- nothing when it leaves nothing out).  A scan that cannot run now (a view whose servers refuse
-- the query, say) is said too, and what called this goes on: the releases check it themselves.
CREATE OR REPLACE FUNCTION dpm_internal.bound_notice(src dpm.sources, dom dpm.domains, run_as regrole) RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  c record;
BEGIN
  BEGIN
    SELECT * INTO c FROM dpm_internal.bound_coverage(src, CASE WHEN dom.id IS NULL THEN '{}' ELSE ARRAY[dom] END, run_as) x
     WHERE x.domain IS NOT DISTINCT FROM dom.name;
  EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'source "%": what the bound of % per privacy unit leaves out could not be counted: %', src.relation,
      dpm_internal.bound_text(src), SQLERRM;
    RETURN;
  END;
  IF c.rows_left_out > 0 THEN
    RAISE NOTICE '%: the bound of % per privacy unit leaves out % of its % rows (% of its % units hold more)',
      CASE WHEN dom.id IS NULL THEN format('source "%s"', src.relation) ELSE format('domain "%s"', dom.name) END,
      dpm_internal.bound_text(src), CASE WHEN dom.id IS NULL THEN c.rows_left_out::bigint::text ELSE 'about ' || round(c.rows_left_out)::text END,
      c.rows, c.units_over_bound, c.units
      USING DETAIL = 'Every count and sum a release answers is of the rows it keeps, and its interval is for them: with a bound too low, the answers are below the table''s.',
            HINT = format('dpm.contribution_coverage(%L) shows this again at any time.', src.relation::text);
  END IF;
END
$$;

-- What a release's answers estimate over a dense domain, for dpm.exact_answers: each cell's count
-- (m NULL), or its measure's sums in units of the measure's grid (and for an average, avg, the
-- counts they are divided by after them), over the rows a release keeps in expectation: a
-- privacy unit of n rows keeps each with probability min(1, max_contributions / n) (with
-- max_groups: dpm_internal.group_coverage's).  Read as
-- run_as (no privacy: a custodian's); the whole table, as a release of every period reads it.
CREATE OR REPLACE FUNCTION dpm_internal.capped_vector(src dpm.sources, dom dpm.domains, m dpm.measures, run_as regrole,
                                                     avg boolean) RETURNS float8[]
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  capped boolean := dpm_internal.units_capped(src);
  units text := CASE WHEN m.id IS NOT NULL
                     THEN dpm_internal.units_sql(m, dpm_internal.check_measure(run_as, dpm_internal.source_table(src, dom.name),
                                                                               m.name, m.expression)) END;
BEGIN
  RETURN dpm_internal.exec_as(run_as, format(
    'SELECT array_agg(coalesce(v.s, 0)::float8 ORDER BY i)%1$s FROM generate_series(0, %2$s - 1) i
       LEFT JOIN (SELECT r.c, sum(r.w * r.x) AS s, sum(r.w * r.y) AS n
                    FROM (SELECT (%3$s)::int4 AS c, %4$s AS x, %5$s AS y, %6$s AS w FROM %7$s s) r
                   WHERE r.c IS NOT NULL GROUP BY r.c) v ON v.c = i',
    CASE WHEN avg THEN ' || array_agg(coalesce(v.n, 0)::float8 ORDER BY i)' ELSE '' END,
    dom.n, dom.cell_expr,
    coalesce(units, '1'),
    CASE WHEN units IS NULL OR m.nulls = 'zero' THEN '1' ELSE format('(%s IS NOT NULL)::int', units) END,
    -- (in numeric: sums that do not depend on the order of the rows)
    CASE WHEN NOT capped THEN '1::numeric'
         WHEN src.max_groups IS NULL
         THEN format('least(1, %s::numeric / count(*) OVER (PARTITION BY %I))', src.max_contributions, src.privacy_unit)
         -- by cells: its cell with probability min(1, max_groups / its cells), a row of n there min(1, max_per_group / n)
         ELSE format('least(1, %s::numeric / count(*) FILTER (WHERE dpm_first__) OVER (PARTITION BY %I)) * least(1, %s::numeric / dpm_n__)',
                     src.max_groups, src.privacy_unit, src.max_per_group) END,
    CASE WHEN capped AND src.max_groups IS NOT NULL
         THEN format('(SELECT *, row_number() OVER c = 1 AS dpm_first__, count(*) OVER c AS dpm_n__ FROM %s s WHERE (%s) IS NOT NULL
                       WINDOW c AS (PARTITION BY %I, (%s)::int4))',
                     dpm_internal.source_table(src, dom.name), dom.cell_expr, src.privacy_unit, dom.cell_expr)
         ELSE dpm_internal.source_table(src, dom.name)::text END));
END
$$;

-- What a release reads over dom from query keys of one column c per counted thing (a row, a unit):
-- with sets NULL its dense cell (0-based), the frequency vector; else its bins (int4[]), the
-- marginal tables of sets a residual strategy measures.  Run as the domain's creator.
CREATE OR REPLACE FUNCTION dpm_internal.cells_data(dom dpm.domains, sets int[], keys text) RETURNS float8[]
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF sets IS NULL THEN
    RETURN coalesce(dpm_internal.exec_as(dom.created_by, format('SELECT dpm.histogram(x.c, %s) FROM (%s) x', dom.n, keys)),
                    array_fill(0::float8, ARRAY[dom.n::int]));
  END IF;
  RETURN coalesce(dpm_internal.exec_as(dom.created_by, format(
                    'SELECT dpm_internal.marginal_groups(g.k, %L::int4[], %L::int4[], ARRAY[g.c]) FROM (SELECT x.c AS k, count(*) AS c FROM (%s) x GROUP BY x.c) g',
                    dom.attr_sizes, sets, keys)),
                  array_fill(0::float8, ARRAY[dpm_internal.table_cells(dom.attr_sizes, sets)]));
END
$$;

-- What a release of counts of distinct privacy units (dpm.releases.counted 'units') reads: per cell
-- the units with a row in it, each unit counted in at most max_groups (else max_contributions) of
-- its cells, chosen at random (dpm_internal.unit_groups: a unit adds 1 to each of at most that many
-- cells, dpm_internal.unit_rows); as the frequency vector, or the marginal tables a residual strategy
-- measures.  Units of one row each (no privacy unit, or a unique one): the counts themselves.
CREATE OR REPLACE FUNCTION dpm_internal.units_data(r dpm.releases, src dpm.sources, dom dpm.domains) RETURNS float8[]
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  sets int[];
  pairs text;
BEGIN
  IF NOT dpm_internal.units_capped(src) THEN
    RETURN dpm_internal.part_data(r, src, dom, NULL, false);
  END IF;
  SELECT dpm_internal.strategy_tables(s.matrix, s.kronecker, s.residual, s.noise, w.spec, dom) INTO sets
    FROM dpm.strategies s, dpm.workloads w WHERE s.id = r.strategy_id AND w.id = r.workload_id;
  -- each (unit, cell) once, in at most unit_groups cells a unit, picked by secure random keys
  pairs := format('SELECT p.c FROM (SELECT d.c, row_number() OVER (PARTITION BY d.u ORDER BY dpm_internal.random_key()) AS rk
                                      FROM (SELECT DISTINCT %I AS u, %s AS c FROM %s) d WHERE %s) p WHERE p.rk <= %s',
                  src.privacy_unit,
                  CASE WHEN sets IS NULL THEN format('(%s)::int4', dom.cell_expr) ELSE dpm_internal.bins_expr(dom.attr_exprs) END,
                  dpm_internal.source_rows(src, false, r.periods),
                  CASE WHEN sets IS NULL THEN 'd.c IS NOT NULL' ELSE 'num_nulls(VARIADIC d.c) = 0' END,
                  dpm_internal.unit_groups(src, 'units'));
  RETURN dpm_internal.cells_data(dom, sets, pairs);
END
$$;

-- What a release of privacy units by their rows and cells (counted 'profile', dpm.answer_contributions)
-- reads: each unit once, in the cell of domain dom (attribute rows_per_unit, and cells_per_unit
-- when dom has it) holding its number of rows and of distinct cells of the domain whose cell
-- expression is cells_per_unit's (NULLs not counted); as the frequency vector, or the marginal
-- tables a residual strategy measures.  A unit moves one cell by 1.
CREATE OR REPLACE FUNCTION dpm_internal.profile_data(r dpm.releases, src dpm.sources, dom dpm.domains) RETURNS float8[]
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  cells boolean := cardinality(dom.attr_names) = 2;
  rlo float8[] := ARRAY(SELECT i.lo FROM dpm_internal.bin_intervals(dom, 1) i ORDER BY i.bin);
  clo float8[] := CASE WHEN cells THEN ARRAY(SELECT i.lo FROM dpm_internal.bin_intervals(dom, 2) i ORDER BY i.bin) END;
  sets int[];
  units text;
BEGIN
  SELECT dpm_internal.strategy_tables(s.matrix, s.kronecker, s.residual, s.noise, w.spec, dom) INTO sets
    FROM dpm.strategies s, dpm.workloads w WHERE s.id = r.strategy_id AND w.id = r.workload_id;
  -- per unit its bins (0-based): width_bucket counts the lower edges at or below its value
  units := format('SELECT width_bucket(u.n, %L::float8[]) - 1 AS rb, %s AS cb FROM (SELECT count(*) AS n%s FROM %s GROUP BY %I) u',
                  rlo, CASE WHEN cells THEN format('width_bucket(u.k, %L::float8[]) - 1', clo) ELSE '0' END,
                  CASE WHEN cells THEN format(', count(DISTINCT (%s)) AS k', dom.attributes->1->>'expression') ELSE '' END,
                  dpm_internal.source_rows(src, false, r.periods), src.privacy_unit);
  RETURN dpm_internal.cells_data(dom, sets, format('SELECT %s AS c FROM (%s) x',
                                                    CASE WHEN sets IS NULL THEN format('(x.rb * %s + x.cb)::int4', CASE WHEN cells THEN dom.attr_sizes[2] ELSE 1 END)
                                                         ELSE format('ARRAY[x.rb%s]::int4[]', CASE WHEN cells THEN ', x.cb' ELSE '' END) END,
                                                    units));
END
$$;

-- The bins of a number of rows (from 1) or cells (from 0) per unit: each value up to 8, then four
-- bins an octave (8, 10, 12, 14, 16, 20, ...), up to top: the rest in one open bin, or (closed)
-- top alone, a number no unit passes (the cells of a domain); as an attribute's "bins".
CREATE OR REPLACE FUNCTION dpm_internal.profile_bins(first int, top bigint, closed boolean) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT jsonb_agg(CASE WHEN e.hi IS NULL THEN jsonb_build_object('label', format('%s or more', e.lo), 'lo', e.lo)
                        WHEN e.hi = e.lo + 1 THEN jsonb_build_object('label', e.lo::text, 'lo', e.lo, 'hi', e.hi)
                        ELSE jsonb_build_object('label', format('%s to %s', e.lo, e.hi - 1), 'lo', e.lo, 'hi', e.hi) END ORDER BY e.lo)
    FROM (SELECT x.lo, coalesce(lead(x.lo) OVER (ORDER BY x.lo), CASE WHEN closed THEN top + 1 END) AS hi
            FROM (SELECT DISTINCT v AS lo FROM (SELECT generate_series(first, least(8, top)) AS v
                                                UNION ALL SELECT (2::numeric ^ k * f)::bigint FROM generate_series(3, 19) k,
                                                                                                     unnest(ARRAY[1, 1.25, 1.5, 1.75]) f
                                                UNION ALL SELECT top) y
                   WHERE v <= top) x) e
$$;

-- The fraction-quantiles of one histogram of dpm.answer_contributions's release r, from its
-- cumulative counts (the n queries after off): the noisy CDF made non-decreasing (isotonic
-- regression) and at least 0, the bin where it reaches fraction of the total (its largest value:
-- the open bin's lower edge), and the values between which the quantile lies when the counts'
-- intervals at 1 - 0.05 / n hold together (at least 95%: dpm_internal.quantile_of).
CREATE OR REPLACE FUNCTION dpm_internal.profile_quantiles(r dpm.releases, off int, bins jsonb, fractions float8[])
RETURNS TABLE(fraction float8, value bigint, low bigint, high bigint)
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  n int := jsonb_array_length(bins);
  a float8[];
  h float8[];
  est float8[];
  lo float8[] := ARRAY(SELECT (b->>'lo')::float8 FROM jsonb_array_elements(bins) WITH ORDINALITY x(b, o) ORDER BY o);
  hi float8[] := ARRAY(SELECT (b->>'hi')::float8 FROM jsonb_array_elements(bins) WITH ORDINALITY x(b, o) ORDER BY o);
  f float8;
  q record;
BEGIN
  IF bins IS NULL THEN
    RETURN;
  END IF;
  SELECT array_agg(x.answer ORDER BY x.query), array_agg(x.half ORDER BY x.query) INTO a, h
    FROM dpm_internal.release_band(r, 0.95, n) x WHERE x.query > off AND x.query <= off + n;
  est := ARRAY(SELECT greatest(v, 0) FROM unnest(dpm_internal.isotonic(a)) v);
  FOREACH f IN ARRAY fractions LOOP
    q := dpm_internal.quantile_of(est, ARRAY(SELECT u.a + u.h FROM unnest(a, h) u(a, h)), ARRAY(SELECT u.a - u.h FROM unnest(a, h) u(a, h)),
                                  h[n], lo, ARRAY(SELECT coalesce(x, 'Infinity') FROM unnest(hi) x), f);
    RETURN QUERY SELECT f, CASE WHEN q.bin IS NOT NULL THEN coalesce(hi[q.bin] - 1, lo[q.bin])::bigint END,
                        q.ci_low::bigint, CASE WHEN q.ci_high < 'Infinity' THEN q.ci_high::bigint - 1 END;
  END LOOP;
END
$$;

-- A differentially private estimate of how many rows each privacy unit holds, and in how many
-- cells of a domain (when given), from which a custodian chooses max_contributions: one release,
-- charged as dpm.answer's, of the units counted each once in the bin of its rows (and cells), so
-- that a unit moves one count by 1, whatever it holds (no bound applies); returns their quantiles
-- with the values between which each lies with 95% confidence (NULL high: no bound below 2^20).
CREATE OR REPLACE FUNCTION dpm.answer_contributions(source regclass, epsilon float8 DEFAULT NULL, delta float8 DEFAULT NULL,
                                                    rho float8 DEFAULT NULL, domain text DEFAULT NULL)
RETURNS TABLE(fraction float8, rows_per_unit bigint, rows_low bigint, rows_high bigint, cells_per_unit bigint, cells_low bigint,
              cells_high bigint)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  src dpm.sources := dpm_internal.source(source);
  d dpm.domains;
  pdom dpm.domains;
  wspec text;
  wl dpm.workloads;
  args dpm_internal.answer_request;
  rel dpm.releases;
  fractions float8[] := ARRAY[0.5, 0.75, 0.9, 0.95, 0.99];
BEGIN
  IF src.privacy_unit IS NULL THEN
    RAISE EXCEPTION 'source "%" has no privacy unit: each row is one, of one row', src.relation
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF domain IS NOT NULL THEN
    d := dpm_internal.domain(domain);
    IF d.source_id <> src.id OR d.cell_expr IS NULL THEN
      RAISE EXCEPTION 'domain "%" is not a domain of source "%" with dense cells', domain, src.relation
        USING ERRCODE = 'invalid_parameter_value';
    END IF;
  END IF;
  -- every argument checked before the catalog is written (the plan below checks them again)
  PERFORM dpm_internal.privacy_cost(src, epsilon, coalesce(delta, 0), rho);
  pdom := dpm_internal.query_catalog(src, jsonb_build_object('domain', jsonb_build_object(
            'name', format('contributions of %s', src.relation),
            'attributes', jsonb_build_array(jsonb_build_object('name', 'rows_per_unit', 'expression', '1',
                                                               'bins', dpm_internal.profile_bins(1, 1048576, false)))
                          || CASE WHEN d.id IS NOT NULL
                                  THEN jsonb_build_array(jsonb_build_object('name', 'cells_per_unit', 'expression', d.cell_expr,
                                                                            'bins', dpm_internal.profile_bins(0, d.n::bigint, true)))
                                  ELSE '[]' END)));
  -- cumulative counts: each quantile's bin, and its interval, read from them
  wspec := CASE WHEN d.id IS NULL THEN 'Prefix(rows_per_unit)'
                ELSE 'Prefix(rows_per_unit) * Total(cells_per_unit) + Total(rows_per_unit) * Prefix(cells_per_unit)' END;
  PERFORM dpm_internal.query_catalog(src, jsonb_build_object('workload', jsonb_build_object(
            'name', 'contributions ' || left(md5(pdom.id || ' ' || wspec), 16), 'domain_id', pdom.id, 'spec', wspec)));
  SELECT * INTO wl FROM dpm.workloads w WHERE w.domain_id = pdom.id AND w.spec = wspec AND w.dropped_at IS NULL ORDER BY w.id LIMIT 1;
  args := dpm_internal.release_request(wl.name, epsilon, delta, rho, NULL, NULL, NULL, 'ls', 0.95, NULL);
  args.counted := 'profile';
  PERFORM dpm_internal.release_args(args);
  -- charged as dpm.answer's, through dpm_internal.run_release
  rel.id := dpm_internal.query_release(args);
  SELECT * INTO rel FROM dpm.releases r WHERE r.id = rel.id;
  RETURN QUERY
    SELECT x.fraction, x.value, x.low, x.high, c.value, c.low, c.high
      FROM dpm_internal.profile_quantiles(rel, 0, pdom.attributes->0->'bins', fractions) x
      LEFT JOIN dpm_internal.profile_quantiles(rel, pdom.attr_sizes[1], pdom.attributes->1->'bins', fractions) c
        ON d.id IS NOT NULL AND c.fraction = x.fraction
     ORDER BY x.fraction;
END
$$;
COMMENT ON FUNCTION dpm.answer_contributions(regclass, float8, float8, float8, text) IS
  'how many rows each privacy unit holds, and in how many cells of a domain: differentially private quantiles with intervals, to choose max_contributions by; spends budget';
