#!/usr/bin/python3
"""Writes the value goldens of testdata/stablehlo: StableHLO modules of
constants, and their results computed by numpy/scipy (float64, rounded to the
element type) as NAME.expect for `hlo-run --expect`.

  /usr/bin/python3 testdata/stablehlo/gen_values.py
"""
import os
import numpy as np
import scipy.special as sp

HERE = os.path.dirname(os.path.abspath(__file__))
MLIR = {np.float32: "f32", np.float64: "f64", np.int32: "i32", np.uint32: "ui32", np.bool_: "i1",
        np.int64: "i64", np.complex64: "complex<f32>"}
HLO = {np.float32: "f32", np.float64: "f64", np.int32: "s32", np.uint32: "u32", np.bool_: "pred",
       np.int64: "s64", np.complex64: "c64"}


def tensor(a):
    return "tensor<" + "".join(f"{d}x" for d in a.shape) + MLIR[a.dtype.type] + ">"


def elems(a):
    if a.dtype == np.bool_:
        return "true" if a else "false"
    if a.dtype.kind == "c":
        return f"({elems(a.real)}, {elems(a.imag)})"
    if a.dtype.kind == "f":
        if np.isnan(a):
            return "nan"
        if np.isinf(a):
            return "inf" if a > 0 else "-inf"
        return repr(float(a)) if a.dtype == np.float64 else f"{float(a):.9g}"
    return str(int(a))


def nested(a, fmt):
    if a.ndim == 0:
        return fmt(a)
    return "{" + ", ".join(nested(x, fmt) for x in a) + "}"


def dense(a):
    def lst(x):
        if x.ndim == 0:
            v = elems(x)
            return {"nan": "0x7FC00000", "inf": "0x7F800000", "-inf": "0xFF800000"}.get(v, v)
        return "[" + ", ".join(lst(y) for y in x) + "]"
    return f"dense<{lst(a)}> : {tensor(a)}"


def literal(a):
    shape = HLO[a.dtype.type] + "[" + ",".join(str(d) for d in a.shape) + "]"
    return f"{shape} {nested(a, elems)}"


def write(name, comment, inputs, lines, results, rtol, atol):
    """inputs: {ssa: array}; lines: op lines using them; results: [(ssa, array)]."""
    body = [f"    %{k} = stablehlo.constant {dense(v)}" for k, v in inputs.items()] + lines
    ret = ", ".join(f"%{k}" for k, _ in results)
    types = ", ".join(tensor(v) for _, v in results)
    text = (f"// RUN: hlo-run %s --expect stablehlo/{name}.expect --rtol {rtol} --atol {atol}\n"
            + "".join(f"// {c}\n" for c in comment)
            + "// Expected values: testdata/stablehlo/gen_values.py (numpy/scipy).\n"
            + f"module @{name} {{\n  func.func public @main() -> ({types}) {{\n"
            + "\n".join(body) + f"\n    return {ret} : {types}\n  }}\n}}\n")
    open(os.path.join(HERE, name + ".hlo"), "w").write(text)
    exp = [literal(v) for _, v in results]
    open(os.path.join(HERE, name + ".expect"), "w").write(
        (exp[0] if len(exp) == 1 else "(" + ", ".join(exp) + ")") + "\n")
    open(os.path.join(HERE, name + ".out"), "w").write("")


def chlo_special():
    f = np.float32
    u = np.array([-0.95, -0.7, -0.3, -0.05, 0.0, 0.02, 0.25, 0.5, 0.8, 0.99], f)
    w = np.array([-7.5, -3.2, -0.6, 0.3, 1.0, 1.5, 2.0, 3.7, 9.25, 30.0], f)
    g = np.array([-4.5, -2.25, -0.5, 0.1, 0.5, 1.0, 2.5, 6.0, 11.5, 40.0], f)
    h = np.array([1.0, 1.01, 1.5, 2.0, 3.0, 10.0, 55.0, 1e3, 1e5, 1e20], f)
    x = u.astype(np.float64)
    ops = [
        ("asin", "u", np.arcsin(x)), ("acos", "u", np.arccos(x)), ("atan", "w", np.arctan(w.astype(float))),
        ("sinh", "w", np.sinh(w.astype(float))), ("cosh", "w", np.cosh(w.astype(float))),
        ("asinh", "w", np.arcsinh(w.astype(float))), ("acosh", "h", np.arccosh(h.astype(float))),
        ("atanh", "u", np.arctanh(x)), ("erf_inv", "u", sp.erfinv(x)),
        ("lgamma", "g", sp.gammaln(g.astype(float))), ("digamma", "g", sp.digamma(g.astype(float))),
        ("square", "w", w.astype(float) ** 2), ("erf", "w", sp.erf(w.astype(float))),
        ("tan", "u", np.tan(x)),
    ]
    lines = [f"    %{n} = chlo.{n} %{a} : tensor<10xf32> -> tensor<10xf32>" for n, a, _ in ops]
    results = [(n, r.astype(f)) for n, _, r in ops]
    inf = np.array([np.inf, -np.inf, 1.0, np.nan, -0.0, 3e38, -np.inf, 0.5, 7.0, np.inf], f)
    lines += ["    %is_inf = chlo.is_inf %inf : tensor<10xf32> -> tensor<10xi1>",
              "    %is_pos_inf = chlo.is_pos_inf %inf : tensor<10xf32> -> tensor<10xi1>",
              "    %is_neg_inf = chlo.is_neg_inf %inf : tensor<10xf32> -> tensor<10xi1>",
              "    %next = chlo.next_after %w, %g : tensor<10xf32>, tensor<10xf32> -> tensor<10xf32>"]
    results += [("is_inf", np.isinf(inf)), ("is_pos_inf", np.isposinf(inf)),
                ("is_neg_inf", np.isneginf(inf)), ("next", np.nextafter(w, g))]
    write("chlo_special",
          ["chlo's special functions, decomposed as XLA does (stablehlo/chlo.cc, chlo_math.cc)."],
          {"u": u, "w": w, "g": g, "h": h, "inf": inf}, lines, results, "2e-5", "2e-5")


def generic_forms():
    f = np.float32
    a = np.arange(6, dtype=f).reshape(2, 3) - 2.5
    b = np.array([[1.5, -2, 0.25, 4], [3, 0.5, -1, 2], [-0.75, 1, 2, -3]], f)
    v = np.array([3.0, -1.0], f)
    lines = [
        '    %dot = "stablehlo.dot_general"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>',
        '    %bc = "stablehlo.broadcast_in_dim"(%v) <{broadcast_dimensions = array<i64: 0>}> : (tensor<2xf32>) -> tensor<2x4xf32>',
        '    %sum = "stablehlo.add"(%dot, %bc) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>',
        '    %tr = "stablehlo.transpose"(%sum) <{permutation = array<i64: 1, 0>}> : (tensor<2x4xf32>) -> tensor<4x2xf32>',
        '    %zero = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>',
        '    %red = "stablehlo.reduce"(%tr, %zero) <{dimensions = array<i64: 0>}> ({',
        '    ^bb0(%x: tensor<f32>, %y: tensor<f32>):',
        '      %s = "stablehlo.add"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>',
        '      "stablehlo.return"(%s) : (tensor<f32>) -> ()',
        '    }) : (tensor<4x2xf32>, tensor<f32>) -> tensor<2xf32>',
        '    %sl = "stablehlo.slice"(%b) <{limit_indices = array<i64: 3, 4>, start_indices = array<i64: 0, 1>, strides = array<i64: 2, 2>}> : (tensor<3x4xf32>) -> tensor<2x2xf32>',
        '    %cmp = "stablehlo.compare"(%sl, %zerob) <{comparison_direction = #stablehlo<comparison_direction GT>, compare_type = #stablehlo<comparison_type FLOAT>}> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xi1>',
        '    %sel = "stablehlo.select"(%cmp, %sl, %zerob) : (tensor<2x2xi1>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>',
        '    %io = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<2x3xi32>',
        '    %cat = "stablehlo.concatenate"(%io, %io) <{dimension = 0 : i64}> : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<4x3xi32>',
    ]
    dot = a.astype(float) @ b.astype(float)
    s = dot + v[:, None]
    sl = b[0:3:2, 1:4:2]
    io = np.tile(np.arange(3, dtype=np.int32), (2, 1))
    write("generic_forms", ["MLIR's generic form: \"stablehlo.op\"(operands) <{properties}> ({regions}) : type."],
          {"a": a, "b": b, "v": v, "zerob": np.zeros((2, 2), f)}, lines,
          [("dot", dot.astype(f)), ("red", s.sum(axis=1).astype(f)), ("sel", np.maximum(sl, 0)),
           ("cat", np.concatenate([io, io]))], "1e-6", "1e-6")


def pretty_misc():
    f = np.float32
    x = np.array([[1.0, -2.5, 3.25], [0.5, 4.0, -1.0]], f)
    y = np.array([[2.0, 0.5, -1.5], [1.0, -3.0, 2.5]], f)
    i = np.array([1, 255, 0x80000000 - 1, -8, 7, 0], np.int32)
    lines = [
        "    %dot = stablehlo.dot %x, %yt, precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>",
        "    %pad = stablehlo.pad %x, %c0, low = [1, 0], high = [0, -1], interior = [1, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x4xf32>",
        "    %at2 = stablehlo.atan2 %x, %y : tensor<2x3xf32>",
        "    %pw = stablehlo.power %y, %two : tensor<2x3xf32>",
        "    %cb = stablehlo.cbrt %x : tensor<2x3xf32>",
        "    %clamp = stablehlo.clamp %cm, %x, %cp : (tensor<f32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>",
        "    %afz = stablehlo.round_nearest_afz %y : tensor<2x3xf32>",
        "    %lg = stablehlo.logistic %x : tensor<2x3xf32>",
        "    %pc = stablehlo.popcnt %i : tensor<6xi32>",
        "    %clz = stablehlo.count_leading_zeros %i : tensor<6xi32>",
        "    %sra = stablehlo.shift_right_arithmetic %i, %three : tensor<6xi32>",
        "    %not = stablehlo.not %i : tensor<6xi32>",
        "    %cx = stablehlo.complex %x, %y : tensor<2x3xcomplex<f32>>",
        "    %im = stablehlo.imag %cx : (tensor<2x3xcomplex<f32>>) -> tensor<2x3xf32>",
        "    %rev = stablehlo.reverse %x, dims = [1] : tensor<2x3xf32>",
        "    %ds = stablehlo.dynamic_slice %x, %one_i, %one_i, sizes = [1, 2] : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>",
    ]
    two = np.full((2, 3), 2, f)
    three = np.full((6,), 3, np.int32)
    popc = np.array([bin(int(v) & 0xFFFFFFFF).count("1") for v in i], np.int32)
    clz = np.array([32 - (int(v) & 0xFFFFFFFF).bit_length() for v in i], np.int32)
    pad = np.zeros((4, 4), f)
    full = np.zeros((4, 5), f)
    full[1::2, 0::2] = x
    pad = full[:, :4]
    afz = np.where(y >= 0, np.floor(y.astype(float) + 0.5), -np.floor(-y.astype(float) + 0.5)).astype(f)
    write("pretty_misc", ["Pretty forms of ops JAX's shared cases do not use."],
          {"x": x, "y": y, "yt": y.T.copy(), "i": i, "c0": np.array(0, f), "two": two,
           "three": three, "cm": np.array(-1, f), "cp": np.array(2, f),
           "one_i": np.array(1, np.int32)},
          lines,
          [("dot", (x.astype(float) @ y.T.astype(float)).astype(f)), ("pad", pad),
           ("at2", np.arctan2(x, y)), ("pw", (y.astype(float) ** 2).astype(f)),
           ("cb", np.cbrt(x.astype(float)).astype(f)), ("clamp", np.clip(x, -1, 2)),
           ("afz", afz), ("lg", (1 / (1 + np.exp(-x.astype(float)))).astype(f)),
           ("pc", popc), ("clz", clz), ("sra", i >> 3), ("not", ~i), ("im", y),
           ("rev", x[:, ::-1].copy()), ("ds", x[1:2, 1:3].copy())],
          "1e-6", "1e-6")


def misc_ops():
    f = np.float32
    x = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], f)
    scale = np.array([2.0, 0.5, -1.0], f)
    offset = np.array([0.1, 0.2, 0.3], f)
    mean = np.array([0.5, 1.0, -0.5], f)
    var = np.array([4.0, 0.25, 1.0], f)
    a = np.array([[2.0, 0, 0], [1.0, 4.0, 0], [-1.0, 0.5, 8.0]], f)
    b = np.array([[2.0, 4.0], [3.0, -1.0], [1.0, 2.0]], f)
    lines = [
        '    %bn = "stablehlo.batch_norm_inference"(%x, %scale, %offset, %mean, %var) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>',
        '    %ts = "stablehlo.triangular_solve"(%a, %b) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>',
        '    %gd = stablehlo.get_dimension_size %x, dim = 1 : (tensor<2x3xf32>) -> tensor<i32>',
    ]
    bn = (x - mean) / np.sqrt(var + np.float32(1e-3)) * scale + offset
    ts = np.linalg.solve(a.astype(float), b.astype(float))
    write("misc_ops", ["batch_norm_inference, triangular_solve (generic forms), get_dimension_size."],
          {"x": x, "scale": scale, "offset": offset, "mean": mean, "var": var, "a": a, "b": b},
          lines, [("bn", bn.astype(f)), ("ts", ts.astype(f)), ("gd", np.array(3, np.int32))],
          "1e-6", "1e-6")


def dense_forms():
    """dense<...> as MLIR writes it: hex bytes (little-endian) of every width,
    a hex splat, a bare hex float, nested lists, a splat, complex pairs."""
    f32 = np.array([[1.5, -0.0], [np.inf, 3.25e-3]], np.float32)
    f64 = np.array([1.0 / 3, -2.5e300], np.float64)
    f16 = np.array([0.5, -65504.0, 6.1035156e-05], np.float16)
    bf = np.array([1.0, -3.0, 0.15625], np.float32)  # exact in bf16
    bf_bits = (bf.view(np.uint32) >> 16).astype(np.uint16)
    i8 = np.array([-128, 5, 127], np.int8)
    u16 = np.array([0, 40000, 65535], np.uint16)
    i1 = np.array([True, False, True, True])
    i64 = np.array([-(2 ** 62), 7], np.int64)
    c64 = np.array([1.5 - 2j, 0.25 + 4j], np.complex64)
    hx = lambda a: '"0x' + a.tobytes().hex().upper() + '"'
    lines = [
        f'    %f32 = stablehlo.constant dense<{hx(f32)}> : tensor<2x2xf32>',
        f'    %f64 = stablehlo.constant dense<{hx(f64)}> : tensor<2xf64>',
        f'    %f16 = stablehlo.constant dense<{hx(f16)}> : tensor<3xf16>',
        f'    %bf16 = stablehlo.constant dense<{hx(bf_bits)}> : tensor<3xbf16>',
        f'    %i8 = stablehlo.constant dense<{hx(i8)}> : tensor<3xi8>',
        f'    %u16 = stablehlo.constant dense<{hx(u16)}> : tensor<3xui16>',
        f'    %i1 = stablehlo.constant dense<{hx(i1.astype(np.uint8))}> : tensor<4xi1>',
        f'    %i64 = stablehlo.constant dense<{hx(i64)}> : tensor<2xi64>',
        f'    %c64 = stablehlo.constant dense<{hx(c64)}> : tensor<2xcomplex<f32>>',
        '    %splat_hex = stablehlo.constant dense<"0x0000C03F"> : tensor<2x3xf32>',
        '    %neg_inf = stablehlo.constant dense<0xFF800000> : tensor<f32>',
        '    %nested = stablehlo.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>',
        '    %splat = stablehlo.constant dense<2.500000e-01> : tensor<3xbf16>',
        '    %pairs = stablehlo.constant dense<[(1.000000e+00,-2.000000e+00), (0.000000e+00,5.000000e-01)]> : tensor<2xcomplex<f32>>',
        '    %bools = stablehlo.constant dense<[true, false]> : tensor<2xi1>',
    ]
    results = [("f32", f32), ("f64", f64), ("f16", f16.astype(np.float32)), ("bf16", bf),
               ("i8", i8.astype(np.int32)), ("u16", u16.astype(np.uint32)), ("i1", i1),
               ("i64", i64), ("c64", c64), ("splat_hex", np.full((2, 3), 1.5, np.float32)),
               ("neg_inf", np.array(-np.inf, np.float32)),
               ("nested", np.array([[1, -2], [3, 4]], np.int32)),
               ("splat", np.full(3, 0.25, np.float32)),
               ("pairs", np.array([1 - 2j, 0.5j], np.complex64)), ("bools", np.array([True, False]))]
    # Narrow types compare through converts to f32/s32/u32 (the expect file's types).
    conv = {"f16": ("tensor<3xf16>", "tensor<3xf32>"), "bf16": ("tensor<3xbf16>", "tensor<3xf32>"),
            "i8": ("tensor<3xi8>", "tensor<3xi32>"), "u16": ("tensor<3xui16>", "tensor<3xui32>"),
            "splat": ("tensor<3xbf16>", "tensor<3xf32>")}
    names = []
    for n, _ in results:
        if n in conv:
            lines.append(f"    %{n}_w = stablehlo.convert %{n} : ({conv[n][0]}) -> {conv[n][1]}")
            names.append(n + "_w")
        else:
            names.append(n)
    results = [(m, v) for m, (_, v) in zip(names, results)]
    write("dense_forms", ["dense<...> constants: hex bytes of every width (f32, f64, f16, bf16, i8,",
                          "ui16, i1, i64, complex<f32>), a hex splat, a bare hex float, nested lists,",
                          "a splat, complex pairs, booleans."],
          {}, lines, results, "0", "0")


if __name__ == "__main__":
    dense_forms()
    misc_ops()
    chlo_special()
    generic_forms()
    pretty_misc()
