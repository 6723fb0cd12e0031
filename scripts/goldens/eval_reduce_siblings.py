# Expected values of testdata/eval/reduce_siblings_f32.hlo and
# reduce_siblings_int.hlo: several reduces of one operand (row, column and
# whole reductions, which hlo-run runs as one pass over the operand,
# eval/fusion/reduce_siblings.h), split over cores by rows or, for few long rows,
# by columns; a lone column reduction; NaN in max/min; f64. Run inside
# core.py's namespace (eval.py executes every
# scripts/goldens/eval_*.py).
#
# reduce_siblings_f32 (tolerance): the module's own inputs, restated with
# numpy float32 arithmetic (which rounds as IEEE does); sums and products in
# float64 (exact to far below an f32 ULP here) rounded to the output type;
# max/min exact. The tolerance covers the order of a float sum, which XLA
# leaves open: the pairwise fast path, and --no-fast-paths' sequential folds.
#
# reduce_siblings_int (exact): wrapping integer arithmetic and pred and/or
# are associative, so every order gives these values.


def _sibling_flat():
    i = np.arange(265189)
    f = ((i * 7) % 1009).astype(np.float32)
    return i, (f * np.float32(0.001)) + np.float32(0.5)


@golden("reduce_siblings_f32", tol=(1e-05, 0))
def _(c):
    i, flat = _sibling_flat()
    f32 = lambda a: Lit("f32", np.asarray(a).astype(np.float32))
    x = flat.reshape(521, 509)
    x64 = x.astype(np.float64)
    y = np.where(i % 4099 == 17, np.float32("nan"), flat).reshape(521, 509)
    w64 = flat[589:].reshape(63, 4200).astype(np.float64)
    z = flat[:67193].reshape(7, 29, 331)
    twos = (flat + flat).reshape(521, 509).astype(np.float64)
    # numpy's max/min propagate NaN, as maximum/minimum do
    return tup(f32(x64.sum(axis=1)), f32(x64.sum(axis=0)), f32(x.max()), f32(x.min(axis=0)),
               f32(x64.sum()), f32(np.prod(x64, axis=0)), f32(y.max()), f32(y.max(axis=0)),
               f32(y.astype(np.float64).sum(axis=1)), f32(z.astype(np.float64).sum(axis=(0, 1))),
               f32(z.max(axis=2)), f32(w64.sum(axis=1)), f32(w64.max(axis=0)), f32(w64.sum()),
               f32(w64.min()), Lit("f64", x64.sum(axis=1)), Lit("f64", x64.sum(axis=0)),
               f32(twos.sum(axis=0)))


@golden("reduce_siblings_int")
def _(c):
    import functools
    a = ((np.arange(265189) % 1013) * 3 - 1500).reshape(521, 509)
    b = (np.arange(264600) % 251).reshape(63, 4200)
    p = (np.arange(265000) % 97 != 3).reshape(500, 530)
    q = np.arange(265000).reshape(10, 53, 500)

    def fold(t, fn, arr, init):
        return wrap(t, functools.reduce(fn, (int(v) for v in arr), init))

    def along(t, fn, arr, init, axis):
        moved = np.moveaxis(arr, axis, -1)
        return Lit(t, np.array([fold(t, fn, r, init) for r in moved.reshape(-1, moved.shape[-1])],
                               dtype=object).reshape(moved.shape[:-1]))

    def whole(t, fn, arr, init):
        return Lit(t, np.array(fold(t, fn, arr.reshape(-1), init), dtype=object))

    add = lambda x, y: x + y
    mul = lambda x, y: wrap("s32", x * y)
    xor = lambda x, y: x ^ y
    pred = lambda arr: Lit("pred", np.asarray(arr, dtype=object))
    return tup(along("s32", add, a, 0, 1), along("s32", add, a, 0, 0), whole("s32", max, a, -2**31),
               along("s32", min, a, 2**31 - 1, 0), along("s32", mul, a, 1, 1),
               whole("s32", lambda x, y: x & y, a, -1), along("s32", lambda x, y: x | y, a, 0, 1),
               along("s32", xor, a, 0, 0), along("u8", add, b, 0, 1), along("u8", max, b, 0, 0),
               whole("u8", lambda x, y: x | y, b, 0), whole("u8", add, b, 0),
               pred(p.all(axis=1)), pred(p.any(axis=0)), pred(p.all()), pred(p.any(axis=1)),
               Lit("s64", q.sum(axis=(0, 1)).astype(object)), Lit("s64", q.max(axis=2).astype(object)))
