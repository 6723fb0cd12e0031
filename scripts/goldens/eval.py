"""Family `eval`: the expected results of the hand-written modules in
testdata/eval/ (all but the indexing, linalg and lapack families' prefixes),
computed without hlo-run.

The modules in testdata/eval/ are hand-written, one per file, each starting
with `// RUN: hlo-run %s ...` and a one-line comment saying what it checks.
For every module there is a function (in scripts/goldens/eval_*.py, or
collective.py for the multi-device modules, registered with @golden("NAME"))
that computes the value of the module's ROOT from the operation semantics in
../shared/spec (operation-semantics.en.txt for XLA, stablehlo-spec.en.md),
with numpy, exact integer arithmetic and - for the formats numpy lacks (bf16,
the f8/f4 formats, s2/s4/u2/u4) - the rounding and wrapping implemented in
core.py from the format definitions. It never runs hlo-run.

The inputs are read from the module itself: core.py's reader parses every
`NAME = TYPE[DIMS] constant(LITERAL)` line (and the `--input` files named on
the RUN line), so the values live in one place, the .hlo file.

Two kinds of expected file:

* exact modules (`// RUN: hlo-run %s`): NAME.out is hlo-run's text result,
  `f32[3] {1, 2, 3}`, tuples `(f32[] 1, s32[] 2)`, floats as the shortest text
  that reads back to the same value of the type (ir/literal_text.cc,
  LiteralStyle::kCompact: std::to_chars for f32/f64; for narrower floats the
  same rule - fewest characters, then closest, then fixed over scientific).
* tolerance modules, for transcendental functions whose last bit libm may not
  round correctly (`// RUN: hlo-run %s --expect eval/NAME.expect --rtol R
  --atol A`): NAME.expect holds the reference values (computed in double and
  rounded to the type) and NAME.out is empty (hlo-run prints nothing on a
  match and exits 1 with a report otherwise).

A module whose first line is `// RUN-ERROR:` has a hand-written NAME.err
(writer.HAND_WRITTEN) and no generator.
"""
import glob
import io
import os
import re

import numpy as np

from goldens import collective, core
from goldens.writer import read_text

EVAL_DIR = core.EVAL_DIR
# Prefixes of the modules other families write.
OTHER_FAMILIES = ("gather_", "scatter_", "sort_", "topk_", "custom_call_",
                  "cholesky_", "triangular_solve_", "fft_", "batch_norm_", "lapack_")


def _load():
    """Registers the generators: collective.py's, and those of eval_*.py, run
    in core's namespace so they use `golden`, `L`, `tup`, ... directly."""
    if core.TESTS:
        return
    collective.register(core)
    here = os.path.dirname(os.path.abspath(__file__))
    for path in sorted(glob.glob(os.path.join(here, "eval_*.py"))):
        with open(path, encoding="utf-8") as f:
            exec(compile(f.read(), path, "exec"), vars(core))


def _npy_bytes(data):
    buf = io.BytesIO()
    np.save(buf, data)
    return buf.getvalue()


def _check_run_line(name, args, lines, tol):
    """What is wrong with the module's first lines, or None."""
    if (not args or args[:2] != ["hlo-run", "%s"] or not lines[0].startswith("// RUN:")
            or len(lines) < 2 or not lines[1].startswith("// ")):
        return f"{name}.hlo: must start with `// RUN: hlo-run %s` and a `//` comment"
    want_expect = f"eval/{name}.expect"
    if tol:
        ok = ("--expect" in args and args[args.index("--expect") + 1] == want_expect
              and "--rtol" in args and float(args[args.index("--rtol") + 1]) == tol[0]
              and "--atol" in args and float(args[args.index("--atol") + 1]) == tol[1])
        if not ok:
            return (f"{name}.hlo: RUN line must say --expect {want_expect} "
                    f"--rtol {tol[0]} --atol {tol[1]}")
    elif "--expect" in args:
        return f"{name}.hlo: --expect in an exact module"
    return None


def _module(w, name, verbose):
    path = os.path.join(EVAL_DIR, name + ".hlo")
    if name not in core.TESTS:
        w.problem(f"{name}.hlo: no generator in scripts/goldens/eval_*.py")
        return
    fn, tol = core.TESTS[name]
    text, consts = core.read_module(path)
    w.claim_module(f"eval/{name}.hlo", text)
    args = core.run_args(text)
    bad = _check_run_line(name, args, text.splitlines(), tol)
    if bad:
        w.problem(bad)
        return
    if name in core.INPUT_FILES:
        for rel, data in core.INPUT_FILES[name]().items():
            w.file(f"eval/{rel}", _npy_bytes(data) if isinstance(data, np.ndarray) else data)
    consts.inputs = core.read_inputs(args, text)
    try:
        res = fn(consts)
    except Exception as e:  # a bug in a generator; say where
        import traceback
        w.problem(f"{name}: generator failed: {e!r}")
        if verbose:
            traceback.print_exc()
        return
    want_shape = core.declared_root_shape(text)
    results = getattr(res, "device_results", [res])
    bad = [r for r in results if want_shape is not None and
           want_shape != core.result_shape(r).replace(" ", "")]
    if bad:
        w.problem(f"{name}: generator gives {core.result_shape(bad[0])}, the module's ROOT is "
                  f"{want_shape}")
        return
    text_out = (res.text(core.result_text) if hasattr(res, "device_results")
                else core.result_text(res) + "\n")
    if tol:
        w.file(f"eval/{name}.expect", text_out)
        w.file(f"eval/{name}.out", "")
    else:
        w.file(f"eval/{name}.out", text_out)


def generate(w, name_filter):
    """Writes (or checks) the family's files; returns its number of modules."""
    _load()
    names = sorted(f[:-len(".hlo")] for f in os.listdir(EVAL_DIR)
                   if f.endswith(".hlo") and not f.startswith(OTHER_FAMILIES))
    for name in names:
        if not re.search(name_filter, name):
            continue
        if read_text(os.path.join(EVAL_DIR, name + ".hlo")).startswith("// RUN-ERROR:"):
            continue  # an error module: its NAME.err is written by hand
        _module(w, name, w.verbose)
    for name in sorted(core.TESTS):
        if name not in names:
            w.problem(f"{name}: generator without testdata/eval/{name}.hlo")
    return len(names)
