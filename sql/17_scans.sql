-- The scans that read a source: the rows they count, and where the counting runs.
--
-- On one server, a scan is one of our aggregates over the rows (dpm.histogram and its kin,
-- src/histogram).  When the rows live on other servers (Citus workers, postgres_fdw foreign
-- tables), those servers cannot run an aggregate whose state is internal, so every row would
-- travel to this one.  There the scan is a plain grouped query instead (a count, and a sum of a
-- measure's units, per cell), which Citus and postgres_fdw run where the rows are: one count per
-- non-empty cell per shard crosses the network, and our aggregate adds up the groups here
-- (dpm_internal.histogram_groups, marginal_groups).  The two forms give the same numbers.

-- Whether a unit column holds each value once: a valid unique index on that column alone, not
-- partial, immediate, over a NOT NULL column (rows with a NULL unit would be one unit to the
-- capping).  Citus enforces such an index on the whole distributed table (it must include the
-- distribution column), and a partitioned table's on all its partitions.  The index must tell
-- values apart as the capping does, by the type's default operator class under the column's
-- collation: a record_image_ops index holds ROW(1.0) and ROW(1.00), which the capping's record
-- "=" calls one unit (test/sql/unit_equality.sql).
CREATE OR REPLACE FUNCTION dpm_internal.unit_unique(rel regclass, unit name) RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT EXISTS (SELECT 1 FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
                   JOIN pg_opclass c ON c.oid = i.indclass[0]
                  WHERE i.indrelid = rel AND i.indisunique AND i.indimmediate AND i.indisvalid
                    AND i.indnkeyatts = 1 AND i.indpred IS NULL AND i.indexprs IS NULL
                    AND a.attname = unit AND a.attnotnull
                    AND c.opcdefault AND i.indcollation[0] = a.attcollation)
$$;

-- Whether a release caps the rows of the source's privacy units: it has one, and it is not unique.
CREATE OR REPLACE FUNCTION dpm_internal.units_capped(src dpm.sources) RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT src.privacy_unit IS NOT NULL AND NOT dpm_internal.unit_unique(dpm_internal.source_table(src), src.privacy_unit)
$$;

-- The rows a scan of the source reads (a FROM item aliased s), from its table or, given rel, from
-- one partition of it: with capped, each privacy unit keeps at most max_contributions rows, chosen
-- with the secure generator (nothing to choose when the unit column is unique); of a source with
-- periods, only those of the periods given (NULL: all).  A source with max_groups caps by cell,
-- the SQL expression cell (a release's cell or bins, a selection's key; rows in none left out): a
-- unit keeps max_per_group rows of each cell, chosen as above, in max_groups of its cells, each
-- cell ranked by a secure random key of its own (that of its first row in the row order, drawn
-- apart from it, so that every cell is as likely to be kept whatever its rows).  Built from the
-- catalog only.
CREATE OR REPLACE FUNCTION dpm_internal.source_rows(src dpm.sources, capped boolean, periods int4range DEFAULT NULL,
                                                    rel regclass DEFAULT NULL, cell text DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  t regclass := coalesce(rel, dpm_internal.source_table(src));
  rows text;
BEGIN
  capped := capped AND src.privacy_unit IS NOT NULL AND NOT dpm_internal.unit_unique(t, src.privacy_unit);
  rows := CASE WHEN periods IS NULL THEN t::text ELSE dpm_internal.period_rows(src, periods, capped, t) END;
  IF NOT capped THEN
    RETURN rows || ' s';
  ELSIF src.max_groups IS NULL THEN
    RETURN format('(SELECT *, row_number() OVER (PARTITION BY %I ORDER BY dpm_internal.random_key()) AS dpm_rank__ '
                  'FROM %s s) s WHERE dpm_rank__ <= %s', src.privacy_unit, rows, src.max_contributions);
  ELSIF cell IS NULL THEN
    RAISE EXCEPTION 'a scan of source % capped by cell needs its cell', src.id USING ERRCODE = 'internal_error';
  END IF;
  RETURN format('(SELECT *, dense_rank() OVER (PARTITION BY %1$I ORDER BY dpm_group_key__, dpm_cell__) AS dpm_group__ '
                'FROM (SELECT *, row_number() OVER c AS dpm_rank__, first_value(dpm_key2__) OVER c AS dpm_group_key__ '
                      'FROM (SELECT *, %2$s AS dpm_cell__, dpm_internal.random_key() AS dpm_key__, '
                                   'dpm_internal.random_key() AS dpm_key2__ FROM %3$s s WHERE %4$s) s '
                      'WINDOW c AS (PARTITION BY %1$I, dpm_cell__ ORDER BY dpm_key__)) s) s '
                'WHERE dpm_rank__ <= %5$s AND dpm_group__ <= %6$s',
                src.privacy_unit, cell, rows,
                CASE WHEN cell LIKE 'ARRAY[%' THEN format('num_nulls(VARIADIC %s) = 0', cell) ELSE format('(%s) IS NOT NULL', cell) END,
                src.max_per_group, src.max_groups);
END
$$;

-- How many keys of a selection one privacy unit holds at most: max_groups, else max_contributions
-- (a key is a cell of the selection's scan).
CREATE OR REPLACE FUNCTION dpm_internal.keys_per_unit(src dpm.sources) RETURNS int
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$ SELECT coalesce(src.max_groups, src.max_contributions) $$;

-- The relations a scan of rel reads: rel, its partitions, and what a view of it reads, at any depth.
CREATE OR REPLACE FUNCTION dpm_internal.relations_read(rel regclass) RETURNS SETOF oid
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  WITH RECURSIVE r(oid) AS (
    SELECT rel::oid
    UNION
    SELECT x.oid
      FROM r, LATERAL (SELECT i.inhrelid AS oid FROM pg_inherits i WHERE i.inhparent = r.oid
                       UNION ALL
                       SELECT d.refobjid FROM pg_rewrite w
                         JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = w.oid
                                         AND d.refclassid = 'pg_class'::regclass
                        WHERE w.ev_class = r.oid AND d.refobjid <> r.oid) x)
  SELECT r.oid FROM r
$$;

-- Whether a relation's rows live on other servers: it, one of its partitions or a relation a
-- view of it reads (at any depth) is a foreign table or a Citus table.
CREATE OR REPLACE FUNCTION dpm_internal.rows_elsewhere(rel regclass) RETURNS boolean
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  rels oid[] := ARRAY(SELECT dpm_internal.relations_read(rel));
  citus boolean;
BEGIN
  IF EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = ANY (rels) AND c.relkind = 'f') THEN
    RETURN true;
  END IF;
  IF to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
    RETURN false;
  END IF;
  EXECUTE 'SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition WHERE logicalrelid::oid = ANY ($1))'
    INTO citus USING rels;
  RETURN citus;
END
$$;

-- The partitions a scan reads one at a time, so that each foreign partition counts its own rows on
-- its server (postgres_fdw pushes a grouped query on one foreign table down, but never the partial
-- aggregates of a partitioned one): the leaves of a partitioned source with a foreign one among
-- them; NULL to read the source as one relation.  Only where reading the leaves is reading the
-- source: no row-level security on any table of the tree (a parent's policies would be skipped,
-- a leaf's applied), run_as may read every leaf, and when capped, no unit can have rows in two
-- leaves (every partitioned table of the tree is partitioned by the unit column alone).
CREATE OR REPLACE FUNCTION dpm_internal.scan_parts(src dpm.sources, run_as regrole, capped boolean) RETURNS regclass[]
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  rel regclass := dpm_internal.source_table(src);
BEGIN
  IF (SELECT c.relkind FROM pg_class c WHERE c.oid = rel) <> 'p'
     OR NOT EXISTS (SELECT 1 FROM pg_partition_tree(rel) t JOIN pg_class c ON c.oid = t.relid
                     WHERE t.isleaf AND c.relkind = 'f')
     OR EXISTS (SELECT 1 FROM pg_partition_tree(rel) t JOIN pg_class c ON c.oid = t.relid
                 WHERE c.relrowsecurity OR (t.isleaf AND NOT has_table_privilege(run_as, t.relid, 'SELECT')))
     OR (capped AND src.privacy_unit IS NOT NULL
         AND EXISTS (SELECT 1 FROM pg_partition_tree(rel) t JOIN pg_partitioned_table p ON p.partrelid = t.relid
                      WHERE p.partnatts <> 1 OR p.partattrs[0] = 0
                         OR NOT EXISTS (SELECT 1 FROM pg_attribute a JOIN pg_opclass c ON c.oid = p.partclass[0]
                                         WHERE a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
                                           AND a.attname = src.privacy_unit
                                           -- by the unit's own equality, as the capping compares units
                                           -- (not, say, record_image_ops, which tells ROW(1.0) from ROW(1.00))
                                           AND c.opcdefault AND p.partcollation[0] = a.attcollation))) THEN
    RETURN NULL;
  END IF;
  RETURN ARRAY(SELECT t.relid FROM pg_partition_tree(rel) t WHERE t.isleaf ORDER BY t.relid::oid);
END
$$;

-- A measure's value on a row in integer units of its grid, as the sum aggregates take it
-- (src/histogram: clamped to [lo, hi], a numeric compared as numeric_measure does, scaled by
-- 2^-grid_exp, rounded half to even; NULL for a NULL or NaN value), in SQL that Citus and
-- postgres_fdw run on their servers: built-in functions only.  Total for every value of every
-- measure type: NaN and NULL first; below lo or above hi (+-Infinity too), the bound's units,
-- computed here by the aggregates' own rule (dpm_internal.value_units: a bound times the scale
-- could underflow in SQL); a value within a quarter unit of 0, 0, as rounding gives (so neither
-- 1e-400 becomes a float8 nor a denormal is multiplied: both raise errors in SQL); any other is
-- a float8 of at least 2^-358 and at most max(|lo|, |hi|) <= 1e100 (check_measure_bounds), whose
-- product with the scale lies in [1/4, 2^24].
CREATE OR REPLACE FUNCTION dpm_internal.units_sql(m dpm.measures, type regtype) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT format('(CASE WHEN %1$s IS NULL OR %1$s = ''NaN'' THEN NULL WHEN %1$s < %2$s THEN %4$s '
                'WHEN %1$s > %3$s THEN %5$s WHEN abs(%1$s) < %6$s THEN 0 ELSE round((%1$s)::float8 * %7$s) END)::int8',
                CASE WHEN num THEN format('(%s)', m.expression) ELSE format('(%s)::float8', m.expression) END,
                format('%s::float8', lo) || CASE WHEN num THEN '::numeric' ELSE '' END,
                format('%s::float8', hi) || CASE WHEN num THEN '::numeric' ELSE '' END,
                dpm_internal.value_units(m.lo, m.lo, m.hi, m.grid_exp), dpm_internal.value_units(m.hi, m.lo, m.hi, m.grid_exp),
                format('%L::float8', 2::float8 ^ (m.grid_exp - 2)) || CASE WHEN num THEN '::numeric' ELSE '' END,
                format('%s::float8', 2::float8 ^ (-m.grid_exp)))
    FROM (SELECT type = 'numeric'::regtype AS num, format('%L', m.lo) AS lo, format('%L', m.hi) AS hi) x
$$;

-- Whether a capped scan of rel (the source's table or one of its partitions) caps on the server
-- holding its rows: a postgres_fdw foreign table whose server lists dpmatrix in its extensions
-- (postgres_fdw then ships dpm_internal.capped_groups; that server must have dpmatrix installed),
-- for a unit column whose type hashes (capped_groups keeps units in a hash table).
-- Not for periods, whose capping needs each unit's earlier periods, nor by cell (max_groups).
CREATE OR REPLACE FUNCTION dpm_internal.caps_remotely(src dpm.sources, rel regclass, capped boolean, periods int4range)
RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT capped AND src.privacy_unit IS NOT NULL AND periods IS NULL AND src.max_groups IS NULL
         AND EXISTS (SELECT 1 FROM pg_foreign_table ft
                       JOIN pg_foreign_server fs ON fs.oid = ft.ftserver
                       JOIN pg_foreign_data_wrapper w ON w.oid = fs.srvfdw
                      WHERE ft.ftrelid = rel AND w.fdwname = 'postgres_fdw'
                        AND EXISTS (SELECT 1 FROM unnest(fs.srvoptions) o
                                     WHERE o LIKE 'extensions=%'
                                       AND 'dpmatrix' = ANY (string_to_array(replace(substr(o, 12), ' ', ''), ','))))
         AND dpm_internal.unit_hashable(rel, src.privacy_unit)
$$;

-- The SQL of a scan of the source as run_as: direct, an aggregate call over the rows (aliased s),
-- or, when the rows live elsewhere (or dpm.grouped_scans is on), grouped, an aggregate call over
-- the groups g(k, c, s, v) of the rows by key: k the key, c the rows, s and v the sum and the
-- number of the units when units (a measure's units_sql) is given.  Its one value is NULL when
-- there is no row at all.  The key is dom's cell, or (wide, an ARRAY) the row's bins of dom.
CREATE OR REPLACE FUNCTION dpm_internal.scan_sql(src dpm.sources, dom dpm.domains, run_as regrole, capped boolean,
                                                 periods int4range, direct text, key text, units text, grouped text)
RETURNS text
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  mode text := lower(coalesce(current_setting('dpm.grouped_scans', true), 'auto'));
  parts regclass[];
  rels regclass[];
  wide boolean;
  fits boolean;
  cols text;
BEGIN
  wide := key LIKE 'ARRAY[%';
  -- capped_groups' one int8[] (1 + keys * (key length + 3) elements) may not pass 1 GB, nor, sent
  -- back as text by a foreign server (at most 21 bytes an element), 1 GB of text: where the keys
  -- the domain allows could pass that (however few the rows hold: decided before the charge, on
  -- the domain alone), rows are capped by the window of source_rows instead.
  fits := CASE WHEN wide THEN (SELECT sum(ln(z::float8)) FROM unnest(dom.attr_sizes) z) + ln(cardinality(dom.attr_sizes) + 3)
               ELSE ln(dom.n::float8 * 4) END <= ln(5e7 - 1);
  IF mode <> 'off' THEN
    parts := dpm_internal.scan_parts(src, run_as, capped);
  END IF;
  IF mode = 'off' OR (mode = 'auto' AND parts IS NULL AND NOT dpm_internal.rows_elsewhere(dpm_internal.source_table(src))) THEN
    -- here, capped by capped_groups (below: one pass over a hash table of the units) rather than
    -- by the window's sort of every row, where it applies: no periods or caps by cell, a unit
    -- column that hashes and is not unique; else our aggregate over the rows
    IF NOT (fits AND capped AND periods IS NULL AND src.max_groups IS NULL AND src.privacy_unit IS NOT NULL
            AND dpm_internal.unit_hashable(dpm_internal.source_table(src), src.privacy_unit)
            AND NOT dpm_internal.unit_unique(dpm_internal.source_table(src), src.privacy_unit)) THEN
      RETURN format('SELECT %s FROM %s', direct, dpm_internal.source_rows(src, capped, periods, NULL, key));
    END IF;
    rels := ARRAY[dpm_internal.source_table(src)];
  ELSE
    rels := coalesce(parts, ARRAY[dpm_internal.source_table(src)]);
    -- elsewhere, capped by capped_groups where every foreign table's server runs dpmatrix (each
    -- relation an Append child, so that postgres_fdw reads them concurrently; the local ones here)
    IF NOT (fits
            AND EXISTS (SELECT 1 FROM unnest(rels) t JOIN pg_class c ON c.oid = t WHERE c.relkind = 'f')
            AND NOT EXISTS (SELECT 1 FROM unnest(rels) t JOIN pg_class c ON c.oid = t
                             WHERE c.relkind = 'f' AND NOT dpm_internal.caps_remotely(src, t, capped, periods))) THEN
      -- a grouped query on the servers holding the rows
      cols := format('%s AS k, count(*) AS c', key)
              || CASE WHEN units IS NULL THEN '' ELSE format(', sum(%1$s) AS s, count(%1$s) AS v', units) END;
      RETURN format('SELECT %s FROM (%s) g', grouped,
                    (SELECT string_agg(format('SELECT %s FROM %s GROUP BY 1', cols, dpm_internal.source_rows(src, capped, periods, p, key)),
                                       ' UNION ALL ')
                       FROM unnest(coalesce(parts, ARRAY[NULL::regclass])) p));
    END IF;
  END IF;
  -- each relation capped and counted in one aggregate, capped_groups; a key is a cell, or (wide)
  -- bins_expr's int4[]
  RETURN format('SELECT %s FROM (SELECT %s FROM (%s) x, dpm_internal.capped_rows(x.a) r) g', grouped,
                CASE WHEN wide THEN 'r.k' ELSE 'r.k[1]' END || ' AS k, r.c AS c, r.s AS s, r.v AS v',
                (SELECT string_agg(format('SELECT dpm_internal.capped_groups(%I, %s, %s, %s) AS a FROM %s s',
                                          src.privacy_unit, src.max_contributions,
                                          CASE WHEN wide THEN key ELSE format('ARRAY[%s]::int4[]', key) END,
                                          coalesce(units, 'NULL::int8'), t), ' UNION ALL ')
                   FROM unnest(rels) t));
END
$$;

-- The source's frequency vector over a domain, scanned with run_as's privileges (the domain's
-- creator for a release, the calling custodian for exact answers).  The SQL is built from the
-- catalog only: the custodian's cell expression and source_rows.
CREATE OR REPLACE FUNCTION dpm_internal.frequency_vector(src dpm.sources, dom dpm.domains, run_as regrole, capped boolean,
                                      periods int4range DEFAULT NULL)
RETURNS float8[]
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  RETURN coalesce(dpm_internal.exec_as(run_as, dpm_internal.scan_sql(src, dom, run_as, capped, periods,
                                    format('dpm.histogram((%s)::int4, %s)', dom.cell_expr, dom.n),
                                    format('(%s)::int4', dom.cell_expr), NULL,
                                    format('dpm_internal.histogram_groups(g.k, %s, ARRAY[g.c])', dom.n))),
                  array_fill(0::float8, ARRAY[dom.n]));
END
$$;

-- The marginal tables of these attribute sets (dpm_internal.marginal_counts) in one scan, with
-- the same rules as the frequency vector: run as the domain's creator, at most max_contributions
-- rows per privacy unit (when capped), rows in no cell dropped.  Memory: the tables, whatever the
-- number of rows (grouped: the cells holding rows, on the servers that hold them).  In PL/pgSQL,
-- as frequency_vector and dpm_internal.release_data: a SQL function keeps its last result until
-- it is called again, a copy of the tables (157 MB for all 3-way marginals of 50 attributes).
CREATE OR REPLACE FUNCTION dpm_internal.marginal_tables(src dpm.sources, dom dpm.domains, run_as regrole, capped boolean,
                                     sets int[], periods int4range DEFAULT NULL)
RETURNS float8[]
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  -- one table of every attribute in order is the frequency vector: the histogram of the cell, with
  -- no array built per row (about a fifth of the scan of a 100-cell count over 10^6 rows)
  RETURN CASE WHEN dom.cell_expr IS NOT NULL AND sets = ARRAY[ARRAY(SELECT generate_series(1, cardinality(dom.attr_sizes)))]
              THEN dpm_internal.frequency_vector(src, dom, run_as, capped, periods) ELSE
  -- no row at all: every table is zeros
         coalesce(dpm_internal.exec_as(run_as, dpm_internal.scan_sql(src, dom, run_as, capped, periods,
                                    format('dpm_internal.marginal_counts(%s, %L::int4[], %L::int4[])',
                                           dpm_internal.bins_expr(dom.attr_exprs), dom.attr_sizes, sets),
                                    dpm_internal.bins_expr(dom.attr_exprs), NULL,
                                    format('dpm_internal.marginal_groups(g.k, %L::int4[], %L::int4[], ARRAY[g.c])',
                                           dom.attr_sizes, sets))),
                  array_fill(0::float8, ARRAY[dpm_internal.table_cells(dom.attr_sizes, sets)])) END;
END
$$;
