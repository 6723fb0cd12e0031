# Expected values and inputs of the modules that exercise hlo-run's
# specialised reduction paths (eval/kernels/reduce_window.cc,
# eval/kernels/reduce_batched.cc, eval/kernels/select_and_scatter.cc):
# testdata/eval/reduce_window_scan_prefix.hlo, reduce_window_scan_suffix,
# reduce_window_strided, reduce_window_batched, reduce_argmax_ties and
# select_and_scatter_batched. Each module's second RUN line is the general
# evaluator (--no-fast-paths), held to the same expected values. Run inside
# core.py's namespace (eval.py executes every
# scripts/goldens/eval_*.py), so `golden`, `reduce_window`, `Lit`, ...
# are its own.
#
# Exact modules: every output is the spec's fold in window order (row-major
# over the window, starting from the init value, padding reading the init
# value), each step rounded to float32 by numpy, so an implementation that
# reassociates a float sum fails. reduce_window_batched is a tolerance
# module: its logaddexp reducer uses exp and log1p (numpy's float64 ones,
# rounded to f32 after each step as the f32 computation rounds).

_REDUCE_FAST_SEED = 20260715


def _mixed_f32(rng, shape, lo=-2, hi=3):
    """Random f32 values whose magnitudes span 10^lo..10^hi, so that the
    order of a sum matters."""
    mag = 10.0 ** rng.integers(lo, hi, size=shape)
    return (rng.standard_normal(shape) * mag).astype(np.float32)


def _reduce_fast_inputs(name, shapes):
    def make():
        rng = np.random.default_rng(_REDUCE_FAST_SEED + sum(map(ord, name)))
        return {f"{name}.p{i}.npy": _mixed_f32(rng, s) for i, s in enumerate(shapes)}
    return make


INPUT_FILES["reduce_window_scan_prefix"] = _reduce_fast_inputs(
    "reduce_window_scan_prefix", [(9, 37), (4, 3, 16)])

_f32mul = lambda a, b: np.float32(a) * np.float32(b)


@golden("reduce_window_scan_prefix")
def _(c):
    x, w = c.inputs
    f32add_ = lambda a, b: np.float32(a) + np.float32(b)
    rw = reduce_window
    w1 = rw(w, c.zero, [1, 1, 16], pad_=[(0, 0), (0, 0), (15, 0)], fn=f32add_)
    w3 = Lit("f32", w1.a[:, :, 15].copy())
    return tup(rw(x, c.zero, [1, 37], pad_=[(0, 0), (36, 0)], fn=f32add_),
               rw(x, c.zero, [9, 1], pad_=[(8, 0), (0, 0)], fn=f32add_),
               rw(x, c.one, [1, 37], pad_=[(0, 0), (36, 0)], fn=_f32mul),
               rw(c.z, c.ninf, [6, 1], pad_=[(5, 0), (0, 0)], fn=fmax),
               rw(c.z, c.pinf, [1, 5], pad_=[(0, 0), (4, 0)], fn=fmin),
               rw(w3, c.zero, [1, 3], pad_=[(0, 0), (3, 0)], fn=f32add_),
               rw(c.nz, c.hundred, [1, 4], pad_=[(0, 0), (3, 0)], fn=f32add_),
               rw(c.nz, c.negzero, [1, 4], pad_=[(0, 0), (3, 0)], fn=f32add_),
               rw(c.i, c.zi, [3, 1], pad_=[(2, 0), (0, 0)], fn=lambda a, b: wrap("s32", a + b)),
               rw(c.u, c.oneu, [10], pad_=[(9, 0)], fn=lambda a, b: wrap("u8", a * b)),
               rw(c.p, c["no"], [8], pad_=[(7, 0)], fn=lambda a, b: bool(a or b)))


INPUT_FILES["reduce_window_scan_suffix"] = _reduce_fast_inputs(
    "reduce_window_scan_suffix", [(5, 29)])


@golden("reduce_window_scan_suffix")
def _(c):
    (x,) = c.inputs
    f32add_ = lambda a, b: np.float32(a) + np.float32(b)
    rw = reduce_window
    return tup(rw(c.i, c.zi, [1, 6], pad_=[(0, 0), (0, 5)], fn=lambda a, b: wrap("s32", a + b)),
               rw(c.i, c.seven, [3, 1], pad_=[(0, 2), (0, 0)], fn=max),
               rw(c.z, c.ninf, [6, 1], pad_=[(0, 5), (0, 0)], fn=fmax),
               rw(x, c.zero, [1, 29], pad_=[(0, 0), (0, 28)], fn=f32add_),
               rw(c.v, c.ninf, [3], pad_=[(0, 4)], fn=fmax),
               rw(c.b8, c.z8, [6], pad_=[(0, 5)], fn=lambda a, b: wrap("s8", a + b)),
               rw(x, c.zero, [5, 1], pad_=[(0, 4), (0, 0)], fn=f32add_))


INPUT_FILES["reduce_window_strided"] = _reduce_fast_inputs("reduce_window_strided", [(9, 37)])


@golden("reduce_window_strided")
def _(c):
    (x,) = c.inputs
    f32add_ = lambda a, b: np.float32(a) + np.float32(b)
    rw = reduce_window
    every = dict(stride=[2, 3], pad_=[(1, 2), (0, 1)], lhs_dilate=[2, 1], rhs_dilate=[1, 2])
    return tup(rw(x, c.zero, [3, 4], fn=f32add_, **every),
               rw(x, c.ninf, [3, 4], fn=fmax, **every),
               rw(x, c.ten, [1, 18], [1, 18], fn=f32add_),
               rw(x, c.zero, [1, 3], [1, 2], [(0, 0), (1, 1)], [1, 2], fn=f32add_),
               rw(x, c.pinf, [2, 3], pad_=[(1, 1), (2, 2)], rhs_dilate=[1, 3], fn=fmin),
               rw(c.b8, c.z8, [1, 3], [1, 2], [(0, 0), (1, 1)], fn=lambda a, b: wrap("s8", a + b)),
               rw(c.h, c.one16, [2], fn=lambda a, b: wrap("u16", a * b)),
               rw(c.p, c.yes, [2, 2], [1, 2], fn=lambda a, b: bool(a and b)))


def _logaddexp32(a, b):
    """JAX's logaddexp on f32 as the module writes it: each op rounded to
    f32 (exp and log1p from float64, rounded once)."""
    a, b = np.float32(a), np.float32(b)
    with np.errstate(all="ignore"):
        d = np.float32(a - b)
        if d != d:
            return np.float32(a + b)
        e = np.float32(math.exp(-abs(float(d))))
        return np.float32(np.float32(fmax(a, b)) + np.float32(math.log1p(float(e))))


def _bf16add(a, b):
    return round_small(float(np.float32(np.float32(a) + np.float32(b))), "bf16")


INPUT_FILES["reduce_window_batched"] = lambda: {
    k: v / np.float32(100) for k, v in
    _reduce_fast_inputs("reduce_window_batched", [(9, 37), (4, 3, 16)])().items()}


@golden("reduce_window_batched", tol=(1e-05, 1e-05))
def _(c):
    x, w = c.inputs
    rw = reduce_window
    lae = _logaddexp32
    w1 = rw(w, c.ninf, [1, 1, 16], pad_=[(0, 0), (0, 0), (15, 0)], fn=lae)
    w3 = Lit("f32", w1.a[:, :, 15].copy())
    idx = iota("s32", (9, 37), 1)
    am = rw([x, idx], [c.ninf, c.zi], [1, 5], [1, 2], [(0, 0), (2, 2)], fn=argbest(lambda a, b: a > b))
    am2 = rw([x, idx], [c.ninf, c.zi], [3, 2], [2, 3], rhs_dilate=[1, 2],
             fn=argbest(lambda a, b: a > b))
    am3 = rw([w, iota("s32", (4, 3, 16), 1)], [c.ninf, c.zi], [2, 2, 1], [2, 1, 1],
             fn=argbest(lambda a, b: a > b))
    half_sum = lambda a, b: np.float32(np.float32(np.float32(a) + np.float32(b)) * np.float32(0.5))
    xb = cvt("bf16", x)
    return tup(rw(x, c.ninf, [1, 37], pad_=[(0, 0), (36, 0)], fn=lae),
               rw(x, c.ninf, [9, 1], pad_=[(8, 0), (0, 0)], fn=lae),
               rw(w3, c.ninf, [1, 3], pad_=[(0, 0), (3, 0)], fn=lae),
               rw(x, c.zero, [1, 37], pad_=[(0, 0), (36, 0)], fn=lae),
               rw(x, c.ninf, [3, 4], [2, 2], [(1, 1), (1, 1)], [1, 2], fn=lae),
               tup(*am),
               rw(x, c.zero, [2, 2], [1, 2], [(1, 0), (0, 0)], fn=half_sum),
               rw(xb, c.zb, [1, 37], pad_=[(0, 0), (36, 0)], fn=_bf16add),
               tup(*am2),
               tup(*am3))


def _jax_arg(better):
    """jnp.argmin/argmax's reducer: the value picked by better-or-NaN, the
    index also on a tie with a lower index."""
    def fn(acc, x):
        (av, ai), (bv, bi) = acc, x
        pickv = bool(better(av, bv)) or av != av
        picki = pickv or (av == bv and ai < bi)
        return (av if pickv else bv, ai if picki else bi)
    return fn


@golden("reduce_argmax_ties")
def _(c):
    i1 = iota("s32", (6, 9), 1)
    i0 = iota("s32", (6, 9), 0)
    is_ = iota("s32", (4, 5), 1)
    sumsq = lambda a, b: np.float32(np.float32(a) + np.float32(np.float32(b) * np.float32(b)))
    return tup(tup(*reduce_([c.x, i1], [c.pinf, c.zi], [1], _jax_arg(lambda a, b: a < b))),
               tup(*reduce_([c.x, i0], [c.ninf, c.zi], [0], _jax_arg(lambda a, b: a > b))),
               tup(*reduce_([c.x, i1], [c.ninf, c.zi], [1], _jax_arg(lambda a, b: a > b))),
               tup(*reduce_([c.s, is_], [c.smin, c.zi], [1], argbest(lambda a, b: a > b))),
               reduce_(c.q, c.zero, [0], sumsq),
               reduce_(c.q, c.zero, [0, 1], sumsq),
               reduce_(c.x, c.ninf, [0], fmax),
               reduce_(c.xb, c.zb, [1], _bf16add))


def _sas_inputs():
    rng = np.random.default_rng(_REDUCE_FAST_SEED + 7)
    return {"select_and_scatter_batched.p0.npy": rng.integers(0, 4, size=(8, 10)).astype(np.float32),
            "select_and_scatter_batched.p1.npy": rng.integers(1, 10, size=(8, 10)).astype(np.float32)}


INPUT_FILES["select_and_scatter_batched"] = _sas_inputs


@golden("select_and_scatter_batched")
def _(c):
    x, g = c.inputs
    f32add_ = lambda a, b: np.float32(a) + np.float32(b)
    sas = select_and_scatter
    win = ([3, 3], [1, 1], [(1, 1), (1, 1)])
    ge, gt, lt = (lambda a, b: a >= b), (lambda a, b: a > b), (lambda a, b: a < b)
    ge_total = lambda a, b: total_key("f32", a) >= total_key("f32", b)
    twice = lambda a, b: np.float32(np.float32(a) + np.float32(np.float32(b) * np.float32(2)))
    return tup(sas(x, g, c.zero, *win, ge, f32add_),
               sas(x, g, c.zero, *win, ge, f32add_),
               sas(x, g, c.ten, *win, gt, f32add_),
               sas(x, g, c.zero, *win, lt, fmax),
               sas(c.z, c.gz, c.zero, [2, 2], [1, 1], [(0, 1), (0, 1)], ge_total, twice),
               sas(x, g, c.zero, *win, ge_total, f32add_),
               sas(c.si, c.gs, c.zi, [2, 2], [2, 2], [(0, 1), (0, 0)], ge,
                   lambda a, b: wrap("s32", a + b)))
