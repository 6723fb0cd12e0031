#!/usr/bin/python3
"""hlo-run's rounding error beside XLA:CPU's, on the real XLA cases (../shared/xla-jax/cases).

  scripts/accuracy-real.py [--cases DIR ...] [--bin build/bin] [--only NAME,...] [--run-args FLAGS]

For each case and text (before.hlo, after.hlo) hlo-run evaluates the module on the saved
inputs twice: as written, and with --precision=f64 (every float narrower than f64 computed
in f64, the outputs rounded once to their types) as the reference. Per float output it
prints the largest |ours - ref| and |XLA - ref| (XLA = XLA:CPU's saved result, out_I.npy)
and the verdict:

  ok     ours <= XLA's, or within the slack: ours <= XLA's + 2 ULP of the output's largest
         reference magnitude (both are results rounded to the output type; where XLA's own
         error is a rounding or two, the two can legitimately differ by a rounding)
  other-form  both ours and XLA's differ from the reference by more than a hundredth of its
         largest magnitude: the f64 run chose another of the output's equivalent forms (an
         eigen- or singular vector's sign or phase, a basis); not judged
  WORSE  otherwise

Integer and pred outputs are compared exactly with XLA's instead (a mismatch is shown,
not judged: an integer derived from floats, e.g. argmax, may legitimately follow the
rounding). Multi-device cases (out_dD_I.npy) are skipped: their before.hlo runs in
check.py. Exit status 1 when any output is WORSE.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument("--cases", nargs="+", action="extend",
                help="case folders (repeatable; default ../shared/xla-jax/cases)")
ap.add_argument("--bin", default="build/bin")
ap.add_argument("--only", default="")
ap.add_argument("--timeout", type=int, default=300)
ap.add_argument("--run-args", default="--denormals=flush",
                help="extra hlo-run flags for both runs (XLA:CPU flushes denormals)")
ap.add_argument("--slack-ulps", type=float, default=2.0)
args = ap.parse_args()
if not args.cases:
    args.cases = [os.path.join(HERE, "..", "..", "shared", "xla-jax", "cases")]
RUN = os.path.join(args.bin, "hlo-run")

ULP_BITS = {"float32": 23, "bfloat16": 7, "float16": 10, "float64": 52,
            "complex64": 23, "complex128": 52}


def as_float(a, dtype_name):
    if dtype_name == "bfloat16":
        return (a.astype(np.uint32) << 16).view(np.float32)
    return a


def results(outdir):
    files = glob.glob(os.path.join(outdir, "result*.npy"))
    if len(files) == 1 and files[0].endswith("result.npy"):
        return [np.load(files[0])]

    def key(f):
        return [int(x) for x in re.findall(r"\d+", os.path.basename(f))]
    return [np.load(f) for f in sorted(files, key=key)]


def run(hlo, inputs, extra):
    with tempfile.TemporaryDirectory() as td:
        cmd = [RUN, hlo, "--output-format=npy", "-o", td, *args.run_args.split(), *extra]
        for f in inputs:
            cmd += ["--input", f]
        try:
            p = subprocess.run(cmd, capture_output=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            return None, "timeout"
        if p.returncode != 0:
            err = [l for l in p.stderr.decode(errors="replace").splitlines() if "error" in l]
            return None, (err[0] if err else f"exit {p.returncode}")[:160]
        return results(td), ""


def max_abs(a, ref):
    """Largest |a - ref| over the elements where ref is finite (NaN/inf must agree)."""
    fin = np.isfinite(ref)
    bad = int((~fin & ~((np.isnan(a) & np.isnan(ref)) | (a == ref))).sum())
    d = np.abs(a[fin] - ref[fin])
    return (float(d.max()) if d.size else 0.0), bad


def judge(name, text, i, dtype, ours, ref, xla):
    ours, ref, xla = (as_float(x, dtype) for x in (ours, ref, xla))
    if ours.shape != xla.shape or ref.shape != xla.shape:
        return f"  {name:18s} {text:6s} out {i}: shape {ours.shape} / ref {ref.shape} / XLA {xla.shape}", False
    if xla.dtype.kind not in "fc":
        diff = int((ours != xla).sum())
        note = "equal to XLA" if diff == 0 else f"{diff}/{xla.size} differ from XLA"
        return f"  {name:18s} {text:6s} out {i}: {dtype:9s} {note}", True
    wide = np.complex128 if xla.dtype.kind == "c" else np.float64
    o, r, x = (v.astype(wide) for v in (ours, ref, xla))
    e_ours, bad_o = max_abs(o, r)
    e_xla, bad_x = max_abs(x, r)
    fin = np.isfinite(r)
    scale = float(np.abs(r[fin]).max()) if fin.any() else 0.0
    slack = args.slack_ulps * scale * 2.0 ** -ULP_BITS.get(dtype, 23)
    ok = bad_o <= bad_x and e_ours <= e_xla + slack
    # Both off the reference by a hundredth of its size: the f64 run took
    # another of the output's equivalent forms (a vector's sign or phase, a
    # basis of a subspace), so the distance measures that, not rounding.
    other_form = e_xla > 1e-2 * scale and e_ours > 1e-2 * scale
    ratio = f"{e_ours / e_xla:7.2f}x" if e_xla > 0 else ("  equal " if e_ours == 0 else "    inf ")
    nonfin = f" nonfinite-mismatch ours {bad_o} XLA {bad_x}" if bad_o or bad_x else ""
    verdict = "ok" if ok else ("other-form" if other_form else "WORSE")
    line = (f"  {name:18s} {text:6s} out {i}: {dtype:9s} ours {e_ours:10.3e}  XLA {e_xla:10.3e}"
            f"  {ratio} (|ref| max {scale:9.3e})  {verdict}{nonfin}")
    ok = ok or other_form
    return line, ok


def main():
    dirs = [os.path.join(c, n) for c in args.cases for n in sorted(os.listdir(c))]
    if args.only:
        dirs = [d for d in dirs if os.path.basename(d) in args.only.split(",")]
    worse = 0
    skipped = []
    for d in dirs:
        name = os.path.basename(d)
        meta = json.load(open(os.path.join(d, "meta.json")))
        if not meta.get("ok"):
            continue
        if glob.glob(os.path.join(d, "out_d*_0.npy")):
            skipped.append(f"{name} (multi-device)")
            continue
        nin, nout = len(meta["inputs"]), len(meta["outputs"])
        ins = [os.path.join(d, f"in_{i}.npy") for i in range(nin)]
        wants = [np.load(os.path.join(d, f"out_{i}.npy")) for i in range(nout)]
        for text in ("before", "after"):
            f = os.path.join(d, text + ".hlo")
            if not os.path.exists(f):
                continue
            ours, err = run(f, ins, [])
            ref, err2 = (None, "") if ours is None else run(f, ins, ["--precision=f64"])
            if ours is None or ref is None:
                skipped.append(f"{name} {text}: {err or err2}")
                continue
            if len(ours) != nout or len(ref) != nout:
                skipped.append(f"{name} {text}: {len(ours)}/{len(ref)} results vs XLA {nout}")
                continue
            for i in range(nout):
                line, ok = judge(name, text, i, meta["outputs"][i], ours[i], ref[i], wants[i])
                worse += not ok
                print(line, flush=True)
    for s in skipped:
        print(f"  skipped: {s}")
    print(f"\n{worse} output(s) WORSE than XLA:CPU")
    return 1 if worse else 0


sys.exit(main())
