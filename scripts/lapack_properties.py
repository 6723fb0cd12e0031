#!/usr/bin/env python3
"""Checks LAPACK results whose values are not unique by their defining
properties (the golden tests testdata/eval/lapack_{gees,geev,syevd,gesdd,gesvd}_*).

  /usr/bin/python3 scripts/lapack_properties.py DIR CHECK...

DIR holds `hlo-run --output-format=npy -o DIR`'s result_I.npy files. Each
CHECK is KIND[LABEL]:KEY=I,... naming the result index of each part (the
module returns its input matrix too, as `a`):

  schur  a t [z] w [wi] [info]   A = Z T Z^H, Z unitary, T upper triangular
                                 (real: quasi-triangular in standard form),
                                 w (+ i wi) = T's block eigenvalues = eig(A)
  geev   a w [wi] [vl] [vr] [info]
                                 A vr = vr diag(w), vl^H A = diag(w) vl^H,
                                 unit-norm columns, w (+ i wi) = eig(A)
  eigh   a [v] w [info] uplo=L|U A's uplo triangle is Hermitian H:
                                 H V = V diag(w), V unitary, w = eigvalsh(H)
  svd    a s [u] [vt] [info]     s = svd(A) (descending), U and V^H with
                                 orthonormal columns / rows, A = U S V^H
  info   r value=N               every element of result r is N

info parts must be all 0 unless info_value=N is given. Schur vectors,
eigenvectors and singular vectors differ in sign, phase and order between
LAPACK builds and CPU kernels; these properties hold for every correct
result. The reference eigenvalues and singular values come from numpy (in
double precision). Tolerances are scale-aware: C * n * eps * ||A||. Exits 1
naming the check, the batch element and the property that failed.
"""
import itertools
import os
import sys

import numpy as np

RESIDUAL_C = 30     # backward errors: residuals, orthogonality, triangularity
EIGENVALUE_C = 100  # forward errors of eigenvalues (their condition numbers)


class Failure(Exception):
    pass


def load(directory, index):
    """Result `index` in double precision (so the checks' own rounding does
    not count) and the machine epsilon of its type."""
    path = os.path.join(directory, f"result_{index}.npy")
    if not os.path.exists(path):
        raise Failure(f"{path}: missing (is result {index} in the module's ROOT tuple?)")
    a = np.load(path)
    if a.dtype.kind not in "fc":
        return a, None
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64), float(np.finfo(a.dtype).eps)


def fro(x):
    return float(np.linalg.norm(x)) if x.size else 0.0


def require(ok, what, value, limit):
    if not ok:
        raise Failure(f"{what}: {value:.3g} > tolerance {limit:.3g}")


def unitary(q, rows, tol, name):
    """q's columns (rows=False) or rows (rows=True) are orthonormal."""
    g = q @ q.conj().T if rows else q.conj().T @ q
    err = fro(g - np.eye(g.shape[0]))
    require(err <= tol, f"{name} not unitary: ||{name}^H {name} - I||", err, tol)


def match_multiset(got, ref, tol, what):
    """got and ref are equal as multisets within tol (best pairing)."""
    got, ref = np.asarray(got, complex), np.asarray(ref, complex)
    if len(got) <= 7:
        best = min(max(abs(got[list(p)] - ref), default=0.0)
                   for p in itertools.permutations(range(len(got))))
    else:
        best = max(min(abs(got - r)) for r in ref)
    if best > tol:
        raise Failure(f"{what}: {np.array2string(got, precision=6)} differ from numpy's "
                      f"{np.array2string(ref, precision=6)} by {best:.3g} > tolerance {tol:.3g}")


def conjugate_pairs(wr, wi, tol, what):
    """Real LAPACK: complex eigenvalues come as consecutive conjugate pairs,
    the one with positive imaginary part first."""
    j = 0
    while j < len(wi):
        if wi[j] == 0:
            j += 1
            continue
        if (wi[j] < 0 or j + 1 >= len(wi) or abs(wr[j + 1] - wr[j]) > tol
                or abs(wi[j + 1] + wi[j]) > tol):
            raise Failure(f"{what}: eigenvalue {j} ({wr[j]} + {wi[j]}i) does not start a "
                          f"conjugate pair (positive imaginary part first)")
        j += 2


def schur_blocks(t, tol, what):
    """Eigenvalues of T's diagonal blocks; checks the (quasi-)triangular form."""
    n = t.shape[0]
    below = fro(np.tril(t, -2)) if not np.iscomplexobj(t) else fro(np.tril(t, -1))
    require(below <= tol, f"{what}: T not {'quasi-' if not np.iscomplexobj(t) else ''}"
            "upper triangular: ||entries below||", below, tol)
    if np.iscomplexobj(t):
        return np.diag(t)
    sub = [abs(t[i + 1, i]) > tol for i in range(n - 1)]
    lam, i = [], 0
    while i < n:
        if i + 1 < n and sub[i]:
            if i + 2 < n and sub[i + 1]:
                raise Failure(f"{what}: T has adjacent nonzero subdiagonals at rows {i + 1}, "
                              f"{i + 2} (not quasi-triangular)")
            a, b, c, d = t[i, i], t[i, i + 1], t[i + 1, i], t[i + 1, i + 1]
            if abs(a - d) > tol:
                raise Failure(f"{what}: 2x2 block at {i} not in standard form: diagonal "
                              f"{a} != {d}")
            if not b * c < 0:
                raise Failure(f"{what}: 2x2 block at {i} not in standard form: off-diagonals "
                              f"{b}, {c} do not have opposite signs")
            root = np.sqrt(-float(b) * float(c))
            lam += [complex(a, root), complex(a, -root)]
            i += 2
        else:
            lam.append(complex(t[i, i]))
            i += 1
    return np.array(lam)


def eigenvalues(r, parts, i):
    w = r[parts["w"]][i]
    return w + 1j * r[parts["wi"]][i] if "wi" in parts else w


def check_schur(r, parts, i, a, tol, etol):
    t = r[parts["t"]][i]
    w = eigenvalues(r, parts, i)
    if "wi" in parts:
        conjugate_pairs(r[parts["w"]][i], r[parts["wi"]][i], tol, "w")
    lam = schur_blocks(t, tol, "T")
    err = float(np.max(abs(lam - w))) if len(w) else 0.0
    require(err <= tol, "w differs from the eigenvalues of T's diagonal blocks", err, tol)
    match_multiset(w, np.linalg.eigvals(a.astype(np.complex128)), etol,
                   "w (eigenvalues) against numpy.linalg.eigvals(A)")
    if "z" in parts:
        z = r[parts["z"]][i]
        unitary(z, False, tol, "Z")
        err = fro(z @ t @ z.conj().T - a)
        require(err <= tol, "A != Z T Z^H: ||Z T Z^H - A||", err, tol)
    else:  # a unitary similarity keeps the Frobenius norm
        err = abs(fro(t) - fro(a))
        require(err <= tol, "||T|| != ||A|| (T is not unitarily similar to A)", err, tol)


def check_geev(r, parts, i, a, tol, etol):
    w = eigenvalues(r, parts, i)
    if "wi" in parts:
        conjugate_pairs(r[parts["w"]][i], r[parts["wi"]][i], tol, "w")
    match_multiset(w, np.linalg.eigvals(a.astype(np.complex128)), etol,
                   "w (eigenvalues) against numpy.linalg.eigvals(A)")
    for key, left in (("vr", False), ("vl", True)):
        if key not in parts:
            continue
        v = r[parts[key]][i]
        norms = np.linalg.norm(v, axis=0)
        err = float(np.max(abs(norms - 1)))
        require(err <= tol, f"{key} columns not of unit norm: max |norm - 1|", err, tol)
        if left:
            err = fro(v.conj().T @ a - w[:, None] * v.conj().T)
            require(err <= tol, "vl^H A != diag(w) vl^H: residual", err, tol)
        else:
            err = fro(a @ v - v * w)
            require(err <= tol, "A vr != vr diag(w): residual", err, tol)


def hermitian(a, lower):
    """The Hermitian matrix whose `lower` (else upper) triangle a holds; the
    other triangle is not read."""
    strict = np.tril(a, -1) if lower else np.triu(a, 1)
    return strict + strict.conj().T + np.diag(np.real(np.diag(a)))


def check_eigh(r, parts, i, h, tol, etol):
    w = r[parts["w"]][i]
    if np.any(np.diff(w) < 0):
        raise Failure(f"w not ascending: {w}")
    ref = np.linalg.eigvalsh(h.astype(np.complex128))
    err = float(np.max(abs(w - ref)))
    require(err <= tol, "w against numpy.linalg.eigvalsh(A): max difference", err, tol)
    if "v" in parts:
        v = r[parts["v"]][i]
        unitary(v, False, tol, "V")
        err = fro(h @ v - v * w)
        require(err <= tol, "A V != V diag(w): residual", err, tol)


def check_svd(r, parts, i, a, tol, etol):
    s = r[parts["s"]][i]
    k = min(a.shape)
    if len(s) != k:
        raise Failure(f"s has {len(s)} values, not min(m, n) = {k}")
    ref = np.linalg.svd(a.astype(np.complex128), compute_uv=False)
    err = float(np.max(abs(s - ref)))
    require(err <= tol, "s against numpy.linalg.svd(A): max difference", err, tol)
    if "u" in parts:
        u, vt = r[parts["u"]][i], r[parts["vt"]][i]
        unitary(u, False, tol, "U")
        unitary(vt, True, tol, "V^H")
        err = fro((u[:, :k] * s) @ vt[:k] - a)
        require(err <= tol, "A != U S V^H: residual", err, tol)


def check_info(r, parts, index, expected):
    info = r[index]
    if np.any(info != expected):
        raise Failure(f"info (result {index}) is {info.tolist()}, expected all {expected}")


def run_check(r, eps, kind, label, parts, options):
    if kind == "info":
        check_info(r, parts, parts["r"], int(options.get("value", 0)))
        return
    if "info" in parts:
        check_info(r, parts, parts["info"], int(options.get("info_value", 0)))
    a_all = r[parts["a"]]
    for i in np.ndindex(a_all.shape[:-2]):
        a = a_all[i]
        if kind == "eigh":
            a = hermitian(a, options["uplo"] == "L")
        n = max(a.shape)
        scale = max(fro(a), 1.0)
        tol = RESIDUAL_C * n * eps[parts["a"]] * scale
        etol = EIGENVALUE_C * n * eps[parts["a"]] * scale
        try:
            if kind == "schur":
                check_schur(r, parts, i, a, tol, etol)
            elif kind == "geev":
                check_geev(r, parts, i, a, tol, etol)
            elif kind == "eigh":
                check_eigh(r, parts, i, a, tol, etol)
            elif kind == "svd":
                check_svd(r, parts, i, a, tol, etol)
        except (Failure, ValueError, IndexError, TypeError) as e:
            where = f" batch {list(i)}" if i else ""
            names = ", ".join(f"{k}=result_{v}" for k, v in parts.items())
            what = e if isinstance(e, Failure) else f"the results' shapes do not fit: {e}"
            raise Failure(f"{kind}[{label}]{where} ({names}): {what}") from None


KINDS = {"schur": ("a", "t", "z", "w", "wi", "info"), "geev": ("a", "w", "wi", "vl", "vr", "info"),
         "eigh": ("a", "v", "w", "info"), "svd": ("a", "s", "u", "vt", "info"), "info": ("r",)}
OPTIONS = {"eigh": ("uplo",), "info": ("value",)}


def parse(spec):
    """KIND[LABEL]:KEY=VALUE,... -> (kind, label, {part: index}, {option: value})."""
    head, _, body = spec.partition(":")
    kind, _, label = head.partition("[")
    label = label.rstrip("]")
    if kind not in KINDS:
        raise Failure(f"{spec}: unknown check kind {kind!r} (one of {', '.join(KINDS)})")
    parts, options = {}, {}
    for item in filter(None, body.split(",")):
        key, eq, value = item.partition("=")
        if not eq:
            raise Failure(f"{spec}: {item!r} is not KEY=VALUE")
        if key in KINDS[kind]:
            parts[key] = int(value)
        elif key in OPTIONS.get(kind, ()) or key == "info_value":
            options[key] = value
        else:
            raise Failure(f"{spec}: unknown key {key!r} for {kind}")
    return kind, label, parts, options


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    directory = argv[1]
    try:
        checks = [parse(s) for s in argv[2:]]
        results, eps = {}, {}
        for _, _, parts, _ in checks:
            for index in parts.values():
                if index not in results:
                    results[index], eps[index] = load(directory, index)
        for kind, label, parts, options in checks:
            run_check(results, eps, kind, label, parts, options)
    except Failure as e:
        print(f"lapack_properties: FAILED: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
