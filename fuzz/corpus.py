#!/usr/bin/env python3
"""Builds the seed corpus of a fuzz target from testdata/ and ../shared/.

  fuzz/corpus.py TARGET OUT_DIR [--bin DIR] [--max-bytes N]

Writes one file per seed into OUT_DIR (named by content hash, so reruns and
libFuzzer's own files mix). Seeds larger than --max-bytes (default 32 KiB)
are left out: small inputs give more executions a second.

* parser, opt: each module of every .hlo file (split at `// -----` lines)
  of testdata/ and ../shared/ (XLA's dumps, JAX's modules, the benches and
  the conformance cases), error tests included.
* module_json: those modules as module JSON, written by DIR/hlo-opt
  --emit=json (--bin; without it only testdata's JSON files).
* literal: the .expect files of testdata (literal text with its shape) and
  the constants of the modules (`f32[2] {1, 2}`), each after the byte that
  tells literal_fuzzer.cc to read the shape from the text.
* eval: the modules of testdata/eval/lapack_*.hlo and sdy_*.hlo (the
  LAPACK custom-calls and Shardy manual computations), error tests included.
* check: every testdata file with CHECK lines, as the check file and as
  the input (after the options byte 0 of check_fuzzer.cc and a NUL between).
* runline: every testdata .hlo file (its RUN lines, first 4 KiB).
* stablehlo: the StableHLO texts: testdata/stablehlo/*.hlo and the shared cases'
  stablehlo.mlir files.
* npy: the .npy files, each after the byte that picks its element type in
  npy_fuzzer.cc (kTypes there).
"""
import argparse
import glob
import hashlib
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
# literal_fuzzer.cc: a first byte past its shape list reads the shape from the text.
LITERAL_WITH_SHAPE = b"\xff"
# npy_fuzzer.cc's kTypes, by .npy descr (the first byte picks the type).
NPY_TYPE_INDEX = {"b1": 0, "i1": 1, "i2": 2, "i4": 3, "i8": 4, "u1": 5, "u2": 6, "u4": 7,
                  "u8": 8, "f2": 9, "f4": 11, "f8": 12, "c8": 13, "c16": 14}
CONSTANT = re.compile(r"= ((?:[a-z0-9]+\[[0-9,]*\](?:\{[^}]*\})?)) constant\((.*)\)")


def files(pattern):
    out = []
    for base in (os.path.join(ROOT, "testdata"), SHARED):
        out += glob.glob(os.path.join(base, "**", pattern), recursive=True)
    return sorted(out)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def module_pieces():
    for path in files("*.hlo"):
        text = read(path)
        for piece in re.split(rb"(?m)^// -----.*\n", text):
            if piece.strip():
                yield path, piece


def parser_seeds(args):
    for _, piece in module_pieces():
        yield piece


def eval_seeds(args):
    for pattern in ("lapack_*.hlo", "sdy_*.hlo"):
        for path in sorted(glob.glob(os.path.join(ROOT, "testdata", "eval", pattern))):
            for piece in re.split(rb"(?m)^// -----.*\n", read(path)):
                if piece.strip():
                    yield piece


def json_seeds(args):
    for path in glob.glob(os.path.join(ROOT, "testdata", "**", "*.json"), recursive=True):
        if b"hlo-module-json" in read(path):
            yield read(path)
    if not args.bin:
        return
    hlo_opt = os.path.join(args.bin, "hlo-opt")
    for path, piece in module_pieces():
        if len(piece) > args.max_bytes:
            continue
        run = subprocess.run([hlo_opt, "-", "--emit=json", "--no-verify"], input=piece,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60)
        if run.returncode == 0:
            yield run.stdout


def literal_seeds(args):
    for path in glob.glob(os.path.join(ROOT, "testdata", "**", "*.expect"), recursive=True):
        yield LITERAL_WITH_SHAPE + read(path)
    for _, piece in module_pieces():
        for line in piece.decode("utf-8", "replace").splitlines():
            m = CONSTANT.search(line)
            if m and not m.group(2).startswith("{...}"):
                yield LITERAL_WITH_SHAPE + ("%s %s" % (m.group(1), m.group(2))).encode()


def npy_seeds(args):
    for path in files("*.npy"):
        data = read(path)
        m = re.search(rb"'descr': *'[<>|=]?([a-zA-Z]\d+)'", data[:256])
        index = NPY_TYPE_INDEX.get(m.group(1).decode(), 0) if m else 0
        yield bytes([index]) + data


def check_seeds(args):
    for path in glob.glob(os.path.join(ROOT, "testdata", "**", "*.hlo"), recursive=True):
        text = read(path)
        if b"CHECK" in text:
            yield b"\x00" + text[:8192] + b"\x00" + text[:8192]


def stablehlo_seeds(args):
    for f in sorted(glob.glob(os.path.join(ROOT, "testdata", "stablehlo", "*.hlo"))) + files("*.mlir"):
        yield read(f)


def runline_seeds(args):
    for path in glob.glob(os.path.join(ROOT, "testdata", "**", "*.hlo"), recursive=True):
        yield read(path)[:4096]


TARGETS = {"stablehlo": stablehlo_seeds, "check": check_seeds, "runline": runline_seeds, "parser": parser_seeds, "opt": parser_seeds, "module_json": json_seeds,
           "literal": literal_seeds, "npy": npy_seeds, "eval": eval_seeds}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("target", choices=sorted(TARGETS))
    ap.add_argument("out_dir")
    ap.add_argument("--bin", help="a build's bin/ with hlo-opt (for module_json)")
    ap.add_argument("--max-bytes", type=int, default=32 * 1024)
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    written = 0
    for seed in TARGETS[args.target](args):
        if not seed or len(seed) > args.max_bytes:
            continue
        path = os.path.join(args.out_dir, hashlib.sha1(seed).hexdigest())
        if not os.path.exists(path):
            with open(path, "wb") as f:
                f.write(seed)
            written += 1
    print("corpus: %s: %d seeds in %s" % (args.target, written, args.out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
