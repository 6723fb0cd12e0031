#!/usr/bin/env python3
"""Holds ir/opcode.h's table to XLA's opcode list (xla/hlo/ir/hlo_opcode.h).

  scripts/xla_opcodes.py [--xla HLO_OPCODE_H] [--update]

Reads XLA's `V(kName, "text", arity)` lines and ir/opcode.h's `X(...)` lines
and reports every difference in text name or operand count (XLA's
kHloOpcodeIsVariadic is our kVariadic; enum names may differ: XLA's
kPopulationCount is our kPopcnt). testdata/xla-opcodes.txt keeps XLA's list
(text name and arity, one a line) so the unit test ir/opcode_test.cc can
hold the table to it without XLA's sources; --update rewrites it from
--xla. Opcodes we have beyond XLA's list are named, with the reason, in
EXTRAS below; anything else that differs is an error (exit 1).
Fetch XLA's sources (a snapshot of github.com/openxla/xla) and pass
--xla .../xla/hlo/ir/hlo_opcode.h, or compare against the stored list.
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OURS = os.path.join(ROOT, "ir", "opcode.h")
STORED = os.path.join(ROOT, "testdata", "xla-opcodes.txt")
# Opcodes the table has that the stored XLA list lacks, with the reason.
EXTRAS = {
    # Neither is in XLA's hlo_opcode.h up to the 2026-07 snapshot, so XLA's
    # parser rejects both; they are kept because this project's own tests
    # use them (testdata/parser, testdata/eval). Remove them, or move them to
    # the table proper, when XLA decides.
    "atan": "not XLA's (2026-07): used by testdata/parser/elementwise_unary_hyperbolic.hlo "
            "and the transcendental_inverse_trig goldens",
    "collective-reduce": "not XLA's (2026-07): testdata/parser/collective_reduce.hlo",
}


def table(path, macro):
    rows = {}
    for m in re.finditer(macro + r'\((k\w+), "([^"]+)", (\w+)\)', open(path).read()):
        arity = m.group(3)
        rows[m.group(2)] = "variadic" if "ariadic" in arity else arity
    return rows


def stored():
    rows = {}
    for line in open(STORED):
        if line.strip() and not line.startswith("#"):
            name, arity = line.split()
            rows[name] = arity
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--xla", help="XLA's xla/hlo/ir/hlo_opcode.h")
    ap.add_argument("--update", action="store_true", help="rewrite the stored list from --xla")
    a = ap.parse_args()
    if a.update and not a.xla:
        ap.error("--update needs --xla")
    xla = table(a.xla, "V") if a.xla else stored()
    if not xla:
        print(f"xla_opcodes: no opcode lines found in {a.xla or STORED}", file=sys.stderr)
        return 1
    if a.update:
        with open(STORED, "w") as f:
            f.write("# XLA's opcodes (xla/hlo/ir/hlo_opcode.h): text name and operand count.\n"
                    "# Written by scripts/xla_opcodes.py --update; read by ir/opcode_test.cc.\n")
            for name in sorted(xla):
                f.write(f"{name} {xla[name]}\n")
    ours = table(OURS, "X")
    problems = []
    for name in sorted(set(xla) | set(ours)):
        if name not in ours:
            problems.append(f"{name}: in XLA's list, not in ir/opcode.h")
        elif name not in xla:
            if name not in EXTRAS:
                problems.append(f"{name}: in ir/opcode.h, not in XLA's list (add it to EXTRAS "
                                "with the reason, or remove it)")
        elif ours[name] != xla[name]:
            problems.append(f"{name}: operand count {ours[name]} here, {xla[name]} in XLA")
    for p in problems:
        print(f"xla_opcodes: {p}")
    print(f"xla_opcodes: {len(ours)} opcodes here, {len(xla)} in XLA's list, "
          f"{len(set(ours) - set(xla))} extra, {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
