#!/usr/bin/python3
"""Writes a model-scale SPMD module: GPT-2 small partitioned Megatron-style
over P devices, as XLA's SPMD partitioner would leave it; its forward pass,
or with --train a whole training step.

Each device holds its shard of every weight (attention heads and the MLP's
hidden units split P ways, the vocabulary of the LM head too); the
column-parallel products need no communication forward, and each
row-parallel one (attention's output projection, the MLP's second product)
ends in an all-reduce over the P partitions. Layer norms, softmax (causal),
GELU and the residual adds are as GPT-2 has them. The entry takes the
embedded tokens [S, width] and every layer's weights.

Forward: it returns this device's slice of the logits, [S, vocab/P]
(vocabulary padded to 50304 as nanoGPT does). With the defaults (12
layers, S=256, P=4) a device holds about 124 MB of weights.

--train: it also takes this device's slice of the targets [S, vocab/P] (a
distribution over the vocabulary per position, one-hot for tokens) and
returns the step's loss (the mean cross-entropy, softmax over the whole
vocabulary: vocabulary-parallel, with all-reduces of each row's max and
sum) and every weight after one SGD step (--lr). The backward pass comes
from the forward pass by scripts/hlo_builder.py's differentiation: the
column-parallel products' input gradients are summed over the partitions
(Megatron's f), the row-parallel ones pass as they are (its g).

scripts/bench-mpi-memory runs these on 1, 2 and 4 MPI ranks; CTest
train_step_gradient checks a small --train module's gradient against
finite differences of its loss.

  gen_spmd_transformer.py [--partitions 4] [--layers 12] [--seq 256] [--train]
      [--lr 1e-3] [--dtype f32] [--width 768 --heads 12 --ff 3072 --vocab 50304] -o m.hlo
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hlo_builder import Builder  # noqa: E402


def layer_norm(b, x, g, beta):
    """(x - mean) * rsqrt(var + 1e-5) * g + beta over the last dimension."""
    s, d = x.dims
    inv_d = b.full(1.0 / d, (s,))
    mean = b.mul(b.rsum(x, [1]), inv_d)
    centered = b.sub(x, b.bcast(mean, (s, d), [0]))
    var = b.mul(b.rsum(b.mul(centered, centered), [1]), inv_d)
    rstd = b.rsqrt(b.add(var, b.full(1e-5, (s,))))
    normed = b.mul(centered, b.bcast(rstd, (s, d), [0]))
    return b.add(b.mul(normed, b.bcast(g, (s, d), [1])), b.bcast(beta, (s, d), [1]))


def dense(b, x, w, bias):
    y = b.dot(x, w, lc=(1,), rc=(0,))
    if bias is None:
        return y
    return b.add(y, b.bcast(bias, y.dims, [1]))


def attention(b, y, p, heads, dh):
    """Causal self-attention on this device's heads; the output
    projection's partial sums all-reduced."""
    s = y.dims[0]
    qkv = b.reshape(dense(b, b.to_parallel(y), p["wqkv"], p["bqkv"]), (s, 3, heads, dh))
    q, k, v = [b.transpose(b.reshape(b.slice(qkv, (0, i, 0, 0), (s, i + 1, heads, dh)),
                                     (s, heads, dh)), [1, 0, 2]) for i in range(3)]
    scores = b.dot(q, k, lb=(0,), lc=(2,), rb=(0,), rc=(2,))
    scores = b.mul(scores, b.full(1.0 / math.sqrt(dh), scores.dims))
    causal = b.compare(b.iota((s, s), 0), b.iota((s, s), 1), "GE")
    causal = b.pred_broadcast(causal, scores.dims, [1, 2])
    scores = b.select(causal, scores, b.full(-1e9, scores.dims))
    # The row max shifts the exponent only: no gradient flows through it.
    shifted = b.sub(scores, b.bcast(b.rmax(scores, [2]), scores.dims, [0, 1]))
    e = b.exp(shifted)
    probs = b.div(e, b.bcast(b.rsum(e, [2]), e.dims, [0, 1]))
    ctx = b.dot(probs, v, lb=(0,), lc=(2,), rb=(0,), rc=(1,))
    ctx = b.reshape(b.transpose(ctx, [1, 0, 2]), (s, heads * dh))
    return b.all_reduce(dense(b, ctx, p["wo"], None))


def gelu(b, x):
    """0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), GPT-2's."""
    def c(v):
        return b.full(v, x.dims)
    x3 = b.mul(x, b.mul(x, x))
    t = b.tanh(b.mul(c(0.7978845608028654), b.add(x, b.mul(c(0.044715), x3))))
    return b.mul(b.mul(c(0.5), x), b.add(c(1.0), t))


def cross_entropy(b, logits, targets, s):
    """The mean over positions of -sum(targets * log softmax(logits)), the
    vocabulary split over the partitions; and its gradient for the logits
    here, (softmax * row sum of targets - targets) / S."""
    m = b.all_reduce_max(b.rmax(logits, [1]))
    shifted = b.emit(logits.dims, "subtract(%s, %s)" % (
        logits.name, b.emit(logits.dims, "broadcast(%s), dimensions={0}" % m.name).name))
    e = b.emit(logits.dims, "exponential(%s)" % shifted.name)
    zero = b.emit((), "constant(0)")

    def row_sum(x):
        return b.emit((s,), "reduce(%s, %s), dimensions={1}, to_apply=add" % (x.name, zero.name))
    total = b.all_reduce(row_sum(e))
    weight = b.all_reduce(row_sum(targets))
    log_total = b.emit(logits.dims, "broadcast(%s), dimensions={0}" % b.emit(
        (s,), "log(%s)" % total.name).name)
    logp = b.emit(logits.dims, "subtract(%s, %s)" % (shifted.name, log_total.name))
    picked = b.emit(logits.dims, "multiply(%s, %s)" % (targets.name, logp.name))
    per_device = b.emit((), "reduce(%s, %s), dimensions={0,1}, to_apply=add" % (
        picked.name, zero.name))
    scale = b.emit((), "constant(%r)" % (-1.0 / s))
    loss = b.all_reduce(b.emit((), "multiply(%s, %s)" % (per_device.name, scale.name)))
    softmax = b.emit(logits.dims, "divide(%s, %s)" % (e.name, b.emit(
        logits.dims, "broadcast(%s), dimensions={0}" % total.name).name))
    weighted = b.emit(logits.dims, "multiply(%s, %s)" % (softmax.name, b.emit(
        logits.dims, "broadcast(%s), dimensions={0}" % weight.name).name))
    diff = b.emit(logits.dims, "subtract(%s, %s)" % (weighted.name, targets.name))
    grad = b.emit(logits.dims, "multiply(%s, %s)" % (diff.name, b.full(1.0 / s, logits.dims).name))
    return loss, grad


def build(a):
    p, s, width = a.partitions, a.seq, a.width
    hp, fp, vp, dh = a.heads // p, a.ff // p, a.vocab // p, width // a.heads
    b = Builder(a.dtype, p)
    x = b.param((s, width), "x")
    weights = []

    def param(dims, name):
        weights.append(b.param(dims, name))
        return weights[-1]

    for layer in range(a.layers):
        def lp(dims, name):
            return param(dims, "l%d_%s" % (layer, name))
        w = {"ln1_g": lp((width,), "ln1_g"), "ln1_b": lp((width,), "ln1_b"),
             "wqkv": lp((width, 3 * hp * dh), "wqkv"), "bqkv": lp((3 * hp * dh,), "bqkv"),
             "wo": lp((hp * dh, width), "wo"), "bo": lp((width,), "bo"),
             "ln2_g": lp((width,), "ln2_g"), "ln2_b": lp((width,), "ln2_b"),
             "w1": lp((width, fp), "w1"), "b1": lp((fp,), "b1"),
             "w2": lp((fp, width), "w2"), "b2": lp((width,), "b2")}
        y = layer_norm(b, x, w["ln1_g"], w["ln1_b"])
        attn = attention(b, y, w, hp, dh)
        x = b.add(x, b.add(attn, b.bcast(w["bo"], attn.dims, [1])))
        y = b.to_parallel(layer_norm(b, x, w["ln2_g"], w["ln2_b"]))
        h = gelu(b, dense(b, y, w["w1"], w["b1"]))
        out = b.all_reduce(dense(b, h, w["w2"], None))
        x = b.add(x, b.add(out, b.bcast(w["b2"], out.dims, [1])))
    y = layer_norm(b, x, param((width,), "lnf_g"), param((width,), "lnf_b"))
    logits = dense(b, b.to_parallel(y), param((width, vp), "wlm"), None)
    if not a.train:
        b.lines[-1] = b.lines[-1].replace("  " + logits.name, "  ROOT " + logits.name, 1)
        return b.module("gpt2_small_tp%d" % p, p)
    targets = b.param((s, vp), "targets")
    loss, dlogits = cross_entropy(b, logits, targets, s)
    grads = b.grads({logits: dlogits}, weights)
    lr = a.lr
    updated = [b.emit(w.dims, "subtract(%s, %s)" % (w.name, b.emit(
        w.dims, "multiply(%s, %s)" % (g.name, b.full(lr, w.dims).name)).name))
        for w, g in zip(weights, grads)]
    b.root_tuple([loss] + updated)
    return b.module("gpt2_small_train_tp%d" % p, p)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--partitions", type=int, default=4)
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--train", action="store_true")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--dtype", default="f32", choices=("f32", "f64"))
    ap.add_argument("--width", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--ff", type=int, default=3072)
    ap.add_argument("--vocab", type=int, default=50304)
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args()
    if a.partitions < 1 or a.heads % a.partitions or a.ff % a.partitions or \
            a.vocab % a.partitions or a.width % a.heads:
        sys.exit("gen_spmd_transformer: --partitions must divide --heads, --ff and --vocab, "
                 "and --heads --width")
    text = build(a)
    out = sys.stdout if a.output == "-" else open(a.output, "w")
    out.write(text)
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()
