"""Family `indexing`: the expected results of the gather, scatter, sort, topk
and custom-call modules in testdata/eval/, computed without hlo-run.

The modules are testdata/eval/{gather,scatter,sort,topk,custom_call}_*.hlo.
Each function below (registered with @golden("NAME")) restates the module's
instructions and computes its ROOT from the definitions in ../shared/spec,
element by element with plain Python loops:

* gather: stablehlo-spec.en.md's formula (result_index -> operand_index, the
  start index clamped into the operand, batching dims added).
* scatter: the spec's formula for result_index; an update whose whole window
  does not fit in the input is skipped, as XLA does (the spec leaves
  out-of-bounds updates implementation-defined). Updates are applied in
  XLA's evaluator order: batch positions of the scatter indices in row-major
  order, each window in row-major order.
* sort: Python's stable sorted() with the module's comparator restated in
  Python (as a "less" on the 2*N scalars); for a strict weak order every
  stable sort gives this same answer.
* topk: the indices sorted by (descending or ascending key, then index), the
  key being XLA's total order for floats (core.total_key).

The literal reader, the value printing and the number formats (bf16, s4,
...) come from core.py, so the inputs live only in the .hlo files. The
spec's own printed results of its gather and scatter examples are checked
against the computed ones as well. Error modules (`// RUN-ERROR:`, ERRORS
below) get their NAME.err from design.md's error format.
"""
import functools
import os
import re

import numpy as np

from goldens import core as ge
from goldens.core import Lit, NAN

EVAL_DIR = ge.EVAL_DIR
# The modules this family owns (the eval family leaves them alone).
PREFIXES = ("gather_", "scatter_", "sort_", "topk_", "custom_call_")

TESTS = {}


def golden(name):
    def deco(fn):
        assert name not in TESTS, name
        TESTS[name] = fn
        return fn
    return deco


def out_lit(t, arr):
    """A Lit of type t from an object array of element values."""
    if t == "f32":
        flat = [np.float32(v) for v in arr.reshape(-1)]
        return Lit(t, np.array(flat, dtype=np.float32).reshape(arr.shape))
    if t == "f64":
        flat = [np.float64(v) for v in arr.reshape(-1)]
        return Lit(t, np.array(flat, dtype=np.float64).reshape(arr.shape))
    return Lit(t, arr)


def obj(lit):
    """An object-array copy of a Lit's values (bits of f32/f64 kept)."""
    a = np.empty(lit.dims, dtype=object)
    for idx in np.ndindex(*lit.dims):
        a[idx] = lit.a[idx]
    return a


# ============================================================================
# gather and scatter (stablehlo-spec.en.md)
# ============================================================================

def index_vector(indices, batch_index, ivd):
    """start_indices[bi0, ..., :, ..., biN] (`:` at index_vector_dim), or
    [start_indices[batch_index]] when index_vector_dim = rank."""
    bi = list(batch_index)
    if ivd < len(indices.dims):
        return [int(indices.a[tuple(bi[:ivd] + [k] + bi[ivd:])])
                for k in range(indices.dims[ivd])]
    return [int(indices.a[tuple(bi)])]


def gather(operand, indices, offset_dims, collapsed, start_index_map, ivd, slice_sizes,
           operand_batching_dims=(), indices_batching_dims=()):
    O, I = operand.dims, indices.dims
    batch_sizes = [I[d] for d in range(len(I)) if d != ivd]
    offset_sizes = [slice_sizes[d] for d in range(len(O))
                    if d not in collapsed and d not in operand_batching_dims]
    rank = len(batch_sizes) + len(offset_sizes)
    batch_dims = [d for d in range(rank) if d not in offset_dims]
    shape = [0] * rank
    for j, d in enumerate(batch_dims):
        shape[d] = batch_sizes[j]
    for j, d in enumerate(offset_dims):
        shape[d] = offset_sizes[j]
    out = np.empty(shape, dtype=object)
    for ridx in np.ndindex(*shape):
        batch_index = [ridx[d] for d in batch_dims]
        start_index = index_vector(indices, batch_index, ivd)
        full_start = [0] * len(O)
        for d_start, d_op in enumerate(start_index_map):
            full_start[d_op] = min(max(start_index[d_start], 0), O[d_op] - slice_sizes[d_op])
        full_batching = [0] * len(O)
        for d_op, d_start in zip(operand_batching_dims, indices_batching_dims):
            full_batching[d_op] = batch_index[d_start - (0 if d_start < ivd else 1)]
        offset_index = iter([ridx[d] for d in offset_dims])
        full_offset = [0 if (d in collapsed or d in operand_batching_dims) else next(offset_index)
                       for d in range(len(O))]
        oi = tuple(a + b + c for a, b, c in zip(full_start, full_batching, full_offset))
        out[ridx] = operand.a[oi]
    return out_lit(operand.t, out)


def scatter(inputs, indices, updates, update_window_dims, inserted_window_dims,
            scatter_dims_to_operand_dims, ivd, fn, input_batching_dims=(),
            indices_batching_dims=()):
    """fn(current values, update values) -> new values (lists of N)."""
    single = isinstance(inputs, Lit)
    if single:
        inputs, updates = [inputs], [updates]
        f1 = fn
        fn = lambda cur, upd: [f1(cur[0], upd[0])]  # noqa: E731
    O = inputs[0].dims
    U = updates[0].dims
    outs = [obj(x) for x in inputs]
    scatter_dims = [d for d in range(len(U)) if d not in update_window_dims]
    window_of = {}  # input dim -> update dim
    it = iter(update_window_dims)
    for d in range(len(O)):
        if d not in inserted_window_dims and d not in input_batching_dims:
            window_of[d] = next(it)
    window_size = [U[window_of[d]] if d in window_of else 1 for d in range(len(O))]
    for sidx in np.ndindex(*[U[d] for d in scatter_dims]):
        start_index = index_vector(indices, sidx, ivd)
        full_start = [0] * len(O)
        for d_start, d_in in enumerate(scatter_dims_to_operand_dims):
            full_start[d_in] = start_index[d_start]
        full_batching = [0] * len(O)
        for d_in, d_start in zip(input_batching_dims, indices_batching_dims):
            full_batching[d_in] = sidx[d_start - (0 if d_start < ivd else 1)]
        origin = [a + b for a, b in zip(full_start, full_batching)]
        if any(o < 0 or o + w > n for o, w, n in zip(origin, window_size, O)):
            continue  # XLA: the whole window is skipped
        for widx in np.ndindex(*[U[d] for d in update_window_dims]):
            uidx = [0] * len(U)
            for j, d in enumerate(scatter_dims):
                uidx[d] = sidx[j]
            for j, d in enumerate(update_window_dims):
                uidx[d] = widx[j]
            wi = iter(widx)
            full_window = [next(wi) if d in window_of else 0 for d in range(len(O))]
            ri = tuple(a + b for a, b in zip(origin, full_window))
            new = fn([o[ri] for o in outs], [u.a[tuple(uidx)] for u in updates])
            for o, v in zip(outs, new):
                o[ri] = v
    res = [out_lit(x.t, o) for x, o in zip(inputs, outs)]
    return res[0] if single else res


# ============================================================================
# sort and topk
# ============================================================================

def sort_(lits, dim, less):
    """Stable sort of the slices along dim; less(lhs_values, rhs_values)."""
    single = isinstance(lits, Lit)
    if single:
        lits = [lits]
        less1 = less
        less = lambda x, y: less1(x[0], y[0])  # noqa: E731
    shape = lits[0].dims
    outs = [obj(x) for x in lits]

    def cmp(a, b):
        return -1 if less(a, b) else (1 if less(b, a) else 0)

    other = [n if d != dim else 1 for d, n in enumerate(shape)]
    for base in np.ndindex(*other):
        pos = [tuple(base[:dim]) + (j,) + tuple(base[dim + 1:]) for j in range(shape[dim])]
        rows = [[x.a[p] for x in lits] for p in pos]
        rows = sorted(rows, key=functools.cmp_to_key(cmp))
        for p, row in zip(pos, rows):
            for o, v in zip(outs, row):
                o[p] = v
    res = [out_lit(x.t, o) for x, o in zip(lits, outs)]
    return res[0] if single else res


def order_key(t, x):
    """Ordering key: XLA's total order for floats, the value otherwise."""
    if ge.is_float(t):
        return ge.total_key(t, x)
    return int(x)


def topk(lit, k, largest):
    sign = -1 if largest else 1
    return topk_by(lit, k, lambda v, j: sign * order_key(lit.t, v))


def topk_by(lit, k, key):
    """The first k of each row sorted by key(value, index) (ties: index)."""
    shape = lit.dims
    n = shape[-1]
    vals = np.empty(shape[:-1] + (k,), dtype=object)
    idxs = np.empty(shape[:-1] + (k,), dtype=object)
    for row in np.ndindex(*shape[:-1]):
        order = sorted(range(n), key=lambda j: (key(lit.a[row + (j,)], j), j))[:k]
        for i, j in enumerate(order):
            vals[row + (i,)] = lit.a[row + (j,)]
            idxs[row + (i,)] = j
    return [out_lit(lit.t, vals), Lit("s32", idxs)]


def as_int_lists(lit):
    return [[int(v) for v in row] for row in lit.a.reshape(-1, lit.dims[-1])]


# ============================================================================
# The modules
# ============================================================================

@golden("gather_spec_example")
def _(c):
    r = gather(c.operand, c.indices, [3, 4], [1], [2, 1], 3, [1, 1, 2, 2], [0], [1])
    spec = [[[[[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]]],
             [[[33, 34], [35, 36]], [[35, 36], [37, 38]], [[41, 42], [43, 44]]]],
            [[[[1, 2], [3, 4]], [[13, 14], [15, 16]], [[21, 22], [23, 24]]],
             [[[43, 44], [45, 46]], [[33, 34], [35, 36]], [[27, 28], [29, 30]]]]]
    assert r.a.tolist() == spec, "the spec's printed result"
    return r


@golden("gather_forms")
def _(c):
    return [
        gather(c.table, c.rows, [1], [0], [0], 1, [1, 3]),
        gather(c.grid, c.starts, [1, 2], [], [0, 1], 1, [2, 3]),
        gather(c.h, c.cols_rows, [], [0, 1], [1, 0], 0, [1, 1]),
        gather(c.z, c.big, [1], [], [0], 1, [2]),
        gather(c.cube, c.mids, [0, 2], [1], [1], 1, [2, 1, 3]),
        gather(c.nib, c.picks, [], [0], [0], 1, [1]),
        gather(c.table, c.none, [1], [0], [0], 1, [1, 3]),
    ]


@golden("scatter_spec_example")
def _(c):
    r = scatter(c.input, c.indices, c.updates, [3, 4], [1], [2, 1], 3,
                lambda a, b: ge.wrap("s64", a + b), [0], [1])
    spec = [[[[3, 4], [6, 7], [6, 7], [7, 8]], [[9, 10], [11, 12], [15, 16], [17, 18]],
             [[17, 18], [19, 20], [22, 23], [24, 25]]],
            [[[25, 26], [28, 29], [30, 31], [31, 32]], [[35, 36], [38, 39], [38, 39], [39, 40]],
             [[41, 42], [44, 45], [46, 47], [47, 48]]]]
    assert r.a.tolist() == spec, "the spec's printed result"
    return r


def f32_add(a, b):
    return np.float32(a) + np.float32(b)


@golden("scatter_forms")
def _(c):
    row = ([1], [0], [0], 1)   # update_window_dims, inserted, to_operand, ivd
    elem = ([], [0], [0], 1)
    return [
        scatter(c.table, c.rows, c.rowupd, *row, f32_add),
        scatter(c.grid, c.corners, c.windows, [1, 2], [], [0, 1], 1,
                lambda a, b: ge.wrap("s32", b + a)),
        scatter(c.bytes, c.at, c.vals, *elem, lambda a, b: b),
        scatter(c.fl, c.fat, c.fupd, *elem, lambda a, b: np.float32(ge.fmax(a, b))),
        scatter(c.fl, c.fat, c.fupd, *elem, lambda a, b: np.float32(ge.fmin(a, b))),
        scatter(c.sh, c.shat, c.shupd, *elem, lambda a, b: ge.wrap("s16", a * b)),
        scatter(c.bf, c.bfat, c.bfupd, *elem, lambda a, b: ge.round_small(a + b, "bf16")),
        scatter(c.base, c.cols, c.colupd, [], [0, 1], [0, 1], 0,
                lambda a, b: ge.wrap("s32", 2 * a - b)),
        scatter(c.flags, c.fset, c.fv, *elem, lambda a, b: bool(a or b)),
        scatter(c.table, c.noidx, c.noupd, *row, f32_add),
        scatter(c.uh, c.uhat, c.uhupd, *elem, lambda a, b: ge.wrap("u16", a * b)),
    ]


def combine(t, op):
    """One application of a binary op on element type t, as the spec's
    elementwise ops define it: integers wrap, floats round once to t."""
    if op in ("maximum", "minimum") and (ge.is_float(t)):
        f = ge.fmax if op == "maximum" else ge.fmin
        return lambda a, b: ge.round_small(f(a, b), t) if ge.is_small(t) else f(a, b)
    if t == "pred":
        return {"xor": lambda a, b: a != b, "and": lambda a, b: a and b,
                "or": lambda a, b: a or b}[op]
    py = {"add": lambda a, b: a + b, "multiply": lambda a, b: a * b,
          "maximum": max, "minimum": min, "and": lambda a, b: a & b,
          "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b}[op]
    if ge.is_int(t):
        return lambda a, b: ge.wrap(t, py(int(a), int(b)))
    if ge.is_small(t):
        return lambda a, b: ge.round_small(py(float(a), float(b)), t)
    if t == "f32":
        return lambda a, b: py(np.float32(a), np.float32(b))
    if t == "c64":
        return lambda a, b: np.complex64(py(complex(a), complex(b)))
    return lambda a, b: py(a, b)  # f64, c128: Python's double arithmetic


@golden("scatter_types")
def _(c):
    text = open(os.path.join(EVAL_DIR, "scatter_types.hlo")).read()
    ops = dict(re.findall(r"^(c\d+) \{\n  a = [a-z0-9]+\[\] parameter\(0\)\n"
                          r"  b = [a-z0-9]+\[\] parameter\(1\)\n  ROOT r = [a-z0-9]+\[\] "
                          r"([a-z]+)\(a, b\)", text, re.M))
    out = []
    for n in range(len(ops)):
        x = c[f"x{n}"]
        out.append(scatter(x, c.at, c[f"u{n}"], [], [0], [0], 1, combine(x.t, ops[f"c{n}"])))
    return out


def argmax(cur, upd):
    (v0, i0), (v1, i1) = cur, upd
    take = v1 > v0 or (v1 == v0 and i1 < i0)
    return [v1, i1] if take else [v0, i0]


@golden("scatter_variadic")
def _(c):
    return [
        scatter([c.best, c.best_i], c.buckets, [c.vals, c.ids], [], [0], [0], 1, argmax),
        scatter([c.x, c.y], c.where, [c.nx, c.ny], [], [0, 1], [0, 1], 1,
                lambda cur, upd: list(upd)),
        scatter(c.acc, c.pos, c.upd, [], [1], [1], 2, f32_add, [0], [0]),
    ]


@golden("gather_jax_forms")
def _(c):
    return [
        gather(c.emb, c.ids, [2], [0], [0], 2, [1, 4]),
        gather(c.x, c.ta, [], [1], [1], 2, [1, 1], [0], [0]),
        gather(c.cube, c.bidx, [2], [0], [0], 2, [1, 1, 3], [1], [0]),
        gather(c.grid, c.st, [0, 2], [], [1, 0], 1, [2, 3]),
        gather(c.x, c.cols, [0], [1], [1], 1, [3, 1]),
        gather(c.w, c.wi, [1], [0], [0], 1, [1, 2]),
    ]


@golden("scatter_jax_forms")
def _(c):
    row = ([1], [0], [0], 1)   # update_window_dims, inserted, to_operand, ivd
    elem = ([], [0], [0], 1)
    return [
        scatter(c.x, c.ids, c.xu, *row, f32_add),
        scatter(c.si, c.sids, c.su, *row, lambda a, b: b),
        scatter(c.si, c.sids, c.mu, *row, combine("s32", "maximum")),
        scatter(c.fz, c.fids, c.fu, *row, combine("f32", "minimum")),
        scatter(c.b8, c.b8ids, c.b8u, *row, combine("s8", "multiply")),
        scatter(c.h, c.hids, c.hu, *row, combine("bf16", "add")),
        scatter(c.zeros, c.segs, c.vals, *elem, f32_add),
        scatter(c.win, c.wids, c.wu, [1, 2], [], [0], 1, f32_add),
        scatter(c.bx, c.bids, c.bu, [2], [1], [1], 2, f32_add, [0], [0]),
        scatter(c.u, c.uids, c.uu, *row, combine("u16", "xor")),
        scatter(c.p, c.pids, c.pu, *elem, combine("pred", "or")),
    ]


@golden("scatter_batched_combiner")
def _(c):
    row = ([1], [0], [0], 1)
    half = np.float32(0.5)
    a = scatter(c.x, c.xids, c.xu, *row,
                lambda x, y: np.float32(np.float32(x) * half) + np.float32(y))
    i = np.arange(3000)
    ids = Lit("s32", (5 * i) % 14 - 1)
    upd = Lit("s32", i % 17 - 8)
    b = scatter(c.slots, ids, upd, [], [0], [0], 1, lambda x, y: ge.wrap("s32", 3 * x + y))
    bf = lambda v: ge.round_small(v, "bf16")  # noqa: E731
    cc = scatter(c.h, c.hids, c.hu, *row, lambda x, y: bf(bf(float(x) + float(y)) * 0.5))
    d = scatter(c.s, c.sids, c.su, *row, lambda x, y: x if x > y else y)

    def argmin(cur, upd):
        (v0, i0), (v1, i1) = cur, upd
        take = v1 < v0 or (v1 == v0 and i1 < i0)
        return [v1, i1] if take else [v0, i0]
    e = scatter([c.best, c.best_i], c.buckets, [c.vals, c.vids], [], [0], [0], 1, argmin)
    return [a, b, cc, d, e]


def s32_checksum(r):
    """sum(R * (131 i + 7 j + 1)) over a rank-2 (or rank-1: j = 0) integer
    array, in wrapping s32 arithmetic (uint64 products and sums wrap modulo
    2^64, a multiple of 2^32)."""
    r = np.asarray(r).astype(np.int64)
    if r.ndim == 1:
        w = 131 * np.arange(r.shape[0], dtype=np.int64) + 1
    else:
        w = (131 * np.arange(r.shape[0], dtype=np.int64)[:, None]
             + 7 * np.arange(r.shape[1], dtype=np.int64)[None, :] + 1)
    total = int((r.astype(np.uint64) * w.astype(np.uint64)).sum(dtype=np.uint64))
    return Lit("s32", np.array(ge.wrap("s32", total), dtype=object))


@golden("gather_rows_large")
def _(c):
    # numpy's take with clipped ids is the spec's clamped start for one-row slices.
    t = 1000 * np.arange(5000)[:, None] + np.arange(64)[None, :]
    ids = (7919 * np.arange(4096)) % 5600 - 300
    g = t[np.clip(ids, 0, 4999)]
    f = (4 * np.arange(3000)[:, None] + np.arange(3)[None, :]).astype(np.float32)
    fids = (13 * np.arange(100000)) % 3100 - 50
    h = f[np.clip(fids, 0, 2999)]
    e = np.arange(300)
    eids = (7 * np.arange(300000)) % 300 - 20
    x = e[np.clip(eids, 0, 299)]
    return [s32_checksum(g), Lit("s32", g[:3]), s32_checksum(h.astype(np.int64)),
            Lit("f32", h[99996:]), s32_checksum(x)]


@golden("scatter_rows_large")
def _(c):
    rows = 20000
    t = 500 * np.arange(rows, dtype=np.int64)[:, None] + np.arange(64)[None, :]
    i = np.arange(3000, dtype=np.int64)
    ids = 7 * ((7919 * i) % 2920) - 300
    u = 3 * i[:, None] + np.arange(64)[None, :] - 50

    def rows_in_order(base, op):
        out = base.copy()
        for w in range(3000):
            if 0 <= ids[w] < rows:
                out[ids[w]] = op(out[ids[w]], u[w])
        return out
    added = rows_in_order(t, np.add)
    maxed = rows_in_order(t, np.maximum)
    put = rows_in_order(t, lambda a, b: b)
    inplace = rows_in_order(t + 1, np.add)
    tf, uf = t.astype(np.float32), u.astype(np.float32)
    addf = tf.copy()
    for w in range(3000):
        if 0 <= ids[w] < rows:
            addf[ids[w]] = addf[ids[w]] + uf[w]
    assert np.abs(addf).max() < 2 ** 24  # integers: exact in f32
    pairs = t.copy()
    u2 = u.reshape(1500, 2, 64)
    for w in range(1500):
        if 0 <= ids[w] and ids[w] + 2 <= rows:
            pairs[ids[w]:ids[w] + 2] += u2[w]
    return [s32_checksum(added), s32_checksum(maxed), s32_checksum(put),
            s32_checksum(inplace), s32_checksum(addf.astype(np.int64)), s32_checksum(pairs),
            Lit("s32", added[14252:14255])]


@golden("sort_multi_operand")
def _(c):
    a = sort_([c.in0, c.in1], 0, lambda x, y: x[0] > y[0])
    assert [r.a.tolist() for r in a] == [[[3, 2, 3], [1, 2, 1]], [[1, 2, 1], [3, 2, 3]]], \
        "the spec's printed result"
    b = sort_([c.o0, c.o1, c.o2], 0, lambda x, y: x[0] < y[0])
    assert [r.a.tolist() for r in b[:2]] == [[1, 3], [50, 42]], "XLA's printed result"
    assert [float(v) for v in b[2].a] == [float(np.float32(1.1)), -3.0]
    cc = sort_([c.k, c.f, c.u], 1,
               lambda x, y: x[0] < y[0] or (x[0] == y[0] and float(x[1]) > float(y[1])))
    d = sort_([c.p, c.q], 0, lambda x, y: float(y[1]) < float(x[1]))  # compare(d, c), LT
    e = sort_(c.cube, 0, lambda x, y: x < y)
    return [a, b, cc, d, e]


@golden("sort_stable")
def _(c):
    by_key = lambda x, y: x[0] < y[0]  # noqa: E731
    a = sort_([c.key8, c.pos], 1, by_key)
    # The permutation is np.argsort(kind='stable') of each row.
    for row_keys, row_pos in zip(as_int_lists(c.key8), as_int_lists(a[1])):
        assert row_pos == list(np.argsort(np.array(row_keys), kind="stable"))
    b = sort_([c.key8, c.pos], 1, lambda x, y: y[0] < x[0])
    total = sort_(c.specials, 0,
                  lambda x, y: ge.total_key("f32", x) < ge.total_key("f32", y))
    d = sort_([c.zeros, c.zpos], 0, lambda x, y: float(x[0]) < float(y[0]))
    e = sort_(c.h, 0, lambda x, y: x > y)
    f = sort_([c.big, c.sgn], 0, lambda x, y: x[0] < y[0])
    g = sort_([c.big, c.sgn], 0, lambda x, y: x[1] < y[1])
    p = sort_(c.flags, 0, lambda x, y: int(x) < int(y))
    m = sort_(c.mags, 1, lambda x, y: abs(x) < abs(y))
    return [a, b, total, d, e, f, g, p, m]


@golden("sort_jax_comparator")
def _(c):
    def keyed(t, canon):
        return lambda x, y: ge.total_key(t, canon(x)) < ge.total_key(t, canon(y))

    def jax(x):  # select(x != x, nan, select(x == 0, 0, x))
        return np.float32(NAN) if ge.isnan(x) else (np.float32(0) if x == 0 else x)

    def other(x):  # select(1 == x, 5, select(x != x, -nan, x))
        return 5.0 if x == 1 else (-NAN if ge.isnan(x) else x)

    jax_lt = keyed("f32", jax)
    a = sort_([c.x, c.i], 1, lambda x, y: jax_lt(x[0], y[0]))
    other_lt = keyed("bf16", other)
    b = sort_(c.h, 0, lambda x, y: other_lt(y, x))  # GT
    # x NE x with type=TOTALORDER is never true: the select keeps x.
    cc = sort_(c.y, 0, keyed("f32", lambda x: x))
    return [a, b, cc]


@golden("sort_order_total")
def _(c):
    def keyed(t, canon):
        return lambda x, y: ge.total_key(t, canon(x)) < ge.total_key(t, canon(y))

    def jax(x):  # select(x != x, nan, select(x == 0, 0, x))
        return np.float32(NAN) if ge.isnan(x) else (np.float32(0) if x == 0 else x)

    a = sort_([c.x, c.i], 1, lambda x, y: keyed("f32", jax)(x[0], y[0]))
    b = sort_(c.y, 0, keyed("f32", lambda x: x))
    # total order of -x is the reverse of x's: negation flips the sign bit only.
    cc = sort_(c.w, 0, lambda x, y: keyed("f64", lambda v: v)(y, x))
    return [a, b, cc]


@golden("topk_op")
def _(c):
    return [topk(c.x, 3, True), topk(c.x, 4, False), topk(c.x, 6, True), topk(c.x, 0, True),
            topk(c.y, 2, True), topk(c.h, 2, False), topk(c.s, 7, True)]


@golden("custom_call_topk")
def _(c):
    # TopK without a comparator and with the select-wrapped TOTALORDER GT:
    # the k largest; with LT: the k smallest.
    return [topk(c.x, 2, True), topk(c.x, 3, True), topk(c.v, 3, False)]


# The comparators of after.hlo and XLA's rewrites, restated: a float's
# total-order key (XLA's total order as integers), after JAX's
# canonicalising selects when asked (NaNs -> +NaN, -0 -> +0).
def tkey(t, canonical=False):
    def key(v):
        if canonical:
            v = NAN if ge.isnan(v) else (0.0 if v == 0 else v)
        return ge.total_key(t, v)
    return key


def iota_lit(dims, dim):
    a = np.indices(dims)[dim]
    return Lit("s32", a.astype(object))


def check_argsort(keys, perm):
    """perm (a sort's iota payload) is np.argsort(kind='stable') of keys."""
    assert list(perm) == list(np.argsort(np.array(keys), kind="stable")), "not a stable argsort"


@golden("sort_total_order_bits")
def _(c):
    i = iota_lit((2, 10), 1)
    f32, jax = tkey("f32"), tkey("f32", canonical=True)
    a = sort_([c.x, i], 1, lambda x, y: jax(x[0]) < jax(y[0]))
    b = sort_([c.x, i], 1, lambda x, y: f32(x[0]) < f32(y[0]))
    xt = Lit("f32", c.x.a.T.copy())
    cc = sort_([xt, iota_lit((10, 2), 0)], 0, lambda x, y: f32(x[0]) < f32(y[0]))
    d = sort_(c.w, 0, lambda x, y: tkey("f64")(x) < tkey("f64")(y))
    bf = tkey("bf16")
    e = sort_(c.h, 0, lambda x, y: bf(x) > bf(y))
    f = sort_([c.x, i], 1, lambda x, y: f32(x[0]) > f32(y[0]))
    # bf16 -> f32 is exact (NaNs keep their sign): the f32 key orders as bf16's.
    g = sort_(c.h, 0, lambda x, y: f32(np.float32(x)) > f32(np.float32(y)))
    return [a, b, cc, d, e, f, g]


@golden("custom_call_topk_comparators")
def _(c):
    f32 = tkey("f32")
    return [topk(c.x, 1, True), topk(c.x, 3, True), topk(c.x, 8, True),
            topk_by(c.x, 4, lambda v, j: (-f32(v), -j)),
            topk_by(c.y, 3, lambda v, j: -float(v)),  # IEEE: -0 == +0
            topk(c.h, 3, True),
            topk_by(c.y, 4, lambda v, j: -abs(float(v))),
            topk(c.x, 1, True), topk(c.x, 8, False)]


@golden("sort_multi_key")
def _(c):
    jax = tkey("f32", canonical=True)
    a = sort_([c.x, c.y, iota_lit((2, 9), 1)], 1,
              lambda x, y: jax(x[0]) > jax(y[0]) or (jax(x[0]) == jax(y[0]) and x[1] < y[1]))
    bf = tkey("bf16")
    lex = lambda r: (r[0], -r[1], bf(r[2]))  # noqa: E731
    b = sort_([c.u, c.v, c.h, iota_lit((10,), 0)], 0, lambda x, y: lex(x) < lex(y))
    cc = sort_([c.f, c.n], 0,
               lambda x, y: int(x[0]) < int(y[0]) if x[0] != y[0] else y[1] < x[1])
    io = np.arange(600)
    m7 = Lit("s32", np.tile(io % 7, (2, 1)).astype(object))
    m5 = Lit("s32", np.tile((io * 13) % 5, (2, 1)).astype(object))
    d = sort_([m7, m5, iota_lit((2, 600), 1)], 1,
              lambda x, y: x[0] < y[0] or (x[0] == y[0] and x[1] > y[1]))
    return [a, b, cc, d]


@golden("sort_argsort_ties")
def _(c):
    io = np.arange(1000)
    r = (io * 7) % 5
    z = (r - 2).astype(np.float32)
    z[(io % 2 == 1) & (r == 2)] = np.float32(-0.0)
    jax, f32 = tkey("f32", canonical=True), tkey("f32")
    zl = Lit("f32", z)
    a = sort_([zl, iota_lit((1000,), 0)], 0, lambda x, y: jax(x[0]) < jax(y[0]))
    check_argsort([jax(v) for v in z], a[1].a)
    b = sort_([zl, iota_lit((1000,), 0)], 0, lambda x, y: f32(x[0]) < f32(y[0]))
    check_argsort([f32(v) for v in z], b[1].a)
    cc = sort_([Lit("f32", z.reshape(4, 250)), iota_lit((4, 250), 1)], 1,
               lambda x, y: jax(x[0]) < jax(y[0]))
    d = sort_([Lit("f32", z.reshape(250, 4)), iota_lit((250, 4), 0)], 0,
              lambda x, y: f32(x[0]) < f32(y[0]))
    return [a, b, cc, d]


@golden("sort_batched_comparator")
def _(c):
    by_abs = lambda x, y: abs(float(x[0])) < abs(float(y[0]))  # noqa: E731
    a = sort_([c.x, iota_lit((37,), 0)], 0, by_abs)
    io = np.arange(900)
    y = Lit("f32", (((io * 11) % 13) - 6).astype(np.float32).reshape(300, 3))
    b = sort_([y, iota_lit((300, 3), 0)], 0, by_abs)
    cc = sort_(c.s, 1, lambda x, y: ge.irem("s32", x, 3) < ge.irem("s32", y, 3))
    d = sort_(c.h, 0, lambda x, y: abs(float(x)) > abs(float(y)))
    return [a, b, cc, d]


# Error modules: the expected stderr, from design.md's error format
# (`FILE:LINE:COL: error: %NAME: message`).
ERRORS = {
    "custom_call_unknown": ("y", "hlo-run has no implementation of custom-call target "
                                 "'my_fancy_kernel'"),
}


def error_text(name, text):
    inst, message = ERRORS[name]
    for n, line in enumerate(text.splitlines(), 1):
        m = re.match(r"^(\s*(?:ROOT\s+)?)%?" + re.escape(inst) + r"\s*=", line)
        if m:
            return f"eval/{name}.hlo:{n}:{len(m.group(1)) + 1}: error: %{inst}: {message}\n"
    raise ValueError(f"{name}: no instruction {inst}")


# ============================================================================
# Driver
# ============================================================================

def generate(w, name_filter):
    """Writes (or checks) the family's files; returns its number of modules."""
    names = sorted(f[:-len(".hlo")] for f in os.listdir(EVAL_DIR)
                   if f.endswith(".hlo") and f.startswith(PREFIXES))
    for name in names:
        if not re.search(name_filter, name):
            continue
        path = os.path.join(EVAL_DIR, name + ".hlo")
        text, consts = ge.read_module(path)
        w.claim_module(f"eval/{name}.hlo", text)
        first = text.splitlines()[0]
        if name in ERRORS:
            if not first.startswith("// RUN-ERROR: hlo-run %s"):
                w.problem(f"{name}.hlo: must start with `// RUN-ERROR: hlo-run %s`")
                continue
            w.file(f"eval/{name}.err", error_text(name, text))
            continue
        if name not in TESTS:
            w.problem(f"{name}.hlo: no generator in scripts/goldens/indexing.py")
            continue
        if not first.startswith("// RUN: hlo-run %s"):
            w.problem(f"{name}.hlo: must start with `// RUN: hlo-run %s`")
            continue
        try:
            res = TESTS[name](consts)
        except Exception as e:  # a bug in a generator; say where
            import traceback
            w.problem(f"{name}: generator failed: {e!r}")
            if w.verbose:
                traceback.print_exc()
            continue
        want_shape = ge.declared_root_shape(text)
        got_shape = ge.result_shape(res).replace(" ", "")
        if want_shape is not None and want_shape != got_shape:
            w.problem(f"{name}: generator gives {got_shape}, the ROOT is {want_shape}")
            continue
        w.file(f"eval/{name}.out", ge.result_text(res) + "\n")
    for name in sorted(set(TESTS) | set(ERRORS)):
        if name not in names:
            w.problem(f"{name}: generator without testdata/eval/{name}.hlo")
    return len(names)
