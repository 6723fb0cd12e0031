#!/usr/bin/python3
"""CTest 'real-xla': hlo-opt and hlo-run against XLA's own output.

Runs ../shared/xla-jax/check.py (XLA's dumps, before/after texts, XLA:CPU's results) over
the shared cases and over testdata/xla-jax/cases with --denormals=flush, as XLA:CPU runs.
It adds two columns of its own, "-O all": after.hlo and both dump files through
`hlo-opt -O --verify-each` must verify and give XLA:CPU's results too (check.py's "-O run"
covers before.hlo); and "stablehlo": the case's stablehlo.mlir (JAX's StableHLO text of the
same program) must parse, verify and give XLA:CPU's results (multi-device cases run on one
device with the global arrays, as check.py runs their before.hlo). Every column of every case must pass, except the (case, column) pairs listed with a reason
in scripts/real-xla-known-failures.txt; a listed pair that now passes is reported so the
list shrinks.

  scripts/real_xla.py [--bin build/bin] [--only NAME,...]
"""
import argparse
import glob
import json
import os
import tempfile
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "xla-jax")
KNOWN = os.path.join(ROOT, "scripts", "real-xla-known-failures.txt")
SKIPPED = 77  # CTest's SKIP_RETURN_CODE for this test


def known_failures():
    known = {}
    for line in open(KNOWN):
        line = line.split("#", 1)
        reason = line[1].strip() if len(line) > 1 else ""
        fields = line[0].split(None, 1)
        if len(fields) == 2:
            known[(fields[0], fields[1].strip())] = reason
    return known


def check(cases, binary, only):
    cmd = [sys.executable, os.path.join(SHARED, "check.py"), cases, "--bin", binary,
           "--run-args=--denormals=flush"]
    if only:
        cmd += ["--only", only]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    print(out, end="")
    failed, current, summary = {}, None, re.findall(r"^  (.+?)\s+(\d+)/(\d+)$", out, re.M)
    for line in out.splitlines():
        m = re.match(r"^(ok  |FAIL) (\S+)$", line)
        if m:
            current = m.group(2)
            continue
        m = re.match(r"^       (dump parse|before parse|before run|-O run|after parse|after run): (.*)$", line)
        if m and current:
            failed[(current, m.group(1))] = m.group(2)
    return failed, bool(summary)


def close(got, want, dtype_name):
    import numpy as np
    if dtype_name == "bfloat16":
        got = (got.astype(np.uint32) << 16).view(np.float32)
        want = (want.astype(np.uint32) << 16).view(np.float32)
    if got.shape != want.shape:
        return False
    if want.dtype.kind in "fc":
        lo = dtype_name in ("bfloat16", "float16")
        rtol, atol = (1e-2, 1e-2) if lo else (1e-3, 1e-4)
        wide = np.complex128 if want.dtype.kind == "c" else np.float64  # complex isclose fails on inf
        g, w = got.astype(wide), want.astype(wide)
        return bool((np.isclose(g, w, rtol=rtol, atol=atol) | (np.isnan(g) & np.isnan(w))).all())
    return bool(np.array_equal(got.astype(want.dtype), want))


def optimized_texts(cases, binary, only):
    """The "-O all" column: after.hlo and the dumps through -O --verify-each, run on the inputs."""
    import numpy as np
    failed = {}
    opt, run = os.path.join(binary, "hlo-opt"), os.path.join(binary, "hlo-run")
    for d in sorted(glob.glob(os.path.join(cases, "*"))):
        name = os.path.basename(d)
        if only and name not in only.split(","):
            continue
        meta = json.load(open(os.path.join(d, "meta.json")))
        if not meta.get("ok") or glob.glob(os.path.join(d, "out_d*_0.npy")):
            continue  # multi-device cases: check.py runs their partitioned text
        msgs = []
        for text in ("after.hlo", "dump_before.txt", "dump_after.txt"):
            f = os.path.join(d, text)
            if not os.path.exists(f):
                continue
            with tempfile.TemporaryDirectory() as td:
                o = subprocess.run([opt, f, "-O", "--verify-each", "-o", os.path.join(td, "m.hlo")],
                                   capture_output=True, text=True)
                if o.returncode != 0:
                    msgs.append(f"{text}: hlo-opt -O: {o.stderr.strip()[:200]}")
                    continue
                cmd = [run, os.path.join(td, "m.hlo"), "--output-format=npy", "-o", td, "--denormals=flush"]
                for i in range(len(meta["inputs"])):
                    cmd += ["--input", os.path.join(d, f"in_{i}.npy")]
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode != 0:
                    msgs.append(f"{text}: hlo-run: {r.stderr.strip()[:200]}")
                    continue
                outs = sorted(glob.glob(os.path.join(td, "result*.npy")),
                              key=lambda p: [int(x) for x in re.findall(r"\d+", os.path.basename(p))])
                wants = [os.path.join(d, f"out_{i}.npy") for i in range(len(meta["outputs"]))]
                bad = [i for i, (g, w) in enumerate(zip(outs, wants))
                       if not close(np.load(g), np.load(w), meta["outputs"][i])]
                if len(outs) != len(wants) or bad:
                    msgs.append(f"{text}: {len(outs)} results vs {len(wants)}, off: {bad[:5]}")
        status = "ok  " if not msgs else "FAIL"
        print(f"{status} {name} -O all" + "".join(f"\n       {m}" for m in msgs), flush=True)
        if msgs:
            failed[(name, "-O all")] = "; ".join(msgs)[:300]
    return failed


def stablehlo_texts(cases, binary, only):
    """The "stablehlo" column: stablehlo.mlir parses, verifies, runs and matches."""
    import numpy as np
    failed, counts = {}, {"cases": 0, "parse": 0, "verify": 0, "run": 0, "match": 0}
    opt, run = os.path.join(binary, "hlo-opt"), os.path.join(binary, "hlo-run")
    for d in sorted(glob.glob(os.path.join(cases, "*"))):
        name, f = os.path.basename(d), os.path.join(d, "stablehlo.mlir")
        if (only and name not in only.split(",")) or not os.path.exists(f):
            continue
        meta = json.load(open(os.path.join(d, "meta.json")))
        if not meta.get("ok"):
            continue
        counts["cases"] += 1
        msg = ""
        with tempfile.TemporaryDirectory() as td:
            for step, extra in (("parse", ["--no-verify"]), ("verify", [])):
                o = subprocess.run([opt, f, "-o", os.devnull, *extra], capture_output=True, text=True)
                if o.returncode != 0:
                    msg = f"{step}: {o.stderr.strip()[:200]}"
                    break
                counts[step] += 1
            if not msg:
                cmd = [run, f, "--output-format=npy", "-o", td, "--denormals=flush"]
                for i in range(len(meta["inputs"])):
                    cmd += ["--input", os.path.join(d, f"in_{i}.npy")]
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode != 0:
                    msg = f"run: {r.stderr.strip()[:200]}"
                else:
                    counts["run"] += 1
                    outs = sorted(glob.glob(os.path.join(td, "result*.npy")),
                                  key=lambda p: [int(x) for x in re.findall(r"\d+", os.path.basename(p))])
                    wants = [os.path.join(d, f"out_{i}.npy") for i in range(len(meta["outputs"]))]
                    bad = [i for i, (g, w) in enumerate(zip(outs, wants))
                           if not close(np.load(g), np.load(w), meta["outputs"][i])]
                    if len(outs) != len(wants) or bad:
                        msg = f"match: {len(outs)} results vs {len(wants)}, off: {bad[:5]}"
                    else:
                        counts["match"] += 1
        print(f"{'FAIL' if msg else 'ok  '} {name} stablehlo" + (f"\n       {msg}" if msg else ""),
              flush=True)
        if msg:
            failed[(name, "stablehlo")] = msg[:300]
    if counts["cases"]:
        n = counts["cases"]
        print(f"stablehlo.mlir: {counts['parse']}/{n} parse, {counts['verify']}/{n} verify, "
              f"{counts['run']}/{n} run, {counts['match']}/{n} match", flush=True)
    return failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    if not os.path.isdir(SHARED):
        # check.py, XLA:CPU's results and the shared cases all live there.
        print(f"real-xla: skipped: {SHARED} not found (the project's shared/ folder "
              "beside the checkout)")
        return SKIPPED
    known = known_failures()
    failed = {}
    for cases in (os.path.join(SHARED, "cases"), os.path.join(ROOT, "testdata", "xla-jax", "cases")):
        f, ran = check(cases, os.path.abspath(a.bin), a.only)
        if not ran:
            print(f"real-xla: check.py did not finish on {cases}")
            return 1
        failed.update(f)
        failed.update(optimized_texts(cases, os.path.abspath(a.bin), a.only))
        failed.update(stablehlo_texts(cases, os.path.abspath(a.bin), a.only))
    unexpected = sorted(k for k in failed if k not in known)
    fixed = sorted(k for k in known if k not in failed and (not a.only or k[0] in a.only.split(",")))
    for case, col in unexpected:
        print(f"UNEXPECTED FAILURE {case} {col}: {failed[(case, col)]}")
    for case, col in fixed:
        print(f"now passes (remove from {os.path.basename(KNOWN)}): {case} {col}")
    print(f"real-xla: {len(failed) - len(unexpected)} known failures, {len(unexpected)} unexpected")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
