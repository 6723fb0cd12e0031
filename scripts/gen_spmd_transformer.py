#!/usr/bin/python3
"""Writes a model-scale SPMD module: GPT-2 small's forward pass, partitioned
Megatron-style over P devices, as XLA's SPMD partitioner would leave it.

Each device holds its shard of every weight (attention heads and the MLP's
hidden units split P ways, the vocabulary of the LM head too); the
column-parallel products need no communication, and each row-parallel one
(attention's output projection, the MLP's second product) ends in an
all-reduce over the P partitions. Layer norms, softmax (causal), GELU and
the residual adds are as GPT-2 has them. The entry takes the embedded
tokens [S, 768] and every layer's weights; it returns this device's slice
of the logits, [S, vocab/P] (vocabulary padded to 50304 as nanoGPT does).

With the defaults (12 layers, S=256, P=4) a device holds about 124 MB of
weights: the memory check of scripts/bench-mpi-memory runs it on 1, 2
and 4 MPI ranks.

  gen_spmd_transformer.py [--partitions 4] [--layers 12] [--seq 256] -o m.hlo
"""
import argparse
import sys

D, HEADS, FF, VOCAB = 768, 12, 3072, 50304


class Writer:
    def __init__(self):
        self.lines = []
        self.n = 0

    def op(self, shape, text, name=None):
        self.n += 1
        name = name or "v%d" % self.n
        self.lines.append("  %s = %s %s" % (name, shape, text))
        return name


def f32(*dims):
    return "f32[%s]" % ",".join(str(d) for d in dims)


def layer_norm(w, x, g, b, s):
    """(x - mean) * rsqrt(var + 1e-5) * g + b over the last dimension."""
    zero = w.op("f32[]", "constant(0)")
    inv_d = w.op(f32(s), "broadcast(%s), dimensions={}" % w.op("f32[]", "constant(%r)" % (1.0 / D)))
    mean = w.op(f32(s), "multiply(%s, %s)" % (
        w.op(f32(s), "reduce(%s, %s), dimensions={1}, to_apply=add" % (x, zero)), inv_d))
    centered = w.op(f32(s, D), "subtract(%s, %s)" % (
        x, w.op(f32(s, D), "broadcast(%s), dimensions={0}" % mean)))
    var = w.op(f32(s), "multiply(%s, %s)" % (
        w.op(f32(s), "reduce(%s, %s), dimensions={1}, to_apply=add" % (
            w.op(f32(s, D), "multiply(%s, %s)" % (centered, centered)), zero)), inv_d))
    eps = w.op(f32(s), "broadcast(%s), dimensions={}" % w.op("f32[]", "constant(1e-05)"))
    rstd = w.op(f32(s), "rsqrt(%s)" % w.op(f32(s), "add(%s, %s)" % (var, eps)))
    normed = w.op(f32(s, D), "multiply(%s, %s)" % (
        centered, w.op(f32(s, D), "broadcast(%s), dimensions={0}" % rstd)))
    scaled = w.op(f32(s, D), "multiply(%s, %s)" % (
        normed, w.op(f32(s, D), "broadcast(%s), dimensions={1}" % g)))
    return w.op(f32(s, D), "add(%s, %s)" % (
        scaled, w.op(f32(s, D), "broadcast(%s), dimensions={1}" % b)))


def dense(w, x, wt, b, s, n):
    y = w.op(f32(s, n), "dot(%s, %s), lhs_contracting_dims={1}, rhs_contracting_dims={0}" % (x, wt))
    if b is None:
        return y
    return w.op(f32(s, n), "add(%s, %s)" % (y, w.op(f32(s, n), "broadcast(%s), dimensions={1}" % b)))


def all_reduce(w, x, shape, p, channel):
    groups = "{{%s}}" % ",".join(str(i) for i in range(p))
    return w.op(shape, "all-reduce(%s), channel_id=%d, replica_groups=%s, "
                "use_global_device_ids=true, to_apply=add" % (x, channel, groups))


def attention(w, y, p_, s, hp, channel):
    """Causal self-attention on this device's hp heads; the output
    projection's partial sums all-reduced."""
    dh = D // HEADS
    qkv = dense(w, y, p_["wqkv"], p_["bqkv"], s, 3 * hp * dh)
    qkv4 = w.op(f32(s, 3, hp, dh), "reshape(%s)" % qkv)
    heads = []
    for i in range(3):
        part = w.op(f32(s, 1, hp, dh), "slice(%s), slice={[0:%d], [%d:%d], [0:%d], [0:%d]}" % (
            qkv4, s, i, i + 1, hp, dh))
        part = w.op(f32(s, hp, dh), "reshape(%s)" % part)
        heads.append(w.op(f32(hp, s, dh), "transpose(%s), dimensions={1,0,2}" % part))
    q, k, v = heads
    scores = w.op(f32(hp, s, s), "dot(%s, %s), lhs_batch_dims={0}, lhs_contracting_dims={2}, "
                  "rhs_batch_dims={0}, rhs_contracting_dims={2}" % (q, k))
    scale = w.op(f32(hp, s, s), "broadcast(%s), dimensions={}" % w.op(
        "f32[]", "constant(%r)" % (1.0 / dh ** 0.5)))
    scores = w.op(f32(hp, s, s), "multiply(%s, %s)" % (scores, scale))
    rows = w.op("s32[%d,%d]" % (s, s), "iota(), iota_dimension=0")
    cols = w.op("s32[%d,%d]" % (s, s), "iota(), iota_dimension=1")
    causal = w.op("pred[%d,%d]" % (s, s), "compare(%s, %s), direction=GE" % (rows, cols))
    causal = w.op("pred[%d,%d,%d]" % (hp, s, s), "broadcast(%s), dimensions={1,2}" % causal)
    masked = w.op(f32(hp, s, s), "broadcast(%s), dimensions={}" % w.op("f32[]", "constant(-1e+09)"))
    scores = w.op(f32(hp, s, s), "select(%s, %s, %s)" % (causal, scores, masked))
    ninf = w.op("f32[]", "constant(-inf)")
    zero = w.op("f32[]", "constant(0)")
    rmax = w.op(f32(hp, s), "reduce(%s, %s), dimensions={2}, to_apply=max" % (scores, ninf))
    e = w.op(f32(hp, s, s), "exponential(%s)" % w.op(f32(hp, s, s), "subtract(%s, %s)" % (
        scores, w.op(f32(hp, s, s), "broadcast(%s), dimensions={0,1}" % rmax))))
    rsum = w.op(f32(hp, s), "reduce(%s, %s), dimensions={2}, to_apply=add" % (e, zero))
    probs = w.op(f32(hp, s, s), "divide(%s, %s)" % (
        e, w.op(f32(hp, s, s), "broadcast(%s), dimensions={0,1}" % rsum)))
    ctx = w.op(f32(hp, s, dh), "dot(%s, %s), lhs_batch_dims={0}, lhs_contracting_dims={2}, "
               "rhs_batch_dims={0}, rhs_contracting_dims={1}" % (probs, v))
    ctx = w.op(f32(s, hp, dh), "transpose(%s), dimensions={1,0,2}" % ctx)
    ctx = w.op(f32(s, hp * dh), "reshape(%s)" % ctx)
    partial = dense(w, ctx, p_["wo"], None, s, D)
    return all_reduce(w, partial, f32(s, D), p_["p"], channel)


def gelu(w, x, shape):
    """0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), GPT-2's."""
    def c(v):
        return w.op(shape, "broadcast(%s), dimensions={}" % w.op("f32[]", "constant(%r)" % v))
    x3 = w.op(shape, "multiply(%s, %s)" % (x, w.op(shape, "multiply(%s, %s)" % (x, x))))
    inner = w.op(shape, "add(%s, %s)" % (x, w.op(shape, "multiply(%s, %s)" % (c(0.044715), x3))))
    t = w.op(shape, "tanh(%s)" % w.op(shape, "multiply(%s, %s)" % (c(0.7978845608028654), inner)))
    return w.op(shape, "multiply(%s, %s)" % (
        w.op(shape, "multiply(%s, %s)" % (c(0.5), x)), w.op(shape, "add(%s, %s)" % (c(1.0), t))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--partitions", type=int, default=4)
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args()
    p, s = a.partitions, a.seq
    if p < 1 or HEADS % p or FF % p or VOCAB % p:
        sys.exit("gen_spmd_transformer: --partitions must divide 12 heads, 3072 and 50304")
    hp, fp, vp = HEADS // p, FF // p, VOCAB // p
    w = Writer()
    params = []

    def param(shape, name):
        params.append(w.op(shape, "parameter(%d)" % len(params), name))
        return params[-1]

    x = param(f32(s, D), "x")
    channel = 1
    for layer in range(a.layers):
        def lp(shape, name):
            return param(shape, "l%d_%s" % (layer, name))
        weights = {
            "ln1_g": lp(f32(D), "ln1_g"), "ln1_b": lp(f32(D), "ln1_b"),
            "wqkv": lp(f32(D, 3 * hp * (D // HEADS)), "wqkv"),
            "bqkv": lp(f32(3 * hp * (D // HEADS)), "bqkv"),
            "wo": lp(f32(hp * (D // HEADS), D), "wo"), "bo": lp(f32(D), "bo"),
            "ln2_g": lp(f32(D), "ln2_g"), "ln2_b": lp(f32(D), "ln2_b"),
            "w1": lp(f32(D, fp), "w1"), "b1": lp(f32(fp), "b1"),
            "w2": lp(f32(fp, D), "w2"), "b2": lp(f32(D), "b2"), "p": p,
        }
        y = layer_norm(w, x, weights["ln1_g"], weights["ln1_b"], s)
        attn = attention(w, y, weights, s, hp, channel)
        channel += 1
        attn = w.op(f32(s, D), "add(%s, %s)" % (
            attn, w.op(f32(s, D), "broadcast(%s), dimensions={1}" % weights["bo"])))
        x = w.op(f32(s, D), "add(%s, %s)" % (x, attn))
        y = layer_norm(w, x, weights["ln2_g"], weights["ln2_b"], s)
        h = gelu(w, dense(w, y, weights["w1"], weights["b1"], s, fp), f32(s, fp))
        out = all_reduce(w, dense(w, h, weights["w2"], None, s, D), f32(s, D), p, channel)
        channel += 1
        out = w.op(f32(s, D), "add(%s, %s)" % (
            out, w.op(f32(s, D), "broadcast(%s), dimensions={1}" % weights["b2"])))
        x = w.op(f32(s, D), "add(%s, %s)" % (x, out))
    y = layer_norm(w, x, param(f32(D), "lnf_g"), param(f32(D), "lnf_b"), s)
    logits = dense(w, y, param(f32(D, vp), "wlm"), None, s, vp)
    w.lines[-1] = w.lines[-1].replace("  " + logits, "  ROOT " + logits, 1)
    text = ["HloModule gpt2_small_tp%d, num_partitions=%d" % (p, p), ""]
    for name, op in (("add", "add"), ("max", "maximum")):
        text += ["%s {" % name, "  a = f32[] parameter(0)", "  b = f32[] parameter(1)",
                 "  ROOT r = f32[] %s(a, b)" % op, "}", ""]
    text += ["ENTRY main {"] + w.lines + ["}", ""]
    out = sys.stdout if a.output == "-" else open(a.output, "w")
    out.write("\n".join(text))
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()
