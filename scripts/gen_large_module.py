#!/usr/bin/python3
"""Writes a large, realistic XLA HLO module in long form, for benchmarks.

The text looks like what XLA dumps after optimization: one entry computation
of elementwise ops, broadcasts, reshapes, transposes, dots, reduces,
compares, selects, converts and constants, with loop / input / multi-output
fusions calling small fused computations and reduce regions, every value
using recent earlier ones, shapes drawn from a modest set (so they repeat),
and op metadata on part of the instructions. Shapes are consistent, and the
text is in hlo-opt's canonical print form, so parsing and printing it gives
the same bytes back.

About 110-115 bytes per instruction (1M instructions: about 115 MB). The
output is a pure function of --instructions and --seed; at least
--instructions instructions are written (the count goes to stderr).

  gen_large_module.py --instructions 1000000 -o big.hlo
"""
import argparse
import random
import sys

DIMS = [64, 128, 256, 512, 1024]
FLOAT_TYPES = ("f32", "bf16")
BINARY = ["add", "multiply", "subtract", "maximum", "divide", "minimum"]
UNARY = ["exponential", "negate", "tanh", "rsqrt", "log", "abs", "sqrt"]
DIRECTIONS = ["GT", "LT", "GE", "LE", "EQ", "NE"]
# Constants that print the same as written for f32 and bf16.
SCALARS = ["0", "1", "-1", "0.5", "2", "-0.5", "0.25", "4"]
F32_ONLY_SCALARS = ["1e-06", "0.001", "3.14159", "0.125", "-inf"]

LAYERS = ["dense", "attention", "mlp", "layer_norm", "embed", "softmax", "dropout"]
TRANSFORMS = ["", "jvp(", "transpose(jvp("]
FILES = ["/workspace/model/layers.py", "/workspace/model/train.py", "model.py"]


def shape_text(shape, layout=True):
    """f32[128,256]{1,0}; scalars have no layout."""
    ty, dims = shape
    if ty == "tuple":
        return "(" + ", ".join(shape_text(s, layout) for s in dims) + ")"
    text = "%s[%s]" % (ty, ",".join(str(d) for d in dims))
    if layout and dims:
        text += "{%s}" % ",".join(str(i) for i in range(len(dims) - 1, -1, -1))
    return text


class Body:
    """Instructions of one computation, with the recent values by shape."""

    def __init__(self, gen, meta_p):
        self.g = gen
        self.rng = gen.rng
        self.lines = []
        self.recent = []      # (name, shape), newest last
        self.by_shape = {}    # shape -> recent names, newest last
        self.meta_p = meta_p

    def emit(self, prefix, shape, op, operand_vals, attrs="", root=False,
             operand_text=None, remember=True, meta=True):
        name = "%s.%d" % (prefix, self.g.uid())
        ops = self.g.operands(operand_vals) if operand_text is None else operand_text
        md = self.g.metadata(self.meta_p) if meta else ""
        self.lines.append("  %s%%%s = %s %s(%s)%s%s\n" % (
            "ROOT " if root else "", name, self.g.st(shape), op, ops, attrs, md))
        self.g.count += 1
        if remember:
            self.remember(name, shape)
        return (name, shape)

    def remember(self, name, shape):
        self.recent.append((name, shape))
        if len(self.recent) > 64:
            del self.recent[:16]
        lst = self.by_shape.setdefault(shape, [])
        lst.append(name)
        if len(lst) > 8:
            del lst[0]

    def recent_value(self, window=12, pred=None):
        cands = self.recent[-window:]
        if pred:
            cands = [v for v in cands if pred(v[1])]
        return self.rng.choice(cands) if cands else None

    def of_shape(self, shape):
        lst = self.by_shape.get(shape)
        return (self.rng.choice(lst), shape) if lst else None

    def constant(self, ty, value=None):
        if value is None:
            pool = SCALARS + (F32_ONLY_SCALARS if ty == "f32" else [])
            value = self.rng.choice(pool)
        return self.emit("constant", (ty, ()), "constant", [], operand_text=value,
                         meta=False)


class ModuleGen:
    """Builds the module text; see generate()."""

    def __init__(self, target, seed):
        self.rng = random.Random(seed)
        self.target = target
        self.next_id = 0
        self.count = 0          # instruction lines written so far
        self.out = []           # computations before the entry, as text
        self.regions = {}       # (op, type) -> region names
        self.region_count = 0
        self.shape_text_cache = {}
        self.op_names = self._make_op_names()

    # ---- helpers -------------------------------------------------------------

    def uid(self):
        self.next_id += 1
        return self.next_id

    def st(self, shape):
        t = self.shape_text_cache.get(shape)
        if t is None:
            t = self.shape_text_cache[shape] = shape_text(shape)
        return t

    def _make_op_names(self):
        names = []
        for _ in range(60):
            layer = self.rng.choice(LAYERS)
            tr = self.rng.choice(TRANSFORMS)
            close = ")" * tr.count("(")
            op = self.rng.choice(["add", "mul", "dot_general", "reduce_sum", "exp",
                                  "broadcast_in_dim", "reshape", "select_n", "tanh",
                                  "max", "sub", "div", "convert_element_type"])
            names.append("jit(train_step)/jit(main)/%s%s/%s%s" % (tr, layer, op, close))
        return names

    def metadata(self, p):
        if self.rng.random() >= p:
            return ""
        return ', metadata={op_name="%s" source_file="%s" source_line=%d}' % (
            self.rng.choice(self.op_names), self.rng.choice(FILES),
            self.rng.randint(1, 900))

    def operands(self, vals):
        parts = []
        for i, (name, shape) in enumerate(vals):
            mark = "/*index=%d*/" % i if i and i % 5 == 0 else ""
            parts.append("%s%s %%%s" % (mark, self.st(shape), name))
        return ", ".join(parts)

    def region(self, op, ty):
        """A reduce region (scalar add or max); reuses earlier ones mostly."""
        key = (op, ty)
        names = self.regions.setdefault(key, [])
        if names and self.rng.random() < 0.8:
            return self.rng.choice(names)
        name = "region_%d.%d" % (self.region_count, self.uid())
        self.region_count += 1
        a, b, r = ("Arg_0.%d" % self.uid(), "Arg_1.%d" % self.uid(),
                   "%s.%d" % (op, self.uid()))
        self.out.append(
            "%%%s (%s: %s[], %s: %s[]) -> %s[] {\n"
            "  %%%s = %s[] parameter(0)\n"
            "  %%%s = %s[] parameter(1)\n"
            "  ROOT %%%s = %s[] %s(%s[] %%%s, %s[] %%%s)\n"
            "}\n\n" % (name, a, ty, b, ty, ty, a, ty, b, ty, r, ty, op, ty, a, ty, b))
        self.count += 3
        names.append(name)
        return name

    # ---- fusions and the entry computation ---------------------------------

    def fused(self, inputs, build):
        """Writes a fused computation built by `build(body, params)`; its last
        instruction is the root. Returns the name and the root shape."""
        comp = "fused_computation.%d" % self.uid()
        body = Body(self, meta_p=0.08)
        params = []
        for i, (_, shape) in enumerate(inputs):
            params.append(body.emit("param_%d" % i, shape, "parameter", [],
                                    operand_text=str(i), meta=False))
        build(body, params)
        # The last instruction is the root.
        body.lines[-1] = "  ROOT " + body.lines[-1][2:]
        root_shape = body.recent[-1][1]
        sig = ", ".join("%s: %s" % (n, shape_text(s, layout=False)) for n, s in params)
        self.out.append("%%%s (%s) -> %s {\n" % (comp, sig, shape_text(root_shape, False)))
        self.out.extend(body.lines)
        self.out.append("}\n\n")
        return comp, root_shape

    def elementwise_chain(self, body, vals, n):
        for _ in range(n):
            x = self.rng.choice(vals)
            if self.rng.random() < 0.35:
                op = self.rng.choice(UNARY)
                v = body.emit(op, x[1], op, [x])
            else:
                y = self.rng.choice(vals)
                op = self.rng.choice(BINARY)
                v = body.emit(op, x[1], op, [x, y])
            vals.append(v)
        return vals[-1]

    def loop_fusion(self, entry, x, multi_output):
        shape = x[1]
        ty, dims = shape
        inputs = [x]
        y = entry.of_shape(shape)
        if y and y[0] != x[0] and self.rng.random() < 0.7:
            inputs.append(y)
        vec = None
        if len(dims) == 2 and self.rng.random() < 0.5:
            vec = entry.of_shape((ty, (dims[1],)))
            if vec:
                inputs.append(vec)

        def build(body, params):
            vals = [p for p in params if p[1] == shape]
            if vec:
                vals.append(body.emit("broadcast", shape, "broadcast", [params[-1]],
                                      ", dimensions={1}"))
            if self.rng.random() < 0.4:
                c = body.constant(ty, self.rng.choice(SCALARS))
                vals.append(body.emit("broadcast", shape, "broadcast", [c],
                                      ", dimensions={}"))
            last = self.elementwise_chain(body, vals, self.rng.randint(1, 4))
            if multi_output:
                other = vals[-2] if len(vals) > 1 and vals[-2] != last else vals[0]
                tshape = ("tuple", (shape, shape))
                body.emit("tuple", tshape, "tuple", [last, other], meta=False)

        comp, root_shape = self.fused(inputs, build)
        return inputs, comp, root_shape

    def reduce_fusion(self, entry, x):
        ty, dims = x[1]
        out_shape = (ty, dims[:-1])
        op = self.rng.choice(["add", "add", "maximum"])
        region = self.region(op, ty)

        def build(body, params):
            v = params[0]
            if self.rng.random() < 0.6:
                u = self.rng.choice(["exponential", "multiply", "abs"])
                v = body.emit(u, v[1], u, [v] if u != "multiply" else [v, v])
            init = body.constant(ty, "0" if op == "add" else "-inf")
            body.emit("reduce", out_shape, "reduce", [v, init],
                      ", dimensions={%d}, to_apply=%%%s" % (len(dims) - 1, region))

        comp, root_shape = self.fused([x], build)
        return [x], comp, root_shape

    def entry_step(self, e):
        """Adds one to a few instructions to the entry computation."""
        rng = self.rng
        r = rng.random()
        x = e.recent_value(pred=lambda s: s[0] in FLOAT_TYPES and s[1])
        ty, dims = x[1]
        if r < 0.20:
            y = e.of_shape(x[1])
            op = rng.choice(BINARY)
            e.emit(op, x[1], op, [x, y])
        elif r < 0.30:
            op = rng.choice(UNARY)
            e.emit(op, x[1], op, [x])
        elif r < 0.38:
            # broadcast: vector -> matrix, scalar -> array, f32[8] -> 3-D
            vec = e.recent_value(window=32, pred=lambda s: len(s[1]) == 1 and s[0] != "pred")
            if vec and rng.random() < 0.6:
                d = vec[1][1][0]
                other = rng.choice(DIMS)
                if rng.random() < 0.5:
                    e.emit("broadcast", (vec[1][0], (other, d)), "broadcast", [vec],
                           ", dimensions={1}")
                else:
                    e.emit("broadcast", (vec[1][0], (d, other)), "broadcast", [vec],
                           ", dimensions={0}")
            elif rng.random() < 0.8:
                c = e.constant(ty if ty in FLOAT_TYPES else "f32")
                target = (c[1][0], (rng.choice(DIMS), rng.choice(DIMS)))
                e.emit("broadcast", target, "broadcast", [c], ", dimensions={}")
            else:
                vals = ", ".join(rng.choice(SCALARS) for _ in range(8))
                c = e.emit("constant", ("f32", (8,)), "constant", [],
                           operand_text="{%s}" % vals, meta=False)
                target = ("f32", (8, rng.choice(DIMS[:3]), rng.choice(DIMS)))
                e.emit("broadcast", target, "broadcast", [c], ", dimensions={0}")
        elif r < 0.42:
            # reshape within the shape set: [a,b] <-> [a/2,2b], [8a,b] <-> [8,a,b]
            if len(dims) == 3 and dims[0] == 8:
                e.emit("reshape", (ty, (8 * dims[1], dims[2])), "reshape", [x])
            elif len(dims) == 2 and dims[0] in (512, 1024) and rng.random() < 0.5:
                e.emit("reshape", (ty, (8, dims[0] // 8, dims[1])), "reshape", [x])
            elif len(dims) == 2 and dims[0] >= 128 and dims[1] <= 512:
                e.emit("reshape", (ty, (dims[0] // 2, dims[1] * 2)), "reshape", [x])
            elif len(dims) == 2 and dims[1] >= 128 and dims[0] <= 512:
                e.emit("reshape", (ty, (dims[0] * 2, dims[1] // 2)), "reshape", [x])
            else:
                e.emit("copy", x[1], "copy", [x])
        elif r < 0.45:
            if len(dims) == 2:
                e.emit("transpose", (ty, (dims[1], dims[0])), "transpose", [x],
                       ", dimensions={1,0}")
            elif len(dims) == 3:
                e.emit("transpose", (ty, (dims[0], dims[2], dims[1])), "transpose", [x],
                       ", dimensions={0,2,1}")
            else:
                e.emit("negate", x[1], "negate", [x])
        elif r < 0.50:
            # dot: [m,k] x [k,n] (or batched [8,m,k] x [8,k,n])
            if len(dims) == 2:
                k = dims[1]
                rhs = [(s, n) for s in e.by_shape if s[0] == ty and len(s[1]) == 2
                       and s[1][0] == k for n in e.by_shape[s][-1:]]
                if rhs:
                    s, n = rng.choice(rhs)
                    e.emit("dot", (ty, (dims[0], s[1][1])), "dot", [x, (n, s)],
                           ", lhs_contracting_dims={1}, rhs_contracting_dims={0}")
                else:
                    t = e.emit("transpose", (ty, (dims[1], dims[0])), "transpose", [x],
                               ", dimensions={1,0}")
                    e.emit("dot", (ty, (dims[0], dims[0])), "dot", [x, t],
                           ", lhs_contracting_dims={1}, rhs_contracting_dims={0}")
            elif len(dims) == 3:
                t = e.emit("transpose", (ty, (dims[0], dims[2], dims[1])), "transpose", [x],
                           ", dimensions={0,2,1}")
                e.emit("dot", (ty, (dims[0], dims[1], dims[1])), "dot", [x, t],
                       ", lhs_batch_dims={0}, lhs_contracting_dims={2}, "
                       "rhs_batch_dims={0}, rhs_contracting_dims={1}")
            else:
                e.emit("multiply", x[1], "multiply", [x, x])
        elif r < 0.55:
            # reduce over the last dimension (f32 only, into a region)
            if ty == "f32" and len(dims) >= 2:
                op = rng.choice(["add", "add", "maximum"])
                region = self.region(op, ty)
                init = e.constant(ty, "0" if op == "add" else "-inf")
                e.emit("reduce", (ty, dims[:-1]), "reduce", [x, init],
                       ", dimensions={%d}, to_apply=%%%s" % (len(dims) - 1, region))
            else:
                e.emit("abs", x[1], "abs", [x])
        elif r < 0.63:
            # compare + select
            y = e.of_shape(x[1])
            p = e.emit("compare", ("pred", dims), "compare", [x, y],
                       ", direction=%s" % rng.choice(DIRECTIONS))
            z = e.of_shape(x[1])
            e.emit("select", x[1], "select", [p, x, z] if rng.random() < 0.5 else [p, z, x])
        elif r < 0.66:
            e.emit("convert", ("bf16" if ty == "f32" else "f32", dims), "convert", [x])
        elif r < 0.70:
            e.constant(rng.choice(["f32", "f32", "f32", "bf16"]))
        else:
            # fusions: elementwise loop, multi-output loop (+ get-tuple-elements),
            # reduce input fusion
            f = rng.random()
            if f < 0.2 and len(dims) >= 2 and ty == "f32":
                inputs, comp, rs = self.reduce_fusion(e, x)
                e.emit("fusion", rs, "fusion", inputs, ", kind=kInput, calls=%" + comp)
            elif f < 0.4:
                inputs, comp, rs = self.loop_fusion(e, x, multi_output=True)
                t = e.emit("fusion", rs, "fusion", inputs, ", kind=kLoop, calls=%" + comp,
                           remember=False)
                for i in (0, 1):
                    e.emit("get-tuple-element", rs[1][i], "get-tuple-element", [t],
                           ", index=%d" % i, meta=False)
            else:
                inputs, comp, rs = self.loop_fusion(e, x, multi_output=False)
                e.emit("fusion", rs, "fusion", inputs, ", kind=kLoop, calls=%" + comp)

    def generate(self):
        e = Body(self, meta_p=0.2)
        params = []
        shapes = [("f32", (a, b)) for a in DIMS for b in DIMS if self.rng.random() < 0.5]
        shapes += [("f32", (d,)) for d in DIMS] + [("bf16", (256, 512)), ("f32", (8, 64, 256))]
        for i, s in enumerate(shapes):
            params.append(e.emit("Arg_%d" % i, s, "parameter", [], operand_text=str(i),
                                 meta=False))
        while self.count < self.target - 1:
            self.entry_step(e)
        outs = []
        for v in reversed(e.recent):
            if v[1][0] != "tuple" and v not in outs:
                outs.append(v)
            if len(outs) == 3:
                break
        root_shape = ("tuple", tuple(s for _, s in outs))
        root = e.emit("tuple", root_shape, "tuple", outs, root=True, meta=False)
        entry_name = "main.%d" % self.uid()
        sig = ", ".join("%s: %s" % (n, shape_text(s, False)) for n, s in params)
        layout = ""
        for i, (_, s) in enumerate(params):
            if i:
                layout += ", "
                if i % 5 == 0:
                    layout += "/*index=%d*/" % i
            layout += shape_text(s)
        header = ("HloModule jit_train_step, is_scheduled=true, "
                  "entry_computation_layout={(%s)->%s}\n\n" % (layout, shape_text(root[1])))
        return ([header] + self.out +
                ["ENTRY %%%s (%s) -> %s {\n" % (entry_name, sig, shape_text(root[1], False))] +
                e.lines + ["}\n\n"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--instructions", type=int, default=100000,
                    help="number of instructions (at least this many are written)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", "--output", default="-", help="output file, - for stdout")
    args = ap.parse_args()
    if args.instructions < 50:
        ap.error("--instructions must be at least 50")
    gen = ModuleGen(args.instructions, args.seed)
    pieces = gen.generate()
    out = sys.stdout if args.output == "-" else open(args.output, "w", encoding="utf-8")
    with out:
        out.write("".join(pieces))
    print("gen_large_module: %d instructions" % gen.count, file=sys.stderr)


if __name__ == "__main__":
    main()
