"""Family `lapack`: writes the modules testdata/eval/lapack_*.hlo, which run
jaxlib's CPU LAPACK custom-calls, and their expected results, computed
without hlo-run.

Each module calls custom-call targets with the text JAX and XLA print for
them (jax/_src/lax/linalg.py's lowerings, jaxlib/cpu/lapack_kernels.cc's
operands, results and attributes; the legacy forms from jaxlib 0.4.30's
jaxlib/lapack.py): column-major operand_layout_constraints and result
layouts for the matrices, FFI attributes as the MLIR dictionary in
backend_config, the legacy forms' sizes as leading scalar operands.

The expected values come from scipy.linalg.lapack (and scipy.linalg.blas for
trsm), which calls the same LAPACK routine on the same matrix. That is the
oracle these kernels need: a LAPACK custom-call's result is LAPACK's output,
including its conventions where the mathematics leaves a choice open (the
Householder vectors of a QR, the untouched triangle of a Cholesky factor,
the pivots of an LU). Those are fixed by the routine's algorithm, so any
LAPACK derived from the reference implementation gives them; where LAPACK's
path depends on the workspace size the same optimal size is asked for (the
*_lwork queries), and the inputs are well conditioned so rounding cannot
flip a choice. Each
generator also checks the scipy outputs against the factorisation they
claim (a = l l^H, a = q r, a v = v diag(w), ...), so a misread output
fails here instead of becoming an expected value. Outputs whose contents
LAPACK leaves unspecified (gesdd's destroyed x, workspaces) are not
compared: the modules return only the defined ones, through
get-tuple-element, as JAX does.

Results that the mathematics leaves open and that differ between LAPACK
builds and CPU kernels in practice (the Schur form and vectors of gees, the
eigenvectors of geev and syevd/heevd, the singular vectors of gesdd/gesvd:
their signs, phases, and the order of gees's eigenvalues) are not compared
with scipy's: those modules (Module.check) also return their input matrices
and their RUN line hands every result, as .npy, to
scripts/lapack_properties.py, which checks the defining properties (A = Z T
Z^H with Z unitary and T in Schur form, A v = v diag(w), eigenvalues and
singular values against numpy, info); they have no .expect file.

Modules come in pairs: NAME_single (f32 and c64, rtol 1e-4) and NAME_double
(f64 and c128, rtol 1e-10).
"""
import re

import numpy as np
import scipy.linalg.blas as blas
import scipy.linalg.lapack as lapack

from goldens import core as g  # literal printer and reader

EVAL_DIR = g.EVAL_DIR
HLO_TYPE = {"s": "f32", "d": "f64", "c": "c64", "z": "c128"}
REAL_OF = {"f32": "f32", "f64": "f64", "c64": "f32", "c128": "f64"}
NP = {"f32": np.float32, "f64": np.float64, "c64": np.complex64, "c128": np.complex128}
PRECISIONS = {"single": ("sc", (1e-4, 1e-5)), "double": ("dz", (1e-10, 1e-12))}
GENERATORS = {}


def generator(name, comment):
    def deco(fn):
        GENERATORS[name] = (fn, comment)
        return fn
    return deco


# ============================================================================
# Module text
# ============================================================================

def layout(rank, column_major):
    if rank == 0:
        return ""
    if column_major and rank >= 2:
        order = [rank - 2, rank - 1] + list(range(rank - 3, -1, -1))
    else:
        order = list(range(rank - 1, -1, -1))
    return "{" + ",".join(map(str, order)) + "}"


def shape(t, dims, column_major=False):
    return f"{t}[{','.join(map(str, dims))}]{layout(len(dims), column_major)}"


class Module:
    """An ENTRY computation: constants, custom-calls, get-tuple-elements and a
    ROOT tuple of the outputs with their expected values."""

    def __init__(self):
        self.lines = []
        self.outputs = []  # (name, expected Lit)
        self.inputs = {}  # constant name -> its index in outputs
        self.checks = []  # lapack_properties.py checks; none: compare values
        self.count = 0

    def fresh(self, base):
        self.count += 1
        return f"{base}.{self.count}"

    def const(self, lit, base="x", column_major=False):
        name = self.fresh(base)
        self.lines.append(f"{name} = {shape(lit.t, lit.dims, column_major)} "
                          f"constant({g.value_text(lit)})")
        return name

    def scalar(self, t, v):
        return self.const(g.Lit(t, np.array(v)), "s")

    def copy(self, operand, lit, column_major):
        name = self.fresh("copy")
        self.lines.append(f"{name} = {shape(lit.t, lit.dims, column_major)} copy({operand})")
        return name

    def custom_call(self, target, operands, results, *, ffi=True, attrs="", aliasing="",
                    constraints=None, tuple_result=True):
        """operands: [(name, t, dims)]; results: [(t, dims)]. Matrices (the
        operands' largest rank) are column-major, as _linalg_ffi_lowering and
        the legacy lowerings lay them out."""
        top = max(len(d) for _, _, d in operands)
        rs = [shape(t, d, len(d) == top) for t, d in results]
        result_text = "(" + ", ".join(rs) + ")" if tuple_result else rs[0]
        if constraints is None:
            constraints = [shape(t, d, len(d) == top) for _, t, d in operands]
        name = self.fresh(target)
        parts = [f"{name} = {result_text} custom-call({', '.join(n for n, _, _ in operands)})",
                 f'custom_call_target="{target}"']
        if constraints:
            parts.append("operand_layout_constraints={" + ", ".join(constraints) + "}")
        if aliasing:
            parts.append(f"output_to_operand_aliasing={{{aliasing}}}")
        if ffi:
            parts.append("api_version=API_VERSION_TYPED_FFI")
            parts.append(f'frontend_attributes={{num_batch_dims="{top - 2}"}}')
            parts.append(f"backend_config={{{attrs}}}")
        else:
            parts.append("api_version=API_VERSION_STATUS_RETURNING")
        self.lines.append(", ".join(parts))
        self.results = (name, results, top)
        return name

    def output(self, call, index, lit, results=None, top=None):
        """Returns get-tuple-element `index` of the last custom-call, expected `lit`."""
        cname, rs, rtop = self.results
        t, dims = rs[index]
        assert lit.t == t and tuple(lit.dims) == tuple(dims), (call, index, lit.t, lit.dims, t, dims)
        name = self.fresh("gte")
        self.lines.append(f"{name} = {shape(t, dims, len(dims) == rtop)} "
                          f"get-tuple-element({cname}), index={index}")
        self.outputs.append((name, lit))
        return len(self.outputs) - 1

    def input(self, name, lit):
        """Returns constant `name` too (the property checker reads the
        matrix); its index in the ROOT tuple."""
        if name not in self.inputs:
            self.inputs[name] = len(self.outputs)
            self.outputs.append((name, lit))
        return self.inputs[name]

    def check(self, kind, parts, **options):
        """A lapack_properties.py check of the last custom-call's results:
        parts maps each part (a, t, z, w, ...) to its index in the ROOT tuple."""
        items = [f"{k}={v}" for k, v in parts.items()] + [f"{k}={v}" for k, v in options.items()]
        self.checks.append(f"{kind}[{self.results[0]}]:{','.join(items)}")

    def whole(self, lit):
        """The last custom-call's (array) result itself."""
        cname, _, _ = self.results
        self.outputs.append((cname, lit))

    def text(self, name, comment, tol):
        if self.checks:
            # Two RUN lines (one %t), neither continued: scripts that read
            # RUN lines (fusion_agreement.py, semantics_check.py) take the
            # first as a plain hlo-run and skip the second.
            body = ["// RUN: hlo-run %s --output-format npy -o %t",
                    "// RUN: /usr/bin/python3 ../scripts/lapack_properties.py %t "
                    + " ".join(self.checks),
                    f"// {comment} Written by scripts/goldens/lapack.py; the results are "
                    "not unique (signs, phases, order), so scripts/lapack_properties.py checks "
                    "their defining properties against numpy (the module also returns its "
                    "input matrices, the checks' a)."]
        else:
            body = [f"// RUN: hlo-run %s --expect eval/{name}.expect --rtol {tol[0]} "
                    f"--atol {tol[1]}",
                    f"// {comment} Expected: scripts/goldens/lapack.py (scipy.linalg.lapack)."]
        body += [f"HloModule {name}", "", "ENTRY main {"]
        body += ["  " + line for line in self.lines]
        outs = ", ".join(n for n, _ in self.outputs)
        root_shape = "(" + ", ".join(g.shape_text(l) for _, l in self.outputs) + ")"
        body.append(f"  ROOT result = {root_shape} tuple({outs})")
        body.append("}")
        return "\n".join(body) + "\n", [l for _, l in self.outputs]


# ============================================================================
# Inputs and checks
# ============================================================================

def lit(t, a):
    return g.Lit(t, np.asarray(a))


def rand(rng, t, dims):
    a = np.round(rng.uniform(-1, 1, dims), 2)
    if g.is_complex(t):
        a = a + 1j * np.round(rng.uniform(-1, 1, dims), 2)
    return lit(t, a)


def hermitian_pd(rng, t, dims):
    """Positive definite (diagonally dominant) Hermitian matrices."""
    a = rand(rng, t, dims).a.astype(np.complex128 if g.is_complex(t) else np.float64)
    h = (a + np.conj(np.swapaxes(a, -1, -2))) / 2
    n = dims[-1]
    h = h + n * np.eye(n)
    return lit(t, np.round(h, 2))


def batches(a):
    """(index, matrix) over the leading dimensions."""
    return [(i, a[i]) for i in np.ndindex(a.shape[:-2])]


def close(x, y, t):
    tol = 1e-4 if t in ("f32", "c64") else 1e-10
    assert np.allclose(x, y, rtol=tol, atol=tol * 10), (x, y)


def fn(letter, name):
    """scipy's wrapper for LAPACK routine `name` in precision `letter`."""
    return getattr(lapack, letter + name)


def lwork_of(letter, name, *args, **kw):
    """LAPACK's optimal workspace (scipy's *_lwork query)."""
    out = getattr(lapack, letter + name + "_lwork")(*args, **kw)
    work, info = out[:-1], out[-1]
    assert info == 0
    return max(1, int(np.real(work[0])))


def empty(t, dims):
    return np.zeros(dims, dtype=NP[t])


def s32(a):
    return lit("s32", np.asarray(a, dtype=np.int64))


def uplo_attr(lower):
    return f"uplo = {ord('L' if lower else 'U')} : ui8"


# ============================================================================
# potrf, trsm
# ============================================================================

def potrf_ref(letter, a, lower):
    t = HLO_TYPE[letter]
    out, info = empty(t, a.shape), np.zeros(a.shape[:-2], dtype=np.int64)
    for i, m in batches(a):
        c, inf = fn(letter, "potrf")(m, lower=lower, clean=0)
        out[i], info[i] = c, inf
        if inf == 0:
            f = np.tril(c) if lower else np.triu(c)
            h = f @ f.conj().T if lower else f.conj().T @ f
            tri = np.tril if lower else np.triu
            close(tri(h), tri(m), t)
    return lit(t, out), s32(info)


@generator("lapack_potrf", "Cholesky: lapack_?potrf_ffi with uplo L and U on a batch (LAPACK leaves "
           "the other triangle as it was), a matrix that is not positive definite (info > 0), an "
           "operand already column-major without constraints, row-major constraints (the kernel "
           "then factors the transpose), and the legacy lapack_?potrf.")
def _(m, letter, rng):
    t = HLO_TYPE[letter]
    a = hermitian_pd(rng, t, (2, 4, 4))
    bad = lit(t, np.array([[1, 2, 0], [2, 1, 0], [0, 0, 1]]))
    x = m.const(a, "a")
    xb = m.const(bad, "bad")
    for lower in (True, False):
        m.custom_call(f"lapack_{letter}potrf_ffi", [(x, t, a.dims)], [(t, a.dims), ("s32", [2])],
                      attrs=uplo_attr(lower), aliasing="{0}: (0, {})")
        f, info = potrf_ref(letter, a.a, lower)
        m.output(0, 0, f)
        m.output(0, 1, info)
    m.custom_call(f"lapack_{letter}potrf_ffi", [(xb, t, bad.dims)], [(t, bad.dims), ("s32", [])],
                  attrs=uplo_attr(True), aliasing="{0}: (0, {})")
    f, info = potrf_ref(letter, bad.a, True)
    assert info.a[()] == 2
    m.output(0, 0, f)
    m.output(0, 1, info)
    # In the operand's own (column-major) layout: no constraints.
    xc = m.copy(x, a, column_major=True)
    m.custom_call(f"lapack_{letter}potrf_ffi", [(xc, t, a.dims)], [(t, a.dims), ("s32", [2])],
                  attrs=uplo_attr(True), constraints=[])
    f, info = potrf_ref(letter, a.a, True)
    m.output(0, 0, f)
    # Row-major memory read column-major is the transpose: LAPACK factors
    # a^T, and its column-major output read back row-major is transposed.
    m.custom_call(f"lapack_{letter}potrf_ffi", [(x, t, a.dims)], [(t, a.dims), ("s32", [2])],
                  attrs=uplo_attr(True), constraints=[shape(t, a.dims)])
    m.lines[-1] = m.lines[-1].replace(f"= ({shape(t, a.dims, True)}", f"= ({shape(t, a.dims)}")
    f, info = potrf_ref(letter, np.swapaxes(a.a, -1, -2), True)
    m.output(0, 0, lit(t, np.swapaxes(f.a, -1, -2)))
    # Legacy: (lower, batch, n, a) -> (a, info).
    ops = [(m.scalar("s32", 0), "s32", []), (m.scalar("s32", 2), "s32", []),
           (m.scalar("s32", 4), "s32", []), (x, t, a.dims)]
    m.custom_call(f"lapack_{letter}potrf", ops, [(t, a.dims), ("s32", [2])], ffi=False,
                  aliasing="{0}: (3, {})")
    f, info = potrf_ref(letter, a.a, False)
    m.output(0, 0, f)
    m.output(0, 1, info)


def trsm_ref(letter, a, b, alpha, side, lower, trans, diag):
    t = HLO_TYPE[letter]
    out = empty(t, b.shape)
    for i, bm in batches(b):
        x = getattr(blas, letter + "trsm")(alpha, a[i], bm, side=int(side == "R"), lower=lower,
                                           trans_a=trans, diag=diag)
        tri = np.tril(a[i]) if lower else np.triu(a[i])
        if diag:
            np.fill_diagonal(tri, 1)
        op = [tri, tri.T, tri.conj().T][trans]
        close(op @ x if side == "L" else x @ op, alpha * bm, t)
        out[i] = x
    return lit(t, out)


@generator("lapack_trsm", "Triangular solve: lapack_?trsm_ffi with side L and R, uplo L and U, "
           "trans_x N, T and C, diag N and U on batches, and the legacy blas_?trsm (alpha 2).")
def _(m, letter, rng):
    t = HLO_TYPE[letter]
    a = lit(t, rand(rng, t, (2, 3, 3)).a + 3 * np.eye(3))
    bl, br = rand(rng, t, (2, 3, 4)), rand(rng, t, (2, 4, 3))
    xa, xl, xr = m.const(a, "a"), m.const(bl, "b"), m.const(br, "b")
    cases = [("L", True, 0, False, xl, bl), ("L", False, 1, True, xl, bl),
             ("R", True, 2, False, xr, br), ("R", False, 0, True, xr, br)]
    for side, lower, trans, diag, xb, b in cases:
        attrs = (f"diag = {ord('U' if diag else 'N')} : ui8, side = {ord(side)} : ui8, "
                 f"trans_x = {ord('NTC'[trans])} : ui8, {uplo_attr(lower)}")
        m.custom_call(f"lapack_{letter}trsm_ffi", [(xa, t, a.dims), (xb, t, b.dims)],
                      [(t, b.dims)], attrs=attrs, aliasing="{}: (1, {})", tuple_result=False)
        m.whole(trsm_ref(letter, a.a, b.a, 1, side, lower, trans, diag))
    ops = [(m.scalar("s32", v), "s32", []) for v in (1, 1, 2 if g.is_complex(t) else 1, 0, 3, 4, 2)]
    ops += [(m.scalar(t, 2), t, []), (xa, t, a.dims), (xl, t, bl.dims)]
    m.custom_call(f"blas_{letter}trsm", ops, [(t, bl.dims)], ffi=False, aliasing="{}: (9, {})",
                  tuple_result=False)
    m.whole(trsm_ref(letter, a.a, bl.a, 2, "L", True, 2 if g.is_complex(t) else 1, False))


# ============================================================================
# getrf, geqrf, geqp3, orgqr, ormqr
# ============================================================================

def getrf_ref(letter, a):
    t = HLO_TYPE[letter]
    k = min(a.shape[-2:])
    out, piv = empty(t, a.shape), np.zeros(a.shape[:-1][:-1] + (k,), dtype=np.int64)
    info = np.zeros(a.shape[:-2], dtype=np.int64)
    for i, mat in batches(a):
        lu, p, inf = fn(letter, "getrf")(mat)
        out[i], piv[i], info[i] = lu, p + 1, inf  # LAPACK's pivots are 1-based
        m_, n_ = mat.shape
        lo = np.tril(lu, -1)[:, :k] + np.eye(m_, k)
        up = np.triu(lu)[:k, :]
        perm = np.arange(m_)
        for r, pr in enumerate(p):
            perm[[r, pr]] = perm[[pr, r]]
        close(lo @ up, mat[perm], t)
    return lit(t, out), s32(piv), s32(info)


@generator("lapack_getrf", "LU with partial pivoting: lapack_?getrf_ffi on a batch of 4x3 "
           "matrices and on a singular matrix (info > 0), and the legacy lapack_?getrf; the pivots "
           "are LAPACK's (1-based).")
def _(m, letter, rng):
    t = HLO_TYPE[letter]
    a = rand(rng, t, (2, 4, 3))
    sing = lit(t, np.array([[1, 2, 3], [2, 4, 6], [1, 0, 1]]))
    xa, xs = m.const(a, "a"), m.const(sing, "sing")
    for x, v, batch in ((xa, a, [2]), (xs, sing, [])):
        k = min(v.dims[-2:])
        m.custom_call(f"lapack_{letter}getrf_ffi", [(x, t, v.dims)],
                      [(t, v.dims), ("s32", batch + [k]), ("s32", batch)], aliasing="{0}: (0, {})")
        for i, r in enumerate(getrf_ref(letter, v.a)):
            m.output(0, i, r)
    ops = [(m.scalar("s32", v), "s32", []) for v in (2, 4, 3)] + [(xa, t, a.dims)]
    m.custom_call(f"lapack_{letter}getrf", ops, [(t, a.dims), ("s32", [2, 3]), ("s32", [2])],
                  ffi=False, aliasing="{0}: (3, {})")
    for i, r in enumerate(getrf_ref(letter, a.a)):
        m.output(0, i, r)


def geqrf_ref(letter, a):
    t = HLO_TYPE[letter]
    k = min(a.shape[-2:])
    out, tau = empty(t, a.shape), empty(t, a.shape[:-2] + (k,))
    for i, mat in batches(a):
        lw = lwork_of(letter, "geqrf", *mat.shape)
        qr, ta, _, info = fn(letter, "geqrf")(mat, lwork=lw)
        assert info == 0
        q, _, _ = fn(letter, "orgqr" if letter in "sd" else "ungqr")(qr[:, :k], ta)
        close(q @ np.triu(qr)[:k], mat, t)
        out[i], tau[i] = qr, ta
    return lit(t, out), lit(t, tau)


@generator("lapack_geqrf", "QR: lapack_?geqrf_ffi on a batch of tall and on a wide matrix (the "
           "Householder vectors below R and tau, as LAPACK leaves them), and the legacy "
           "lapack_?geqrf (with info; its work result is not compared).")
def _(m, letter, rng):
    t = HLO_TYPE[letter]
    tall, wide = rand(rng, t, (2, 5, 3)), rand(rng, t, (3, 5))
    xt, xw = m.const(tall, "a"), m.const(wide, "w")
    for x, v in ((xt, tall), (xw, wide)):
        k = min(v.dims[-2:])
        m.custom_call(f"lapack_{letter}geqrf_ffi", [(x, t, v.dims)],
                      [(t, v.dims), (t, list(v.dims[:-2]) + [k])], aliasing="{0}: (0, {})")
        qr, tau = geqrf_ref(letter, v.a)
        m.output(0, 0, qr)
        m.output(0, 1, tau)
    lw = lwork_of(letter, "geqrf", 5, 3)
    ops = [(m.scalar("s32", v), "s32", []) for v in (2, 5, 3, lw)] + [(xt, t, tall.dims)]
    m.custom_call(f"lapack_{letter}geqrf", ops,
                  [(t, tall.dims), (t, [2, 3]), ("s32", [2]), (t, [lw])], ffi=False,
                  aliasing="{0}: (4, {})")
    qr, tau = geqrf_ref(letter, tall.a)
    m.output(0, 0, qr)
    m.output(0, 1, tau)
    m.output(0, 2, s32([0, 0]))


@generator("lapack_geqp3", "QR with column pivoting: lapack_?geqp3_ffi on a batch with jpvt zero "
           "(every column free); jpvt comes back 1-based, as LAPACK's.")
def _(m, letter, rng):
    t = HLO_TYPE[letter]
    a = rand(rng, t, (2, 5, 4))
    xa = m.const(a, "a")
    xj = m.const(s32(np.zeros((2, 4))), "jpvt")
    m.custom_call(f"lapack_{letter}geqp3_ffi", [(xa, t, a.dims), (xj, "s32", [2, 4])],
                  [(t, a.dims), ("s32", [2, 4]), (t, [2, 4])], aliasing="{0}: (0, {}), {1}: (1, {})")
    out, jp, tau = empty(t, a.dims), np.zeros((2, 4), dtype=np.int64), empty(t, (2, 4))
    for i, mat in batches(a.a):
        work = fn(letter, "geqp3")(mat)[3]  # no *_lwork query: work[0] is the optimum
        qr, p, ta, _, info = fn(letter, "geqp3")(mat, lwork=int(np.real(work[0])))
        assert info == 0 and sorted(p) == [1, 2, 3, 4]
        q, _, _ = fn(letter, "orgqr" if letter in "sd" else "ungqr")(qr[:, :4], ta)
        close(q @ np.triu(qr)[:4], mat[:, p - 1], t)
        out[i], jp[i], tau[i] = qr, p, ta
    m.output(0, 0, lit(t, out))
    m.output(0, 1, s32(jp))
    m.output(0, 2, lit(t, tau))


def orgqr_ref(letter, qr, tau):
    t = HLO_TYPE[letter]
    out = empty(t, qr.shape)
    for i, mat in batches(qr):
        name = "orgqr" if letter in "sd" else "ungqr"
        work = fn(letter, name)(mat, tau[i])[1]  # no *_lwork query: work[0] is the optimum
        q, _, info = fn(letter, name)(mat, tau[i], lwork=int(np.real(work[0])))
        assert info == 0
        close(q.conj().T @ q, np.eye(q.shape[1]), t)
        out[i] = q
    return lit(t, out)


@generator("lapack_orgqr", "Q from Householder reflectors: lapack_?orgqr_ffi / ?ungqr_ffi on "
           "scipy's geqrf of a batch of 5x3 matrices, and the legacy lapack_?orgqr / ?ungqr.")
def _(m, letter, rng):
    t = HLO_TYPE[letter]
    name = "orgqr" if letter in "sd" else "ungqr"
    qr, tau = geqrf_ref(letter, rand(rng, t, (2, 5, 3)).a)
    xq, xt = m.const(qr, "qr"), m.const(tau, "tau")
    m.custom_call(f"lapack_{letter}{name}_ffi", [(xq, t, qr.dims), (xt, t, tau.dims)],
                  [(t, qr.dims)], aliasing="{}: (0, {})", tuple_result=False)
    m.whole(orgqr_ref(letter, qr.a, tau.a))
    lw = int(np.real(fn(letter, name)(qr.a[0], tau.a[0])[1][0]))  # LAPACK's optimum
    ops = [(m.scalar("s32", v), "s32", []) for v in (2, 5, 3, 3, lw)]
    ops += [(xq, t, qr.dims), (xt, t, tau.dims)]
    m.custom_call(f"lapack_{letter}{name}", ops, [(t, qr.dims), ("s32", [2]), (t, [lw])],
                  ffi=False, aliasing="{0}: (5, {})")
    m.output(0, 0, orgqr_ref(letter, qr.a, tau.a))
    m.output(0, 1, s32([0, 0]))


@generator("lapack_ormqr", "Multiplying by Q: lapack_?ormqr_ffi / ?unmqr_ffi from the left and "
           "the right, with and without transpose (the adjoint for complex types), on a batch.")
def _(m, letter, rng):
    t = HLO_TYPE[letter]
    name = "ormqr" if letter in "sd" else "unmqr"
    qr, tau = geqrf_ref(letter, rand(rng, t, (2, 5, 3)).a)
    cl, cr = rand(rng, t, (2, 5, 2)), rand(rng, t, (2, 2, 5))
    xq, xt, xl, xr = m.const(qr, "qr"), m.const(tau, "tau"), m.const(cl, "c"), m.const(cr, "c")
    q = orgqr_ref(letter, np.concatenate([qr.a, np.zeros((2, 5, 2), NP[t])], -1), tau.a).a
    for left, transpose in ((True, False), (True, True), (False, False), (False, True)):
        xc, c = (xl, cl) if left else (xr, cr)
        m.custom_call(f"lapack_{letter}{name}_ffi",
                      [(xq, t, qr.dims), (xt, t, tau.dims), (xc, t, c.dims)], [(t, c.dims)],
                      attrs=f"left = {str(left).lower()}, transpose = {str(transpose).lower()}",
                      aliasing="{}: (2, {})", tuple_result=False)
        out = empty(t, c.dims)
        trans = ("C" if g.is_complex(t) else "T") if transpose else "N"
        for i, cm in batches(c.a):
            side = "L" if left else "R"
            work = fn(letter, name)(side, trans, qr.a[i], tau.a[i], cm, lwork=64 * 5)[1]
            got, _, info = fn(letter, name)(side, trans, qr.a[i], tau.a[i], cm,
                                            lwork=int(np.real(work[0])))
            assert info == 0
            op = q[i].conj().T if transpose else q[i]
            close(got, op @ cm if left else cm @ op, t)
            out[i] = got
        m.whole(lit(t, out))


# ============================================================================
# gesdd, gesvd
# ============================================================================

def svd_ref(letter, routine, a, mode):
    t = HLO_TYPE[letter]
    r = REAL_OF[t]
    mm, nn = a.shape[-2:]
    k = min(mm, nn)
    ucols, vtrows = {"A": (mm, nn), "S": (k, k), "N": (k, k)}[mode]
    s, u = np.zeros(a.shape[:-2] + (k,)), empty(t, a.shape[:-2] + (mm, ucols))
    vt = empty(t, a.shape[:-2] + (vtrows, nn))
    for i, mat in batches(a):
        kw = dict(compute_uv=int(mode != "N"), full_matrices=int(mode == "A"))
        lw = lwork_of(letter, routine, mm, nn, **kw)
        uu, ss, vv, info = fn(letter, routine)(mat, lwork=lw, **kw)
        assert info == 0
        s[i] = ss
        if mode != "N":
            close((uu[:, :k] * ss) @ vv[:k], mat, t)
            u[i], vt[i] = uu, vv
    return lit(r, s), lit(t, u), lit(t, vt)


def svd_module(m, letter, rng, routine):
    t = HLO_TYPE[letter]
    r = REAL_OF[t]
    a, w = rand(rng, t, (2, 4, 3)), rand(rng, t, (3, 5))
    xa, xw = m.const(a, "a"), m.const(w, "w")
    for x, v, mode in ((xa, a, "A"), (xa, a, "S"), (xw, w, "S"), (xw, w, "N")):
        b = list(v.dims[:-2])
        mm, nn = v.dims[-2:]
        k = min(mm, nn)
        ucols, vtrows = (mm, nn) if mode == "A" else (k, k)
        m.custom_call(f"lapack_{letter}{routine}_ffi", [(x, t, v.dims)],
                      [(t, v.dims), (r, b + [k]), (t, b + [mm, ucols]), (t, b + [vtrows, nn]),
                       ("s32", b)], attrs=f"mode = {ord(mode)} : ui8", aliasing="{0}: (0, {})")
        s, u, vt = svd_ref(letter, routine, v.a, mode)
        parts = {"a": m.input(x, v), "s": m.output(0, 1, s)}
        if mode != "N":
            parts["u"] = m.output(0, 2, u)
            parts["vt"] = m.output(0, 3, vt)
        parts["info"] = m.output(0, 4, s32(np.zeros(b, dtype=np.int64)))
        m.check("svd", parts)
    return xa, a


@generator("lapack_gesdd", "SVD by divide and conquer: lapack_?gesdd_ffi with mode A and S on a "
           "batch of 4x3 matrices and S and N on a 3x5 one (x_out, which LAPACK destroys, and "
           "u, vt with mode N are not compared), and the legacy lapack_?gesdd.")
def _(m, letter, rng):
    t = HLO_TYPE[letter]
    r = REAL_OF[t]
    xa, a = svd_module(m, letter, rng, "gesdd")
    lw = lwork_of(letter, "gesdd", 4, 3, compute_uv=1, full_matrices=1)
    ops = [(m.scalar("s32", v), "s32", []) for v in (1, 1, 2, 4, 3, lw)] + [(xa, t, a.dims)]
    work = [("s32", [24])]
    if g.is_complex(t):
        work.append((r, [max(5 * 9 + 5 * 3, 2 * 4 * 3 + 2 * 9 + 3)]))
    work.append((t, [lw]))
    m.custom_call(f"lapack_{letter}gesdd", ops,
                  [(t, a.dims), (r, [2, 3]), (t, [2, 4, 4]), (t, [2, 3, 3]), ("s32", [2])] + work,
                  ffi=False, aliasing="{0}: (6, {})")
    s, u, vt = svd_ref(letter, "gesdd", a.a, "A")
    m.check("svd", {"a": m.input(xa, a), "s": m.output(0, 1, s), "u": m.output(0, 2, u),
                    "vt": m.output(0, 3, vt), "info": m.output(0, 4, s32([0, 0]))})


@generator("lapack_gesvd", "SVD by QR iteration: lapack_?gesvd_ffi with mode A and S on a batch "
           "of 4x3 matrices and S and N on a 3x5 one.")
def _(m, letter, rng):
    svd_module(m, letter, rng, "gesvd")


# ============================================================================
# syevd / heevd, geev, gees
# ============================================================================

def eigh_ref(letter, a, lower, vectors=True):
    t = HLO_TYPE[letter]
    name = "syevd" if letter in "sd" else "heevd"
    n = a.shape[-1]
    v, w = empty(t, a.shape), np.zeros(a.shape[:-1])
    for i, mat in batches(a):
        ww, vv, info = fn(letter, name)(mat, compute_v=int(vectors), lower=int(lower))
        assert info == 0
        tri = np.tril(mat) if lower else np.triu(mat)
        h = tri + np.conj((np.tril(mat, -1) if lower else np.triu(mat, 1)).T)
        h[np.diag_indices(n)] = np.real(np.diag(mat))
        close(np.sort(np.linalg.eigvalsh(h)), ww, t)
        if vectors:
            close(h @ vv, vv * ww, t)
            v[i] = vv
        w[i] = ww
    return lit(t, v), lit(REAL_OF[t], w)


@generator("lapack_syevd", "Hermitian eigensystem: lapack_?syevd_ffi / ?heevd_ffi with mode V and "
           "uplo L and U (the other triangle holds values that must not be read) on a batch, mode N "
           "(eigenvalues only), and the legacy lapack_?syevd / ?heevd.")
def _(m, letter, rng):
    t = HLO_TYPE[letter]
    r = REAL_OF[t]
    name = "syevd" if letter in "sd" else "heevd"
    h = hermitian_pd(rng, t, (2, 4, 4)).a
    a = lit(t, np.where(np.tri(4, dtype=bool), h, 9))  # lower triangle of h, 9 above
    b = lit(t, np.where(np.tri(4, dtype=bool).T, h, 9))  # upper triangle of h
    xa, xb = m.const(a, "a"), m.const(b, "b")
    for x, v, lower, mode in ((xa, a, True, "V"), (xb, b, False, "V"), (xa, a, True, "N")):
        m.custom_call(f"lapack_{letter}{name}_ffi", [(x, t, v.dims)],
                      [(t, v.dims), (r, [2, 4]), ("s32", [2])],
                      attrs=f"mode = {ord(mode)} : ui8, {uplo_attr(lower)}",
                      aliasing="{0}: (0, {})")
        vecs, w = eigh_ref(letter, v.a, lower, mode == "V")
        parts = {"a": m.input(x, v)}
        if mode == "V":
            parts["v"] = m.output(0, 0, vecs)
        parts["w"] = m.output(0, 1, w)
        parts["info"] = m.output(0, 2, s32([0, 0]))
        m.check("eigh", parts, uplo="L" if lower else "U")
    n = 4
    if g.is_complex(t):
        work = [(t, [1 + 2 * n + n * n]), (r, [1 + 5 * n + 2 * n * n]), ("s32", [3 + 5 * n])]
    else:
        work = [(t, [1 + 6 * n + 2 * n * n]), ("s32", [3 + 5 * n])]
    ops = [(m.scalar("s32", v), "s32", []) for v in (1, 2, 4)] + [(xa, t, a.dims)]
    m.custom_call(f"lapack_{letter}{name}", ops, [(t, a.dims), (r, [2, 4]), ("s32", [2])] + work,
                  ffi=False, aliasing="{0}: (3, {})")
    vecs, w = eigh_ref(letter, a.a, True)
    m.check("eigh", {"a": m.input(xa, a), "v": m.output(0, 0, vecs), "w": m.output(0, 1, w),
                     "info": m.output(0, 2, s32([0, 0]))}, uplo="L")


def unpack(wi, packed):
    """LAPACK's real eigenvectors as complex columns (jaxlib's UnpackEigenvectors)."""
    n = packed.shape[0]
    out = packed.astype(np.complex128)
    j = 0
    while j < n:
        if wi[j] == 0 or np.isnan(wi[j]):
            j += 1
            continue
        re, im = packed[:, j], packed[:, j + 1]
        out[:, j], out[:, j + 1] = re + 1j * im, re - 1j * im
        j += 2
    return out


def geev_ref(letter, a, left, right):
    t = HLO_TYPE[letter]
    c = {"f32": "c64", "f64": "c128"}.get(t, t)
    n = a.shape[-1]
    w, wi = empty(t, a.shape[:-1]), empty(t, a.shape[:-1])
    vl, vr = empty(c, a.shape), empty(c, a.shape)
    for i, mat in batches(a):
        lw = lwork_of(letter, "geev", n, compute_vl=int(left), compute_vr=int(right))
        out = fn(letter, "geev")(mat, compute_vl=int(left), compute_vr=int(right), lwork=lw)
        if letter in "sd":
            wr, wim, l_, r_, info = out
            w[i], wi[i] = wr, wim
            lam = wr + 1j * wim
            l_, r_ = unpack(wim, l_), unpack(wim, r_)
        else:
            lam, l_, r_, info = out
            w[i] = lam
        assert info == 0
        if right:
            close(mat @ r_, r_ * lam, t)
            vr[i] = r_
        if left:
            close(l_.conj().T @ mat, lam[:, None] * l_.conj().T, t)
            vl[i] = l_
    return lit(t, w), lit(t, wi), lit(c, vl), lit(c, vr)


@generator("lapack_geev", "General eigensystem: lapack_?geev_ffi with both eigenvector sets and "
           "with right ones only on a batch (real matrices with a complex pair: LAPACK's packed "
           "vectors unpacked as jaxlib does), a matrix with an infinity (info -4, not factored), "
           "and the legacy lapack_?geev.")
def _(m, letter, rng):
    t = HLO_TYPE[letter]
    c = {"f32": "c64", "f64": "c128"}.get(t, t)
    real = letter in "sd"
    a = rand(rng, t, (2, 4, 4))
    inf = lit(t, np.array([[1, np.inf], [0, 1]]))
    xa, xi = m.const(a, "a"), m.const(inf, "inf")

    def results(dims):
        b, n = list(dims[:-2]), dims[-1]
        ws = [(t, b + [n])] * (2 if real else 1)
        return ws + [(c, list(dims)), (c, list(dims)), ("s32", b)]

    nw = 2 if real else 1
    for left in (True, False):
        m.custom_call(f"lapack_{letter}geev_ffi", [(xa, t, a.dims)], results(a.dims),
                      attrs=f"compute_left = {ord('V' if left else 'N')} : ui8, "
                            f"compute_right = {ord('V')} : ui8")
        w, wi, vl, vr = geev_ref(letter, a.a, left, True)
        parts = {"a": m.input(xa, a), "w": m.output(0, 0, w)}
        if real:
            parts["wi"] = m.output(0, 1, wi)
        if left:
            parts["vl"] = m.output(0, nw, vl)
        parts["vr"] = m.output(0, nw + 1, vr)
        parts["info"] = m.output(0, nw + 2, s32([0, 0]))
        m.check("geev", parts)
    m.custom_call(f"lapack_{letter}geev_ffi", [(xi, t, inf.dims)], results(inf.dims),
                  attrs=f"compute_left = {ord('N')} : ui8, compute_right = {ord('N')} : ui8")
    m.check("info", {"r": m.output(0, nw + 2, s32(-4))}, value=-4)
    n = 4
    ops = [(m.scalar("s32", 2), "s32", []), (m.scalar("s32", n), "s32", []),
           (m.scalar("u8", ord("V")), "u8", []), (m.scalar("u8", ord("V")), "u8", []),
           (xa, t, a.dims)]
    work = [(t, [n, n])] * 3 if real else [(c, [n, n]), (REAL_OF[t], [2 * n])]
    m.custom_call(f"lapack_{letter}geev", ops, work + results(a.dims), ffi=False)
    w, wi, vl, vr = geev_ref(letter, a.a, True, True)
    first = len(work)
    parts = {"a": m.input(xa, a), "w": m.output(0, first, w)}
    if real:
        parts["wi"] = m.output(0, first + 1, wi)
    parts["vl"] = m.output(0, first + nw, vl)
    parts["vr"] = m.output(0, first + nw + 1, vr)
    parts["info"] = m.output(0, first + nw + 2, s32([0, 0]))
    m.check("geev", parts)


def gees_ref(letter, a, vectors):
    t = HLO_TYPE[letter]
    n = a.shape[-1]
    tt, vs = empty(t, a.shape), empty(t, a.shape)
    w, wi = empty(t, a.shape[:-1]), empty(t, a.shape[:-1])
    for i, mat in batches(a):
        gees = fn(letter, "gees")
        work = gees(lambda *x: None, mat, compute_v=int(vectors), sort_t=0)[-2]
        out = gees(lambda *x: None, mat, compute_v=int(vectors), sort_t=0,
                   lwork=int(np.real(work[0])))
        if letter in "sd":
            tm, sdim, wr, wim, v, _, info = out
            w[i], wi[i] = wr, wim
        else:
            tm, sdim, ww, v, _, info = out
            w[i] = ww
        assert info == 0 and sdim == 0
        if vectors:
            close(v @ tm @ v.conj().T, mat, t)
            vs[i] = v
        tt[i] = tm
    return lit(t, tt), lit(t, vs), lit(t, w), lit(t, wi)


@generator("lapack_gees", "Schur factorisation: lapack_?gees_ffi with mode V and N (sort N) on a "
           "batch, and the legacy lapack_?gees.")
def _(m, letter, rng):
    t = HLO_TYPE[letter]
    real = letter in "sd"
    a = rand(rng, t, (2, 4, 4))
    xa = m.const(a, "a")
    vec, mat = [(t, [2, 4])], [(t, [2, 4, 4])]
    for mode in "VN":
        m.custom_call(f"lapack_{letter}gees_ffi", [(xa, t, a.dims)],
                      mat + mat + vec * (2 if real else 1) + [("s32", [2])] * 2,
                      attrs=f"mode = {ord(mode)} : ui8, sort = {ord('N')} : ui8",
                      aliasing="{0}: (0, {})")
        tt, vs, w, wi = gees_ref(letter, a.a, mode == "V")
        parts = {"a": m.input(xa, a), "t": m.output(0, 0, tt)}
        if mode == "V":
            parts["z"] = m.output(0, 1, vs)
        parts["w"] = m.output(0, 2, w)
        if real:
            parts["wi"] = m.output(0, 3, wi)
        parts["info"] = m.output(0, 4 if real else 3, s32([0, 0]))
        m.check("schur", parts)
    ops = [(m.scalar("s32", 2), "s32", []), (m.scalar("s32", 4), "s32", []),
           (m.scalar("u8", ord("V")), "u8", []), (m.scalar("u8", ord("N")), "u8", []),
           (xa, t, a.dims)]
    if real:
        res = mat + vec + vec + mat
    else:
        res = mat + [(REAL_OF[t], [4])] + vec + mat
    m.custom_call(f"lapack_{letter}gees", ops, res + [("s32", [2])] * 2, ffi=False,
                  aliasing="{0}: (4, {})")
    tt, vs, w, wi = gees_ref(letter, a.a, True)
    parts = {"a": m.input(xa, a), "t": m.output(0, 0, tt), "w": m.output(0, 1 if real else 2, w)}
    if real:
        parts["wi"] = m.output(0, 2, wi)
    parts["z"] = m.output(0, 3, vs)
    parts["info"] = m.output(0, 5, s32([0, 0]))
    m.check("schur", parts)


# ============================================================================
# gehrd, sytrd / hetrd, gtsv
# ============================================================================

def gehrd_ref(letter, a, lo, hi):
    t = HLO_TYPE[letter]
    n = a.shape[-1]
    out, tau = empty(t, a.shape), empty(t, a.shape[:-2] + (n - 1,))
    for i, mat in batches(a):
        lw = lwork_of(letter, "gehrd", n, lo=lo - 1, hi=hi - 1)
        ht, ta, info = fn(letter, "gehrd")(mat, lo=lo - 1, hi=hi - 1, lwork=lw)
        assert info == 0
        q = orgqr_ref(letter, np.tril(ht, -1)[None, 1:, :n - 1], ta[None])  # Q's trailing block
        qq = np.eye(n, dtype=q.a.dtype)
        qq[1:, 1:] = q.a[0]
        close(qq @ np.triu(ht, -1) @ qq.conj().T, mat, t)
        out[i], tau[i] = ht, ta
    return lit(t, out), lit(t, tau)


@generator("lapack_gehrd", "Hessenberg reduction: lapack_?gehrd_ffi with low 1, high n (as JAX) "
           "and with low 2, high 4 on a batch of 5x5 matrices, and the legacy lapack_?gehrd.")
def _(m, letter, rng):
    t = HLO_TYPE[letter]
    a = rand(rng, t, (2, 5, 5))
    xa = m.const(a, "a")
    for lo, hi in ((1, 5), (2, 4)):
        m.custom_call(f"lapack_{letter}gehrd_ffi", [(xa, t, a.dims)],
                      [(t, a.dims), (t, [2, 4]), ("s32", [2])],
                      attrs=f"high = {hi} : i32, low = {lo} : i32", aliasing="{0}: (0, {})")
        if (lo, hi) == (1, 5):
            h, tau = gehrd_ref(letter, a.a, lo, hi)
        else:  # the reflectors outside ilo..ihi are the identity (tau 0)
            out, taus = empty(t, a.dims), empty(t, (2, 4))
            for i, mat in batches(a.a):
                lw = lwork_of(letter, "gehrd", 5, lo=lo - 1, hi=hi - 1)
                out[i], taus[i], info = fn(letter, "gehrd")(mat, lo=lo - 1, hi=hi - 1, lwork=lw)
                assert info == 0 and taus[i][0] == 0 and taus[i][3] == 0
            h, tau = lit(t, out), lit(t, taus)
        m.output(0, 0, h)
        m.output(0, 1, tau)
        m.output(0, 2, s32([0, 0]))
    lw = lwork_of(letter, "gehrd", 5, lo=0, hi=4)
    ops = [(m.scalar("s32", v), "s32", []) for v in (5, 1, 5, 5, 2, lw)] + [(xa, t, a.dims)]
    m.custom_call(f"lapack_{letter}gehrd", ops, [(t, a.dims), (t, [2, 4]), ("s32", [2]), (t, [lw])],
                  ffi=False, aliasing="{0}: (6, {})")
    h, tau = gehrd_ref(letter, a.a, 1, 5)
    m.output(0, 0, h)
    m.output(0, 1, tau)


def sytrd_ref(letter, a, lower):
    t = HLO_TYPE[letter]
    name = "sytrd" if letter in "sd" else "hetrd"
    n = a.shape[-1]
    out, tau = empty(t, a.shape), empty(t, a.shape[:-2] + (n - 1,))
    d, e = np.zeros(a.shape[:-1]), np.zeros(a.shape[:-2] + (n - 1,))
    for i, mat in batches(a):
        lw = lwork_of(letter, name, n, lower=int(lower))
        c, dd, ee, ta, info = fn(letter, name)(mat, lower=int(lower), lwork=lw)
        assert info == 0
        tri = np.tril(mat) if lower else np.triu(mat)
        h = tri + np.conj((np.tril(mat, -1) if lower else np.triu(mat, 1)).T)
        trid = np.diag(dd) + np.diag(ee, 1) + np.diag(ee, -1)
        close(np.linalg.eigvalsh(trid), np.linalg.eigvalsh(h), t)
        out[i], d[i], e[i], tau[i] = c, dd, ee, ta
    r = REAL_OF[t]
    return lit(t, out), lit(r, d), lit(r, e), lit(t, tau)


@generator("lapack_sytrd", "Tridiagonal reduction: lapack_?sytrd_ffi / ?hetrd_ffi with uplo L and "
           "U on a batch, and the legacy lapack_?sytrd / ?hetrd.")
def _(m, letter, rng):
    t = HLO_TYPE[letter]
    r = REAL_OF[t]
    name = "sytrd" if letter in "sd" else "hetrd"
    a = hermitian_pd(rng, t, (2, 4, 4))
    xa = m.const(a, "a")
    res = [(t, [2, 4, 4]), (r, [2, 4]), (r, [2, 3]), (t, [2, 3]), ("s32", [2])]
    for lower in (True, False):
        m.custom_call(f"lapack_{letter}{name}_ffi", [(xa, t, a.dims)], res,
                      attrs=uplo_attr(lower), aliasing="{0}: (0, {})")
        for i, v in enumerate(sytrd_ref(letter, a.a, lower)):
            m.output(0, i, v)
        m.output(0, 4, s32([0, 0]))
    lw = lwork_of(letter, name, 4, lower=1)
    ops = [(m.scalar("s32", v), "s32", []) for v in (4, 1, 4, 2, lw)] + [(xa, t, a.dims)]
    m.custom_call(f"lapack_{letter}{name}", ops, res + [(t, [lw])], ffi=False,
                  aliasing="{0}: (5, {})")
    for i, v in enumerate(sytrd_ref(letter, a.a, True)):
        m.output(0, i, v)


@generator("lapack_gtsv", "Tridiagonal solve: lapack_?gtsv_ffi on a batch (dl[0] and du[n-1] lie "
           "outside the matrix; the diagonals come back as LAPACK's LU leaves them).")
def _(m, letter, rng):
    t = HLO_TYPE[letter]
    dl, du = rand(rng, t, (2, 5)), rand(rng, t, (2, 5))
    d = lit(t, rand(rng, t, (2, 5)).a + 3)
    b = rand(rng, t, (2, 5, 3))
    xs = [m.const(v, nm) for v, nm in ((dl, "dl"), (d, "d"), (du, "du"), (b, "b"))]
    dims = [dl.dims, d.dims, du.dims, b.dims]
    m.custom_call(f"lapack_{letter}gtsv_ffi", [(x, t, dd) for x, dd in zip(xs, dims)],
                  [(t, dd) for dd in dims] + [("s32", [2])],
                  aliasing="{0}: (0, {}), {1}: (1, {}), {2}: (2, {}), {3}: (3, {})")
    odl, od, odu, ox = (np.array(v.a) for v in (dl, d, du, b))
    for i in range(2):
        l2, dd, uu, x, info = fn(letter, "gtsv")(dl.a[i, 1:], d.a[i], du.a[i, :-1], b.a[i])
        assert info == 0
        mat = np.diag(d.a[i]) + np.diag(dl.a[i, 1:], -1) + np.diag(du.a[i, :-1], 1)
        close(mat @ x, b.a[i], t)
        odl[i, 1:], od[i], odu[i, :-1], ox[i] = l2, dd, uu, x
    for i, v in enumerate((odl, od, odu, ox)):
        m.output(0, i, lit(t, v))
    m.output(0, 4, s32([0, 0]))


# ============================================================================
# Driver
# ============================================================================

def build(name):
    base, precision = name.rsplit("_", 1)
    gen, comment = GENERATORS[base]
    letters, tol = PRECISIONS[precision]
    m = Module()
    for letter in letters:
        rng = np.random.default_rng(sum(map(ord, base + letter)))
        gen(m, letter, rng)
    text, outs = m.text(name, comment, tol)
    if m.checks:  # checked by properties: no expected values
        return text, None
    return text, g.result_text(g.tup(*outs)) + "\n"


def generate(w, name_filter):
    """Writes (or checks) the family's modules and files; returns their number."""
    names = [f"{base}_{p}" for base in GENERATORS for p in PRECISIONS]
    for name in names:
        if not re.search(name_filter, name):
            continue
        text, expect = build(name)
        w.file(f"eval/{name}.hlo", text)
        w.file(f"eval/{name}.expect", expect)
        w.file(f"eval/{name}.out", "")
    return len(names)
