# Expected values of testdata/eval/dot_algorithm.hlo (run inside core.py's
# namespace; eval.py executes every scripts/goldens/eval_*.py).
#
# Each dot contracts one element, so every result element is a product of
# two operand parts, or a sum of such products in a fixed order: float32
# arithmetic (numpy's, IEEE) gives it exactly. The algorithms, as XLA:GPU's
# DotAlgorithmRewriter writes them: bf16/f16 round the operands to nearest
# even (round_small); tf32 rounds them with reduce-precision(8, 10); the x3,
# x6 and x9 forms split an operand by clearing its low bits (16 for bf16, 13
# for TF32) and keeping the rest, sum the part products smallest first, and
# replace a NaN of that sum by 0 before adding hi * hi.

DA_BF16_MASK = np.uint32(0xFFFF0000)
DA_TF32_MASK = np.uint32(0xFFFFE000)


def _da_truncate(x, mask):
    return (np.asarray(x, np.float32).view(np.uint32) & mask).view(np.float32)


def _da_round(x, t):
    return np.array([round_small(float(v), t) for v in np.asarray(x).reshape(-1)],
                    np.float32).reshape(np.shape(x))


def _da_tf32(x):
    return reduce_precision(Lit("f32", x), 8, 10).a


def _da_split(x, count, mask, to_bf16):
    parts, rest = [], np.asarray(x, np.float32)
    with np.errstate(invalid="ignore"):
        for _ in range(count - 1):
            part = _da_truncate(rest, mask)
            parts.append(part)
            rest = (rest - part).astype(np.float32)
    parts.append(rest)
    return [_da_round(p, "bf16") for p in parts] if to_bf16 else parts


def _da_products(lp, rp, order, each=lambda x: x):
    total = None
    with np.errstate(invalid="ignore"):
        for k, (i, j) in enumerate(order):
            d = (each(lp[i]) * each(rp[j])).astype(np.float32)  # outer product, K = 1
            if k + 1 == len(order):
                total = np.where(np.abs(total) <= np.float32(np.inf), total, np.float32(0))
            total = d if total is None else (total + d).astype(np.float32)
    return total


DA_X3 = [(1, 0), (0, 1), (0, 0)]
DA_X6 = [(1, 1), (0, 2), (2, 0), (0, 1), (1, 0), (0, 0)]
DA_X9 = [(2, 2), (2, 1), (1, 2), (1, 1), (0, 2), (2, 0), (0, 1), (1, 0), (0, 0)]


@golden("dot_algorithm")
def _(c):
    a = c.a.a.astype(np.float32)  # [4, 1]
    b = c.b.a.astype(np.float32)  # [1, 3]
    f = lambda x: Lit("f32", np.asarray(x, np.float32))
    with np.errstate(invalid="ignore"):
        plain = (a * b).astype(np.float32)
        bf16 = (_da_round(a, "bf16") * _da_round(b, "bf16")).astype(np.float32)
        tf32 = (_da_tf32(a) * _da_tf32(b)).astype(np.float32)
        f16 = (_da_round(a, "f16") * _da_round(b, "f16")).astype(np.float32)
    x3 = _da_products(_da_split(a, 2, DA_BF16_MASK, True), _da_split(b, 2, DA_BF16_MASK, True), DA_X3)
    x6 = _da_products(_da_split(a, 3, DA_BF16_MASK, True), _da_split(b, 3, DA_BF16_MASK, True), DA_X6)
    x9 = _da_products(_da_split(a, 3, DA_BF16_MASK, True), _da_split(b, 3, DA_BF16_MASK, True), DA_X9)
    # The partial dots of tf32 x3 are dot_tf32_tf32_f32: their operands rounded too.
    tf32x3 = _da_products(_da_split(a, 2, DA_TF32_MASK, False), _da_split(b, 2, DA_TF32_MASK, False), DA_X3,
                       each=_da_tf32)
    return tup(f(plain), f(bf16), f(x3), f(x6), f(x9), f(tf32), f(tf32x3), f(f16))
