# Expected values and inputs of testdata/eval/fused_elementwise.hlo, the
# module whose elementwise chain hlo-run's executor fuses into one loop
# (eval/fusion/fusion_plan.cc). Every op is one IEEE-754 float32 operation in numpy
# (multiply, add, subtract, compare, select, maximum, divide), so the
# expected values are exact; the row vector's magnitudes lie in [0.5, 2), so
# the quotient stays finite.
# Run inside core.py's namespace (see eval.py's loop over
# scripts/goldens/eval_*.py).

_FUSION_SEED = 20261126


def _fusion_inputs():
    rng = np.random.default_rng(_FUSION_SEED)
    x = (rng.standard_normal((256, 257)) * 4).astype(np.float32)
    sign = np.where(rng.integers(0, 2, 257) == 0, -1.0, 1.0)
    row = (sign * rng.uniform(0.5, 2.0, 257)).astype(np.float32)
    col = rng.standard_normal(256).astype(np.float32)
    return {"fused_elementwise.p0.npy": x, "fused_elementwise.p1.npy": row,
            "fused_elementwise.p2.npy": col}


INPUT_FILES["fused_elementwise"] = _fusion_inputs


@golden("fused_elementwise")
def _(c):
    x, row, col = (np.asarray(v.a, dtype=np.float32) for v in c.inputs)
    rowb, colb = row[None, :], col[:, None]
    a = x * np.float32(0.5)
    b = a + rowb
    cc = b - colb
    d = cc * cc
    e = np.where(cc > rowb, d, b)
    m = np.maximum(e, colb)  # no NaNs among the inputs
    return Lit("f32", (m / rowb).astype(np.float32))


@golden("fused_row_broadcast")
def _(c):
    ii, jj = np.meshgrid(np.arange(64), np.arange(64))  # ii: column, jj: row
    x = ((ii + jj) % 13).astype(np.float32)
    s = (1 << (np.arange(64) % 4)).astype(np.float32)
    d = np.broadcast_to(np.arange(512, dtype=np.float64), (4, 2, 512))
    eh = np.broadcast_to(np.arange(2, dtype=np.float64) * 0.5, (4, 2))
    big = np.broadcast_to(np.arange(64, dtype=np.float32), (64, 64))
    rows = np.arange(64, dtype=np.float32)
    return tup(Lit("f32", x / s[:, None]), Lit("f32", s[:, None] - x), Lit("f32", x * s[None, :]),
               Lit("f64", d * eh[:, :, None]), Lit("f32", big + rows[:, None]),
               Lit("f32", np.abs(s[:, None] - x)), Lit("f32", np.sqrt(x * s[:, None])))


@golden("loop_fusion_slices_reshapes")
def _(c):
    k = c.key.a.astype(np.uint64)
    x = c.x.a.astype(np.uint64).reshape(-1)
    y = c.y.a.astype(np.uint64).reshape(-1)
    m32 = np.uint64(0xFFFFFFFF)
    r = int(k[1])
    rot = ((y << np.uint64(r)) & m32) | (y >> np.uint64(32 - r))
    f = ((((x + y) & m32) ^ rot) + k[3]) & m32
    t = (f + x) & m32
    g = ((t * t) & m32) ^ t
    return tup(Lit("u32", f.astype(np.uint32).reshape(2, 3)), Lit("u32", g.astype(np.uint32)))


@golden("loop_fusion_broadcast_parameter")
def _(c):
    p = c.p.a.astype(np.uint64).reshape(2)
    x = c.x.a.astype(np.uint64)
    s = (x + p[:, None]) & np.uint64(0xFFFFFFFF)
    q = c.q.a.astype(np.float32)
    y = c.y.a.astype(np.float32)
    qb = np.broadcast_to(q[None, :], (2, 3))
    return tup(Lit("u32", (s ^ x).astype(np.uint32)), Lit("f32", (y * qb - qb).astype(np.float32)))


@golden("loop_fusion_precomputed")
def _(c):
    x = c.x.a.astype(np.float32)
    s4 = c.s4.a.astype(np.float32)
    s23 = c.s23.a.astype(np.float32)
    v23 = c.v23.a.astype(np.float32)
    quarter = np.float32(0.25)
    f = x - (s4 * quarter)[None, None, :]
    mean = s23 * quarter
    sd = np.sqrt(v23 * quarter + np.float32(1))
    g = (x - mean[:, :, None]) / sd[:, :, None]
    h = (x + (-s4)[None, None, :]) * s4[None, None, :]
    return tup(Lit("f32", f.astype(np.float32)), Lit("f32", g.astype(np.float32)),
               Lit("f32", h.astype(np.float32)))


@golden("fused_row_broadcast_in_place")
def _(c):
    x = np.arange(3090, dtype=np.float32).reshape(3, 1030)
    row = np.arange(1030, dtype=np.float32) * np.float32(0.5)
    col = np.array([1, -2, 4], dtype=np.float32)
    return Lit("f32", (x * row[None, :] - col[:, None]).astype(np.float32))


def _softmax_parts(x):
    """softmax over the last dim: (softmax, exp(x - max)). The differences
    x - max in x's own type, as IEEE computes them; exp, sum and quotient in
    float64, rounded once to x's type (exp is not correctly rounded in
    hlo-run either: the module's tolerance covers it). A row that is all -inf
    has max -inf and -inf - -inf = NaN throughout, as in IEEE."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        shifted = x - np.max(x, axis=-1, keepdims=True)
        e = np.exp(shifted.astype(np.float64))
        soft = e / np.sum(e, axis=-1, keepdims=True)
    return soft.astype(x.dtype), e.astype(x.dtype)


@golden("fused_row_softmax", tol=(1e-05, 1e-40))
def _(c):
    i, j = np.meshgrid(np.arange(3), np.arange(2100), indexing="ij")
    x = ((((37 * i + 11 * j) % 199) - 150) * 0.5).astype(np.float32)
    a, b, k = np.meshgrid(np.arange(2), np.arange(3), np.arange(50), indexing="ij")
    y = (3 * (((13 * (3 * a + b) + 7 * k) % 41) - 20)).astype(np.float64)
    r, col = np.meshgrid(np.arange(4), np.arange(40), indexing="ij")
    z = np.where((col % 9 == 0) | (r == 3), -np.inf, col - 20).astype(np.float32)
    zsoft, zexp = _softmax_parts(z)
    return tup(Lit("f32", _softmax_parts(x)[0]), Lit("f64", _softmax_parts(y)[0]),
               Lit("f32", zsoft), Lit("f32", zsoft), Lit("f32", zexp))


def _flushed_softmax(x):
    """softmax over the last dim under --denormals=flush: x - max is exact
    here; exp, sum and quotient in float64, each rounded once to x's type
    and made zero below its smallest normal (exp's and the quotient's
    results flush; the sum of flushed values stays normal here). Checks
    that no value lies within 10% of the smallest normal, where exp's last
    bit could move it across."""
    tiny = np.finfo(x.dtype).tiny
    def flush(v):
        v = v.astype(x.dtype)
        near = (np.abs(v) > tiny * 0.9) & (np.abs(v) < tiny * 1.1)
        assert not near.any(), "a value too near the smallest normal"
        return np.where(np.abs(v) < tiny, np.zeros_like(v), v)
    with np.errstate(under="ignore"):
        shifted = x - np.max(x, axis=-1, keepdims=True)
        # glibc's exp, element by element: numpy's own vector exp differs in
        # the last bit between CPUs (its AVX-512 loop), which made the file
        # read stale on another machine.
        e = flush(np.vectorize(math.exp, otypes=[np.float64])(shifted.astype(np.float64)))
        total = np.sum(e.astype(np.float64), axis=-1, keepdims=True).astype(x.dtype)
        soft = flush(e.astype(np.float64) / total.astype(np.float64))
    return soft


@golden("fused_row_softmax_flush", tol=(1e-05, 0))
def _(c):
    i, j = np.meshgrid(np.arange(3), np.arange(160), indexing="ij")
    x = (-(6 + 5 * i) * j * 0.125).astype(np.float32)
    yi, yj = np.meshgrid(np.arange(2), np.arange(400), indexing="ij")
    y = (-(2 + yi) * yj).astype(np.float64)
    fx, fy = _flushed_softmax(x), _flushed_softmax(y)
    assert (fx == 0).any() and (fy == 0).any()  # the flush is exercised
    return tup(Lit("f32", fx), Lit("f64", fy))


@golden("fused_single_op_broadcast")
def _(c):
    x = (np.arange(1030, dtype=np.float32)[None, :] + np.arange(3, dtype=np.float32)[:, None])
    bias = np.arange(1030, dtype=np.float32) * np.float32(0.5)
    scaled = (x + bias[None, :]) * np.float32(-2)
    col = np.array([1, -3, 7.5], dtype=np.float32)
    ik = np.broadcast_to(np.arange(7, dtype=np.int32)[None, :], (5, 7)) - np.int32(100)
    biased = x + bias[None, :]
    return tup(Lit("f32", x), Lit("f32", biased), Lit("f32", scaled),
               Lit("f32", (scaled - col[:, None]).astype(np.float32)), Lit("s32", ik))


@golden("fused_shared_broadcast")
def _(c):
    x, b = c.x.a.astype(np.float32), c.b.a.astype(np.float32)
    zeros = np.zeros((4, 5), np.float32)
    return tup(Lit("f32", np.maximum(x + b[None, :], zeros)),
               Lit("f32", np.maximum(-x + b[None, :], zeros)), Lit("f32", zeros))


@golden("fused_one_hot")
def _(c):
    labels = c.labels.a.astype(np.int64)
    classes = np.broadcast_to(np.arange(5), (6, 5))
    return tup(Lit("f32", (labels[:, None] == classes).astype(np.float32)),
               Lit("f64", (labels[:, None] + 1 == classes).astype(np.float64)),
               Lit("s32", classes.astype(np.int32)))


@golden("loop_fusion_iota")
def _(c):
    scores = c.scores.a.astype(np.float32)
    mask = np.arange(4)[:, None] >= np.arange(4)[None, :]
    masked = np.where(mask[None, None], scores * np.float32(0.125), np.float32(-1e9))
    x = c.x.a.astype(np.float32)
    ramped = x + np.arange(5, dtype=np.float32)[None, :, None]
    y = np.broadcast_to(np.arange(35, dtype=np.int64), (6, 35))
    i = np.broadcast_to(np.arange(5, dtype=np.int64)[None, None, :, None], (3, 2, 5, 7)).reshape(6, 35)
    return tup(Lit("f32", masked.astype(np.float32)), Lit("f32", ramped.astype(np.float32)),
               Lit("s32", (y * i).astype(np.int32)))


@golden("fused_multi_output")
def _(c):
    x0, x1 = c.x0.a.astype(np.uint32), c.x1.a.astype(np.uint32)

    def rotl(v, r):
        return ((v << np.uint32(r)) | (v >> np.uint32(32 - r))).astype(np.uint32)

    with np.errstate(over="ignore"):
        a0 = (x0 + x1).astype(np.uint32)
        k0 = a0 ^ rotl(x1, 13)
        a1 = (a0 + k0).astype(np.uint32)
        k1 = a1 ^ rotl(k0, 17)
        a2 = (a1 + k1).astype(np.uint32)
    return tup(Lit("u32", k0), Lit("u32", a2), Lit("u32", a1))


# group_reduce: reduces of elementwise groups (eval/fusion/group_reduce.h).
# The module's own inputs restated in float32 numpy (each op rounds as IEEE
# does); float sums in float64 rounded to f32 (the tolerance covers the
# order of the module's f32 sums); max exact, NaN propagating as maximum
# does; the s32 products and sums wrap (int64, then reduced mod 2^32).
@golden("group_reduce", tol=(1e-05, 0))
def _(c):
    i = np.arange(281600, dtype=np.int64)
    flat = ((i * 7) % 1009).astype(np.float32) * np.float32(0.001) + np.float32(0.5)
    f32 = lambda a: Lit("f32", np.asarray(a).astype(np.float32))
    x = flat.reshape(1100, 256)
    col_sq = (x * x).astype(np.float64).sum(axis=0)
    d2 = (flat.reshape(550, 512) - np.float32(1.25)) * np.float32(2)
    all_sum = np.abs(flat - np.float32(1)).astype(np.float64).sum()
    w = flat.reshape(40, 7040)
    wide_cols = (w * w).astype(np.float64).sum(axis=0)
    wrap = lambda a: ((a + 2**31) % 2**32 - 2**31).astype(np.int32)
    isq = wrap(i * i).astype(np.int64).reshape(1100, 256)
    row_isum = wrap(isq.sum(axis=1))
    xn = np.where(i % 4099 == 17, np.float32("nan"), flat).reshape(1100, 256)
    g = (np.arange(4194304) % 4).astype(np.float32)  # its sum is exact in f32, in any order
    big_sum = (g * g).astype(np.float64).sum()
    return tup(f32(col_sq), f32(d2.max(axis=1)), f32(all_sum), f32(wide_cols),
               Lit("s32", row_isum), f32((xn * xn).max(axis=0)), f32(big_sum))


# fused_periodic_broadcast: channel vectors broadcast over NHWC arrays (a
# period of 64 positions, which divides the fused loop's block: filled once
# per run) into an affine chain and into a column sum of squared deviations
# (a batch norm's variance, folded as the loop makes it, a piece at a time),
# and a [4,32] array broadcast over f32[300,4,32] (period 128) into row sums
# whose pieces start at every phase of it. Each elementwise op is one float32
# rounding in numpy; sums in float64 rounded to f32.
_PERIODIC_SEED = 20261130


def _periodic_inputs():
    rng = np.random.default_rng(_PERIODIC_SEED)
    f32 = lambda *shape: rng.standard_normal(shape).astype(np.float32)
    return {f"fused_periodic_broadcast.p{k}.npy": a for k, a in enumerate(
        [f32(64), f32(64), f32(64), f32(2, 8, 8, 64), f32(2, 28, 28, 64), f32(300, 4, 32),
         f32(4, 32)])}


INPUT_FILES["fused_periodic_broadcast"] = _periodic_inputs


@golden("fused_periodic_broadcast", tol=(1e-05, 0))
def _(c):
    mean, scale, shift, y, x, z, w = (np.asarray(v.a, dtype=np.float32) for v in c.inputs)
    affine = (y - mean) * scale + shift
    xc = x - mean
    var = (xc * xc).astype(np.float64).sum(axis=(0, 1, 2))
    zc = z - w[None, :, :]
    rows = (zc * zc).astype(np.float64).sum(axis=2)
    return tup(Lit("f32", affine), Lit("f32", var.astype(np.float32)),
               Lit("f32", rows.astype(np.float32)))


# fused_variance: column sums of squared deviations (a batch norm's
# variance), folded from x with the squares made in registers
# (eval/interp/reduce_one_pass.cc). Each subtract and multiply is one
# rounding in the operand's type in numpy; sums in float64 (f64: exact
# enough for rtol 1e-5), rounded to the output type; a NaN or an infinity
# in a column gives NaN or inf as IEEE addition does.
_VARIANCE_SEED = 20261201


def _means_with_specials(rng):
    """40 f32 means drawn from rng, with a NaN, a denormal, -0 and +inf
    among them (the variance goldens' v)."""
    m = rng.standard_normal(40).astype(np.float32)
    m[3] = np.nan
    m[9] = np.finfo(np.float32).tiny / 5
    m[11] = -0.0
    m[13] = np.inf
    return m


def _variance_inputs():
    rng = np.random.default_rng(_VARIANCE_SEED)
    tiny = np.finfo(np.float32).tiny
    x = (rng.standard_normal((3, 100, 40)) * 4).astype(np.float32)
    x[:, :, 5] = tiny / 7  # a column of denormals
    x[0, 0, 0] = np.nan
    x[0, 0, 7] = np.inf
    x[1, 2, 8] = -np.inf
    x[2, 50, 11] = -0.0
    m = _means_with_specials(rng)
    return {f"fused_variance.p{k}.npy": a for k, a in enumerate([
        x, m, rng.standard_normal((2, 200, 3, 40)) * 1e3, rng.standard_normal((3, 40)),
        rng.standard_normal((64, 96, 50)).astype(np.float32),
        rng.standard_normal((20, 4608)).astype(np.float32),
        rng.standard_normal(4608).astype(np.float32)])}


INPUT_FILES["fused_variance"] = _variance_inputs


@golden("fused_variance", tol=(1e-05, 0))
def _(c):
    x, m, y, n, z, w, wm = (np.asarray(v.a) for v in c.inputs)
    zm = np.array([0.5, -0.5, 1, -1, 0.25, -0.25, 2, -2, 0, 3, -3, 0.125, -0.125, 4, -4, 1.5,
                   -1.5, 0.75, -0.75, 5, -5, 0.1, -0.1, 6, -6, 0.2, -0.2, 7, -7, 0.3, -0.3, 8, -8,
                   0.4, -0.4, 9, -9, 0.6, -0.6, 10, -10, 0.7, -0.7, 11, -11, 0.8, -0.8, 12, -12,
                   0.9], dtype=np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        def squares_sum(d, axis, t):
            return (d * d).astype(np.float64).sum(axis=axis).astype(t)
        return tup(Lit("f32", squares_sum(x - m, (0, 1), np.float32)),
                   Lit("f32", squares_sum(m - x, (0, 1), np.float32)),
                   Lit("f64", squares_sum(y - n, (0, 1), np.float64)),
                   Lit("f32", squares_sum(z - zm, (0, 1), np.float32)),
                   Lit("f32", squares_sum(w - wm, 0, np.float32)))


# fused_row_variance: row sums of squared deviations (a layer norm's
# variance), folded from x with each row's squares made a piece at a time
# (eval/interp/reduce_one_pass.cc, SquaresOfRow); the same arithmetic as
# fused_variance.
_ROW_VARIANCE_SEED = 20261205


def _row_variance_inputs():
    rng = np.random.default_rng(_ROW_VARIANCE_SEED)
    tiny = np.finfo(np.float32).tiny
    x = (rng.standard_normal((40, 300)) * 4).astype(np.float32)
    x[5, :] = tiny / 7  # a row of denormals
    x[0, 0] = np.nan
    x[7, 3] = np.inf
    x[8, 200] = -np.inf
    x[11, 50] = -0.0
    m = _means_with_specials(rng)
    return {f"fused_row_variance.p{k}.npy": a for k, a in enumerate([
        x, m, rng.standard_normal((6, 7, 130)) * 1e3, rng.standard_normal((6, 7)),
        rng.standard_normal((3, 5000)).astype(np.float32),
        rng.standard_normal(3).astype(np.float32)])}


INPUT_FILES["fused_row_variance"] = _row_variance_inputs


@golden("fused_row_variance", tol=(1e-05, 0))
def _(c):
    x, m, y, n, w, wm = (np.asarray(v.a) for v in c.inputs)
    with np.errstate(invalid="ignore", over="ignore"):
        def squares_sum(d, axis, t):
            return (d * d).astype(np.float64).sum(axis=axis).astype(t)
        return tup(Lit("f32", squares_sum(x - m[:, None], 1, np.float32)),
                   Lit("f32", squares_sum(m[:, None] - x, 1, np.float32)),
                   Lit("f64", squares_sum(y - n[:, :, None], 2, np.float64)),
                   Lit("f32", squares_sum(w - wm[:, None], 1, np.float32)))
