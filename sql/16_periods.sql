-- Sources that grow by periods (dpm.set_periods): rows fall into disjoint periods of a date or
-- timestamp column, and each period has the source's budget to itself (parallel composition).
-- A release names the periods it reads (dpm.answer's period_from and period_to); it is charged in
-- each of them, and reads only their rows.
--
-- Periods are numbered from 0, the one that begins at period_start.  Their bounds are local dates
-- in the time zone the custodian set them in (period_zone), so that a day or a month means the
-- same whatever the TimeZone of the session that scans.  Widths are whole days (weeks too) or
-- whole months (years too), counted from a first of the month.
--
-- A privacy unit with rows in several periods: each release that reads one of them adds to its
-- loss, so its rows are counted in its first max_periods periods only (the others are dropped
-- from every scan, as rows past max_contributions are).  A unit then loses at most max_periods
-- times a period's budget, provided rows reach a period before any later period is released
-- (new data is new periods): a unit's first periods are then fixed once released.

-- The type of the period column (NULL: gone).
CREATE OR REPLACE FUNCTION dpm_internal.period_type(src dpm.sources) RETURNS regtype
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT a.atttypid::regtype FROM pg_attribute a
   WHERE a.attrelid = src.relation AND a.attname = src.period_column AND a.attnum > 0 AND NOT a.attisdropped
$$;

-- A period's width in months, or 0 for a width in days.
CREATE OR REPLACE FUNCTION dpm_internal.period_months(width interval) RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$ SELECT (extract(year FROM width) * 12 + extract(month FROM width))::int $$;

-- The local date of a value of the period column, as SQL over the column.
CREATE OR REPLACE FUNCTION dpm_internal.period_date_sql(src dpm.sources) RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN dpm_internal.period_type(src) = 'timestamptz'::regtype
              THEN format('(%I AT TIME ZONE %L)::date', src.period_column, src.period_zone)
              ELSE format('%I::date', src.period_column) END
$$;

-- The number of the period holding local date d (negative: before the first).
CREATE OR REPLACE FUNCTION dpm_internal.period_of(src dpm.sources, d date) RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN dpm_internal.period_months(src.period_width) > 0
              THEN floor(((extract(year FROM d) - extract(year FROM src.period_start)) * 12
                          + extract(month FROM d) - extract(month FROM src.period_start))
                         / dpm_internal.period_months(src.period_width))
              ELSE floor((d - src.period_start)::numeric / extract(day FROM src.period_width)) END::int
$$;

-- The same over the period column, as SQL (for the window that finds a unit's first periods).
CREATE OR REPLACE FUNCTION dpm_internal.period_of_sql(src dpm.sources) RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN dpm_internal.period_months(src.period_width) > 0
              THEN format('floor((extract(year FROM %1$s) * 12 + extract(month FROM %1$s) - %2$s) / %3$s)', d,
                          extract(year FROM src.period_start) * 12 + extract(month FROM src.period_start),
                          dpm_internal.period_months(src.period_width))
              ELSE format('floor((%s - %L::date)::numeric / %s)', d, src.period_start, extract(day FROM src.period_width)) END
    FROM dpm_internal.period_date_sql(src) d
$$;

-- The first local date of period k.
CREATE OR REPLACE FUNCTION dpm_internal.period_first(src dpm.sources, k int) RETURNS date
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$ SELECT (src.period_start + k * src.period_width)::date $$;

-- The first instant of period k as SQL of the column's type, for a range predicate that indexes
-- and partition pruning use.
CREATE OR REPLACE FUNCTION dpm_internal.period_bound_sql(src dpm.sources, k int) RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE dpm_internal.period_type(src)
              WHEN 'date'::regtype THEN format('%L::date', dpm_internal.period_first(src, k))
              WHEN 'timestamp'::regtype THEN format('%L::timestamp', dpm_internal.period_first(src, k))
              ELSE format('(%L::timestamp AT TIME ZONE %L)', dpm_internal.period_first(src, k), src.period_zone) END
$$;

-- A period's name: 2024-03-05 (a day), 2024-03 (a month), 2024 (a calendar year), or its first
-- and last day or month.
CREATE OR REPLACE FUNCTION dpm_internal.period_label(src dpm.sources, k int) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN months = 0 AND extract(day FROM src.period_width) = 1 THEN to_char(f, 'YYYY-MM-DD')
              WHEN months = 0 THEN to_char(f, 'YYYY-MM-DD') || '/' || to_char(l, 'YYYY-MM-DD')
              WHEN months = 1 THEN to_char(f, 'YYYY-MM')
              WHEN months = 12 AND extract(month FROM f) = 1 THEN to_char(f, 'YYYY')
              ELSE to_char(f, 'YYYY-MM') || '/' || to_char(l, 'YYYY-MM') END
    FROM (SELECT dpm_internal.period_first(src, k) AS f, dpm_internal.period_first(src, k + 1) - 1 AS l,
                 dpm_internal.period_months(src.period_width) AS months) x
$$;

-- Today's period: the one holding the date now in the source's time zone.
CREATE OR REPLACE FUNCTION dpm_internal.current_period(src dpm.sources) RETURNS int
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpm_internal.period_of(src, (now() AT TIME ZONE src.period_zone)::date) $$;

-- A date as YYYY-MM-DD whatever the DateStyle, for messages: to_char would go through a
-- timestamp, whose range ends about 294,000 AD, the date's at 5,874,897 AD.
CREATE OR REPLACE FUNCTION dpm_internal.iso_date(d date) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$ SELECT format('%s-%s-%s', extract(year FROM d), lpad(extract(month FROM d)::text, 2, '0'), lpad(extract(day FROM d)::text, 2, '0')) $$;

-- The periods a release reads, from the dates its caller names (period_from and period_to, both
-- included): by default every period from the first to today's, and period_to defaults to
-- period_from.  NULL for a source without periods, which takes no dates.
CREATE OR REPLACE FUNCTION dpm_internal.period_range(src dpm.sources, period_from date, period_to date) RETURNS int4range
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  a int;
  b int;
  now_k int;
BEGIN
  -- no period holds an infinite date (date arithmetic would fail on it)
  IF NOT isfinite(period_from) OR NOT isfinite(period_to) THEN
    RAISE EXCEPTION '% must be a date, not %', CASE WHEN NOT isfinite(period_from) THEN 'period_from' ELSE 'period_to' END,
                    CASE WHEN NOT isfinite(period_from) THEN period_from ELSE period_to END
      USING ERRCODE = 'invalid_parameter_value', HINT = 'Name the first and last days of the periods to read.';
  END IF;
  IF src.period_column IS NULL THEN
    IF period_from IS NOT NULL OR period_to IS NOT NULL THEN
      RAISE EXCEPTION 'source "%" has no periods: a release of it reads the whole table', src.relation
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'Leave out period_from and period_to, or have a custodian declare periods (dpm.set_periods).';
    END IF;
    RETURN NULL;
  END IF;
  now_k := dpm_internal.current_period(src);
  a := CASE WHEN period_from IS NULL THEN 0 ELSE dpm_internal.period_of(src, period_from) END;
  b := CASE WHEN period_to IS NOT NULL THEN dpm_internal.period_of(src, period_to)
            WHEN period_from IS NOT NULL THEN a ELSE now_k END;
  IF a < 0 OR b < 0 THEN
    RAISE EXCEPTION 'source "%" has no period before %, its first', src.relation, dpm_internal.period_label(src, 0)
      USING ERRCODE = 'invalid_parameter_value', DETAIL = format('%s names a date before it.', CASE WHEN a < 0 THEN 'period_from' ELSE 'period_to' END);
  END IF;
  IF a > b THEN
    RAISE EXCEPTION 'period_from (%) is after period_to (%)', dpm_internal.iso_date(period_from), dpm_internal.iso_date(period_to) USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF b > now_k THEN
    -- named by the date given: the label of a period far ahead is past the range of timestamps
    -- (dpm_internal.iso_date)
    RAISE EXCEPTION '% (%) is in a period of source "%" that has not begun',
      CASE WHEN period_to IS NOT NULL THEN 'period_to' ELSE 'period_from' END,
      dpm_internal.iso_date(coalesce(period_to, period_from)), src.relation
      USING ERRCODE = 'invalid_parameter_value',
            DETAIL = format('Today (%s, %s) is in period %s.', to_char(now() AT TIME ZONE src.period_zone, 'YYYY-MM-DD'), src.period_zone,
                            dpm_internal.period_label(src, now_k)),
            HINT = 'A period is released once it has begun; its budget is its own, whenever it is spent.';
  END IF;
  RETURN int4range(a, b, '[]');
END
$$;

-- The period column is still there, of a type periods work with, and run_as may read it.
CREATE OR REPLACE FUNCTION dpm_internal.check_periods(src dpm.sources, run_as regrole) RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF src.period_column IS NULL THEN
    RETURN;
  END IF;
  IF coalesce(dpm_internal.period_type(src) NOT IN ('date'::regtype, 'timestamp'::regtype, 'timestamptz'::regtype), true) THEN
    RAISE EXCEPTION 'the period column "%" of source "%" is gone or no longer a date or timestamp', src.period_column,
      src.relation
      USING ERRCODE = 'dependent_objects_still_exist', HINT = 'Its periods are counted by that column: restore it.';
  END IF;
  PERFORM dpm_internal.plan_cells(format('num_nulls(%I)', src.period_column), src.relation, run_as);
END
$$;

-- " in periods 2024-03-05 to 2024-03-07" (or " in period ..."), for messages; '' without periods.
CREATE OR REPLACE FUNCTION dpm_internal.in_periods(src dpm.sources, periods int4range) RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN periods IS NULL THEN ''
              WHEN upper(periods) - lower(periods) = 1 THEN ' in period ' || dpm_internal.period_label(src, lower(periods))
              ELSE format(' in periods %s to %s', dpm_internal.period_label(src, lower(periods)),
                          dpm_internal.period_label(src, upper(periods) - 1)) END
$$;

-- What a request carries of the periods planned: their first days, from which the charge finds
-- them again under the source's lock (dpm_internal.release_charge).
CREATE OR REPLACE FUNCTION dpm_internal.period_request(src dpm.sources, periods int4range,
                                                       OUT period_from date, OUT period_to date)
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT dpm_internal.period_first(src, lower(periods)), dpm_internal.period_first(src, upper(periods) - 1)
$$;

-- The rows of these periods, as a FROM item over the source's table rel or one of its partitions
-- (dpm_internal.source_rows), each
-- privacy unit's rows in its first max_periods periods only when capped.  The window that finds
-- those reads every period up to the last one named (later ones cannot change a unit's first),
-- but only the rows of units with a row in the periods named.
CREATE OR REPLACE FUNCTION dpm_internal.period_rows(src dpm.sources, periods int4range, capped boolean, rel regclass)
RETURNS text
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  RETURN CASE WHEN src.privacy_unit IS NULL OR NOT capped
              THEN format('(SELECT * FROM %s WHERE %I >= %s AND %I < %s)', rel, src.period_column,
                          dpm_internal.period_bound_sql(src, lower(periods)), src.period_column,
                          dpm_internal.period_bound_sql(src, upper(periods)))
              ELSE format('(SELECT * FROM (SELECT *, dense_rank() OVER (PARTITION BY %1$I ORDER BY %2$s) AS dpm_period_rank__ '
                          'FROM %3$s WHERE %4$I >= %5$s AND %4$I < %6$s '
                          'AND (%1$I IN (SELECT %1$I FROM %3$s WHERE %4$I >= %7$s AND %4$I < %6$s) OR %1$I IS NULL)) p '
                          'WHERE dpm_period_rank__ <= %8$s AND %4$I >= %7$s)',
                          src.privacy_unit, dpm_internal.period_of_sql(src), rel, src.period_column,
                          dpm_internal.period_bound_sql(src, 0), dpm_internal.period_bound_sql(src, upper(periods)),
                          dpm_internal.period_bound_sql(src, lower(periods)), src.max_periods) END;
END
$$;

-- Custodians: declare that a source grows by periods of a date, timestamp or timestamptz column
-- (width whole days or whole months, the first beginning on start), each with the source's budget
-- to itself; with a privacy unit, at most max_periods periods count a unit's rows.  Charges made
-- before count in every period.  Periods can change only while no release was charged by period;
-- column_name NULL removes them then.  The custodian is told how many rows fall in no period and
-- how many units have rows in more than max_periods periods (the data: never shown to analysts).
CREATE OR REPLACE FUNCTION dpm.set_periods(source regclass, column_name name, width interval DEFAULT '1 day',
                                start date DEFAULT NULL, max_periods int DEFAULT 1)
RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  src dpm.sources := dpm_internal.source(source);
  typ regtype;
  months int := dpm_internal.period_months(width);
  counts text[];
BEGIN
  PERFORM dpm_internal.check_can_read(source);
  -- the lock a charge takes, then the ledger as of after it (as dpm.set_budget reads it)
  PERFORM dpm_internal.require_read_committed('dpm.set_periods');
  SELECT * INTO src FROM dpm.sources s WHERE s.id = src.id FOR UPDATE;
  IF column_name IS NOT NULL AND (src.budget_of IS NOT NULL OR EXISTS (SELECT 1 FROM dpm.sources s WHERE s.budget_of = src.id)) THEN
    RAISE EXCEPTION 'source "%" spends one budget with another source of the same people, which periods would split', source
      USING ERRCODE = 'feature_not_supported';
  END IF;
  IF src.max_groups IS NOT NULL AND column_name IS NOT NULL THEN
    RAISE EXCEPTION 'source "%" bounds its privacy units by max_groups and max_per_group, which periods do not support', source
      USING ERRCODE = 'feature_not_supported',
            HINT = 'Register it with max_contributions alone to release it by periods.';
  END IF;
  IF EXISTS (SELECT 1 FROM dpm.ledger l WHERE l.source_id = src.id AND l.periods IS NOT NULL) THEN
    IF (column_name, width, start, max_periods) IS NOT DISTINCT FROM (src.period_column, src.period_width, src.period_start, src.max_periods) THEN
      RETURN;
    END IF;
    RAISE EXCEPTION 'the periods of source "%" cannot change: releases were charged by period', source
      USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = format('They are periods of %s of column %I from %s.',
                            CASE WHEN dpm_internal.period_months(src.period_width) > 0
                                 THEN dpm_internal.period_months(src.period_width) || ' month(s)'
                                 ELSE extract(day FROM src.period_width) || ' day(s)' END, src.period_column,
                            to_char(src.period_start, 'YYYY-MM-DD')),
            HINT = 'Register the data under another table to count periods another way.';
  END IF;
  IF column_name IS NULL THEN
    UPDATE dpm.sources s SET period_column = NULL, period_width = NULL, period_start = NULL, period_zone = NULL,
                             max_periods = NULL
     WHERE s.id = src.id;
    RETURN;
  END IF;
  src.period_column := column_name;
  typ := dpm_internal.period_type(src);
  IF typ IS NULL THEN
    RAISE EXCEPTION 'column "%" of "%" does not exist', column_name, source USING ERRCODE = 'undefined_column';
  END IF;
  IF typ NOT IN ('date'::regtype, 'timestamp'::regtype, 'timestamptz'::regtype) THEN
    RAISE EXCEPTION 'periods need a date or timestamp column; "%" is %', column_name, typ
      USING ERRCODE = 'datatype_mismatch';
  END IF;
  IF width IS NULL OR NOT ((months > 0 AND extract(day FROM width) = 0 AND extract(epoch FROM width) = extract(epoch FROM make_interval(months => months)))
                           OR (months = 0 AND extract(day FROM width) > 0 AND extract(epoch FROM width) = 86400 * extract(day FROM width))) THEN
    RAISE EXCEPTION 'a period''s width is whole days or whole months, got %', coalesce(width::text, 'NULL')
      USING ERRCODE = 'invalid_parameter_value', HINT = 'For example ''1 day'', ''1 week'', ''1 month'', ''3 months'' or ''1 year''.';
  END IF;
  IF start IS NULL OR NOT isfinite(start) THEN
    RAISE EXCEPTION 'periods need a start: the first day of the first period' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF months > 0 AND extract(day FROM start) <> 1 THEN
    RAISE EXCEPTION 'periods of whole months begin on a first of the month, not %', to_char(start, 'YYYY-MM-DD')
      USING ERRCODE = 'invalid_parameter_value', HINT = format('start => %L', to_char(start, 'YYYY-MM-01'));
  END IF;
  IF max_periods IS NULL OR max_periods < 1 THEN
    RAISE EXCEPTION 'max_periods must be at least 1' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF src.privacy_unit IS NULL AND max_periods <> 1 THEN
    RAISE EXCEPTION 'source "%" has no privacy unit: each row is one, in one period', source
      USING ERRCODE = 'invalid_parameter_value', HINT = 'Leave max_periods at 1.';
  END IF;
  UPDATE dpm.sources s SET period_column = column_name, period_width = width, period_start = start,
                           period_zone = current_setting('TimeZone'), max_periods = max_periods
   WHERE s.id = src.id
  RETURNING * INTO src;
  -- what the custodian should know of the data: rows no period holds, units past max_periods
  counts := dpm_internal.exec_as_text(dpm_internal.invoker(), format(
    'SELECT ARRAY[count(*) FILTER (WHERE k IS NULL OR k < 0)::text, %s] FROM (SELECT %s AS k FROM %s) x',
    CASE WHEN src.privacy_unit IS NULL THEN '''0'''
         ELSE format('(SELECT count(*) FROM (SELECT 1 FROM %s WHERE %I >= %s GROUP BY %I HAVING count(DISTINCT %s) > %s) u)::text',
                     source, src.period_column, dpm_internal.period_bound_sql(src, 0), src.privacy_unit,
                     dpm_internal.period_of_sql(src), src.max_periods) END,
    dpm_internal.period_of_sql(src), source));
  IF counts[1]::bigint > 0 THEN
    RAISE NOTICE '% row(s) of "%" are in no period: column % is NULL or before %; no release reads them', counts[1], source,
      quote_ident(column_name), to_char(start, 'YYYY-MM-DD');
  END IF;
  IF counts[2]::bigint > 0 THEN
    RAISE NOTICE '% privacy unit(s) of "%" have rows in more than % period(s): only their rows in their first % count', counts[2],
      source, max_periods, max_periods
      USING HINT = 'Raise max_periods if units should count in more periods: each then loses up to max_periods times a period''s budget.';
  END IF;
  IF EXISTS (SELECT 1 FROM dpm.ledger l WHERE l.source_id = src.id) THEN
    RAISE NOTICE 'what source "%" spent so far counts in every period, past and future', source;
  END IF;
END
$$;
COMMENT ON FUNCTION dpm.set_periods(regclass, name, interval, date, int) IS
  'custodian: give a source periods of a date column (day, week, month, ...), each with the whole budget; releases read and charge periods';

-- Analysts and custodians: each period of a source with periods, from the first to today's (and
-- any later one charged), with what it spent of its budget and how many releases read it.
CREATE OR REPLACE FUNCTION dpm.periods(source regclass)
RETURNS TABLE(period int, label text, first_day date, last_day date, epsilon_spent numeric, delta_spent numeric,
              rho_spent numeric, epsilon_remaining numeric, delta_remaining numeric, rho_remaining numeric,
              releases bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
  src dpm.sources := dpm_internal.source(periods.source);
BEGIN
  IF src.period_column IS NULL THEN
    RAISE EXCEPTION 'source "%" has no periods', periods.source
      USING ERRCODE = 'object_not_in_prerequisite_state', HINT = 'dpm.budget shows its budget; a custodian declares periods with dpm.set_periods.';
  END IF;
  RETURN QUERY
    SELECT s.period, dpm_internal.period_label(src, s.period), dpm_internal.period_first(src, s.period),
           dpm_internal.period_first(src, s.period + 1) - 1,
           CASE WHEN src.model <> 'zcdp' THEN s.epsilon END, s.delta, CASE WHEN src.model = 'zcdp' THEN s.rho END,
           src.budget_epsilon - s.epsilon, src.budget_delta - s.delta, src.budget_rho - s.rho, s.releases
      FROM dpm_internal.period_spending(src.id, dpm_internal.periods_so_far(src)) s
     ORDER BY s.period;
END
$$;
COMMENT ON FUNCTION dpm.periods(regclass) IS
  'the periods of a source that grows by periods (dpm.set_periods), from the first to today''s: their dates, what each spent of its own budget, what is left and how many releases read it';
