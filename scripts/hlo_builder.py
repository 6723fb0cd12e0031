"""Builds HLO text op by op, with reverse-mode differentiation: each op
records how its operands' gradients follow from its result's (its vector-
Jacobian product, written as more ops), so a script can write a model's
forward pass once and get its backward pass from it. For the model-scale
modules of scripts/gen_spmd_transformer.py (a forward pass, or a whole
training step), not a general autodiff: the ops are those a transformer
needs, on arrays of one float type.

SPMD modules partitioned Megatron-style use the two conjugate operators of
Megatron-LM: `all_reduce` (a sum over the partitions forward, the identity
backward) and `to_parallel` (the identity forward, a sum over the
partitions backward: every partition reads the replicated value).
"""


class Val:
    """A value of the module: its HLO name and shape (dims, element type)."""

    def __init__(self, name, dims, dtype):
        self.name, self.dims, self.dtype = name, tuple(dims), dtype

    @property
    def shape(self):
        return "%s[%s]" % (self.dtype, ",".join(str(d) for d in self.dims))


class Builder:
    def __init__(self, dtype="f32", partitions=1):
        self.dtype, self.partitions = dtype, partitions
        self.lines, self.n, self.channel = [], 0, 0
        self.tape = []  # (result, vjp): vjp(grad) -> [(operand, grad), ...]
        self.params = []

    # ---- plain ops (no gradient) ------------------------------------------------

    def emit(self, dims, text, dtype=None, name=None):
        self.n += 1
        v = Val(name or "v%d" % self.n, dims, dtype or self.dtype)
        self.lines.append("  %s = %s %s" % (v.name, v.shape, text))
        return v

    def param(self, dims, name, dtype=None):
        v = self.emit(dims, "parameter(%d)" % len(self.params), dtype, name)
        self.params.append(v)
        return v

    def full(self, value, dims):
        c = self.emit((), "constant(%r)" % float(value))
        return c if not dims else self.emit(dims, "broadcast(%s), dimensions={}" % c.name)

    def iota(self, dims, dim):
        return self.emit(dims, "iota(), iota_dimension=%d" % dim, "s32")

    def compare(self, a, b, direction):
        return self.emit(a.dims, "compare(%s, %s), direction=%s" % (a.name, b.name, direction),
                         "pred")

    def pred_broadcast(self, m, dims, keep):
        return self.emit(dims, "broadcast(%s), dimensions={%s}" % (m.name, _ints(keep)), "pred")

    def rmax(self, x, dims):
        """Max over `dims`; no gradient flows through it (softmax's shift)."""
        out = tuple(d for i, d in enumerate(x.dims) if i not in dims)
        ninf = self.emit((), "constant(-inf)")
        return self.emit(out, "reduce(%s, %s), dimensions={%s}, to_apply=max" % (
            x.name, ninf.name, _ints(dims)))

    def all_reduce_max(self, x):
        return self._all_reduce(x, "max")

    def root_tuple(self, vals):
        self.n += 1
        name = "v%d" % self.n
        shape = "(%s)" % ", ".join(v.shape for v in vals)
        self.lines.append("  ROOT %s = %s tuple(%s)" % (
            name, shape, ", ".join(v.name for v in vals)))
        return name

    def _all_reduce(self, x, reducer):
        if self.partitions == 1:
            return x
        self.channel += 1
        groups = "{{%s}}" % ",".join(str(i) for i in range(self.partitions))
        return self.emit(x.dims, "all-reduce(%s), channel_id=%d, replica_groups=%s, "
                         "use_global_device_ids=true, to_apply=%s" % (
                             x.name, self.channel, groups, reducer))

    # ---- differentiable ops -----------------------------------------------------

    def _record(self, out, vjp):
        self.tape.append((out, vjp))
        return out

    def _binary(self, op, a, b):
        assert a.dims == b.dims, (op, a.dims, b.dims)
        return self.emit(a.dims, "%s(%s, %s)" % (op, a.name, b.name))

    def add(self, a, b):
        return self._record(self._binary("add", a, b), lambda g: [(a, g), (b, g)])

    def sub(self, a, b):
        return self._record(self._binary("subtract", a, b),
                            lambda g: [(a, g), (b, self.neg(g))])

    def mul(self, a, b):
        return self._record(self._binary("multiply", a, b),
                            lambda g: [(a, self.mul(g, b)), (b, self.mul(g, a))])

    def div(self, a, b):
        out = self._binary("divide", a, b)
        return self._record(out, lambda g: [
            (a, self.div(g, b)), (b, self.neg(self.div(self.mul(g, out), b)))])

    def neg(self, x):
        return self._record(self.emit(x.dims, "negate(%s)" % x.name),
                            lambda g: [(x, self.neg(g))])

    def exp(self, x):
        out = self.emit(x.dims, "exponential(%s)" % x.name)
        return self._record(out, lambda g: [(x, self.mul(g, out))])

    def log(self, x):
        return self._record(self.emit(x.dims, "log(%s)" % x.name),
                            lambda g: [(x, self.div(g, x))])

    def tanh(self, x):
        out = self.emit(x.dims, "tanh(%s)" % x.name)
        return self._record(out, lambda g: [(x, self.mul(g, self.sub(
            self.full(1.0, x.dims), self.mul(out, out))))])

    def rsqrt(self, x):
        out = self.emit(x.dims, "rsqrt(%s)" % x.name)
        # d/dx x^(-1/2) = -x^(-3/2) / 2
        return self._record(out, lambda g: [(x, self.mul(g, self.mul(
            self.full(-0.5, x.dims), self.mul(out, self.mul(out, out)))))])

    def bcast(self, x, dims, keep):
        """Operand dim i becomes output dim keep[i] (increasing)."""
        assert list(keep) == sorted(keep)
        out = self.emit(dims, "broadcast(%s), dimensions={%s}" % (x.name, _ints(keep)))
        gone = [i for i in range(len(dims)) if i not in keep]
        return self._record(out, lambda g: [(x, self.rsum(g, gone) if gone else g)])

    def rsum(self, x, dims):
        keep = [i for i in range(len(x.dims)) if i not in dims]
        zero = self.emit((), "constant(0)")
        out = self.emit(tuple(x.dims[i] for i in keep),
                        "reduce(%s, %s), dimensions={%s}, to_apply=add" % (
                            x.name, zero.name, _ints(dims)))
        return self._record(out, lambda g: [(x, self.bcast(g, x.dims, keep))])

    def reshape(self, x, dims):
        out = self.emit(dims, "reshape(%s)" % x.name)
        return self._record(out, lambda g: [(x, self.reshape(g, x.dims))])

    def transpose(self, x, perm):
        """Output dim i is operand dim perm[i]."""
        out = self.emit(tuple(x.dims[p] for p in perm),
                        "transpose(%s), dimensions={%s}" % (x.name, _ints(perm)))
        inverse = [perm.index(i) for i in range(len(perm))]
        return self._record(out, lambda g: [(x, self.transpose(g, inverse))])

    def slice(self, x, starts, limits):
        dims = tuple(hi - lo for lo, hi in zip(starts, limits))
        out = self.emit(dims, "slice(%s), slice={%s}" % (
            x.name, ", ".join("[%d:%d]" % r for r in zip(starts, limits))))

        def vjp(g):
            zero = self.emit((), "constant(0)")
            pad = "x".join("%d_%d" % (lo, n - hi) for lo, hi, n in zip(starts, limits, x.dims))
            return [(x, self.emit(x.dims, "pad(%s, %s), padding=%s" % (g.name, zero.name, pad)))]
        return self._record(out, vjp)

    def select(self, mask, a, b):
        out = self.emit(a.dims, "select(%s, %s, %s)" % (mask.name, a.name, b.name))

        def vjp(g):
            zero = self.full(0.0, a.dims)
            return [(a, self.emit(a.dims, "select(%s, %s, %s)" % (mask.name, g.name, zero.name))),
                    (b, self.emit(a.dims, "select(%s, %s, %s)" % (mask.name, zero.name, g.name)))]
        return self._record(out, vjp)

    def dot(self, a, b, lb=(), lc=(), rb=(), rc=()):
        """dot_general: result dims are the batch dims, then a's free dims,
        then b's, each in dim order."""
        out = self.emit(_dot_dims(a, b, lb, lc, rb, rc), _dot_text(a, b, lb, lc, rb, rc))

        def vjp(g):
            nb = len(lb)
            la = [i for i in range(len(a.dims)) if i not in lb and i not in lc]
            ra = [i for i in range(len(b.dims)) if i not in rb and i not in rc]
            gb = list(range(nb))
            gl = list(range(nb, nb + len(la)))
            gr = list(range(nb + len(la), nb + len(la) + len(ra)))
            # d a = g . b over b's free dims: [batch, a free, b's contracted]
            da = self.dot(g, b, gb, gr, list(rb), ra)
            pos = {}
            for i, d in enumerate(lb):
                pos[d] = i
            for j, d in enumerate(la):
                pos[d] = nb + j
            for t, d in enumerate(sorted(rc)):
                pos[lc[list(rc).index(d)]] = nb + len(la) + t
            da = self._permuted(da, [pos[d] for d in range(len(a.dims))])
            # d b = a . g over a's free dims: [batch, a's contracted, b free]
            db = self.dot(a, g, list(lb), la, gb, gl)
            pos = {}
            for i, d in enumerate(rb):
                pos[d] = i
            for t, d in enumerate(sorted(lc)):
                pos[rc[list(lc).index(d)]] = nb + t
            for j, d in enumerate(ra):
                pos[d] = nb + len(lc) + j
            db = self._permuted(db, [pos[d] for d in range(len(b.dims))])
            return [(a, da), (b, db)]
        return self._record(out, vjp)

    def _permuted(self, x, perm):
        return x if perm == list(range(len(perm))) else self.transpose(x, perm)

    def all_reduce(self, x):
        """Megatron's g: sum over the partitions; the gradient passes as is."""
        out = self._all_reduce(x, "add")
        return out if out is x else self._record(out, lambda g: [(x, g)])

    def to_parallel(self, x):
        """Megatron's f: the value as is; the gradient summed over the
        partitions (each partition's part of it comes from its shards)."""
        if self.partitions == 1:
            return x
        out = Val(x.name, x.dims, x.dtype)
        return self._record(out, lambda g: [(x, self._all_reduce(g, "add"))])

    # ---- the backward pass ------------------------------------------------------

    def grads(self, seeds, wanted):
        """Gradients of `wanted` values, given the gradients `seeds` (a dict
        from value to gradient) of the forward pass's results."""
        acc = {id(v): (v, g) for v, g in seeds.items()}
        forward = list(self.tape)
        for out, vjp in reversed(forward):
            if id(out) not in acc:
                continue
            _, g = acc.pop(id(out))
            for operand, part in vjp(g):
                if id(operand) in acc:
                    part = self.add(acc[id(operand)][1], part)
                acc[id(operand)] = (operand, part)
        return [acc[id(w)][1] if id(w) in acc else self.full(0.0, w.dims) for w in wanted]

    def module(self, name, num_partitions=1):
        head = "HloModule %s" % name
        if num_partitions > 1:
            head += ", num_partitions=%d" % num_partitions
        text = [head, ""]
        for reducer, op in (("add", "add"), ("max", "maximum")):
            text += ["%s {" % reducer, "  a = %s[] parameter(0)" % self.dtype,
                     "  b = %s[] parameter(1)" % self.dtype,
                     "  ROOT r = %s[] %s(a, b)" % (self.dtype, op), "}", ""]
        return "\n".join(text + ["ENTRY main {"] + self.lines + ["}", ""])


def _ints(xs):
    return ",".join(str(x) for x in xs)


def _dot_dims(a, b, lb, lc, rb, rc):
    free_a = [d for i, d in enumerate(a.dims) if i not in lb and i not in lc]
    free_b = [d for i, d in enumerate(b.dims) if i not in rb and i not in rc]
    return tuple([a.dims[i] for i in lb] + free_a + free_b)


def _dot_text(a, b, lb, lc, rb, rc):
    attrs = []
    if lb:
        attrs.append("lhs_batch_dims={%s}" % _ints(lb))
    attrs.append("lhs_contracting_dims={%s}" % _ints(lc))
    if rb:
        attrs.append("rhs_batch_dims={%s}" % _ints(rb))
    attrs.append("rhs_contracting_dims={%s}" % _ints(rc))
    return "dot(%s, %s), %s" % (a.name, b.name, ", ".join(attrs))
