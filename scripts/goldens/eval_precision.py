# Expected values of testdata/eval/precision_f64.hlo and
# testdata/eval/reduce_sum_pairwise.hlo (run inside core.py's
# namespace; eval.py executes every scripts/goldens/eval_*.py).
#
# precision_f64 (exact): hlo-run --precision=f64 computes every f32/bf16
# operation in f64 and rounds only the outputs to their declared types, so
# the expected value of each output is the float64 computation on the
# module's constants (each an exact f32/bf16 value), rounded once: float64
# holds every intermediate here exactly (sums of integers below 2^53, one
# product of f32 values), except exp, whose float64 result (glibc, correctly
# rounded) is rounded to f32. Converts between float types are exact in the
# wide module, so bf16(f32(1/3)) stays f32(1/3); reduce-precision keeps its
# format (1 mantissa bit: 0.3 -> 0.25).
#
# reduce_sum_pairwise (tolerance): the f32 values x[i] = f32(f32(i mod 997) *
# f32(0.001)) (numpy's float32 multiply rounds as IEEE does), summed in
# float64 (exact to far below an f32 ULP for 2^20 terms) and rounded to f32.


@golden("precision_f64")
def _(c):
    x = c.x.a.astype(np.float64)
    cancel = (x + 1e8) - 1e8
    total = 1e8 + 1000 * 1.0
    acc = 0.0
    for _ in range(10):
        acc += float(c["body/tenth"].a)
    qback = (c.q.a + 256.0) - 256.0  # bf16 values held as float64
    dotv = float(np.dot(c.u.a.astype(np.float64), c.w.a.astype(np.float64)))
    tf = float(c.third.a)
    rp = reduce_precision(Lit("f64", np.float64(float(c.point3.a))), 8, 1)
    e = np.array([math.exp(float(v)) for v in c.ex.a])
    return tup(Lit("f32", cancel.astype(np.float32)), Lit("f32", np.float32(total)),
               Lit("f32", np.float32(acc)), Lit("bf16", np.array([round_small(v, "bf16") for v in qback])),
               Lit("f32", np.float32(dotv)), Lit("f32", np.float32(tf)),
               Lit("f32", np.float32(rp.a)), Lit("f32", e.astype(np.float32)))


@golden("reduce_sum_pairwise", tol=(2.4e-07, 0))
def _(c):
    n = 1 << 20
    x = (np.arange(n) % 997).astype(np.float32) * np.float32(0.001)
    x64 = x.astype(np.float64)
    f = lambda a: Lit("f32", np.asarray(a).astype(np.float32))
    tenths = n * float(np.float32(0.1))
    return tup(f(x64.sum()), f(x64.reshape(4096, 256).sum(axis=0)),
               f(x64.reshape(64, 64, 256).sum(axis=1)), f(x64.reshape(16, 65536).sum(axis=1)),
               f(tenths))
