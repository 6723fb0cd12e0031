# Expected values and inputs of testdata/eval/convolution_winograd*.hlo: 2-D
# 3x3 stride-1 convolutions with enough features for hlo-run's Winograd
# F(2x2, 3x3) path (eval/kernels/convolution_winograd.h). Run inside
# core.py's namespace (eval.py executes every
# scripts/goldens/eval_*.py), so `golden`, `convolution`, `Lit`, `tup`
# and `INPUT_FILES` are its own.
#
# convolution_winograd (exact): integer inputs in [-3, 3]. On the Winograd
# path every intermediate is then a multiple of 1/4 of magnitude below 2^14
# (|B^T d B| <= 12, |G g G^T| <= 27/4, 16 or 20 products summed, then at
# most 9 of those), so f32 holds each exactly and the result is the exact
# sum in any summation order: the spec's convolution with exact sums.
#
# convolution_winograd_float (tolerance): uniform values in [-1, 1), the
# reference in float64 (numpy, pad and slide the window) rounded to f32.
# A result sums K = 9 * 24 = 216 products; atol = K * 2^-23 (about 2.6e-5)
# allows each of the K additions an error of one ulp of 1 (the partial
# sums of these values mostly stay below 2 in magnitude). Measured largest
# errors against the float64 result: 4.3e-6 on the Winograd path, 7.9e-6
# on hlo-run's im2col path (before Winograd); a wrong transform coefficient
# or tile errs by 0.1 or more.

_WINOGRAD_RNG_SEED = 20261122


def _winograd_inputs():
    rng = np.random.default_rng(_WINOGRAD_RNG_SEED)
    ints = lambda shape, dt: rng.integers(-3, 4, size=shape).astype(dt)
    return {
        "convolution_winograd.p0.npy": ints((12, 5, 7, 16), np.float32),    # NHWC
        "convolution_winograd.p1.npy": ints((3, 3, 16, 16), np.float32),   # HWIO
        "convolution_winograd.p2.npy": ints((12, 20, 4, 5), np.float64),    # NCHW
        "convolution_winograd.p3.npy": ints((17, 20, 3, 3), np.float64),   # OIHW
    }


def _winograd_float_inputs():
    rng = np.random.default_rng(_WINOGRAD_RNG_SEED + 1)
    return {
        "convolution_winograd_float.p0.npy":
            rng.uniform(-1, 1, size=(4, 9, 11, 24)).astype(np.float32),   # NHWC
        "convolution_winograd_float.p1.npy":
            rng.uniform(-1, 1, size=(3, 3, 24, 16)).astype(np.float32),   # HWIO
    }


INPUT_FILES["convolution_winograd"] = _winograd_inputs
INPUT_FILES["convolution_winograd_float"] = _winograd_float_inputs


@golden("convolution_winograd")
def _(c):
    x, k, y, w = c.inputs
    nhwc = "b01f_01io->b01f"
    return tup(convolution(x, k, "f32", nhwc),
               convolution(x, k, "f32", nhwc, pad_=[(1, 1), (1, 1)]),
               convolution(x, k, "f32", nhwc, pad_=[(2, 2), (2, 2)]),
               convolution(x, k, "f32", nhwc, pad_=[(1, 0), (0, 2)]),
               convolution(y, w, "f64", "bf01_oi01->bf01", pad_=[(1, 1), (1, 1)]),
               convolution(y, w, "f64", "bf01_oi01->01bf", pad_=[(2, 1), (0, 1)]))


def _conv_nhwc_f64(x, k, pad):
    """float64 correlation of NHWC x with HWIO k (3x3, stride 1), padded."""
    xp = np.pad(x.astype(np.float64), [(0, 0), pad[0], pad[1], (0, 0)])
    oh, ow = xp.shape[1] - 2, xp.shape[2] - 2
    out = np.zeros((x.shape[0], oh, ow, k.shape[3]))
    for a in range(3):
        for b in range(3):
            out += np.einsum("nhwc,co->nhwo", xp[:, a:a + oh, b:b + ow, :], k[a, b].astype(np.float64))
    return Lit("f32", out.astype(np.float32))


@golden("convolution_winograd_float", tol=(0, 2.6e-5))
def _(c):
    x, k = (l.a for l in c.inputs)
    return tup(_conv_nhwc_f64(x, k, [(1, 1), (1, 1)]),
               _conv_nhwc_f64(x, k, [(0, 0), (0, 0)]),
               _conv_nhwc_f64(x, k, [(2, 0), (1, 2)]))
