# Expected value of testdata/eval/data_copy_large.hlo: copies of 2 MiB and
# more (the size from which eval/kernels/data_copy.cc splits a copy across
# the cores), each compared in the module with values computed from iotas in
# the result's coordinates. Run inside core.py's namespace (eval.py
# executes every scripts/goldens/eval_*.py), so `golden`, `L` and `tup`
# are its own. Restated here with numpy: build each operand from its iota
# formula, copy or transpose it, and compare with the result formula.


def _iota(shape, dim, dtype):
    return np.broadcast_to(np.arange(shape[dim], dtype=dtype).reshape(
        [-1 if d == dim else 1 for d in range(len(shape))]), shape)


@golden("data_copy_large")
def _(c):
    i = lambda shape, d, dt=np.int32: _iota(shape, d, dt)
    a = i((600, 1000), 0) * 1000 + i((600, 1000), 1)
    e = i((1000, 600), 1) * 1000 + i((1000, 600), 0)
    u = i((3, 400, 500), 0) * 1000000 + i((3, 400, 500), 1) * 1000 + i((3, 400, 500), 2)
    v = i((3, 500, 400), 0) * 1000000 + i((3, 500, 400), 2) * 1000 + i((3, 500, 400), 1)
    w = i((4, 300, 8, 64), 1)
    x = i((4, 8, 300, 64), 2)
    l = i((400, 700), 0, np.int64) * 1000 + i((400, 700), 1, np.int64)
    m = i((700, 400), 1, np.int64) * 1000 + i((700, 400), 0, np.int64)
    same = lambda p, q: L("pred", bool(np.array_equal(p, q)))
    return tup(same(np.transpose(a, (1, 0)), e), same(np.transpose(u, (0, 2, 1)), v),
               same(np.transpose(w, (0, 2, 1, 3)), x), same(a.copy(), a),
               same(np.transpose(l, (1, 0)), m))
