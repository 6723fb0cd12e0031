# Expected values of the rng-bit-generator, rng-get-and-update-state,
# dynamic-reshape and copy-start/copy-done modules of testdata/eval.
# Run inside core.py's namespace (eval.py executes every
# scripts/goldens/eval_*.py), so `golden`, `L` and `tup` are its own.
#
# Threefry-2x32-20 and Philox-4x32-10 are written here from Salmon et al.
# (SC 2011) and checked at load time against the Random123 known-answer
# vectors; the layouts follow XLA's prng.cc / RngBitGeneratorExpander as
# described in eval/kernels/prng.h (counter = state + row-major block index;
# Threefry 32-bit words paired along the first even dimension, else the
# largest; Philox words round-robin over blocks).

_M32 = 0xFFFFFFFF
_M64 = (1 << 64) - 1


def _rotl(v, d):
    return ((v << d) | (v >> (32 - d))) & _M32


def threefry2x32(x, k):
    rot = [13, 15, 26, 6, 17, 29, 16, 24]
    ks = [k[0], k[1], 0x1BD11BDA ^ k[0] ^ k[1]]
    x = [(x[0] + ks[0]) & _M32, (x[1] + ks[1]) & _M32]
    for g in range(5):
        for r in rot[(g % 2) * 4:(g % 2) * 4 + 4]:
            x[0] = (x[0] + x[1]) & _M32
            x[1] = _rotl(x[1], r) ^ x[0]
        x[0] = (x[0] + ks[(g + 1) % 3]) & _M32
        x[1] = (x[1] + ks[(g + 2) % 3] + g + 1) & _M32
    return x


def philox4x32(c, k):
    c, k = list(c), list(k)
    for _ in range(10):
        p0, p1 = c[0] * 0xD2511F53, c[2] * 0xCD9E8D57
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & _M32, (p0 >> 32) ^ c[3] ^ k[1], p0 & _M32]
        k = [(k[0] + 0x9E3779B9) & _M32, (k[1] + 0xBB67AE85) & _M32]
    return c


# Random123 tests/kat_vectors.
assert threefry2x32([0, 0], [0, 0]) == [0x6b200159, 0x99ba4efe]
assert threefry2x32([_M32, _M32], [_M32, _M32]) == [0x1cb996fc, 0xbb002be7]
assert threefry2x32([0x243f6a88, 0x85a308d3], [0x13198a2e, 0x03707344]) == [0xc4923a9c, 0x483df7a0]
assert philox4x32([0] * 4, [0, 0]) == [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
assert philox4x32([_M32] * 4, [_M32, _M32]) == [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]
assert philox4x32([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0]) == \
    [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]


def _split(v):
    return [v & _M32, v >> 32]


def _bits_type(t):
    return int(re.match(r"[a-z]+(\d+)", t).group(1))


def _store(t, dims, words):
    """Words (ints) to a literal of type t: the low bits, wrapped into t."""
    w = _bits_type(t)
    vals = [x & ((1 << w) - 1) for x in words]
    return L(t, np.array(vals, dtype=object).reshape(dims))


def threefry_gen(state, t, dims):
    key, ctr = state
    n = int(np.prod(dims)) if dims else 1
    if _bits_type(t) == 64:
        out = []
        for i in range(n):
            x = threefry2x32(_split((ctr + i) & _M64), _split(key))
            out.append(x[0] | x[1] << 32)
        return [key, (ctr + n) & _M64], _store(t, dims, out)
    if not dims:
        return [key, (ctr + 1) & _M64], _store(t, dims, [threefry2x32(_split(ctr), _split(key))[0]])
    d = next((i for i, s in enumerate(dims) if s % 2 == 0), None)
    if d is None:
        d = max(range(len(dims)), key=lambda i: (dims[i], -i))
    half = list(dims)
    half[d] = (dims[d] + 1) // 2
    out = np.zeros(dims, dtype=object)
    for idx in np.ndindex(*dims):
        h = list(idx)
        h[d] //= 2
        block = int(np.ravel_multi_index(h, half))
        out[idx] = threefry2x32(_split((ctr + block) & _M64), _split(key))[idx[d] % 2]
    return [key, (ctr + int(np.prod(half))) & _M64], _store(t, dims, list(out.reshape(-1)))


def philox_gen(state, t, dims):
    key = state[0]
    lo, hi = state[1], (state[2] if len(state) == 3 else state[0])
    c = lo | hi << 64
    n = int(np.prod(dims)) if dims else 1
    wide = _bits_type(t) == 64
    blocks = (n + 1) // 2 if wide else (n + 3) // 4
    words = []
    for b in range(blocks):
        v = (c + b) % (1 << 128)
        x = philox4x32([v & _M32, (v >> 32) & _M32, (v >> 64) & _M32, v >> 96], _split(key))
        words += [x[0] | x[1] << 32, x[2] | x[3] << 32] if wide else x
    nc = (c + blocks) % (1 << 128)
    new = [key, nc & _M64] + ([nc >> 64] if len(state) == 3 else [])
    return new, _store(t, dims, words[:n])


def _state(lit):
    return [int(x) for x in lit.a.reshape(-1)]


def _gen(alg, lit, t, dims):
    fn = threefry_gen if alg == "threefry" else philox_gen
    st, bits = fn(_state(lit), t, dims)
    return tup(L("u64", st), bits)


@golden("rng_bit_generator_threefry_kat")
def _(c):
    return tup(_gen("threefry", c.zero, "u64", ()), _gen("threefry", c.pi, "u64", ()),
               _gen("threefry", c.zero, "u32", (2,)), _gen("threefry", c.ones, "u64", (2,)))


@golden("rng_bit_generator_philox_kat")
def _(c):
    return tup(_gen("philox", c.zero, "u32", (4,)), _gen("philox", c.pi, "u32", (4,)),
               _gen("philox", c.ones, "u32", (4,)), _gen("philox", c.two, "u32", (4,)))


@golden("rng_bit_generator_layouts")
def _(c):
    s = c.s
    return tup(_gen("threefry", s, "u32", (3,)), _gen("threefry", s, "u32", (2, 3)),
               _gen("threefry", s, "s32", (3, 5)), _gen("threefry", s, "u8", (5,)),
               _gen("threefry", s, "s16", (3,)), _gen("threefry", s, "s64", (3,)),
               _gen("threefry", s, "u32", (1, 3)))


@golden("rng_bit_generator_philox_types")
def _(c):
    s2, s3 = c.s2, c.s3
    return tup(_gen("philox", s2, "u32", (5,)), _gen("philox", s2, "u64", (3,)),
               _gen("philox", s3, "s32", (2, 3)), _gen("philox", s3, "s64", (2, 2)),
               _gen("philox", s2, "u16", (3,)), _gen("philox", s2, "s8", (2,)),
               _gen("philox", s2, "u32", (5,)))


@golden("rng_get_and_update_state")
def _(c):
    # --seed 7: the state starts at {7, 0} and each call adds its delta to
    # the 128-bit value (low word first).
    seed, out, v = 7, [], 7
    for delta in (4, 9223372036854775807, 9223372036854775807, 1):
        out.append(L("u64", [v & _M64, v >> 64]))
        v += delta
    return tup(*out)


@golden("dynamic_reshape_basic")
def _(c):
    m = c.m.a
    return tup(L("s32", m.reshape(3, 2)), L("s32", m.reshape(6)), L("s32", m.reshape(1, 6)))


@golden("copy_start_done")
def _(c):
    return tup(c.a, c.b)
