#!/usr/bin/env python3
"""Does jaxlib compile what `hlo-opt --emit=stablehlo` writes, and give the
same results? (issue 29's last check; it needs a machine with JAX, such as
the device machine that ../shared/xla-jax/gen.py runs on.)

  # here: bundle the texts and the cases' data (no JAX needed)
  scripts/jax_compile_check.py write OUT_DIR [--bin build/bin] [--cases DIR ...]
  # where JAX is installed: compile each text, run it on the case's inputs
  scripts/jax_compile_check.py check OUT_DIR [--platform cpu|cuda]
      [--deadline S] [--report FILE.json] [--only NAME,...]

`write` makes OUT_DIR/NAME/ per case (the shared cases and testdata's) with
the case's in_*.npy, out_*.npy, meta.json, XLA:GPU's results as gpu_out_*.npy
where ../shared/xla-jax/gpu has the case, and these texts:
  jax.mlir         JAX's own stablehlo.mlir (the baseline; not every case has one)
  from_mlir.mlir   JAX's stablehlo.mlir read by hlo-opt and written again
  from_before.mlir --emit=stablehlo of XLA's unoptimized before.hlo
  from_opt.mlir    the same after our hlo-opt -O
  from_after.mlir  --emit=stablehlo of XLA:CPU's optimized after.hlo (one-device cases)

`check --dry-run build/bin/hlo-run` runs the same logic with hlo-run in
jaxlib's place, here (the figures are hlo-run's, not jaxlib's);
`dry-run [--bin build/bin]` writes to a temporary folder and does that
against hlo-run's own results of each case's before.hlo, not the recorded
ones (CTest jax_compile_dry_run: the same on any CPU, and the harness
works when a machine with JAX comes). In a real check, cases in NOT_UNIQUE
(lapack_gees) that differ are XFAIL, not FAIL.

`check` compiles each text with jaxlib (Client.compile_and_load on the text,
x64 enabled, 4 host devices so that the multi-device cases run partitioned),
runs it on the inputs and compares:
  recorded  with the case's recorded results (XLA:CPU's out_*.npy on cpu, with
            check.py's tolerances; XLA:GPU's gpu_out_*.npy on cuda, rtol 1e-2)
  baseline  with JAX's own text compiled and run the same way on this machine:
            'bitwise', 'close' (rtol 1e-5, atol 1e-6) or 'differs'
A text passes when it compiles, runs and matches the recorded results. One line
per text, a summary per kind of text, and `jax compile: P/N pass`; exit 1 when
any text fails. Past --deadline seconds the rest is listed as not run.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "xla-jax")
DEFAULT_CASES = [os.path.join(SHARED, "cases"), os.path.join(ROOT, "testdata", "xla-jax", "cases")]
TEXT_KINDS = ["jax", "from_mlir", "from_before", "from_opt", "from_after"]
# Cases whose results are one of several right answers: a difference there
# is reported (XFAIL) but not a failure (scripts/real-xla-known-failures.txt).
NOT_UNIQUE = {"lapack_gees": "complex Schur vectors are unique only up to a unit phase per column"}


def numbered(d, prefix):
    """d/prefix_I.npy in the order of I."""
    paths = glob.glob(os.path.join(d, prefix + "_*.npy"))
    paths = [p for p in paths if re.fullmatch(prefix + r"_\d+\.npy", os.path.basename(p))]
    return sorted(paths, key=lambda p: int(p.rsplit("_", 1)[1][:-4]))


# ---------------------------------------------------------------- write (here)

def emit(hlo_opt, src, out, extra=()):
    p = subprocess.run([hlo_opt, src, *extra, "--emit=stablehlo", "-o", out],
                       capture_output=True, text=True)
    return None if p.returncode == 0 else (p.stderr.strip().splitlines() or ["?"])[0][:300]


def write(a):
    hlo_opt = os.path.join(a.bin, "hlo-opt")
    written = failed = 0
    for cases in a.cases or DEFAULT_CASES:
        for d in sorted(glob.glob(os.path.join(cases, "*"))):
            meta_path = os.path.join(d, "meta.json")
            if not os.path.exists(meta_path) or not json.load(open(meta_path)).get("ok"):
                continue
            name = os.path.basename(d)
            o = os.path.join(a.out, name)
            os.makedirs(o, exist_ok=True)
            for p in numbered(d, "in") + numbered(d, "out") + [meta_path]:
                shutil.copy(p, o)
            gpu = os.path.join(SHARED, "gpu", name)
            for p in numbered(gpu, "out"):
                shutil.copy(p, os.path.join(o, "gpu_" + os.path.basename(p)))
            multi = bool(glob.glob(os.path.join(d, "out_d*")))
            jobs = [("from_before", "before.hlo", ()), ("from_opt", "before.hlo", ("-O",))]
            if not multi:
                jobs.append(("from_after", "after.hlo", ()))
            if os.path.exists(os.path.join(d, "stablehlo.mlir")):
                shutil.copy(os.path.join(d, "stablehlo.mlir"), os.path.join(o, "jax.mlir"))
                jobs.append(("from_mlir", "stablehlo.mlir", ()))
            for kind, src, extra in jobs:
                err = emit(hlo_opt, os.path.join(d, src), os.path.join(o, kind + ".mlir"), extra)
                if err:
                    failed += 1
                    print(f"FAIL write {name} {kind}: {err}")
                else:
                    written += 1
    print(f"jax compile: {written} texts written, {failed} not")
    return 1 if failed else 0


# ---------------------------------------------------------- check (with JAX)

def start_jax(platform, host_devices):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               f" --xla_force_host_platform_device_count={host_devices}")
    if platform == "cpu":
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    jax.config.update("jax_enable_x64", True)
    try:
        jax.config.update("jax_num_cpu_devices", host_devices)
    except Exception:  # noqa: BLE001 (older JAX: the XLA flag above does it)
        pass
    from jax._src import xla_bridge
    backend = xla_bridge.get_backend(platform)
    return jax, backend, backend.local_devices()


def compile_text(backend, devices, text, partitions):
    import numpy as np
    from jax._src import compiler
    from jax._src.lib import xla_client as xc
    chosen = devices[:partitions]
    options = compiler.get_compile_options(
        num_replicas=1, num_partitions=partitions,
        device_assignment=np.array(chosen, dtype=object).reshape(1, partitions))
    errors = []
    for attempt in (lambda: backend.compile_and_load(text, xc.DeviceList(tuple(chosen)), options),
                    lambda: backend.compile_and_load(text, list(chosen), options),
                    lambda: backend.compile(text, options)):
        try:
            return attempt()
        except (TypeError, AttributeError) as e:  # another jaxlib's signature
            errors.append(repr(e)[:200])
    raise RuntimeError("no compile call of this jaxlib took the text: " + "; ".join(errors))


def run(jax, exe, inputs, wants, partitions):
    import numpy as np
    devices = exe.local_devices()
    if partitions == 1:
        args = [jax.device_put(x, devices[0]) for x in inputs]
    else:
        from jax._src.sharding_impls import GSPMDSharding
        args = [jax.device_put(x, GSPMDSharding(devices, s))
                for x, s in zip(inputs, exe.get_parameter_shardings())]
    try:
        results = exe.execute_sharded(args)
    except (TypeError, AttributeError):
        results = exe.execute_sharded([[x] for x in args])
    per_output = results.disassemble_into_single_device_arrays()
    if partitions == 1:
        return [np.asarray(shards[0]) for shards in per_output]
    from jax._src.sharding_impls import GSPMDSharding
    outs = []
    for shards, s, w in zip(per_output, exe.get_output_shardings(), wants):
        whole = jax.make_array_from_single_device_arrays(w.shape, GSPMDSharding(devices, s), shards)
        outs.append(np.asarray(whole))
    return outs


def as_float(a, dtype_name):
    import numpy as np
    if dtype_name == "bfloat16":
        if a.dtype == np.uint16:  # recorded as raw bits
            return (a.astype(np.uint32) << 16).view(np.float32)
        return a.astype(np.float32)
    return a


def differ(got, want, dtype_name, rtol, atol):
    """None when got matches want within the tolerances, else why not."""
    import numpy as np
    got, want = as_float(got, dtype_name), as_float(want, dtype_name)
    if got.shape != want.shape:
        return f"shape {got.shape} vs {want.shape}"
    if want.dtype.kind in "fc":
        if dtype_name in ("bfloat16", "float16"):
            rtol, atol = max(rtol, 1e-2), max(atol, 1e-2)
        g = got.astype(np.complex128 if want.dtype.kind == "c" else np.float64)
        w = want.astype(g.dtype)
        ok = np.isclose(g, w, rtol=rtol, atol=atol) | (np.isnan(g) & np.isnan(w))
        if not ok.all():
            i = int(np.argmax(~ok.ravel()))
            return f"{int((~ok).sum())}/{ok.size} off, e.g. [{i}] {g.ravel()[i]} vs {w.ravel()[i]}"
        return None
    if not np.array_equal(got.astype(want.dtype), want):
        return f"{int((got.astype(want.dtype) != want).sum())}/{want.size} differ"
    return None


def against(got, wants, dtypes, rtol, atol):
    if len(got) != len(wants):
        return f"{len(got)} results, {len(wants)} expected"
    msgs = [f"result {i}: {m}" for i, (g, w, t) in enumerate(zip(got, wants, dtypes))
            if (m := differ(g, w, t, rtol, atol))]
    return "; ".join(msgs) or None


def bitwise(got, base):
    import numpy as np
    return len(got) == len(base) and all(
        g.shape == b.shape and np.ascontiguousarray(g).tobytes() == np.ascontiguousarray(b).tobytes()
        for g, b in zip(got, base))


def check_case(runner, d, a, report):
    import numpy as np
    name = os.path.basename(d)
    meta = json.load(open(os.path.join(d, "meta.json")))
    inputs = [np.load(p) for p in numbered(d, "in")]
    on_gpu = a.platform != "cpu"
    wants = [np.load(p) for p in numbered(d, "gpu_out" if on_gpu else "out")]
    rtol, atol = (1e-2, 1e-3) if on_gpu else (1e-3, 1e-4)
    dtypes = meta.get("outputs", [])
    base = None
    for kind in TEXT_KINDS:
        path = os.path.join(d, kind + ".mlir")
        if not os.path.exists(path):
            continue
        row = {"case": name, "text": kind}
        report.append(row)
        if time.time() > a.deadline_at:
            row["status"] = "not run (deadline)"
            continue
        text = open(path).read()
        m = re.search(r"mhlo\.num_partitions = (\d+)", text)
        partitions = int(m.group(1)) if m else 1
        if partitions > runner.device_count:
            row["status"] = f"not run ({partitions} partitions, {runner.device_count} devices)"
            continue
        if on_gpu and not wants:
            row["status"] = "not run (no XLA:GPU results)"
            continue
        t0 = time.time()
        try:
            exe = runner.compile(text, partitions)
        except Exception as e:  # noqa: BLE001 (jaxlib's errors have no common type)
            row["status"], row["why"] = "FAIL compile", str(e).strip()[-600:]
            continue
        row["compile_s"] = round(time.time() - t0, 2)
        try:
            got = runner.run(exe, inputs, wants, partitions)
        except Exception as e:  # noqa: BLE001
            row["status"], row["why"] = "FAIL run", repr(e)[-600:]
            continue
        why = against(got, wants, dtypes, rtol, atol)
        row["status"] = "PASS" if not why else "XFAIL" if name in NOT_UNIQUE else "FAIL match"
        if why:
            row["why"] = f"{NOT_UNIQUE[name]}: {why}" if name in NOT_UNIQUE else why
        if kind == "jax":
            base = got
        elif base is not None:
            row["baseline"] = ("bitwise" if bitwise(got, base) else
                               "close" if not against(got, base, dtypes, 1e-5, 1e-6) else "differs")


class JaxRunner:
    """jaxlib's compile and run of a text on `platform`."""

    def __init__(self, platform):
        self.jax, self.backend, self.devices = start_jax(platform, 4)
        self.device_count = len(self.devices)
        self.version = self.jax.__version__

    def compile(self, text, partitions):
        return compile_text(self.backend, self.devices, text, partitions)

    def run(self, exe, inputs, wants, partitions):
        return run(self.jax, exe, inputs, wants, partitions)


class HloRunRunner:
    """--dry-run: hlo-run in jaxlib's place (one device, global arrays), to
    try this script's own logic before a machine with JAX is spent on it."""
    device_count = 4
    version = "none (--dry-run with hlo-run)"

    def __init__(self, hlo_run):
        self.hlo_run = hlo_run

    def compile(self, text, _partitions):
        return text  # each run reads the text again

    def run(self, text, inputs, _wants, _partitions):
        import numpy as np
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "m.mlir")
            with open(src, "w") as f:
                f.write(text)
            paths = []
            for i, x in enumerate(inputs):
                paths.append(os.path.join(d, f"in_{i}.npy"))
                np.save(paths[-1], x)
            return run_hlo(self.hlo_run, src, paths)


def run_hlo(hlo_run, src, input_paths):
    """hlo-run's results of `src` on the .npy inputs (XLA:CPU's denormal flush)."""
    import numpy as np
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out")
        cmd = [hlo_run, src, "--denormals=flush", "--output-format=npy", "-o", out]
        for p in input_paths:
            cmd += ["--input", p]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(p.stderr.strip()[-400:])
        paths = numbered(out, "result") or [os.path.join(out, "result.npy")]
        return [np.load(q) for q in paths]


def check(a):
    runner = HloRunRunner(a.dry_run) if a.dry_run else JaxRunner(a.platform)
    print(f"jax {runner.version} on {a.platform}: {runner.device_count} devices")
    a.deadline_at = time.time() + a.deadline
    only = set(filter(None, a.only.split(",")))
    report = []
    for d in sorted(glob.glob(os.path.join(a.out, "*"))):
        if os.path.isdir(d) and (not only or os.path.basename(d) in only):
            n = len(report)
            check_case(runner, d, a, report)
            for row in report[n:]:
                extra = " ".join(f"{k}={row[k]}" for k in ("compile_s", "baseline") if k in row)
                why = f": {row['why'][:300]}" if "why" in row else ""
                print(f"{row['status']:<10} {row['case']:<22} {row['text']:<12} {extra}{why}", flush=True)
    print()
    for kind in TEXT_KINDS:
        rows = [r for r in report if r["text"] == kind]
        if rows:
            passed = sum(r["status"] == "PASS" for r in rows)
            compiled = sum("compile_s" in r for r in rows)
            bits = sum(r.get("baseline") == "bitwise" for r in rows)
            based = sum("baseline" in r for r in rows)
            print(f"{kind:<12} {compiled}/{len(rows)} compile, {passed}/{len(rows)} pass"
                  + (f", {bits}/{based} bitwise as JAX's own text" if based else ""))
    tried = [r for r in report if not r["status"].startswith("not run")]
    passed = sum(r["status"] == "PASS" for r in tried)
    xfail = sum(r["status"] == "XFAIL" for r in tried)
    print(f"jax compile ({a.platform}): {passed}/{len(tried)} pass, {xfail} XFAIL, "
          f"{len(report) - len(tried)} not run")
    if a.report:
        with open(a.report, "w") as f:
            json.dump({"jax": runner.version, "platform": a.platform, "rows": report}, f, indent=1)
    return 0 if tried and passed + xfail == len(tried) else 1


def dry_run(a):
    """write into a temporary folder, then check --dry-run there (CTest),
    each text against hlo-run's own run of the case's before.hlo: the same
    program on the same machine, so the figures depend on no CPU's choice
    among equally right results (LAPACK's vectors' signs and phases)."""
    import numpy as np
    import tempfile
    a.dry_run = a.dry_run or os.path.join(a.bin, "hlo-run")
    with tempfile.TemporaryDirectory(prefix="jax-compile-") as d:
        a.out = d
        if write(a) != 0:
            return 1
        for cases in a.cases or DEFAULT_CASES:
            for src in sorted(glob.glob(os.path.join(cases, "*", "before.hlo"))):
                o = os.path.join(d, os.path.basename(os.path.dirname(src)))
                if not os.path.isdir(o):
                    continue
                for p in numbered(o, "out"):
                    os.remove(p)
                for i, x in enumerate(run_hlo(a.dry_run, src, numbered(o, "in"))):
                    np.save(os.path.join(o, f"out_{i}.npy"), x)
        return check(a)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=["write", "check", "dry-run"])
    ap.add_argument("out", nargs="?", default="")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--cases", action="append", help="a folder of cases (repeatable)")
    ap.add_argument("--platform", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--deadline", type=float, default=1e9, help="seconds before the rest is skipped")
    ap.add_argument("--report", default="", help="write every row as JSON here")
    ap.add_argument("--only", default="", help="comma-separated case names")
    ap.add_argument("--dry-run", default="", metavar="HLO_RUN",
                    help="check with this hlo-run in jaxlib's place (no JAX needed)")
    a = ap.parse_args()
    if a.mode == "dry-run":
        return dry_run(a)
    if not a.out:
        ap.error(f"{a.mode} needs OUT_DIR")
    return write(a) if a.mode == "write" else check(a)


if __name__ == "__main__":
    sys.exit(main())
