#!/usr/bin/env python3
"""Fused and unfused execution give the same bits.

  scripts/fusion_agreement.py --bin build/bin [--jobs N] [-v]

hlo-run fuses what it can (elementwise groups, softmax rows, row-broadcast
ops, sibling reductions, XLA's loop fusions); `--no-fusion` runs every
instruction through its own kernel instead. Each run below is made both ways,
the results written as .npy files, and the files compared byte for byte (NaN
payloads and signed zeros included); the exit status and the messages on
stderr must agree too (an error is the same error either way). The runs:

* every `// RUN: hlo-run %s ...` line of testdata/ (lines that pipe, expect
  a failure with `not`, time or profile are left out, as are lines with
  --no-fast-paths, which turns fusion off already);
* XLA's own cases (testdata/xla-jax/cases and ../shared/xla-jax/cases when
  present): before.hlo and after.hlo (with XLA's kLoop fusions) on their
  recorded inputs, with XLA:CPU's --denormals=flush; and XLA:GPU's modules
  of the same programs (../shared/xla-jax/gpu: kInput and kLoop fusions,
  GPU custom calls, their own layouts) alike;
* the shared benchmarks (../shared/bench/*.hlo when present) on
  --random-inputs: the chains fusion is made for, at full size;
* the full-size models (../shared/xla-jax/models/*.hlo when present: GPT-2
  small and ResNet-50, before and after XLA:CPU's optimisations) on
  --random-inputs with --denormals=flush: XLA's norm, residual and
  activation fusions as a user's dump holds them.

Prints each disagreement and `fusion agreement: N runs, N agree, N differ`;
exit status 1 on any disagreement or when no run was made.
"""
import filecmp
import os
import re
import shlex
import shutil
import subprocess
import sys

from parallel_runs import parse_options, run_all

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTDATA = os.path.join(ROOT, "testdata")
SHARED = os.path.join(os.path.dirname(ROOT), "shared")

# Arguments that write elsewhere, compare, time or change nothing we compare.
DROP_WITH_VALUE = {"-o", "--output", "--output-format", "--expect", "--rtol", "--atol",
                   "--bench", "--outfeed"}
SKIP_FLAGS = ("--no-fast-paths", "--profile", "--bench", "--outfeed")


def golden_runs():
    """(name, cwd, args) for each plain hlo-run RUN line of testdata/."""
    runs = []
    for dirpath, dirnames, filenames in os.walk(TESTDATA):
        dirnames[:] = sorted(d for d in dirnames if d != "xla-jax")
        for f in sorted(filenames):
            if not f.endswith(".hlo"):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, TESTDATA)
            with open(path, encoding="utf-8", errors="replace") as fh:
                lines = [l for l in fh.read(4096).splitlines() if l.startswith("// RUN:")]
            for i, line in enumerate(lines):
                cmd = line[len("// RUN:"):].strip()
                if not cmd.startswith("hlo-run ") or "|" in cmd or "2>" in cmd:
                    continue
                args = shlex.split(cmd.replace("%s", rel))[1:]
                if any(a.split("=")[0] in SKIP_FLAGS for a in args):
                    continue
                runs.append((f"{rel}:RUN{i + 1}", TESTDATA, strip_outputs(args)))
    return runs


def strip_outputs(args):
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a in DROP_WITH_VALUE:
            skip = True
            continue
        if a.split("=")[0] in DROP_WITH_VALUE:
            continue
        out.append(a)
    return out


def xla_case_runs():
    runs = []
    for base in (os.path.join(TESTDATA, "xla-jax", "cases"),
                 os.path.join(SHARED, "xla-jax", "cases"),
                 os.path.join(SHARED, "xla-jax", "gpu")):
        if not os.path.isdir(base):
            continue
        for case in sorted(os.listdir(base)):
            d = os.path.join(base, case)
            inputs = sorted((f for f in os.listdir(d) if re.fullmatch(r"in_\d+\.npy", f)),
                            key=lambda f: int(f[3:-4]))
            for module in ("before.hlo", "after.hlo"):
                if os.path.exists(os.path.join(d, module)):
                    args = [module] + [x for f in inputs for x in ("--input", f)]
                    runs.append((f"{os.path.relpath(d, os.path.dirname(ROOT))}/{module}", d,
                                 args + ["--denormals=flush"]))
    return runs


def bench_runs():
    d = os.path.join(SHARED, "bench")
    if not os.path.isdir(d):
        return []
    return [(f"shared/bench/{f}", d, [f, "--random-inputs", "--seed", "7"])
            for f in sorted(os.listdir(d)) if f.endswith(".hlo")]


def model_runs():
    d = os.path.join(SHARED, "xla-jax", "models")
    if not os.path.isdir(d):
        return []
    return [(f"shared/xla-jax/models/{f}", d,
             [f, "--random-inputs", "--seed", "7", "--denormals=flush"])
            for f in sorted(os.listdir(d)) if f.endswith(".hlo")]


def list_files(top):
    """Paths of the files under top (a multi-device run writes a folder per device)."""
    return sorted(os.path.relpath(os.path.join(d, f), top)
                  for d, _, files in os.walk(top) for f in files)


def run_both(hlo_run, name, cwd, args, tmp):
    try:
        return compare_runs(hlo_run, name, cwd, args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # the benchmarks' outputs are 100s of MB


def compare_runs(hlo_run, name, cwd, args, tmp):
    results = []
    for k, extra in enumerate(([], ["--no-fusion"])):
        out = os.path.join(tmp, f"{k}")
        os.makedirs(out)
        p = subprocess.run([hlo_run] + args + extra + ["--output-format", "npy", "-o", out],
                           cwd=cwd, capture_output=True, text=True, timeout=600)
        results.append((p.returncode, p.stderr, out))
    (rc0, err0, out0), (rc1, err1, out1) = results
    if rc0 != rc1 or err0 != err1:
        return f"{name}: exit {rc0} fused, {rc1} unfused\n  fused: {err0.strip()[:300]}\n" \
               f"  unfused: {err1.strip()[:300]}"
    files0, files1 = list_files(out0), list_files(out1)
    if files0 != files1:
        return f"{name}: outputs {files0} fused, {files1} unfused"
    for f in files0:
        if not filecmp.cmp(os.path.join(out0, f), os.path.join(out1, f), shallow=False):
            return f"{name}: {f} differs"
    return None


def main():
    a = parse_options(__doc__.splitlines()[0], ROOT)
    hlo_run = os.path.abspath(os.path.join(a.bin, "hlo-run"))
    # The longest runs first, so that they do not end the test alone.
    runs = model_runs() + bench_runs() + xla_case_runs() + golden_runs()
    if not os.path.isdir(SHARED):
        print(f"fusion agreement: {SHARED} not found: XLA's shared cases, the benchmarks "
              "and the full-size models are not run (testdata/ only)", flush=True)
    differ = run_all([(name, run_both, (hlo_run, name, cwd, args)) for name, cwd, args in runs],
                     a.jobs, a.verbose)
    print(f"fusion agreement: {len(runs)} runs, {len(runs) - len(differ)} agree, "
          f"{len(differ)} differ")
    return 1 if differ or not runs else 0


if __name__ == "__main__":
    sys.exit(main())
