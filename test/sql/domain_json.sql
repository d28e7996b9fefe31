-- The attribute definitions of dpm.create_domain (src/domain): every check an attribute can fail,
-- and the bins, bounds and expressions dpm.domains keeps for definitions whose text depends on
-- how numbers are read and printed (numeric's scales, jsonb's key order, quoting).
\set SHOW_CONTEXT never
CREATE TABLE dj_people AS
  SELECT g AS id, g % 90 AS age, (g % 7) * 1.5 AS score, (ARRAY['F', 'M'])[1 + g % 2]::varchar(10) AS sex,
         g % 5 AS "Select", g % 3 AS "x y"
    FROM generate_series(1, 200) g;
SELECT dpm.register_source('dj_people', epsilon => 1) IS NOT NULL AS registered;

-- the attribute itself: an object with known keys (the first unknown one in jsonb's key order)
SELECT dpm.create_domain('dj', 'dj_people', '[["age"]]');
SELECT dpm.create_domain('dj', 'dj_people', '[null]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "values": [1], "Name": "x", "bins_": 1}]');
-- its name: letters, digits and underscores, not first a digit; the text of a non-string
SELECT dpm.create_domain('dj', 'dj_people', '[{"values": [1]}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": null, "values": [1]}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": 12, "values": [1]}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": {"a": [1, "b"]}, "values": [1]}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "o''k\\", "values": [1]}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "ag\u00e9", "values": [1]}]');
-- its column: a JSON null falls back to the name; a name longer than the catalog's is no column's
-- truncation; system columns are not attributes
SELECT dpm.create_domain('dj_null_column', 'dj_people', '[{"name": "age", "column": null, "values": [1]}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "a", "column": "ageageageageageageageageageageageageageageageageageageageageageage", "values": [1]}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "a", "column": "ctid", "values": [1]}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "a", "column": "Age", "values": [1]}]');

-- values: strings, numbers and booleans, each compared with = in the column's own type
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "values": {"a": 1}}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "values": [1, null]}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "values": [1, [2, 3]]}]');
SELECT dpm.create_domain('dj_values', 'dj_people',
  '[{"name": "sex", "values": ["F", "o''k", "back\\slash"]},
    {"name": "s", "column": "Select", "values": [1, 2]},
    {"name": "score", "values": [1.50, 3e0, 0.0, -0]}]');

-- width bins: numeric min, max and width, width > 0, max > min, at most dpm.max_cells of them
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": {"min": 0, "max": 10, "width": 1, "step": 1}}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": {"min": 0, "max": 10, "width": "1"}}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": {"min": 0, "max": 10, "width": null}}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": {"min": 0, "max": 10, "width": -1}}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": {"min": 10, "max": 10.0, "width": 1}}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": {"min": 0, "max": 1e30, "width": 1e-10}}]');
-- JSON has no NaN or infinity: as a string it is no number, bare it is no JSON
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": {"min": 0, "max": "Infinity", "width": 1}}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": {"min": 0, "max": NaN, "width": 1}}]');
-- the count is numeric's (max - min) / width, rounded to its division scale before the check:
-- 4 + 1e-31 bins round to 4, which passes, but make 5, which the domain's own check refuses
SET dpm.max_cells = 4;
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": {"min": 0, "max": 4.00000000000000000001, "width": 1}}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": {"min": 0, "max": 40000000000.00000000000000000001, "width": 10000000000}}]');
RESET dpm.max_cells;
-- numbers beyond numeric's range in a difference, or beyond float8's in a bound
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": {"min": -9e131071, "max": 9e131071, "width": 1}}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": {"min": 0, "max": 1e309, "width": 1e308}}]');
-- bins cut at max; bounds printed as numeric prints them (1E+1 is 10, trailing zeros kept in the
-- expression, trimmed in the labels)
SELECT dpm.create_domain('dj_width', 'dj_people',
  '[{"name": "age", "bins": {"min": -0.50, "max": 1E+1, "width": 3}},
    {"name": "score", "bins": {"width": 1.25, "max": 4.0, "min": 0.5}},
    {"name": "one", "column": "x y", "bins": {"min": 0, "max": 3, "width": 5}}]');

-- listed bins: objects, intervals [lo, hi) with either end open, or conditions with a label
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": []}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": "0-10"}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": [{"lo": 0}, 5]}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": [{"lo": 0, "high": 5}]}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": [{"label": "x", "condition": "age > 5", "lo": 0}]}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": [{"label": "x", "condition": true}]}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": [{"condition": "age > 5"}]}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": [{"condition": "age > 5", "label": null}]}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": [{"lo": "0", "hi": 5}]}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": [{"lo": null}]}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": [{"label": "nothing"}]}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": [{"lo": 5.0, "hi": 3}]}]');
SELECT dpm.create_domain('dj', 'dj_people', '[{"name": "age", "bins": [{"lo": 1e-400}]}]');
SELECT dpm.create_domain('dj_listed', 'dj_people',
  '[{"name": "age", "bins": [{"hi": 18.0}, {"lo": 18.0, "hi": 6.5e1, "label": null}, {"lo": 65, "label": 65},
                            {"label": "low", "lo": -1e1, "hi": 0.00}]},
    {"name": "s", "column": "sex", "bins": [{"label": "f", "condition": "sex = ''F''"}, {"label": {"any": "json"}, "condition": "true"}]}]');

-- what dpm.domains keeps
SELECT name, attr_names, attr_sizes, bin_labels, bin_lo, bin_hi FROM dpm.domains WHERE name LIKE 'dj\_%' ORDER BY name;
SELECT name, a.i, a.expr FROM dpm.domains, unnest(attr_exprs) WITH ORDINALITY a(expr, i)
 WHERE name LIKE 'dj\_%' ORDER BY name, a.i;
-- and the cells follow: each width bin of score holds the rows whose score is in it
SELECT dpm.create_workload('dj_width_cells', 'dj_width', 'Total(age) * Identity(score) * Total(one)');
SELECT query, label, answer FROM dpm.exact_answers('dj_width_cells') ORDER BY query;
SELECT count(*) FILTER (WHERE score >= 0.5 AND score < 1.75) AS "[0.5,1.75)",
       count(*) FILTER (WHERE score >= 1.75 AND score < 3) AS "[1.75,3)",
       count(*) FILTER (WHERE score >= 3 AND score < 4) AS "[3,4)"
  FROM dj_people WHERE age >= -0.5 AND age < 10 AND "x y" >= 0 AND "x y" < 3;

-- Past 1,000 bins the thresholds are one array constant of the type ARRAY[...] would give them
-- (int4, int8, numeric: the same comparisons), which a statement reads in one call instead of
-- planning a node per bin; the cells are the same: each column's frequency vector against GROUP BY
SELECT (SELECT last_value FROM dpm.sources_id_seq) AS dj_src_seq, (SELECT last_value FROM dpm.domains_id_seq) AS dj_dom_seq \gset
CREATE TABLE dj_many AS SELECT g AS id, g * 7 % 3000 AS i, (g * 7 % 3000)::int8 * 5000000 AS b, (g * 7 % 3000) / 4.0 AS n
  FROM generate_series(1, 5000) g;
SET client_min_messages = warning;
SELECT dpm.register_source('dj_many', epsilon => 1);
SELECT dpm.create_domain('dj_many_i', 'dj_many', '[{"name": "i", "bins": {"min": -2, "max": 2998, "width": 1}}]'),
       dpm.create_domain('dj_many_b', 'dj_many', '[{"name": "b", "bins": {"min": 0, "max": 15000000000, "width": 5000000}}]'),
       dpm.create_domain('dj_many_n', 'dj_many', '[{"name": "n", "bins": {"min": 0, "max": 750, "width": 0.5}}]');
RESET client_min_messages;
SELECT d.name, substring(d.cell_expr from '''[{]([^,]*,[^,]*),') AS first_thresholds, substring(d.cell_expr from '::[a-z0-9]+\[\]') AS type,
       (SELECT count(*) FROM unnest(dpm_internal.frequency_vector(s, d, current_user::regrole, false)) WITH ORDINALITY v(c, o)
          LEFT JOIN (SELECT CASE d.name WHEN 'dj_many_i' THEN i + 2 WHEN 'dj_many_b' THEN (b / 5000000)::int ELSE floor(n * 2)::int END + 1 AS o,
                            count(*) AS c FROM dj_many GROUP BY 1) t USING (o)
         WHERE v.c <> coalesce(t.c, 0)) AS cells_differing
  FROM dpm.domains d JOIN dpm.sources s ON s.id = d.source_id WHERE d.name LIKE 'dj\_many\_%' ORDER BY d.name;
-- (gone again, and the ids set back: later tests print them)
DELETE FROM dpm.domains WHERE name LIKE 'dj\_many\_%';
DELETE FROM dpm.sources WHERE relation = 'dj_many'::regclass;
DROP TABLE dj_many;
SELECT setval('dpm.sources_id_seq', :dj_src_seq) IS NOT NULL AND setval('dpm.domains_id_seq', :dj_dom_seq) IS NOT NULL AS ids_set_back;

-- Width bins from 0 on a smallint or integer column: the bin is one division (the column / width,
-- exact on non-negative values) instead of width_bucket's binary search; any other min keeps the
-- search (a subtraction could overflow, and is not among the calls a release may make on a row).
-- The cells are the same as the bins' definition gives, extremes and NULLs included.
SELECT (SELECT last_value FROM dpm.sources_id_seq) AS dj_src_seq, (SELECT last_value FROM dpm.domains_id_seq) AS dj_dom_seq \gset
CREATE TABLE dj_div AS
  SELECT g AS i, g::int2 AS s FROM generate_series(-20, 120) g
  UNION ALL SELECT v, NULL FROM unnest(ARRAY[-2147483648, 2147483647, NULL]) v
  UNION ALL SELECT NULL, v FROM unnest(ARRAY[-32768, 32767]::int2[]) v;
SET client_min_messages = warning;
SELECT dpm.register_source('dj_div', epsilon => 1);
SELECT dpm.create_domain('dj_div_i1', 'dj_div', '[{"name": "i", "bins": {"min": 0, "max": 100, "width": 1}}]'),
       dpm.create_domain('dj_div_i7', 'dj_div', '[{"name": "i", "bins": {"min": 0.0, "max": 100, "width": 7.00}}]'),
       dpm.create_domain('dj_div_s1', 'dj_div', '[{"name": "s", "bins": {"min": 0, "max": 100, "width": 1}}]'),
       dpm.create_domain('dj_div_s7', 'dj_div', '[{"name": "s", "bins": {"min": 0, "max": 100, "width": 7}}]'),
       dpm.create_domain('dj_div_big', 'dj_div', '[{"name": "i", "bins": {"min": 0, "max": 1e10, "width": 1e8}}]'),
       dpm.create_domain('dj_div_min', 'dj_div', '[{"name": "i", "bins": {"min": 2, "max": 100, "width": 7}}]'),
       dpm.create_domain('dj_div_frac', 'dj_div', '[{"name": "i", "bins": {"min": 0, "max": 100, "width": 7.5}}]');
RESET client_min_messages;
SELECT d.name, d.attr_exprs[1] AS expr,
       (SELECT count(*) FROM unnest(dpm_internal.frequency_vector(s, d, current_user::regrole, false)) WITH ORDINALITY v(c, o)
          FULL JOIN (SELECT floor((v - lo) / w)::int + 1 AS o, count(*) AS c
                       FROM dj_div, LATERAL (SELECT CASE WHEN d.attr_names[1] = 'i' THEN i ELSE s END::numeric AS v,
                                                    (d.attributes -> 0 -> 'bins' ->> 'min')::numeric AS lo,
                                                    (d.attributes -> 0 -> 'bins' ->> 'max')::numeric AS hi,
                                                    (d.attributes -> 0 -> 'bins' ->> 'width')::numeric AS w) b
                      WHERE v >= lo AND v < hi GROUP BY 1) t USING (o)
         WHERE coalesce(v.c, -1) <> coalesce(t.c, 0)) AS cells_differing
  FROM dpm.domains d JOIN dpm.sources s ON s.id = d.source_id WHERE d.name LIKE 'dj\_div\_%' ORDER BY d.id;
DELETE FROM dpm.domains WHERE name LIKE 'dj\_div\_%';
DELETE FROM dpm.sources WHERE relation = 'dj_div'::regclass;
DROP TABLE dj_div;
SELECT setval('dpm.sources_id_seq', :dj_src_seq) IS NOT NULL AND setval('dpm.domains_id_seq', :dj_dom_seq) IS NOT NULL AS ids_set_back;
