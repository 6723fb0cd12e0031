#!/usr/bin/env python3
"""hlo-run and hlo-opt flag contracts (README, "hlo-run: flags together"):
conflicting options are an error naming both, no option is silently ignored,
and what a script checks (exit status, files written, --expect's verdict)
can fail. One check per contract, on small modules written here; .npy files
are written and read by this script (no numpy needed). One more check uses
XLA's sort_topk case of ../shared and is skipped (counted) without it.

  scripts/cli_test.py --bin build/bin [-v] [-k SUBSTRING]

Prints a line per failed check, then `cli: N passed, N failed`; exit 1 if
any failed.
"""
import argparse
import ast
import os
import struct
import subprocess
import sys
import tempfile

ADD = """HloModule add

ENTRY main {
  x = f32[2] parameter(0)
  y = f32[2] parameter(1)
  ROOT r = f32[2] add(x, y)
}
"""
# Three arrays, one nested: (f32[2], (s32[3], f32[])).
TUPLE = """HloModule tup

ENTRY main {
  x = f32[2] parameter(0)
  n = f32[2] negate(x)
  i = s32[3] iota(), iota_dimension=0
  c = f32[] constant(7)
  inner = (s32[3], f32[]) tuple(i, c)
  ROOT t = (f32[2], (s32[3], f32[])) tuple(n, inner)
}
"""
ELIDED = """HloModule elided

ENTRY main {
  a = f32[3] constant({...})
  b = f32[3] constant({...})
  ROOT r = f32[3] add(a, b)
}
"""
THREE = """HloModule first

ENTRY main {
  ROOT c = f32[] constant(1)
}

// -----

HloModule second

ENTRY main {
  ROOT c = f32[] bogus-op(1)
}

// -----

HloModule third

ENTRY main {
  ROOT c = f32[] constant(3)
}
"""
FEED = """HloModule feed

ENTRY main {
  t = token[] after-all()
  d = f32[3] iota(), iota_dimension=0
  ROOT o = token[] outfeed(d, t), outfeed_shape=f32[3]
}
"""
STABLEHLO = """module @jit_f attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf32>) -> (tensor<2xf32>) {
    %0 = stablehlo.negate %arg0 : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
"""
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FORMATS = {"f4": ("<f4", "f"), "i4": ("<i4", "i")}


def npy_bytes(kind, shape, values):
    descr, code = FORMATS[kind]
    dims = f"{shape[0]}," if len(shape) == 1 else ", ".join(str(d) for d in shape)
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    body = struct.pack("<%d%s" % (len(values), code), *values)
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + body


def read_npy(path):
    """(descr, shape, values) of a version-1 .npy file written by hlo-run;
    None when it is no such file."""
    if not os.path.isfile(path):
        return None
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(b"\x93NUMPY"):
        return None
    hlen = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + hlen].decode())
    code = {"<f4": "f", "<i4": "i"}[header["descr"]]
    count = 1
    for d in header["shape"]:
        count *= d
    values = struct.unpack("<%d%s" % (count, code), data[10 + hlen:10 + hlen + 4 * count])
    return header["descr"], tuple(header["shape"]), list(values)


class Checker:
    def __init__(self, bindir, work, verbose):
        self.bin = bindir
        self.work = work
        self.verbose = verbose
        self.passed = 0
        self.failed = 0
        self.skipped = 0

    def path(self, name):
        return os.path.join(self.work, name)

    def write(self, name, data):
        mode = "wb" if isinstance(data, bytes) else "w"
        with open(self.path(name), mode) as f:
            f.write(data)
        return self.path(name)

    def run(self, tool, *args, env=None):
        p = subprocess.run([os.path.join(self.bin, tool), *args], cwd=self.work,
                           capture_output=True, text=True, timeout=120,
                           env=None if env is None else {**os.environ, **env})
        if self.verbose:
            print(f"$ {tool} {' '.join(args)}\n  -> {p.returncode}\n{p.stdout}{p.stderr}")
        return p

    def check(self, name, ok, why):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {name}: {why}")

    def expect_exit(self, name, p, code, *needles, stream="stderr"):
        """Exit status `code` and every needle in the stream."""
        text = getattr(p, stream)
        missing = [n for n in needles if n not in text]
        self.check(name, p.returncode == code and not missing,
                   f"exit {p.returncode} (wanted {code}); missing {missing}; "
                   f"stderr: {p.stderr.strip()[:400]!r}")


def setup(c):
    c.write("add.hlo", ADD)
    c.write("tuple.hlo", TUPLE)
    c.write("elided.hlo", ELIDED)
    c.write("three.hlo", THREE)
    c.write("feed.hlo", FEED)
    c.write("stablehlo.mlir", STABLEHLO)
    c.write("a.npy", npy_bytes("f4", [2], [1.0, 2.0]))
    c.write("b.npy", npy_bytes("f4", [2], [10.0, 20.0]))
    c.write("sum.npy", npy_bytes("f4", [2], [11.0, 22.0]))
    c.write("bad_sum.npy", npy_bytes("f4", [2], [11.0, 23.0]))
    c.write("a3.npy", npy_bytes("f4", [3], [1.0, 2.0, 3.0]))
    # XLA's naming for the tuple's three arrays, flattened in order.
    os.makedirs(c.path("xla_out"), exist_ok=True)
    c.write("xla_out/out_0.npy", npy_bytes("f4", [2], [-1.0, -2.0]))
    c.write("xla_out/out_1.npy", npy_bytes("i4", [3], [0, 1, 2]))
    c.write("xla_out/out_2.npy", npy_bytes("f4", [], [7.0]))
    c.write("wrong_1.npy", npy_bytes("i4", [3], [0, 1, 5]))


def test_conflicts(c):
    p = c.run("hlo-run", "add.hlo", "--input", "a.npy", "--input", "b.npy", "--random-inputs",
              "--expect", "sum.npy")
    c.expect_exit("--input with --random-inputs is an error naming both", p, 2,
                  "--input", "--random-inputs")
    p = c.run("hlo-run", "add.hlo", "--random-inputs", "--seed", "-1")
    c.expect_exit("--seed -1 is an error", p, 2, "--seed")
    p = c.run("hlo-run", "add.hlo", "--input", "a.npy", "--input", "b.npy",
              "--output-format=text", "-o", "r.npy")
    c.expect_exit("--output-format=text with -o r.npy is an error naming both", p, 2,
                  "--output-format", "-o")
    p = c.run("hlo-run", "add.hlo", "--input", "a.npy", "--input", "b.npy",
              "--output-format=json", "--expect", "sum.npy")
    c.expect_exit("--output-format without -o beside --expect is an error naming both", p, 2,
                  "--output-format", "--expect")
    p = c.run("hlo-run", "add.hlo", "--random-inputs", "--rtol", "0.1")
    c.expect_exit("--rtol without --expect is an error naming both", p, 2, "--rtol", "--expect")
    p = c.run("hlo-run", "add.hlo", "--random-inputs", "--bench", "0")
    c.expect_exit("--bench 0 is an error", p, 2, "--bench")
    p = c.run("hlo-run", "add.hlo", "--random-inputs", "--dot-default-precision=tf32",
              "--precision=f64")
    c.expect_exit("--dot-default-precision=tf32 with --precision=f64 is an error naming both", p,
                  2, "--dot-default-precision", "--precision")
    p = c.run("hlo-run", "add.hlo", "--random-inputs", "--mpi", "--device-scheduling=fibers")
    c.expect_exit("--device-scheduling=fibers with --mpi is an error naming both", p, 2,
                  "--device-scheduling", "--mpi")
    p = c.run("hlo-run", "add.hlo", "--random-inputs", "--device-scheduling=green")
    c.expect_exit("--device-scheduling=green is an error", p, 2, "--device-scheduling")
    p = c.run("hlo-run", "add.hlo", "--input", "a.npy", "--input", "b.npy",
              "--expect", "sum.npy", "-o", "both.npy")
    vals = read_npy(c.path("both.npy"))
    c.check("--expect with -o checks and writes", p.returncode == 0 and "matches" in p.stderr
            and vals and vals[2] == [11.0, 22.0], f"exit {p.returncode}; {vals}; {p.stderr!r}")


def test_bench(c):
    args = ["add.hlo", "--input", "a.npy", "--input", "b.npy", "--bench", "2"]
    p = c.run("hlo-run", *args, "--expect", "bad_sum.npy")
    c.expect_exit("--bench still checks --expect (mismatch: exit 1)", p, 1, "1 mismatch")
    p = c.run("hlo-run", *args, "--expect", "sum.npy")
    c.expect_exit("--bench still checks --expect (match: exit 0)", p, 0, "matches", "bench:")
    p = c.run("hlo-run", *args, "-o", "bench_out.npy")
    vals = read_npy(c.path("bench_out.npy"))
    c.check("--bench still writes -o", p.returncode == 0 and vals and vals[2] == [11.0, 22.0],
            f"exit {p.returncode}, values {vals}, stderr {p.stderr.strip()[:300]!r}")


    p = c.run("hlo-run", "feed.hlo", "--bench", "1", "--outfeed", "feed.txt")
    text = open(c.path("feed.txt")).read() if os.path.exists(c.path("feed.txt")) else None
    c.check("--bench still writes --outfeed", p.returncode == 0 and text == "f32[3] {0, 1, 2}\n",
            f"exit {p.returncode}; outfeed {text!r}")


def test_expect_leaves(c):
    run = ["tuple.hlo", "--input", "a.npy"]
    leaves = ["xla_out/out_0.npy", "xla_out/out_1.npy", "xla_out/out_2.npy"]
    p = c.run("hlo-run", *run, *[a for f in leaves for a in ("--expect", f)])
    c.expect_exit("--expect: one .npy per result array, in order", p, 0, "matches")
    bad = [leaves[0], "wrong_1.npy", leaves[2]]
    p = c.run("hlo-run", *run, *[a for f in bad for a in ("--expect", f)])
    c.expect_exit("--expect per array: a mismatch in array 1 fails", p, 1, "1 mismatch",
                  "index [2]")
    p = c.run("hlo-run", *run, "--expect", "xla_out")
    c.expect_exit("--expect DIR of out_I.npy", p, 0, "matches")
    p = c.run("hlo-run", *run, "--output-format=npy", "-o", "own_dir")
    p = c.run("hlo-run", *run, "--expect", "own_dir")
    c.expect_exit("--expect DIR of hlo-run's own result_I.npy", p, 0, "matches")
    p = c.run("hlo-run", *run, "--expect", leaves[0], "--expect", leaves[1])
    c.expect_exit("--expect: 2 files for 3 arrays is an error giving both counts", p, 2,
                  "3 arrays", "2 --expect")
    p = c.run("hlo-run", *run, "--expect", leaves[0])
    c.expect_exit("--expect: one .npy for a tuple result is an error", p, 2, "3 arrays")
    p = c.run("hlo-run", "add.hlo", "--input", "a.npy", "--input", "b.npy",
              "--expect", "sum.npy")
    c.expect_exit("--expect: one file for one result", p, 0, "matches")


def test_opt_multi_module(c):
    p = c.run("hlo-opt", "three.hlo")
    ok = (p.returncode == 1 and "HloModule first" in p.stdout and "HloModule third" in p.stdout
          and "HloModule second" not in p.stdout and "three.hlo:12:" in p.stderr)
    c.check("hlo-opt: one bad module of three prints the other two and exits 1", ok,
            f"exit {p.returncode}; stdout {p.stdout[:200]!r}; stderr {p.stderr[:300]!r}")
    p = c.run("hlo-opt", "three.hlo", "-o", "three_out.hlo")
    text = open(c.path("three_out.hlo")).read() if os.path.exists(c.path("three_out.hlo")) else ""
    c.check("hlo-opt -o: the modules that worked are written, exit 1",
            p.returncode == 1 and "HloModule first" in text and "HloModule third" in text,
            f"exit {p.returncode}; file {text[:200]!r}")


def test_run_multi_module(c):
    """hlo-run on a file of several modules: each runs; one-module options conflict."""
    p = c.run("hlo-run", "three.hlo")
    ok = (p.returncode == 1 and p.stdout.count("// -----") == 2 and "three.hlo:12:" in p.stderr
          and p.stdout.startswith("f32[] 1\n"))
    c.check("hlo-run: one bad module of three, the other two run, exit 1", ok,
            f"exit {p.returncode}; stdout {p.stdout[:200]!r}; stderr {p.stderr[:300]!r}")
    for opt in (["--input", "a.npy"], ["--expect", "sum.npy"], ["-o", "r.txt"],
                ["--bench", "1"], ["--outfeed", "f.txt"], ["--find-nonfinite"]):
        p = c.run("hlo-run", "three.hlo", *opt)
        c.expect_exit(f"hlo-run {opt[0]} with a file of 3 modules is an error naming both", p,
                      2, opt[0], "3 modules")


def test_opt_conflicts(c):
    p = c.run("hlo-opt", "add.hlo", "--emit=json", "--filter=add")
    c.expect_exit("hlo-opt --filter with --emit=json is an error naming both", p, 2,
                  "--filter", "--emit=json")
    p = c.run("hlo-opt", "add.hlo", "--emit=dot", "--print-style=long")
    c.expect_exit("hlo-opt --print-style with --emit=dot is an error naming both", p, 2,
                  "--print-style", "--emit=dot")
    p = c.run("hlo-opt", "add.hlo", "--emit=json", "--filter=add", "--print-after=dce",
              "--passes=dce")
    c.expect_exit("hlo-opt --filter with --emit=json applies to --print-after", p, 0, "add(")
    p = c.run("hlo-opt", "add.hlo", "-O", "--passes=dce")
    c.expect_exit("hlo-opt -O with --passes is an error naming both", p, 2, "-O", "--passes")
    p = c.run("hlo-opt", "add.hlo", "--print-op-generic")
    c.expect_exit("hlo-opt --print-op-generic without --emit=stablehlo is an error naming both",
                  p, 2, "--print-op-generic", "--emit=hlo")
    p = c.run("hlo-opt", "add.hlo", "--bisect=dce", "--nonfinite", "--emit=json")
    c.expect_exit("hlo-opt --bisect with --emit is an error naming both", p, 2, "--bisect",
                  "--emit")
    p = c.run("hlo-opt", "add.hlo", "--bisect=dce", "--nonfinite", "-O")
    c.expect_exit("hlo-opt --bisect with -O is an error naming both", p, 2, "--bisect", "-O")
    p = c.run("hlo-opt", "add.hlo", "--bisect=dce", "--nonfinite", "--crash")
    c.expect_exit("hlo-opt --bisect with two tests is an error naming both", p, 2, "--crash",
                  "--nonfinite")
    p = c.run("hlo-opt", "add.hlo", "--bisect=dce")
    c.expect_exit("hlo-opt --bisect without a test is an error", p, 2, "no test")
    p = c.run("hlo-opt", "add.hlo", "--bisect=dce", "--mismatch=algsimp")
    c.expect_exit("hlo-opt --bisect and --mismatch of another pipeline is an error", p, 2,
                  "--bisect", "--mismatch")
    p = c.run("hlo-opt", "add.hlo", "--bisect=nosuchpass", "--nonfinite")
    c.expect_exit("hlo-opt --bisect of an unknown pass is an error", p, 2, "nosuchpass")


def test_output_extension(c):
    args = ["add.hlo", "--input", "a.npy", "--input", "b.npy"]
    p = c.run("hlo-run", *args, "-o", "r.npy")
    vals = read_npy(c.path("r.npy"))
    c.check("-o r.npy writes one .npy file",
            p.returncode == 0 and vals == ("<f4", (2,), [11.0, 22.0]),
            f"exit {p.returncode}; {vals}; stderr {p.stderr[:300]!r}")
    p = c.run("hlo-run", *args, "--output-format=npy", "-o", "r2.npy")
    vals = read_npy(c.path("r2.npy"))
    c.check("--output-format=npy -o r2.npy writes one .npy file",
            p.returncode == 0 and vals and vals[2] == [11.0, 22.0],
            f"exit {p.returncode}; isdir {os.path.isdir(c.path('r2.npy'))}")
    p = c.run("hlo-run", *args, "-o", "r.json")
    ok = (p.returncode == 0 and os.path.isfile(c.path("r.json"))
          and open(c.path("r.json")).read().lstrip().startswith("{"))
    c.check("-o r.json writes JSON", ok, f"exit {p.returncode}; stderr {p.stderr[:300]!r}")
    p = c.run("hlo-run", "tuple.hlo", "--input", "a.npy", "-o", "t.npy")
    c.expect_exit("-o t.npy for a tuple result is an error", p, 2, "t.npy", "3 arrays")
    c.check("-o t.npy for a tuple result leaves nothing", not os.path.exists(c.path("t.npy")),
            "t.npy exists")
    p = c.run("hlo-run", "tuple.hlo", "--input", "a.npy", "--output-format=npy", "-o", "tdir")
    c.check("--output-format=npy -o DIR still writes a folder",
            p.returncode == 0 and os.path.isfile(c.path("tdir/result_1_0.npy")),
            f"exit {p.returncode}; stderr {p.stderr[:300]!r}")


def test_inline_input(c):
    p = c.run("hlo-run", "add.hlo", "--input", "{1, 2}", "--input", "f32[2] {3, 4.5}")
    c.expect_exit("--input takes inline literal text", p, 0, "{4, 6.5}", stream="stdout")
    p = c.run("hlo-run", "add.hlo", "--input", "missing.npy", "--input", "{3, 4}")
    c.expect_exit("--input: a missing file is still 'cannot open'", p, 1, "missing.npy",
                  "cannot open")
    p = c.run("hlo-run", "add.hlo", "--input", "1.npy", "--input", "{3, 4}")
    c.expect_exit("--input: a missing 1.npy is a file, not a literal", p, 1, "1.npy",
                  "cannot open")


def test_profile(c):
    p = c.run("hlo-run", "--profile", "add.hlo", "--input", "a.npy", "--input", "b.npy")
    c.check("--profile MODEL: the model is the input, not the profile's file",
            p.returncode == 0 and "profile: add" in p.stderr and "{11, 22}" in p.stdout,
            f"exit {p.returncode}; stdout {p.stdout[:100]!r}; stderr {p.stderr[:300]!r}")
    c.check("bare --profile writes no file", not os.path.exists(c.path("true")),
            "a file named 'true' was written")
    p = c.run("hlo-run", "add.hlo", "--input", "a.npy", "--input", "b.npy",
              "--profile=prof.json")
    c.check("--profile=FILE writes the JSON", p.returncode == 0 and
            os.path.isfile(c.path("prof.json")), f"exit {p.returncode}; {p.stderr[-300:]!r}")


def test_npz(c):
    c.write("in.npz", b"PK\x03\x04" + b"\x00" * 60)
    p = c.run("hlo-run", "add.hlo", "--input", "in.npz", "--input", "b.npy")
    c.expect_exit(".npz input is a clear error", p, 1, "in.npz", "archive")


def test_messages(c):
    p = c.run("hlo-run", "add.hlo", "--input", "a.npy")
    c.expect_exit("input count: given against wanted", p, 2, "2 parameters", "1 --input given")
    p = c.run("hlo-run", "add.hlo", "--input", "a.npy", "--input", "a3.npy")
    c.expect_exit("a shape error names the parameter", p, 1, "parameter 1", "'y'")
    p = c.run("hlo-run", "add.hlo", "--random-inputs", "--rtoll", "1")
    c.expect_exit("a mistyped flag: did you mean", p, 2, "--rtoll", "did you mean --rtol")
    p = c.run("hlo-opt", "add.hlo", "--passes=dcee")
    c.expect_exit("a mistyped pass: did you mean", p, 2, "dcee", "did you mean 'dce'")
    # CLI11 would read `--passes=`'s value from the next argument (the module).
    for tool in ("hlo-run", "hlo-opt"):
        p = c.run(tool, "--passes=", "add.hlo", "--random-inputs")
        c.expect_exit(f"{tool} --passes= (empty after '=') is refused, not given the module",
                      p, 2, "--passes=", "--passes ''")
    p = c.run("hlo-run", "add.hlo", "--input", "a.npy", "--input", "b.npy", "--passes", "")
    c.expect_exit("hlo-run --passes '': no passes, the run goes on", p, 0, "{11, 22}",
                  stream="stdout")
    p = c.run("hlo-run", "stablehlo.mlir", "--random-inputs")
    c.expect_exit("hlo-run: StableHLO text is read (stablehlo/)", p, 0)
    p = c.run("hlo-opt", "stablehlo.mlir")
    c.expect_exit("hlo-opt: StableHLO text is read (stablehlo/)", p, 0, "negate", stream="stdout")
    p = c.run("hlo-opt", "stablehlo.mlir", "--input-format=hlo")
    c.expect_exit("hlo-opt --input-format=hlo: StableHLO text is named as such", p, 1,
                  "StableHLO")
    p = c.run("hlo-run", "elided.hlo", "--seed", "3")
    ok = p.returncode == 0 and p.stderr.count("elided") == 1 and "2 elided constants" in p.stderr
    c.check("elided constants filled: said once on stderr", ok,
            f"exit {p.returncode}; stderr {p.stderr!r}")
    p = c.run("hlo-run", "--profile", "p.json", "add.hlo", "--random-inputs")
    c.expect_exit("--profile FILE (not =FILE) is a usage error that says so", p, 2,
                  "--profile=FILE")


def test_shared_xla_case(c):
    """XLA's sort_topk returns six arrays: its out_I.npy, one --expect each and as
    a folder (../shared beside the checkout; skipped without it)."""
    d = os.path.join(ROOT, "..", "shared", "xla-jax", "cases", "sort_topk")
    if not os.path.isdir(d):
        c.skipped += 1
        return
    outs = sorted((f for f in os.listdir(d) if f.startswith("out_")),
                  key=lambda f: int(f[4:-4]))
    run = [os.path.join(d, "before.hlo"), "--input", os.path.join(d, "in_0.npy"),
           "--input", os.path.join(d, "in_1.npy")]
    p = c.run("hlo-run", *run, *[a for f in outs for a in ("--expect", os.path.join(d, f))])
    c.expect_exit("sort_topk: six --expect out_I.npy", p, 0, "matches")
    os.makedirs(c.path("topk"), exist_ok=True)
    for f in outs:
        with open(os.path.join(d, f), "rb") as src:
            c.write(os.path.join("topk", f), src.read())
    p = c.run("hlo-run", *run, "--expect", "topk")
    c.expect_exit("sort_topk: --expect DIR of out_I.npy", p, 0, "matches")


def test_numerics(c):
    """--find-nonfinite's exit status 3; the numerics options' conflicts."""
    c.write("nan.npy", npy_bytes("f4", [2], [1.0, float("nan")]))
    p = c.run("hlo-run", "add.hlo", "--input", "a.npy", "--input", "nan.npy", "--find-nonfinite")
    c.expect_exit("--find-nonfinite on a NaN input exits 3 naming the parameter", p, 3,
                  "first non-finite value: %y = parameter", "1 NaN", stream="stdout")
    p = c.run("hlo-run", "add.hlo", "--input", "a.npy", "--input", "b.npy", "--find-nonfinite")
    c.expect_exit("--find-nonfinite with nothing to find exits 0", p, 0, "every value is finite")
    for args, names in [(["--find-nonfinite", "--bench", "2"], ["--find-nonfinite", "--bench"]),
                        (["--dump-values", "x", "d", "--bench", "2"], ["--dump-values", "--bench"]),
                        (["--find-nonfinite", "--replicas", "2"], ["--find-nonfinite",
                                                                  "--replicas"]),
                        (["--error-report", "--precision=f64"], ["--error-report",
                                                                "--precision=f64"]),
                        (["--error-report", "--find-nonfinite"], ["--error-report",
                                                                 "--find-nonfinite"]),
                        (["--error-report", "-o", "r.txt"], ["--error-report", "-o"]),
                        (["--json"], ["--json", "--error-report"]),
                        (["--dump-values", "(", "d"], ["--dump-values", "bad RE2"])]:
        p = c.run("hlo-run", "add.hlo", "--random-inputs", *args)
        c.expect_exit(f"{' '.join(args)} is an error naming both", p, 2, *names)
    p = c.run("hlo-run", "--compare-values", "d1", "d2", "--seed", "3")
    c.expect_exit("--compare-values with --seed is an error naming both", p, 2,
                  "--seed", "--compare-values")
    p = c.run("hlo-run", "add.hlo", "--compare-values", "d1", "d2")
    c.expect_exit("--compare-values with a module is an error", p, 2, "--compare-values", "add.hlo")
    p = c.run("hlo-run")
    c.expect_exit("no module and no --compare-values is an error", p, 2, "input is required")


def test_device_scheduling(c):
    # Multi-device goldens (hand-computed results): collectives in a while
    # loop, send/recv posted before their sends, partitions' group modes.
    eval_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "eval")
    for name, args in (("collective_loop", []), ("collective_send_recv", ["--replicas", "4"]),
                       ("collective_partitions", [])):
        with open(os.path.join(eval_dir, name + ".out")) as f:
            want = f.read()
        for how in ("threads", "fibers", "auto"):
            p = c.run("hlo-run", os.path.join(eval_dir, name + ".hlo"), *args,
                      f"--device-scheduling={how}")
            c.check(f"{name} with --device-scheduling={how}",
                    p.returncode == 0 and p.stdout == want,
                    f"exit {p.returncode}; stdout {p.stdout!r}; stderr {p.stderr.strip()[:300]!r}")


def test_lazy_libraries(c):
    """OpenBLAS, oneDNN and Open MPI are opened when first needed, not at
    start-up (eval/blas_api.h, eval/shared_library.h): the dynamic loader's
    log (LD_DEBUG=files) names none of them for an add, and OpenBLAS for a
    cholesky, whose result is still the factor."""
    debug = {"LD_DEBUG": "files"}
    p = c.run("hlo-run", "add.hlo", "--input", "a.npy", "--input", "b.npy", env=debug)
    loaded = [lib for lib in ("libopenblas", "libgfortran", "libdnnl", "libmpi")
              if lib in p.stderr]
    c.check("an add loads no BLAS, oneDNN or MPI", p.returncode == 0 and not loaded,
            f"exit {p.returncode}; loaded {loaded}")
    c.write("chol.hlo", "HloModule chol\nENTRY e {\n  a = f32[2,2] constant({{4, 2}, {2, 5}})\n"
            "  ROOT c = f32[2,2] cholesky(a), lower=true\n}\n")
    p = c.run("hlo-run", "chol.hlo", env=debug)
    # [[4, 2], [2, 5]] = L L^T with L = [[2, 0], [1, 2]].
    c.check("a cholesky opens OpenBLAS and factors", p.returncode == 0 and
            "file=libopenblas" in p.stderr and p.stdout.strip() == "f32[2,2] {{2, 0}, {1, 2}}",
            f"exit {p.returncode}; stdout {p.stdout!r}")


TESTS = [test_conflicts, test_bench, test_expect_leaves, test_opt_multi_module, test_run_multi_module,
         test_opt_conflicts, test_output_extension, test_inline_input, test_profile, test_npz,
         test_messages, test_shared_xla_case, test_numerics, test_device_scheduling,
         test_lazy_libraries]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/bin")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("-k", default="", help="run the tests whose name contains this")
    args = ap.parse_args()
    bindir = os.path.abspath(args.bin)
    with tempfile.TemporaryDirectory(prefix="hlo-cli-") as work:
        c = Checker(bindir, work, args.verbose)
        setup(c)
        for t in TESTS:
            if args.k in t.__name__:
                t(c)
    skipped = f", {c.skipped} skipped (no ../shared)" if c.skipped else ""
    print(f"cli: {c.passed} passed, {c.failed} failed{skipped}")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
