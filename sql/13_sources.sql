-- Sources and budgets (custodians), the ledger sum, and the scans that read a source.

-- Runs a query built from the catalog as the given role (see src/security/access.c).
CREATE OR REPLACE FUNCTION dpm_internal.exec_as(role regrole, sql text) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_exec_as' LANGUAGE C VOLATILE STRICT;

-- 63 secure random bits: picks the rows a privacy unit keeps.
CREATE OR REPLACE FUNCTION dpm_internal.random_key() RETURNS bigint
AS 'MODULE_PATHNAME', 'dpm_random_key' LANGUAGE C VOLATILE PARALLEL SAFE;

-- Refuses attribute expressions (and a source definition) that could raise an error on some row,
-- checked as run_as, who scans the source (src/security/safe_expr.c).
CREATE OR REPLACE FUNCTION dpm_internal.check_cells(run_as regrole, relation regclass, domain_name text, attr_names text[],
                                 exprs text[]) RETURNS void
AS 'MODULE_PATHNAME', 'dpm_check_cells' LANGUAGE C VOLATILE STRICT;

-- Refuses a source whose definition, as run_as sees it (a view's query, row-level security), could
-- raise an error on some row or is not a stable transformation of its rows (LIMIT, DISTINCT,
-- aggregates, window functions, set operations, TABLESAMPLE): src/security/safe_expr.c.
CREATE OR REPLACE FUNCTION dpm_internal.check_source(run_as regrole, relation regclass) RETURNS void
AS 'MODULE_PATHNAME', 'dpm_check_source' LANGUAGE C VOLATILE STRICT;

-- Refuses a source that reads a foreign table whose values could fail to convert while a release
-- reads them, after its charge: one of another wrapper than postgres_fdw, or one whose declared
-- columns differ from the remote table's (type, typmod, a nondeterministic collation), read from
-- the remote catalog with run_as's user mapping (src/security/foreign_columns.c).  Wherever the source's
-- definition is checked before a charge (check_source, check_domain, create_measure).
CREATE OR REPLACE FUNCTION dpm_internal.check_foreign_columns(run_as regrole, relation regclass) RETURNS void
AS 'MODULE_PATHNAME', 'dpm_check_foreign_columns' LANGUAGE C VOLATILE STRICT;

-- The functions and operators a release may call on every row, each with its rule and the reason
-- it cannot fail (src/security/safe_calls.c); test/sql/vetted_calls.sql runs each on extreme values.
CREATE OR REPLACE FUNCTION dpm_internal.vetted_calls(OUT fn regprocedure, OUT rule text, OUT reason text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dpm_vetted_calls' LANGUAGE C VOLATILE STRICT;

CREATE OR REPLACE FUNCTION dpm_internal.source(relation regclass) RETURNS dpm.sources
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  src dpm.sources;
BEGIN
  SELECT * INTO src FROM dpm.sources s WHERE s.relation = source.relation AND s.unregistered_at IS NULL;
  IF NOT FOUND THEN
    RAISE EXCEPTION '"%" is not a registered source', relation
      USING ERRCODE = 'undefined_object', HINT = 'Registered sources are listed in dpm.sources.';
  END IF;
  RETURN src;
END
$$;

-- The caller (dpm_internal.invoker()) must be able to read the relation itself.
CREATE OR REPLACE FUNCTION dpm_internal.check_can_read(relation regclass) RETURNS void
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF NOT has_table_privilege(dpm_internal.invoker(), relation, 'SELECT') THEN
    RAISE EXCEPTION 'permission denied: role % cannot read %', dpm_internal.invoker(), relation
      USING ERRCODE = 'insufficient_privilege',
            HINT = 'Only a custodian who may SELECT from a table can register it, define domains over it or read its true values.';
  END IF;
END
$$;

-- A source's table, or a plain error if it was dropped: its oid would otherwise land in the SQL
-- of a scan as a number ("syntax error at or near 16767").  check_domain asks it, naming the
-- domain, before a charge.
CREATE OR REPLACE FUNCTION dpm_internal.source_table(src dpm.sources, domain_name text DEFAULT NULL) RETURNS regclass
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF src.unregistered_at IS NOT NULL THEN
    RAISE EXCEPTION 'source % (%) was unregistered', src.id, coalesce(src.relation::text, src.relation_name)
      USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = format('Unregistered at %s.%s', src.unregistered_at,
                            CASE WHEN domain_name IS NOT NULL THEN format(' Domain "%s" reads it.', domain_name) ELSE '' END),
            HINT = 'A custodian registers the table again with dpm.register_source; its spent budget carries over.';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = src.relation) AND domain_name IS NOT NULL THEN
    RAISE EXCEPTION 'the source table of domain "%" no longer exists: it was dropped after it was registered', domain_name
      USING ERRCODE = 'undefined_table', DETAIL = format('Source %s, table oid %s.', src.id, src.relation::oid),
            HINT = 'Its releases and ledger are kept; a table made again under that name must be registered again.';
  ELSIF NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = src.relation) THEN
    RAISE EXCEPTION 'the table of source % no longer exists: it was dropped after it was registered', src.id
      USING ERRCODE = 'undefined_table', DETAIL = format('Table oid %s.', src.relation::oid),
            HINT = 'Its releases and ledger are kept; a table made again under that name must be registered again.';
  END IF;
  RETURN src.relation;
END
$$;

-- How many cells the tables of these attribute sets (1-based, 0 pads, one a row) have in all.
CREATE OR REPLACE FUNCTION dpm_internal.table_cells(sizes int[], sets int[]) RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT coalesce(sum(coalesce(round(exp(x.lnp)), 1)), 0)::int
    FROM generate_subscripts(sets, 1) i,
         LATERAL (SELECT sum(ln(sizes[sets[i][j]])) AS lnp FROM generate_subscripts(sets, 2) j WHERE sets[i][j] > 0) x
$$;

-- Plans (and so checks the privileges of run_as on everything it reads) a cell expression over
-- a relation, without reading a row: errors here cannot depend on the data.  The expression is
-- in the target list so that the planner cannot drop it.
CREATE OR REPLACE FUNCTION dpm_internal.plan_cells(cell_expr text, relation regclass, run_as regrole) RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  msg text;
  hint text;
BEGIN
  PERFORM dpm_internal.exec_as(run_as, format('SELECT ARRAY[(%s)::float8] FROM %s LIMIT 0', cell_expr, relation));
EXCEPTION WHEN feature_not_supported OR internal_error THEN
  -- a distributed engine (Citus) that cannot run the source's query: say so before anything is charged
  IF NOT dpm_internal.rows_elsewhere(relation) THEN
    RAISE;
  END IF;
  GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
  RAISE EXCEPTION 'the servers holding the rows of "%" cannot run a query over it: %', relation, msg
    USING ERRCODE = 'feature_not_supported',
          HINT = concat_ws(' ', nullif(hint, ''), 'A source view may join distributed tables only on their distribution columns, when they are colocated, or with reference tables.');
END
$$;

-- The distribution column of a Citus hash-distributed table (NULL for any other relation).
CREATE OR REPLACE FUNCTION dpm_internal.distribution_column(rel regclass) RETURNS name
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  col name;
BEGIN
  IF to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
    RETURN NULL;
  END IF;
  EXECUTE 'SELECT pg_catalog.column_to_column_name(logicalrelid, partkey) FROM pg_catalog.pg_dist_partition
            WHERE logicalrelid = $1 AND partmethod = ''h''' INTO col USING rel;
  RETURN col;
END
$$;

-- The rho a ledger row spends: its own, or, for a charge of epsilon alone made while the source
-- was pure or approximate without delta (dpm.set_model), epsilon^2 / 2, rounded up as a charge
-- is (an epsilon-DP release is epsilon^2 / 2-zCDP, Bun & Steinke 2016).  Only a zCDP source's
-- budget reads it.
CREATE OR REPLACE FUNCTION dpm_internal.ledger_rho(l dpm.ledger) RETURNS numeric
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$ SELECT coalesce(l.rho, CASE WHEN l.delta = 0 THEN dpm_internal.ceil18(l.epsilon * l.epsilon / 2) END) $$;

-- What each period of a source with periods spent, for these periods (a finite range): a charge
-- counts in each period it read, and a charge of no period in particular (made before the source
-- had periods) in all.  The sums change only where a charge's periods begin or end: running sums
-- over the periods of those steps, in one pass over the ledger.
CREATE OR REPLACE FUNCTION dpm_internal.period_spending(source_id int, periods int4range)
RETURNS TABLE(period int, epsilon numeric, delta numeric, rho numeric, releases bigint)
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  WITH l AS (SELECT coalesce(l.epsilon, 0) AS e, l.delta AS d, coalesce(dpm_internal.ledger_rho(l), 0) AS r,
                    (l.release_id IS NOT NULL)::int AS n, l.periods
               FROM dpm.ledger l
              WHERE l.source_id = period_spending.source_id
                AND (l.periods IS NULL OR l.periods && period_spending.periods)),
       -- c counts the charges in a period: a period with none spent 0, not a sum that came back to it
       steps AS (SELECT CASE WHEN l.periods IS NULL THEN lower(period_spending.periods)
                             ELSE greatest(lower(l.periods), lower(period_spending.periods)) END AS at, e, d, r, n, 1 AS c
                   FROM l
                 UNION ALL
                 SELECT upper(l.periods), -e, -d, -r, -n, -1
                   FROM l WHERE upper(l.periods) < upper(period_spending.periods)),
       running AS (SELECT k, sum(sum(s.e)) OVER w AS e, sum(sum(s.d)) OVER w AS d, sum(sum(s.r)) OVER w AS r,
                          sum(sum(s.n)) OVER w AS n, sum(sum(s.c)) OVER w AS c
                     FROM generate_series(lower(period_spending.periods), upper(period_spending.periods) - 1) k
                     LEFT JOIN steps s ON s.at = k
                    GROUP BY k WINDOW w AS (ORDER BY k))
  SELECT k, CASE WHEN c > 0 THEN e ELSE 0 END, CASE WHEN c > 0 THEN d ELSE 0 END, CASE WHEN c > 0 THEN r ELSE 0 END,
         coalesce(n, 0)::bigint
    FROM running
$$;

-- What a source has spent: its ledger summed, here only, with those of the sources of the same
-- people (dpm.sources.budget_of: one budget); of a source with periods (which shares with none),
-- what the period of these that spent most spent (each of epsilon, delta and rho apart), and the
-- releases that read any of them.  Budget checks call it after locking the budget's row
-- (dpm_internal.lock_budget), in a statement of their own under READ COMMITTED: it then sees
-- every charge committed before the lock.
CREATE OR REPLACE FUNCTION dpm_internal.spent(source_id int, periods int4range DEFAULT NULL, OUT epsilon numeric,
                                              OUT delta numeric, OUT rho numeric, OUT releases bigint)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  SELECT coalesce(sum(l.epsilon), 0), coalesce(sum(l.delta), 0), coalesce(sum(dpm_internal.ledger_rho(l)), 0),
         count(l.release_id)
    INTO epsilon, delta, rho, releases
    FROM dpm.ledger l
   WHERE l.source_id IN (SELECT g.id FROM dpm.sources g, dpm.sources me
                          WHERE me.id = spent.source_id AND coalesce(g.budget_of, g.id) = coalesce(me.budget_of, me.id))
     AND (spent.periods IS NULL OR l.periods IS NULL OR l.periods && spent.periods);
  IF spent.periods IS NOT NULL THEN
    SELECT max(p.epsilon), max(p.delta), max(p.rho) INTO epsilon, delta, rho
      FROM dpm_internal.period_spending(spent.source_id, spent.periods) p;
  END IF;
END
$$;

-- Every period of a source with periods so far: from the first to today's, or to the last one
-- charged if later.
CREATE OR REPLACE FUNCTION dpm_internal.periods_so_far(src dpm.sources) RETURNS int4range
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT int4range(0, greatest(dpm_internal.current_period(src),
                               (SELECT max(upper(l.periods)) - 1 FROM dpm.ledger l WHERE l.source_id = src.id), 0), '[]')
$$;

-- Locks the row of the source whose budget src spends (its own, or that of the source of the same
-- people it was registered with), then src's: a charge, or a change of the budget, one at a time
-- per budget.  Returns src's row as of after the locks.
CREATE OR REPLACE FUNCTION dpm_internal.lock_budget(src dpm.sources) RETURNS dpm.sources
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  PERFORM 1 FROM dpm.sources s WHERE s.id = coalesce(src.budget_of, src.id) FOR UPDATE;
  SELECT * INTO src FROM dpm.sources s WHERE s.id = src.id FOR UPDATE;
  RETURN src;
END
$$;

-- What a source has spent against its budget: all of it, or with periods, its most spent period.
CREATE OR REPLACE FUNCTION dpm_internal.source_spent(src dpm.sources, OUT epsilon numeric, OUT delta numeric,
                                                     OUT rho numeric, OUT releases bigint)
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT * FROM dpm_internal.spent(src.id, CASE WHEN src.period_column IS NOT NULL THEN dpm_internal.periods_so_far(src) END)
$$;

-- "Spent: ..." in a source's model, for the DETAIL of budget errors and notices.
CREATE OR REPLACE FUNCTION dpm_internal.spent_detail(model text, epsilon numeric, delta numeric, rho numeric) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN model = 'zcdp' AND delta > 0 THEN format('Spent: rho %s, delta %s.', rho, delta)
              WHEN model = 'zcdp' THEN format('Spent: rho %s.', rho)
                    ELSE format('Spent: epsilon %s, delta %s.', epsilon, delta) END
$$;

-- Whether a relation has a (live, user) column of this name: a source's privacy unit.
CREATE OR REPLACE FUNCTION dpm_internal.has_column(relation regclass, col name) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT EXISTS (SELECT 1 FROM pg_attribute a
                  WHERE a.attrelid = relation AND a.attname = col AND a.attnum > 0 AND NOT a.attisdropped)
$$;

-- Refuses a privacy unit column that the capping cannot compare on every value it can hold (no
-- equality or ordering for its type, a field or an element of it; a nondeterministic collation):
-- src/security/privacy_unit.c.  At registration, at each change of the table (sql/29_guards.sql) and
-- before each charge (check_source_unit), since a column's type can change.
CREATE OR REPLACE FUNCTION dpm_internal.check_privacy_unit(rel regclass, col name) RETURNS void
AS 'MODULE_PATHNAME', 'dpm_check_privacy_unit' LANGUAGE C STABLE STRICT;

-- Whether the unit column's type hashes too, as the capping on a remote server needs
-- (dpm_internal.caps_remotely).
CREATE OR REPLACE FUNCTION dpm_internal.unit_hashable(rel regclass, col name) RETURNS boolean
AS 'MODULE_PATHNAME', 'dpm_unit_hashable' LANGUAGE C STABLE STRICT;

-- The same check of a source's unit column, if it has one: each release calls it before its charge.
CREATE OR REPLACE FUNCTION dpm_internal.check_source_unit(src dpm.sources) RETURNS void
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$ SELECT dpm_internal.check_privacy_unit(src.relation, src.privacy_unit) $$;

CREATE OR REPLACE FUNCTION dpm.register_source(source regclass, privacy_unit name DEFAULT NULL,
                                    max_contributions int DEFAULT NULL, epsilon float8 DEFAULT NULL,
                                    delta float8 DEFAULT NULL, rho float8 DEFAULT NULL,
                                    max_groups int DEFAULT NULL, max_per_group int DEFAULT NULL,
                                    same_people_as regclass DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  old dpm.sources;
  owner dpm.sources;      -- same_people_as's budget's source
  spent record;
  model text := CASE WHEN rho IS NOT NULL THEN 'zcdp' WHEN delta > 0 THEN 'approx' ELSE 'pure' END;
BEGIN
  delta := coalesce(delta, 0);    -- not given: no delta budget
  IF source IS NULL THEN
    RAISE EXCEPTION 'source must not be NULL' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = source AND c.relkind IN ('r', 'p', 'v', 'm', 'f')) THEN
    RAISE EXCEPTION '"%" is not a table or view', source USING ERRCODE = 'wrong_object_type';
  END IF;
  IF EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = source AND c.relpersistence = 't') THEN
    RAISE EXCEPTION '"%" is a temporary table', source
      USING ERRCODE = 'wrong_object_type', HINT = 'Releases are computed in a session of their own, which cannot see it.';
  END IF;
  PERFORM dpm_internal.check_can_read(source);
  PERFORM dpm_internal.check_source(dpm_internal.invoker(), source);
  PERFORM dpm_internal.check_foreign_columns(dpm_internal.invoker(), source);
  IF same_people_as IS NOT NULL THEN
    -- the same people: their budget is the one that source spends, in its model
    owner := dpm_internal.source(same_people_as);
    owner := (SELECT s FROM dpm.sources s WHERE s.id = coalesce(owner.budget_of, owner.id));
    IF epsilon IS NOT NULL OR delta > 0 OR rho IS NOT NULL THEN
      RAISE EXCEPTION 'a source of the same people as "%" spends its budget: give no budget', same_people_as
        USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF owner.period_column IS NOT NULL THEN
      RAISE EXCEPTION 'source "%" has periods, each a budget of its own: no other source can spend them', owner.relation
        USING ERRCODE = 'feature_not_supported';
    END IF;
    model := owner.model;
    epsilon := owner.budget_epsilon;
    delta := owner.budget_delta;
    rho := owner.budget_rho;
  END IF;
  PERFORM dpm_internal.check_privacy_args(epsilon, delta, rho, 'budget');
  IF rho IS NOT NULL AND epsilon IS NOT NULL THEN
    RAISE EXCEPTION 'give a zCDP budget (rho) or an epsilon budget (with delta), not both'
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'A zCDP source takes a delta budget too, which only selecting keys (dpm.answer_keys) spends.';
  END IF;
  max_contributions := dpm_internal.check_bounds(privacy_unit, max_contributions, max_groups, max_per_group);
  IF privacy_unit IS NOT NULL AND NOT dpm_internal.has_column(source, privacy_unit) THEN
    RAISE EXCEPTION 'column "%" of "%" does not exist', privacy_unit, source USING ERRCODE = 'undefined_column';
  END IF;
  IF privacy_unit IS NOT NULL THEN
    PERFORM dpm_internal.check_privacy_unit(source, privacy_unit);
  END IF;
  IF EXISTS (SELECT 1 FROM dpm.sources s WHERE s.relation = source AND s.unregistered_at IS NULL) THEN
    RAISE EXCEPTION '"%" is already registered', source USING ERRCODE = 'duplicate_object';
  END IF;
  -- the same table, unregistered before: its ledger carries over, so what it was charged under
  -- (privacy unit, contributions, model) cannot change; only the budget can, as with set_budget
  SELECT * INTO old FROM dpm.sources s WHERE s.relation = source ORDER BY s.id DESC LIMIT 1 FOR UPDATE;
  IF FOUND THEN
    IF old.privacy_unit IS DISTINCT FROM privacy_unit OR old.max_contributions <> max_contributions
       OR old.max_groups IS DISTINCT FROM max_groups OR old.max_per_group IS DISTINCT FROM max_per_group
       OR old.model <> model OR old.budget_of IS DISTINCT FROM owner.id THEN
      RAISE EXCEPTION '"%" was registered before (source %) with other settings', source, old.id
        USING ERRCODE = 'invalid_parameter_value',
              DETAIL = format('Its releases were charged with privacy unit %s, max_contributions %s%s, model %s.',
                              coalesce(quote_ident(old.privacy_unit), 'none (each row)'), old.max_contributions,
                              CASE WHEN old.max_groups IS NOT NULL
                                   THEN format(' (max_groups %s, max_per_group %s)', old.max_groups, old.max_per_group) ELSE '' END,
                              old.model)
                       || CASE WHEN old.budget_of IS NOT NULL THEN format(' It spent the budget of source %s.', old.budget_of) ELSE '' END,
              HINT = 'Register it again with those settings: its spent budget carries over; then dpm.set_bounds changes the bounds.';
    END IF;
    PERFORM dpm_internal.require_read_committed('dpm.register_source');
    SELECT * INTO spent FROM dpm_internal.source_spent(old);
    IF (old.model <> 'zcdp' AND spent.epsilon > epsilon) OR spent.delta > delta OR (old.model = 'zcdp' AND spent.rho > rho) THEN
      RAISE EXCEPTION 'the budget given for "%" is below what source % already spent', source, old.id
        USING ERRCODE = 'invalid_parameter_value',
              DETAIL = dpm_internal.spent_detail(old.model, spent.epsilon, spent.delta, spent.rho);
    END IF;
    UPDATE dpm.sources s SET unregistered_at = NULL, relation_name = NULL, budget_epsilon = dpm_internal.charge(epsilon),
                             budget_delta = coalesce(dpm_internal.charge(delta), 0), budget_rho = dpm_internal.charge(rho)
     WHERE s.id = old.id;
    RAISE NOTICE '"%" is registered again as source %, with what it spent before', source, old.id
      USING DETAIL = dpm_internal.spent_detail(old.model, spent.epsilon, spent.delta, spent.rho);
    RETURN;
  END IF;
  -- a new table under the name of a dropped one is another table: say where the old spending is
  FOR old IN SELECT * FROM dpm.sources s WHERE s.relation IS NULL AND s.relation_name = source::text LOOP
    RAISE NOTICE 'a dropped table of this name was source %: its releases and ledger stay under that id', old.id
      USING HINT = 'If the new table holds the same people, their budget already spent there is not counted here: set this budget accordingly.';
  END LOOP;
  BEGIN
    INSERT INTO dpm.sources (relation, privacy_unit, max_contributions, model, budget_epsilon, budget_delta, budget_rho,
                             max_groups, max_per_group, budget_of)
    VALUES (source, privacy_unit, max_contributions, model,
            CASE WHEN owner.id IS NULL THEN dpm_internal.charge(epsilon) ELSE owner.budget_epsilon END,
            CASE WHEN owner.id IS NULL THEN coalesce(dpm_internal.charge(delta), 0) ELSE owner.budget_delta END,
            CASE WHEN owner.id IS NULL THEN dpm_internal.charge(rho) ELSE owner.budget_rho END,
            max_groups, max_per_group, owner.id);
  EXCEPTION WHEN unique_violation THEN    -- a concurrent registration committed after the check
    RAISE EXCEPTION '"%" is already registered', source USING ERRCODE = 'duplicate_object';
  END;
  -- the custodian sees what the bound leaves out now, before any budget is spent
  PERFORM dpm_internal.bound_notice(s, NULL, dpm_internal.invoker())
     FROM dpm.sources s WHERE s.relation = register_source.source AND s.unregistered_at IS NULL;
  IF owner.id IS NOT NULL THEN
    RAISE NOTICE '"%" holds the same people as "%": their releases spend one budget, the one "%" has', source, owner.relation,
      owner.relation;
  END IF;
  -- a view (or table) reading a registered source holds its people, perhaps: say whose budget
  -- this is unless the custodian said
  FOR old IN SELECT s.* FROM dpm.sources s
              WHERE s.relation IN (SELECT r FROM dpm_internal.relations_read(source) r WHERE r <> source)
                AND s.unregistered_at IS NULL AND owner.id IS NULL ORDER BY s.id LOOP
    RAISE NOTICE '"%" reads "%", a registered source: the budget given here is another one', source, old.relation
      USING HINT = format('If they hold the same people, register %s with same_people_as => %L instead: their releases then spend one budget.',
                          source, old.relation::text);
  END LOOP;
  IF privacy_unit IS NOT NULL AND dpm_internal.distribution_column(source) <> privacy_unit
     AND NOT dpm_internal.unit_unique(source, privacy_unit) THEN
    RAISE NOTICE 'the privacy unit "%" is not the distribution column of "%": to keep at most % rows of each unit, every release reads each row''s unit here',
                 privacy_unit, source, max_contributions
      USING DETAIL = 'A unit''s rows may be on several workers, so the capping runs on the coordinator; the counts stay exact.',
            HINT = format('Distributed by %I (colocated with the tables it joins), the workers cap and count, and only counts cross.', privacy_unit);
  END IF;
  IF privacy_unit IS NOT NULL AND EXISTS (SELECT 1 FROM pg_partition_tree(source) t JOIN pg_class c ON c.oid = t.relid
                                           WHERE c.relkind = 'f'
                                             AND NOT dpm_internal.caps_remotely((SELECT s FROM dpm.sources s WHERE s.relation = register_source.source AND s.unregistered_at IS NULL), c.oid::regclass, true, NULL)) THEN
    RAISE NOTICE 'rows of "%" are in foreign tables: to keep at most % rows of each unit "%", every release reads their rows here',
                 source, max_contributions, privacy_unit
      USING DETAIL = 'postgres_fdw runs no window function on the remote server, so the capping runs here; the counts stay exact.',
            HINT = 'Install dpmatrix on those servers and add it to their foreign servers'' extensions (ALTER SERVER ... OPTIONS (ADD extensions ''dpmatrix'')): they then cap and count, and only counts cross.';
  END IF;
END
$$;
COMMENT ON FUNCTION dpm.register_source(regclass, name, int, float8, float8, float8, int, int, regclass) IS
  'custodian: protect a table or view with its privacy unit, the rows a unit adds (max_contributions, or max_groups cells of max_per_group) and total budget: epsilon, epsilon and delta, or rho (zCDP)';

-- Budget checks lock the source row, then sum the ledger in a fresh snapshot; under REPEATABLE READ
-- or SERIALIZABLE the sum would come from the transaction's first snapshot and miss charges that
-- committed while we waited for the lock.
CREATE OR REPLACE FUNCTION dpm_internal.require_read_committed(what text) RETURNS void
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION '% needs a READ COMMITTED transaction, not %', what, upper(current_setting('transaction_isolation'))
      USING ERRCODE = 'invalid_transaction_state',
            HINT = 'Run it in its own transaction, or after SET TRANSACTION ISOLATION LEVEL READ COMMITTED.';
  END IF;
END
$$;

-- Refuses a change of src's budget or model when src spends another source's budget (the same
-- people: dpm.register_source's same_people_as), with this hint.
CREATE OR REPLACE FUNCTION dpm_internal.check_budget_owner(src dpm.sources, hint text) RETURNS void
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF src.budget_of IS NOT NULL THEN
    RAISE EXCEPTION '"%" spends the budget of "%" (the same people)', src.relation,
      (SELECT coalesce(s.relation::text, s.relation_name, 'source ' || s.id) FROM dpm.sources s WHERE s.id = src.budget_of)
      USING ERRCODE = 'invalid_parameter_value', HINT = hint;
  END IF;
END
$$;

CREATE OR REPLACE FUNCTION dpm.set_budget(source regclass, epsilon float8 DEFAULT NULL, delta float8 DEFAULT NULL,
                               rho float8 DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  src dpm.sources := dpm_internal.source(source);
  b dpm.sources;
  spent record;
BEGIN
  PERFORM dpm_internal.check_can_read(source);
  IF epsilon IS NULL AND delta IS NULL AND rho IS NULL THEN
    RAISE EXCEPTION 'give the new epsilon, delta or rho budget' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF (src.model <> 'zcdp' AND rho IS NOT NULL) OR (src.model = 'zcdp' AND epsilon IS NOT NULL)
     OR (src.model = 'pure' AND delta IS NOT NULL) THEN
    RAISE EXCEPTION 'source "%" has a % budget', source,
      CASE src.model WHEN 'zcdp' THEN 'zCDP (rho)' WHEN 'pure' THEN 'pure epsilon' ELSE 'epsilon and delta' END
      USING ERRCODE = 'invalid_parameter_value', HINT = 'The privacy model of a source cannot change.';
  END IF;
  -- the budget as it would be
  PERFORM dpm_internal.check_privacy_args(coalesce(epsilon, src.budget_epsilon::float8),
                                          coalesce(delta, src.budget_delta::float8),
                                          coalesce(rho, src.budget_rho::float8), 'budget');
  -- the same row lock as a release's charge, so the two cannot interleave; the sum of the
  -- ledger after it must see every committed charge (a snapshot older than the lock would not)
  PERFORM dpm_internal.require_read_committed('dpm.set_budget');
  PERFORM dpm_internal.check_budget_owner(src, 'Set that budget, which both spend.');
  b := dpm_internal.lock_budget(src);
  b.budget_epsilon := coalesce(dpm_internal.charge(epsilon), b.budget_epsilon);
  b.budget_delta := coalesce(dpm_internal.charge(delta), b.budget_delta);
  b.budget_rho := coalesce(dpm_internal.charge(rho), b.budget_rho);
  SELECT * INTO spent FROM dpm_internal.source_spent(b);
  IF (b.model <> 'zcdp' AND spent.epsilon > b.budget_epsilon) OR spent.delta > b.budget_delta
     OR (b.model = 'zcdp' AND spent.rho > b.budget_rho) THEN
    RAISE EXCEPTION 'the new budget of "%" is below what was already spent', source
      USING ERRCODE = 'invalid_parameter_value',
            DETAIL = dpm_internal.spent_detail(b.model, spent.epsilon, spent.delta, spent.rho);
  END IF;
  -- and the copy of the sources of the same people
  UPDATE dpm.sources s SET budget_epsilon = b.budget_epsilon, budget_delta = b.budget_delta,
                           budget_rho = b.budget_rho
   WHERE s.id = src.id OR s.budget_of = src.id;
END
$$;
COMMENT ON FUNCTION dpm.set_budget(regclass, float8, float8, float8) IS
  'custodian: change the total budget of a source, or each period''s for a source with periods (never below what was spent)';

-- Custodians: a source's privacy model changed, with a new budget, after releases (item 4 of issue
-- 46): the same people, so what was spent counts in the new model, where it can: pure to
-- (epsilon, delta), where an epsilon-DP charge is one with delta 0; pure, or (epsilon, delta)
-- without delta spent, to zCDP (an epsilon-DP charge spends epsilon^2 / 2: dpm_internal.ledger_rho);
-- (epsilon, delta) without delta spent to pure.  zCDP to another model would need a delta chosen
-- for what rho spent: refused, as is delta spent into zCDP or pure.  A source of the same people
-- as another changes with it; one with periods or privacy policies (limits in the old model) is
-- refused.
CREATE OR REPLACE FUNCTION dpm.set_model(source regclass, epsilon float8 DEFAULT NULL, delta float8 DEFAULT NULL,
                                         rho float8 DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  src dpm.sources := dpm_internal.source(source);
  new_model text := CASE WHEN rho IS NOT NULL THEN 'zcdp' WHEN delta > 0 THEN 'approx' ELSE 'pure' END;
  spent record;
BEGIN
  PERFORM dpm_internal.check_can_read(source);
  delta := coalesce(delta, 0);
  PERFORM dpm_internal.check_privacy_args(epsilon, delta, rho, 'budget');
  IF rho IS NOT NULL AND epsilon IS NOT NULL THEN
    RAISE EXCEPTION 'give a zCDP budget (rho) or an epsilon budget (with delta), not both' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  PERFORM dpm_internal.check_budget_owner(src, 'Change the model of that source, which both follow.');
  PERFORM dpm_internal.require_read_committed('dpm.set_model');
  src := dpm_internal.lock_budget(src);
  IF new_model = src.model THEN
    RAISE EXCEPTION 'source "%" already has the % model', source, new_model
      USING ERRCODE = 'invalid_parameter_value', HINT = 'dpm.set_budget changes its budget.';
  END IF;
  IF src.period_column IS NOT NULL THEN
    RAISE EXCEPTION 'source "%" has periods, each a budget of its own: its model cannot change', source
      USING ERRCODE = 'feature_not_supported';
  END IF;
  IF EXISTS (SELECT 1 FROM dpm.privacy_policies p JOIN dpm.sources s ON s.id = p.source_id
              WHERE coalesce(s.budget_of, s.id) = src.id) THEN
    RAISE EXCEPTION 'source "%" has privacy policies, whose limits are in its % model', source, src.model
      USING ERRCODE = 'object_in_use', HINT = 'Drop them (dpm.drop_privacy_policy), change the model, and set them again.';
  END IF;
  SELECT * INTO spent FROM dpm_internal.source_spent(src);
  IF src.model = 'zcdp' OR (new_model <> 'approx' AND spent.delta > 0) THEN
    RAISE EXCEPTION 'what source "%" spent cannot be counted in the % model', source, new_model
      USING ERRCODE = 'feature_not_supported',
            DETAIL = dpm_internal.spent_detail(src.model, spent.epsilon, spent.delta, spent.rho)
                     || CASE WHEN src.model = 'zcdp' THEN ' Rho spent is an (epsilon, delta) only for a delta chosen for it.'
                             ELSE ' A charge of delta > 0 is no epsilon-DP nor zCDP one.' END;
  END IF;
  IF (new_model <> 'zcdp' AND spent.epsilon > dpm_internal.charge(epsilon)) OR spent.delta > dpm_internal.charge(delta)
     OR (new_model = 'zcdp' AND spent.rho > dpm_internal.charge(rho)) THEN
    RAISE EXCEPTION 'the budget given for "%" is below what it already spent, counted in the % model', source, new_model
      USING ERRCODE = 'invalid_parameter_value', DETAIL = dpm_internal.spent_detail(new_model, spent.epsilon, spent.delta, spent.rho);
  END IF;
  UPDATE dpm.sources s SET model = new_model, budget_epsilon = dpm_internal.charge(epsilon),
                           budget_delta = coalesce(dpm_internal.charge(delta), 0), budget_rho = dpm_internal.charge(rho)
   WHERE s.id = src.id OR s.budget_of = src.id;
  RAISE NOTICE 'source "%" now has the % model, and what it spent counts there', source, new_model
    USING DETAIL = dpm_internal.spent_detail(new_model, spent.epsilon, spent.delta, spent.rho);
END
$$;
COMMENT ON FUNCTION dpm.set_model(regclass, float8, float8, float8) IS
  'custodian: change a source''s privacy model and budget after releases (pure to approximate or zCDP), what it spent counted in the new one';

-- The longest value dpm.answer_keys reads as a key: what a selection holds is at most this times
-- the keys it releases, whatever the rows (sql/26_keys.sql).  It spends nothing and changes no
-- privacy, so it may change at any time; a selection under way keeps the bound it was asked with.
CREATE OR REPLACE FUNCTION dpm.set_max_key_bytes(source regclass, max_key_bytes int)
RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  src dpm.sources := dpm_internal.source(source);
BEGIN
  PERFORM dpm_internal.check_can_read(source);
  IF NOT coalesce(max_key_bytes BETWEEN 1 AND 65536, false) THEN
    RAISE EXCEPTION 'max_key_bytes must be between 1 and 65536, got %', coalesce(max_key_bytes::text, 'NULL')
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Keys are labels, not documents: values longer than the bound are read as no key.';
  END IF;
  UPDATE dpm.sources s SET max_key_bytes = max_key_bytes WHERE s.id = src.id;
END
$$;
COMMENT ON FUNCTION dpm.set_max_key_bytes(regclass, int) IS
  'custodian: the longest value (in bytes, 1 to 65536; 256 unless set) dpm.answer_keys reads as a key of a source';

CREATE OR REPLACE FUNCTION dpm.budget(source regclass, delta float8 DEFAULT NULL)
RETURNS TABLE(model text, epsilon_budget numeric, epsilon_spent numeric, epsilon_remaining numeric,
              delta_budget numeric, delta_spent numeric, delta_remaining numeric,
              rho_budget numeric, rho_spent numeric, rho_remaining numeric,
              implied_epsilon numeric, releases bigint, role_name regrole)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
  src dpm.sources := dpm_internal.source(budget.source);
BEGIN
  PERFORM dpm_internal.check_privacy_args(NULL, budget.delta, NULL, 'conversion');
  RETURN QUERY
    SELECT src.model,
           src.budget_epsilon, CASE WHEN src.model <> 'zcdp' THEN s.epsilon END, src.budget_epsilon - s.epsilon,
           src.budget_delta, s.delta, src.budget_delta - s.delta,
           src.budget_rho, z.rho, src.budget_rho - z.rho,
           CASE WHEN z.rho > 0 THEN dpm_internal.zcdp_epsilon(z.rho, budget.delta) END,
           s.releases, NULL::regrole
      FROM dpm_internal.source_spent(src) s,
           LATERAL (SELECT CASE WHEN src.model = 'zcdp' THEN s.rho END AS rho) z;
  -- then each privacy policy the caller acts under (custodians: every one), its role's spending
  RETURN QUERY
    SELECT src.model,
           p.epsilon, CASE WHEN p.epsilon IS NOT NULL THEN r.epsilon END, p.epsilon - r.epsilon,
           p.delta, CASE WHEN p.delta IS NOT NULL THEN r.delta END, p.delta - r.delta,
           p.rho, CASE WHEN p.rho IS NOT NULL THEN r.rho END, p.rho - r.rho,
           CASE WHEN p.rho IS NOT NULL AND r.rho > 0 THEN dpm_internal.zcdp_epsilon(r.rho, budget.delta) END,
           r.releases, p.role_name
      FROM dpm.privacy_policies p, dpm_internal.role_spent(src.id, p.role_name) r
     WHERE p.source_id = src.id
       AND (pg_has_role(dpm_internal.invoker(), p.role_name, 'USAGE') OR pg_has_role(dpm_internal.invoker(), 'dpm_admin', 'USAGE'))
     ORDER BY p.role_name::text;
END
$$;
COMMENT ON FUNCTION dpm.budget(regclass, float8) IS
  'a source''s budget, spent and remaining, in its privacy model, then each privacy policy''s you act under (with delta: the epsilon zCDP spending implies)';

-- What a role has been charged on a source, every release it made there.
CREATE OR REPLACE FUNCTION dpm_internal.role_spent(source_id int, role_name regrole, OUT epsilon numeric, OUT delta numeric,
                                                   OUT rho numeric, OUT releases bigint)
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT coalesce(sum(l.epsilon), 0), coalesce(sum(l.delta), 0), coalesce(sum(dpm_internal.ledger_rho(l)), 0), count(l.release_id)
    FROM dpm.ledger l WHERE l.source_id = role_spent.source_id AND l.charged_by = role_spent.role_name
$$;

-- Refuses a charge that the privacy policy of its role on the source cannot pay (none: nothing to
-- check).  Called by the charge under the source's row lock, which orders every charge on it.
CREATE OR REPLACE FUNCTION dpm_internal.check_policy(src dpm.sources, caller regrole, c_epsilon numeric, c_delta numeric,
                                                     c_rho numeric) RETURNS void
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  p dpm.privacy_policies;
  r record;
BEGIN
  SELECT * INTO p FROM dpm.privacy_policies x WHERE x.source_id = src.id AND x.role_name = caller;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  r := dpm_internal.role_spent(src.id, caller);
  IF r.epsilon + coalesce(c_epsilon, 0) > p.epsilon OR r.delta + coalesce(c_delta, 0) > p.delta OR r.rho + coalesce(c_rho, 0) > p.rho THEN
    RAISE EXCEPTION 'the privacy policy of role "%" on source "%" cannot pay for this release', caller, src.relation
      USING ERRCODE = 'Y1001',
            DETAIL = concat_ws(' ', CASE WHEN p.epsilon IS NOT NULL THEN format('The role spent epsilon %s of %s; this release needs %s.', r.epsilon, p.epsilon, coalesce(c_epsilon, 0)) END,
                                    CASE WHEN p.delta IS NOT NULL AND c_delta > 0 THEN format('The role spent delta %s of %s; this release needs %s.', r.delta, p.delta, c_delta) END,
                                    CASE WHEN p.rho IS NOT NULL THEN format('The role spent rho %s of %s; this release needs %s.', r.rho, p.rho, coalesce(c_rho, 0)) END),
            HINT = 'Ask for less, or ask the custodian for a larger policy (dpm.set_privacy_policy); dpm.budget shows both budgets.';
  END IF;
END
$$;

-- A role's privacy policy on a source: its own budget inside the source's, in the source's model
-- (epsilon and delta, or rho and delta), and what each of its statements through dpm.answer_query
-- is charged when it names no budget (statement_*) and at most (max_statement_*); plain_sql: its plain
-- statements over the source are answered privately too; refresh_after: how long a statement asked
-- again is answered free from its earlier release (NULL: always).  Set again: replaced.
CREATE OR REPLACE FUNCTION dpm.set_privacy_policy(source regclass, role regrole, epsilon float8 DEFAULT NULL,
                                                  delta float8 DEFAULT NULL, rho float8 DEFAULT NULL,
                                                  statement_epsilon float8 DEFAULT NULL, statement_delta float8 DEFAULT NULL,
                                                  statement_rho float8 DEFAULT NULL, max_statement_epsilon float8 DEFAULT NULL,
                                                  max_statement_delta float8 DEFAULT NULL, max_statement_rho float8 DEFAULT NULL,
                                                  plain_sql boolean DEFAULT false, refresh_after interval DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  src dpm.sources;
  main text;                 -- the model's own parameter: epsilon or rho
  v float8;
BEGIN
  IF source IS NULL OR role IS NULL THEN
    RAISE EXCEPTION 'give the source and the role of the policy' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  src := dpm_internal.source(source);
  PERFORM dpm_internal.check_can_read(source);
  main := CASE WHEN src.model = 'zcdp' THEN 'rho' ELSE 'epsilon' END;
  FOREACH v IN ARRAY ARRAY[epsilon, delta, rho, statement_epsilon, statement_delta, statement_rho, max_statement_epsilon,
                           max_statement_delta, max_statement_rho] LOOP
    IF v IS NOT NULL AND (v <> v OR v < 0 OR v = 'Infinity') THEN
      RAISE EXCEPTION 'a privacy policy''s budgets must be finite and not negative, got %', v USING ERRCODE = 'invalid_parameter_value';
    END IF;
  END LOOP;
  IF (main = 'epsilon' AND (epsilon IS NULL OR epsilon = 0 OR rho IS NOT NULL OR statement_rho IS NOT NULL OR max_statement_rho IS NOT NULL))
     OR (main = 'rho' AND (rho IS NULL OR rho = 0 OR epsilon IS NOT NULL OR statement_epsilon IS NOT NULL OR max_statement_epsilon IS NOT NULL))
     OR (src.model = 'pure' AND coalesce(delta, statement_delta, max_statement_delta, 0) > 0) THEN
    RAISE EXCEPTION 'source "%" is registered for %: a policy on it gives %', source,
      CASE src.model WHEN 'pure' THEN 'pure epsilon-differential privacy' WHEN 'zcdp' THEN 'zCDP' ELSE '(epsilon, delta)-differential privacy' END,
      CASE src.model WHEN 'pure' THEN 'epsilon' WHEN 'zcdp' THEN 'rho (and delta)' ELSE 'epsilon (and delta)' END
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'For example dpm.set_privacy_policy(source, role, ' || main || ' => 1, statement_' || main || ' => 0.1).';
  END IF;
  IF refresh_after < '0' THEN
    RAISE EXCEPTION 'refresh_after must not be negative, got %', refresh_after USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF epsilon > src.budget_epsilon OR delta > src.budget_delta OR rho > src.budget_rho THEN
    RAISE EXCEPTION 'a privacy policy''s budget must fit in its source''s' USING ERRCODE = 'invalid_parameter_value',
      DETAIL = format('Source "%s" has a budget of %s.', source,
                      concat_ws(' and ', 'epsilon ' || src.budget_epsilon, 'rho ' || src.budget_rho,
                                CASE WHEN src.budget_delta > 0 THEN 'delta ' || src.budget_delta END));
  END IF;
  IF coalesce(statement_epsilon, statement_rho) > coalesce(max_statement_epsilon, max_statement_rho)
     OR statement_delta > max_statement_delta
     OR coalesce(statement_epsilon, statement_rho, max_statement_epsilon, max_statement_rho) > coalesce(epsilon, rho)
     OR coalesce(statement_delta, max_statement_delta) > delta THEN
    RAISE EXCEPTION 'a statement''s charge must be at most its largest, and within the policy''s budget'
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  INSERT INTO dpm.privacy_policies AS x (source_id, role_name, epsilon, delta, rho, statement_epsilon, statement_delta,
                                         statement_rho, max_statement_epsilon, max_statement_delta, max_statement_rho, plain_sql,
                                         refresh_after)
  VALUES (src.id, role, epsilon, delta, rho, statement_epsilon, statement_delta, statement_rho, max_statement_epsilon,
          max_statement_delta, max_statement_rho, coalesce(plain_sql, false), refresh_after)
  ON CONFLICT ON CONSTRAINT privacy_policies_pkey DO UPDATE
    SET epsilon = EXCLUDED.epsilon, delta = EXCLUDED.delta, rho = EXCLUDED.rho,
        statement_epsilon = EXCLUDED.statement_epsilon, statement_delta = EXCLUDED.statement_delta,
        statement_rho = EXCLUDED.statement_rho, max_statement_epsilon = EXCLUDED.max_statement_epsilon,
        max_statement_delta = EXCLUDED.max_statement_delta, max_statement_rho = EXCLUDED.max_statement_rho,
        plain_sql = EXCLUDED.plain_sql, refresh_after = EXCLUDED.refresh_after, set_by = EXCLUDED.set_by, set_at = EXCLUDED.set_at;
END
$$;
COMMENT ON FUNCTION dpm.set_privacy_policy(regclass, regrole, float8, float8, float8, float8, float8, float8, float8, float8, float8, boolean, interval) IS
  'custodian: give a role a budget of its own on a source, inside the source''s, its statements'' default and largest charge, and whether its plain statements are answered privately';

CREATE OR REPLACE FUNCTION dpm.drop_privacy_policy(source regclass, role regrole) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  src dpm.sources := dpm_internal.source(source);
BEGIN
  PERFORM dpm_internal.check_can_read(source);
  DELETE FROM dpm.privacy_policies x WHERE x.source_id = src.id AND x.role_name = role;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'role "%" has no privacy policy on "%"', role, source USING ERRCODE = 'undefined_object';
  END IF;
END
$$;
COMMENT ON FUNCTION dpm.drop_privacy_policy(regclass, regrole) IS
  'custodian: withdraw a role''s privacy policy on a source; its spending stays in the ledger';

-- No release reads the source any more and its table may be dropped; the source row, its releases
-- and its ledger stay (the record of what was spent), and dpm.register_source of the same table
-- takes them up again.  Locks the row as a charge does: a release charged before goes on.
CREATE OR REPLACE FUNCTION dpm.unregister_source(source regclass) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  src dpm.sources := dpm_internal.source(source);
BEGIN
  PERFORM dpm_internal.check_can_read(source);
  PERFORM 1 FROM dpm.sources s WHERE s.id = src.id FOR UPDATE;
  UPDATE dpm.sources s SET unregistered_at = now(), relation_name = source::text WHERE s.id = src.id;
END
$$;
COMMENT ON FUNCTION dpm.unregister_source(regclass) IS
  'custodian: stop answering from a source, so that its table can be dropped; its releases and ledger are kept, and registering the table again takes up its spent budget';
