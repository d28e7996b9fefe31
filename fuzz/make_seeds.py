#!/usr/bin/env python3
"""make_seeds.py -- write the seed inputs of corpus/spec, corpus/matrix and
corpus/domain and the byte patterns of matrix.dict.  The input layouts are
described at the top of fuzz_spec.c, fuzz_matrix.c and fuzz_domain.c; run this
after changing them."""
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))


def attr(kind, size, name=0, x=0, w=0, label=0):
    return bytes([(kind << 4) | (size - 1), name, x & 0xFF, w, label])


def header(nattrs, attrs, flags=0):
    attrs = list(attrs) + [attr(0, 1)] * (3 - len(attrs))
    return bytes([(nattrs - 1) | flags]) + b"".join(attrs)


# age: 16 bins [0,10) .. [150,160) labelled "[0,10)"...; sex: F, M; region: north, south, a:b, x y
AGE = attr(0, 16, w=9)
SEX = attr(12, 2, label=0x80)
REGION = attr(13, 4, label=0x82)
STD = header(3, [AGE, SEX, REGION])

spec_seeds = {
    "allrange_identity": (STD, "AllRange(age) * Identity(sex) + Total(age)"),
    "ranges_bounds": (STD, "Ranges(age, [0,30), [10,20))"),
    "ranges_labels": (STD, "Ranges(sex, 'F':'M')"),
    "hierarchical": (STD, "Hierarchical(age, 3) * Total(sex)"),
    "marginal": (STD, "Marginal(age, sex) + Identity(region)"),
    "distribute": (STD, "(Identity(age) + Total(age)) * (Prefix(sex) + AllRange(sex))"),
    "interval_labels": (STD, "Ranges(age, '[0,10)':'[20,30)')"),
    "union_product": (STD, "Total(age) + Total(sex) * Identity(region)"),
    "label_list": (STD, "Ranges(region, 'north', 'x y':'x y') * Prefix(age)"),
    "open_ends": (header(1, [attr(2, 6, w=9)]), "Ranges(age, [-inf, 10), [10, +infinity))"),
    "quoted_names": (header(2, [attr(0, 4, name=0x88, w=4), attr(12, 3, name=0x89, label=0x83)]),
                     'Identity("x y") * AllRange("q""t")'),
    "decimal_steps": (header(1, [attr(3, 8, x=0, w=2)]), "Ranges(age, [0.3, 0.6), [0, .2))"),
    "branching": (STD, "Hierarchical(region, 4) + HIERARCHICAL(age) + prefix(age)"),
    "gaps": (header(1, [attr(4, 5, x=-3, w=0)]), "Ranges(age, [-3,-2), [-1, 2))"),
    "random_bounds": (header(2, [attr(6, 7, x=5, w=7), attr(12, 2, label=0x80)]),
                      "Ranges(age, [-8, 8)) * Identity(sex)"),
    "nan_bin": (header(1, [attr(8, 4, w=0x42)]), "Ranges(age, '[0,3)':'[9,12)')"),
    "small_limit": (header(3, [AGE, SEX, REGION], flags=0x10), "AllRange(age) * AllRange(region)"),
}

os.makedirs(os.path.join(here, "corpus/spec"), exist_ok=True)
for name, (hdr, spec) in spec_seeds.items():
    assert len(hdr) == 16
    with open(os.path.join(here, "corpus/spec", name), "wb") as f:
        f.write(hdr + spec.encode())


def array(ndim, dims, values, vec=False, nulls=None, elem=0, lbsel=None):
    flags = ndim | (0x08 if vec else 0) | (0x10 if nulls is not None else 0) | (elem << 5)
    out = bytes([flags])
    for d, n in enumerate(dims):
        out += bytes([n, (lbsel or [0] * ndim)[d]])
    if nulls is not None:
        bits = 0
        for i, isnull in enumerate(nulls):
            bits |= isnull << i
        out += bits.to_bytes((len(nulls) + 7) // 8, "little")
    return out + b"".join(struct.pack("<d", v) for v in values)


matrix_seeds = {
    "empty": array(0, [], []),
    "m2x2": array(2, [2, 2], [1, 2, 3, 4]),
    "m1x4": array(2, [1, 4], [0.5, -1, 0, 1e100]),
    "v3": array(1, [3], [1, 2, 3], vec=True),
    "row": array(1, [3], [1, -0.0, 5e-324]),
    "null": array(2, [2, 2], [1, 2, 3, 4], nulls=[0, 0, 1, 0]),
    "bitmap_no_null": array(1, [9], list(range(9)), vec=True, nulls=[0] * 9),
    "nan": array(2, [1, 2], [1, float("nan")]),
    "inf": array(1, [2], [float("-inf"), 1], vec=True),
    "huge": array(1, [2], [1, 1.0000000000000002e100]),
    "cube": array(3, [1, 2, 2], [1, 2, 3, 4]),
    "lbounds": array(2, [2, 3], list(range(6)), lbsel=[4, 5]),
    "float4": array(2, [2, 1], [1, 2], elem=7),
}
os.makedirs(os.path.join(here, "corpus/matrix"), exist_ok=True)
for name, data in matrix_seeds.items():
    with open(os.path.join(here, "corpus/matrix", name), "wb") as f:
        f.write(data)

# matrix.dict: doubles at the edges of what array_values accepts
edges = [
    ("nan", float("nan")), ("inf", float("inf")), ("minus_inf", float("-inf")),
    ("max_abs", 1e100), ("minus_max_abs", -1e100), ("zero", 0.0), ("minus_zero", -0.0),
    ("one", 1.0), ("dbl_max", 1.7976931348623157e308), ("dbl_min", 2.2250738585072014e-308),
    ("denorm_min", 5e-324),
]
with open(os.path.join(here, "matrix.dict"), "w") as f:
    f.write("# IEEE doubles (little-endian) at the edges of what array_values accepts; "
            "written by make_seeds.py\n")
    for name, v in edges:
        f.write('%s="%s"\n' % (name, "".join("\\x%02x" % b for b in struct.pack("<d", v))))
    above = struct.unpack("<q", struct.pack("<d", 1e100))[0] + 1
    f.write('above_max_abs="%s"\n' % "".join("\\x%02x" % b for b in struct.pack("<q", above)))
    f.write('neg_nan="\\x00\\x00\\x00\\x00\\x00\\x00\\xf8\\xff"\n')
    f.write('snan="\\x01\\x00\\x00\\x00\\x00\\x00\\xf0\\x7f"\n')


# domain: a header byte (dpm.max_cells 1, 4, 100, 1000 by its low two bits), then one attribute
CELLS_1, CELLS_4, CELLS_100, CELLS_1000 = 0, 1, 2, 3
domain_seeds = {
    "values": (CELLS_100, '{"name": "sex", "values": ["F", "M", "o\'k", "back\\\\slash"]}'),
    "values_mixed": (CELLS_100, '{"name": "a", "column": "mood", "values": [1, 2.50, true, "x y"]}'),
    "width": (CELLS_100, '{"name": "age", "bins": {"min": 0, "max": 100, "width": 25}}'),
    "width_cut": (CELLS_100, '{"name": "age", "bins": {"width": 0.3, "min": -1, "max": 1.00}}'),
    "width_one": (CELLS_1, '{"name": "age", "bins": {"min": 5, "max": 6, "width": 7}}'),
    "width_limit": (CELLS_4, '{"name": "age", "bins": {"min": 0, "max": 4.0000000000000000000001, "width": 1}}'),
    "width_huge": (CELLS_1000, '{"name": "age", "bins": {"min": 0, "max": 1e400, "width": 1e398}}'),
    "width_tiny": (CELLS_1000, '{"name": "age", "bins": {"min": 1e-20, "max": 1e-19, "width": 3e-21}}'),
    "width_count": (CELLS_1000, '{"name": "age", "bins": {"min": 0, "max": 1e1000, "width": 7e-100}}'),
    "width_long": (CELLS_1000, '{"name": "age", "bins": {"min": 1, "max": 1.000000001, "width": 1e-12}}'),
    "dates_month": (CELLS_100, '{"name": "day", "bins": {"min": "2024-01-01", "max": "2025-01-01", "width": "1 month"}}'),
    "dates_week_tz": (CELLS_100, '{"name": "w", "column": "seen", "bins": {"min": "2024-02-26", "max": "2024-03-05", "width": "1 week"}}'),
    "dates_year_cut": (CELLS_100, '{"name": "y", "column": "ts", "bins": {"min": "0001-01-28", "max": "0004-03-01", "width": "1 year"}}'),
    "dates_bad": (CELLS_100, '{"name": "day", "bins": {"min": "2023-02-29", "max": 2024, "width": "1 fortnight"}}'),
    "expression": (CELLS_100, '{"name": "decade", "expression": "age / 10", "values": [1, 2, 3]}'),
    "expression_dates": (CELLS_100, '{"name": "m", "expression": "coalesce(day, ts)", "bins": {"min": "2024-01-01", "max": "2024-03-01", "width": "1 month"}}'),
    "intervals": (CELLS_100, '{"name": "age", "bins": [{"label": "young", "lo": 0, "hi": 18}, '
                             '{"lo": 18, "hi": 65}, {"label": "old", "lo": 65}, {"hi": -1}]}'),
    "conditions": (CELLS_100, '{"name": "area", "column": "region", "bins": [{"label": "north", '
                              '"condition": "region = \'north\'"}, {"label": null, "condition": "true"}]}'),
    "quoted_column": (CELLS_100, '{"name": "x", "column": "x y", "bins": [{"lo": 1.5e1, "hi": 1E+2}]}'),
    "keyword_column": (CELLS_100, '{"name": "s", "column": "select", "values": [1]}'),
    "duplicate_keys": (CELLS_100, '{"name": "a", "name": "age", "values": [1], "values": [2, 3]}'),
    "unknown_key": (CELLS_100, '{"name": "age", "colour": 1, "bins": []}'),
    "bad_name": (CELLS_100, '{"name": "1 a\'b\\\\", "values": [1]}'),
    "no_column": (CELLS_100, '{"name": "nope", "values": [1]}'),
    "empty_bin": (CELLS_100, '{"name": "age", "bins": [{"lo": 5.0, "hi": 5}]}'),
    "bin_types": (CELLS_100, '{"name": "age", "bins": [{"lo": "1"}, [1], null]}'),
    "not_object": (CELLS_100, '[{"name": "age"}, 1, "x", null, true]'),
    "decimals": (CELLS_100, '[123456789012345678901234567890e-7, 7.000000000000000000001e-3]'),
    "decimals_long": (CELLS_100, '[1e131071, 999999999999999999999999999999999999.999]'),
    "decimals_neg": (CELLS_100, '[-0.00, -12.5e-1]'),
}
os.makedirs(os.path.join(here, "corpus/domain"), exist_ok=True)
for name, (cells, text) in domain_seeds.items():
    with open(os.path.join(here, "corpus/domain", name), "wb") as f:
        f.write(bytes([cells]) + text.encode())
