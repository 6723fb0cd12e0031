#!/usr/bin/env python3
"""The executor's layers (README "Layout of the source"): every non-test file
of eval/ includes only eval/ files of its own layer or of layers below it
(CTest `layers`).
Prints each upward include as FILE:LINE and exits 1 when there is one; a
file of eval/ that no layer names is an error too (a new room must be placed).
Tests (*_test.cc, *test_util.h) may include anything. With --objects, the
built objects' symbols too: no object uses a function or variable defined in
a layer above its own (nm).

  scripts/check_layers.py [--root DIR] [--objects BUILD/CMakeFiles/hlo_eval.dir]
"""
import argparse
import fnmatch
import os
import re
import subprocess
import sys

# Bottom to top. A pattern ending in / is a room (its files, not deeper);
# others match top-level files of eval/.
LAYERS = [
    ("values", ["eval/value.*", "eval/type_dispatch.h", "eval/denormals.*",
                "eval/vector_clones.h", "eval/blas_api.*", "eval/blas_kernel_choice.*",
                "eval/shared_library.*"]),
    ("runtime, io", ["eval/runtime/", "eval/io/"]),
    ("interp", ["eval/interp/"]),
    ("kernels", ["eval/kernels/"]),
    ("fusion, linalg, collectives, gpu",
     ["eval/fusion/", "eval/linalg/", "eval/collectives/", "eval/gpu/"]),
    ("evaluator", ["eval/evaluator.*", "eval/computation_plan.*", "eval/replica_runner.*",
                   "eval/custom_call.*"]),
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


def include_problems(root):
    """Upward includes and unplaced files of eval/; returns (problems, files)."""
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
    return problems, files


def nm(args):
    return subprocess.run(["nm", "-C", *args], check=True, capture_output=True,
                          text=True).stdout.splitlines()


def symbol_problems(root, objects):
    """Uses of a symbol defined in a layer above the user's, read from the
    objects of eval/ under `objects` (a declaration in a lower header of a
    function defined higher up passes the include check)."""
    defined, used = {}, {}
    for dirpath, _, names in os.walk(os.path.join(objects, "eval")):
        for name in names:
            obj = os.path.join(dirpath, name)
            src = os.path.relpath(obj, objects)[: -len(".o")]
            # Objects of sources since moved or deleted are stale.
            if not name.endswith(".cc.o") or not os.path.exists(os.path.join(root, src)):
                continue
            if is_test(src):
                continue
            for line in nm(["--defined-only", "-g", obj]):
                parts = line.split(" ", 2)
                if len(parts) == 3 and parts[1] in "TBDR":
                    defined.setdefault(parts[2], src)
            used[src] = [line.split(None, 1)[1] for line in nm(["-u", obj]) if line.strip()]
    problems = []
    for src, symbols in sorted(used.items()):
        level = layer_of(src)
        for sym in symbols:
            where = defined.get(sym)
            if level is not None and where and (layer_of(where) or 0) > level:
                problems.append(f"{src}: uses {sym} defined in {where} "
                                f"([{LAYERS[layer_of(where)][0]}]) above [{LAYERS[level][0]}]")
    return problems, len(used)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--objects", help="also check the symbols of the objects of eval/ under DIR "
                    "(the build's CMakeFiles/hlo_eval.dir), with nm")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    problems, files = include_problems(root)
    for p in sorted(problems):
        print(p)
    print(f"{files} files of eval/, {len(problems)} upward includes or unplaced files; layers, "
          "bottom to top: " + " < ".join(f"[{name}]" for name, _ in LAYERS))
    if args.objects:
        if not os.path.isdir(os.path.join(args.objects, "eval")):
            print(f"check_layers: no objects of eval/ under {args.objects}", file=sys.stderr)
            return 2
        sym_problems, objects = symbol_problems(root, os.path.abspath(args.objects))
        for p in sym_problems:
            print(p)
        print(f"{objects} objects of eval/, {len(sym_problems)} uses of symbols defined a layer above")
        problems += sym_problems
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
