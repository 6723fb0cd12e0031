# Expected values of the unary elementwise, transcendental and conversion
# modules of testdata/eval (see eval.py).
# Run inside core.py's namespace (eval.py executes every
# scripts/goldens/eval_*.py), so `golden`, `L`, `tup`, `wrap` and the
# other helpers and semantics functions there are its own.

# ---- unary elementwise ---------------------------------------------------------

def iabs(t, x):
    return wrap(t, abs(x))


@golden("unary_abs_int")
def _(c):
    return [ew(l.t, lambda x, t=l.t: iabs(t, x), l) for l in (c.a8, c.a16, c.a32, c.a64, c.a4, c.a2)]


@golden("unary_abs_float")
def _(c):
    # IEEE abs clears the sign bit, NaN included.
    return [ew(l.t, lambda x: abs(x) if not isnan(x) else abs(float(x)), l)
            for l in (c.x32, c.x64, c.x16, c.xbf)]

@golden("unary_abs_complex")
def _(c):
    # |z| = hypot(re, im), correctly rounded here (computed in double / long math.hypot)
    r64 = ew("f32", lambda z: np.float32(math.hypot(float(z.real), float(z.imag))), c.z64)
    r128 = ew("f64", lambda z: math.hypot(z.real, z.imag), c.z128)
    return tup(r64, r128)


@golden("unary_negate_int")
def _(c):
    ls = [c.s8v, c.s32v, c.s64v, c.u8v, c.u32v, c.u64v, c.s4v, c.u2v, c.s16v, c.u4v]
    return [ew(l.t, lambda x, t=l.t: wrap(t, -x), l) for l in ls]


@golden("unary_negate_float")
def _(c):
    def neg(x):
        return -x
    return [ew(l.t, neg, l) for l in (c.x32, c.x64, c.xbf, c.x16, c.z)]


@golden("unary_sign")
def _(c):
    ints = [ew(l.t, lambda x: (x > 0) - (x < 0), l) for l in (c.i32, c.i8, c.i4)]
    floats = [ew(l.t, fsign, l) for l in (c.x32, c.x64, c.xbf)]

    def csign(z):
        if z == 0:
            return complex(0, 0)
        m = np.float32(math.hypot(float(z.real), float(z.imag)))
        return complex(np.float32(z.real) / m, np.float32(z.imag) / m)
    return ints + floats + [ew("c64", csign, c.z)]


@golden("unary_not")
def _(c):
    out = [ew("pred", lambda x: not x, c.p)]
    for l in (c.a, c.b, c.c, c.d, c.e, c.f, c.g):
        out.append(ew(l.t, lambda x, t=l.t: wrap(t, ~x), l))
    return out

@golden("unary_floor_ceil")
def _(c):
    out = []
    for l in (c.x32, c.x64, c.xbf, c.x16):
        out += [fl(np.floor)(l), fl(np.ceil)(l)]  # numpy keeps -0 and inf
    return out


@golden("unary_round_nearest_afz")
def _(c):
    return [ew(l.t, lambda x, t=l.t: to_float(t, round_afz(x)), l) for l in (c.x32, c.x64, c.xbf, c.x16)]


@golden("unary_round_nearest_even")
def _(c):
    return [ew(l.t, lambda x, t=l.t: to_float(t, round_even(x)), l) for l in (c.x32, c.x64, c.xbf, c.x16)]


@golden("unary_is_finite")
def _(c):
    return [ew("pred", lambda x: math.isfinite(float(x)), l) for l in (c.x32, c.x64, c.x16, c.xbf, c.e4, c.e5)]


@golden("unary_popcnt")
def _(c):
    return [ew(l.t, lambda x, t=l.t: popcnt(t, x), l) for l in (c.a, c.b, c.c, c.d, c.e, c.f, c.g, c.h, c.i, c.u)]


@golden("unary_count_leading_zeros")
def _(c):
    return [ew(l.t, lambda x, t=l.t: clz(t, x), l) for l in (c.a, c.b, c.c, c.d, c.e, c.f, c.g, c.h, c.i, c.u)]


@golden("unary_real_imag")
def _(c):
    return tup(ew("f32", lambda z: z.real, c.z), ew("f32", lambda z: z.imag, c.z),
               ew("f64", lambda z: z.real, c.w), ew("f64", lambda z: z.imag, c.w),
               c.x, ew("f32", lambda x: 0.0, c.x))


@golden("unary_sqrt")
def _(c):
    return [fl(np.sqrt)(l) for l in (c.x32, c.x64, c.xbf, c.x16)]

@golden("unary_nan_propagation")
def _(c):
    # every op of NaN is NaN; domain errors: sqrt/log/acos/asin/acosh/atanh/log1p
    # outside their domain and sin/cos/tan of infinities.
    d = [float(x) for x in elements(c.d)]  # -1, -inf, inf, 2, -2, -0.5
    dom = {
        "sqrt": lambda x: x < 0, "log": lambda x: x < 0,
        "sin": math.isinf, "cos": math.isinf, "tan": math.isinf,
        "acos": lambda x: abs(x) > 1, "asin": lambda x: abs(x) > 1,
        "acosh": lambda x: x < 1, "atanh": lambda x: abs(x) > 1,
        "log1p": lambda x: x < -1,
    }
    dnan = [dom[k](x) for k in ("sqrt", "log", "sin", "cos", "tan", "acos", "asin",
                                "acosh", "atanh", "log1p") for x in d]
    return tup(L("pred", [True] * 56), L("pred", dnan))


@golden("unary_special_values")
def _(c):
    ex = ew("f32", lambda x: np.float32(np.exp(np.float64(x))), c.e)
    em = ew("f32", lambda x: np.float32(np.expm1(np.float64(x))), c.e)
    lg = ew("f32", lambda x: np.float32(np.log(np.float64(x))), c.l)
    l1 = ew("f32", lambda x: np.float32(np.log1p(np.float64(x))), c.p)
    lo = ew("f32", lambda x: np.float32(1 / (1 + np.exp(-np.float64(x)))), c.g)
    sn = ew("f32", lambda x: np.float32(np.sin(np.float64(x))), c.z)
    tn = ew("f32", lambda x: np.float32(np.tan(np.float64(x))), c.z)
    cs = ew("f32", lambda x: np.float32(np.cos(np.float64(x))), c.z)
    th = ew("f32", lambda x: np.float32(np.tanh(np.float64(x))), c.h)
    ath = ew("f32", lambda x: np.float32(np.arctanh(np.float64(x))), c.a)
    ash = ew("f32", lambda x: np.float32(np.arcsinh(np.float64(x))), c.s)
    ach = ew("f32", lambda x: np.float32(np.arccosh(np.float64(x))), c.q)
    sh = ew("f32", lambda x: np.float32(np.sinh(np.float64(x))), c.s)
    ch = ew("f32", lambda x: np.float32(np.cosh(np.float64(x))), c.s)
    rs = ew("f32", lambda x: np.float32(np.float64(1) / np.sqrt(np.float64(x))), c.r)
    cb = ew("f32", lambda x: np.float32(np.cbrt(np.float64(x))), c.k)
    er = ew("f32", lambda x: np.float32(math.erf(float(x))), c.f)
    at = ew("f32", lambda x: np.float32(np.arctan(np.float64(x))), c.z)
    as_ = ew("f32", lambda x: np.float32(np.arcsin(np.float64(x))), c.z)
    ac = ew("f32", lambda x: np.float32(np.arccos(np.float64(x))), c.one)
    return tup(ex, em, lg, l1, lo, sn, tn, cs, th, ath, ash, ach, sh, ch, rs, cb, er, at, as_, ac)

# ---- transcendental functions (tolerance modules) -------------------------------

def logistic64(x):
    return 1.0 / (1.0 + math.exp(-x)) if x > -700 else math.exp(x)


D = {
    "exp": np.exp, "expm1": np.expm1, "log": np.log, "log1p": np.log1p,
    "logistic": logistic64, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "acos": np.arccos, "asin": np.arcsin, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
    "rsqrt": lambda x: 1.0 / np.sqrt(np.float64(x)), "cbrt": np.cbrt, "erf": math.erf,
    "sqrt": np.sqrt,
}


def ctr(fn):
    """Complex transcendental in complex128, parts rounded to the type."""
    def go(lit):
        def one(z):
            r = complex(fn(np.complex128(z)))
            if lit.t == "c64":
                return complex(np.float32(r.real), np.float32(r.imag))
            return r
        return ew(lit.t, one, lit)
    return go


@golden("transcendental_exp_log_f32", tol=(1e-6, 0))
def _(c):
    return tup(tr(D["exp"])(c.x), tr(D["expm1"])(c.x), tr(D["logistic"])(c.x),
               tr(D["log"])(c.p), tr(D["log1p"])(c.q))


@golden("transcendental_exp_log_f64", tol=(1e-13, 0))
def _(c):
    return tup(tr(D["exp"])(c.x), tr(D["expm1"])(c.x), tr(D["logistic"])(c.x),
               tr(D["log"])(c.p), tr(D["log1p"])(c.q))


@golden("transcendental_trig_f32", tol=(1e-6, 1e-7))
def _(c):
    return tup(tr(D["sin"])(c.x), tr(D["cos"])(c.x), tr(D["tan"])(c.x))


@golden("transcendental_trig_f64", tol=(1e-13, 1e-16))
def _(c):
    return tup(tr(D["sin"])(c.x), tr(D["cos"])(c.x), tr(D["tan"])(c.x))


@golden("transcendental_inverse_trig_f32", tol=(1e-6, 0))
def _(c):
    return tup(tr(D["acos"])(c.x), tr(D["asin"])(c.x), tr(D["atan"])(c.x), tr(D["atan"])(c.y))


@golden("transcendental_inverse_trig_f64", tol=(1e-13, 0))
def _(c):
    return tup(tr(D["acos"])(c.x), tr(D["asin"])(c.x), tr(D["atan"])(c.x), tr(D["atan"])(c.y))


@golden("transcendental_hyperbolic_f32", tol=(1e-6, 0))
def _(c):
    return tup(tr(D["sinh"])(c.x), tr(D["cosh"])(c.x), tr(D["tanh"])(c.x), tr(D["asinh"])(c.x),
               tr(D["acosh"])(c.g), tr(D["atanh"])(c.h))


@golden("transcendental_hyperbolic_f64", tol=(1e-13, 0))
def _(c):
    return tup(tr(D["sinh"])(c.x), tr(D["cosh"])(c.x), tr(D["tanh"])(c.x), tr(D["asinh"])(c.x),
               tr(D["acosh"])(c.g), tr(D["atanh"])(c.h))


@golden("transcendental_roots", tol=(1e-6, 0))
def _(c):
    return tup(tr(D["rsqrt"])(c.x), tr(D["cbrt"])(c.y))


@golden("transcendental_roots_f64", tol=(1e-13, 0))
def _(c):
    return tup(tr(D["rsqrt"])(c.x), tr(D["cbrt"])(c.y))


@golden("transcendental_erf", tol=(1e-6, 0))
def _(c):
    return tup(tr(D["erf"])(c.x))


@golden("transcendental_erf_f64", tol=(1e-13, 0))
def _(c):
    return tr(D["erf"])(c.x)


@golden("transcendental_bf16", tol=(0.01, 0))
def _(c):
    return tup(tr(D["exp"])(c.x), tr(D["sin"])(c.x), tr(D["tanh"])(c.x), tr(D["logistic"])(c.x),
               tr(D["erf"])(c.x), tr(D["log"])(c.p), tr(D["rsqrt"])(c.p))


@golden("transcendental_f16", tol=(0.002, 0))
def _(c):
    return tup(tr(D["exp"])(c.x), tr(D["cos"])(c.x), tr(D["tanh"])(c.x), tr(D["expm1"])(c.x),
               tr(D["atan"])(c.x), tr(D["log"])(c.p), tr(D["log1p"])(c.p))


@golden("transcendental_complex_c64")
def _(c):
    # Exact: hlo-run evaluates c64 in complex128 and rounds once, as here.
    return tup(*[ctr(f)(c.z) for f in (
        np.exp, np.log, np.sqrt, np.sin, np.cos, np.tan, np.tanh, np.expm1, np.log1p,
        lambda z: 1 / np.sqrt(z), lambda z: 1 / (1 + np.exp(-z)), np.arctan, np.arcsinh,
        np.arccosh, np.arctanh, lambda z: z ** (1 / 3))])


@golden("transcendental_complex_c128", tol=(1e-12, 1e-15))
def _(c):
    return tup(*[ctr(f)(c.z) for f in (np.exp, np.log, np.sqrt, lambda z: 1 / np.sqrt(z), np.tan)])


@golden("binary_atan2_f32", tol=(1e-6, 0))
def _(c):
    return tup(tr(math.atan2)(c.y, c.x))


@golden("binary_atan2_f64", tol=(1e-13, 0))
def _(c):
    return tr(math.atan2)(c.y, c.x)


@golden("binary_power_f32", tol=(1e-6, 0))
def _(c):
    return tup(tr(lambda x, y: np.power(np.float64(x), np.float64(y)))(c.x, c.y))


@golden("binary_power_f64", tol=(1e-13, 0))
def _(c):
    return tr(lambda x, y: np.power(np.float64(x), np.float64(y)))(c.x, c.y)

# ---- convert ---------------------------------------------------------------------

@golden("convert_float_to_int")
def _(c):
    return [cvt(t, c.x) for t in ("s8", "u8", "s16", "s32", "u32", "s64", "u64", "s4", "u2")]


@golden("convert_f64_to_int_limits")
def _(c):
    return tup(cvt("s64", c.x), cvt("u64", c.x), cvt("s32", c.x), cvt("s32", c.y), cvt("u32", c.y))


@golden("convert_int_to_int")
def _(c):
    return tup(*[cvt(t, c.x) for t in ("s8", "u8", "s4", "u4", "s2", "u2")],
               cvt("s32", c.u), cvt("u64", c.n), cvt("s64", c.n), cvt("s8", c.w),
               cvt("s32", c.l), cvt("u16", c.n), cvt("u8", c.q), cvt("s16", c.q))


@golden("convert_int_to_float")
def _(c):
    return tup(cvt("f32", c.a), cvt("f32", c.b), cvt("f64", c.b), cvt("f32", c.c), cvt("f64", c.c),
               cvt("bf16", c.d), cvt("f16", c.d), cvt("f8e4m3fn", c.e), cvt("f8e5m2", c.e),
               cvt("f32", c.p), cvt("f32", c.v))

@golden("convert_f32_to_bf16")
def _(c):
    bn = cvt("bf16", c.n)
    return tup(cvt("bf16", c.x), compare("NE", bn, bn))


@golden("convert_f32_to_f16")
def _(c):
    return tup(cvt("f16", c.x))


@golden("convert_f64_to_f32")
def _(c):
    return tup(cvt("f32", c.x), cvt("bf16", c.y), cvt("f16", c.y))


@golden("convert_float_widen")
def _(c):
    return tup(cvt("f32", c.b), cvt("f32", c.h), cvt("f64", c.x), cvt("f32", c.e), cvt("f64", c.g),
               cvt("f16", c.b), cvt("bf16", c.h))


@golden("convert_to_f8")
def _(c):
    parts = []
    for t in ("f8e4m3fn", "f8e5m2", "f8e4m3", "f8e3m4", "f8e4m3fnuz", "f8e5m2fnuz", "f8e4m3b11fnuz"):
        parts += elements(cvt("f32", cvt(t, c.x)))
    return tup(canon(L("f32", parts)), cvt("f4e2m1fn", c.y))


@golden("convert_f6")
def _(c):
    a, b = cvt("f6e2m3fn", c.x), cvt("f6e3m2fn", c.x)
    return tup(cvt("f32", a), cvt("f32", b), a, b)


@golden("convert_f8e8m0fnu")
def _(c):
    e = cvt("f8e8m0fnu", c.x)
    return tup(e, cvt("f32", e))


@golden("convert_pred_complex")
def _(c):
    return tup(cvt("s32", c.p), cvt("f32", c.p), cvt("u8", c.p), cvt("pred", c.i), cvt("pred", c.f),
               cvt("pred", c.u), cvt("f32", c.z), cvt("c128", c.z), cvt("c64", c.w), cvt("c64", c.r),
               cvt("c128", c.i), cvt("s32", c.z))


@golden("convert_small_float_to_int")
def _(c):
    return tup(cvt("s32", c.b), cvt("u8", c.b), cvt("s8", c.h), cvt("u16", c.h), cvt("s16", c.e),
               cvt("u4", c.e))

# ---- stochastic-convert, bitcast-convert, reduce-precision -------------------------

@golden("stochastic_convert")
def _(c):
    return tup(stochastic_convert("s32", c.x, c.r), stochastic_convert("s8", c.y, c.q))


@golden("stochastic_convert_narrow")
def _(c):
    return tup(stochastic_convert("s16", c.b, c.rb), stochastic_convert("s16", c.h, c.rh),
               stochastic_convert("s64", c.d, c.rd), stochastic_convert("u8", c.b, c.rb))


@golden("bitcast_convert_same_width")
def _(c):
    bc = lambda t, l: bitcast_convert(t, l.dims, l)
    return tup(bc("u32", c.f), bc("s32", c.f), bc("f32", c.u), bc("s64", c.d), bc("u16", c.h),
               bc("s16", c.b), bc("bf16", c.h), bc("u8", c.e), bc("f8e5m2", c.g), bc("s8", c.g),
               bc("u4", c.s4v), bc("s2", c.u2v))


@golden("bitcast_convert_widths")
def _(c):
    return tup(bitcast_convert("u16", (2, 2), c.f), bitcast_convert("f32", (2,), c.b),
               bitcast_convert("s32", (2,), c.d), bitcast_convert("f64", (3,), c.s),
               bitcast_convert("f32", (2,), c.bb), bitcast_convert("u8", (1, 8), c.q),
               bitcast_convert("s64", (2,), c.h))


@golden("reduce_precision")
def _(c):
    nb = reduce_precision(c.n, 8, 7)
    return tup(reduce_precision(c.x, 8, 7), reduce_precision(c.x, 5, 10), compare("NE", nb, nb))


@golden("reduce_precision_f64")
def _(c):
    return tup(reduce_precision(c.x, 8, 23), reduce_precision(c.x, 4, 3), reduce_precision(c.x, 11, 52),
               reduce_precision(c.y, 8, 0), reduce_precision(c.y, 10, 1))
