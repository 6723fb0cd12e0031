# Expected values of testdata/eval/denormals_{flush,keep}.hlo (see
# eval.py; run inside core.py's namespace).
#
# --denormals=flush restates XLA:CPU, which runs with MXCSR's FTZ and DAZ
# bits: an SSE arithmetic instruction reads a denormal f32/f64 operand as a
# zero of the same sign (DAZ) and writes a zero of the same sign instead of
# a denormal result (FTZ); bit operations (negate, abs, select,
# bitcast-convert) and XLA's integer conversions to and from bf16 keep the
# bits. bf16 is computed in f32, so its denormals are f32 denormals; f16's
# are normal f32 numbers and stay. XLA's own results back this: in
# ../shared/xla-jax/cases/float_edges, sign(1e-40) = 0, minimum(1e-40, 1) =
# 0, remainder(1e-40, 2) = 0 and f32(bf16(1e-40)) = 9.18e-41.

SMALLEST_NORMAL = {"f32": 2.0 ** -126, "bf16": 2.0 ** -126, "f64": 2.0 ** -1022}


def ftz(lit):
    """Denormal f32/f64/bf16 elements become zeros of the same sign."""
    t = lit.t
    if t not in SMALLEST_NORMAL:
        return lit

    def one(v):
        f = float(v)
        if f != 0 and not math.isnan(f) and abs(f) < SMALLEST_NORMAL[t]:
            return math.copysign(0.0, f)
        return v
    return ew(t, one, lit)


def denormal_module(c, flush):
    z = ftz if flush else (lambda lit: lit)

    def arith(fn, *lits):  # an arithmetic op: operands and result flushed
        return z(fn(*[z(l) for l in lits]))

    x = c.x
    out = [
        arith(lambda a: ew("f32", fsign, a), x),
        arith(lambda a, b: ew("f32", fmin, a, b), x, c.one),
        arith(fl(math.fmod), x, c.two),
        arith(fl(lambda a, b: a + b), x, x),
        arith(fl(lambda a, b: a * b), c.y, c.y),
        arith(lambda a: ew("f32", lambda v: np.sqrt(np.float32(v)), a), ew("f32", abs, x)),
        ew("f32", lambda a: -a, x),
        ew("f32", lambda a: abs(a), x),
        compare("EQ", z(x), z(c.zero)),
        cvt("f32", cvt("bf16", x)),
        arith(lambda a: cvt("f64", a), x),
        bitcast_convert("s32", x.dims, x),
        ew("f32", lambda p, a, b: a if p else b, c.p, x, c.one),
        fl(lambda a, b: a * b)(c.h, c.h1),
        arith(fl(lambda a, b: a + b), c.b, c.bz),
        arith(fl(lambda a, b: a + b), c.d, c.dz),
    ]
    r = z(c.r)
    out.append(z(Lit("f32", np.float32(np.float32(0) + r.a[0] + r.a[1]))))
    return tup(*out)


@golden("denormals_flush")
def _(c):
    return denormal_module(c, True)


@golden("denormals_keep")
def _(c):
    return denormal_module(c, False)


@golden("exp_flush", tol=(2e-7, 0))
def _(c):
    def exp_f32(lit):  # e^x in float64, rounded once to f32
        return ew("f32", lambda v: np.float32(np.exp(np.float64(v))), lit)

    def checked(lit):  # flushed, and no result near the smallest normal
        for v in lit.a.flat:
            assert not 0.9 * SMALLEST_NORMAL["f32"] < abs(float(v)) < 1.1 * SMALLEST_NORMAL["f32"]
        return ftz(lit)

    x = ftz(c.x)
    ones = Lit("f32", np.ones(x.a.shape, np.float32))
    row_max = ftz(Lit("f32", np.maximum(x.a.max(axis=1), np.float32(0))))
    shifted = ftz(Lit("f32", (x.a - row_max.a[:, None]).astype(np.float32)))
    out = (checked(exp_f32(x)), checked(exp_f32(ftz(fl(lambda a, b: a * b)(x, ones)))),
           checked(exp_f32(shifted)))
    assert all((o.a == 0).any() for o in out)  # the flush is exercised
    return tup(*out)
