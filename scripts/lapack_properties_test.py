#!/usr/bin/python3
"""Checks that scripts/lapack_properties.py catches wrong LAPACK results and
accepts equally correct ones.

  /usr/bin/python3 scripts/lapack_properties_test.py [-v]

For each property-checked module of the lapack golden family (gees, geev,
syevd, gesdd, gesvd; single and double) the results scipy gives are written
as hlo-run would (result_I.npy) and checked as the module's RUN line does:
unchanged they must pass; each mutation below must fail (a perturbed entry,
swapped eigenvalues, a nonzero below T's subdiagonal, info 1, swapped
results) or pass (a sign or phase that the mathematics leaves free). Exit
status 1 naming every case that came out otherwise.
"""
import contextlib
import io
import os
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lapack_properties  # noqa: E402
from goldens import lapack  # noqa: E402

DTYPES = {"f32": np.float32, "f64": np.float64, "c64": np.complex64, "c128": np.complex128,
          "s32": np.int32}


def module(name):
    """The family's Module for NAME (its outputs hold scipy's results)."""
    base, precision = name.rsplit("_", 1)
    gen, _ = lapack.GENERATORS[base]
    letters, _ = lapack.PRECISIONS[precision]
    m = lapack.Module()
    for letter in letters:
        gen(m, letter, np.random.default_rng(sum(map(ord, base + letter))))
    return m


def part(m, kind, key, n=0):
    """Result index of part `key` of the n-th check of `kind`."""
    specs = [lapack_properties.parse(c) for c in m.checks]
    return [p for k, _, p, _ in specs if k == kind][n][key]


def perturb(kind, key, n, idx, by=1e-3):
    def f(m, r):
        i = part(m, kind, key, n)
        r[i][idx] += by * max(1, abs(r[i][idx]))
    return f


def swap_first_last(kind, key, n=0):
    def f(m, r):
        i = part(m, kind, key, n)
        r[i][0, [0, -1]] = r[i][0, [-1, 0]]
    return f


def set_info(kind, n, value=1):
    def f(m, r):
        r[part(m, kind, "info", n)][..., 0] = value
    return f


def below_subdiagonal(n, idx):
    def f(m, r):
        r[part(m, "schur", "t", n)][idx] = 1e-3
    return f


def schur_sign(n):
    """Z's column 1 negated with T's row and column 1: still A = Z T Z^H."""
    def f(m, r):
        z, t = r[part(m, "schur", "z", n)], r[part(m, "schur", "t", n)]
        z[0][:, 1] *= -1
        t[0][1, :] *= -1
        t[0][:, 1] *= -1
    return f


def vector_phase(kind, keys, n, phase):
    """Column 0 of each of keys (row 0 of vt) times a unit phase."""
    def f(m, r):
        for key in keys:
            a = r[part(m, kind, key, n)]
            if key == "vt":
                a[0][0, :] *= np.conj(phase)
            else:
                a[0][:, 0] *= phase
    return f


def swap_results(kind, k1, k2, n):
    def f(m, r):
        i, j = part(m, kind, k1, n), part(m, kind, k2, n)
        r[i], r[j] = r[j], r[i]
    return f


def cases(p):
    """(module, what, mutation, must_fail)."""
    out = [(f"lapack_{f}_{p}", "scipy's results", None, False)
           for f in ("gees", "geev", "syevd", "gesdd", "gesvd")]
    g = f"lapack_gees_{p}"
    out += [(g, "T entry perturbed", perturb("schur", "t", 0, (0, 0, 1)), True),
            (g, "Z entry perturbed", perturb("schur", "z", 0, (0, 2, 1)), True),
            (g, "T without Z perturbed", perturb("schur", "t", 1, (0, 0, 1)), True),
            (g, "complex T perturbed", perturb("schur", "t", 3, (1, 1, 2)), True),
            (g, "real w swapped", swap_first_last("schur", "w"), True),
            (g, "complex w swapped", swap_first_last("schur", "w", 3), True),
            (g, "wi perturbed", perturb("schur", "wi", 0, (0, 2)), True),
            (g, "real T not quasi-triangular", below_subdiagonal(0, (0, 3, 0)), True),
            (g, "complex T not triangular", below_subdiagonal(3, (0, 2, 1)), True),
            (g, "info 1", set_info("schur", 0), True),
            (g, "Z column and T row/column negated", schur_sign(0), False),
            (g, "complex Z column and T row/column negated", schur_sign(3), False)]
    g = f"lapack_geev_{p}"
    out += [(g, "vr perturbed", perturb("geev", "vr", 0, (0, 1, 1)), True),
            (g, "vl perturbed", perturb("geev", "vl", 0, (0, 1, 1)), True),
            (g, "w perturbed", perturb("geev", "w", 0, (0, 1)), True),
            (g, "w swapped", swap_first_last("geev", "w"), True),
            (g, "legacy info 1", set_info("geev", 2), True),
            (g, "vr and vl column times i", vector_phase("geev", ["vr", "vl"], 0, 1j), False)]
    g = f"lapack_syevd_{p}"
    out += [(g, "V perturbed", perturb("eigh", "v", 0, (0, 1, 1)), True),
            (g, "w without V perturbed", perturb("eigh", "w", 2, (0, 1)), True),
            (g, "w not ascending", swap_first_last("eigh", "w"), True),
            (g, "legacy info 1", set_info("eigh", 3), True),
            (g, "V column negated", vector_phase("eigh", ["v"], 0, -1), False)]
    for f in ("gesdd", "gesvd"):
        g = f"lapack_{f}_{p}"
        out += [(g, "s perturbed", perturb("svd", "s", 0, (0, 1)), True),
                (g, "s without U perturbed", perturb("svd", "s", 3, (1,)), True),
                (g, "U's extra column perturbed", perturb("svd", "u", 0, (0, 3, 3)), True),
                (g, "V^H perturbed", perturb("svd", "vt", 1, (1, 0, 0)), True),
                (g, "u and vt swapped", swap_results("svd", "u", "vt", 2), True),
                (g, "info 1", set_info("svd", 1), True),
                (g, "a singular pair negated", vector_phase("svd", ["u", "vt"], 0, -1), False)]
    return out


def verdict(m, mutation, directory):
    """(exit status, message) of the checker on m's results after mutation."""
    r = [np.array(lit.a, dtype=DTYPES[lit.t]) for _, lit in m.outputs]
    if mutation:
        mutation(m, r)
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    for i, a in enumerate(r):
        np.save(os.path.join(directory, f"result_{i}.npy"), a)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = lapack_properties.main(["lapack_properties.py", directory] + m.checks)
    return status, err.getvalue().strip()


def main():
    verbose = "-v" in sys.argv[1:]
    modules, wrong, total = {}, [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for p in ("single", "double"):
            for name, what, mutation, must_fail in cases(p):
                if name not in modules:
                    modules[name] = module(name)
                m = modules[name]
                status, message = verdict(m, mutation, os.path.join(tmp, "r"))
                total += 1
                ok = status == (1 if must_fail else 0)
                line = (f"{'ok' if ok else 'WRONG'}: {name}: {what}: "
                        f"{'fails' if status else 'passes'}{': ' + message if message else ''}")
                if not ok:
                    wrong.append(line)
                if verbose or not ok:
                    print(line)
    print(f"lapack_properties_test: {total} cases, {len(wrong)} wrong")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
