#!/usr/bin/env python3
"""The executor's layers (README "Layout of the source"): every non-test file
of eval/ includes only eval/ files of its own layer or of layers below it
(CTest `layers`).
Prints each upward include as FILE:LINE and exits 1 when there is one; a
file of eval/ that no layer names is an error too (a new room must be placed).
Tests (*_test.cc, *test_util.h) may include anything.

  scripts/check_layers.py [--root DIR]
"""
import argparse
import fnmatch
import os
import re
import sys

# Bottom to top. A pattern ending in / is a room (its files, not deeper);
# others match top-level files of eval/.
LAYERS = [
    ("values", ["eval/value.*", "eval/type_dispatch.h", "eval/denormals.*"]),
    ("runtime, io", ["eval/runtime/", "eval/io/"]),
    ("interp", ["eval/interp/"]),
    ("kernels", ["eval/kernels/"]),
    ("fusion, linalg, collectives", ["eval/fusion/", "eval/linalg/", "eval/collectives/"]),
    ("evaluator", ["eval/evaluator.*", "eval/computation_plan.*", "eval/replica_runner.*",
                   "eval/custom_call.cc"]),
]

INCLUDE = re.compile(r'^\s*#\s*include\s+"(eval/[^"]+)"')


def layer_of(path):
    for level, (_, patterns) in enumerate(LAYERS):
        for p in patterns:
            if p.endswith("/"):
                if os.path.dirname(path) + "/" == p:
                    return level
            elif fnmatch.fnmatch(path, p):
                return level
    return None


def is_test(path):
    name = os.path.basename(path)
    return name.endswith("_test.cc") or name.endswith("test_util.h")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    problems = []
    files = 0
    for dirpath, _, names in os.walk(os.path.join(root, "eval")):
        for name in sorted(names):
            if not name.endswith((".h", ".cc")):
                continue
            path = os.path.relpath(os.path.join(dirpath, name), root)
            if is_test(path):
                continue
            files += 1
            level = layer_of(path)
            if level is None:
                problems.append(f"{path}: in no layer (add it to LAYERS in scripts/check_layers.py)")
                continue
            with open(os.path.join(root, path), encoding="utf-8") as f:
                for lineno, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = layer_of(m.group(1))
                    if target is None:
                        problems.append(f"{path}:{lineno}: includes {m.group(1)}, in no layer")
                    elif target > level:
                        problems.append(f"{path}:{lineno}: includes {m.group(1)} "
                                        f"([{LAYERS[target][0]}]) from [{LAYERS[level][0]}] "
                                        "below it")
    for p in sorted(problems):
        print(p)
    print(f"{files} files of eval/, {len(problems)} upward includes or unplaced files; layers, "
          "bottom to top: " + " < ".join(f"[{name}]" for name, _ in LAYERS))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
