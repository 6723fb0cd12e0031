#!/usr/bin/python3
"""CTest train_step_gradient: the training step scripts/gen_spmd_transformer.py
writes (--train) is the gradient of its own loss, and its partitioning
changes nothing.

A small GPT-2-shaped model in f64 (2 layers, width 16, 2 heads, 8
positions, vocabulary 24), weights drawn here with numpy:
  1. on one device, for each weight tensor in turn, the step's gradient
     (the weight less the updated weight, at learning rate 1) along a
     random direction against the central difference of the step's loss
     along it: relative error under 1e-6;
  2. on 2 partitions (each device given its shards of the same weights,
     Megatron-style), the loss and every updated weight, put back
     together, equal one device's to 1e-12.
hlo-run computes every value; numpy only draws, shards and compares.

  scripts/check_train_step.py --bin build/bin
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
LAYERS, SEQ, WIDTH, HEADS, FF, VOCAB = 2, 8, 16, 2, 32, 24
DH = WIDTH // HEADS


def generate(path, partitions):
    subprocess.run([sys.executable, os.path.join(HERE, "gen_spmd_transformer.py"),
                    "--partitions", str(partitions), "--layers", str(LAYERS),
                    "--seq", str(SEQ), "--width", str(WIDTH), "--heads", str(HEADS),
                    "--ff", str(FF), "--vocab", str(VOCAB), "--train", "--lr", "1",
                    "--dtype", "f64", "-o", path], check=True)


def weight_specs():
    """(name, full shape, how it is split: None, or (axis, view)) in
    parameter order after x; view reshapes the axis to split its heads."""
    specs = []
    for layer in range(LAYERS):
        specs += [("l%d_ln1_g" % layer, (WIDTH,), None), ("l%d_ln1_b" % layer, (WIDTH,), None),
                  ("l%d_wqkv" % layer, (WIDTH, 3 * WIDTH), ("qkv", 1)),
                  ("l%d_bqkv" % layer, (3 * WIDTH,), ("qkv", 0)),
                  ("l%d_wo" % layer, (WIDTH, WIDTH), ("rows", 0)),
                  ("l%d_bo" % layer, (WIDTH,), None),
                  ("l%d_ln2_g" % layer, (WIDTH,), None), ("l%d_ln2_b" % layer, (WIDTH,), None),
                  ("l%d_w1" % layer, (WIDTH, FF), ("rows", 1)), ("l%d_b1" % layer, (FF,), ("rows", 0)),
                  ("l%d_w2" % layer, (FF, WIDTH), ("rows", 0)), ("l%d_b2" % layer, (WIDTH,), None)]
    specs += [("lnf_g", (WIDTH,), None), ("lnf_b", (WIDTH,), None),
              ("wlm", (WIDTH, VOCAB), ("rows", 1))]
    return specs


def shard(a, split, p, parts):
    if split is None:
        return a
    kind, axis = split
    if kind == "rows":  # contiguous blocks along the axis
        n = a.shape[axis] // parts
        return np.take(a, range(p * n, (p + 1) * n), axis=axis)
    # q, k and v each split by heads: the axis is [3, heads, dh]
    shape = a.shape[:axis] + (3, HEADS, DH) + a.shape[axis + 1:]
    hp = HEADS // parts
    part = np.take(a.reshape(shape), range(p * hp, (p + 1) * hp), axis=axis + 1)
    return part.reshape(a.shape[:axis] + (3 * hp * DH,) + a.shape[axis + 1:])


def unshard(parts, split):
    if split is None:
        return parts[0]
    kind, axis = split
    if kind == "rows":
        return np.concatenate(parts, axis=axis)
    shape = lambda a: a.shape[:axis] + (3, -1, DH) + a.shape[axis + 1:]  # noqa: E731
    whole = np.concatenate([a.reshape(shape(a)) for a in parts], axis=axis + 1)
    return whole.reshape(parts[0].shape[:axis] + (3 * WIDTH,) + parts[0].shape[axis + 1:])


def run(hlo_run, module, inputs_per_device, tmp, partitions):
    """Loss and updated weights of each device, given per-device inputs."""
    args = []
    for d, inputs in enumerate(inputs_per_device):
        for i, a in enumerate(inputs):
            path = os.path.join(tmp, "in_%d_%d.npy" % (d, i))
            np.save(path, a)
            args += ["--input", path]
    out = os.path.join(tmp, "out")
    subprocess.run(["rm", "-rf", out], check=True)
    p = subprocess.run([hlo_run, module, "--output-format=npy", "-o", out] + args,
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("train_step_gradient: hlo-run failed: " + p.stderr[-2000:])
    n = 1 + len(inputs_per_device[0]) - 2  # the loss, then each weight
    dirs = [out] if partitions == 1 else [
        os.path.join(out, "replica_0_partition_%d" % d) for d in range(partitions)]
    return [[np.load(os.path.join(d, "result_%d.npy" % i)) for i in range(n)] for d in dirs]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    a = ap.parse_args()
    hlo_run = os.path.join(a.bin, "hlo-run")
    rng = np.random.default_rng(7)
    specs = weight_specs()
    x = rng.normal(size=(SEQ, WIDTH))
    weights = []
    for name, shape, _ in specs:
        if name.endswith("_g"):
            weights.append(1 + 0.1 * rng.normal(size=shape))
        else:
            weights.append(rng.normal(size=shape) * (0.5 / np.sqrt(shape[0])))
    targets = np.eye(VOCAB)[rng.integers(0, VOCAB, size=SEQ)]
    problems = []
    with tempfile.TemporaryDirectory(prefix="hlo-train-step.") as tmp:
        one, two = os.path.join(tmp, "p1.hlo"), os.path.join(tmp, "p2.hlo")
        generate(one, 1)
        generate(two, 2)

        def loss_and_step(ws):
            return run(hlo_run, one, [[x] + ws + [targets]], tmp, 1)[0]

        base = loss_and_step(weights)
        loss = float(base[0])
        grads = [w - u for w, u in zip(weights, base[1:])]  # learning rate 1
        worst = 0.0
        for k, (name, shape, _) in enumerate(specs):
            u = rng.normal(size=shape)
            eps = 1e-5
            plus = [w + eps * u if i == k else w for i, w in enumerate(weights)]
            minus = [w - eps * u if i == k else w for i, w in enumerate(weights)]
            numeric = (float(loss_and_step(plus)[0]) - float(loss_and_step(minus)[0])) / (2 * eps)
            analytic = float(np.sum(grads[k] * u))
            err = abs(numeric - analytic) / max(abs(numeric), 1e-8)
            worst = max(worst, err)
            if err > 1e-6:
                problems.append("%s: gradient along a direction %.12g, finite difference %.12g"
                                % (name, analytic, numeric))
        print("train_step_gradient: loss %.6f; %d weight tensors, worst relative error of the "
              "gradient against finite differences %.2e" % (loss, len(specs), worst))
        # The same step on 2 partitions.
        per_device = [[x] + [shard(w, split, p, 2) for w, (_, _, split) in zip(weights, specs)]
                      + [shard(targets, ("rows", 1), p, 2)] for p in range(2)]
        outs = run(hlo_run, two, per_device, tmp, 2)
        for d in range(2):
            if abs(float(outs[d][0]) - loss) > 1e-12 * max(1.0, abs(loss)):
                problems.append("partition %d's loss %.15g, one device's %.15g"
                                % (d, float(outs[d][0]), loss))
        diff = 0.0
        for k, (name, _, split) in enumerate(specs):
            whole = unshard([outs[0][k + 1], outs[1][k + 1]], split)
            diff = max(diff, float(np.max(np.abs(whole - base[k + 1]))))
            if split is None and not np.array_equal(outs[0][k + 1], outs[1][k + 1]):
                problems.append("%s: the partitions' copies differ" % name)
        if diff > 1e-12:
            problems.append("2 partitions' updated weights differ from one device's by %.3g" % diff)
        print("train_step_gradient: 2 partitions: loss and updated weights within %.2e of one "
              "device's" % diff)
    for p in problems:
        print("train_step_gradient: FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
