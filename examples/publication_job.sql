-- A nightly publication job as a stored procedure: answer several workloads, one after the
-- other, and keep the answers in an ordinary table that reports read.  Each step commits, so a
-- step that is refused (the budget runs out, say) leaves the earlier ones published and charged
-- once.  Call it outside a transaction block: CALL publish_nightly(ARRAY['w1', 'w2'], 0.5);
-- On a source that grows by periods (dpm.set_periods), name the period each night publishes,
-- which has its own budget: CALL publish_nightly(ARRAY['w1', 'w2'], 0.5, current_date - 1);

CREATE TABLE IF NOT EXISTS published_counts (
  workload    text NOT NULL,
  release_id  bigint NOT NULL,
  query       int NOT NULL,
  label       text NOT NULL,
  answer      float8 NOT NULL,
  stderr      float8 NOT NULL,
  ci_low      float8,
  ci_high     float8,
  period      date,                        -- the period published (NULL: the whole table)
  published   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (release_id, query)
);

CREATE OR REPLACE PROCEDURE publish_nightly(workloads text[], epsilon float8, period date DEFAULT NULL)
LANGUAGE plpgsql
AS $$
DECLARE
  w text;
  rel bigint;
BEGIN
  COMMIT;   -- fails at once, before any charge, when called inside a transaction block
  FOREACH w IN ARRAY workloads LOOP
    BEGIN
      -- dpm.answer commits its charge on its own before any noise is drawn; the rows it returns
      -- are replayable at no cost with dpm.release(id) if this step fails later on.  Each night
      -- measures the table as it is (reuse never: earlier releases describe earlier nights).
      CREATE TEMP TABLE step ON COMMIT DROP AS
        SELECT * FROM dpm.answer(w, epsilon => publish_nightly.epsilon, reuse => 'never',
                                 period_from => publish_nightly.period);
      SELECT max(r.id) INTO rel
        FROM dpm.releases r JOIN dpm.workloads wl ON wl.id = r.workload_id
       WHERE wl.name = w AND r.status = 'released' AND r.released_by = current_user::regrole;
      INSERT INTO published_counts (workload, release_id, query, label, answer, stderr, ci_low, ci_high, period)
      SELECT w, rel, s.query, s.label, s.answer, s.stderr, s.ci_low, s.ci_high, publish_nightly.period FROM step s;
      RAISE NOTICE 'published workload % (% answers)', w, (SELECT count(*) FROM step);
    EXCEPTION WHEN SQLSTATE 'Y1001' THEN           -- budget exhausted: stop, keep what is done
      RAISE NOTICE 'stopped at workload %: %', w, SQLERRM;
      RETURN;
    END;
    COMMIT;
  END LOOP;
END
$$;
