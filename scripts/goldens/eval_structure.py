# Expected values of the data movement, reduction, control flow and
# all-types modules of testdata/eval (see eval.py).
# Run inside core.py's namespace (eval.py executes every
# scripts/goldens/eval_*.py), so `golden`, `L`, `tup`, `wrap` and the
# other helpers and semantics functions there are its own.

# ---- data movement -----------------------------------------------------------------

def bcast(lit, shape, dims):
    """XLA broadcast: operand dimension i becomes output dimension dims[i]."""
    out = np.empty(shape, dtype=lit.a.dtype)
    for idx in np.ndindex(tuple(shape)):
        out[idx] = lit.a[tuple(idx[d] for d in dims)]
    return Lit(lit.t, out)


@golden("data_broadcast")
def _(c):
    return tup(bcast(c.s, (2, 3), []), bcast(c.v, (2, 3), [1]), bcast(c.v, (3, 2), [0]),
               bcast(c.m, (2, 4, 3), [0, 2]), bcast(c.p, (2, 2), [0]), bcast(c.q, (1, 2, 2), [2]),
               bcast(c.e, (3, 0), [1]), bcast(c.s, (1,), []))


def reshape(lit, dims):
    return Lit(lit.t, lit.a.reshape(dims))


@golden("data_reshape")
def _(c):
    r4 = reshape(c.d, (1, 1))
    return tup(reshape(c.a, (3, 2)), reshape(c.b, (1, 2, 1, 3)), reshape(c.c, (4, 6)), r4, reshape(r4, ()),
               reshape(c.e, (3, 0)), reshape(c.f, (4,)), reshape(c.z, (2,)))


def transpose(lit, perm):
    return Lit(lit.t, np.transpose(lit.a, perm).copy())


@golden("data_transpose")
def _(c):
    return tup(transpose(c.a, (1, 0)), transpose(c.c, (2, 0, 1)), transpose(c.c, (1, 2, 0)),
               transpose(c.c, (0, 1, 2)), transpose(c.d, (2, 0, 1)), transpose(c.r, (3, 1, 0, 2)),
               transpose(c.p, (1, 0)), transpose(c.b, (1, 0)))


def slc(lit, *specs):
    return Lit(lit.t, lit.a[tuple(slice(*s) for s in specs)].copy())


@golden("data_slice")
def _(c):
    return tup(slc(c.a, (2, 4)), slc(c.a, (2, 8, 3)), slc(c.a, (1, 10, 20)), slc(c.a, (3, 3)),
               slc(c.b, (2, 4), (1, 3)), slc(c.b, (0, 4, 2), (0, 3, 2)), slc(c.c, (1, 2), (0, 3, 2), (1, 4, 2)),
               slc(c.d, (0, 5, 2)), slc(c.e, (1, 4, 2)), slc(c.b, (0, 4), (2, 2)))


@golden("data_dynamic_slice")
def _(c):
    i = lambda l: l.a[()]
    return tup(dynamic_slice(c.a, [i(c.one)], [2]), dynamic_slice(c.b, [i(c.two), i(c.one)], [2, 2]),
               dynamic_slice(c.a, [i(c.neg)], [2]), dynamic_slice(c.a, [i(c.big)], [2]),
               dynamic_slice(c.b, [i(c.big), i(c.neg)], [3, 2]), dynamic_slice(c.a, [i(c.big64)], [2]),
               dynamic_slice(c.a, [i(c.u)], [2]), dynamic_slice(c.b, [i(c.s8v), i(c.s8v)], [1, 3]),
               dynamic_slice(c.a, [i(c.two)], [5]))


@golden("data_one_element_reads")
def _(c):
    # The loop: trip i reads a[clamp(i - 1, 0, 4)] and folds acc * 3 + x in s32.
    a = [int(x) for x in c.a.a]
    acc = 0
    for i in range(7):
        acc = wrap("s32", acc * 3 + a[max(0, min(i - 1, 4))])
    i = lambda l: l.a[()]
    sl = slc(c.m, (2, 3), (1, 4, 4))
    return tup(L("s32", acc), sl, reshape(sl, ()), reshape(sl, (1,)), c.z,
               dynamic_slice(c.f, [i(c.umax)], [1]), dynamic_slice(c.f, [i(c.sneg)], [1]))


@golden("data_dynamic_update_slice")
def _(c):
    i = lambda l: l.a[()]
    dus = dynamic_update_slice
    return tup(dus(c.a, c.u, [i(c.two)]), dus(c.b, c.v, [i(c.one), i(c.one)]), dus(c.a, c.u, [i(c.neg)]),
               dus(c.a, c.u, [i(c.big)]), dus(c.b, c.v, [i(c.big), i(c.neg)]), dus(c.q, c.w, [i(c.umax)]),
               dus(c.a, c.full, [i(c.big)]))


def concat(dim, *lits):
    return Lit(lits[0].t, np.concatenate([l.a for l in lits], axis=dim))


@golden("data_concatenate")
def _(c):
    return tup(concat(0, c.a, c.b), concat(1, c.a, c.c), concat(0, c.b, c.a, c.e, c.b, c.b), concat(0, c.p, c.q),
               concat(0, c.u, c.v), concat(0, c.w, c.z))


@golden("data_pad")
def _(c):
    p1 = pad(c.a, c.z, [(0, 2, 1), (1, 1, 2)])
    spec = [[0, 1, 0, 0, 2, 0, 0, 3, 0], [0] * 9, [0, 4, 0, 0, 5, 0, 0, 6, 0], [0] * 9, [0] * 9]
    assert p1.a.tolist() == spec, "the StableHLO pad example"
    return tup(p1, pad(c.v, c.pv, [(1, 2, 0)]), pad(c.v, c.pv, [(-1, -1, 0)]), pad(c.v, c.pv, [(-2, -1, 2)]),
               pad(c.v, c.pv, [(-1, 2, 1)]), pad(c.a, c.z, [(-1, 0, 0), (1, -3, 0)]), pad(c.e, c.pv, [(2, 1, 5)]),
               pad(c.q, c.qz, [(1, 1, 1)]), pad(c.v, c.pv, [(-2, -2, 0)]))


def rev(lit, dims):
    return Lit(lit.t, np.flip(lit.a, axis=tuple(dims)).copy() if dims else lit.a.copy())


@golden("data_reverse")
def _(c):
    return tup(rev(c.a, [0]), rev(c.a, [1]), rev(c.a, [0, 1]), rev(c.c, [0, 2]), rev(c.a, []), rev(c.h, [0]),
               rev(c.u, [0, 1]), rev(c.e, [1]))


def iota(t, shape, dim):
    out = np.empty(shape, dtype=object)
    for idx in np.ndindex(tuple(shape)):
        out[idx] = idx[dim]
    return cvt(t, Lit("s64", out))


@golden("data_iota")
def _(c):
    i5 = iota("bf16", (260,), 0)
    return tup(iota("s32", (5,), 0), iota("f32", (2, 3), 1), iota("u8", (3, 2), 0), iota("s32", (4, 8), 1),
               slc(i5, (254, 260)), iota("s64", (2, 2, 2), 2), iota("f16", (2, 3), 0),
               iota("c64", (3,), 0))

@golden("data_copy_layouts")
def _(c):
    return tup(c.a, c.a, c.c, c.c, c.p)  # copies keep logical values


def bitcast(lit, in_layout, dims, out_layout):
    return from_physical(lit.t, physical(lit, in_layout), dims, out_layout)


@golden("data_bitcast_layouts")
def _(c):
    return tup(bitcast(c.a, [1, 0], (3, 2), [0, 1]), bitcast(c.a, [1, 0], (6,), [0]),
               bitcast(c.a, [0, 1], (6,), [0]),  # the {0,1} copy holds the same logical value
               bitcast(c.v, [0], (2, 3), [0, 1]), bitcast(c.a, [1, 0], (3, 1, 2), [2, 1, 0]),
               bitcast(c.a, [0, 1], (3, 2), [1, 0]))


@golden("data_tuple")
def _(c):
    return tup(c.c, tup(c.a, tup(c.b, c.c), tup()), c.b, c.a, tup())


@golden("data_constants")
def _(c):
    names = "p a b c d e f g h i j k l m n o q r s u v w x y z fa fb za zb em e2 sc".split()
    return [c[n] for n in names]


def _data_parameters_inputs():
    return {"data_parameters.p1.npy": np.array([3, -1, 2147483647, 0], dtype=np.int32)}


INPUT_FILES["data_parameters"] = _data_parameters_inputs


@golden("data_parameters")
def _(c):
    x, y, z, w = c.inputs
    return tup(ew("f32", lambda v: -v, x), rev(Lit("s32", y.a), [0]), Lit("pred", z.a), w)


@golden("data_parameter_layout")
def _(c):
    x = c.inputs[0]
    return tup(x, Lit("f32", physical(x, [0, 1])))


@golden("data_empty")
def _(c):
    return tup(c.e, L("f32", np.zeros((2, 0))), L("f32", np.zeros((3, 0))), L("f32", np.zeros((0, 3))),
               c.one, L("f32", [1, 1, 1]), L("s8", np.zeros((0,), dtype=int)), L("f32", np.zeros((0, 3))))


@golden("data_subbyte_movement")
def _(c):
    t1 = transpose(c.a, (1, 0))
    t2 = reshape(t1, (9,))
    t6 = rev(c.d, [0])
    return tup(t1, t2, slc(t2, (1, 9, 2)), pad(c.b, c.pz, [(1, 1, 1)]), concat(0, c.c, c.c), t6,
               bcast(c.c, (2, 3), [1]), dynamic_update_slice(c.d, t6, [c.i.a[()]]), c.b)

# ---- reductions ----------------------------------------------------------------------

f32add = lambda a, b: np.float32(a) + np.float32(b)


@golden("reduce_add")
def _(c):
    r = lambda dims, init: reduce_(c.x, init, dims, f32add)
    return tup(r([0], c.zero), r([1], c.zero), r([2], c.ten), r([0, 2], c.zero), r([0, 1, 2], c.ten),
               ew("f32", lambda x: np.float32(x + 10), c.x),
               reduce_(c.i, c.zi, [0], lambda a, b: wrap("s32", a + b)))


@golden("reduce_other_computations")
def _(c):
    rx = reduce_(c.f, c.ninf, [1], fmax)
    rn = reduce_(c.f, c.pinf, [1], fmin)
    rxc = reduce_(c.f, c.ninf, [0], fmax)
    both = L("f32", elements(rx) + elements(rn) + elements(rxc))
    return tup(reduce_(c.i, c.one, [1], lambda a, b: wrap("s32", a * b)), canon(both),
               reduce_(c.p, c.t, [1], lambda a, b: a and b), reduce_(c.p, c.fa, [0], lambda a, b: a or b),
               reduce_(c.u, c.z, [0], lambda a, b: a ^ b),
               reduce_(c.h, c.oneh, [1], lambda a, b: wrap("u16", a * b)))


@golden("reduce_mixed_precision", tol=(0, 0))
def _(c):
    # The reducer's type decides: the f16 init and the bf16 input become f32
    # before reducing (exact conversions here), as XLA's verifier allows.
    def as_f32(lit):
        return L("f32", lit.a.tolist())
    pairs = reduce_window(c.z, as_f32(c.ninf), [2], fn=fmax)
    return tup(reduce_(c.x, as_f32(c.inf), [1], fmin),
               reduce_(as_f32(c.y), c.zero, [0], lambda a, b: a + b),
               L("f16", pairs.a.tolist()))


def argbest(better):
    def fn(acc, x):
        (av, ai), (bv, bi) = acc, x
        pick = better(av, bv) or (av == bv and ai < bi)
        return (av, ai) if pick else (bv, bi)
    return fn


@golden("reduce_variadic")
def _(c):
    idx1 = iota("s32", (3, 4), 1)
    idx0 = iota("s32", (3, 4), 0)
    big = L("s32", 2147483647)
    mx = reduce_([c.x, idx1], [c.ninf, big], [1], argbest(lambda a, b: a > b))
    mn = reduce_([c.x, idx0], [c.pinf, big], [0], argbest(lambda a, b: a < b))
    return tup(tup(*mx), tup(*mn))


@golden("reduce_window_basic")
def _(c):
    return tup(reduce_window(c.x, c.ninf, [2, 2], [2, 2], fn=fmax),
               reduce_window(c.v, c.zero, [3], fn=f32add),
               reduce_window(c.x, c.zero, [4, 6], fn=f32add),
               reduce_window(c.s, c.zero, [], fn=f32add),
               reduce_window(c.i, c.imax, [2, 2], fn=min))


@golden("reduce_window_padding")
def _(c):
    return tup(reduce_window(c.x, c.ninf, [2, 2], pad_=[(1, 1), (1, 1)], fn=fmax),
               reduce_window(c.x, c.zero, [3, 3], pad_=[(1, 1), (1, 1)], fn=f32add),
               reduce_window(c.v, c.hundred, [3], [2], [(1, 0)], fn=f32add),
               reduce_window(c.v, c.ninf, [2], pad_=[(1, 1)], fn=fmax),
               reduce_window(c.x, c.zero, [2, 3], [2, 1], [(0, 1), (0, 0)], fn=f32add))


@golden("reduce_window_dilation")
def _(c):
    spec = reduce_window(c.x, c.z, [2, 1], [4, 1], [(2, 1), (0, 0)], [2, 1], [3, 1], fn=lambda a, b: a + b)
    assert spec.a.tolist() == [[0, 0], [3, 4]], "the StableHLO reduce_window example"
    return tup(spec,
               reduce_window(c.v, c.zf, [2], lhs_dilate=[2], fn=f32add),
               reduce_window(c.v, c.zf, [2], rhs_dilate=[2], fn=f32add),
               reduce_window(c.m, c.ninf, [2, 2], [2, 3], rhs_dilate=[2, 2], fn=fmax),
               reduce_window(c.m, c.zf, [2, 3], [2, 2], [(1, 1), (2, 0)], [2, 1], [1, 2], fn=f32add),
               reduce_window(c.v, c.ten, [2], lhs_dilate=[2], fn=f32add))


@golden("reduce_window_variadic")
def _(c):
    i = iota("s32", (7,), 0)
    r = reduce_window([c.x, i], [c.ninf, c.m1], [3], [2], [(1, 1)], fn=argbest(lambda a, b: a > b))
    return tup(tup(*r))


@golden("select_and_scatter")
def _(c):
    spec = select_and_scatter(c.operand, c.source, c.init, [3, 1], [2, 1], [(0, 1), (0, 0)],
                              lambda a, b: a >= b, lambda a, b: a + b)
    assert spec.a.tolist() == [[0, 0], [0, 0], [5, 14], [7, 0]], "the StableHLO example"
    ge, le = (lambda a, b: a >= b), (lambda a, b: a <= b)
    return tup(spec,
               select_and_scatter(c.x, c.g, c.zf, [2, 2], [2, 2], [(0, 0), (0, 0)], ge, f32add),
               select_and_scatter(c.v, c.s, c.one, [2], [1], [(0, 0)], ge, f32add),
               select_and_scatter(c.v, c.s, c.zf, [2], [1], [(0, 0)], le, f32add))


@golden("select_and_scatter_padding")
def _(c):
    ge = lambda a, b: a >= b
    return tup(select_and_scatter(c.v, c.s, c.zf, [3], [2], [(1, 0)], ge, f32add),
               select_and_scatter(c.m, c.g, c.zf, [2, 2], [2, 2], [(0, 1), (0, 1)], ge, f32add))

@golden("select_and_scatter_expanded")
def _(c):
    ge = lambda a, b: a >= b
    plain = [(0, 0)] * 4
    return tup(select_and_scatter(c.x, c.g, c.zf, [1, 2, 2, 1], [1, 2, 2, 1], plain, ge, f32add),
               select_and_scatter(c.x, c.h, c.zf, [1, 2, 2, 1], [1, 1, 1, 1], plain, ge, f32add))


# ---- control flow ------------------------------------------------------------------

@golden("control_call")
def _(c):
    axpy = lambda a, x, y: ew("f32", lambda xi, yi: np.float32(a.a[()] * xi + yi), x, y)
    c1 = axpy(c.a, c.x, c.y)
    return tup(c1, axpy(c.a, c1, c.y), tup(slc(c.v, (2, 4)), slc(c.v, (0, 2))))


@golden("control_async_sugared")
def _(c):
    # Top 3 by value, largest first; ties keep the lower index (stable).
    order = sorted(range(c.v.a.shape[0]), key=lambda i: -float(c.v.a[i]))[:3]
    return tup(L("f32", [c.v.a[i] for i in order]), L("s32", order))


@golden("control_while")
def _(c):
    i = acc = 0
    while i < 10:
        i += 1
        acc += i
    a, b = 0, 1
    for _ in range(90):
        a, b = b, a + b
    return tup(tup(L("s32", i), L("s32", acc)), tup(c.v, c.f),
               tup(L("s64", 90), L("s64", wrap("s64", a)), L("s64", wrap("s64", b))))


@golden("control_conditional")
def _(c):
    v = c.v.a[()]
    branches = [lambda x: x + 100, lambda x: x * 2, lambda x: -x]

    def pick(i, n=3):
        return branches[i] if 0 <= i < n else branches[n - 1]  # out of range: the last branch
    outs = [L("s32", pick(i)(v)) for i in (0, 1, 2, -1, 3, 100)]
    return tup(ew("f32", lambda x: -x, c.x), cvt("f32", c.y), *outs, L("s32", v * 2))


@golden("control_map")
def _(c):
    return tup(ew("f32", lambda x: np.float32(x * x + 1), c.x), ew("s32", lambda a, b: max(a, b) - min(a, b), c.a, c.b),
               ew("pred", lambda a: a & 1 == 1, c.a), c.e)


@golden("control_opt_barrier_tokens")
def _(c):
    return tup(tup(c.x, c.y), c.x, c.y, iop(lambda a, b: a + b)(c.y, c.y))


@golden("control_nested")
def _(c):
    x, n, top = 27, 0, 27
    while x != 1:
        x = 3 * x + 1 if x & 1 else x // 2
        n += 1
        top = max(top, x)
    return L("s64", x), L("s32", n), L("s64", top)

# ---- more types --------------------------------------------------------------------------

@golden("binary_all_types")
def _(c):
    add, mul = iop(lambda a, b: a + b), iop(lambda a, b: a * b)
    fadd, fmul, fsub = fl(lambda a, b: a + b), fl(lambda a, b: a * b), fl(lambda a, b: a - b)
    c1c = cvt("c128", c.c1)
    return tup(ew("pred", lambda a, b: a or b, c.p, c.p), add(c.s2v, c.s2v), mul(c.s4v, c.s4v),
               add(c.s8v, c.s8v), mul(c.s16v, c.s16v), mul(c.s32v, c.s32v), mul(c.s64v, c.s64v),
               add(c.u2v, c.u2v), mul(c.u4v, c.u4v), add(c.u8v, c.u8v), mul(c.u16v, c.u16v),
               add(c.u32v, c.u32v), add(c.u64v, c.u64v), fmul(c.f16v, c.f16v), fmul(c.bf16v, c.bf16v),
               fsub(c.f32v, c.f32v), fmul(c.f64v, c.f64v), fmul(c.e4, c.e4), fmul(c.e5, c.e5),
               fadd(c.e4n, c.e4n), fsub(c.e5n, c.e5n), fmul(c.e4b, c.e4b), fadd(c.e3, c.e3),
               fsub(c.e4i, c.e4i), fadd(c.f4, c.f4), ew("c64", cmul("c64"), c.c1, c.c1),
               ew("c128", lambda a, b: a - b, c.c2, c1c))


@golden("unary_complex_exact")
def _(c):
    def csign(z):
        if z == 0:
            return complex(0, 0)
        m = math.hypot(z.real, z.imag)
        return complex(z.real / m, z.imag / m)

    def csign32(z):
        if z == 0:
            return complex(0, 0)
        m = np.float32(math.hypot(float(z.real), float(z.imag)))
        return complex(np.float32(z.real) / m, np.float32(z.imag) / m)
    return tup(ew("c128", lambda z: -z, c.z), ew("f64", lambda z: math.hypot(z.real, z.imag), c.z),
               ew("c128", csign, c.z), ew("f64", lambda z: z.real, c.z), ew("f64", lambda z: z.imag, c.z),
               ew("c64", lambda z: -z, c.w), ew("f32", lambda z: np.float32(math.hypot(z.real, z.imag)), c.w),
               ew("c64", csign32, c.w), ew("c128", lambda z: complex(np.sqrt(np.complex128(z))), c.sq))


@golden("data_movement_types")
def _(c):
    return tup(transpose(c.a, (1, 0)), concat(0, c.b, c.b), slc(c.c, (0, 5, 2)), pad(c.c, c.fz, [(1, 1, 0)]),
               rev(c.d, [0, 1]), dynamic_slice(c.d, [1, 1], [1, 2]), rev(c.e, [0]),
               bcast(c.f, (2, 4), [1]), concat(0, c.p, c.p))


@golden("convert_f8_cross")
def _(c):
    return tup(cvt("f8e5m2", c.a), canon(cvt("f32", cvt("f8e4m3fn", c.b))), cvt("f8e4m3fnuz", c.c),
               cvt("f4e2m1fn", c.d))


@golden("compare_small_float")
def _(c):
    T = "TOTALORDER"
    return tup(compare("EQ", c.a, c.b), compare("LT", c.a, c.b, T), compare("LT", c.c, c.d),
               compare("GE", c.c, c.d, T), compare("EQ", c.e, c.f), compare("EQ", c.e, c.f, T))


@golden("reduce_types")
def _(c):
    f16add = lambda a, b: farith("f16", lambda x, y: x + y, a, b)
    return tup(reduce_(c.a, c.z8, [1], lambda a, b: wrap("s8", a + b)), reduce_(c.b, c.zu, [0], max),
               reduce_(c.c, c.zh, [0], f16add), reduce_(c.d, c.nb, [0], fmax),
               reduce_(c.e, c.zc, [0], lambda a, b: complex(np.float32(a.real + b.real), np.float32(a.imag + b.imag))),
               reduce_(c.f, c.one, [0], lambda a, b: float(np.float64(a) * np.float64(b))))


@golden("binary_int16")
def _(c):
    e2 = lambda fn, x, y: ew(x.t, lambda a, b: fn(x.t, a, b), x, y)
    return tup(e2(idiv, c.a, c.b), e2(irem, c.a, c.b), e2(ishl, c.a, c.b), e2(ishr_arith, c.a, c.b),
               e2(idiv, c.c, c.d), e2(irem, c.c, c.d), e2(ishr_logical, c.c, c.d), e2(imulhi, c.c, c.c))


@golden("reduce_window_int")
def _(c):
    return tup(reduce_window(c.x, c.seven, [2, 2], [2, 3], [(1, 0), (0, 1)], fn=lambda a, b: wrap("s32", a + b)),
               reduce_window(c.p, c.f, [1, 3], [1, 2], fn=lambda a, b: a or b))

@golden("control_while_array")
def _(c):
    i, v, f = 0, [int(x) for x in elements(c.v)], list(elements(c.f))
    while i < 5:
        v[i] = i * i
        f = [np.float32(x + x) for x in f]
        i += 1
    return tup(L("s32", i), L("s32", v), Lit("f32", np.array(f, dtype=np.float32)))


@golden("control_conditional_tuple")
def _(c):
    b = int(c.b.a[()])
    nested = tup(L("s32", b + 1000 if b > 0 else -b), c.a)  # index 1 (3 > 2)
    swap = tup(c.b, c.a)  # index 0
    return tup(nested, swap)


@golden("reduce_variadic_multi")
def _(c):
    fn = lambda acc, x: (np.float32(np.float32(acc[0]) + np.float32(x[0])), max(acc[1], x[1]),
                         wrap("u8", acc[2] + x[2]))
    r = reduce_([c.f, c.i, c.c], [c.zf, c.mi, c.zc], [0, 2], fn)
    n = reduce_([c.f, c.i, c.c], [c.zf, c.mi, c.zc], [], fn)
    return tup(tup(*r), tup(*n))


@golden("small_programs")
def _(c):
    # The permutation loop, as JAX writes it: dynamic-slices clamp, a
    # scatter whose window reaches outside [0, 6) is skipped.
    perm, piv = list(range(6)), [int(x) for x in c.piv.a]
    for i in range(6):
        p = piv[i]
        pv = perm[max(0, min(p, 5))]
        s = list(perm)
        s[i] = pv
        if 0 <= p < 6:
            s[p] = perm[i]
        perm = s
    # The Philox-style mix, in Python integers (u64 and u32 wrap).
    key, ctr = [int(x) for x in c.key.a], int(c.ctr.a[()])
    lo, hi = [key[0], key[2]], [key[1], key[3]]
    w = lo[1] | (hi[1] << 32)
    x = []
    for k in range(8):
        s = (w + k) % 2**64
        v = ((s * 3528531795) % 2**64) >> 32 if s < w else s
        x.append((v % 2**32) ^ ctr)
    # The dot loop: small integers, so exact in f32.
    m, v, total = c.m.a.astype(np.float64), c.v0.a.astype(np.float64), 0.0
    for _ in range(3):
        v = m @ v
        total += v.sum()
    return tup(L("s32", perm), L("u32", x + lo), L("f32", v), L("f32", total))


@golden("wrapped_in_place_shared")
def _(c):
    start = iota("f32", (6,), 0)

    def scatter_add(base, rows, upd):
        a = base.a.copy()
        for r, u in zip(rows, upd.a):
            a[r] = f32(float(a[r]) + float(u))
        return Lit("f32", a)

    sevens = Lit("f32", np.full(6, np.float32(7), dtype=np.float32))
    return tup(scatter_add(start, [0, 4], c.u1), scatter_add(start, [0, 4], c.u2),
               dynamic_update_slice(start, c.u1, [1]), dynamic_update_slice(sevens, c.u2, [1]),
               dynamic_update_slice(sevens, c.u1, [3]))
