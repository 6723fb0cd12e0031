# Expected values and inputs of testdata/eval/convolution_paths.hlo: one
# convolution per fast path of eval/kernels/convolution*.cc, with the forms
# XLA emits (weight and input gradients, groups, strides, dilations). Run
# inside core.py's namespace (eval.py executes every
# scripts/goldens/eval_*.py), so `golden`, `convolution`, `Lit`, `tup`
# and `INPUT_FILES` are its own.
#
# Integer inputs in [-3, 3] make every sum exact in f32/f64 (at most a few
# thousand products of magnitude <= 9), so each result is the spec's
# convolution with exact sums whatever order hlo-run sums in; the reference
# is eval_dot_conv.py's `convolution` (pad, dilate, slide the
# window, exact products).
#
# The paths (see the module's comments): the input read in place with
# virtual padding (positive, negative, asymmetric) and the kernel in place,
# im2col in several row blocks on several workers, pointwise with strides or
# padding, grouped with the kernel in place, depthwise (multiplier 1 with a
# feature tail past 16, multiplier 2, f64; 75 and 37 features), weight gradients (f01b_i01o->01bf
# with a window as large as the input, with and without batch groups, and
# one long enough that its single block is split across the cores), input
# gradients (lhs dilation, reversed 01oi kernel), 3-D with negative padding.

_CONV_PATHS_RNG_SEED = 20261205

_CONV_PATHS_SHAPES = [
    ("p0", (2, 20, 20, 64), np.float32),   # x: NHWC, 64 features
    ("p1", (3, 3, 64, 4), np.float32),     # HWIO for x
    ("p2", (2, 9, 9, 8), np.float32),      # small NHWC
    ("p3", (1, 1, 8, 5), np.float32),      # 1x1 HWIO
    ("p4", (2, 7, 9, 20), np.float32),     # depthwise input
    ("p5", (3, 3, 1, 20), np.float32),     # depthwise kernel
    ("p6", (3, 3, 1, 40), np.float32),     # depthwise kernel, multiplier 2
    ("p7", (3, 3, 4, 6), np.float32),      # grouped kernel (2 groups of 4 -> 3)
    ("p8", (4, 12, 12, 3), np.float32),    # weight gradient: activations NHWC
    ("p9", (4, 12, 12, 5), np.float32),    # weight gradient: output gradients
    ("p10", (2, 5, 5, 6), np.float32),     # input gradient: output gradients
    ("p11", (3, 3, 4, 6), np.float32),     # input gradient: forward kernel as 01oi
    ("p12", (2, 4, 5, 6, 3), np.float32),  # 3-D NDHWC
    ("p13", (2, 2, 3, 3, 2), np.float32),  # 3-D DHWIO
    ("p14", (2, 6, 6, 10), np.float64),    # f64 depthwise input
    ("p15", (3, 3, 1, 10), np.float64),    # f64 depthwise kernel
    ("p16", (2, 5, 6, 75), np.float32),    # depthwise input, 75 features
    ("p17", (3, 3, 1, 75), np.float32),    # its kernel
    ("p18", (2, 5, 6, 37), np.float64),    # f64 depthwise input, 37 features
    ("p19", (3, 3, 1, 37), np.float64),    # its kernel
    ("p20", (4, 16, 16, 16), np.float32),  # weight gradient split across cores: activations
    ("p21", (4, 16, 16, 12), np.float32),  # its output gradients
]


def _conv_paths_inputs():
    rng = np.random.default_rng(_CONV_PATHS_RNG_SEED)
    return {f"convolution_paths.{name}.npy": rng.integers(-3, 4, size=shape).astype(dt)
            for name, shape, dt in _CONV_PATHS_SHAPES}


INPUT_FILES["convolution_paths"] = _conv_paths_inputs


@golden("convolution_paths")
def _(c):
    (x, k, s, k1, dx, dk, dk2, gk, wa, wg, ig, ik, x3, k3, dx64, dk64, wx, wk, wx64,
     wk64, sa, sg) = c.inputs
    nhwc = "b01f_01io->b01f"
    wgrad = "f01b_i01o->01bf"
    return tup(
        # in place, virtual padding, several row blocks: 800 rows x 576
        convolution(x, k, "f32", nhwc, pad_=[(2, 2), (2, 2)], rhs_dil=[2, 2]),
        convolution(x, k, "f32", nhwc, stride=[2, 3], pad_=[(1, 2), (-1, 1)]),
        convolution(x, k, "f32", nhwc, pad_=[(1, 1), (1, 1)]),
        # pointwise: strided, padded
        convolution(s, k1, "f32", nhwc, stride=[2, 2]),
        convolution(s, k1, "f32", nhwc, pad_=[(1, 0), (0, 1)]),
        convolution(s, k1, "f32", nhwc),
        # depthwise, multiplier 1 and 2
        convolution(dx, dk, "f32", nhwc, stride=[2, 1], pad_=[(1, 1), (2, 0)], fgc=20),
        convolution(dx, dk2, "f32", nhwc, pad_=[(1, 1), (1, 1)], fgc=20),
        convolution(dx, dk, "f32", nhwc, rhs_dil=[2, 2], pad_=[(2, 2), (-1, 3)], fgc=20),
        # grouped, kernel in place
        convolution(s, gk, "f32", nhwc, pad_=[(1, 1), (1, 1)], fgc=2),
        # weight gradients
        convolution(wa, wg, "f32", wgrad, pad_=[(1, 1), (1, 1)]),
        convolution(wg, wg, "f32", wgrad, pad_=[(1, 1), (1, 1)], bgc=5),
        # input gradient of a stride-2 3x3 convolution
        convolution(ig, ik, "f32", "b01f_01oi->b01f", pad_=[(2, 2), (2, 2)],
                    lhs_dil=[2, 2], rev=[True, True]),
        # 3-D, negative padding
        convolution(x3, k3, "f32", "b012f_012io->b012f", pad_=[(-1, 1), (1, 0), (0, 1)]),
        # f64 depthwise
        convolution(dx64, dk64, "f64", nhwc, pad_=[(1, 1), (1, 1)], fgc=10),
        # depthwise with many features: whole four-register chunks, a
        # register tail and a scalar tail at every vector width (16, 32, 64
        # bytes)
        convolution(wx, wk, "f32", nhwc, pad_=[(1, 1), (1, 1)], fgc=75),
        convolution(wx64, wk64, "f64", nhwc, pad_=[(1, 1), (0, 2)], fgc=37),
        # a weight gradient whose one im2col block (144 rows of 1024) is
        # split into a block per core
        convolution(sa, sg, "f32", wgrad, pad_=[(1, 1), (1, 1)]),
    )
