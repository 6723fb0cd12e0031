#!/usr/bin/python3
"""hlo-run --find-nonfinite on real XLA modules with a planted NaN.

  scripts/nonfinite_check.py --bin build/bin [--shared ../shared/xla-jax]

Two plants, each made here on a copy of a shared module (nothing is written
into ../shared):
  * GPT-2 small's forward pass (models/gpt2_small_forward.before.hlo, random
    inputs): the square of layer 5's centred activations in its second layer
    norm, `integer_pow.N = multiply(sub.X, sub.X)`, becomes `log(sub.X)`;
    x - mean(x) crosses zero in every row, so its log holds NaN, and nothing
    before it does.
  * the scan of cases/scan_rnn (XLA's dump with its metadata and stack-frame
    index; a while loop of 16 trips; XLA's inputs): its body gains
    `planted.log = log(9.5 - i)` (with the metadata of the reduce_sum beside
    it) added into the value each trip stores; 9.5 - i first falls below
    zero at i = 10 (numpy says which trip).
Each must stop with exit status 3 naming the planted instruction, with the
right loop iteration. Exit 0 when both do (77 when ../shared is missing).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np


def run(hlo_run, text, args):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "planted.hlo")
        with open(path, "w") as f:
            f.write(text)
        p = subprocess.run([hlo_run, path, "--find-nonfinite"] + args, capture_output=True,
                           text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def gpt2(hlo_run, shared):
    path = os.path.join(shared, "models", "gpt2_small_forward.before.hlo")
    text = open(path).read()
    squares = list(re.finditer(r"^  (integer_pow\.\d+) = (f32\[[0-9,]+\]\{[0-9,]+\}) "
                               r"multiply\((sub\.\d+), \3\)$", text, re.M))
    # Two layer norms a layer: the 11th square is layer 5's second.
    m = squares[11]
    name, shape, operand = m.group(1), m.group(2), m.group(3)
    planted = text[:m.start()] + f"  {name} = {shape} log({operand})" + text[m.end():]
    rc, out, err = run(hlo_run, planted, ["--random-inputs"])
    first = out.splitlines()[0] if out else err.strip()
    print(f"gpt2: planted log at %{name} (of {len(squares)} squares); exit {rc}: {first}")
    for line in out.splitlines()[1:]:
        print("      " + line)
    return rc == 3 and first.startswith(f"first non-finite value: %{name} = log ") and \
        "loops: none" in out


def scan(hlo_run, shared):
    case = os.path.join(shared, "cases", "scan_rnn")
    # XLA's own dump: metadata and the stack-frame index give source lines.
    text = open(os.path.join(case, "dump_before.txt")).read()
    m = re.search(r"^  %reduce_sum\.7 = f32\[\] reduce\(.*(metadata=\{[^}]*\})\n", text, re.M)
    assert m, "scan_rnn's body changed"
    meta = m.group(1).replace("reduce_sum", "log")
    i = re.search(r"%(\S+) = s32\[\] get-tuple-element\(%arg_tuple\.1\), index=0", text)
    counter = f"%{i.group(1)}" if i else "%arg_tuple.1#0"
    plant = m.group(0) + (
        "  %planted.c = f32[] constant(9.5)\n"
        f"  %planted.i = f32[] convert(s32[] {counter})\n"
        "  %planted.d = f32[] subtract(f32[] %planted.c, f32[] %planted.i)\n"
        f"  %planted.log = f32[] log(f32[] %planted.d), {meta}\n"
        "  %planted.sum = f32[] add(f32[] %reduce_sum.7, f32[] %planted.log)\n")
    text = text.replace(m.group(0), plant)
    text = re.sub(r"(%jit_dynamic_update_index_in_dim_\.1 = .*call\([^,]*, )%reduce_sum\.7", 
                  r"\1%planted.sum", text)
    # The oracle: the first trip whose log(9.5 - i) is not finite.
    with np.errstate(invalid="ignore", divide="ignore"):
        logs = np.log(np.float32(9.5) - np.arange(16, dtype=np.float32))
    want = int(np.argmax(~np.isfinite(logs)))
    inputs = []
    for i in range(5):
        inputs += ["--input", os.path.join(case, f"in_{i}.npy")]
    rc, out, err = run(hlo_run, text, inputs)
    first = out.splitlines()[0] if out else err.strip()
    print(f"scan_rnn: planted log(9.5 - i), numpy's first non-finite trip {want}; exit {rc}: "
          f"{first}")
    for line in out.splitlines()[1:]:
        print("      " + line)
    return rc == 3 and first.startswith("first non-finite value: %planted.log = log ") and \
        f"%while.6 iteration {want}\n" in out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/bin")
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                     "shared", "xla-jax"))
    a = ap.parse_args()
    if not os.path.isdir(a.shared):
        print(f"skipped: no {a.shared}")
        return 77
    hlo_run = os.path.join(a.bin, "hlo-run")
    ok = [scan(hlo_run, a.shared), gpt2(hlo_run, a.shared)]
    print("nonfinite_check:", "ok" if all(ok) else "FAILED")
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main())
