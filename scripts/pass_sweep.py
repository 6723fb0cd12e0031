#!/usr/bin/env python3
"""Every pass keeps XLA's own modules well formed.

  scripts/pass_sweep.py --bin build/bin [--jobs N] [-v]

Runs `hlo-opt --passes=P` for every pass the registry lists
(`hlo-opt --list-passes`), and the -O pipeline, over what XLA and JAX
write: testdata/xla-jax/cases/*/{before,after}.hlo and, when ../shared is
present, ../shared/xla-jax/cases and ../shared/xla-jax/gpu (XLA:GPU's
modules: kInput fusions, gemm custom calls, control edges in while
bodies). Each run must exit 0, and its output must parse and verify again
(`hlo-opt OUT --passes=verify`): a pass that leaves a dangling operand or
control edge, or a shape its own verifier rejects, fails here. (The
defuser once removed a fusion that another instruction named as its
control predecessor: XLA:GPU's scan_rnn printed an edge to an instruction
of another computation.) What the passes compute is semantics_check.py's
and fusion_agreement.py's to check; this one asks only that the text stays
a module.

Prints each failure and `pass sweep: N runs, N failed`; exit status 1 on
any failure or when no run was made.
"""
import glob
import os
import subprocess
import sys

from parallel_runs import parse_options, run_all

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")


def modules():
    found = []
    for base in (os.path.join(ROOT, "testdata", "xla-jax", "cases"),
                 os.path.join(SHARED, "xla-jax", "cases"),
                 os.path.join(SHARED, "xla-jax", "gpu")):
        for text in ("before.hlo", "after.hlo"):
            found += sorted(glob.glob(os.path.join(base, "*", text)))
    return found


def pass_names(hlo_opt):
    """The registry's pass names: the first word of each line of
    --list-passes up to the blank line before the -O pipeline."""
    out = subprocess.run([hlo_opt, "--list-passes"], capture_output=True, text=True,
                         check=True).stdout
    names = []
    for line in out.splitlines():
        if not line.strip():
            break
        names.append(line.split()[0])
    return names


def label_of(module, flags):
    return f"{os.path.relpath(module, os.path.dirname(ROOT))} {' '.join(flags)}"


def sweep_one(hlo_opt, module, flags, tmp):
    """None, or what went wrong running `flags` over `module`."""
    out = os.path.join(tmp, "out.hlo")
    label = label_of(module, flags)
    try:
        p = subprocess.run([hlo_opt, module] + flags + ["-o", out], capture_output=True,
                           text=True, timeout=300)
        if p.returncode != 0:
            return f"{label}: exit {p.returncode}: {p.stderr.strip()[:300]}"
        q = subprocess.run([hlo_opt, out, "--passes=verify", "-o", os.devnull],
                           capture_output=True, text=True, timeout=300)
        if q.returncode != 0:
            return f"{label}: its output does not verify: {q.stderr.strip()[:300]}"
        return None
    except subprocess.TimeoutExpired:
        return f"{label}: timed out"


def main():
    a = parse_options(__doc__.splitlines()[0], ROOT)
    hlo_opt = os.path.abspath(os.path.join(a.bin, "hlo-opt"))
    flag_sets = [["--passes=" + name] for name in pass_names(hlo_opt)] + [["-O"]]
    runs = [(m, flags) for m in modules() for flags in flag_sets]
    if not os.path.isdir(SHARED):
        print(f"pass sweep: {SHARED} not found: testdata's XLA cases only", flush=True)
    failed = run_all([(label_of(m, flags), sweep_one, (hlo_opt, m, flags))
                      for m, flags in runs], a.jobs, a.verbose)
    print(f"pass sweep: {len(runs)} runs, {len(failed)} failed")
    return 1 if failed or not runs else 0


if __name__ == "__main__":
    sys.exit(main())
