#!/usr/bin/env python3
"""Does jaxlib compile what `hlo-opt --emit=stablehlo` writes, and give the
same results? (issue 29's last check; it needs a machine with JAX, such as
the device machine that ../shared/xla-jax/gen.py runs on.)

  # here: write the texts (no JAX needed)
  scripts/jax_compile_check.py write OUT_DIR [--bin build/bin] [--cases DIR]
  # where JAX is installed: compile each text on the CPU backend, run it on
  # the case's inputs and compare with XLA:CPU's recorded results
  scripts/jax_compile_check.py check OUT_DIR [--cases DIR]

`write` puts, per single-device shared case NAME, two texts in OUT_DIR:
NAME.from_hlo.mlir (--emit=stablehlo of XLA's unoptimized before.hlo) and
NAME.from_mlir.mlir (JAX's own stablehlo.mlir read and written again).
`check` compiles each with jaxlib (parsing the text with JAX's MLIR context,
then jax._src.compiler.backend_compile, falling back to the backend's own
compile calls of older and newer jaxlibs), runs it on the case's in_*.npy and
compares with its out_*.npy (rtol 1e-5, atol 1e-6 for floats; integers and
bools exactly). The last line is `jax compile: N/M compile, N/M match`; the
exit status is 1 when any text fails.
"""
import argparse
import glob
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = os.path.join(os.path.dirname(ROOT), "shared", "xla-jax", "cases")


def single_device_cases(cases):
    for d in sorted(glob.glob(os.path.join(cases, "*"))):
        meta_path = os.path.join(d, "meta.json")
        if not os.path.exists(meta_path):
            continue
        meta = json.load(open(meta_path))
        # A multi-device case has results per device (out_d*), as check_text.py skips it.
        if not meta.get("ok") or glob.glob(os.path.join(d, "out_d*")):
            continue
        yield os.path.basename(d), d, meta


def write(a):
    os.makedirs(a.out, exist_ok=True)
    hlo_opt = os.path.join(a.bin, "hlo-opt")
    written = failed = 0
    for name, d, _ in single_device_cases(a.cases):
        for tag, src in (("from_hlo", "before.hlo"), ("from_mlir", "stablehlo.mlir")):
            path = os.path.join(d, src)
            if not os.path.exists(path):
                continue
            out = os.path.join(a.out, f"{name}.{tag}.mlir")
            p = subprocess.run([hlo_opt, path, "--emit=stablehlo", "-o", out],
                               capture_output=True, text=True)
            if p.returncode != 0:
                failed += 1
                print(f"FAIL write {name} {tag}: {p.stderr.strip()[-300:]}")
            else:
                written += 1
    print(f"jax compile: {written} texts written, {failed} not")
    return 1 if failed else 0


def compile_text(text):
    """A loaded executable for MLIR text on JAX's CPU backend."""
    import jax
    from jax._src import compiler, xla_bridge
    from jax._src.interpreters import mlir
    from jax._src.lib import xla_client as xc
    from jax._src.lib.mlir import ir
    backend = xla_bridge.get_backend("cpu")
    devices = jax.devices("cpu")[:1]
    options = xc.CompileOptions()
    with mlir.make_ir_context():
        module = ir.Module.parse(text)
        errors = []
        for attempt in (
                lambda: compiler.backend_compile(backend, module, xc.DeviceList(tuple(devices)),
                                                 options),
                lambda: compiler.backend_compile(backend, module, options, []),
                lambda: backend.compile_and_load(text, xc.DeviceList(tuple(devices)), options),
                lambda: backend.compile(text, options)):
            try:
                return attempt()
            except (TypeError, AttributeError) as e:  # another jaxlib's signature
                errors.append(repr(e))
        raise RuntimeError("no compile call of this jaxlib took the text: " + "; ".join(errors))


def run(executable, inputs):
    import jax
    device = jax.devices("cpu")[0]
    args = [jax.device_put(x, device) for x in inputs]
    for attempt in (lambda: executable.execute(args),
                    lambda: executable.execute_sharded([[x] for x in args])):
        try:
            out = attempt()
            break
        except (TypeError, AttributeError):
            continue
    else:
        raise RuntimeError("no execute call of this jaxlib took the arguments")
    if hasattr(out, "disassemble_into_single_device_arrays"):
        out = [a[0] for a in out.disassemble_into_single_device_arrays()]
    return [__import__("numpy").asarray(x) for x in out]


def same(got, want):
    import numpy as np
    if got.shape != want.shape:
        return f"shape {got.shape} vs {want.shape}"
    if np.issubdtype(want.dtype, np.floating) or np.issubdtype(want.dtype, np.complexfloating):
        ok = np.allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True)
    else:
        ok = np.array_equal(got, want)
    return None if ok else "values differ"


def check(a):
    import numpy as np
    texts = sorted(glob.glob(os.path.join(a.out, "*.mlir")))
    compiled = matched = 0
    for path in texts:
        name = os.path.basename(path).split(".")[0]
        d = os.path.join(a.cases, name)
        ins = [np.load(p) for p in sorted(glob.glob(os.path.join(d, "in_*.npy")),
                                          key=lambda p: int(p.rsplit("_", 1)[1][:-4]))]
        outs = [np.load(p) for p in sorted(glob.glob(os.path.join(d, "out_*.npy")),
                                           key=lambda p: int(p.rsplit("_", 1)[1][:-4]))]
        try:
            exe = compile_text(open(path).read())
        except Exception as e:  # noqa: BLE001 (jaxlib's errors have no common type)
            print(f"FAIL compile {os.path.basename(path)}: {str(e).strip()[-400:]}")
            continue
        compiled += 1
        try:
            got = run(exe, ins)
        except Exception as e:  # noqa: BLE001
            print(f"FAIL run {os.path.basename(path)}: {str(e).strip()[-400:]}")
            continue
        msgs = [m for m in (same(g, w) for g, w in zip(got, outs)) if m]
        if len(got) != len(outs):
            msgs.append(f"{len(got)} results, {len(outs)} expected")
        if msgs:
            print(f"FAIL match {os.path.basename(path)}: {'; '.join(msgs)}")
        else:
            matched += 1
    n = len(texts)
    print(f"jax compile: {compiled}/{n} compile, {matched}/{n} match")
    return 0 if n and matched == n else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=["write", "check"])
    ap.add_argument("out")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--cases", default=CASES)
    a = ap.parse_args()
    return write(a) if a.mode == "write" else check(a)


if __name__ == "__main__":
    sys.exit(main())
