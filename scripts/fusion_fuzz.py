#!/usr/bin/env python3
"""Fused and unfused execution agree on random row chains.

  /usr/bin/python3 scripts/fusion_fuzz.py [--bin build/bin] [--seed N]
      [--cases N] [--jobs N] [--keep] [-v]

Draws random modules (deterministic for a seed) of what hlo-run's row
fusions gather: values over an array's rows ([rows, cols], or [2, rows,
cols]), minor-dimension reductions (add, multiply, maximum, minimum) to one
value per row, per-row arithmetic and math, broadcasts of per-row values,
of [cols] columns and of scalars back over the rows, the reshapes JAX
writes between per-row shapes ([..., rows] and [..., rows, 1]),
elementwise ops on rows (selects on compares, clamps, float converts) and
softmaxes as JAX and XLA write them; some intermediates are also outputs,
and some modules hold it all in a kLoop fusion (a multi-output one where
there are several), as XLA's optimized text does. Some cases are attention
blocks instead (attention_module): dots reading strided views of slices
and transposes, and writing through a transpose. f32 and f64,
rows of 1 to 300 columns. Each module runs with its random inputs fused
and with --no-fusion, with and without --denormals=flush, and the results
must be the same bytes (signed zeros included), the same exit status and
the same messages; a NaN may differ from the other's NaN in sign and
payload (SameResults says why), where scripts/fusion_agreement.py holds
the real programs to their NaNs' bytes too.

Prints one line per disagreement (with the kept module's path) and ends with
`fusion fuzz: N cases, N agree, N differ`; exit status 1 on any
disagreement.
"""
import argparse
import concurrent.futures
import io
import os
import random
import shutil
import subprocess
import sys
import tempfile

import numpy

UNARY = ["exponential", "tanh", "negate", "abs", "sqrt", "rsqrt", "log", "logistic", "sine",
         "floor"]
BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum"]
REDUCERS = ["add", "multiply", "maximum", "minimum"]
INITS = {"add": "0", "multiply": "1", "maximum": "-inf", "minimum": "inf"}


class Module:
    """One random module's text, built value by value."""

    def __init__(self, rng):
        self.rng = rng
        self.t = rng.choice(["f32", "f64"])
        self.batch = rng.choice([[], [2]])
        self.rows = rng.choice([1, 2, 3, 7, 16, 37, 64, 130])
        self.cols = rng.choice([1, 3, 8, 16, 33, 64, 100, 128, 300])
        self.lines, self.params, self.param_names, self.n = [], [], [], 0
        self.row_values, self.per_row_values = [], []

    def shape(self, dims, dtype=None):
        return "%s[%s]" % (dtype or self.t, ",".join(str(d) for d in dims))

    def rows_dims(self):
        return self.batch + [self.rows, self.cols]

    def per_row_dims(self):
        return self.batch + [self.rows]

    def emit(self, dims, text, dtype=None):
        self.n += 1
        name = "v%d" % self.n
        self.lines.append("  %s = %s %s" % (name, self.shape(dims, dtype), text))
        return name

    def param(self, dims, dtype=None):
        name = "p%d" % len(self.params)
        self.param_names.append(name)
        self.params.append("  %s = %s parameter(%d)" %
                           (name, self.shape(dims, dtype), len(self.params)))
        return name

    def elementwise(self, dims, operand, binary):
        """A random binary or unary op on operand() values."""
        if binary:
            return self.emit(dims, "%s(%s, %s)" % (self.rng.choice(BINARY), operand(), operand()))
        return self.emit(dims, "%s(%s)" % (self.rng.choice(UNARY), operand()))

    def scalar(self, value):
        return self.emit([], "constant(%s)" % value)

    def spread(self, per_row):
        """A per-row value broadcast over its rows (directly, or through
        [..., rows, 1] as JAX writes it)."""
        rank = len(self.per_row_dims())
        if self.rng.random() < 0.5:
            return self.emit(self.rows_dims(), "broadcast(%s), dimensions={%s}" %
                             (per_row, ",".join(str(d) for d in range(rank))))
        one = self.emit(self.per_row_dims() + [1], "reshape(%s)" % per_row)
        back = self.emit(self.per_row_dims(), "reshape(%s)" % one)
        return self.emit(self.rows_dims(), "broadcast(%s), dimensions={%s}" %
                         (back, ",".join(str(d) for d in range(rank))))

    def reuse(self, values):
        """Now and then an existing value (values read twice: the layer
        norm's centred rows), else None."""
        return self.rng.choice(values) if values and self.rng.random() < 0.2 else None

    def rows_value(self, depth):
        """A value over the rows, built top-down so that every value reaches
        the root."""
        old = self.reuse(self.row_values)
        if old is not None:
            return old
        r = self.rng.random() if depth > 0 else 1.0
        if r < 0.4:
            v = self.elementwise(self.rows_dims(), lambda: self.rows_value(depth - 1), r < 0.3)
        elif r < 0.45:
            v = self.loop_op(depth)
        elif r < 0.5:
            v = self.softmax(depth)
        elif r < 0.75:
            return self.spread(self.per_row_value(depth - 1))
        elif r < 0.8:
            column = self.param([self.cols])
            return self.emit(self.rows_dims(), "broadcast(%s), dimensions={%d}" %
                             (column, len(self.rows_dims()) - 1))
        elif r < 0.85:
            s = self.scalar(self.rng.choice(["2", "0.5", "-1", "1e-05", "3"]))
            return self.emit(self.rows_dims(), "broadcast(%s), dimensions={}" % s)
        else:
            v = self.rng.choice(self.inputs)
        self.row_values.append(v)
        return v

    def loop_op(self, depth):
        """What the elementwise loop groups gather besides arithmetic: a
        select on a compare, a clamp, a round trip through the other float
        type."""
        dims = self.rows_dims()
        r = self.rng.random()
        if r < 0.4:
            a, b = self.rows_value(depth - 1), self.rows_value(depth - 1)
            pred = self.emit(dims, "compare(%s, %s), direction=%s" %
                             (a, b, self.rng.choice(["LT", "GE", "EQ", "NE"])), "pred")
            return self.emit(dims, "select(%s, %s, %s)" % (pred, self.rows_value(depth - 1),
                                                          self.rows_value(depth - 1)))
        if r < 0.7:
            lo = self.scalar(self.rng.choice(["-1", "0"]))
            hi = self.scalar(self.rng.choice(["1", "2.5"]))
            return self.emit(dims, "clamp(%s, %s, %s)" % (lo, self.rows_value(depth - 1), hi))
        other = "f64" if self.t == "f32" else "f32"
        wide = self.emit(dims, "convert(%s)" % self.rows_value(depth - 1), other)
        return self.emit(dims, "convert(%s)" % wide)

    def reduce(self, op, x):
        init = self.scalar(INITS[op])
        return self.emit(self.per_row_dims(), "reduce(%s, %s), dimensions={%d}, to_apply=%s_%s" %
                         (x, init, len(self.rows_dims()) - 1, op, self.t))

    def softmax(self, depth):
        """A softmax over the rows as JAX writes it, with its variants: the
        max floored by maximum(max, -inf), the scores masked and scaled
        (attention's where(mask, s / c, -1e9)), the sum's reciprocal
        multiplied in (XLA's simplifier) instead of divided by."""
        dims = self.rows_dims()
        x = self.rows_value(depth - 1)
        if self.rng.random() < 0.3:
            c = self.scalar(self.rng.choice(["8", "0.125"]))
            scaled = self.emit(dims, "%s(%s, %s)" % (
                self.rng.choice(["divide", "multiply"]), x,
                self.emit(dims, "broadcast(%s), dimensions={}" % c)))
            mask = self.param(dims, "pred")
            fill = self.emit(dims, "broadcast(%s), dimensions={}" % self.scalar("-1e+09"))
            x = self.emit(dims, "select(%s, %s, %s)" % (mask, scaled, fill))
        m = self.reduce("maximum", x)
        if self.rng.random() < 0.3:
            floor = self.emit(self.per_row_dims(), "broadcast(%s), dimensions={}" %
                              self.scalar("-inf"))
            m = self.emit(self.per_row_dims(), "maximum(%s, %s)" % (m, floor))
        e = self.emit(dims, "exponential(%s)" % self.emit(dims, "subtract(%s, %s)" %
                                                           (x, self.spread(m))))
        total = self.reduce("add", e)
        if self.rng.random() < 0.3:
            one = self.emit(self.per_row_dims(), "broadcast(%s), dimensions={}" %
                            self.scalar("1"))
            inverse = self.emit(self.per_row_dims(), "divide(%s, %s)" % (one, total))
            return self.emit(dims, "multiply(%s, %s)" % (e, self.spread(inverse)))
        return self.emit(dims, "divide(%s, %s)" % (e, self.spread(total)))

    def per_row_value(self, depth):
        """One value per row: a reduction, or per-row ops on such values."""
        old = self.reuse(self.per_row_values)
        if old is not None:
            return old
        r = self.rng.random() if depth > 0 else 0.0
        if r < 0.6:
            op = self.rng.choice(REDUCERS)
            v = self.reduce(op, self.rows_value(depth - 1))
        elif r < 0.9:
            v = self.elementwise(self.per_row_dims(), lambda: self.per_row_value(depth - 1),
                                 r < 0.75)
        else:
            s = self.scalar(self.rng.choice(["2", "0.5", "128", "1e-05"]))
            return self.emit(self.per_row_dims(), "broadcast(%s), dimensions={}" % s)
        self.per_row_values.append(v)
        return v

    def build(self):
        self.inputs = [self.param(self.rows_dims())]
        if self.rng.random() < 0.5:
            self.inputs.append(self.param(self.rows_dims()))
        depth = self.rng.randint(2, 6)
        root = self.emit(self.rows_dims(), "%s(%s, %s)" % (self.rng.choice(BINARY),
                                                           self.rows_value(depth),
                                                           self.rows_value(depth)))
        outs = [root]
        extra = [v for v in self.row_values if v not in self.param_names]
        for v in self.rng.sample(extra, min(len(extra), self.rng.randint(0, 2))):
            outs.append(v)
        shapes = [self.shape(self.rows_dims())] * len(outs)
        regions = []
        for op in REDUCERS:
            regions.append("%s_%s {\n  a = %s[] parameter(0)\n  b = %s[] parameter(1)\n"
                           "  ROOT c = %s[] %s(a, b)\n}\n" % (op, self.t, self.t, self.t, self.t, op))
        tuple_shape = "(%s)" % ", ".join(shapes)
        if self.rng.random() < 0.3:
            # As XLA's optimized text has it: the body a kLoop fusion (with
            # several outputs, a multi-output one), the entry its caller.
            entry = [line.replace(" p", " e", 1) for line in self.params]
            regions.append("fused_computation {\n" + "\n".join(self.params + self.lines) +
                           "\n  ROOT fused_out = %s tuple(%s)\n}\n" % (tuple_shape, ", ".join(outs)))
            callers = ", ".join("e%d" % i for i in range(len(self.params)))
            return ("HloModule fusion_fuzz\n\n" + "\n".join(regions) + "\nENTRY main {\n" +
                    "\n".join(entry) + "\n  ROOT out = %s fusion(%s), kind=kLoop, "
                    "calls=fused_computation\n}\n" % (tuple_shape, callers))
        return ("HloModule fusion_fuzz\n\n" + "\n".join(regions) + "\nENTRY main {\n" +
                "\n".join(self.params + self.lines) +
                "\n  ROOT out = %s tuple(%s)\n}\n" % (tuple_shape, ", ".join(outs)))


def attention_module(rng):
    """An attention block as JAX writes it: q, k and v sliced out of one
    product, reshaped into heads and transposed, two batched dots, the
    heads transposed back and projected: what the dots read as strided
    views and write through a transpose when fused (transpose folding)."""
    t = rng.choice(["f32", "f64"])
    b, h, s, d = (rng.choice([1, 2, 3]), rng.choice([1, 2, 4]), rng.choice([1, 3, 8, 17, 64]),
                  rng.choice([2, 8, 16, 33]))
    e = rng.choice([5, 16, 40])
    hd = h * d

    def shape(dims):
        return "%s[%s]" % (t, ",".join(str(x) for x in dims))

    lines = ["  qkv = %s parameter(0)" % shape([b, s, 3 * hd]),
             "  w = %s parameter(1)" % shape([hd, e])]

    def head(name, part, perm):
        dims = [b, s, h, d]
        lines.append("  %s_s = %s slice(qkv), slice={[0:%d], [0:%d], [%d:%d]}" %
                     (name, shape([b, s, hd]), b, s, part * hd, (part + 1) * hd))
        lines.append("  %s_r = %s reshape(%s_s)" % (name, shape(dims), name))
        lines.append("  %s = %s transpose(%s_r), dimensions={%s}" %
                     (name, shape([dims[p] for p in perm]), name, ",".join(str(p) for p in perm)))

    head("q", 0, [0, 2, 1, 3])
    k_perm = rng.choice([[0, 2, 3, 1], [0, 2, 1, 3]])
    head("k", 1, k_perm)
    head("v", 2, [0, 2, 1, 3])
    lines.append("  sc = %s dot(q, k), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, "
                 "rhs_batch_dims={0,1}, rhs_contracting_dims={%d}" %
                 (shape([b, h, s, s]), 2 if k_perm[3] == 1 else 3))
    lines.append("  o = %s dot(sc, v), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, "
                 "rhs_batch_dims={0,1}, rhs_contracting_dims={2}" % shape([b, h, s, d]))
    lines.append("  ot = %s transpose(o), dimensions={0,2,1,3}" % shape([b, s, h, d]))
    lines.append("  merged = %s reshape(ot)" % shape([b, s, hd]))
    lines.append("  ROOT y = %s dot(merged, w), lhs_contracting_dims={2}, rhs_contracting_dims={0}" %
                 shape([b, s, e]))
    return "HloModule attention\n\nENTRY main {\n" + "\n".join(lines) + "\n}\n"


def run(binary, path, out_dir, args):
    os.makedirs(out_dir, exist_ok=True)
    proc = subprocess.run([binary, path, "--random-inputs", "--seed", "7", "--output-format",
                           "npy", "-o", out_dir] + args,
                          capture_output=True, text=True, timeout=60)
    files = {}
    for name in sorted(os.listdir(out_dir)):
        with open(os.path.join(out_dir, name), "rb") as f:
            files[name] = f.read()
    return proc.returncode, proc.stderr.replace(out_dir, "OUT"), files


def SameResults(a, b):
    """The same files with the same bytes, but that a NaN may stand where
    the other has a NaN of another sign or payload: where both operands of
    an op are NaNs, which one an x86 instruction returns depends on the
    operand order the compiler gave it (GCC may swap x + y), and the fused
    and unfused loops are compiled apart."""
    if a.keys() != b.keys():
        return False
    for name in a:
        if a[name] == b[name]:
            continue
        x = numpy.load(io.BytesIO(a[name]))
        y = numpy.load(io.BytesIO(b[name]))
        if x.dtype != y.dtype or x.shape != y.shape or x.dtype.kind != "f":
            return False
        bits = "u%d" % x.dtype.itemsize
        differ = x.view(bits) != y.view(bits)
        if not (numpy.isnan(x[differ]).all() and numpy.isnan(y[differ]).all()):
            return False
    return True


def check(binary, seed, case, workdir, verbose):
    """None where fused and unfused agree, else a description."""
    rng = random.Random(seed * 1000003 + case)
    text = attention_module(rng) if rng.random() < 0.15 else Module(rng).build()
    case_dir = os.path.join(workdir, "case%d" % case)
    os.makedirs(case_dir, exist_ok=True)
    path = os.path.join(case_dir, "module.hlo")
    with open(path, "w") as f:
        f.write(text)
    for flush in ([], ["--denormals=flush"]):
        fused = run(binary, path, os.path.join(case_dir, "fused" + "".join(flush)), flush)
        plain = run(binary, path, os.path.join(case_dir, "plain" + "".join(flush)),
                    flush + ["--no-fusion"])
        if fused[0] != 0 and fused == plain:
            return "case %d: hlo-run failed both ways (%s): %s" % (case, path, fused[1].strip())
        if fused[:2] != plain[:2] or not SameResults(fused[2], plain[2]):
            what = ("exit %d vs %d" % (fused[0], plain[0]) if fused[0] != plain[0] else
                    "messages" if fused[1] != plain[1] else "results")
            return "case %d%s: %s differ (%s)" % (case, " flushed" if flush else "", what, path)
    if verbose:
        print("case %d agrees" % case)
    shutil.rmtree(case_dir)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default="build/bin")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=150)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("-v", action="store_true", dest="verbose")
    opts = ap.parse_args()
    binary = os.path.join(opts.bin, "hlo-run")
    if not os.access(binary, os.X_OK):
        print("fusion_fuzz: %s is not an executable" % binary, file=sys.stderr)
        return 2
    workdir = tempfile.mkdtemp(prefix="fusion_fuzz.")
    with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        problems = [p for p in pool.map(
            lambda c: check(binary, opts.seed, c, workdir, opts.verbose), range(opts.cases)) if p]
    for p in problems:
        print(p)
    if not problems and not opts.keep:
        shutil.rmtree(workdir)
    print("fusion fuzz: %d cases, %d agree, %d differ" %
          (opts.cases, opts.cases - len(problems), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
