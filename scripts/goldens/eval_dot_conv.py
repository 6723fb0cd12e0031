# Expected values of the dot, ragged-dot, scaled-dot and convolution
# modules of testdata/eval (see eval.py).
# Run inside core.py's namespace (eval.py executes every
# scripts/goldens/eval_*.py), so `golden`, `L`, `tup`, `wrap` and the
# other helpers and semantics functions there are its own.

# ============================================================================
# dot, ragged-dot, scaled-dot and convolution: sums of exact products
# ============================================================================
# The modules' values are small integers and halves, so every product and
# sum below is exact in Python (int, float or complex); the result is then
# rounded once to the result type (ints wrap, pred is != 0) - the spec's
# dot_general / convolution, independent of summation order.

def exact_value(t, x):
    if t == "pred":
        return int(bool(x))
    if is_int(t):
        return int(x)
    if is_complex(t):
        return complex(x)
    return float(x)


def finish(out_t, acc):
    """An exact sum rounded once to out_t."""
    if out_t == "pred":
        return bool(acc != 0)
    if is_int(out_t):
        return wrap(out_t, int(acc.real if isinstance(acc, complex) else acc))
    if is_complex(out_t):
        acc = complex(acc)
        part = COMPLEX[out_t]
        return complex(to_float(part, acc.real), to_float(part, acc.imag))
    return to_float(out_t, acc.real if isinstance(acc, complex) else acc)


def dot_general(lhs, rhs, out_t, lb=(), lc=(), rb=(), rc=()):
    """dot_general: result dims are batch, lhs free, rhs free (spec)."""
    la, ra = lhs.a, rhs.a
    lf = [d for d in range(la.ndim) if d not in lb and d not in lc]
    rf = [d for d in range(ra.ndim) if d not in rb and d not in rc]
    bd = [la.shape[d] for d in lb]
    md = [la.shape[d] for d in lf]
    nd = [ra.shape[d] for d in rf]
    kd = [la.shape[d] for d in lc]
    out = np.empty(tuple(bd + md + nd), dtype=object)
    for bi in np.ndindex(*bd):
        for mi in np.ndindex(*md):
            for ni in np.ndindex(*nd):
                li, ri = [0] * la.ndim, [0] * ra.ndim
                for d, x in zip(lb, bi):
                    li[d] = x
                for d, x in zip(rb, bi):
                    ri[d] = x
                for d, x in zip(lf, mi):
                    li[d] = x
                for d, x in zip(rf, ni):
                    ri[d] = x
                acc = 0
                for ki in np.ndindex(*kd):
                    for d, e, x in zip(lc, rc, ki):
                        li[d] = x
                        ri[e] = x
                    acc += exact_value(lhs.t, la[tuple(li)]) * exact_value(rhs.t, ra[tuple(ri)])
                out[bi + mi + ni] = finish(out_t, acc)
    return typed(out_t, out)


def group_bounds(sizes, extent):
    """[start, end) of each group along the ragged dim (clipped to it)."""
    out, start = [], 0
    for s in sizes:
        end = min(extent, start + max(0, s))
        out.append((start, end))
        start = end
    return out


def ragged_dot(lhs, rhs, gs, out_t, ragged, group=None, lb=(), lc=(), rb=(), rc=()):
    """JAX's ragged_dot_general with a [g] group_sizes: the ragged lhs dim is
    split into consecutive groups. Free ragged dim: rows of group j use
    rhs[group j] (the group dim dropped); contracting: result[j] sums over the
    group's k only; batch: batches outside every group are zero."""
    sizes = [int(x) for x in gs.a.reshape(-1)]
    bounds = group_bounds(sizes, lhs.dims[ragged])
    nb = len(lb)
    if ragged in lc:
        parts = []
        for s, e in bounds:
            masked = lhs.a.copy()
            idx = [slice(None)] * masked.ndim
            for k in range(lhs.dims[ragged]):
                if not s <= k < e:
                    idx[ragged] = k
                    masked[tuple(idx)] = 0
            parts.append(dot_general(Lit(lhs.t, masked), rhs, out_t, lb, lc, rb, rc).a)
        return Lit(out_t, np.stack(parts))
    if ragged in lb:
        full = dot_general(lhs, rhs, out_t, lb, lc, rb, rc)
        pos = list(lb).index(ragged)
        keep = [any(s <= i < e for s, e in bounds) for i in range(lhs.dims[ragged])]
    else:
        free = [d for d in range(len(lhs.dims)) if d not in lb and d not in lc]
        pos = nb + free.index(ragged)
        ren = lambda ds: [d - (d > group) for d in ds]
        full = None
        keep = [False] * lhs.dims[ragged]
        for j, (s, e) in enumerate(bounds):
            rj = Lit(rhs.t, np.take(rhs.a, j, axis=group))
            part = dot_general(lhs, rj, out_t, lb, lc, ren(rb), ren(rc))
            if full is None:
                full = part
            idx = [slice(None)] * full.a.ndim
            for i in range(s, e):
                idx[pos] = i
                full.a[tuple(idx)] = part.a[tuple(idx)]
                keep[i] = True
    zero = finish(out_t, 0)
    idx = [slice(None)] * full.a.ndim
    for i, k in enumerate(keep):
        if not k:
            idx[pos] = i
            full.a[tuple(idx)] = zero
    return full


def scaled(x, scale):
    """x * scale with each scale element covering a block of x (exact)."""
    block = [n // s for n, s in zip(x.dims, scale.dims)]
    out = np.empty(x.dims, dtype=np.float64)
    for i in np.ndindex(*x.dims):
        out[i] = exact_value(x.t, x.a[i]) * exact_value(scale.t, scale.a[tuple(a // b for a, b in zip(i, block))])
    return Lit("f64", out)


def conv_labels(s):
    """`b01f_01io->b01f` -> ((batch, feature, spatial), (in, out, spatial), (batch, feature, spatial))."""
    lhs, rest = s.split("_")
    ker, out = rest.split("->")

    def side(txt, first, second):
        sp = sorted((ch, i) for i, ch in enumerate(txt) if ch.isdigit())
        return txt.index(first), txt.index(second), [i for _, i in sp]
    return side(lhs, "b", "f"), side(ker, "i", "o"), side(out, "b", "f")


def convolution(lhs, rhs, out_t, labels, stride=None, pad_=None, lhs_dil=None, rhs_dil=None,
                rev=None, fgc=1, bgc=1):
    """The spec's convolution: pad (with lhs dilation holes) the input, slide
    the (rhs-dilated) window with the strides, dot each window with the
    kernel; feature groups split input features and output features, batch
    groups split the batch and output features."""
    (ib, if_, isp), (ki, ko, ksp), (ob, of, osp) = conv_labels(labels)
    nsp = len(isp)
    stride = stride or [1] * nsp
    pad_ = pad_ or [(0, 0)] * nsp
    lhs_dil = lhs_dil or [1] * nsp
    rhs_dil = rhs_dil or [1] * nsp
    rev = rev or [False] * nsp
    X = np.transpose(lhs.a, [ib, if_] + isp)   # [N, C, S...]
    K = np.transpose(rhs.a, [ko, ki] + ksp)    # [O, I, W...]
    N, C = X.shape[:2]
    O = K.shape[0]
    W = list(K.shape[2:])
    dil = [(n - 1) * b + 1 if n > 0 else 0 for n, b in zip(X.shape[2:], lhs_dil)]
    P = [d + lo + hi for d, (lo, hi) in zip(dil, pad_)]
    Xp = np.zeros([N, C] + P, dtype=object)
    for i in np.ndindex(*X.shape):
        p = [lo + x * b for x, (lo, _), b in zip(i[2:], pad_, lhs_dil)]
        if all(0 <= q < n for q, n in zip(p, P)):
            Xp[tuple(i[:2]) + tuple(p)] = exact_value(lhs.t, X[i])
    eff = [(w - 1) * d + 1 for w, d in zip(W, rhs_dil)]
    OS = [0 if p < e else (p - e) // s + 1 for p, e, s in zip(P, eff, stride)]
    groups = fgc * bgc
    assert C % fgc == 0 and K.shape[1] == C // fgc and O % groups == 0 and N % bgc == 0, \
        "inconsistent convolution operands"
    assert list(W) == [K.shape[2 + i] for i in range(nsp)]
    Nout, Cg, Og = N // bgc, C // fgc, O // groups
    out = np.empty([Nout, O] + OS, dtype=object)
    for n in range(Nout):
        for o in range(O):
            g = o // Og
            nin = n + (g * Nout if bgc > 1 else 0)
            c0 = g * Cg if fgc > 1 else 0
            for pos in np.ndindex(*OS):
                acc = 0
                for c in range(K.shape[1]):
                    for w in np.ndindex(*W):
                        xi = tuple(q * s + t * d for q, s, t, d in zip(pos, stride, w, rhs_dil))
                        kw = tuple(wn - 1 - t if r else t for t, wn, r in zip(w, W, rev))
                        acc += Xp[(nin, c0 + c) + xi] * exact_value(rhs.t, K[(o, c) + kw])
                out[(n, o) + pos] = finish(out_t, acc)
    axes = [0] * (nsp + 2)
    axes[ob], axes[of] = 0, 1
    for i, d in enumerate(osp):
        axes[d] = 2 + i
    return typed(out_t, np.transpose(out, axes).copy())


@golden("dot_basic")
def _(c):
    d = lambda a, b, lc, rc, t="f32": dot_general(a, b, t, (), lc, (), rc)
    return tup(d(c.a, c.b, [1], [0]), d(c.a, c.v, [1], [0]), d(c.v, c.b, [0], [0]),
               d(c.v, c.v, [0], [0]), d(c.a, c.a, [0], [0]), d(c.a, c.a, [1], [1]),
               d(c.a, c.v, [], []), d(c.c, c.d, [1, 2], [1, 0]), d(c.c, c.d, [2, 1], [0, 1]),
               d(c.x, c.y, [1], [0], "f64"))


@golden("dot_batch")
def _(c):
    return tup(dot_general(c.p, c.q, "f32", [0], [2], [1], [0]),
               dot_general(c.r, c.s, "f32", [0, 1], [3], [1, 2], [3]),
               dot_general(c.r, c.s, "f32", [1, 0], [3], [2, 1], [0]),
               dot_general(c.big1, c.big2, "f32", [], [1], [], [0]),
               dot_general(c.big2, c.big1, "f32", [], [0], [], [1]),
               dot_general(c.e0, c.e1, "f32", [], [1], [], [0]),
               dot_general(c.e0, c.e0, "f32", [], [0], [], [0]))


@golden("dot_types")
def _(c):
    d = lambda a, b, t, lc=(1,), rc=(0,): dot_general(a, b, t, (), lc, (), rc)
    return tup(d(c.i8a, c.i8b, "s32"), d(c.i8a, c.i8b, "s8"), d(c.i32a, c.i32a, "s32"),
               d(c.u8a, c.u8a, "u32"), d(c.u8a, c.u8a, "u8"), d(c.i64a, c.i64a, "s64"),
               d(c.s4a, c.s4a, "s4", (1,), (1,)), d(c.pa, c.pb, "pred"),
               d(c.h1, c.h2, "f32"), d(c.h1, c.h2, "bf16"), d(c.g1, c.h2, "f16"),
               d(c.e1, c.e2, "f32"), d(c.e1, c.e2, "f8e4m3fn"), d(c.e5, c.e2, "bf16"),
               d(c.i8a, c.h2, "f32"), d(c.i8a, c.i8b, "f64"), d(c.ca, c.cb, "c64"),
               d(c.za, c.za, "c128", (0,), (0,)))


@golden("dot_ragged")
def _(c):
    return tup(ragged_dot(c.m, c.g3, c.sizes, "f32", 0, group=0, lc=[1], rc=[1]),
               ragged_dot(c.m, c.g3, c.short, "f32", 0, group=0, lc=[1], rc=[1]),
               ragged_dot(c.m, c.k2, c.ksizes, "f32", 1, lc=[1], rc=[0]),
               ragged_dot(c.bm, c.bk, c.bsizes, "s32", 0, lb=[0], lc=[2], rb=[0], rc=[1]),
               ragged_dot(c.bm2, c.g3b, c.sizes2, "f32", 1, group=1, lb=[0], lc=[2], rb=[0], rc=[2]))


@golden("dot_scaled")
def _(c):
    return tup(dot_general(scaled(c.a, c.sa), scaled(c.b, c.sb), "f32", (), [1], (), [1]),
               dot_general(scaled(c.a, c.sa), scaled(c.b, c.sb), "bf16", (), [1], (), [1]),
               dot_general(scaled(c.x, c.sx), scaled(c.y, c.sy), "f32", [0], [2], [0], [1]))


@golden("convolution_basic")
def _(c):
    return tup(convolution(c.x1, c.k1, "f32", "b0f_0io->b0f"),
               convolution(c.x2, c.k2, "f32", "b01f_01io->b01f"),
               convolution(c.x2n, c.k2n, "f32", "bf01_oi01->bf01", stride=[2, 1], pad_=[(1, 1), (2, 0)]),
               convolution(c.x2n, c.k2n, "f32", "bf01_oi01->bf01", pad_=[(-1, 0), (1, -2)]),
               convolution(c.x2, c.k2, "f32", "b01f_01io->b01f", stride=[2, 3], pad_=[(1, 2), (0, 1)]),
               convolution(c.x3, c.k3, "f32", "b012f_012io->b012f", pad_=[(1, 0), (0, 1), (0, 0)]),
               convolution(c.xp, c.kp, "f32", "f01b_i01o->01bf"),
               convolution(c.x2, c.kpw, "f32", "b01f_01io->b01f", pad_=[(1, 0), (0, 1)]))


@golden("convolution_dilation")
def _(c):
    spec = convolution(c.spx, c.spk, "s64", "b01f_01io->b01f", stride=[4, 4], lhs_dil=[2, 2])
    assert spec.a.reshape(-1).tolist() == [10, 26, 46, 62], "the StableHLO convolution example"
    return tup(convolution(c.x, c.k, "f32", "b01f_01io->b01f", lhs_dil=[2, 2]),
               convolution(c.x, c.k, "f32", "b01f_01io->b01f", rhs_dil=[2, 1]),
               convolution(c.x, c.k, "f32", "b01f_01io->b01f", stride=[2, 1], pad_=[(1, 1), (2, 1)],
                           lhs_dil=[2, 1], rhs_dil=[1, 2]),
               convolution(c.x, c.k, "f32", "b01f_01io->b01f", rev=[True, False]),
               convolution(c.x, c.k, "f32", "b01f_01io->b01f", pad_=[(1, 1), (1, 1)], rev=[True, True]),
               spec)


@golden("convolution_groups")
def _(c):
    return tup(convolution(c.x, c.kf, "f32", "b01f_01io->b01f", fgc=2),
               convolution(c.x, c.kd, "f32", "b01f_01io->b01f", pad_=[(1, 1), (1, 1)], fgc=4),
               convolution(c.x, c.kdm, "f32", "b01f_01io->b01f", fgc=4),
               convolution(c.xn, c.kn, "f32", "bf01_oi01->bf01", fgc=3),
               convolution(c.xb, c.kb, "f32", "b01f_01io->b01f", bgc=2),
               convolution(c.xb, c.kb2, "f32", "f01b_i01o->01fb", bgc=2))


@golden("convolution_types")
def _(c):
    return tup(convolution(c.i8x, c.i8k, "s32", "b0f_0io->b0f"),
               convolution(c.i8x, c.i8k, "s8", "b0f_0io->b0f"),
               convolution(c.i32x, c.i32k, "s32", "b0f_0io->b0f"),
               convolution(c.u8x, c.u8k, "u16", "b0f_0io->b0f", stride=[2]),
               convolution(c.px, c.pk, "pred", "b0f_0io->b0f"),
               convolution(c.bx, c.bk, "bf16", "b0f_0io->b0f", pad_=[(1, 1)], fgc=2),
               convolution(c.bx, c.bk, "f32", "b0f_0io->b0f", fgc=2),
               convolution(c.hx, c.hk, "f16", "b0f_0io->b0f"),
               convolution(c.fx, c.fk, "f64", "bf0_oi0->bf0", pad_=[(1, 1)], rhs_dil=[2]),
               convolution(c.cx, c.ck, "c64", "b0f_0io->b0f"),
               convolution(c.i8x, c.bk8, "f32", "b0f_0io->b0f"))


@golden("convolution_float16_split")
def _(c):
    # The module builds its operands from iotas: x = (5b + 3h + 11w + f) % 7,
    # k = (3ky + 5kx + 3i + o) % 7. Their convolution's exact sums are
    # integers below 5184 (float64 and f32 hold them exactly).
    b, h, w, f = np.meshgrid(*map(np.arange, (4, 32, 32, 16)), indexing="ij")
    x = ((5 * b + 3 * h + 11 * w + f) % 7).astype(np.float64)
    k0, k1, k2, k3 = np.meshgrid(*map(np.arange, (3, 3, 16, 16)), indexing="ij")
    k = ((3 * k0 + 5 * k1 + 3 * k2 + k3) % 7).astype(np.float64)
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    exact = sum(np.einsum("bhwc,co->bhwo", xp[:, ky:ky + 32, kx:kx + 32, :], k[ky, kx])
                for ky in range(3) for kx in range(3))

    # A t convolution is its exact sums rounded once to t; convert(f32
    # convolution) rounds them to f32 (exactly: they are small integers),
    # then to t.
    def same_as_rounded_f32(t):
        return all(to_float(t, v) == to_float(t, float(np.float32(v)))
                   for v in exact.reshape(-1).tolist())

    return tup(L("pred", same_as_rounded_f32("bf16")), L("pred", same_as_rounded_f32("f16")),
               L("bf16", [[[exact[3, 17, 9, :].tolist()]]]))


@golden("dot_transpose_folding")
def _(c):
    t = lambda x, perm: Lit(x.t, np.transpose(x.a, perm))
    qt, kt = t(c.q, (0, 2, 1, 3)), t(c.k, (0, 2, 3, 1))
    wt, at, ct, et = t(c.w, (1, 0)), t(c.a, (1, 0, 2)), t(c.c, (1, 0)), t(c.e, (1, 0))
    scores = dot_general(qt, kt, "f32", [0, 1], [3], [0, 1], [2])
    kv = t(c.k, (0, 2, 1, 3))  # the copy changes the layout only
    return tup(scores,
               dot_general(c.x, wt, "f32", [], [1], [], [0]),
               dot_general(at, c.b, "f32", [], [2], [], [0]),
               dot_general(ct, c.d, "f32", [], [1], [], [0]),
               ct,
               dot_general(et, et, "f32", [], [1], [], [1]),
               dot_general(scores, kv, "f32", [0, 1], [3], [0, 1], [2]))


def _dot_slice_folding_inputs():
    rng = np.random.default_rng(20261205)
    return {"dot_slice_folding.p0.npy":
            rng.integers(-2, 2, size=(96, 96), endpoint=True).astype(np.float32)}


INPUT_FILES["dot_slice_folding"] = _dot_slice_folding_inputs


@golden("dot_slice_folding")
def _(c):
    # numpy's slices, reshapes and transposes of the constants, then exact
    # integer sums (the folded and unfolded runs must both give these).
    op = lambda x, f: Lit(x.t, f(x.a))
    q = op(c.qkv, lambda a: a[:, :, 0:4].reshape(2, 3, 2, 2).transpose(0, 2, 1, 3))
    k = op(c.qkv, lambda a: a[:, :, 4:8].reshape(2, 3, 2, 2).transpose(0, 2, 3, 1))
    odd = op(c.wide, lambda a: a[:, :, 1:16:2].reshape(2, 3, 2, 4).transpose(0, 2, 1, 3))
    e2 = op(c.wide, lambda a: a[:, :, 0:8].reshape(2, 3, 2, 4).transpose(0, 2, 3, 1))
    vt = op(c.qkv, lambda a: a[:, :, 8:12].transpose(0, 2, 1))
    wt = op(c.wide, lambda a: a[:, 1:3, 8:16].reshape(2, 2, 2, 4).transpose(0, 1, 3, 2))
    wq = op(c.qkv, lambda a: a[:, :, 2:6])
    rt = op(c.rows, lambda a: a[:, 0:2, :].reshape(4, 6).transpose(1, 0))
    flat = c.inputs[0]
    heads = lambda lo: op(flat, lambda a: a.reshape(4, 24, 96)[:, :, lo:lo + 48]
                          .reshape(4, 24, 2, 24).transpose(0, 2, 1, 3))
    q2, k2 = heads(0), heads(48)
    return tup(dot_general(q, k, "f32", [0, 1], [3], [0, 1], [2]),
               dot_general(odd, e2, "f32", [0, 1], [3], [0, 1], [2]),
               dot_general(c.p, vt, "f32", [0], [2], [0], [1]),
               dot_general(wq, wt, "f64", [0], [2], [0], [2]),
               dot_general(rt, c.m, "f32", [], [1], [], [0]),
               dot_general(q2, k2, "f32", [0, 1], [3], [0, 1], [3]))


# Integer dots large enough for the float BLAS (eval/kernels/gemm_exact_int.h):
# full-range s8, u8 and s16 operands, and s32 ones near 2^30 whose sums pass
# f64's exact integers. Python's integers are exact; finish() wraps each sum
# to the result type, as the spec's integer dot does.
_DOT_INT_RNG_SEED = 20261204

_DOT_INT_SHAPES = [
    ("p0", (48, 64), np.int8, -128, 127),
    ("p1", (64, 40), np.int8, -128, 127),
    ("p2", (8, 1100), np.int8, -128, 127),
    ("p3", (1100, 8), np.int8, -128, 127),
    ("p4", (16, 64), np.int32, -(1 << 30), 1 << 30),
    ("p5", (64, 40), np.int32, -(1 << 30), 1 << 30),
    ("p6", (40, 64), np.uint8, 0, 255),
    ("p7", (64, 40), np.uint8, 0, 255),
    ("p8", (2, 32, 64), np.int16, -(1 << 15), (1 << 15) - 1),
    ("p9", (2, 64, 32), np.int16, -(1 << 15), (1 << 15) - 1),
]


def _dot_int_inputs():
    rng = np.random.default_rng(_DOT_INT_RNG_SEED)
    out = {}
    for name, shape, dt, lo, hi in _DOT_INT_SHAPES:
        v = rng.integers(lo, hi, size=shape, endpoint=True, dtype=np.int64)
        # Rows and columns drawn from [-128, -120]: 1100 products near 2^14,
        # odd and even, whose sums pass 2^24, where f32 would round (36
        # such results); the last two rows and columns over the full range.
        if name == "p2":
            v[:6, :] = rng.integers(-128, -120, size=(6, shape[1]), endpoint=True)
        if name == "p3":
            v[:, :6] = rng.integers(-128, -120, size=(shape[0], 6), endpoint=True)
        out[f"dot_int_paths.{name}.npy"] = v.astype(dt)
    return out


INPUT_FILES["dot_int_paths"] = _dot_int_inputs


@golden("dot_int_paths")
def _(c):
    a8, b8, la, lb, a32, b32, au8, bu8, a16, b16 = c.inputs
    d = lambda a, b, t, lc=(1,), rc=(0,): dot_general(a, b, t, (), lc, (), rc)
    return tup(d(a8, b8, "s32"), d(a8, b8, "s8"), d(la, lb, "s32"),
               d(lb, lb, "s32", (0,), (0,)), d(b8, b8, "s32", (0,), (0,)),
               d(a32, b32, "s32"), d(au8, bu8, "u8"), d(au8, bu8, "u32"),
               dot_general(a16, b16, "s32", (0,), (2,), (0,), (1,)))


@golden("dot_f32_k_blocks")
def _(c):
    # Each operand is the sum of three residues of its iotas, (c0 i + c1 j) % p
    # for p = 7, 11, 13 (the module's TERMS); every product and sum is an
    # integer below 2^24, so numpy's int64 product is each f32 result exactly.
    def operand(dims, terms):
        i, j = np.meshgrid(np.arange(dims[0]), np.arange(dims[1]), indexing="ij")
        return sum((c0 * i + c1 * j) % p for c0, c1, p in terms).astype(np.int64)

    a1 = operand((256, 512), [(5, 3, 7), (2, 7, 11), (4, 1, 13)])
    b1 = operand((512, 128), [(3, 5, 7), (6, 1, 11), (1, 9, 13)])
    a2 = operand((256, 384), [(2, 3, 7), (1, 4, 11), (7, 5, 13)])
    b2 = operand((300, 384), [(5, 1, 7), (3, 8, 11), (2, 3, 13)])
    a3 = operand((128, 300), [(3, 2, 7), (5, 5, 11), (6, 2, 13)])
    b3 = operand((300, 520), [(1, 4, 7), (9, 2, 11), (3, 7, 13)])
    sums = []
    for y in (a1 @ b1, a2 @ b2.T, a3 @ b3):
        i, j = np.meshgrid(np.arange(y.shape[0]), np.arange(y.shape[1]), indexing="ij")
        weights = (37 * i + 11 * j) % 97
        sums += [L("s32", int(y.sum())), L("s32", int((y * weights).sum()))]
    return tup(*sums, L("f32", (a3 @ b3)[77:78, :].tolist()))


def _iota_operand(dims, coef, signed):
    """(c0 i + c1 j) % 251 + (c2 i j) % 6 of a 2-D operand's iotas, less 128
    for s8: the int8 dot modules' operands (their ops)."""
    c0, c1, c2 = coef
    i, j = np.meshgrid(np.arange(dims[0]), np.arange(dims[1]), indexing="ij")
    v = ((c0 * i + c1 * j) % 251 + (c2 * i * j) % 6).astype(np.int64)
    return v - 128 if signed else v


def _wrapped_sums(ys):
    """Each (2-D product, result type) wrapped to its type, and its sum and
    position-weighted sum (weights (37 i + 11 j) % 97) as s64 literals."""
    wrapped = [np.vectorize(lambda v, t=t: wrap(t, int(v)), otypes=[np.int64])(y)
               for y, t in ys]
    sums = []
    for y in wrapped:
        i, j = np.meshgrid(np.arange(y.shape[0]), np.arange(y.shape[1]), indexing="ij")
        weights = (37 * i + 11 * j) % 97
        sums += [L("s64", int(y.sum())), L("s64", int((y * weights).sum()))]
    return wrapped, sums


@golden("dot_int8_vnni")
def _(c):
    # numpy's int64 products are the exact sums, which the s32 and s8
    # results wrap.
    operand = _iota_operand
    a1 = operand((256, 512), (3, 5, 7), True)
    b1 = operand((512, 256), (7, 2, 11), True)
    a2 = operand((300, 400), (5, 3, 13), False)
    b2 = operand((320, 400), (2, 9, 5), True)
    a3 = operand((400, 128), (11, 4, 3), True)
    b3 = operand((400, 700), (6, 7, 17), False)
    a4 = operand((128, 640), (9, 2, 19), False)
    b4 = operand((640, 520), (4, 3, 23), False)
    # The operands reach the types' extremes.
    assert min(a1.min(), b1.min(), b2.min(), a3.min()) == -128
    assert max(a1.max(), b1.max()) == 127 and max(a2.max(), b3.max(), a4.max()) == 255
    a5 = operand((256, 520), (7, 3, 5), True)  # reshaped to [4, 64, 520]
    b5 = operand((256, 520), (5, 8, 13), True)  # reshaped to [8, 32, 520]
    ys = [(a1 @ b1, "s32"), (a2 @ b2.T, "s32"), (a3.T @ b3, "s8"), (a4 @ b4, "s64"),
          (a5 @ b5.T, "s32")]  # y5 [4,64,8,32] read back as [256, 256]
    wrapped, sums = _wrapped_sums(ys)
    return tup(*sums, L("s32", wrapped[1][211:212, :].tolist()),
               L("s8", wrapped[2][77:78, :].tolist()))


@golden("dot_int8_batched")
def _(c):
    # The operands as dot_int8_vnni's, each a stack of matrices built as one
    # 2-D iota operand then reshaped (the module's ops); the batched product
    # is numpy's exact int64 matmul batch by batch.
    operand = _iota_operand
    a1 = operand((512, 512), (3, 5, 7), True).reshape(4, 128, 512)
    b1 = operand((2048, 160), (7, 2, 11), True).reshape(4, 512, 160)
    a2 = operand((768, 256), (5, 3, 13), False).reshape(2, 3, 128, 256)
    b2 = operand((1152, 256), (2, 9, 5), True).reshape(2, 3, 192, 256)
    a3 = operand((4096, 96), (11, 4, 3), True).reshape(8, 512, 96)
    b3 = operand((4096, 96), (6, 7, 17), False).reshape(8, 512, 96)
    a4 = operand((256, 512), (9, 2, 19), True).reshape(1, 256, 512)
    b4 = operand((256, 512), (4, 3, 23), True).reshape(1, 256, 512)
    assert min(a1.min(), b1.min(), b2.min(), a3.min()) == -128
    assert max(a1.max(), b1.max()) == 127 and max(a2.max(), b3.max()) == 255
    ys = [(np.matmul(a1, b1).reshape(512, 160), "s32"),
          (np.matmul(a2, np.swapaxes(b2, 2, 3)).reshape(768, 192), "s32"),
          (np.matmul(np.swapaxes(a3, 1, 2), b3).reshape(768, 96), "s16"),
          (np.matmul(a4, np.swapaxes(b4, 1, 2)).reshape(256, 256), "s32")]
    wrapped, sums = _wrapped_sums(ys)
    return tup(*sums, L("s32", wrapped[1][555:556, :].tolist()))
