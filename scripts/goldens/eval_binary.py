# Expected values of the binary arithmetic, compare, select and clamp
# modules of testdata/eval (see eval.py).
# Run inside core.py's namespace (eval.py executes every
# scripts/goldens/eval_*.py), so `golden`, `L`, `tup`, `wrap` and the
# other helpers and semantics functions there are its own.

# ---- binary arithmetic ----------------------------------------------------------

def iop(fn):
    """Elementwise integer op on Lits (exact, then wrapped to the type)."""
    return lambda x, y: ew(x.t, lambda a, b: wrap(x.t, fn(a, b)) if x.t != "pred" else fn(a, b), x, y)


@golden("binary_add_int")
def _(c):
    add = iop(lambda a, b: a + b)
    return tup(add(c.a8, c.b8), add(c.a32, c.b32), add(c.a64, c.b64), add(c.au, c.bu), add(c.a16, c.b16),
               add(c.a64u, c.b64u), add(c.a4, c.b4), add(c.au4, c.bu4), add(c.a2, c.b2), add(c.au2, c.bu2),
               ew("pred", lambda a, b: a or b, c.p, c.q))


@golden("binary_add_float")
def _(c):
    add = fl(lambda a, b: a + b)
    return tup(canon(add(c.x, c.y)), add(c.a, c.b), add(c.bx, c.by), add(c.hx, c.hy))


@golden("binary_subtract")
def _(c):
    sub = iop(lambda a, b: a - b)
    return tup(sub(c.a, c.b), sub(c.u, c.v), sub(c.s4a, c.s4b), canon(fl(lambda a, b: a - b)(c.x, c.y)),
               ew("c64", lambda a, b: complex(np.float32(a.real) - np.float32(b.real),
                                              np.float32(a.imag) - np.float32(b.imag)), c.z, c.w))


@golden("binary_multiply_int")
def _(c):
    mul = iop(lambda a, b: a * b)
    return tup(mul(c.a, c.b), mul(c.c, c.d), mul(c.e, c.f), mul(c.g, c.h), mul(c.i, c.j), mul(c.k, c.l),
               mul(c.m, c.n), mul(c.o, c.q), ew("pred", lambda a, b: a and b, c.p, c.p2))


def cmul(t):
    """(a+bi)(c+di) = (ac - bd) + (ad + bc)i in the component type."""
    f = np.float32 if t == "c64" else np.float64

    def one(x, y):
        a, b, c_, d = f(x.real), f(x.imag), f(y.real), f(y.imag)
        return complex(a * c_ - b * d, a * d + b * c_)
    return one


@golden("binary_multiply_float")
def _(c):
    mul = fl(lambda a, b: a * b)
    return tup(canon(mul(c.x, c.y)), mul(c.a, c.b), mul(c.bx, c.by), mul(c.hx, c.hy),
               ew("c64", cmul("c64"), c.z, c.w), ew("c128", cmul("c128"), c.zz, c.zz))

@golden("binary_divide_int")
def _(c):
    dv = lambda x, y: ew(x.t, lambda a, b: idiv(x.t, a, b), x, y)
    return tup(dv(c.a, c.b), dv(c.c, c.d), dv(c.e, c.f), dv(c.g, c.h), dv(c.i, c.j), dv(c.k, c.l),
               dv(c.m, c.n), dv(c.o, c.q), dv(c.s2a, c.s2b), dv(c.s16a, c.s16b))


@golden("binary_remainder_int")
def _(c):
    rm = lambda x, y: ew(x.t, lambda a, b: irem(x.t, a, b), x, y)
    return tup(rm(c.a, c.b), rm(c.c, c.d), rm(c.e, c.f), rm(c.g, c.h), rm(c.i, c.j), rm(c.k, c.l),
               rm(c.m, c.n), rm(c.o, c.q), rm(c.s2a, c.s2b), rm(c.s16a, c.s16b))


def cdiv64(x, y):
    """c64 division; the modules use operands whose quotient is exact."""
    q = complex(x) / complex(y)
    return complex(np.float32(q.real), np.float32(q.imag))


@golden("binary_divide_float")
def _(c):
    dv = fl(lambda a, b: a / b)
    return tup(canon(dv(c.x, c.y)), dv(c.a, c.b), dv(c.bx, c.by), dv(c.hx, c.hy), ew("c64", cdiv64, c.z, c.w))


@golden("binary_remainder_float")
def _(c):
    rm = fl(lambda a, b: np.fmod(a, b))  # fmod is exact
    return tup(canon(rm(c.x, c.y)), rm(c.a, c.b), rm(c.bx, c.by))


@golden("binary_power_int")
def _(c):
    pw = lambda x, y: ew(x.t, lambda a, b: ipow(x.t, a, b), x, y)
    return tup(pw(c.a, c.b), pw(c.c, c.d), pw(c.e, c.f), pw(c.g, c.h), pw(c.i, c.j))


def cpow(a, b):
    """C99 pow in double (Python's math.pow raises where C returns inf/NaN)."""
    a, b = float(a), float(b)
    if a == 0 and b < 0:  # pole: +-inf, the sign of a for odd integer b
        odd = b == math.floor(b) and int(b) % 2 == 1
        return math.copysign(math.inf, a) if odd else math.inf
    try:
        return math.pow(a, b)
    except ValueError:  # negative base, non-integer exponent
        return NAN
    except OverflowError:
        return math.inf


@golden("binary_power_special")
def _(c):
    # math.pow follows C99 Annex F for the special cases (x^0 = 1, 1^y = 1, ...)
    return tup(canon(ew("f32", lambda a, b: np.float32(cpow(a, b)), c.x, c.y)),
               ew("bf16", lambda a, b: round_small(cpow(a, b), "bf16"), c.b, c.e))

def complex_pow(t):
    """x^y: XLA's special cases, else exp(y log x) in a wider type than t's
    (numpy complex128 for c64, long double for c128), rounded once to t."""
    wide = np.complex128 if t == "c64" else np.clongdouble

    def one(x, y):
        if x == 1 or y == 0:
            return complex(1, 0)
        if x.imag == 0 and y.imag == 0:
            if math.isinf(x.real) and x.real > 0 and y.real != 0:
                return complex(math.inf if y.real > 0 else 0, 0)
            if x.real == 0 and y.real > 0:
                return complex(0, 0)
        with np.errstate(all="ignore"):
            r = np.exp(wide(y) * np.log(wide(x)))
        return complex(r) if t == "c128" else complex(np.complex64(r))
    return one


@golden("binary_power_complex")
def _(c):
    return tup(ew("c64", complex_pow("c64"), c.x, c.y), ew("c128", complex_pow("c128"), c.xx, c.yy))


@golden("binary_complex")
def _(c):
    return tup(ew("c64", lambda a, b: complex(a, b), c.a, c.b), ew("c128", lambda a, b: complex(a, b), c.c, c.d))


@golden("binary_mulhi")
def _(c):
    mh = lambda x, y: ew(x.t, lambda a, b: imulhi(x.t, a, b), x, y)
    return tup(mh(c.a, c.b), mh(c.c, c.d), mh(c.e, c.f), mh(c.g, c.h), mh(c.i, c.j), mh(c.k, c.l),
               mh(c.m, c.n), mh(c.o, c.q))


@golden("binary_max_min_int")
def _(c):
    out = []
    for x, y in ((c.a, c.b), (c.c, c.d), (c.e, c.f), (c.g, c.h), (c.i, c.j), (c.k, c.l), (c.m, c.n), (c.p, c.q)):
        out += [ew(x.t, max, x, y), ew(x.t, min, x, y)]
    return out


@golden("binary_max_min_nan")
def _(c):
    out = []
    for x, y in ((c.x, c.y), (c.a, c.b), (c.bx, c.by), (c.hx, c.hy)):
        both = elements(ew(x.t, fmax, x, y)) + elements(ew(x.t, fmin, x, y))
        out.append(canon(Lit(x.t, np.array(both, dtype=x.a.dtype))))
    return out


@golden("binary_max_min_signed_zero")
def _(c):
    out = []
    for x, y in ((c.x, c.y), (c.a, c.b), (c.c, c.d)):
        out += [ew(x.t, fmax, x, y), ew(x.t, fmin, x, y)]
    return out


def cmax(a, b):
    return a if (a.real, a.imag) >= (b.real, b.imag) else b


def cmin(a, b):
    return a if (a.real, a.imag) <= (b.real, b.imag) else b


@golden("binary_max_min_complex")
def _(c):
    return tup(ew("c64", cmax, c.z, c.w), ew("c64", cmin, c.z, c.w),
               ew("c128", cmax, c.a, c.b), ew("c128", cmin, c.a, c.b))


@golden("binary_logical")
def _(c):
    out = [ew("pred", lambda a, b: a and b, c.p, c.q), ew("pred", lambda a, b: a or b, c.p, c.q),
           ew("pred", lambda a, b: a != b, c.p, c.q)]
    for x, y in ((c.a, c.b), (c.c, c.d), (c.e, c.f), (c.g, c.h), (c.i, c.j), (c.k, c.l)):
        out += [iop(lambda a, b: a & b)(x, y), iop(lambda a, b: a | b)(x, y), iop(lambda a, b: a ^ b)(x, y)]
    return out

@golden("binary_shift_left")
def _(c):
    sh = lambda x, y: ew(x.t, lambda a, b: ishl(x.t, a, b), x, y)
    return tup(sh(c.a, c.b), sh(c.c, c.d), sh(c.e, c.f), sh(c.g, c.h), sh(c.i, c.j), sh(c.k, c.l),
               sh(c.m, c.n), sh(c.o, c.q))


@golden("binary_shift_right_arithmetic")
def _(c):
    sh = lambda x, y: ew(x.t, lambda a, b: ishr_arith(x.t, a, b), x, y)
    return tup(sh(c.a, c.b), sh(c.c, c.d), sh(c.e, c.f), sh(c.g, c.h), sh(c.i, c.j), sh(c.k, c.l),
               sh(c.m, c.n))


@golden("binary_shift_right_logical")
def _(c):
    sh = lambda x, y: ew(x.t, lambda a, b: ishr_logical(x.t, a, b), x, y)
    return tup(sh(c.a, c.b), sh(c.c, c.d), sh(c.e, c.f), sh(c.g, c.h), sh(c.i, c.j), sh(c.k, c.l),
               sh(c.m, c.n))

@golden("binary_shift_lanes")
def _(c):
    out = []
    for t in ("s32", "u32", "s64", "u8", "s16"):
        x, n = c[t + "_x"], c[t + "_n"]
        for f in (ishl, ishr_logical, ishr_arith):
            out.append(ew(t, lambda a, b, f=f: f(t, a, b), x, n))
    return tup(*out)

# ---- compare, select, clamp -----------------------------------------------------

DIRS = ("EQ", "NE", "LT", "LE", "GT", "GE")


@golden("compare_float")
def _(c):
    return [compare(d, c.x, c.y) for d in DIRS]


@golden("compare_totalorder")
def _(c):
    return [compare(d, c.x, c.y, "TOTALORDER") for d in DIRS]


@golden("compare_totalorder_types")
def _(c):
    T = "TOTALORDER"
    return tup(compare("LT", c.a, c.b, T), compare("EQ", c.a, c.b, T), compare("LT", c.a, c.b),
               compare("LT", c.c, c.d, T), compare("GE", c.c, c.d, T), compare("GE", c.c, c.d),
               compare("LE", c.e, c.f, T), compare("NE", c.e, c.f, T), compare("NE", c.e, c.f))


@golden("compare_order")
def _(c):
    T = "TOTALORDER"  # order=TOTAL is XLA's newer spelling of the same compare
    return tup(compare("LT", c.x, c.y, T), compare("EQ", c.x, c.y, T), compare("GE", c.x, c.y, T),
               compare("LT", c.x, c.y), compare("EQ", c.x, c.y), compare("GT", c.a, c.b, T),
               compare("LE", c.c, c.d, T), compare("NE", c.e, c.f, T), compare("LT", c.i, c.j))


@golden("compare_int")
def _(c):
    return tup(compare("LT", c.a, c.b), compare("GE", c.a, c.b), compare("GT", c.c, c.d),
               compare("LE", c.c, c.d), compare("LT", c.e, c.f), compare("GT", c.g, c.h),
               compare("LT", c.i, c.j), compare("GE", c.k, c.l), compare("GT", c.s8a, c.s8b),
               compare("GT", c.u8a, c.u8b), compare("LT", c.p, c.q), compare("EQ", c.p, c.q),
               compare("NE", c.a, c.b))


@golden("compare_complex")
def _(c):
    return tup(ew("pred", lambda a, b: a == b, c.z, c.w), ew("pred", lambda a, b: a != b, c.z, c.w),
               ew("pred", lambda a, b: a == b, c.a, c.b))


def select(p, a, b):
    return Lit(a.t, np.where(p.a.astype(bool), a.a, b.a) if p.a.ndim else (a.a if p.a[()] else b.a).copy())


@golden("select")
def _(c):
    return tup(select(c.p, c.a, c.b), select(c.p, c.x, c.y), select(c.t, c.a, c.b), select(c.f, c.a, c.b),
               select(c.p, c.pa, c.pb), select(c.p, c.u, c.v), select(c.p, c.z, c.w),
               select(c.f, c.bx, c.by))


def clamp(lo, x, hi):
    if is_float(x.t):
        return ew(x.t, lambda a, l, h: fmin(fmax(a, l), h), x, lo, hi)
    return ew(x.t, lambda a, l, h: min(max(a, l), h), x, lo, hi)


@golden("clamp")
def _(c):
    return tup(clamp(c.lo, c.x, c.hi), clamp(c.los, c.x, c.his), clamp(c.ulo, c.u, c.uhi),
               clamp(c.qlo, c.q, c.qhi), canon(clamp(c.flo, c.f, c.fhi)), clamp(c.blo, c.b, c.bhi))

@golden("binary_f8_arith")
def _(c):
    add, mul = fl(lambda x, y: x + y), fl(lambda x, y: x * y)
    sub, div = fl(lambda x, y: x - y), fl(lambda x, y: x / y)
    parts = []
    for r in (add(c.a, c.b), mul(c.a, c.b), add(c.c, c.d), mul(c.c, c.d), add(c.e, c.f), add(c.g, c.h),
              mul(c.g, c.h), add(c.i, c.j), mul(c.k, c.l), sub(c.k, c.l), add(c.m, c.n), div(c.m, c.n)):
        parts += elements(cvt("f32", r))
    return tup(canon(L("f32", parts)), add(c.o, c.q), mul(c.o, c.q))


@golden("unary_small_float")
def _(c):
    neg = fl(lambda x: -x)
    ab = fl(np.abs)
    sq = fl(np.sqrt)
    return tup(ab(c.a), neg(c.a), ew(c.a.t, fsign, c.a), fl(np.floor)(c.a), fl(np.rint)(c.a),
               neg(c.b), ab(c.b), canon(cvt("f32", sq(c.b))), neg(c.c), ab(c.c), neg(c.d), fl(np.ceil)(c.d),
               neg(c.e), ab(c.e), ew(c.e.t, lambda x: round_small(round_afz(x), "f4e2m1fn"), c.e),
               neg(c.f), sq(ab(c.f)))
