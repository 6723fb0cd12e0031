#!/usr/bin/python3
"""Plants a fault into a copy of an HLO module for hlo-reduce's checks.

  plant_fault.py IN.hlo OUT.hlo log [--at FRACTION]
      the `add` of a rank-3 or rank-4 f32 array (GPT-2's residual stream,
      ResNet's residual sums) nearest FRACTION (default 0.5) of the way
      through the entry becomes log(add): NaN where the sum is negative,
      carried to the output.

The input is never changed; OUT is a new file.
"""
import argparse
import re
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("fault", choices=["log"])
    ap.add_argument("--at", type=float, default=0.5)
    args = ap.parse_args()
    lines = open(args.input).read().split("\n")
    entry = next(i for i, l in enumerate(lines) if l.startswith("ENTRY"))
    pat = re.compile(r"^  (%?)([\w.\-]+) = (f32\[\d+,\d+,\d+(?:,\d+)?\]\{[\d,]+\}) add\(")
    hits = [i for i in range(entry, len(lines)) if pat.match(lines[i])]
    if not hits:
        sys.exit("plant_fault.py: no rank-3 or rank-4 f32 add in the entry")
    target = entry + args.at * (len(lines) - entry)
    i = min(hits, key=lambda h: abs(h - target))
    m = pat.match(lines[i])
    pct, name, shape = m.group(1), m.group(2), m.group(3)
    lines[i] = lines[i].replace(f"{pct}{name} =", f"{pct}{name}.unplanted =", 1)
    lines.insert(i + 1, f"  {pct}{name} = {shape} log({pct}{name}.unplanted)")
    open(args.output, "w").write("\n".join(lines))
    print(f"plant_fault.py: {name} (entry line {i - entry}) is now log({name}.unplanted)")


if __name__ == "__main__":
    main()
