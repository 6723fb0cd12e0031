#!/usr/bin/env python3
"""Differential test: hlo-run against numpy on random modules.

  /usr/bin/python3 scripts/differential.py [--bin build/bin] [--seed N]
      [--cases N] [--jobs N] [--keep] [--filter REGEX] [-v]

Draws random cases (deterministic for a seed): elementwise unary and binary
ops over f32/f64/s32/u8/pred, compare in every direction, select, clamp,
convert, broadcast, transpose, slice with strides, pad (negative and interior
padding), concatenate, reverse, reduce (add/max/min/multiply over random
dimension sets), reduce-window (random windows, strides, padding, base and
window dilations), dot (random batch/contracting/free dims at random
positions, f32/f64/s32/u8/pred) and convolution (1-3 spatial dims, random
windows, strides, paddings (negative too), lhs/rhs dilations, reversal,
dim_labels permutations, feature and batch group counts; and 2-D 3x3 stride-1
ones with 4-20 features, hlo-run's Winograd path). Shapes have rank 0..4 with small sizes, 0 and 1 included.
Each case is one module with its inputs as .npy files in a temporary
directory; hlo-run evaluates it with --output-format=json and the result is
compared with numpy's: integers and pred exactly, floats exactly where IEEE
fixes the result (arithmetic, sqrt, rounding) and with a tolerance for the
transcendental functions and for reductions whose order may differ. NaN
matches NaN (any sign); -0 matches +0 only where a tolerance applies.

Integer semantics follow XLA: x / 0 = -1, x % 0 = x, INT_MIN / -1 = INT_MIN,
shift amounts at or past the width give 0 (or the sign for arithmetic shifts);
float -> integer converts saturate with NaN -> 0.

Prints one line per failure (with the kept module's path) and ends with
`differential: N passed, N failed`; exit status 1 on any failure. --keep keeps
the temporary directory (it is always kept when a case fails).
"""
import argparse
import concurrent.futures
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
np.seterr(all="ignore")

DTYPES = {"f32": np.float32, "f64": np.float64, "s32": np.int32, "u8": np.uint8, "pred": np.bool_}
FLOATS = ("f32", "f64")
INTS = ("s32", "u8")


# ============================================================================
# Random shapes and values
# ============================================================================

def rand_dims(rng, rank=None, max_size=4):
    if rank is None:
        rank = int(rng.integers(0, 5))
    # sizes 1..max_size, 1 frequent; 0 in about one dimension in 25
    choices = [1, 1, 2, 2, 3, 3, 4, 5, 6][: max_size + 3]
    return tuple(0 if rng.random() < 0.04 else int(rng.choice(choices)) for _ in range(rank))


def rand_values(rng, t, dims, kind="any"):
    n = int(np.prod(dims)) if dims else 1
    if t == "pred":
        return rng.integers(0, 2, size=dims).astype(np.bool_)
    if t == "s32":
        if kind == "small":
            v = rng.integers(-40, 41, size=n)
        elif kind == "shift":
            v = rng.integers(-3, 36, size=n)
        else:
            v = np.where(rng.random(n) < 0.15,
                         rng.choice([-2**31, 2**31 - 1, -1, 0, 1], size=n),
                         rng.integers(-100000, 100001, size=n))
        return v.astype(np.int32).reshape(dims)
    if t == "u8":
        if kind == "shift":
            v = rng.integers(0, 11, size=n)
        else:
            v = np.where(rng.random(n) < 0.15, rng.choice([0, 1, 255, 128], size=n),
                         rng.integers(0, 256, size=n))
        return v.astype(np.uint8).reshape(dims)
    dt = DTYPES[t]
    if kind == "positive":
        v = np.exp(rng.uniform(-8, 8, size=n))
    elif kind == "unit":
        v = rng.uniform(-1, 1, size=n)
    elif kind == "near1":
        v = rng.uniform(0.5, 1.5, size=n)
    elif kind == "int":
        v = rng.integers(-20, 21, size=n).astype(np.float64)
    elif kind == "moderate":
        v = rng.standard_normal(n) * 4
    else:
        v = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, size=n)
        special = rng.random(n) < 0.1
        v = np.where(special, rng.choice([0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, -2.5, 1e-40], size=n), v)
    return v.astype(dt).reshape(dims)


def shape_text(t, dims):
    return f"{t}[{','.join(str(d) for d in dims)}]"


# ============================================================================
# XLA semantics in numpy (integers)
# ============================================================================

def info(t):
    return np.iinfo(DTYPES[t])


def int_div(t, a, b):
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    safe = np.where(b64 == 0, 1, b64)
    q = np.trunc(a64 / safe).astype(np.int64)  # |values| < 2^32: exact in double
    q = np.where(b64 == 0, -1, q)
    if t == "s32":
        q = np.where((a64 == info(t).min) & (b64 == -1), info(t).min, q)
    return wrap(t, q)


def int_rem(t, a, b):
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    safe = np.where(b64 == 0, 1, b64)
    r = np.fmod(a64, safe)
    r = np.where(b64 == 0, a64, r)
    if t == "s32":
        r = np.where((a64 == info(t).min) & (b64 == -1), 0, r)
    return wrap(t, r)


def wrap(t, v):
    bits = 32 if t == "s32" else 8
    v = np.asarray(v).astype(np.int64) & ((1 << bits) - 1)
    if t == "s32":
        v = np.where(v >= 1 << 31, v - (1 << 32), v)
    return v.astype(DTYPES[t])


def shifts(op, t, a, b):
    bits = 32 if t == "s32" else 8
    ub = b.astype(np.int64) & ((1 << bits) - 1)
    out_of_range = ub >= bits
    sh = np.where(out_of_range, 0, ub)
    ua = a.astype(np.int64) & ((1 << bits) - 1)
    if op == "shift-left":
        r = np.where(out_of_range, 0, ua << sh)
    elif op == "shift-right-logical":
        r = np.where(out_of_range, 0, ua >> sh)
    else:
        sa = np.where(ua >= 1 << (bits - 1), ua - (1 << bits), ua)
        r = np.where(out_of_range, np.where(sa < 0, -1, 0), sa >> sh)
    return wrap(t, r)


def popcnt(t, a):
    bits = 32 if t == "s32" else 8
    ua = a.astype(np.int64) & ((1 << bits) - 1)
    out = np.zeros_like(ua)
    for k in range(bits):
        out += (ua >> k) & 1
    return out.astype(DTYPES[t])


def clz(t, a):
    bits = 32 if t == "s32" else 8
    ua = a.astype(np.int64) & ((1 << bits) - 1)
    out = np.full(ua.shape, bits, dtype=np.int64)
    for k in range(bits):
        out = np.where(ua >> k != 0, bits - 1 - k, out)
    return out.astype(DTYPES[t])


def f2i(t, x):
    i = info(t)
    x = np.asarray(x, dtype=np.float64)
    r = np.where(np.isnan(x), 0, np.clip(np.trunc(np.nan_to_num(x, posinf=i.max, neginf=i.min)), i.min, i.max))
    return r.astype(DTYPES[t])


def round_afz(x):
    tr = np.trunc(x)
    return np.where(np.abs(x - tr) >= 0.5, tr + np.sign(x), tr).astype(x.dtype)


def fmax(a, b):
    return np.where(np.isnan(a) | np.isnan(b), np.nan, np.maximum(a, b)).astype(a.dtype)


def fmin(a, b):
    return np.where(np.isnan(a) | np.isnan(b), np.nan, np.minimum(a, b)).astype(a.dtype)


def erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x.astype(np.float64))


# ============================================================================
# Cases
# ============================================================================

class Case:
    def __init__(self, desc, body, params, expected, rtol=0.0, atol=0.0, signed_zero=True):
        self.desc = desc          # one line: what the case computes
        self.body = body          # ENTRY instructions, ROOT last; sub-computations in .comps
        self.params = params      # [(type, numpy array)]
        self.expected = expected  # (type, numpy array)
        self.rtol, self.atol = rtol, atol
        self.signed_zero = signed_zero
        self.comps = ""

    def module(self, name):
        lines = [f"HloModule {name}", ""]
        if self.comps:
            lines += [self.comps, ""]
        lines.append("ENTRY main {")
        for i, (t, a) in enumerate(self.params):
            lines.append(f"  p{i} = {shape_text(t, a.shape)} parameter({i})")
        lines += ["  " + l for l in self.body]
        lines.append("}")
        return "\n".join(lines) + "\n"


UNARY = {
    # name: (types, input kind, numpy fn(x, t) -> array, exact?)
    "abs": (("f32", "f64", "s32"), "any", lambda x, t: np.abs(x) if t != "s32" else wrap(t, np.abs(x.astype(np.int64))), True),
    "negate": (("f32", "f64", "s32", "u8"), "any", lambda x, t: -x if t in FLOATS else wrap(t, -x.astype(np.int64)), True),
    # the spec keeps -0 (numpy's sign gives +0)
    "sign": (("f32", "f64", "s32"), "any", lambda x, t: np.where(x == 0, x, np.sign(x)).astype(x.dtype), True),
    "not": (("s32", "u8", "pred"), "any", lambda x, t: np.logical_not(x) if t == "pred" else np.invert(x), True),
    "floor": (FLOATS, "any", lambda x, t: np.floor(x), True),
    "ceil": (FLOATS, "any", lambda x, t: np.ceil(x), True),
    "round-nearest-even": (FLOATS, "any", lambda x, t: np.rint(x), True),
    "round-nearest-afz": (FLOATS, "any", lambda x, t: round_afz(x), True),
    "sqrt": (FLOATS, "positive", lambda x, t: np.sqrt(x), True),
    "rsqrt": (FLOATS, "positive", lambda x, t: 1 / np.sqrt(x.astype(np.float64)), False),
    "cbrt": (FLOATS, "any", lambda x, t: np.cbrt(x.astype(np.float64)), False),
    "exponential": (FLOATS, "moderate", lambda x, t: np.exp(x.astype(np.float64)), False),
    "exponential-minus-one": (FLOATS, "moderate", lambda x, t: np.expm1(x.astype(np.float64)), False),
    "log": (FLOATS, "positive", lambda x, t: np.log(x.astype(np.float64)), False),
    "log-plus-one": (FLOATS, "positive", lambda x, t: np.log1p(x.astype(np.float64)), False),
    "logistic": (FLOATS, "moderate", lambda x, t: 1 / (1 + np.exp(-x.astype(np.float64))), False),
    "tanh": (FLOATS, "moderate", lambda x, t: np.tanh(x.astype(np.float64)), False),
    "sine": (FLOATS, "moderate", lambda x, t: np.sin(x.astype(np.float64)), False),
    "cosine": (FLOATS, "moderate", lambda x, t: np.cos(x.astype(np.float64)), False),
    "atan": (FLOATS, "any", lambda x, t: np.arctan(x.astype(np.float64)), False),
    "erf": (FLOATS, "moderate", lambda x, t: erf(x), False),
    "popcnt": (INTS, "any", lambda x, t: popcnt(t, x), True),
    "count-leading-zeros": (INTS, "any", lambda x, t: clz(t, x), True),
}

BINARY = {
    # name: (types, input kinds, fn(a, b, t), exact?)
    "add": (FLOATS + INTS + ("pred",), "any", lambda a, b, t: np.logical_or(a, b) if t == "pred" else (a + b if t in FLOATS else wrap(t, a.astype(np.int64) + b)), True),
    "subtract": (FLOATS + INTS, "any", lambda a, b, t: a - b if t in FLOATS else wrap(t, a.astype(np.int64) - b), True),
    "multiply": (FLOATS + INTS + ("pred",), "any", lambda a, b, t: np.logical_and(a, b) if t == "pred" else (a * b if t in FLOATS else wrap(t, a.astype(np.int64) * b)), True),
    "divide": (FLOATS + INTS, "any", lambda a, b, t: a / b if t in FLOATS else int_div(t, a, b), True),
    "remainder": (FLOATS + INTS, "any", lambda a, b, t: np.fmod(a, b) if t in FLOATS else int_rem(t, a, b), True),
    "maximum": (FLOATS + INTS + ("pred",), "any", lambda a, b, t: fmax(a, b) if t in FLOATS else np.maximum(a, b), True),
    "minimum": (FLOATS + INTS + ("pred",), "any", lambda a, b, t: fmin(a, b) if t in FLOATS else np.minimum(a, b), True),
    "power": (FLOATS, "pow", lambda a, b, t: np.power(a.astype(np.float64), b.astype(np.float64)), False),
    "atan2": (FLOATS, "any", lambda a, b, t: np.arctan2(a.astype(np.float64), b.astype(np.float64)), False),
    "and": (INTS + ("pred",), "any", lambda a, b, t: np.logical_and(a, b) if t == "pred" else a & b, True),
    "or": (INTS + ("pred",), "any", lambda a, b, t: np.logical_or(a, b) if t == "pred" else a | b, True),
    "xor": (INTS + ("pred",), "any", lambda a, b, t: np.logical_xor(a, b) if t == "pred" else a ^ b, True),
    "shift-left": (INTS, "shift", lambda a, b, t: shifts("shift-left", t, a, b), True),
    "shift-right-logical": (INTS, "shift", lambda a, b, t: shifts("shift-right-logical", t, a, b), True),
    "shift-right-arithmetic": (INTS, "shift", lambda a, b, t: shifts("shift-right-arithmetic", t, a, b), True),
}

TOL = {"f32": (2e-6, 1e-6), "f64": (1e-13, 1e-15)}


def unary_case(rng):
    op = str(rng.choice(sorted(UNARY)))
    types, kind, fn, exact = UNARY[op]
    t = str(rng.choice(types))
    dims = rand_dims(rng)
    x = rand_values(rng, t, dims, kind if t in FLOATS else "any")
    out_t = t
    want = np.asarray(fn(x, t)).astype(DTYPES[out_t]).reshape(dims)
    rtol, atol = (0.0, 0.0) if exact else TOL[t]
    return Case(f"{op} {shape_text(t, dims)}", [f"ROOT r = {shape_text(out_t, dims)} {op}(p0)"],
                [(t, x)], (out_t, want), rtol, atol, signed_zero=exact)


def binary_case(rng):
    op = str(rng.choice(sorted(BINARY)))
    types, kind, fn, exact = BINARY[op]
    t = str(rng.choice(types))
    dims = rand_dims(rng)
    if kind == "pow":
        a = rand_values(rng, t, dims, "positive")
        b = rand_values(rng, t, dims, "moderate")
    elif kind == "shift":
        a = rand_values(rng, t, dims)
        b = rand_values(rng, t, dims, "shift")
    else:
        a = rand_values(rng, t, dims)
        b = rand_values(rng, t, dims)
    want = np.asarray(fn(a, b, t)).astype(DTYPES[t]).reshape(dims)
    rtol, atol = (0.0, 0.0) if exact else TOL[t]
    # IEEE maximum/minimum order -0 below +0; numpy's maximum does not say.
    sz = exact and op not in ("maximum", "minimum")
    return Case(f"{op} {shape_text(t, dims)}", [f"ROOT r = {shape_text(t, dims)} {op}(p0, p1)"],
                [(t, a), (t, b)], (t, want), rtol, atol, signed_zero=sz)


def compare_case(rng):
    t = str(rng.choice(FLOATS + INTS + ("pred",)))
    direction = str(rng.choice(["EQ", "NE", "LT", "LE", "GT", "GE"]))
    dims = rand_dims(rng)
    a = rand_values(rng, t, dims, "int" if t in FLOATS and rng.random() < 0.5 else "any")
    b = a.copy() if rng.random() < 0.3 else rand_values(rng, t, dims, "int" if t in FLOATS else "any")
    if b.size and rng.random() < 0.5:
        b.reshape(-1)[0] = a.reshape(-1)[0]
    fn = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal,
          "GT": np.greater, "GE": np.greater_equal}[direction]
    want = fn(a, b)
    return Case(f"compare {direction} {shape_text(t, dims)}",
                [f"ROOT r = {shape_text('pred', dims)} compare(p0, p1), direction={direction}"],
                [(t, a), (t, b)], ("pred", want))


def select_clamp_case(rng):
    t = str(rng.choice(FLOATS + INTS))
    dims = rand_dims(rng)
    if rng.random() < 0.5:
        scalar = rng.random() < 0.3
        p = rand_values(rng, "pred", () if scalar else dims)
        a, b = rand_values(rng, t, dims), rand_values(rng, t, dims)
        want = np.where(p, a, b).astype(DTYPES[t])
        return Case(f"select {shape_text(t, dims)}{' (scalar pred)' if scalar else ''}",
                    [f"ROOT r = {shape_text(t, dims)} select(p0, p1, p2)"],
                    [("pred", p), (t, a), (t, b)], (t, want))
    lo_scalar = rng.random() < 0.5
    kind = "int" if t in FLOATS else "small"
    lo = rand_values(rng, t, () if lo_scalar else dims, kind)
    hi = rand_values(rng, t, () if lo_scalar else dims, kind)
    x = rand_values(rng, t, dims, kind)
    if t in FLOATS:
        want = fmin(fmax(x, np.broadcast_to(lo, dims).astype(x.dtype)), np.broadcast_to(hi, dims).astype(x.dtype))
    else:
        want = np.minimum(np.maximum(x, lo), hi).astype(DTYPES[t])
    return Case(f"clamp {shape_text(t, dims)}{' (scalar bounds)' if lo_scalar else ''}",
                [f"ROOT r = {shape_text(t, dims)} clamp(p0, p1, p2)"],
                [(t, lo), (t, x), (t, hi)], (t, want), signed_zero=False)


def convert_case(rng):
    src = str(rng.choice(FLOATS + INTS + ("pred",)))
    dst = str(rng.choice([t for t in FLOATS + INTS + ("pred",) if t != src]))
    dims = rand_dims(rng)
    x = rand_values(rng, src, dims)
    if src in FLOATS and dst in INTS:
        want = f2i(dst, x)
    elif dst == "pred":
        want = x != 0
    elif src in INTS and dst in INTS:
        want = wrap(dst, x.astype(np.int64))
    else:
        want = x.astype(DTYPES[dst])  # int/pred -> float and f32 <-> f64 round to nearest even
    return Case(f"convert {shape_text(src, dims)} -> {dst}",
                [f"ROOT r = {shape_text(dst, dims)} convert(p0)"], [(src, x)], (dst, want))


def broadcast_case(rng):
    t = str(rng.choice(FLOATS + INTS + ("pred",)))
    out_rank = int(rng.integers(0, 5))
    out = rand_dims(rng, out_rank)
    in_rank = int(rng.integers(0, out_rank + 1))
    dims = sorted(rng.choice(out_rank, size=in_rank, replace=False).tolist()) if in_rank else []
    in_dims = tuple(out[d] for d in dims)
    x = rand_values(rng, t, in_dims)
    view = x.reshape([out[d] if d in dims else 1 for d in range(out_rank)]) if out_rank else x
    want = np.broadcast_to(view, out).copy()
    return Case(f"broadcast {shape_text(t, in_dims)} -> {shape_text(t, out)} dims={dims}",
                [f"ROOT r = {shape_text(t, out)} broadcast(p0), dimensions={{{','.join(map(str, dims))}}}"],
                [(t, x)], (t, want))


def transpose_case(rng):
    t = str(rng.choice(FLOATS + INTS + ("pred",)))
    dims = rand_dims(rng)
    perm = rng.permutation(len(dims)).tolist()
    x = rand_values(rng, t, dims)
    want = np.transpose(x, perm).copy()
    return Case(f"transpose {shape_text(t, dims)} perm={perm}",
                [f"ROOT r = {shape_text(t, want.shape)} transpose(p0), dimensions={{{','.join(map(str, perm))}}}"],
                [(t, x)], (t, want))


def reshape_reverse_case(rng):
    t = str(rng.choice(FLOATS + INTS))
    dims = rand_dims(rng)
    x = rand_values(rng, t, dims)
    if rng.random() < 0.5:
        rd = [d for d in range(len(dims)) if rng.random() < 0.5]
        want = np.flip(x, axis=tuple(rd)).copy() if rd else x.copy()
        return Case(f"reverse {shape_text(t, dims)} dims={rd}",
                    [f"ROOT r = {shape_text(t, dims)} reverse(p0), dimensions={{{','.join(map(str, rd))}}}"],
                    [(t, x)], (t, want))
    n = x.size
    # a random factorisation of n (or any dims with a 0 when n == 0)
    out = []
    m = n
    for _ in range(int(rng.integers(0, 4))):
        f = [d for d in (1, 2, 3, 4, 5) if m % d == 0] if m else [0, 1, 2]
        d = int(rng.choice(f))
        out.append(d)
        m = m // d if d else 0
    if n:
        out.append(m)
    elif 0 not in out:
        out.append(0)
    want = x.reshape(out)
    return Case(f"reshape {shape_text(t, dims)} -> {out}",
                [f"ROOT r = {shape_text(t, out)} reshape(p0)"], [(t, x)], (t, want))


def slice_case(rng):
    t = str(rng.choice(FLOATS + INTS + ("pred",)))
    dims = rand_dims(rng, max_size=6)
    x = rand_values(rng, t, dims)
    specs, sl = [], []
    for n in dims:
        start = int(rng.integers(0, n + 1))
        limit = int(rng.integers(start, n + 1))
        stride = int(rng.integers(1, 4))
        specs.append(f"[{start}:{limit}:{stride}]")
        sl.append(slice(start, limit, stride))
    want = x[tuple(sl)].copy()
    return Case(f"slice {shape_text(t, dims)} {{{', '.join(specs)}}}",
                [f"ROOT r = {shape_text(t, want.shape)} slice(p0), slice={{{', '.join(specs)}}}"],
                [(t, x)], (t, want))


def np_pad(x, pv, cfg):
    """pad: interior padding first, then each output index o of a dimension
    reads the interior-padded index o - low (negative low/high crop)."""
    a = x
    for d, (lo, hi, interior) in enumerate(cfg):
        if interior and a.shape[d] > 0:
            n = a.shape[d]
            shape = list(a.shape)
            shape[d] = n + (n - 1) * interior
            b = np.full(shape, pv, dtype=a.dtype)
            idx = [slice(None)] * a.ndim
            idx[d] = slice(0, None, interior + 1)
            b[tuple(idx)] = a
            a = b
    out_shape = [n + lo + hi for n, (lo, hi, _) in zip(a.shape, cfg)]
    out = np.full(out_shape, pv, dtype=a.dtype)
    src, dst = [], []
    for n, m, (lo, hi, _) in zip(a.shape, out_shape, cfg):
        k0, k1 = max(0, -lo), min(n, m - lo)
        if k1 <= k0:
            return out
        src.append(slice(k0, k1))
        dst.append(slice(k0 + lo, k1 + lo))
    out[tuple(dst)] = a[tuple(src)]
    return out


def pad_case(rng):
    t = str(rng.choice(FLOATS + INTS))
    dims = rand_dims(rng, int(rng.integers(1, 4)))
    x = rand_values(rng, t, dims)
    pv = rand_values(rng, t, ())
    cfg = []
    for n in dims:
        interior = int(rng.integers(0, 3))
        full = n + max(n - 1, 0) * interior
        lo = int(rng.integers(-2, 3))
        hi = int(rng.integers(-2, 3))
        while full + lo + hi < 0:
            lo, hi = lo + 1, hi + 1
        cfg.append((lo, hi, interior))
    want = np_pad(x, pv[()], cfg)
    text = "x".join(f"{lo}_{hi}_{i}" if i else f"{lo}_{hi}" for lo, hi, i in cfg)
    return Case(f"pad {shape_text(t, dims)} padding={text}",
                [f"ROOT r = {shape_text(t, want.shape)} pad(p0, p1), padding={text}"],
                [(t, x), (t, pv)], (t, want))


def concatenate_case(rng):
    t = str(rng.choice(FLOATS + INTS + ("pred",)))
    rank = int(rng.integers(1, 5))
    dims = list(rand_dims(rng, rank))
    d = int(rng.integers(0, rank))
    k = int(rng.integers(1, 4))
    parts = []
    for _ in range(k):
        dd = list(dims)
        dd[d] = int(rng.choice([0, 1, 2, 3]))
        parts.append((t, rand_values(rng, t, tuple(dd))))
    want = np.concatenate([p[1] for p in parts], axis=d)
    names = ", ".join(f"p{i}" for i in range(k))
    return Case(f"concatenate {k} x {t} rank {rank} dim {d}",
                [f"ROOT r = {shape_text(t, want.shape)} concatenate({names}), dimensions={{{d}}}"],
                parts, (t, want))


REDUCERS = {
    # name: (init per type, numpy reduction, HLO op)
    "add": ({"f32": 0.0, "f64": 0.0, "s32": 0, "u8": 0}, "add"),
    "max": ({"f32": -np.inf, "f64": -np.inf, "s32": -2**31, "u8": 0}, "maximum"),
    "min": ({"f32": np.inf, "f64": np.inf, "s32": 2**31 - 1, "u8": 255}, "minimum"),
    "multiply": ({"f32": 1.0, "f64": 1.0, "s32": 1, "u8": 1}, "multiply"),
}


def reducer_comp(name, t):
    op = REDUCERS[name][1]
    return (f"{name}_{t} {{\n  a = {t}[] parameter(0)\n  b = {t}[] parameter(1)\n"
            f"  ROOT r = {t}[] {op}(a, b)\n}}")


def np_reduce(name, t, x, axes, init):
    axes = tuple(axes)
    if name == "add":
        r = np.sum(x.astype(np.float64 if t in FLOATS else np.int64), axis=axes) + init
    elif name == "multiply":
        r = np.prod(x.astype(np.float64 if t in FLOATS else np.int64), axis=axes) * init
    else:
        fn = np.max if name == "max" else np.min
        r = fn(x, axis=axes, initial=init)  # numpy's max/min propagate NaN
    if t in INTS:
        return wrap(t, np.asarray(r).astype(np.int64))
    return np.asarray(r).astype(DTYPES[t])


def reduce_case(rng):
    t = str(rng.choice(FLOATS + INTS))
    name = str(rng.choice(sorted(REDUCERS)))
    dims = rand_dims(rng, int(rng.integers(1, 5)))
    if name == "multiply" and t in FLOATS:
        x = rand_values(rng, t, dims, "near1")
    elif t in FLOATS:
        x = rand_values(rng, t, dims, "any" if name in ("max", "min") else "moderate")
    else:
        x = rand_values(rng, t, dims)
    axes = sorted(d for d in range(len(dims)) if rng.random() < 0.5)
    init = REDUCERS[name][0][t]
    want = np_reduce(name, t, x, axes, init)
    out_dims = [n for i, n in enumerate(dims) if i not in axes]
    # float add/multiply depend on the order: tolerance; max/min and integers exact.
    rtol, atol = (TOL[t] if t in FLOATS and name in ("add", "multiply") else (0.0, 0.0))
    if t == "f32" and name == "add":
        rtol, atol = 1e-5, 1e-4
    c = Case(f"reduce {name} {shape_text(t, dims)} dims={axes}",
             [f"init = {t}[] constant({hlo_scalar(t, init)})",
              f"ROOT r = {shape_text(t, out_dims)} reduce(p0, init), dimensions={{{','.join(map(str, axes))}}}, "
              f"to_apply={name}_{t}"],
             [(t, x)], (t, want), rtol, atol, signed_zero=False)
    c.comps = reducer_comp(name, t)
    return c


def hlo_scalar(t, v):
    if t in FLOATS:
        if np.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(float(v))
    return str(int(v))


def np_reduce_window(x, init, fn, size, stride, pad, lhs, rhs):
    """The spec: pad with init (base_dilation - 1 init values between
    elements), then reduce each window starting from init."""
    cfg = [(lo, hi, b - 1) for (lo, hi), b in zip(pad, lhs)]
    padded = np_pad(x, init, cfg) if x.ndim else x
    if x.ndim and x.size == 0:
        padded = np.full([lo + hi + max(n - 1, 0) * (b - 1) + n for n, (lo, hi), b in zip(x.shape, pad, lhs)],
                         init, dtype=x.dtype)
    eff = [(w - 1) * d + 1 for w, d in zip(size, rhs)]
    out_dims = [0 if p < e else (p - e) // s + 1 for p, e, s in zip(padded.shape, eff, stride)]
    out = np.empty(out_dims, dtype=np.float64 if x.dtype.kind == "f" else np.int64)
    for oidx in np.ndindex(*out_dims):
        sl = tuple(slice(o * s, o * s + e, d) for o, s, e, d in zip(oidx, stride, eff, rhs))
        window = padded[sl].reshape(-1)
        out[oidx] = fn(np.concatenate([[init], window]))
    return out


def reduce_window_case(rng):
    t = str(rng.choice(FLOATS + ("s32",)))
    name = str(rng.choice(["add", "max", "min"]))
    rank = int(rng.integers(1, 4))
    dims = rand_dims(rng, rank, max_size=5)
    x = rand_values(rng, t, dims, "moderate" if t in FLOATS else "small")
    size = [int(rng.integers(1, 4)) for _ in dims]
    stride = [int(rng.integers(1, 4)) for _ in dims]
    pad = [(int(rng.integers(0, 3)), int(rng.integers(0, 3))) for _ in dims]
    lhs = [int(rng.choice([1, 1, 2])) for _ in dims]
    rhs = [int(rng.choice([1, 1, 2])) for _ in dims]
    if name == "add" and t == "s32":
        init = int(rng.integers(-3, 4))  # padding holds the init value (spec)
    else:
        init = REDUCERS[name][0][t]
    fn = {"add": np.sum, "max": np.max, "min": np.min}[name]
    want = np_reduce_window(x, init, fn, size, stride, pad, lhs, rhs)
    want = wrap(t, want) if t in INTS else want.astype(DTYPES[t])
    parts = [f"size={'x'.join(map(str, size))}", f"stride={'x'.join(map(str, stride))}",
             f"pad={'x'.join(f'{lo}_{hi}' for lo, hi in pad)}",
             f"lhs_dilate={'x'.join(map(str, lhs))}", f"rhs_dilate={'x'.join(map(str, rhs))}"]
    rtol, atol = (1e-5, 1e-5) if t == "f32" and name == "add" else ((1e-12, 1e-12) if name == "add" and t == "f64" else (0.0, 0.0))
    c = Case(f"reduce-window {name} {shape_text(t, dims)} {{{' '.join(parts)}}} init={init}",
             [f"init = {t}[] constant({hlo_scalar(t, init)})",
              f"ROOT r = {shape_text(t, want.shape)} reduce-window(p0, init), window={{{' '.join(parts)}}}, "
              f"to_apply={name}_{t}"],
             [(t, x)], (t, want), rtol, atol, signed_zero=False)
    c.comps = reducer_comp(name, t)
    return c


# ---- dot and convolution ----------------------------------------------------------

def float_tol(t, k):
    """Absolute tolerance for sums of k products of values in [-1, 1] (any
    summation order): a few ulps of the largest possible partial sum."""
    return (4e-7 if t == "f32" else 1e-15) * max(1, k) * 4


def np_dot(lhs, rhs, t, lb, lc, rb, rc):
    """dot_general in numpy: batch, lhs free, rhs free; integers wrap (int64
    arithmetic wraps modulo 2^64, which wraps modulo the type too)."""
    lf = [d for d in range(lhs.ndim) if d not in lb and d not in lc]
    rf = [d for d in range(rhs.ndim) if d not in rb and d not in rc]
    size = lambda a, ds: int(np.prod([a.shape[d] for d in ds])) if ds else 1
    acc = np.float64 if t in FLOATS else np.int64
    L = np.transpose(lhs, lb + lf + lc).astype(acc).reshape(size(lhs, lb), size(lhs, lf), size(lhs, lc))
    R = np.transpose(rhs, rb + rc + rf).astype(acc).reshape(size(rhs, rb), size(rhs, rc), size(rhs, rf))
    out = np.matmul(L, R)
    dims = [lhs.shape[d] for d in lb + lf] + [rhs.shape[d] for d in rf]
    out = out.reshape(dims)
    if t == "pred":
        return out != 0
    return wrap(t, out) if t in INTS else out


def dot_case(rng):
    t = str(rng.choice(["f32", "f32", "f64", "s32", "u8", "pred"]))
    nb, nc, nlf, nrf = (int(rng.integers(0, 3)) for _ in range(4))
    size = lambda: 0 if rng.random() < 0.03 else int(rng.integers(1, 6))
    bs, cs = [size() for _ in range(nb)], [size() for _ in range(nc)]
    lfs, rfs = [size() for _ in range(nlf)], [size() for _ in range(nrf)]
    # Place batch, contracting and free dims at random positions of each operand.
    lperm = list(rng.permutation(nb + nc + nlf))
    rperm = list(rng.permutation(nb + nc + nrf))
    ldims, rdims = [0] * len(lperm), [0] * len(rperm)
    for i, s in enumerate(bs + cs + lfs):
        ldims[lperm[i]] = s
    for i, s in enumerate(bs + cs + rfs):
        rdims[rperm[i]] = s
    lb, lc = [int(x) for x in lperm[:nb]], [int(x) for x in lperm[nb:nb + nc]]
    rb, rc = [int(x) for x in rperm[:nb]], [int(x) for x in rperm[nb:nb + nc]]
    # The free dims keep their order within each operand (the result's order).
    kind = "unit" if t in FLOATS else ("small" if t == "s32" else "any")
    x = rand_values(rng, t, tuple(ldims), kind)
    y = rand_values(rng, t, tuple(rdims), kind)
    want = np_dot(x, y, t, lb, lc, rb, rc)
    want = want.astype(DTYPES[t])
    k = int(np.prod(cs)) if cs else 1
    tol = float_tol(t, k) if t in FLOATS else 0.0
    attrs = ", ".join(f"{n}={{{','.join(map(str, v))}}}" for n, v in
                      [("lhs_batch_dims", lb), ("lhs_contracting_dims", lc),
                       ("rhs_batch_dims", rb), ("rhs_contracting_dims", rc)] if v)
    body = [f"ROOT r = {shape_text(t, want.shape)} dot(p0, p1){', ' + attrs if attrs else ''}"]
    return Case(f"dot {shape_text(t, x.shape)} x {shape_text(t, y.shape)} {attrs}", body,
                [(t, x), (t, y)], (t, want), 0.0, tol, signed_zero=False)


def np_conv(x, k, t, nsp, stride, pad, lhs, rhs, rev, fgc, bgc):
    """The spec's convolution on canonical [N, C, S...] / [O, I, W...]
    operands: pad with lhs-dilation holes, slide the rhs-dilated window,
    reversed where asked; groups split and concatenate."""
    acc = np.float64 if t in FLOATS else np.int64
    N, C = x.shape[:2]
    O, W = k.shape[0], list(k.shape[2:])
    dil = [(n - 1) * b + 1 if n > 0 else 0 for n, b in zip(x.shape[2:], lhs)]
    P = [d + lo + hi for d, (lo, hi) in zip(dil, pad)]
    # Dilate into a buffer with room for negative padding, then crop.
    big = np.zeros([N, C] + [d + max(lo, 0) + max(hi, 0) for d, (lo, hi) in zip(dil, pad)], dtype=acc)
    sl = tuple(slice(max(lo, 0), max(lo, 0) + d, b) for d, (lo, _), b in zip(dil, pad, lhs))
    big[(slice(None), slice(None)) + sl] = x
    crop = tuple(slice(max(-lo, 0), max(-lo, 0) + p) for (lo, _), p in zip(pad, P))
    xp = big[(slice(None), slice(None)) + crop]
    eff = [(w - 1) * d + 1 for w, d in zip(W, rhs)]
    osz = [0 if p < e else (p - e) // s + 1 for p, e, s in zip(P, eff, stride)]
    kk = k.astype(acc)
    for i, r in enumerate(rev):
        if r:
            kk = np.flip(kk, axis=2 + i)
    groups = fgc * bgc
    nout, cg, og = N // bgc, C // fgc, O // groups
    out = np.zeros([nout, O] + osz, dtype=acc)
    for g in range(groups):
        xs = xp[g * nout:(g + 1) * nout] if bgc > 1 else xp
        xs = xs[:, g * cg:(g + 1) * cg] if fgc > 1 else xs
        kg = kk[g * og:(g + 1) * og]
        for w in np.ndindex(*W):
            win = tuple(slice(t_ * d, t_ * d + (o - 1) * s + 1, s) if o > 0 else slice(0, 0)
                        for t_, d, o, s in zip(w, rhs, osz, stride))
            patch = xs[(slice(None), slice(None)) + win]
            out[:, g * og:(g + 1) * og] += np.einsum("nc...,oc->no...", patch,
                                                     kg[(slice(None), slice(None)) + w])
    return out


def conv_case(rng):
    t = str(rng.choice(["f32", "f32", "f32", "f64", "s32"]))
    nsp = int(rng.choice([1, 2, 2, 3]))
    fgc, bgc = 1, 1
    r = rng.random()
    if r < 0.25:
        fgc = int(rng.integers(2, 4))
    elif r < 0.4:
        bgc = 2
    cg = int(rng.integers(1, 4))
    C = cg * fgc
    O = fgc * bgc * int(rng.integers(1, 4))
    N = bgc * int(rng.integers(1, 3))
    maxs = 6 if nsp < 3 else 4
    S = [int(rng.integers(1, maxs + 1)) for _ in range(nsp)]
    W = [int(rng.integers(1, 4)) for _ in range(nsp)]
    stride = [int(rng.integers(1, 4)) for _ in range(nsp)]
    lhs = [int(rng.choice([1, 1, 2])) for _ in range(nsp)]
    rhs = [int(rng.choice([1, 1, 2])) for _ in range(nsp)]
    rev = [bool(rng.random() < 0.2) for _ in range(nsp)]
    pad = []
    for n, b in zip(S, lhs):
        lo, hi = int(rng.integers(-1, 3)), int(rng.integers(-1, 3))
        if (n - 1) * b + 1 + lo + hi < 0:
            lo, hi = 0, 0
        pad.append((lo, hi))
    sp = "".join(str(i) for i in range(nsp))
    lab_in = list(rng.permutation(list("bf" + sp)))
    lab_k = list(rng.permutation(list("io" + sp)))
    lab_out = list(rng.permutation(list("bf" + sp)))
    kind = "unit" if t in FLOATS else "small"
    xc = rand_values(rng, t, tuple([N, C] + S), kind)       # canonical [N, C, S...]
    kc = rand_values(rng, t, tuple([O, cg] + W), kind)      # canonical [O, I, W...]
    want = np_conv(xc, kc, t, nsp, stride, pad, lhs, rhs, rev, fgc, bgc)
    # Lay the operands and the result out as the labels say.
    canon_in = ["b", "f"] + list(sp)
    canon_k = ["o", "i"] + list(sp)
    x = np.transpose(xc, [canon_in.index(c) for c in lab_in]).copy()
    k = np.transpose(kc, [canon_k.index(c) for c in lab_k]).copy()
    want = np.transpose(want, [canon_in.index(c) for c in lab_out]).copy()
    want = wrap(t, want) if t in INTS else want.astype(DTYPES[t])
    labels = f"{''.join(lab_in)}_{''.join(lab_k)}->{''.join(lab_out)}"
    window = " ".join([f"size={'x'.join(map(str, W))}", f"stride={'x'.join(map(str, stride))}",
                       f"pad={'x'.join(f'{lo}_{hi}' for lo, hi in pad)}",
                       f"lhs_dilate={'x'.join(map(str, lhs))}", f"rhs_dilate={'x'.join(map(str, rhs))}",
                       f"rhs_reversal={'x'.join('1' if v else '0' for v in rev)}"])
    groups = (f", feature_group_count={fgc}" if fgc > 1 else "") + \
             (f", batch_group_count={bgc}" if bgc > 1 else "")
    tol = float_tol(t, cg * int(np.prod(W))) if t in FLOATS else 0.0
    body = [f"ROOT r = {shape_text(t, want.shape)} convolution(p0, p1), window={{{window}}}, "
            f"dim_labels={labels}{groups}"]
    return Case(f"convolution {shape_text(t, x.shape)} {shape_text(t, k.shape)} {{{window}}} "
                f"{labels}{groups}", body, [(t, x), (t, k)], (t, want), 0.0, tol, signed_zero=False)


def winograd_conv_case(rng):
    """2-D 3x3 stride-1 convolutions with enough features for hlo-run's
    Winograd F(2x2, 3x3) path (eval/kernels/convolution_winograd.h): odd
    and even output sizes, padding 0-2 per side, any dim_labels; the same
    tolerance as direct summation."""
    t = str(rng.choice(["f32", "f32", "f64"]))
    C, O = int(rng.integers(4, 21)), int(rng.integers(4, 21))
    N = int(rng.integers(1, 4))
    S = [int(rng.integers(1, 10)) for _ in range(2)]
    pad = [(int(rng.integers(0, 3)), int(rng.integers(0, 3))) for _ in range(2)]
    lab_in = list(rng.permutation(list("bf01")))
    lab_k = list(rng.permutation(list("io01")))
    lab_out = list(rng.permutation(list("bf01")))
    xc = rand_values(rng, t, (N, C, *S), "unit")
    kc = rand_values(rng, t, (O, C, 3, 3), "unit")
    want = np_conv(xc, kc, t, 2, [1, 1], pad, [1, 1], [1, 1], [False, False], 1, 1)
    x = np.transpose(xc, ["bf01".index(c) for c in lab_in]).copy()
    k = np.transpose(kc, ["oi01".index(c) for c in lab_k]).copy()
    want = np.transpose(want, ["bf01".index(c) for c in lab_out]).astype(DTYPES[t])
    labels = f"{''.join(lab_in)}_{''.join(lab_k)}->{''.join(lab_out)}"
    window = f"size=3x3 pad={'x'.join(f'{lo}_{hi}' for lo, hi in pad)}"
    body = [f"ROOT r = {shape_text(t, want.shape)} convolution(p0, p1), window={{{window}}}, "
            f"dim_labels={labels}"]
    return Case(f"convolution {shape_text(t, x.shape)} {shape_text(t, k.shape)} {{{window}}} "
                f"{labels}", body, [(t, x), (t, k)], (t, want), 0.0, float_tol(t, 9 * C),
                signed_zero=False)


GENERATORS = [
    (unary_case, 60), (binary_case, 70), (compare_case, 15), (select_clamp_case, 12),
    (convert_case, 15), (broadcast_case, 15), (transpose_case, 15), (reshape_reverse_case, 12),
    (slice_case, 18), (pad_case, 18), (concatenate_case, 15), (reduce_case, 30),
    (reduce_window_case, 25), (dot_case, 40), (conv_case, 40), (winograd_conv_case, 15),
]


def make_cases(seed, n):
    rng = np.random.default_rng(seed)
    weights = np.array([w for _, w in GENERATORS], dtype=np.float64)
    weights /= weights.sum()
    cases = []
    for i in range(n):
        gen = GENERATORS[int(rng.choice(len(GENERATORS), p=weights))][0]
        cases.append(gen(np.random.default_rng([seed, i])))
    return cases


# ============================================================================
# Running and comparing
# ============================================================================

def parse_json_result(text):
    obj = json.loads(text)
    if "elements" in obj:
        raise ValueError("unexpected tuple result")
    t = obj["dtype"]
    dims = tuple(obj["dims"])
    data = obj["data"]
    if t == "pred":
        a = np.array([bool(v) for v in data], dtype=np.bool_)
    elif t in FLOATS:
        # f32 elements print as the shortest text of the f32 value: read them back as f32
        a = np.array([float(v) if isinstance(v, str) else v for v in data], dtype=np.float64)
        if t == "f32":
            a = a.astype(np.float32).astype(np.float64)
    else:
        a = np.array(data, dtype=np.int64)
    return t, a.reshape(dims)


def compare(case, got_t, got):
    t, want = case.expected
    if got_t != t:
        return f"dtype {got_t}, expected {t}"
    if tuple(got.shape) != tuple(want.shape):
        return f"dims {list(got.shape)}, expected {list(want.shape)}"
    g = got.reshape(-1)
    w = want.reshape(-1)
    if t not in FLOATS:
        bad = np.nonzero(g.astype(np.int64) != w.astype(np.int64))[0]
    else:
        w64 = w.astype(np.float64)
        both_nan = np.isnan(g) & np.isnan(w64)
        if case.rtol == 0 and case.atol == 0:
            same = (g == w64)
            if case.signed_zero:
                same &= np.signbit(g) == np.signbit(w64)
        else:
            with np.errstate(invalid="ignore"):
                same = (g == w64) | (np.abs(g - w64) <= case.atol + case.rtol * np.abs(w64))
        bad = np.nonzero(~(same | both_nan))[0]
    if bad.size == 0:
        return None
    i = int(bad[0])
    idx = list(np.unravel_index(i, want.shape)) if want.shape else []
    return (f"{bad.size} mismatch(es); first at {[int(v) for v in idx]}: got {g[i]!r}, expected "
            f"{w[i].item()!r}")


def run_case(binary, tmp, i, case):
    name = f"case{i:04d}"
    mod = os.path.join(tmp, name + ".hlo")
    with open(mod, "w") as f:
        f.write(case.module(name))
    args = [binary, mod]
    for k, (t, a) in enumerate(case.params):
        p = os.path.join(tmp, f"{name}_p{k}.npy")
        np.save(p, np.array(a, order="C"))  # (ascontiguousarray would make rank 0 rank 1)
        args += ["--input", p]
    args.append("--output-format=json")
    try:
        proc = subprocess.run(args, capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "timed out"
    if proc.returncode != 0:
        err = proc.stderr.decode(errors="replace").strip().splitlines()
        return f"exit {proc.returncode}: {err[0] if err else ''}"
    try:
        got_t, got = parse_json_result(proc.stdout.decode())
    except (ValueError, KeyError) as e:
        return f"bad JSON output: {e}"
    return compare(case, got_t, got)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cases", type=int, default=760)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("--filter", default="", help="only cases whose description matches")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    binary = os.path.join(os.path.abspath(a.bin), "hlo-run")
    if not os.path.exists(binary):
        print(f"differential: {binary} does not exist")
        print("differential: 0 passed, 1 failed")
        return 1
    cases = [(i, c) for i, c in enumerate(make_cases(a.seed, a.cases)) if re.search(a.filter, c.desc)]
    tmp = tempfile.mkdtemp(prefix="hlo-differential-")
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        results = list(pool.map(lambda ic: (ic[0], ic[1], run_case(binary, tmp, ic[0], ic[1])), cases))
    for i, case, err in results:
        if err is not None:
            failures.append(i)
            print(f"FAIL case {i} ({case.desc}): {err} [{os.path.join(tmp, f'case{i:04d}.hlo')}]")
        elif a.verbose:
            print(f"ok   case {i} ({case.desc})")
    if failures or a.keep:
        print(f"differential: modules and inputs kept in {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"differential: {len(cases) - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
