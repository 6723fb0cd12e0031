#!/usr/bin/env python3
"""Passes preserve semantics: every module of testdata/eval and
testdata/passes is run through hlo-run before and after `hlo-opt -O`, and
after `hlo-opt --passes=layout-assignment` alone, on the same seeded inputs
(`--random-inputs --seed 1`), and the results must be equal: integers, pred
and tokens exactly, floating point within a tight relative tolerance (see
TOLERANCE; NaN equals NaN, infinities must match, -0 equals 0).

  scripts/semantics_check.py --bin build/bin [--filter REGEX] [-v] [--stablehlo]

With --stablehlo the pipeline is the round trip through StableHLO text
instead: `hlo-opt --emit=stablehlo` (custom assembly, then generic form) and hlo-run
reading that text, over
testdata/eval, testdata/passes and testdata/xla-jax (CTest
stablehlo_roundtrip), and XLA's dumps of ../shared/xla-jax/cases where they are. A module the writer has no form for yet is skipped
with its reason (listed with -v), not failed. The writer flattens the entry's
tuples, as XLA's translation does: results are compared leaf by leaf, and a
module whose entry takes a tuple is skipped (its leaves, parameters of
their own after the trip, would get other random values).

Files holding several modules (`// -----`) are split. The RUN line's
flags that change how a module runs, not what it reads (PASSED_RUN_FLAGS:
--no-fast-paths, --no-fusion, --replicas, --partitions, --precision,
--denormals) are given to both runs. A module is skipped (and counted) when
its RUN line gives other hlo-run flags than those and --input, --expect,
--rtol, --atol, --output-format, --random-inputs, --seed (inputs are random
here with seed 1, expectations and output files not used), or for the
passes --precision or --denormals (RUNTIME_ONLY_FLAGS),
when it is a RUN-ERROR test, when it has elided constants (`constant({...})`,
filled from the seed by name, which passes may change), or when hlo-run
cannot run it before any pass
(side effects, unsupported ops, parameters of unsupported types, ...).
A module hlo-opt fails on, or that fails to run after the passes, is a
failure. The last line is `semantics: N modules checked, N skipped, N failed`.
"""
import argparse
import concurrent.futures
import json
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTDATA = os.path.join(ROOT, "testdata")
DIRS = ("eval", "passes")
PIPELINES = (("-O", ["-O"]), ("layout-assignment", ["--passes=layout-assignment"]))
# testdata's folders, and XLA's dumps of the shared cases where ../shared is.
SHARED_CASES = os.path.join(os.path.dirname(ROOT), "shared", "xla-jax", "cases")
STABLEHLO_DIRS = ("eval", "passes", "xla-jax") + ((SHARED_CASES,) if os.path.isdir(SHARED_CASES)
                                                  else ())
STABLEHLO_PIPELINES = (("the StableHLO round trip", ["--emit=stablehlo"]),
                       ("the generic StableHLO round trip",
                        ["--emit=stablehlo", "--print-op-generic"]))
HARMLESS_RUN_FLAGS = {"--input", "--expect", "--rtol", "--atol", "--output-format",
                      "--random-inputs", "--seed"}
# Flags with a value (`--replicas 2` or `--replicas=2`) or none, given to
# both runs as the RUN line gives them.
PASSED_RUN_FLAGS = {"--no-fast-paths": False, "--no-fusion": False, "--replicas": True,
                    "--partitions": True, "--precision": True, "--denormals": True}
# Not for the passes: constant folding evaluates at compile time in the
# type's own arithmetic with denormals kept, as XLA's does, so a run that
# changes them gives other results after -O by design.
RUNTIME_ONLY_FLAGS = {"--precision", "--denormals"}
RUN_ARGS = ["--random-inputs", "--seed", "1", "--output-format", "json"]
# Relative tolerance per element type (passes rewrite exactly; this covers
# at most a few rounding steps of a different but equal evaluation order).
TOLERANCE = {"f64": 1e-12, "c128": 1e-12, "f32": 1e-6, "c64": 1e-6,
             "f16": 2e-3, "bf16": 1.6e-2}
LOW_PRECISION = 0.13  # f8 and narrower types
TIMEOUT = 120


def has_elided_constants(text):
    """hlo-run fills an elided constant from the seed and its name, and a
    pass may rename it (call-inliner): the two runs' values differ."""
    return re.search(r"\bconstant\(\{\.\.\.\}\)", text) is not None


def pieces(path, stablehlo):
    """(label, text, flags) per module of a file: the hlo-run flags of its RUN
    line to give both runs; None text marks a skip reason (in flags)."""
    text = open(path, encoding="utf-8", errors="surrogateescape").read()
    rel = os.path.relpath(path, TESTDATA)
    head = text.splitlines()[:10]
    passed = []
    for line in head:
        if re.match(r"\s*//\s*RUN-ERROR:", line):
            return [(rel, None, "RUN-ERROR test")]
        m = re.match(r"\s*//\s*RUN:\s*(.*)$", line)
        if m:
            argv = shlex.split(m.group(1))
            if argv and argv[0] == "hlo-run":
                if "|" in argv:
                    return [(rel, None, "RUN pipes hlo-run's output on")]
                flags = {a.split("=")[0] for a in argv[1:] if a.startswith("--")}
                odd = flags - HARMLESS_RUN_FLAGS - set(PASSED_RUN_FLAGS)
                if not stablehlo:
                    odd |= flags & RUNTIME_ONLY_FLAGS
                if odd:
                    return [(rel, None, f"RUN uses {' '.join(sorted(odd))}")]
                for i, a in enumerate(argv):
                    name = a.split("=")[0]
                    if name in PASSED_RUN_FLAGS:
                        passed.append(a)
                        if PASSED_RUN_FLAGS[name] and "=" not in a and i + 1 < len(argv):
                            passed.append(argv[i + 1])
    parts = re.split(r"^// -----.*$", text, flags=re.M)
    out = []
    for i, part in enumerate(parts):
        if "HloModule" not in part and "ENTRY" not in part:
            continue
        label = f"{rel}#{i}" if len(parts) > 1 else rel
        if has_elided_constants(part):
            out.append((label, None, "elided constants (filled by name)"))
            continue
        out.append((label, part, passed))
    return out


def run(argv, stdin=None):
    try:
        p = subprocess.run(argv, input=stdin, capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return 124, b"", b"timeout"
    return p.returncode, p.stdout, p.stderr


def tolerance(dtype):
    if dtype in TOLERANCE:
        return TOLERANCE[dtype]
    if dtype.startswith("f8") or dtype.startswith("f4") or dtype.startswith("f6"):
        return LOW_PRECISION
    return None  # exact


def as_float(v):
    return float(v)  # numbers, and the strings "nan", "inf", "-inf"


def same_value(a, b, tol):
    if isinstance(a, list) or isinstance(b, list):
        return (isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and
                all(same_value(x, y, tol) for x, y in zip(a, b)))
    if tol is None:
        return a == b
    try:
        x, y = as_float(a), as_float(b)
    except (TypeError, ValueError):
        return a == b
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isinf(x) or math.isinf(y):
        return x == y
    return abs(x - y) <= tol * max(abs(x), abs(y)) + 1e-300


def compare(a, b, where="result"):
    """None when equal, else a message naming the first difference."""
    # Several devices (--replicas/--partitions): one result per device.
    if isinstance(a, list) or isinstance(b, list):
        if not isinstance(a, list) or not isinstance(b, list) or len(a) != len(b):
            return f"{where}: device counts differ"
        for i, (x, y) in enumerate(zip(a, b)):
            msg = compare(x, y, f"{where} (device {i})")
            if msg:
                return msg
        return None
    if "elements" in a or "elements" in b:
        ea, eb = a.get("elements"), b.get("elements")
        if ea is None or eb is None or len(ea) != len(eb):
            return f"{where}: tuple shapes differ ({a.get('shape')} vs {b.get('shape')})"
        for i, (x, y) in enumerate(zip(ea, eb)):
            msg = compare(x, y, f"{where}[{i}]")
            if msg:
                return msg
        return None
    if a.get("dtype") != b.get("dtype") or a.get("dims") != b.get("dims"):
        return f"{where}: shapes differ ({a.get('shape')} vs {b.get('shape')})"
    da, db = a.get("data"), b.get("data")
    if not isinstance(da, list):
        da, db = [da], [db]
    if not isinstance(db, list) or len(da) != len(db):
        return f"{where}: element counts differ"
    tol = tolerance(a.get("dtype", ""))
    for i, (x, y) in enumerate(zip(da, db)):
        if not same_value(x, y, tol):
            return f"{where}: element {i} differs: {x!r} before, {y!r} after"
    return None


def leaves(result):
    """A result's arrays in order, tuples flattened (the StableHLO writer
    flattens the entry's tuple result as XLA's translation does)."""
    if isinstance(result, list):
        return [leaves(r) for r in result]
    return {"shape": result.get("shape"), "elements": flat_elements(result)}


def flat_elements(result):
    if "elements" in result:
        return [x for e in result["elements"] for x in flat_elements(e)]
    return [result]


def entry_has_tuple_parameter(hlo_opt, src):
    """Whether the entry takes a tuple: the StableHLO writer flattens it into
    several parameters, which --random-inputs fills from other streams."""
    rc, out, _ = run([hlo_opt, src, "--emit=json"])
    if rc != 0:
        return False
    for comp in json.loads(out).get("computations", []):
        if comp.get("is_entry"):
            return any(i.get("opcode") == "parameter" and i.get("shape", "").startswith("(")
                       for i in comp.get("instructions", []))
    return False


def compare_selftest():
    """compare() must tell these apart (a check that cannot fail is no check)."""
    arr = lambda dtype, data: {"shape": "", "dtype": dtype, "dims": [len(data)], "data": data}
    cases = [
        (arr("s32", [1, 2]), arr("s32", [1, 2]), True),
        (arr("s32", [1, 2]), arr("s32", [1, 3]), False),
        (arr("pred", [True]), arr("pred", [False]), False),
        (arr("f32", [1.0, "nan", "inf", -0.0]), arr("f32", [1.0 + 1e-8, "nan", "inf", 0.0]), True),
        (arr("f32", [1.0]), arr("f32", [1.001]), False),
        (arr("f32", ["nan"]), arr("f32", [1.0]), False),
        (arr("f32", ["inf"]), arr("f32", ["-inf"]), False),
        (arr("c64", [[1.0, 2.0]]), arr("c64", [[1.0, 2.5]]), False),
        (arr("f32", [1.0]), arr("f64", [1.0]), False),
        ({"elements": [arr("s32", [1])]}, {"elements": [arr("s32", [1]), arr("s32", [1])]}, False),
    ]
    return [f"compare() self-test case {i} gives the wrong verdict"
            for i, (x, y, same) in enumerate(cases) if (compare(x, y) is None) != same]


def check(bindir, label, text, run_flags=(), stablehlo=False):
    """('ok' | 'skip' | 'fail', message); `run_flags` go to both hlo-run runs."""
    hlo_run = os.path.join(bindir, "hlo-run")
    hlo_opt = os.path.join(bindir, "hlo-opt")
    with tempfile.TemporaryDirectory(prefix="hlo-sem-") as tmp:
        src = os.path.join(tmp, "module.hlo")
        with open(src, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        if stablehlo and entry_has_tuple_parameter(hlo_opt, src):
            return "skip", "the entry takes a tuple (flattened in StableHLO; random inputs differ)"
        rc, out, err = run([hlo_run, src] + RUN_ARGS + list(run_flags))
        if rc != 0:
            first = err.decode(errors="replace").strip().splitlines()
            return "skip", f"hlo-run fails before the passes: {first[-1] if first else rc}"
        try:
            before = json.loads(out)
        except json.JSONDecodeError:
            return "skip", "hlo-run output is not JSON"
        for name, flags in STABLEHLO_PIPELINES if stablehlo else PIPELINES:
            opt = os.path.join(tmp, "opt.mlir" if stablehlo else "opt.hlo")
            rc, _, err = run([hlo_opt, src, "-o", opt] + flags)
            if rc == 1 and stablehlo:
                first = err.decode(errors="replace").strip().splitlines()
                return "skip", f"not written: {first[0] if first else rc}"
            if rc != 0:
                return "fail", f"hlo-opt {' '.join(flags)} exits {rc}: " \
                               f"{err.decode(errors='replace').strip()[-400:]}"
            rc, out, err = run([hlo_run, opt] + RUN_ARGS + list(run_flags))
            if rc != 0:
                return "fail", f"hlo-run fails after {name}: " \
                               f"{err.decode(errors='replace').strip()[-400:]}"
            after = json.loads(out)
            msg = compare(leaves(before), leaves(after)) if stablehlo else compare(before, after)
            if msg:
                return "fail", f"after {name}: {msg}"
    return "ok", ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--filter", default="")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--stablehlo", action="store_true",
                    help="check the round trip through StableHLO text instead of the passes")
    a = ap.parse_args()
    bindir = os.path.abspath(a.bin)
    work, skipped = [], []
    for d in STABLEHLO_DIRS if a.stablehlo else DIRS:
        for dirpath, _, names in os.walk(os.path.join(TESTDATA, d)):
            for n in sorted(names):
                path = os.path.join(dirpath, n)
                if not n.endswith(".hlo") or n.endswith(".expected.hlo"):
                    continue
                if not re.search(a.filter, os.path.relpath(path, TESTDATA)):
                    continue
                for label, text, flags in pieces(path, a.stablehlo):
                    if text is None:
                        skipped.append((label, flags))
                    else:
                        work.append((label, text, flags))
    checked, failed = 0, [("compare_selftest", m) for m in compare_selftest()]
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        results = pool.map(lambda w: (w[0],) + check(bindir, w[0], w[1], w[2], a.stablehlo), work)
        for label, verdict, msg in results:
            if verdict == "skip":
                skipped.append((label, msg))
            elif verdict == "fail":
                failed.append((label, msg))
            else:
                checked += 1
    if a.verbose:
        for label, reason in sorted(skipped):
            print(f"skip {label}: {reason}")
    for label, msg in failed:
        print(f"FAIL {label}: {msg}")
    label = "stablehlo round trip" if a.stablehlo else "semantics"
    print(f"{label}: {checked} modules checked, {len(skipped)} skipped, {len(failed)} failed")
    return 1 if failed or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
