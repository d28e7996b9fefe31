-- workload_spec: the workload spec algebra of dpm_internal.workload_matrix.
-- 0/1 matrices are printed one query a row as digit strings ('1100').

-- one interval attribute x: k bins [0,10), [10,20), ...
CREATE FUNCTION w1(spec text, k int, OUT matrix float8[], OUT labels text[])
LANGUAGE sql AS $$
  SELECT matrix, labels FROM dpm_internal.workload_matrix(spec, dpm_internal.domain_of('{x}', ARRAY[k],
    ARRAY(SELECT 'b' || i FROM generate_series(1, k) i),
    ARRAY(SELECT 10 * (i - 1) FROM generate_series(1, k) i)::float8[],
    ARRAY(SELECT 10 * i FROM generate_series(1, k) i)::float8[]))
$$;

-- age: three decades (an interval attribute); sex: two values
CREATE FUNCTION w2(spec text, OUT matrix float8[], OUT labels text[])
LANGUAGE sql AS $$
  SELECT matrix, labels FROM dpm_internal.workload_matrix(spec, dpm_internal.domain_of('{age,sex}', '{3,2}',
    '{20s,30s,40s,F,M}', '{20,30,40,NaN,NaN}', '{30,40,50,NaN,NaN}'))
$$;

-- w2 plus region: three values
CREATE FUNCTION w3(spec text, OUT matrix float8[], OUT labels text[])
LANGUAGE sql AS $$
  SELECT matrix, labels FROM dpm_internal.workload_matrix(spec, dpm_internal.domain_of('{age,sex,region}', '{3,2,3}',
    '{20s,30s,40s,F,M,north,south,east}',
    '{20,30,40,NaN,NaN,NaN,NaN,NaN}', '{30,40,50,NaN,NaN,NaN,NaN,NaN}'))
$$;

-- interval bins with a gap between 30 and 65 and an open end
CREATE FUNCTION wgap(spec text, OUT matrix float8[], OUT labels text[])
LANGUAGE sql AS $$
  SELECT matrix, labels FROM dpm_internal.workload_matrix(spec, dpm_internal.domain_of('{age}', '{3}',
    '{young,mid,old}', '{0,18,65}', '{18,30,Infinity}'))
$$;

CREATE FUNCTION bits(m float8[]) RETURNS text[]
LANGUAGE sql AS $$
  SELECT array_agg(r ORDER BY i) FROM (
    SELECT i, string_agg(m[i][j]::int::text, '' ORDER BY j) AS r
    FROM generate_subscripts(m, 1) i, generate_subscripts(m, 2) j
    GROUP BY i) s
$$;

-- single blocks over four bins
SELECT unnest(bits(matrix)) AS identity FROM w1('Identity(x)', 4);
SELECT unnest(bits(matrix)) AS total FROM w1('Total(x)', 4);
SELECT unnest(bits(matrix)) AS prefix FROM w1('Prefix(x)', 4);
-- all k(k+1)/2 = 10 ranges, ordered by start then end
SELECT unnest(bits(matrix)) AS allrange FROM w1('AllRange(x)', 4);
SELECT array_length(matrix, 1) AS rows, array_length(matrix, 2) AS cols
FROM w1('AllRange(x)', 4);

-- hierarchical: the binary tree over 4 bins, level by level
SELECT bits(matrix) = '{1111,1100,0011,1000,0100,0010,0001}' AS h4
FROM w1('Hierarchical(x)', 4);
SELECT bits(matrix) = bits((w1('Hierarchical(x, 2)', 4)).matrix) AS default_is_binary
FROM w1('Hierarchical(x)', 4);
-- not powers of two: larger parts first, single bins are not split again
SELECT unnest(bits(matrix)) AS h5 FROM w1('Hierarchical(x)', 5);
SELECT bits(matrix) = '{11111,11100,00011,11000,00100,00010,00001,10000,01000}' AS h5_ok
FROM w1('Hierarchical(x)', 5);
SELECT bits(matrix) = '{1111111,1111000,0000111,1100000,0011000,0000110,0000001,'
                      '1000000,0100000,0010000,0001000,0000100,0000010}' AS h7_ok
FROM w1('Hierarchical(x)', 7);
-- branching 3 over 7 bins: parts of 3, 2, 2
SELECT unnest(bits(matrix)) AS h7_b3 FROM w1('Hierarchical(x, 3)', 7);
SELECT bits(matrix) = '{1111111,1110000,0001100,0000011,1000000,0100000,0010000,'
                      '0001000,0000100,0000010,0000001}' AS h7_b3_ok
FROM w1('Hierarchical(x, 3)', 7);
SELECT array_length(matrix, 1) AS h9_b3_rows FROM w1('Hierarchical(x, 3)', 9);
-- a branching factor above the bin count: the root, then the leaves
SELECT unnest(bits(matrix)) AS h4_b10 FROM w1('Hierarchical(x, 10)', 4);
SELECT unnest(bits(matrix)) AS h1 FROM w1('Hierarchical(x)', 1);

-- the Kronecker product follows the domain order (age, then sex),
-- whatever the order of the factors; cell = age bin * 2 + sex bin
SELECT bits(matrix) = '{100000,010000,101000,010100,101010,010101,'
                      '001000,000100,001010,000101,000010,000001}' AS kron_by_hand
FROM w2('AllRange(age) * Identity(sex)');
SELECT a.matrix = b.matrix AS factor_order_free
FROM w2('AllRange(age) * Identity(sex)') a, w2('Identity(sex) * AllRange(age)') b;
-- attributes a term leaves out are summed over
SELECT unnest(bits(matrix)) AS prefix_age FROM w2('Prefix(age)');
SELECT unnest(bits(matrix)) AS identity_sex FROM w2('Identity(sex)');

-- union stacks the terms' rows in order
SELECT unnest(bits(matrix)) AS union_rows FROM w2('Total(age) + Identity(sex) + Identity(age)*Identity(sex)');
-- Marginal is shorthand for a product of Identity blocks
SELECT a.matrix = b.matrix AS marginal
FROM w3('Marginal(age, region)') a, w3('Identity(region) * Identity(age)') b;
SELECT a.matrix = b.matrix AS marginal_one
FROM w3('Marginal(sex)') a, w3('Identity(sex)') b;
-- Marginals(k [, attributes]) is every k-way marginal, in the order the attributes are listed (all
-- of the domain's by default); Marginals(0) is the total; it takes weights and products as any union
SELECT a.matrix = b.matrix AS marginals_2
FROM w3('Marginals(2)') a, w3('Marginal(age, sex) + Marginal(age, region) + Marginal(sex, region)') b;
SELECT a.matrix = b.matrix AS marginals_listed
FROM w3('Marginals(1, region, age)') a, w3('Identity(region) + Identity(age)') b;
SELECT a.matrix = b.matrix AS marginals_0, a.labels
FROM w3('Marginals(0)') a, w3('Total(age)') b;
SELECT a.matrix = b.matrix AS marginals_weighted, a.weights = b.weights AS same_weights
FROM dpm_internal.workload_matrix('2 * Marginals(1, age, sex) * Identity(region) + marginals(3)',
                                  dpm_internal.domain_of('{age,sex,region}', '{3,2,3}', '{20s,30s,40s,F,M,north,south,east}',
                                                         '{20,30,40,NaN,NaN,NaN,NaN,NaN}', '{30,40,50,NaN,NaN,NaN,NaN,NaN}')) a,
     dpm_internal.workload_matrix('2 * Marginal(age, region) + 2 * Marginal(sex, region) + Marginal(age, sex, region)',
                                  dpm_internal.domain_of('{age,sex,region}', '{3,2,3}', '{20s,30s,40s,F,M,north,south,east}',
                                                         '{20,30,40,NaN,NaN,NaN,NaN,NaN}', '{30,40,50,NaN,NaN,NaN,NaN,NaN}')) b;
-- a product distributes over a parenthesized union
SELECT a.matrix = b.matrix AS parentheses
FROM w2('(Identity(age) + Total(age)) * Identity(sex)') a,
     w2('Identity(age) * Identity(sex) + Total(age) * Identity(sex)') b;
-- block names are case-insensitive, whitespace is free, names may be quoted
SELECT a.matrix = b.matrix AS spelling
FROM w2(E' allrange ( "age" )\n*\tIDENTITY(sex) ') a, w2('AllRange(age)*Identity(sex)') b;

-- explicit ranges: by bounds, by one label, by labels inclusive
SELECT unnest(bits(matrix)) AS ranges
FROM w2('Ranges(age, [20, 40), [40,50), ''30s'', ''20s'':''40s'')');
SELECT unnest(bits(matrix)) AS ranges_values
FROM w3('Ranges(region, ''north'':''south'', ''east'')');
-- a set is one query over the union of its ranges, which need not touch (an IN list)
SELECT unnest(bits(matrix)) AS sets, unnest(labels) AS set_labels
FROM w3('Ranges(region, {''north'', ''east''}, {''south''}, {''north'', {''north'':''south''}}) * Ranges(age, {[20, 30), ''40s''})');
SELECT * FROM w3('Ranges(region, {''north'', ''east''');
-- bounds may be written with exponents, signs and inf
SELECT unnest(labels) AS gap_labels
FROM wgap('Ranges(age, [0, 30), [+18, inf), [1.8e1, 65), [65, Infinity), ''young'':''mid'')');
-- a range open at one end reads as a comparison (age >= 65, age < 18), not [65,Infinity)
SELECT unnest(labels) AS open_labels
  FROM dpm_internal.workload_matrix('AllRange(age)', dpm_internal.domain_of('{age}', '{3}', '{young,adult,old}',
                                                                    '{-Infinity,18,65}', '{18,65,Infinity}'));

-- labels
SELECT unnest(labels) AS labels FROM w2('AllRange(age) * Identity(sex) + Total(sex)');
SELECT unnest(labels) AS labels
FROM w3('Ranges(region, ''north'':''south'', ''east'', ''north'':''east'') * Ranges(age, ''30s'')');
SELECT labels[1:3] AS labels FROM w3('Marginal(age, sex, region)');
SELECT unnest(labels) AS h4_labels FROM w1('Hierarchical(x)', 4);
SELECT array_length(labels, 1) = array_length(matrix, 1) AS one_label_a_query
FROM w3('AllRange(age) * Identity(region) + Marginal(sex, region) + Total(age)');

-- errors: the spec
SELECT * FROM w2('');
SELECT * FROM w2('   ');
SELECT * FROM w2('Foo(age)');
SELECT * FROM w2('age');
SELECT * FROM w2('Identity(agee)');
SELECT * FROM w2('Identity(age) * Prefix(age)');
SELECT * FROM w2('Marginal(age, sex) * Total(sex)');
SELECT * FROM w2('Marginal(age, age)');
SELECT * FROM w2('Marginals(3)');
SELECT * FROM w2('Marginals(1.5)');
SELECT * FROM w2('Marginals(age)');
SELECT * FROM w2('Marginals(2, age)');
SELECT * FROM w2('Marginals(1, age, age)');
SELECT * FROM w2('Marginals(1, agee)');
SELECT * FROM w2('Marginals 2');
SELECT * FROM w2('(Identity(age) + Total(sex)) * Identity(age)');
SELECT * FROM w2('Identity(age, sex)');
SELECT * FROM w2('Hierarchical(age, 1)');
SELECT * FROM w2('Hierarchical(age, 2.5)');
SELECT * FROM w2('Hierarchical(age, -3)');
SELECT * FROM w2('Hierarchical(age, two)');
SELECT * FROM w2('Ranges(age, [25, 40))');
SELECT * FROM w2('Ranges(age, [20, 60))');
SELECT * FROM w2('Ranges(age, [10, 30))');
SELECT * FROM w2('Ranges(age, [30, 30))');
SELECT * FROM w2('Ranges(age, [40, 30))');
SELECT * FROM w2('Ranges(age, [20, 30])');
SELECT * FROM w2('Ranges(age, ''40s'':''20s'')');
SELECT * FROM w2('Ranges(age, ''50s'')');
SELECT * FROM w2('Ranges(sex, [0, 1))');
SELECT * FROM w2('Ranges(sex, F)');
SELECT * FROM w2('Ranges(sex)');
SELECT * FROM wgap('Ranges(age, [30, 65))');
SELECT * FROM w2('Identity(age) Total(sex)');
SELECT * FROM w2('Identity(age))');
SELECT * FROM w2('Identity(age');
SELECT * FROM w2('Identity(age) +');
SELECT * FROM w2('Ranges(sex, ''F)');
SELECT * FROM w2('Identity(age) # Total(sex)');
-- weights, on either side: the matrix stays unweighted, the weights come apart
SELECT matrix, weights FROM dpm_internal.workload_matrix('3 * Total(age) + Identity(age) * 0.5 * Total(sex)', dpm_internal.domain_of('{age,sex}', '{3,2}',
    '{20s,30s,40s,F,M}', '{20,30,40,NaN,NaN}', '{30,40,50,NaN,NaN}'));
SELECT weights FROM dpm_internal.workload_matrix('2 * (Total(age) + 3 * Identity(sex))', dpm_internal.domain_of('{age,sex}', '{3,2}',
    '{20s,30s,40s,F,M}', '{20,30,40,NaN,NaN}', '{30,40,50,NaN,NaN}'));
SELECT * FROM w2('Total(age) * 0');
SELECT * FROM w2('Total(age) * -1');

-- errors: the domain arrays
SELECT matrix, labels FROM dpm_internal.workload_matrix('Total(a)', dpm_internal.domain_of('{a,b}', '{2}', '{x,y}', '{NaN,NaN}', '{NaN,NaN}'));
SELECT matrix, labels FROM dpm_internal.workload_matrix('Total(a)', dpm_internal.domain_of('{a}', '{2}', '{x,y,z}', '{NaN,NaN}', '{NaN,NaN}'));
SELECT matrix, labels FROM dpm_internal.workload_matrix('Total(a)', dpm_internal.domain_of('{a}', '{2}', '{x,y}', '{NaN}', '{NaN,NaN}'));
SELECT matrix, labels FROM dpm_internal.workload_matrix('Total(a)', dpm_internal.domain_of('{a}', '{2}', '{x,y}', '{NaN,NaN}', '{NaN,NaN,NaN}'));
SELECT matrix, labels FROM dpm_internal.workload_matrix('Total(a)', dpm_internal.domain_of('{}', '{}', '{}', '{}', '{}'));
SELECT matrix, labels FROM dpm_internal.workload_matrix('Total(a)', dpm_internal.domain_of('{a}', '{0}', '{}', '{}', '{}'));
SELECT matrix, labels FROM dpm_internal.workload_matrix('Total(a)', dpm_internal.domain_of('{a,a}', '{1,1}', '{x,y}', '{NaN,NaN}', '{NaN,NaN}'));
SELECT matrix, labels FROM dpm_internal.workload_matrix('Total(a)', dpm_internal.domain_of('{{a}}', '{1}', '{x}', '{NaN}', '{NaN}'));
SELECT matrix, labels FROM dpm_internal.workload_matrix('Total(a)', dpm_internal.domain_of('{a,NULL}', '{1,1}', '{x,y}', '{NaN,NaN}', '{NaN,NaN}'));
SELECT matrix, labels FROM dpm_internal.workload_matrix('Total(a)', dpm_internal.domain_of('{a}', '{NULL}', '{x}', '{NaN}', '{NaN}'));
SELECT matrix, labels FROM dpm_internal.workload_matrix('Total(a)', dpm_internal.domain_of('{a}', '{2}', '{x,NULL}', '{NaN,NaN}', '{NaN,NaN}'));
SELECT matrix, labels FROM dpm_internal.workload_matrix('Total(a)', dpm_internal.domain_of('{a}', '{2}', '{x,y}', '{0,NULL}', '{1,2}'));
SELECT matrix, labels FROM dpm_internal.workload_matrix('Total(a)', dpm_internal.domain_of('{a}', '{2}', '{x,y}', '{0,1}', '{1,NULL}'));
SELECT matrix, labels FROM dpm_internal.workload_matrix('Total(a)', dpm_internal.domain_of('{a}', '{2}', '{x,y}', '{0,NaN}', '{1,2}'));
SELECT matrix, labels FROM dpm_internal.workload_matrix('Total(a)', dpm_internal.domain_of('{a}', '{2}', '{x,y}', '{0,2}', '{1,2}'));
SELECT matrix, labels FROM dpm_internal.workload_matrix('Ranges(a, ''x'')', dpm_internal.domain_of('{a}', '{2}', '{x,x}', '{NaN,NaN}', '{NaN,NaN}'));

-- the SQLSTATEs clients can branch on
CREATE FUNCTION sqlstate_of(spec text) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM w2(spec);
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE;
END
$$;
SELECT spec, sqlstate_of(spec) FROM (VALUES
  (''), ('Foo(age)'), ('Identity(agee)'), ('Ranges(age, ''50s'')'),
  ('Identity(age) * Total(age)'), ('Hierarchical(age, 1)'), ('Ranges(age, [25, 40))'),
  ('Ranges(age, [30, 30))'), ('Identity(age) x'), ('Identity(age'), ('2 * Total(age)'),
  ('Total(age) + Total(sex)')) t(spec);

-- a workload too large for dpm.max_matrix_mb fails before it is built
SET dpm.max_matrix_mb = 1;
SELECT array_length(matrix, 1) FROM w1('AllRange(x)', 1000);
-- also when distributing a product over unions multiplies the terms
SELECT array_length(matrix, 1)
FROM dpm_internal.workload_matrix('(Identity(a) + Total(a)) * (Identity(b) + Total(b))',
                          dpm_internal.domain_of('{a,b}', '{1000,1000}', array_fill('x'::text, ARRAY[2000]),
                          array_fill('NaN'::float8, ARRAY[2000]),
                          array_fill('NaN'::float8, ARRAY[2000])));
-- or when the products of blocks themselves would not fit (90,000 terms of one row and one cell:
-- a 0.7 MB matrix, 9 MB of terms)
SELECT array_length(matrix, 1)
FROM (SELECT '(' || string_agg('Total(a)', '+') || ') * (' || string_agg('Total(b)', '+') || ')' AS spec
        FROM generate_series(1, 300)) s,
     dpm_internal.workload_matrix(spec, dpm_internal.domain_of('{a,b}', '{1,1}', '{x,y}', '{NaN,NaN}', '{NaN,NaN}'));
-- and when the labels, not the matrix, are what does not fit (100 x 100 matrix: 80 kB; labels
-- of 10,000 characters: 1.6 MB)
SELECT array_length(matrix, 1)
FROM dpm_internal.workload_matrix('Identity(a)', dpm_internal.domain_of('{a}', '{100}', array_fill(repeat('x', 10000), ARRAY[100]),
                          array_fill('NaN'::float8, ARRAY[100]), array_fill('NaN'::float8, ARRAY[100])));
SET dpm.max_matrix_mb = 2;
SELECT array_length(matrix, 1), length(labels[100])
FROM dpm_internal.workload_matrix('Identity(a)', dpm_internal.domain_of('{a}', '{100}', array_fill(repeat('x', 10000), ARRAY[100]),
                          array_fill('NaN'::float8, ARRAY[100]), array_fill('NaN'::float8, ARRAY[100])));
RESET dpm.max_matrix_mb;

-- No analyst can block another (issue 41, item 6).  A spec is at most 2 MB, refused (54000)
-- before it is read; one just within is parsed, in linear time (bench/spec_parse.sql)
CREATE TEMP TABLE long_specs AS
SELECT repeat('Total(x) + ', 190000) || 'Total(x)' AS within,
       repeat('Total(x) + ', 190700) || 'Total(x)' AS over,
       -- a syntax error, found only once the whole spec is read
       repeat('Total(x) + ', 190000) || 'Total(x))' AS flat;
SELECT octet_length(within) AS within, octet_length(over) AS over FROM long_specs;
SELECT cardinality(dpm_internal.spec_term_rows(within, dpm_internal.domain_of('{x}', '{1}', '{a}', '{NaN}', '{NaN}')))
  FROM long_specs;
SELECT dpm_internal.spec_term_rows(over, dpm_internal.domain_of('{x}', '{1}', '{a}', '{NaN}', '{NaN}')) FROM long_specs;
-- and a long one can be cancelled (statement_timeout takes the same path): the backend cancels
-- itself, in the same expression as the parse, with no check for interrupts in between.  The
-- parse stops at its first check, before the syntax error at the end of the spec, which a parse
-- that never checked would report
SELECT CASE WHEN pg_cancel_backend(pg_backend_pid())
            THEN dpm_internal.spec_term_rows(flat, dpm_internal.domain_of('{x}', '{1}', '{a}', '{NaN}', '{NaN}')) END
  FROM long_specs;
DROP TABLE long_specs;

DROP FUNCTION w1, w2, w3, wgap, bits, sqlstate_of;
