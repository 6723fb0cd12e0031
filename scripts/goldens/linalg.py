"""Family `linalg`: the expected results of the linear-algebra, FFT and
batch-norm modules in testdata/eval/, computed without hlo-run.

Covers testdata/eval/{cholesky,triangular_solve,fft,batch_norm}_*.hlo,
with core.py's module reader, literal printer and small-float rounding.

Every module is a tolerance module (`// RUN: hlo-run %s --expect
eval/NAME.expect --rtol R --atol A`, an empty NAME.out): LAPACK, BLAS and the
FFT round differently from numpy, so results are compared with a tolerance.
The references, all from numpy in double precision and rounded to the result
type once:

* cholesky: numpy.linalg.cholesky of the Hermitian matrix built from the
  triangle named by `lower` (the other triangle is never read); lower=false
  returns u = l^H (a = u^H u), the other triangle zero. A batch element that
  is not positive definite is all NaN (XLA's CholeskyExpander; the spec
  leaves it undefined).
* triangular-solve: substitution in exact rational arithmetic, rounded once
  (numpy.linalg.solve's last bits depend on the BLAS kernels), on op(t), t
  the triangle of a named by `lower` (with ones on the diagonal when
  unit_diagonal), op per transpose_a (ADJOINT conjugates); right-side
  solves x op(t) = b as op(t)^T x^T = b^T.
* fft: numpy.fft.fftn / ifftn / rfftn / irfftn over the last len(fft_length)
  axes with s=fft_length (ifft and irfft scale by 1/N, as XLA).
* batch-norm: the formulas of stablehlo-spec.en.md written in numpy:
  statistics over every axis but feature_index, biased variance, epsilon
  rounded to the operand type.
"""
import os
import re
from fractions import Fraction

import numpy as np

from goldens import core as g  # reader, printer, float formats

EVAL_DIR = g.EVAL_DIR
PREFIXES = ("cholesky_", "triangular_solve_", "fft_", "batch_norm_")
TESTS = {}


def golden(name, tol):
    def deco(fn):
        assert name not in TESTS, name
        TESTS[name] = (fn, tol)
        return fn
    return deco


def to_type(t, a):
    """A numpy array (double or complex double) rounded to element type t."""
    a = np.asarray(a)
    if t in ("f32", "f64", "c64", "c128"):
        return g.Lit(t, a)
    return g.Lit(t, np.vectorize(lambda v: g.round_small(float(v), t), otypes=[float])(a))


def wide(lit):
    """A Lit's values in double (or complex double)."""
    if g.is_complex(lit.t):
        return lit.a.astype(np.complex128)
    return lit.a.astype(np.float64)


# ============================================================================
# cholesky
# ============================================================================

def cholesky(lit, lower):
    a = wide(lit)
    n = a.shape[-1]
    out = np.empty_like(a)
    for idx in np.ndindex(a.shape[:-2]):
        m = a[idx]
        # The Hermitian matrix defined by the named triangle.
        tri = np.tril(m) if lower else np.triu(m)
        h = tri + (np.tril(m, -1) if lower else np.triu(m, 1)).conj().T
        h[np.diag_indices(n)] = m.diagonal().real
        try:
            l_ = np.linalg.cholesky(h)
        except np.linalg.LinAlgError:
            out[idx] = np.nan
            continue
        out[idx] = l_ if lower else l_.conj().T
    return to_type(lit.t, out)


@golden("cholesky_lower_f32", (1e-4, 1e-5))
def _(c):
    return cholesky(c.a, True)


@golden("cholesky_upper_f64", (1e-10, 1e-12))
def _(c):
    return g.tup(cholesky(c.a, False), cholesky(c.b, False))


@golden("cholesky_complex_c64", (1e-4, 1e-5))
def _(c):
    return cholesky(c.a, True)


@golden("cholesky_complex_c128", (1e-10, 1e-12))
def _(c):
    return cholesky(c.a, False)


@golden("cholesky_not_positive_definite", (1e-4, 1e-5))
def _(c):
    return cholesky(c.a, True)


@golden("cholesky_bf16", (0.02, 0.02))
def _(c):
    return g.tup(cholesky(c.a, True), cholesky(c.b, True))


# ============================================================================
# triangular-solve
# ============================================================================

class Exact:
    """An exact complex (or real) number: a pair of Fractions."""

    def __init__(self, re, im=Fraction(0)):
        self.re, self.im = re, im

    @staticmethod
    def of(x):
        x = complex(x)
        return Exact(Fraction(x.real), Fraction(x.imag))

    def __sub__(self, o):
        return Exact(self.re - o.re, self.im - o.im)

    def __mul__(self, o):
        return Exact(self.re * o.re - self.im * o.im, self.re * o.im + self.im * o.re)

    def __truediv__(self, o):
        d = o.re * o.re + o.im * o.im
        return Exact((self.re * o.re + self.im * o.im) / d, (self.im * o.re - self.re * o.im) / d)

    def rounded(self):
        """Each part correctly rounded to double."""
        return complex(float(self.re), float(self.im))


def exact_triangular_solve(op, rhs):
    """x with op x = rhs for a triangular op, in exact arithmetic and rounded
    once: the same bits on every machine (numpy.linalg.solve's depend on the
    BLAS kernels)."""
    n = op.shape[0]
    lower = not np.any(np.triu(op, 1))
    rows = range(n) if lower else range(n - 1, -1, -1)
    m = [[Exact.of(v) for v in row] for row in op]
    out = np.empty(rhs.shape, dtype=np.complex128)
    for k in range(rhs.shape[1]):
        x = [None] * n
        for i in rows:
            acc = Exact.of(rhs[i, k])
            for j in (range(i) if lower else range(i + 1, n)):
                acc = acc - m[i][j] * x[j]
            x[i] = acc / m[i][i]
        out[:, k] = [v.rounded() for v in x]
    return out if np.iscomplexobj(rhs) else out.real


def triangular_solve(a_lit, b_lit, left_side, lower, unit_diagonal, transpose_a):
    a, b = wide(a_lit), wide(b_lit)
    out = np.empty_like(b)
    for idx in np.ndindex(a.shape[:-2]):
        m = a[idx]
        t = np.tril(m) if lower else np.triu(m)
        if unit_diagonal:
            t[np.diag_indices(t.shape[0])] = 1
        op = {"NO_TRANSPOSE": t, "TRANSPOSE": t.T, "ADJOINT": t.conj().T}[transpose_a]
        if left_side:
            out[idx] = exact_triangular_solve(op, b[idx])
        else:
            out[idx] = exact_triangular_solve(op.T, b[idx].T).T
    return to_type(b_lit.t, out)


_SOLVE = re.compile(r"^\s*(?:ROOT\s+)?(\w+)\s*=\s*\S+\s+triangular-solve\((\w+),\s*(\w+)\),\s*"
                    r"left_side=(\w+),\s*lower=(\w+),\s*unit_diagonal=(\w+),\s*transpose_a=(\w+)")


def solves_in_module(c):
    """Every triangular-solve of the module, in order, from its text."""
    out = []
    for line in c.text.splitlines():
        m = _SOLVE.match(line)
        if m:
            _, a, b, left, lower, unit, tr = m.groups()
            out.append(triangular_solve(c[a], c[b], left == "true", lower == "true",
                                        unit == "true", tr))
    return out


@golden("triangular_solve_left_lower_f32", (1e-4, 1e-5))
def _(c):
    return triangular_solve(c.a, c.b, True, True, False, "NO_TRANSPOSE")


@golden("triangular_solve_options_f64", (1e-10, 1e-12))
def _(c):
    xs = solves_in_module(c)
    assert len(xs) == 20
    return g.tup(*xs)


@golden("triangular_solve_complex_c64", (1e-4, 1e-5))
def _(c):
    xs = solves_in_module(c)
    assert len(xs) == 8
    return g.tup(*xs)


@golden("triangular_solve_complex_c128", (1e-10, 1e-12))
def _(c):
    return triangular_solve(c.a, c.b, False, False, True, "ADJOINT")


@golden("triangular_solve_f16", (0.02, 0.02))
def _(c):
    return g.tup(triangular_solve(c.a, c.b, True, True, False, "NO_TRANSPOSE"),
                 triangular_solve(c.c, c.d, True, True, False, "NO_TRANSPOSE"))


# ============================================================================
# fft
# ============================================================================

def fft(lit, fft_type, length):
    x = wide(lit)
    axes = tuple(range(x.ndim - len(length), x.ndim))
    length = tuple(length)
    if 0 in x.shape:
        shape = list(x.shape)
        if fft_type == "RFFT" and length[-1] > 0:
            shape[-1] = length[-1] // 2 + 1
        if fft_type == "IRFFT":
            shape[-1] = length[-1]
        res = np.zeros(shape, dtype=np.float64 if fft_type == "IRFFT" else np.complex128)
    elif fft_type == "FFT":
        res = np.fft.fftn(x, s=length, axes=axes)
    elif fft_type == "IFFT":
        res = np.fft.ifftn(x, s=length, axes=axes)
    elif fft_type == "RFFT":
        res = np.fft.rfftn(x, s=length, axes=axes)
    else:
        res = np.fft.irfftn(x, s=length, axes=axes)
    t = {("RFFT", "f32"): "c64", ("RFFT", "f64"): "c128",
         ("IRFFT", "c64"): "f32", ("IRFFT", "c128"): "f64"}.get((fft_type, lit.t), lit.t)
    return to_type(t, res)


_FFT = re.compile(r"^\s*(?:ROOT\s+)?(\w+)\s*=\s*\S+\s+fft\((\w+)\),\s*fft_type=(\w+),\s*"
                  r"fft_length=\{([0-9,]*)\}")


def ffts_in_module(c):
    out = []
    for line in c.text.splitlines():
        m = _FFT.match(line)
        if m:
            _, x, fft_type, length = m.groups()
            out.append(fft(c[x], fft_type, [int(v) for v in length.split(",")]))
    return out


@golden("fft_c64_1d", (1e-4, 1e-5))
def _(c):
    return g.tup(*ffts_in_module(c))


@golden("fft_c128_multi", (1e-10, 1e-12))
def _(c):
    return g.tup(*ffts_in_module(c))


@golden("fft_rfft", (1e-4, 1e-5))
def _(c):
    return g.tup(*ffts_in_module(c))


@golden("fft_irfft", (1e-4, 1e-5))
def _(c):
    return g.tup(*ffts_in_module(c))


@golden("fft_small_lengths", (1e-10, 1e-12))
def _(c):
    xs = ffts_in_module(c)
    assert len(xs) == 5
    return g.tup(*xs)


# ============================================================================
# batch norm
# ============================================================================

def epsilon_of(t, eps):
    return float(to_type(t, np.array(eps)).a[()])


def bcast(v, feature_index, rank):
    shape = [1] * rank
    shape[feature_index] = -1
    return v.reshape(shape)


def reduce_axes(rank, feature_index):
    return tuple(i for i in range(rank) if i != feature_index)


def bn_inference(x, scale, offset, mean, var, eps, fi):
    r = x.ndim
    b = lambda v: bcast(v, fi, r)  # noqa: E731
    return b(scale) * ((x - b(mean)) / np.sqrt(b(var) + eps)) + b(offset)


def batch_norm_training(x_lit, s_lit, o_lit, eps, fi):
    x = wide(x_lit)
    eps = epsilon_of(x_lit.t, eps)
    axes = reduce_axes(x.ndim, fi)
    mean = x.mean(axis=axes)
    var = ((x - bcast(mean, fi, x.ndim)) ** 2).mean(axis=axes)
    y = bn_inference(x, wide(s_lit), wide(o_lit), mean, var, eps, fi)
    return g.tup(to_type(x_lit.t, y), to_type(x_lit.t, mean), to_type(x_lit.t, var))


def batch_norm_grad(x_lit, s_lit, m_lit, v_lit, g_lit, eps, fi):
    """The decomposition of stablehlo-spec.en.md, batch_norm_grad."""
    x, scale, mean, var, dy = (wide(v) for v in (x_lit, s_lit, m_lit, v_lit, g_lit))
    eps = epsilon_of(x_lit.t, eps)
    r = x.ndim
    b = lambda v: bcast(v, fi, r)  # noqa: E731
    axes = reduce_axes(r, fi)
    n = x.size / x.shape[fi]
    centered = x - b(mean)
    stddev = np.sqrt(b(var) + eps)
    i1 = dy * n
    i2 = b(dy.sum(axis=axes))
    i3 = b((dy * centered).sum(axis=axes))
    i5 = i3 * centered / (b(var) + eps)
    i6 = i1 - i2 - i5
    grad_x = b(scale) / stddev / n * i6
    grad_scale = (dy * (centered / stddev)).sum(axis=axes)
    grad_offset = dy.sum(axis=axes)
    t = x_lit.t
    return g.tup(to_type(t, grad_x), to_type(t, grad_scale), to_type(t, grad_offset))


@golden("batch_norm_training_f32", (1e-4, 1e-5))
def _(c):
    return batch_norm_training(c.x, c.s, c.o, 0.001, 1)


@golden("batch_norm_inference_f64", (1e-10, 1e-12))
def _(c):
    eps = epsilon_of("f64", 0.01)
    a = bn_inference(wide(c.x), wide(c.s0), wide(c.o0), wide(c.m0), wide(c.v0), eps, 0)
    b = bn_inference(wide(c.x), wide(c.s2), wide(c.o2), wide(c.m2), wide(c.v2), eps, 2)
    return g.tup(to_type("f64", a), to_type("f64", b))


@golden("batch_norm_grad_f32", (1e-4, 1e-5))
def _(c):
    return batch_norm_grad(c.x, c.s, c.m, c.v, c.g, 0.001, 1)


@golden("batch_norm_bf16_f16", (0.02, 0.02))
def _(c):
    eps = epsilon_of("f16", 0.1)
    inf = bn_inference(wide(c.xh), wide(c.sh), wide(c.oh), wide(c.mh), wide(c.vh), eps, 1)
    return g.tup(batch_norm_training(c.x, c.s, c.o, 0.1, 1), to_type("f16", inf),
                 batch_norm_grad(c.xh, c.sh, c.mh, c.vh, c.gh, 0.1, 1))


# ============================================================================
# Driver
# ============================================================================

def generate(w, name_filter):
    """Writes (or checks) the family's files; returns its number of modules."""
    names = sorted(f[:-len(".hlo")] for f in os.listdir(EVAL_DIR)
                   if f.endswith(".hlo") and f.startswith(PREFIXES))
    for name in names:
        if not re.search(name_filter, name):
            continue
        if name not in TESTS:
            w.problem(f"{name}.hlo: no generator in scripts/goldens/linalg.py")
            continue
        fn, tol = TESTS[name]
        text, consts = g.read_module(os.path.join(EVAL_DIR, name + ".hlo"))
        w.claim_module(f"eval/{name}.hlo", text)
        consts.text = text
        args = g.run_args(text)
        want_expect = f"eval/{name}.expect"
        ok = (args and args[:2] == ["hlo-run", "%s"] and "--expect" in args
              and args[args.index("--expect") + 1] == want_expect
              and "--rtol" in args and float(args[args.index("--rtol") + 1]) == tol[0]
              and "--atol" in args and float(args[args.index("--atol") + 1]) == tol[1])
        if not ok:
            w.problem(f"{name}.hlo: RUN line must be `hlo-run %s --expect {want_expect} "
                      f"--rtol {tol[0]} --atol {tol[1]}`")
            continue
        try:
            res = fn(consts)
        except Exception as e:  # a bug in a generator; say where
            import traceback
            w.problem(f"{name}: generator failed: {e!r}")
            if w.verbose:
                traceback.print_exc()
            continue
        want_shape = g.declared_root_shape(text)
        if want_shape is not None and want_shape != g.result_shape(res).replace(" ", ""):
            w.problem(f"{name}: generator gives {g.result_shape(res)}, the module's ROOT "
                      f"is {want_shape}")
            continue
        w.file(f"eval/{name}.expect", g.result_text(res) + "\n")
        w.file(f"eval/{name}.out", "")
    for name in sorted(TESTS):
        if name not in names:
            w.problem(f"{name}: generator without testdata/eval/{name}.hlo")
    return len(names)
