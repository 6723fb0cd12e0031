#!/usr/bin/env python3
"""JAX programs -> XLA's own HLO dumps, their inputs and XLA:CPU's results (cases/).

Runs wherever JAX and jaxlib are installed, on the CPU backend:
    JAX_PLATFORMS=cpu python3 gen.py OUTDIR

For every case it writes OUTDIR/cases/NAME/:
    before.hlo   XLA's HLO text before optimizations (what a user's XLA dump holds)
    after.hlo    XLA:CPU's optimized HLO (fusions, layouts, copies)
    in_I.npy     the entry parameters in order (bf16/f8 saved as raw unsigned ints)
    out_I.npy    XLA:CPU's result leaves in order
    in_dD_I.npy / out_dD_I.npy   per-device shards for multi-device cases
    meta.json    dtypes, shapes, XLA:CPU median time (ms), device count
and OUTDIR/log.txt, OUTDIR/summary.json. Each case is independent: a failure is logged
and the rest still run.
"""
import json
import os
import sys
import time
import traceback

if len(sys.argv) != 2:
    sys.exit("usage: gen.py OUTDIR")
OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
DUMP = os.path.join(OUT, "dump")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           f" --xla_dump_to={DUMP} --xla_dump_hlo_as_text"
                           " --xla_force_host_platform_device_count=4").strip()

LOG = open(os.path.join(OUT, "log.txt"), "w")


def log(*a):
    s = " ".join(str(x) for x in a)
    print(s, flush=True)
    LOG.write(s + "\n")
    LOG.flush()


import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

log("jax", jax.__version__, "numpy", np.__version__, "devices", jax.devices())

SUMMARY = {}
rng = np.random.default_rng(20261126)


def f32(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def save_array(path, a):
    a = np.asarray(a)
    name = a.dtype.name
    if name == "bfloat16":
        a = a.view(np.uint16)
    elif name.startswith("float8") or name.startswith("float4") or name.startswith("int4") \
            or name.startswith("uint4"):
        a = a.view(np.uint8)
    np.save(path, a)
    return name


def median_ms(fn, args, budget=0.3, max_runs=20):
    jax.block_until_ready(fn(*args))
    times = []
    t_end = time.perf_counter() + budget
    while len(times) < max_runs and (len(times) < 3 or time.perf_counter() < t_end):
        t0 = time.perf_counter()
        jax.block_until_ready(fn(*args))
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[len(times) // 2]


def case(name, fn, args, multi=None):
    """Lower, compile and run fn(*args) with jit; save texts, inputs and outputs."""
    d = os.path.join(OUT, "cases", name)
    os.makedirs(d, exist_ok=True)
    meta = {"name": name}
    try:
        def wrapped(*a):
            return fn(*a)
        wrapped.__name__ = name
        jf = jax.jit(wrapped, keep_unused=True) if multi is None else multi(wrapped)
        lowered = jf.lower(*args)
        if os.environ.get("STABLEHLO_ONLY"):  # the StableHLO MLIR JAX hands to XLA, nothing else
            open(os.path.join(d, "stablehlo.mlir"), "w").write(lowered.as_text())
            SUMMARY[name] = True
            log(f"mlir {name}")
            return
        try:
            pre = lowered.as_text(dialect="hlo")
            open(os.path.join(d, "before.hlo"), "w").write(pre)
        except Exception as e:  # the dump's before_optimizations file has it too
            meta["before_error"] = repr(e)[:300]
        compiled = lowered.compile()
        open(os.path.join(d, "after.hlo"), "w").write(compiled.as_text())
        outs = compiled(*args)
        leaves_in = jax.tree_util.tree_leaves(args)
        leaves_out = jax.tree_util.tree_leaves(outs)
        meta["inputs"] = [save_array(os.path.join(d, f"in_{i}.npy"), x)
                          for i, x in enumerate(leaves_in)]
        meta["input_shapes"] = [list(np.shape(x)) for x in leaves_in]
        meta["outputs"] = [save_array(os.path.join(d, f"out_{i}.npy"), x)
                           for i, x in enumerate(leaves_out)]
        meta["output_shapes"] = [list(np.shape(x)) for x in leaves_out]
        if multi is not None:
            # per-device shards, device order
            for i, x in enumerate(leaves_in):
                for s in getattr(x, "addressable_shards", []):
                    save_array(os.path.join(d, f"in_d{s.device.id}_{i}.npy"), s.data)
            for i, x in enumerate(leaves_out):
                for s in getattr(x, "addressable_shards", []):
                    save_array(os.path.join(d, f"out_d{s.device.id}_{i}.npy"), s.data)
        meta["xla_cpu_median_ms"] = median_ms(compiled, args)
        meta["ok"] = True
        log(f"ok   {name}  {meta['xla_cpu_median_ms']:.3f} ms")
    except Exception as e:
        meta["ok"] = False
        meta["error"] = traceback.format_exc()[-1500:]
        log(f"FAIL {name}: {repr(e)[:400]}")
    json.dump(meta, open(os.path.join(d, "meta.json"), "w"), indent=1)
    SUMMARY[name] = meta.get("ok", False)


# ---------------------------------------------------------------- programs
# This file extends ../shared/xla-jax/gen.py's harness (above, unchanged) with
# the programs hlo's own tests need: every LAPACK routine JAX calls on CPU, for f32, f64,
# c64 and c128, batched; sorts in total order; the rbg PRNG; a shard_map over a mesh;
# a small ResNet block's gradient.
jax.config.update("jax_enable_x64", True)
try:
    from jax import shard_map  # noqa: E402
except ImportError:
    from jax.experimental.shard_map import shard_map  # noqa: E402
from jax.sharding import Mesh, PartitionSpec as P  # noqa: E402
import jax.scipy.linalg as jsl  # noqa: E402

def conv(x, w):
    return lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


def maxpool(x):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


TYPES = (np.float32, np.float64, np.complex64, np.complex128)


def mat(*shape, dtype=np.float32):
    a = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def hpd(*shape, dtype=np.float32):
    a = mat(*shape, dtype=dtype)
    n = shape[-1]
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


def herm(*shape, dtype=np.float32):
    a = mat(*shape, dtype=dtype)
    return ((a + np.conj(np.swapaxes(a, -1, -2))) / 2).astype(dtype)


def per_type(name, fn, make):
    """One module applying fn to an unbatched and a batched input of each of the four types."""
    args = []
    for t in TYPES:
        args += [make(5, 5, dtype=t), make(3, 4, 4, dtype=t)]
    case(name, lambda *xs: tuple(fn(x) for x in xs), tuple(args))


per_type("lapack_potrf", jnp.linalg.cholesky, hpd)
per_type("lapack_getrf", lambda a: lax.linalg.lu(a), mat)
per_type("lapack_solve_inv_det", lambda a: (jnp.linalg.solve(a, a[..., :2]), jnp.linalg.inv(a),
                                            jnp.linalg.det(a)), mat)
per_type("lapack_geqrf_orgqr", lambda a: (jnp.linalg.qr(a), jnp.linalg.qr(a, mode="complete"),
                                          jnp.linalg.qr(a, mode="raw"), jnp.linalg.qr(a, mode="r")),
         mat)
case("lapack_qr_rect", lambda a, b, c, d: (jnp.linalg.qr(a), jnp.linalg.qr(b, mode="complete"),
                                           jnp.linalg.qr(c), jnp.linalg.qr(d)),
     (mat(7, 4), mat(2, 4, 6, dtype=np.float64), mat(6, 3, dtype=np.complex64),
      mat(3, 5, dtype=np.complex128)))
per_type("lapack_syevd", lambda a: jnp.linalg.eigh(a), herm)
per_type("lapack_eigh_upper", lambda a: lax.linalg.eigh(a, lower=False), herm)
per_type("lapack_gesdd", lambda a: (jnp.linalg.svd(a), jnp.linalg.svd(a, full_matrices=False),
                                    jnp.linalg.svd(a, compute_uv=False)), mat)
case("lapack_gesdd_rect", lambda a, b, c, d: (jnp.linalg.svd(a), jnp.linalg.svd(b, full_matrices=False),
                                              jnp.linalg.svd(c), jnp.linalg.svd(d, compute_uv=False)),
     (mat(7, 4), mat(2, 4, 6, dtype=np.float64), mat(6, 3, dtype=np.complex64),
      mat(3, 5, dtype=np.complex128)))
per_type("lapack_gesvd", lambda a: lax.linalg.svd(a, full_matrices=True,
                                                  algorithm=lax.linalg.SvdAlgorithm.QR), mat)


def trsm_all(a, b):
    lo = jnp.tril(a) + 4 * jnp.eye(a.shape[-1], dtype=a.dtype)
    up = jnp.triu(a) + 4 * jnp.eye(a.shape[-1], dtype=a.dtype)
    return (lax.linalg.triangular_solve(lo, b, left_side=True, lower=True),
            lax.linalg.triangular_solve(up, b, left_side=True, lower=False, transpose_a=True),
            lax.linalg.triangular_solve(lo, b, left_side=True, lower=True, unit_diagonal=True),
            lax.linalg.triangular_solve(up, jnp.swapaxes(b, -1, -2), left_side=False, lower=False,
                                        transpose_a=True, conjugate_a=True),
            jsl.solve_triangular(lo, b, lower=True))


trsm_args = []
for t in TYPES:
    trsm_args += [mat(5, 5, dtype=t), mat(5, 3, dtype=t)]
case("lapack_trsm", lambda *xs: tuple(trsm_all(xs[i], xs[i + 1]) for i in range(0, 8, 2)),
     tuple(trsm_args))
trsm_b = [mat(2, 4, 4, dtype=np.float32), mat(2, 4, 2, dtype=np.float32),
          mat(2, 4, 4, dtype=np.complex128), mat(2, 4, 2, dtype=np.complex128)]
case("lapack_trsm_batched", lambda a, b, c, d: (trsm_all(a, b), trsm_all(c, d)), tuple(trsm_b))
per_type("lapack_geev", lambda a: jnp.linalg.eig(a), mat)
per_type("lapack_geev_values", lambda a: jnp.linalg.eigvals(a), mat)
case("lapack_gees", lambda a, b, c, d: (jsl.schur(a), jsl.schur(b), jsl.schur(c), jsl.schur(d)),
     (mat(5, 5), mat(5, 5, dtype=np.float64), mat(4, 4, dtype=np.complex64),
      mat(4, 4, dtype=np.complex128)))
per_type("lapack_gehrd", lambda a: lax.linalg.hessenberg(a), mat)
per_type("lapack_sytrd", lambda a: (lax.linalg.tridiagonal(a, lower=True),
                                    lax.linalg.tridiagonal(a, lower=False)), herm)

# sorting in total order: NaNs of both signs, signed zeros, infinities
NANS = np.array([3.0, -0.0, np.nan, 0.0, -np.inf, 1.0, -np.nan, np.inf, -2.0, 0.0, np.nan, -0.0],
                np.float32)
case("sort_total_order", lambda x, y: (jnp.sort(x), jnp.argsort(x, stable=True),
                                       jnp.sort(y.astype(jnp.float64), descending=True),
                                       lax.sort((x, jnp.arange(12)), num_keys=1),
                                       jnp.unique(x, size=12, fill_value=0.0),
                                       lax.top_k(x, 4), jnp.max(x), jnp.argmax(y)),
     (NANS, NANS[::-1].copy()))
# the rbg PRNG (rng-bit-generator on a u32[4] key)
case("random_rbg", lambda s: (jax.random.normal(jax.random.key(s, impl="rbg"), (64,)),
                              jax.random.uniform(jax.random.split(jax.random.key(s, impl="rbg"))[1],
                                                 (5, 3)),
                              jax.random.bits(jax.random.key(s, impl="unsafe_rbg"), (9,))),
     (np.uint32(7),))


# a small ResNet block's gradient: convolutions, batch-norm statistics, select-and-scatter
def resnet_block(p, x):
    def bn(h, g, b):
        m = jnp.mean(h, (0, 1, 2))
        v = jnp.var(h, (0, 1, 2))
        return (h - m) * lax.rsqrt(v + 1e-5) * g + b
    h = jax.nn.relu(bn(conv(x, p["w1"]), p["g1"], p["b1"]))
    h = bn(conv(h, p["w2"]), p["g2"], p["b2"])
    h = jax.nn.relu(h + x)
    return jnp.mean(maxpool(h) ** 2)


RB = {"w1": f32(3, 3, 16, 16, scale=0.15), "w2": f32(3, 3, 16, 16, scale=0.15),
      "g1": np.ones(16, np.float32), "b1": np.zeros(16, np.float32),
      "g2": np.ones(16, np.float32), "b2": np.zeros(16, np.float32)}
case("resnet_block_grad", jax.grad(resnet_block, argnums=(0, 1)), (RB, f32(4, 16, 16, 16)))

# a shard_map over a 2x2 mesh: replica groups and shardings over named axes
try:
    MESH = Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y"))

    def smap(x):
        def body(b):
            return (lax.psum(b, "x"), lax.all_gather(b, "y", tiled=True), lax.pmax(b, ("x", "y")))
        specs = dict(mesh=MESH, in_specs=P("x", "y"), out_specs=(P(None, "y"), P("x", None), P()))
        try:
            return shard_map(body, check_vma=False, **specs)(x)
        except TypeError:
            return shard_map(body, check_rep=False, **specs)(x)
    case("shard_map_mesh", smap, (jax.device_put(f32(4, 8), jax.sharding.NamedSharding(MESH, P("x", "y"))),),
         multi=lambda f: jax.jit(f))
except Exception as e:
    log("shard_map case failed to set up:", repr(e)[:300])



# gradients of convolutions and pools (weight gradients as convolutions with large windows,
# depthwise gradients, select-and-scatter, reduce-window with lhs dilation)
def avgpool(x):
    return lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4.0


def cnn_loss(p, x):
    h = jax.nn.relu(conv(x, p["c1"]))
    h = maxpool(h)
    h = lax.conv_general_dilated(h, p["dw"], (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                 feature_group_count=16)
    h = avgpool(h)
    return jnp.sum(h.reshape(h.shape[0], -1) @ p["fc"])


CG = {"c1": f32(3, 3, 3, 16, scale=0.3), "dw": f32(3, 3, 1, 16, scale=0.3),
      "fc": f32(8 * 8 * 16, 10, scale=0.05)}
case("cnn_grad", jax.grad(cnn_loss, argnums=(0, 1)), (CG, f32(4, 32, 32, 3)))
# indexing: gathers and scatters as JAX emits them
case("gather_scatter", lambda x, i, s: (x[i], x.at[i].add(1.0), x.at[i].set(2.0), x.at[i].max(x[0]),
                                        jnp.take_along_axis(x, jnp.argsort(x, 1), 1),
                                        jax.ops.segment_sum(x, s, num_segments=5), x[:, i[:3]]),
     (f32(12, 6), rng.integers(-12, 12, 9).astype(np.int32), rng.integers(0, 5, 12).astype(np.int32)))


def rnn_loss(p, xs, h0):
    def cell(h, x):
        h = jnp.tanh(x @ p["wx"] + h @ p["wh"] + p["b"])
        return h, h.sum()
    h, ys = lax.scan(cell, h0, xs)
    return jnp.sum(h) + jnp.sum(ys)


case("scan_rnn_grad", jax.grad(rnn_loss), ({"wx": f32(8, 32, scale=0.3), "wh": f32(32, 32, scale=0.2),
                                            "b": f32(32, scale=0.1)}, f32(16, 4, 8), f32(4, 32)))

json.dump(SUMMARY, open(os.path.join(OUT, "summary.json"), "w"), indent=1)
log("cases ok:", sum(SUMMARY.values()), "of", len(SUMMARY))
