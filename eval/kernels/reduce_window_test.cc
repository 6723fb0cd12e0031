// reduce-window and select-and-scatter on their typed loops (a simple
// reducer, a one-compare select) must give, bit for bit, what the evaluator
// gives element by element with fast paths off: windows whose last axes are
// trivial (NHWC pooling and its gradient, the typed row loops, 21 channels
// a 16-lane vector and a tail: v*, 32 channels four rows at a time and 18
// rows, two left over: w*, padding folding a non-identity init; an argmax
// reducer on the batched interpreter's row loop, its blocks split over the
// cores when large: am_large; XLA's select-and-scatter expansion, value and
// four index operands picked by one predicate of two of them, folded as
// those two and the winner's offset: se*, either way round) beside
// padded, overlapping, dilated and strided ones, cumulative windows along
// the minor dimension (the scan runs a tile of 16 f32 lines at a time: 144
// lines, and 20 with a tail of 4) and, for reducers the batched interpreter runs (XLA's
// logaddexp, argmax), along the minor and a middle dimension, and
// transposed pooling (base dilation and padding with
// an identity init, whose folds are skipped), on operands full of ties,
// signed zeros, NaN and sums that flush to -0, with and without flushing.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "eval/eval_test_util.h"
#include "eval/evaluator.h"
#include "ir/strings.h"

namespace hlo {
namespace {

// The reducers, selects and scatters the modules below call.
constexpr std::string_view kComputations = R"(
maxf {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
addf {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
minf {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] minimum(a, b)
}
adds {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
gef {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
gtf {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GT
}
lef_mirrored {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(b, a), direction=LE
}
ltf {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  ge = pred[] compare(v0, v1), direction=GE
  nan = pred[] compare(v0, v0), direction=NE
  keep = pred[] or(ge, nan)
  v = f32[] select(keep, v0, v1)
  i = s32[] select(keep, i0, i1)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
lae {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  sub = f32[] subtract(a, b)
  ne = pred[] compare(sub, sub), direction=NE
  sum = f32[] add(a, b)
  mx = f32[] maximum(a, b)
  ab = f32[] abs(sub)
  ng = f32[] negate(ab)
  ex = f32[] exponential(ng)
  lp = f32[] log-plus-one(ex)
  s = f32[] add(mx, lp)
  ROOT r = f32[] select(ne, sum, s)
}
ges {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}

)";

constexpr std::string_view kEntry = R"(
ENTRY e {
  x = f32[3,6,8,5] parameter(0)
  g = f32[3,3,4,5] parameter(1)
  gp = f32[3,3,4,5] parameter(2)
  gd = f32[2,5,3,5] parameter(3)
  y = f32[4,5,6] parameter(4)
  gy = f32[3,5,6] parameter(5)
  i = s32[3,6,8,5] parameter(6)
  gi = s32[3,3,4,5] parameter(7)
  gy_i = s32[4,5,6] parameter(8)
  xl = f32[2,64,64,16] parameter(9)
  il = s32[2,64,64,16] parameter(10)
  xv = f32[2,6,8,21] parameter(11)
  xw = f32[2,5,5,32] parameter(12)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
  ten = f32[] constant(10)
  zi = s32[] constant(0)
  pool = f32[3,3,4,5] reduce-window(x, ninf), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=maxf
  padded = f32[3,3,4,5] reduce-window(x, ten), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=addf
  padmin = f32[3,3,4,5] reduce-window(x, ten), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=minf
  dilated = f32[2,4,3,5] reduce-window(x, zero), window={size=2x2x3x1 stride=1x1x2x1 rhs_dilate=1x2x1x1}, to_apply=addf
  holes = f32[6,6,8,5] reduce-window(x, ten), window={size=2x1x1x1 pad=1_1x0_0x0_0x0_0 lhs_dilate=2x1x1x1}, to_apply=addf
  tail2 = f32[3,5,6] reduce-window(y, ninf), window={size=2x1x1}, to_apply=maxf
  ipool = s32[3,3,4,5] reduce-window(i, zi), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=adds
  m1 = s32[] constant(-1)
  am = (f32[3,3,4,5], s32[3,3,4,5]) reduce-window(x, i, ninf, m1), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=argmax
  am_pad = (f32[3,4,4,5], s32[3,4,4,5]) reduce-window(x, i, ten, m1), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x2_1x2_1x0_0 rhs_dilate=1x1x2x1}, to_apply=argmax
  am_tail = (f32[3,5,6], s32[3,5,6]) reduce-window(y, gy_i, ninf, m1), window={size=2x1x1}, to_apply=argmax
  am_tail_pad = (f32[3,5,6], s32[3,5,6]) reduce-window(y, gy_i, ten, m1), window={size=3x1x1 pad=2_1x0_0x0_0 rhs_dilate=2x1x1}, to_apply=argmax
  am_large = (f32[2,32,32,16], s32[2,32,32,16]) reduce-window(xl, il, ninf, m1), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=argmax
  vpool = f32[2,3,4,21] reduce-window(xv, ninf), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=maxf
  vpadmax = f32[2,3,4,21] reduce-window(xv, zero), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=maxf
  vpadmin = f32[2,3,4,21] reduce-window(xv, ten), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=minf
  vpadsum = f32[2,3,4,21] reduce-window(xv, ten), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=addf
  wpool = f32[2,2,2,32] reduce-window(xw, ninf), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=maxf
  wpadmax = f32[2,3,3,32] reduce-window(xw, zero), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=maxf
  wpadmin = f32[2,3,3,32] reduce-window(xw, ten), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=minf
  wpadsum = f32[2,3,3,32] reduce-window(xw, ten), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=addf
  ineg = s32[3,6,8,5] negate(i)
  ilneg = s32[2,64,64,16] negate(il)
  se = (f32[3,3,4,5], s32[3,3,4,5], s32[3,3,4,5], s32[3,3,4,5], s32[3,3,4,5]) reduce-window(x, i, ineg, i, ineg, ninf, m1, m1, m1, m1), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=sas_expanded
  se_pad = (f32[3,4,4,5], s32[3,4,4,5], s32[3,4,4,5], s32[3,4,4,5], s32[3,4,4,5]) reduce-window(x, i, ineg, i, ineg, ten, m1, m1, m1, m1), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x2_1x2_1x0_0 rhs_dilate=1x1x2x1}, to_apply=sas_expanded
  se_flip = (f32[3,4,4,5], s32[3,4,4,5], s32[3,4,4,5], s32[3,4,4,5], s32[3,4,4,5]) reduce-window(x, i, ineg, i, ineg, ten, m1, m1, m1, m1), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x2_1x2_1x0_0 rhs_dilate=1x1x2x1}, to_apply=sas_flipped
  se_large = (f32[2,32,32,16], s32[2,32,32,16], s32[2,32,32,16], s32[2,32,32,16], s32[2,32,32,16]) reduce-window(xl, il, ilneg, il, ilneg, ninf, m1, m1, m1, m1), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=sas_expanded
  s_ge = f32[3,6,8,5] select-and-scatter(x, g, zero), window={size=1x2x2x1 stride=1x2x2x1}, select=gef, scatter=addf
  s_gt = f32[3,6,8,5] select-and-scatter(x, gp, zero), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, select=gtf, scatter=addf
  s_le = f32[3,6,8,5] select-and-scatter(x, gp, ten), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, select=lef_mirrored, scatter=maxf
  s_lt = f32[3,6,8,5] select-and-scatter(x, gd, zero), window={size=2x2x3x1 stride=1x1x2x1}, select=ltf, scatter=addf
  s_tail2 = f32[4,5,6] select-and-scatter(y, gy, zero), window={size=2x1x1}, select=gef, scatter=addf
  s_int = s32[3,6,8,5] select-and-scatter(i, gi, zi), window={size=1x2x2x1 stride=1x2x2x1}, select=ges, scatter=adds
  cumsum = f32[3,6,8,5] reduce-window(x, zero), window={size=1x1x1x5 pad=0_0x0_0x0_0x4_0}, to_apply=addf
  cummax = f32[4,5,6] reduce-window(y, ninf), window={size=1x1x6 pad=0_0x0_0x5_0}, to_apply=maxf
  exclusive = f32[4,5,7] reduce-window(y, zero), window={size=1x1x6 pad=0_0x0_0x6_0}, to_apply=addf
  icumsum = s32[3,6,8,5] reduce-window(i, zi), window={size=1x1x1x5 pad=0_0x0_0x0_0x4_0}, to_apply=adds
  tpool = f32[3,11,15,5] reduce-window(x, zero), window={size=1x3x3x1 pad=0_0x1_1x1_1x0_0 lhs_dilate=1x2x2x1}, to_apply=addf
  tmax = f32[3,12,16,5] reduce-window(x, ninf), window={size=1x2x2x1 pad=0_0x1_1x1_1x0_0 lhs_dilate=1x2x2x1}, to_apply=maxf
  tlast = f32[3,6,8,9] reduce-window(x, zero), window={size=1x1x1x3 pad=0_0x0_0x0_0x1_1 lhs_dilate=1x1x1x2}, to_apply=addf
  ipad = s32[3,12,16,5] reduce-window(i, zi), window={size=1x2x2x1 pad=0_0x1_1x1_1x0_0 lhs_dilate=1x2x2x1}, to_apply=adds
  rcummax = f32[3,6,8,5] reduce-window(x, ninf), window={size=1x1x1x5 pad=0_0x0_0x0_0x0_4}, to_apply=maxf
  ricumsum = s32[3,6,8,5] reduce-window(i, zi), window={size=1x1x1x5 pad=0_0x0_0x0_0x0_4}, to_apply=adds
  lae_minor = f32[4,5,6] reduce-window(y, ninf), window={size=1x1x6 pad=0_0x0_0x5_0}, to_apply=lae
  lae_middle = f32[4,5,6] reduce-window(y, ninf), window={size=1x5x1 pad=0_0x4_0x0_0}, to_apply=lae
  am_scan = (f32[4,5,6], s32[4,5,6]) reduce-window(y, gy_i, ninf, m1), window={size=1x1x6 pad=0_0x0_0x5_0}, to_apply=argmax
  ROOT t = (f32[4,5,6], f32[4,5,6], (f32[4,5,6], s32[4,5,6]), f32[3,3,4,5], f32[3,3,4,5], f32[3,3,4,5], f32[2,4,3,5], f32[6,6,8,5], f32[3,5,6], s32[3,3,4,5], f32[3,6,8,5], f32[3,6,8,5], f32[3,6,8,5], f32[3,6,8,5], f32[4,5,6], s32[3,6,8,5], (f32[3,3,4,5], s32[3,3,4,5]), (f32[3,4,4,5], s32[3,4,4,5]), (f32[3,5,6], s32[3,5,6]), (f32[3,5,6], s32[3,5,6]), f32[3,6,8,5], f32[4,5,6], f32[4,5,7], s32[3,6,8,5], f32[3,11,15,5], f32[3,12,16,5], f32[3,6,8,9], s32[3,12,16,5], f32[3,6,8,5], s32[3,6,8,5], (f32[2,32,32,16], s32[2,32,32,16]), (f32[3,3,4,5], s32[3,3,4,5], s32[3,3,4,5], s32[3,3,4,5], s32[3,3,4,5]), (f32[3,4,4,5], s32[3,4,4,5], s32[3,4,4,5], s32[3,4,4,5], s32[3,4,4,5]), (f32[3,4,4,5], s32[3,4,4,5], s32[3,4,4,5], s32[3,4,4,5], s32[3,4,4,5]), (f32[2,32,32,16], s32[2,32,32,16], s32[2,32,32,16], s32[2,32,32,16], s32[2,32,32,16]), f32[2,3,4,21], f32[2,3,4,21], f32[2,3,4,21], f32[2,3,4,21], f32[2,2,2,32], f32[2,3,3,32], f32[2,3,3,32], f32[2,3,3,32]) tuple(lae_minor, lae_middle, am_scan, pool, padded, padmin, dilated, holes, tail2, ipool, s_ge, s_gt, s_le, s_lt, s_tail2, s_int, am, am_pad, am_tail, am_tail_pad, cumsum, cummax, exclusive, icumsum, tpool, tmax, tlast, ipad, rcummax, ricumsum, am_large, se, se_pad, se_flip, se_large, vpool, vpadmax, vpadmin, vpadsum, wpool, wpadmax, wpadmin, wpadsum)
}
)";

// XLA's SelectAndScatterExpander reducer for a GE select over rank 4:
// value and four indices, all picked by p = (v0 >= v1 && a1 != -1) ||
// !(b1 != -1). `flipped`: each select the other way round, on not(p).
std::string ExpandedSelectReducer(std::string_view name, bool flipped) {
  std::string text = StrCat(name, " {\n  v0 = f32[] parameter(0)\n  v1 = f32[] parameter(5)\n");
  for (int k = 1; k <= 4; ++k) {
    StrAppend(&text, "  a", k, " = s32[] parameter(", k, ")\n  b", k, " = s32[] parameter(", k + 5,
              ")\n");
  }
  StrAppend(&text,
            "  m1 = s32[] constant(-1)\n"
            "  lhs_first = pred[] compare(a1, m1), direction=NE\n"
            "  rhs_first = pred[] compare(b1, m1), direction=NE\n"
            "  ge = pred[] compare(v0, v1), direction=GE\n"
            "  not_rhs = pred[] not(rhs_first)\n"
            "  and = pred[] and(ge, lhs_first)\n"
            "  p = pred[] or(and, not_rhs)\n"
            "  q = pred[] not(p)\n");
  auto pick = [&](std::string_view type, std::string_view acc, std::string_view x) {
    return flipped ? StrCat(type, "[] select(q, ", x, ", ", acc, ")")
                   : StrCat(type, "[] select(p, ", acc, ", ", x, ")");
  };
  StrAppend(&text, "  s0 = ", pick("f32", "v0", "v1"), "\n");
  for (int k = 1; k <= 4; ++k) {
    StrAppend(&text, "  s", k, " = ", pick("s32", StrCat("a", k), StrCat("b", k)), "\n");
  }
  StrAppend(&text,
            "  ROOT r = (f32[], s32[], s32[], s32[], s32[]) tuple(s0, s1, s2, s3, s4)\n}\n\n");
  return text;
}

// Few distinct values (ties in most windows), signed zeros and some NaN
// (`with_nan`: else 2.5 in their place, for long lines, which a NaN would
// make all NaN).
Value RandomArray(const Shape& shape, std::mt19937& rng, bool with_nan = true) {
  absl::StatusOr<Literal> lit = Literal::Create(shape);
  REQUIRE(lit.ok());
  const int64_t n = lit->element_count();
  std::uniform_int_distribution<int> pick(0, 15);
  for (int64_t k = 0; k < n; ++k) {
    const int v = pick(rng);
    if (shape.element_type() == PrimitiveType::kS32) {
      lit->typed<int32_t>()[k] = v % 5 - 2;
    } else {
      float f = static_cast<float>(v % 4) - 1.5f;
      if (v == 11) f = 1.3e-38f;   // normal, but sums with the next are denormal:
      if (v == 12) f = -1.5e-38f;  // -0 where denormals are flushed
      if (v == 13) f = -0.0f;
      if (v == 14) f = 0.0f;
      if (v == 15) f = with_nan ? std::numeric_limits<float>::quiet_NaN() : 2.5f;
      lit->typed<float>()[k] = f;
    }
  }
  return Value::FromLiteral(*std::move(lit));
}

// The module's outputs with fast paths (typed loops, batched programs)
// equal, byte for byte, those of the element-by-element path.
void CheckFastEqualsSlow(Module& m, const std::vector<Value>& args, bool flush, int round) {
  EvalOptions fast;
  fast.flush_denormals = flush;
  absl::StatusOr<Value> got = Evaluator(m, fast).Run(args);
  INFO((got.ok() ? std::string() : std::string(got.status().message())));
  REQUIRE(got.ok());
  EvalOptions slow = fast;
  slow.fast_paths = false;
  absl::StatusOr<Value> want = Evaluator(m, slow).Run(args);
  REQUIRE(want.ok());
  for (size_t k = 0; k < want->elements().size(); ++k) {
    INFO("round " << round << ", output " << k);
    CheckSameBytes(got->elements()[k], want->elements()[k]);
  }
}

TEST_CASE("reduce-window and select-and-scatter: typed loops equal the element-by-element path",
          "[reduce_window]") {
  std::unique_ptr<Module> m =
      ParseTestModule(StrCat("HloModule windows\n\n", ExpandedSelectReducer("sas_expanded", false),
                             ExpandedSelectReducer("sas_flipped", true), kComputations, kEntry));
  std::mt19937 rng(7);
  // Rounds 4-7 flush denormals (MXCSR's FTZ): a sum can then be -0, where
  // skipping the folds of a +0 init (holes, padding) would not be exact.
  for (int round = 0; round < 8; ++round) {
    std::vector<Value> args;
    for (int64_t p = 0; p < m->entry()->parameter_count(); ++p) {
      args.push_back(RandomArray(m->entry()->parameter(p)->shape(), rng));
    }
    CheckFastEqualsSlow(*m, args, round >= 4, round);
  }
}

TEST_CASE("reduce-window: pooling rows cut across the cores equal the element-by-element path",
          "[reduce_window]") {
  // 2 x 32 x 32 output rows of 32 channels, 9 folds each: enough folds for
  // every core to take a part (RowsWindowInParts), with the last rows'
  // windows in the padding; max with NaNs and signed zeros, add with a
  // +0 init. Then windows inside the operand (rows by their origins,
  // FoldFourRows from origins): 2x2 stride 2 and 3x3 stride 2 (2 x 31 x 31 rows,
  // not a multiple of four), max and add (whose fold order shows).
  std::unique_ptr<Module> m = ParseTestModule(StrCat("HloModule pools\n", kComputations, R"(
ENTRY e {
  x = f32[2,64,64,32] parameter(0)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
  mp = f32[2,32,32,32] reduce-window(x, ninf), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x0_1x0_1x0_0}, to_apply=maxf
  ap = f32[2,32,32,32] reduce-window(x, zero), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_0x1_0x0_0}, to_apply=addf
  mi = f32[2,32,32,32] reduce-window(x, ninf), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=maxf
  ai = f32[2,32,32,32] reduce-window(x, zero), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=addf
  m3 = f32[2,31,31,32] reduce-window(x, ninf), window={size=1x3x3x1 stride=1x2x2x1}, to_apply=maxf
  a3 = f32[2,31,31,32] reduce-window(x, zero), window={size=1x3x3x1 stride=1x2x2x1}, to_apply=addf
  ROOT r = (f32[2,32,32,32], f32[2,32,32,32], f32[2,32,32,32], f32[2,32,32,32], f32[2,31,31,32], f32[2,31,31,32]) tuple(mp, ap, mi, ai, m3, a3)
}
)"));
  std::mt19937 rng(11);
  for (int round = 0; round < 2; ++round) {
    CheckFastEqualsSlow(*m, {RandomArray(m->entry()->parameter(0)->shape(), rng)}, round == 1,
                        round);
  }
}

TEST_CASE(
    "select-and-scatter: pooling gradients cut across the cores by batch equal the "
    "element-by-element path",
    "[reduce_window]") {
  // 8 batch indices of 32 x 32 source rows of 32 channels: enough for a
  // part per core (TypedSelectAndScatterInParts), each part's targets its
  // own batch indices'; overlapping windows (stride 2 of 3, so targets take
  // several sources) and padding; GE and LT selects, ties, NaNs, signed zeros.
  std::unique_ptr<Module> m = ParseTestModule(StrCat("HloModule grads\n", kComputations, R"(
ENTRY e {
  x = f32[8,64,64,32] parameter(0)
  g = f32[8,32,32,32] parameter(1)
  zero = f32[] constant(0)
  ge = f32[8,64,64,32] select-and-scatter(x, g, zero), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x0_1x0_1x0_0}, select=gef, scatter=addf
  lt = f32[8,64,64,32] select-and-scatter(x, g, zero), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_0x1_0x0_0}, select=ltf, scatter=addf
  ROOT r = (f32[8,64,64,32], f32[8,64,64,32]) tuple(ge, lt)
}
)"));
  std::mt19937 rng(13);
  std::vector<Value> args;
  for (int64_t p = 0; p < 2; ++p) {
    args.push_back(RandomArray(m->entry()->parameter(p)->shape(), rng));
  }
  CheckFastEqualsSlow(*m, args, false, 0);
}

// XLA's SelectAndScatterExpander reducer over f32 values with the select
// function `compare(v0, v1), direction` (`mirrored`: compare(v1, v0) in
// the mirrored direction, the same predicate), a tested s32 index (p's
// not-the-init tests) and passengers of `passengers` types that p does not
// read.
std::string SelectExpansion(std::string_view name, std::string_view direction, bool mirrored,
                            const std::vector<std::string>& passengers) {
  const int m = 2 + static_cast<int>(passengers.size());
  std::string params, outs, types = "f32[], s32[]";
  for (const std::string& t : passengers) StrAppend(&types, ", ", t, "[]");
  StrAppend(&params, "  v0 = f32[] parameter(0)\n  v1 = f32[] parameter(", m, ")\n",
            "  a1 = s32[] parameter(1)\n  b1 = s32[] parameter(", m + 1, ")\n");
  for (int k = 0; k < static_cast<int>(passengers.size()); ++k) {
    StrAppend(&params, "  a", k + 2, " = ", passengers[k], "[] parameter(", k + 2, ")\n  b", k + 2,
              " = ", passengers[k], "[] parameter(", m + k + 2, ")\n");
    StrAppend(&outs, "  s", k + 2, " = ", passengers[k], "[] select(p, a", k + 2, ", b", k + 2,
              ")\n");
  }
  std::string root = "s0, s1";
  for (int k = 0; k < static_cast<int>(passengers.size()); ++k) StrAppend(&root, ", s", k + 2);
  return StrCat(name, " {\n", params, "  m1 = s32[] constant(-1)\n",
                "  lhs_first = pred[] compare(a1, m1), direction=NE\n",
                "  rhs_first = pred[] compare(m1, b1), direction=NE\n",
                mirrored ? StrCat("  sel = pred[] compare(v1, v0), direction=", direction, "\n")
                         : StrCat("  sel = pred[] compare(v0, v1), direction=", direction, "\n"),
                "  not_rhs = pred[] not(rhs_first)\n  and = pred[] and(lhs_first, sel)\n",
                "  p = pred[] or(not_rhs, and)\n  s0 = f32[] select(p, v0, v1)\n",
                "  s1 = s32[] select(p, a1, b1)\n", outs, "  ROOT r = (", types, ") tuple(", root,
                ")\n}\n\n");
}

// Rows of 21 lanes (a 16-lane vector and a tail) and 16, with padding
// (folding the init values: ten and 0, where padding can win, or 2.5 and
// the -1 p tests for, where it cannot) and window dilation, with two
// 32-bit passengers and an s64 one (gathered at the winner) or one.
constexpr std::string_view kArgFoldEntry = R"(
ENTRY e {
  x = f32[2,7,9,21] parameter(0)
  i = s32[2,7,9,21] parameter(1)
  j = s32[2,7,9,21] parameter(2)
  f = f32[2,7,9,21] parameter(3)
  l = s64[2,7,9,21] parameter(4)
  y = f32[3,8,6,16] parameter(5)
  iy = s32[3,8,6,16] parameter(6)
  ten = f32[] constant(10)
  half = f32[] constant(2.5)
  m1 = s32[] constant(-1)
  z = s32[] constant(0)
  zf = f32[] constant(0)
  zl = s64[] constant(7)
  %s
}
)";

TEST_CASE(
    "reduce-window: XLA's select-and-scatter expansion folded in registers equals the "
    "element-by-element path",
    "[reduce_window]") {
  const std::vector<std::pair<std::string, bool>> selects = {
      {"GE", false}, {"GT", false}, {"LE", true}, {"LT", false}, {"EQ", false}, {"NE", true}};
  std::string computations, body, root_types, root;
  for (size_t c = 0; c < selects.size(); ++c) {
    const std::string n = StrCat(c);
    StrAppend(&computations,
              SelectExpansion(StrCat("sx", n), selects[c].first, selects[c].second,
                              {"s32", "f32", "s64"}),
              SelectExpansion(StrCat("sy", n), selects[c].first, selects[c].second, {"s32"}));
    const std::string tx =
        "(f32[2,4,5,21], s32[2,4,5,21], s32[2,4,5,21], f32[2,4,5,21], s64[2,4,5,21])";
    const std::string ty = "(f32[3,4,4,16], s32[3,4,4,16], s32[3,4,4,16])";
    StrAppend(&body, "  rx", n, " = ", tx,
              " reduce-window(x, i, j, f, l, ten, z, z, zf, zl), window={size=1x3x3x1 "
              "stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=sx",
              n, "\n  ry", n, " = ", ty,
              " reduce-window(y, iy, iy, half, m1, z), window={size=1x2x3x1 stride=1x2x2x1 "
              "pad=0_0x1_0x2_1x0_0 rhs_dilate=1x2x1x1}, to_apply=sy",
              n, "\n");
    StrAppend(&root_types, c ? ", " : "", tx, ", ", ty);
    StrAppend(&root, c ? ", " : "", "rx", n, ", ry", n);
  }
  std::string entry(kArgFoldEntry);
  entry.replace(entry.find("%s"), 2,
                StrCat(body, "  ROOT t = (", root_types, ") tuple(", root, ")"));
  std::unique_ptr<Module> m =
      ParseTestModule(StrCat("HloModule arg_fold\n\n", computations, entry));
  // Values with ties, signed zeros, NaN, infinities and denormals (zeros
  // to a flushing compare); indices -2..2, so some are the -1 the tests
  // look for.
  std::mt19937 rng(23);
  std::uniform_int_distribution<int> pick(0, 15);
  const float kValues[16] = {-1.5f,
                             -0.5f,
                             0.5f,
                             1.5f,
                             0.0f,
                             -0.0f,
                             1e-40f,
                             -1e-40f,
                             3e-39f,
                             std::numeric_limits<float>::infinity(),
                             -std::numeric_limits<float>::infinity(),
                             std::numeric_limits<float>::quiet_NaN(),
                             1.5f,
                             -1.5f,
                             0.5f,
                             1e-40f};
  for (int round = 0; round < 4; ++round) {
    std::vector<Value> args;
    for (int64_t p = 0; p < m->entry()->parameter_count(); ++p) {
      absl::StatusOr<Literal> lit = Literal::Create(m->entry()->parameter(p)->shape());
      REQUIRE(lit.ok());
      for (int64_t k = 0; k < lit->element_count(); ++k) {
        const int v = pick(rng);
        switch (lit->element_type()) {
          case PrimitiveType::kS32:
            lit->typed<int32_t>()[k] = v % 5 - 2;
            break;
          case PrimitiveType::kS64:
            lit->typed<int64_t>()[k] = (int64_t{v} << 40) - 3;
            break;
          default:
            lit->typed<float>()[k] = kValues[v];
        }
      }
      args.push_back(Value::FromLiteral(*std::move(lit)));
    }
    CheckFastEqualsSlow(*m, args, round % 2 == 1, round);
  }
}

// Scans along the minor dimension run a tile of lines at a time (16 f32
// lanes), 256 operand columns per tile: lines longer than that (carried
// across column chunks), an exclusive form (one more output than columns),
// windows as long as the line (the first output only after a chunk of none),
// a line count off the tile, and enough tiles to be split over the cores
// (short lines: the element-by-element path's cost grows with their square);
// and a scan the batched interpreter runs (logaddexp) over more lines than
// one block of its lanes (4096), each step's elements read from a
// transposed copy.
constexpr std::string_view kLongScansEntry = R"(
ENTRY e {
  z = f32[21,300] parameter(0)
  w = f32[16390,8] parameter(1)
  iw = s32[16390,8] parameter(2)
  zero = f32[] constant(0)
  ninf = f32[] constant(-inf)
  zi = s32[] constant(0)
  long = f32[21,300] reduce-window(z, zero), window={size=1x300 pad=0_0x299_0}, to_apply=addf
  long_exclusive = f32[21,301] reduce-window(z, zero), window={size=1x300 pad=0_0x300_0}, to_apply=addf
  long_max = f32[21,300] reduce-window(z, ninf), window={size=1x300 pad=0_0x299_0}, to_apply=maxf
  whole = f32[21,1] reduce-window(z, zero), window={size=1x300}, to_apply=addf
  whole_padded = f32[21,11] reduce-window(z, zero), window={size=1x300 pad=0_0x10_0}, to_apply=addf
  many = f32[16390,8] reduce-window(w, zero), window={size=1x8 pad=0_0x7_0}, to_apply=addf
  many_max = f32[16390,8] reduce-window(w, ninf), window={size=1x8 pad=0_0x7_0}, to_apply=maxf
  many_int = s32[16390,8] reduce-window(iw, zi), window={size=1x8 pad=0_0x7_0}, to_apply=adds
  l = f32[4100,5] parameter(3)
  lae_many = f32[4100,5] reduce-window(l, ninf), window={size=1x5 pad=0_0x4_0}, to_apply=lae
  lae_many_exclusive = f32[4100,6] reduce-window(l, ninf), window={size=1x5 pad=0_0x5_0}, to_apply=lae
  ROOT t = (f32[21,300], f32[21,301], f32[21,300], f32[21,1], f32[21,11], f32[16390,8], f32[16390,8], s32[16390,8], f32[4100,5], f32[4100,6]) tuple(long, long_exclusive, long_max, whole, whole_padded, many, many_max, many_int, lae_many, lae_many_exclusive)
}
)";

TEST_CASE("reduce-window: long scans along the minor dimension equal the element-by-element path",
          "[reduce_window]") {
  std::unique_ptr<Module> m =
      ParseTestModule(StrCat("HloModule long_scans\n\n", kComputations, kLongScansEntry));
  std::mt19937 rng(11);
  for (int round = 0; round < 2; ++round) {
    std::vector<Value> args;
    for (int64_t p = 0; p < m->entry()->parameter_count(); ++p) {
      args.push_back(RandomArray(m->entry()->parameter(p)->shape(), rng, /*with_nan=*/false));
    }
    CheckFastEqualsSlow(*m, args, round == 1, round);
  }
}

}  // namespace
}  // namespace hlo
