-- audit.sql -- the empirical privacy auditor's statistics and sampling (test/audit.sh runs a short
-- version in CI, bench/audit.sh the full one).  Loaded into a throw-away database as a superuser.
--
-- Method (Jagielski et al. 2020; Nasr et al. 2021; the stochastic testers of Google's DP library):
-- a release kind is run many times on a table D and on its neighbour D' = D plus one privacy unit
-- with its full contribution (max_contributions rows, a measure's values at its bound, all in one
-- cell: that moves one answer the most).  Each release gives one number s, the answer the unit
-- moves (or a best linear test), standardized as z = (s - true answer on D) / (what the unit adds
-- to it): D's z are centred on 0, D''s on 1.  For an event E, a mechanism that is (eps, delta)-DP
-- has P[E | D'] <= e^eps P[E | D] + delta and the same with D and D' swapped.  From the counts of E
-- among the n0 releases of D and the n1 of D', Clopper-Pearson bounds p1_low <= P[E | D'] and
-- p0_high >= P[E | D] give
--     eps_lb = ln((p1_low - delta) / p0_high),
-- a lower bound on the mechanism's true epsilon whenever both bounds hold.  The events are
-- thresholds fixed before sampling, in units of the release's own standard error sd (public: it
-- does not depend on the data; a kind whose stderr does, such as an average's, gives none): E = {z >= 1/2 + k sd} (D' against D) and E = {z < 1/2 - k sd} (D
-- against D', the symmetric direction) for k in 0, 1/2, 1, 3/2, 2 (for a yes-or-no statistic,
-- such as a key being released, sd is NULL and k = 0 only).  The bound reported is the largest
-- over these 2 K tests.  With every one of the 4 K Clopper-Pearson bounds at one-sided level
-- alpha / (4 K), all hold at once with probability at least 1 - alpha (Bonferroni), so a correct
-- implementation (true epsilon at most the charge) shows eps_lb > charge with probability at most
-- alpha, whatever the sample sizes: that is the false-alarm rate of one kind.
--
-- Noise is drawn from pg_strong_random, which cannot be seeded: the samples differ at every run,
-- and the false-alarm rate above is what makes a failure meaningful.

CREATE SCHEMA audit;

-- one row per release: kind, planted sensitivity scale, side (0: D, 1: D'), standardized z
CREATE TABLE audit.samples (kind text NOT NULL, scale float8 NOT NULL, side int NOT NULL, z float8 NOT NULL,
                            sd float8);

-- the kinds: how to run one release (a query returning the raw statistic s and the standard error
-- of s, as columns s and se; %1$s is replaced by nothing, it is a fixed query over one table
-- toggled between D and D'), what the unit adds to s, s's true value on D, the charge
CREATE TABLE audit.kinds (kind text PRIMARY KEY, release_sql text NOT NULL, effect float8 NOT NULL,
                          base float8 NOT NULL, epsilon float8 NOT NULL, delta float8 NOT NULL DEFAULT 0,
                          unit_insert text NOT NULL, unit_delete text NOT NULL, binary_stat boolean NOT NULL DEFAULT false,
                          note text);

-- P[X <= x] for X ~ Binomial(n, p), summed in logs (no term underflows for n in the thousands)
CREATE FUNCTION audit.binom_cdf(x int, n int, p float8) RETURNS float8
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  lt float8;          -- log of the term k
  m float8;           -- the largest log term so far (log-sum-exp)
  acc float8 := 0;    -- sum of exp(term - m)
BEGIN
  IF x < 0 THEN RETURN 0; END IF;
  IF x >= n OR p <= 0 THEN RETURN 1; END IF;
  IF p >= 1 THEN RETURN 0; END IF;
  lt := n * ln(1 - p);
  m := lt;
  acc := 1;
  FOR k IN 1..x LOOP
    lt := lt + ln((n - k + 1)::float8 / k) + ln(p) - ln(1 - p);
    IF lt > m THEN
      acc := acc * exp(m - lt) + 1;
      m := lt;
    ELSE
      acc := acc + exp(lt - m);
    END IF;
  END LOOP;
  RETURN least(1, exp(m + ln(acc)));
END
$$;

-- Clopper-Pearson one-sided bounds at level a: P[X <= x | p_high] = a, P[X >= x | p_low] = a
CREATE FUNCTION audit.cp_high(x int, n int, a float8) RETURNS float8
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  lo float8 := 0;
  hi float8 := 1;
  mid float8;
BEGIN
  IF x >= n THEN RETURN 1; END IF;
  FOR i IN 1..50 LOOP
    mid := (lo + hi) / 2;
    IF audit.binom_cdf(x, n, mid) > a THEN lo := mid; ELSE hi := mid; END IF;
  END LOOP;
  RETURN hi;
END
$$;

CREATE FUNCTION audit.cp_low(x int, n int, a float8) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$ SELECT CASE WHEN x <= 0 THEN 0 ELSE 1 - audit.cp_high(n - x, n, a) END $$;

-- The lower bound on epsilon of one kind at one planted scale, at confidence 1 - alpha for the
-- whole family of tests (header): the best test, its threshold and direction, and its counts.
CREATE FUNCTION audit.eps_lb(k text, sc float8, alpha float8,
                             OUT eps_lb float8, OUT threshold float8, OUT direction text,
                             OUT n0 int, OUT n1 int, OUT hits0 int, OUT hits1 int)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  kd audit.kinds;
  sdz float8;
  mults float8[];
  a float8;
  t float8;
  c0 int;
  c1 int;
  lb float8;
  p_in float8;
  p_out float8;
BEGIN
  SELECT * INTO kd FROM audit.kinds WHERE kind = k;
  SELECT count(*) FILTER (WHERE s.side = 0), count(*) FILTER (WHERE s.side = 1), max(s.sd)
    INTO n0, n1, sdz FROM audit.samples s WHERE s.kind = k AND s.scale = sc;
  mults := CASE WHEN kd.binary_stat OR sdz IS NULL THEN '{0}' ELSE '{0, 0.5, 1, 1.5, 2}' END;
  a := alpha / (4 * cardinality(mults));
  eps_lb := '-Infinity';
  FOREACH t IN ARRAY mults LOOP
    FOR dir IN 0..1 LOOP
      -- dir 0: E = {z >= 1/2 + t sd}, more likely under D'; dir 1: E = {z < 1/2 - t sd}, under D
      SELECT count(*) FILTER (WHERE s.side = 0 AND CASE WHEN dir = 0 THEN s.z >= 0.5 + t * coalesce(sdz, 0) ELSE s.z < 0.5 - t * coalesce(sdz, 0) END),
             count(*) FILTER (WHERE s.side = 1 AND CASE WHEN dir = 0 THEN s.z >= 0.5 + t * coalesce(sdz, 0) ELSE s.z < 0.5 - t * coalesce(sdz, 0) END)
        INTO c0, c1 FROM audit.samples s WHERE s.kind = k AND s.scale = sc;
      -- the side the event favours is "in", the other "out"
      IF dir = 0 THEN
        p_in := audit.cp_low(c1, n1, a) - kd.delta;
        p_out := audit.cp_high(c0, n0, a);
      ELSE
        p_in := audit.cp_low(c0, n0, a) - kd.delta;
        p_out := audit.cp_high(c1, n1, a);
      END IF;
      lb := CASE WHEN p_in > 0 THEN ln(p_in / p_out) ELSE '-Infinity' END;
      IF lb > eps_lb THEN
        eps_lb := lb;
        threshold := CASE WHEN dir = 0 THEN 0.5 + t * coalesce(sdz, 0) ELSE 0.5 - t * coalesce(sdz, 0) END;
        direction := CASE WHEN dir = 0 THEN 'z >= t' ELSE 'z < t' END;
        hits0 := c0;
        hits1 := c1;
      END IF;
    END LOOP;
  END LOOP;
END
$$;

-- n releases of kind k on the table as it is now (side 0: D, 1: D'), each standardized into
-- audit.samples.  A procedure: each release is committed, so a long run holds no snapshot.
CREATE PROCEDURE audit.sample(k text, side int, n int)
LANGUAGE plpgsql AS $$
DECLARE
  kd audit.kinds;
  r record;
  sc float8 := dpm_internal.audit_sensitivity_scale();
BEGIN
  SELECT * INTO kd FROM audit.kinds WHERE kind = k;
  FOR i IN 1..n LOOP
    EXECUTE kd.release_sql INTO r;
    INSERT INTO audit.samples VALUES (k, sc, side, (coalesce(r.s, 0) - kd.base) / kd.effect, r.se / kd.effect);
    COMMIT;
  END LOOP;
END
$$;
