-- Quantiles of a numeric attribute (overall or per group of other attributes), derived at no
-- cost from a release of its cumulative counts: the noisy CDF made monotone (isotonic regression),
-- inverted, with an interval from a confidence band on the whole CDF.

CREATE OR REPLACE FUNCTION dpm_internal.isotonic(v float8[], w float8[] DEFAULT NULL) RETURNS float8[]
AS 'MODULE_PATHNAME', 'dpm_isotonic' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- The spec of the cumulative counts of attribute attr of domain dom, per group of the attributes
-- group_by: Prefix over attr, Identity over group_by, Total over the rest.  Refuses an attribute
-- whose bins are not numeric ranges, an unknown one, attr among group_by.
CREATE OR REPLACE FUNCTION dpm_internal.quantile_spec(dom dpm.domains, attr text, group_by text[]) RETURNS text
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  k int := array_position(dom.attr_names, attr);
  first int;
BEGIN
  IF k IS NULL THEN
    RAISE EXCEPTION 'domain "%" has no attribute "%"', dom.name, attr
      USING ERRCODE = 'undefined_object', HINT = format('Its attributes: %s.', array_to_string(dom.attr_names, ', '));
  END IF;
  first := 1 + coalesce((SELECT sum(s) FROM unnest(dom.attr_sizes[1:k - 1]) s), 0)::int;
  IF EXISTS (SELECT 1 FROM generate_series(first, first + dom.attr_sizes[k] - 1) i
              WHERE NOT (dom.bin_lo[i] > '-Infinity' AND dom.bin_hi[i] < 'Infinity' AND dom.bin_lo[i] < dom.bin_hi[i]))
     OR EXISTS (SELECT 1 FROM generate_series(first, first + dom.attr_sizes[k] - 2) i WHERE dom.bin_hi[i] > dom.bin_lo[i + 1]) THEN
    RAISE EXCEPTION 'attribute "%" of domain "%" is not binned by numeric ranges: it has no quantiles', attr, dom.name
      USING ERRCODE = 'datatype_mismatch',
            HINT = 'Quantiles need bins of increasing numeric ranges ({"bins": {"min": ..., "max": ..., "width": ...}}), the finer the better.';
  END IF;
  IF group_by IS NULL THEN
    RAISE EXCEPTION 'group_by must not be NULL' USING ERRCODE = 'null_value_not_allowed', HINT = 'Pass ''{}'' for no groups.';
  END IF;
  IF attr = ANY (group_by) THEN
    RAISE EXCEPTION 'group by attributes other than "%"', attr USING ERRCODE = 'invalid_parameter_value';
  END IF;
  FOR i IN 1 .. coalesce(cardinality(group_by), 0) LOOP
    IF NOT group_by[i] = ANY (dom.attr_names) THEN
      RAISE EXCEPTION 'domain "%" has no attribute "%"', dom.name, group_by[i] USING ERRCODE = 'undefined_object';
    END IF;
  END LOOP;
  RETURN (SELECT string_agg(format('%s(%s)', CASE WHEN a = attr THEN 'Prefix' WHEN a = ANY (group_by) THEN 'Identity' ELSE 'Total' END, a),
                            ' * ' ORDER BY i)
            FROM unnest(dom.attr_names) WITH ORDINALITY t(a, i));
END
$$;

CREATE OR REPLACE FUNCTION dpm.quantile_workload(name text, domain text, attribute text, group_by text[] DEFAULT '{}')
RETURNS int
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF name IS NULL OR domain IS NULL OR attribute IS NULL THEN
    RAISE EXCEPTION 'name, domain and attribute must not be NULL' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  RETURN dpm.create_workload(name, domain, dpm_internal.quantile_spec(dpm_internal.domain(domain), attribute, group_by));
END
$$;
COMMENT ON FUNCTION dpm.quantile_workload(text, text, text, text[]) IS
  'create the workload whose release dpm.quantiles reads: the cumulative counts of a numeric attribute of a domain, per group of the attributes group_by';

-- Release r's answers with the half-widths of their intervals at confidence 1 - (1 - confidence) /
-- nbins, which hold together for nbins cumulative counts with probability at least confidence
-- (Bonferroni).  Laplace intervals at that confidence are simulated: with twice the fewest draws
-- it needs.
CREATE OR REPLACE FUNCTION dpm_internal.release_band(r dpm.releases, confidence float8, nbins int)
RETURNS TABLE(query int, answer float8, half float8)
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  band float8 := 1 - (1 - confidence) / nbins;
  draws text;
BEGIN
  IF r.noise = 'laplace' THEN
    draws := current_setting('dpm.ci_draws', true);
    IF ceil(2 * band / (1 - band)) > 100000 THEN
      RAISE EXCEPTION 'a % %% band over % bins needs more than 100000 simulated draws of Laplace noise', confidence * 100, nbins
        USING ERRCODE = 'program_limit_exceeded', HINT = 'Ask for a lower confidence, use coarser bins, or release with Gaussian noise.';
    END IF;
    PERFORM set_config('dpm.ci_draws', greatest(coalesce(draws::int, 1000), ceil(2 * band / (1 - band))::int)::text, true);
  END IF;
  RETURN QUERY SELECT a.query, a.answer, dpm_internal.times(a.ci_high, 0.5) - dpm_internal.times(a.ci_low, 0.5)
                 FROM dpm.release(r.id, confidence => band) a;
  IF draws IS NOT NULL THEN
    PERFORM set_config('dpm.ci_draws', draws, true);
  END IF;
END
$$;

-- The p-quantile of one group from its CDF's estimate (cumulative counts made non-decreasing and
-- at least 0), the upper and lower ends of the counts' intervals, the half-width of the total's,
-- and the bins' edges [lo, hi): linear interpolation in the bin where the CDF crosses p times the
-- total (NULL when the total is not positive), and the interval of bin edges the intervals allow;
-- bin, the bin (1-based) where it crosses.
CREATE OR REPLACE FUNCTION dpm_internal.quantile_of(cdf float8[], up float8[], lo float8[], h_total float8, bin_lo float8[],
                                                    bin_hi float8[], p float8, OUT value float8, OUT ci_low float8,
                                                    OUT ci_high float8, OUT bin int)
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  nbins int := cardinality(cdf);
  total float8 := cdf[nbins];
  target float8;
  j int;
BEGIN
  IF total > 0 THEN
    target := dpm_internal.times(p, total);
    j := (SELECT min(t) FROM generate_series(1, nbins) t WHERE cdf[t] >= target);
    bin := j;
    value := dpm_internal.interpolate(bin_lo[j], bin_hi[j],    -- bins near float8's limits too
                                      target - coalesce(cdf[j - 1], 0), greatest(cdf[j] - coalesce(cdf[j - 1], 0), 1e-300));
  END IF;
  ci_low := bin_lo[coalesce((SELECT min(t) FROM generate_series(1, nbins) t WHERE up[t] >= dpm_internal.times(p, total - h_total)), 1)];
  ci_high := bin_hi[coalesce((SELECT min(t) FROM generate_series(1, nbins) t WHERE lo[t] >= dpm_internal.times(p, total + h_total)), nbins)];
END
$$;

-- The p-quantiles of the attribute per group, from release r of its quantile workload, at no cost.
-- The CDF's estimate: each group's cumulative counts, made non-decreasing (isotonic regression)
-- and at least 0; a quantile is interpolated linearly in the bin where it crosses p times the
-- group's estimated total.  Interval: the answers' intervals at confidence 1 - (1 - confidence) / B
-- for the B cumulative counts of a group (derived from the release's measurements) hold together
-- with probability at least confidence (Bonferroni); when they do, the true p-quantile lies between
-- the low end of the first bin whose upper count reaches p times the lowest total and the high end
-- of the first whose lower count passes p times the highest total.
CREATE OR REPLACE FUNCTION dpm.quantiles(release bigint, attribute text, probabilities float8[],
                              group_by text[] DEFAULT '{}', confidence float8 DEFAULT 0.95)
RETURNS TABLE(grp text, probability float8, value float8, ci_low float8, ci_high float8, total_estimate float8)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
  r dpm.releases;
  w dpm.workloads;
  dom dpm.domains;
  k int;
  nbins int;
  first int;
  stride int := 1;              -- queries between one cumulative count and the next of a group
  groups int := 1;
  answers float8[];
  halves float8[];
  cdf float8[];
  up float8[];
  lo float8[];
  g int;
  q int;
  p float8;
BEGIN
  IF quantiles.release IS NULL OR attribute IS NULL THEN
    RAISE EXCEPTION 'release and attribute must not be NULL' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  -- every argument before anything else, the size of the array first (each probability is a row
  -- per group, found by a search of the bins)
  IF cardinality(probabilities) > 1000 THEN
    RAISE EXCEPTION 'at most 1000 probabilities at once, got %', cardinality(probabilities)
      USING ERRCODE = 'program_limit_exceeded', HINT = 'Ask for fewer quantiles per call.';
  END IF;
  IF probabilities IS NULL OR cardinality(probabilities) = 0
     OR EXISTS (SELECT 1 FROM unnest(probabilities) x WHERE x IS NULL OR NOT (x > 0 AND x < 1)) THEN
    RAISE EXCEPTION 'probabilities must be between 0 and 1 (exclusive), got %', probabilities
      USING ERRCODE = 'invalid_parameter_value', HINT = 'The median is 0.5.';
  END IF;
  IF confidence IS NULL OR NOT (confidence > 0 AND confidence < 1) THEN
    RAISE EXCEPTION 'confidence must be between 0 and 1 (exclusive), got %', confidence USING ERRCODE = 'invalid_parameter_value';
  END IF;
  PERFORM dpm_internal.check_release(quantiles.release);    -- not the caller's, or no answers: its error
  SELECT * INTO r FROM dpm.releases x WHERE x.id = quantiles.release;
  SELECT * INTO w FROM dpm.workloads x WHERE x.id = r.workload_id;
  SELECT * INTO dom FROM dpm.domains x WHERE x.id = w.domain_id;
  IF w.spec IS DISTINCT FROM dpm_internal.quantile_spec(dom, attribute, group_by) THEN
    RAISE EXCEPTION 'release % is of workload "%" (%), not of the cumulative counts of "%"%', quantiles.release, w.name,
                    coalesce(w.spec, 'an explicit matrix'), attribute,
                    CASE WHEN cardinality(group_by) > 0 THEN ' by ' || array_to_string(group_by, ', ') ELSE '' END
      USING ERRCODE = 'invalid_parameter_value',
            HINT = format('Release a workload made by dpm.quantile_workload(name, %L, %L, %L) first.', dom.name, attribute, group_by);
  END IF;
  IF r.measure_id IS NOT NULL THEN
    RAISE EXCEPTION 'release % sums a measure: quantiles come from counts', quantiles.release USING ERRCODE = 'invalid_parameter_value';
  END IF;
  k := array_position(dom.attr_names, attribute);
  nbins := dom.attr_sizes[k];
  first := 1 + coalesce((SELECT sum(s) FROM unnest(dom.attr_sizes[1:k - 1]) s), 0)::int;
  -- queries in the domain's attribute order, the last fastest: the group_by attributes after k set the
  -- stride, all of them the number of groups
  FOR i IN 1 .. cardinality(dom.attr_names) LOOP
    IF dom.attr_names[i] = ANY (group_by) THEN
      groups := groups * dom.attr_sizes[i];
      IF i > k THEN
        stride := stride * dom.attr_sizes[i];
      END IF;
    END IF;
  END LOOP;
  SELECT array_agg(a.answer ORDER BY a.query), array_agg(a.half ORDER BY a.query) INTO answers, halves
    FROM dpm_internal.release_band(r, confidence, nbins) a;
  FOR g IN 0 .. groups - 1 LOOP
    -- group g's first query: its index with the prefix digit 0, in mixed radix (stride apart)
    q := (g / stride) * stride * nbins + g % stride;
    cdf := ARRAY(SELECT greatest(c, 0) FROM unnest(dpm_internal.isotonic(
                   ARRAY(SELECT answers[q + 1 + t * stride] FROM generate_series(0, nbins - 1) t))) c);
    up := ARRAY(SELECT answers[q + 1 + t * stride] + halves[q + 1 + t * stride] FROM generate_series(0, nbins - 1) t);
    lo := ARRAY(SELECT answers[q + 1 + t * stride] - halves[q + 1 + t * stride] FROM generate_series(0, nbins - 1) t);
    grp := (SELECT string_agg(format('%s = %s', a, dom.bin_labels[s.first_bin + (g / s.below) % s.size]), ', ' ORDER BY s.i)
              FROM (SELECT i, a, dom.attr_sizes[i] AS size,
                           1 + coalesce((SELECT sum(x) FROM unnest(dom.attr_sizes[1:i - 1]) x), 0)::int AS first_bin,
                           coalesce((SELECT exp(sum(ln(dom.attr_sizes[b]))) FROM generate_series(i + 1, cardinality(dom.attr_names)) b
                                      WHERE dom.attr_names[b] = ANY (group_by)), 1)::int AS below
                      FROM unnest(dom.attr_names) WITH ORDINALITY t(a, i) WHERE a = ANY (group_by)) s);
    total_estimate := cdf[nbins];
    FOREACH p IN ARRAY probabilities LOOP
      probability := p;
      SELECT x.value, x.ci_low, x.ci_high INTO value, ci_low, ci_high
        FROM dpm_internal.quantile_of(cdf, up, lo, halves[q + 1 + (nbins - 1) * stride], dom.bin_lo[first:first + nbins - 1],
                                      dom.bin_hi[first:first + nbins - 1], p) x;
      RETURN NEXT;
    END LOOP;
  END LOOP;
END
$$;
COMMENT ON FUNCTION dpm.quantiles(bigint, text, float8[], text[], float8) IS
  'quantiles of an attribute per group from a release of its quantile workload, with confidence intervals, at no cost';
