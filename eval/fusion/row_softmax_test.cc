// The softmax diamond (eval/fusion/row_softmax.h): matched where its form
// is exact, and bit for bit the result of the same module run unfused.
#include "eval/fusion/row_softmax.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "eval/eval_test_util.h"
#include "eval/evaluator.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

// softmax over the last dim of f32[37,5000] (rows wider than the 2048-column
// chunks and the pairwise blocks, split across the cores) and of
// f64[3,4,100]; x is the parameter (a fresh result) or a product that dies
// into the group (the result takes its buffer). `extra` adds one more output
// to the root tuple.
std::string SoftmaxModule(const std::string& extra) {
  return StrCat(R"(HloModule softmax

max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max_f64 {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT m = f64[] maximum(a, b)
}
add_f64 {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT s = f64[] add(a, b)
}

ENTRY main {
  x = f32[37,5000] parameter(0)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
  mx = f32[37] reduce(x, ninf), dimensions={1}, to_apply=max_f32
  mxb = f32[37,5000] broadcast(mx), dimensions={0}
  sh = f32[37,5000] subtract(x, mxb)
  e = f32[37,5000] exponential(sh)
  sm = f32[37] reduce(e, zero), dimensions={1}, to_apply=add_f32
  smb = f32[37,5000] broadcast(sm), dimensions={0}
  out = f32[37,5000] divide(e, smb)
  y0 = f64[3,4,100] parameter(1)
  two = f64[] constant(2)
  twos = f64[3,4,100] broadcast(two), dimensions={}
  y = f64[3,4,100] multiply(y0, twos)
  dninf = f64[] constant(-inf)
  dzero = f64[] constant(0)
  ymx = f64[3,4] reduce(y, dninf), dimensions={2}, to_apply=max_f64
  ymxb = f64[3,4,100] broadcast(ymx), dimensions={0,1}
  ysh = f64[3,4,100] subtract(y, ymxb)
  ye = f64[3,4,100] exponential(ysh)
  ysm = f64[3,4] reduce(ye, dzero), dimensions={2}, to_apply=add_f64
  ysmb = f64[3,4,100] broadcast(ysm), dimensions={0,1}
  yout = f64[3,4,100] divide(ye, ysmb)
  ROOT t = (f32[37,5000], f64[3,4,100])",
                extra.empty() ? "" : ", f32[37,5000], f64[3,4]", ") tuple(out, yout", extra,
                ")\n}\n");
}

// Inputs over [-120, 20]: exp's results include subnormals and zeros; row 5
// holds -inf in places, row 6 only -inf (its max is -inf: NaN throughout).
std::vector<Value> Inputs() {
  auto x = Literal::Create(Shape::Array(PrimitiveType::kF32, {37, 5000}));
  auto y = Literal::Create(Shape::Array(PrimitiveType::kF64, {3, 4, 100}));
  REQUIRE(x.ok());
  REQUIRE(y.ok());
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) / 9007199254740992.0;  // [0, 1)
  };
  float* xs = x->typed<float>();
  for (int64_t i = 0; i < 37 * 5000; ++i) {
    const int64_t row = i / 5000;
    xs[i] = static_cast<float>(-120.0 + 140.0 * next());
    if ((row == 5 && i % 7 == 0) || row == 6) xs[i] = -std::numeric_limits<float>::infinity();
  }
  double* ys = y->typed<double>();
  for (int64_t i = 0; i < 1200; ++i) ys[i] = -400.0 + 420.0 * next();
  std::vector<Value> args;
  args.push_back(Value::FromLiteral(*std::move(x)));
  args.push_back(Value::FromLiteral(*std::move(y)));
  return args;
}

const Instruction* Named(const Module& m, std::string_view name) {
  for (const auto& inst : m.entry()->instructions()) {
    if (inst->name() == name) return &*inst;
  }
  return nullptr;
}

TEST_CASE("row softmax: the diamond is matched only where it is whole", "[eval][softmax]") {
  auto fused = ParseModule(SoftmaxModule(""));
  auto leaky = ParseModule(SoftmaxModule(", e, ymx"));  // e and ymx also read outside
  INFO((fused.ok() ? std::string() : std::string(fused.status().message())));
  REQUIRE(fused.ok());
  REQUIRE(leaky.ok());
  std::vector<const Instruction*> members, inputs;
  auto f32 = MatchRowSoftmax(*Named(**fused, "out"), false, &members, &inputs);
  REQUIRE(f32.has_value());
  CHECK(f32->rows == 37);
  CHECK(f32->cols == 5000);
  CHECK(f32->own_max);
  CHECK(members.size() == 7);
  REQUIRE(inputs.size() == 3);
  CHECK(inputs[0]->name() == "x");
  auto f64 = MatchRowSoftmax(*Named(**fused, "yout"), false, &members, &inputs);
  REQUIRE(f64.has_value());
  CHECK(f64->rows == 12);
  CHECK(f64->cols == 100);
  CHECK_FALSE(f32->flush);
  // Under --denormals=flush too, flushing where the unfused kernels do.
  auto flushed = MatchRowSoftmax(*Named(**fused, "out"), true, &members, &inputs);
  REQUIRE(flushed.has_value());
  CHECK(flushed->flush);
  CHECK_FALSE(MatchRowSoftmax(*Named(**leaky, "out"), false, &members, &inputs));
  // The max read outside too: a row value the group reads.
  auto given = MatchRowSoftmax(*Named(**leaky, "yout"), false, &members, &inputs);
  REQUIRE(given.has_value());
  CHECK_FALSE(given->own_max);
  CHECK(members.size() == 6);
  REQUIRE(inputs.size() == 3);
  CHECK(inputs[1]->name() == "ymx");
  CHECK_FALSE(MatchRowSoftmax(*Named(**fused, "sh"), false, &members, &inputs));
}

TEST_CASE("row softmax: the fused diamond gives the unfused bits", "[eval][softmax]") {
  auto fused = ParseModule(SoftmaxModule(""));
  auto leaky = ParseModule(SoftmaxModule(", e, ymx"));
  INFO((fused.ok() ? std::string() : std::string(fused.status().message())));
  REQUIRE(fused.ok());
  REQUIRE(leaky.ok());
  Evaluator fused_ev(**fused, {});
  Evaluator leaky_ev(**leaky, {});
  std::vector<Value> args = Inputs();
  for (int run = 0; run < 2; ++run) {  // the second run on reused buffers
    auto a = fused_ev.Run(args);
    auto b = leaky_ev.Run(args);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    Literal la = a->ToLiteral(), lb = b->ToLiteral();
    for (int k = 0; k < 2; ++k) {
      const Literal& x = la.elements()[k];
      const Literal& y = lb.elements()[k];
      REQUIRE(x.size_bytes() == y.size_bytes());
      CHECK(std::memcmp(x.data(), y.data(), x.size_bytes()) == 0);
    }
    // And softmax's values, against long double from the same f32
    // differences x - max (f32 rounds those by up to 2^-18 here; exp keeps
    // that as relative error): within 1e-6 relative, rows summing to 1.
    const float* out = la.elements()[0].typed<float>();
    const float* xs = args[0].array().typed<float>();
    for (int64_t r : {0, 5, 36}) {
      const float* xr = xs + r * 5000;
      float mx = -INFINITY;
      for (int64_t c = 0; c < 5000; ++c) mx = std::max(mx, xr[c]);
      auto e = [&](int64_t c) { return std::exp(static_cast<long double>(xr[c] - mx)); };
      long double sum = 0, total = 0;
      for (int64_t c = 0; c < 5000; ++c) sum += e(c);
      for (int64_t c = 0; c < 5000; ++c) {
        const long double want = e(c) / sum, got = out[r * 5000 + c];
        CHECK(std::fabs(got - want) <= 1e-6L * want + 1e-44L);
        total += got;
      }
      CHECK(std::fabs(total - 1) < 1e-4L);
    }
    CHECK(std::isnan(out[6 * 5000 + 17]));
    CHECK(args[0].array().typed<float>()[0] == xs[0]);  // the parameter untouched
  }
}

// The f32 max and sum reducers of the modules below.
constexpr char kRowReducers[] = R"(region_max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
region_add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

)";

// JAX's jax.nn.softmax as JAX 0.11 writes it (the shape of gpt_fwd's
// attention in ../shared/xla-jax): max(reduce_max(x), -inf), and both row
// values through reshape to [..., 1], an identity broadcast and a reshape
// back before the broadcast. `extra` adds outputs to the root tuple.
std::string JaxSoftmax(const std::string& extra_shapes, const std::string& extra) {
  return StrCat("HloModule jax_softmax\n\n", kRowReducers, R"(ENTRY main {
  x = f32[2,3,5000] parameter(0)
  ninf = f32[] constant(-inf)
  rmax = f32[2,3] reduce(x, ninf), dimensions={2}, to_apply=region_max
  ninf_b = f32[2,3] broadcast(ninf), dimensions={}
  max = f32[2,3] maximum(rmax, ninf_b)
  k1 = f32[2,3,1] reshape(max)
  k2 = f32[2,3,1] broadcast(k1), dimensions={0,1,2}
  k3 = f32[2,3] reshape(k2)
  k4 = f32[2,3,5000] broadcast(k3), dimensions={0,1}
  sub = f32[2,3,5000] subtract(x, k4)
  e = f32[2,3,5000] exponential(sub)
  zero = f32[] constant(0)
  sum = f32[2,3] reduce(e, zero), dimensions={2}, to_apply=region_add
  s1 = f32[2,3,1] reshape(sum)
  s2 = f32[2,3,1] broadcast(s1), dimensions={0,1,2}
  s3 = f32[2,3] reshape(s2)
  s4 = f32[2,3,5000] broadcast(s3), dimensions={0,1}
  div = f32[2,3,5000] divide(e, s4)
  ROOT t = (f32[2,3,5000])",
                extra_shapes, ") tuple(div", extra, ")\n}\n");
}

TEST_CASE("row softmax: JAX's form, through its reshapes, gives the unfused bits",
          "[eval][softmax]") {
  auto fused = ParseModule(JaxSoftmax("", ""));
  auto leaky = ParseModule(JaxSoftmax(", f32[2,3,1]", ", s1"));  // s1 read outside
  INFO((fused.ok() ? std::string() : std::string(fused.status().message())));
  REQUIRE(fused.ok());
  REQUIRE(leaky.ok());
  std::vector<const Instruction*> members, inputs;
  auto op = MatchRowSoftmax(*Named(**fused, "div"), false, &members, &inputs);
  REQUIRE(op.has_value());
  // The max and its floor computed in the group.
  CHECK(op->own_max);
  CHECK(op->floor == RowSoftmax::Floor::kRight);
  CHECK(op->rows == 6);
  CHECK(members.size() == 15);  // sub, e, sum, div, s4 ... s1, k4 ... k1, rmax, max, ninf_b
  REQUIRE(inputs.size() == 4);
  CHECK(inputs[1]->name() == "ninf");
  CHECK(inputs[3]->name() == "ninf");
  CHECK_FALSE(MatchRowSoftmax(*Named(**leaky, "div"), false, &members, &inputs));
  auto x = Literal::Create(Shape::Array(PrimitiveType::kF32, {2, 3, 5000}));
  REQUIRE(x.ok());
  for (int64_t i = 0; i < 30000; ++i) {
    x->typed<float>()[i] = static_cast<float>((i * 7919 % 2003) * 0.0625 - 110.0);
  }
  std::vector<Value> args;
  args.push_back(Value::FromLiteral(*std::move(x)));
  Evaluator fused_ev(**fused, {});
  Evaluator leaky_ev(**leaky, {});
  auto a = fused_ev.Run(args);
  auto b = leaky_ev.Run(args);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  const Literal la = a->ToLiteral(), lb = b->ToLiteral();
  const Literal& da = la.elements()[0];
  const Literal& db = lb.elements()[0];
  REQUIRE(da.size_bytes() == db.size_bytes());
  CHECK(std::memcmp(da.data(), db.data(), da.size_bytes()) == 0);
}

// The floor on the left and above every row's max (20 > x's 15): the
// shift is the floor itself; the bits still the unfused ones, under
// --denormals=flush too.
TEST_CASE("row softmax: a binding floor on either side gives the unfused bits", "[eval][softmax]") {
  std::string text = JaxSoftmax("", "");
  const std::string from = "  max = f32[2,3] maximum(rmax, ninf_b)\n";
  REQUIRE(text.find(from) != std::string::npos);
  text.replace(text.find(from), from.size(),
               "  fl = f32[] constant(20)\n  fl_b = f32[2,3] broadcast(fl), dimensions={}\n"
               "  max = f32[2,3] maximum(fl_b, rmax)\n");
  std::string leaky_text = text;
  const std::string root = ") tuple(div";
  leaky_text.replace(leaky_text.find("ROOT t = (f32[2,3,5000]"), 23,
                     "ROOT t = (f32[2,3,5000], f32[2,3,1]");
  leaky_text.replace(leaky_text.find(root), root.size(), ") tuple(div, s1");
  auto fused = ParseModule(text);
  auto leaky = ParseModule(leaky_text);
  INFO((fused.ok() ? std::string() : std::string(fused.status().message())));
  REQUIRE(fused.ok());
  REQUIRE(leaky.ok());
  std::vector<const Instruction*> members, inputs;
  auto op = MatchRowSoftmax(*Named(**fused, "div"), false, &members, &inputs);
  REQUIRE(op.has_value());
  CHECK(op->floor == RowSoftmax::Floor::kLeft);
  REQUIRE(inputs.size() == 4);
  CHECK(inputs[3]->name() == "fl");
  auto x = Literal::Create(Shape::Array(PrimitiveType::kF32, {2, 3, 5000}));
  REQUIRE(x.ok());
  for (int64_t i = 0; i < 30000; ++i) {
    x->typed<float>()[i] = static_cast<float>((i * 7919 % 2003) * 0.0625 - 110.0);
  }
  std::vector<Value> args;
  args.push_back(Value::FromLiteral(*std::move(x)));
  for (bool flush : {false, true}) {
    EvalOptions options;
    options.flush_denormals = flush;
    Evaluator fused_ev(**fused, options);
    Evaluator leaky_ev(**leaky, options);
    auto a = fused_ev.Run(args);
    auto b = leaky_ev.Run(args);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    const Literal la = a->ToLiteral(), lb = b->ToLiteral();
    const Literal& da = la.elements()[0];
    const Literal& db = lb.elements()[0];
    REQUIRE(da.size_bytes() == db.size_bytes());
    CHECK(std::memcmp(da.data(), db.data(), da.size_bytes()) == 0);
    // exp(x - 20) / sum: the values are softmax's whatever the shift.
    const float* out = da.typed<float>();
    long double total = 0;
    for (int64_t c = 0; c < 5000; ++c) total += out[c];
    CHECK(std::fabs(total - 1) < 1e-4L);
  }
}

// JAX's masked attention softmax: x = where(mask, scores / 8, -1e9) made
// in the row. `a` broadcasts its [5,300] mask over the leading dims (the
// mask a member); `b` and `c` share one pred array of their own shape (an
// input, as CSE leaves GPT-2's mask) and scale by multiplying, the
// constant on the left in `c`.
constexpr char kMaskedSoftmaxEntry[] = R"(ENTRY main {
  s = f32[2,3,5,300] parameter(0)
  t = pred[5,300] parameter(1)
  eight = f32[] constant(8)
  eb = f32[2,3,5,300] broadcast(eight), dimensions={}
  d = f32[2,3,5,300] divide(s, eb)
  tb = pred[2,3,5,300] broadcast(t), dimensions={2,3}
  fill = f32[] constant(-1e9)
  fb = f32[2,3,5,300] broadcast(fill), dimensions={}
  x = f32[2,3,5,300] select(tb, d, fb)
  ninf = f32[] constant(-inf)
  rmax = f32[2,3,5] reduce(x, ninf), dimensions={3}, to_apply=region_max
  ninf_b = f32[2,3,5] broadcast(ninf), dimensions={}
  max = f32[2,3,5] maximum(rmax, ninf_b)
  k4 = f32[2,3,5,300] broadcast(max), dimensions={0,1,2}
  sub = f32[2,3,5,300] subtract(x, k4)
  e = f32[2,3,5,300] exponential(sub)
  zero = f32[] constant(0)
  sum = f32[2,3,5] reduce(e, zero), dimensions={3}, to_apply=region_add
  s4 = f32[2,3,5,300] broadcast(sum), dimensions={0,1,2}
  a = f32[2,3,5,300] divide(e, s4)
  u = pred[2,3,5,300] parameter(2)
  third = f32[] constant(0.333)
  thb = f32[2,3,5,300] broadcast(third), dimensions={}
  m2 = f32[2,3,5,300] multiply(s, thb)
  x2 = f32[2,3,5,300] select(u, m2, fb)
  rmax2 = f32[2,3,5] reduce(x2, ninf), dimensions={3}, to_apply=region_max
  k5 = f32[2,3,5,300] broadcast(rmax2), dimensions={0,1,2}
  sub2 = f32[2,3,5,300] subtract(x2, k5)
  e2 = f32[2,3,5,300] exponential(sub2)
  sum2 = f32[2,3,5] reduce(e2, zero), dimensions={3}, to_apply=region_add
  s5 = f32[2,3,5,300] broadcast(sum2), dimensions={0,1,2}
  b = f32[2,3,5,300] divide(e2, s5)
  m3 = f32[2,3,5,300] multiply(thb, s)
  x3 = f32[2,3,5,300] select(u, m3, fb)
  rmax3 = f32[2,3,5] reduce(x3, ninf), dimensions={3}, to_apply=region_max
  k6 = f32[2,3,5,300] broadcast(rmax3), dimensions={0,1,2}
  sub3 = f32[2,3,5,300] subtract(x3, k6)
  e3 = f32[2,3,5,300] exponential(sub3)
  sum3 = f32[2,3,5] reduce(e3, zero), dimensions={3}, to_apply=region_add
  s6 = f32[2,3,5,300] broadcast(sum3), dimensions={0,1,2}
  c = f32[2,3,5,300] divide(e3, s6)
  ROOT r = (f32[2,3,5,300], f32[2,3,5,300], f32[2,3,5,300]) tuple(a, b, c)
}
)";

TEST_CASE("row softmax: JAX's masked, scaled scores are made in the row, bits as unfused",
          "[eval][softmax]") {
  auto m = ParseModule(StrCat("HloModule masked_softmax\n\n", kRowReducers, kMaskedSoftmaxEntry));
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  std::vector<const Instruction*> members, inputs;
  auto a = MatchRowSoftmax(*Named(**m, "a"), false, &members, &inputs);
  REQUIRE(a.has_value());
  CHECK(a->masked);
  CHECK(a->mask_rows == 5);
  CHECK(a->scale == Opcode::kDivide);
  REQUIRE(inputs.size() == 7);  // s, ninf, zero, ninf (floor), t, fill, eight
  CHECK(inputs[0]->name() == "s");
  CHECK(inputs[4]->name() == "t");
  CHECK(inputs[6]->name() == "eight");
  auto b = MatchRowSoftmax(*Named(**m, "b"), false, &members, &inputs);
  REQUIRE(b.has_value());
  CHECK(b->masked);
  CHECK(b->mask_rows == 30);
  CHECK(b->scale == Opcode::kMultiply);
  CHECK_FALSE(b->scale_left);
  CHECK(inputs[3]->name() == "u");
  auto c = MatchRowSoftmax(*Named(**m, "c"), false, &members, &inputs);
  REQUIRE(c.has_value());
  CHECK(c->scale_left);
  // Random scores, a mask of about half its elements, one row all false
  // (every element the fill: a uniform row).
  std::vector<Value> args;
  auto sl = Literal::Create(Shape::Array(PrimitiveType::kF32, {2, 3, 5, 300}));
  auto tl = Literal::Create(Shape::Array(PrimitiveType::kPred, {5, 300}));
  auto ul = Literal::Create(Shape::Array(PrimitiveType::kPred, {2, 3, 5, 300}));
  REQUIRE(sl.ok());
  REQUIRE(tl.ok());
  REQUIRE(ul.ok());
  for (int64_t i = 0; i < 9000; ++i) {
    sl->typed<float>()[i] = static_cast<float>((i * 7919 % 2003) * 0.05 - 50.0);
    ul->data()[i] = (i * 31 % 7) < 3 && i / 300 != 4;
  }
  for (int64_t i = 0; i < 1500; ++i) {
    tl->data()[i] = (i * 13 % 5) < 3 && i / 300 != 2;
  }
  args.push_back(Value::FromLiteral(*std::move(sl)));
  args.push_back(Value::FromLiteral(*std::move(tl)));
  args.push_back(Value::FromLiteral(*std::move(ul)));
  for (bool flush : {false, true}) {
    INFO((flush ? "flushed" : "kept"));
    CheckFusionKeepsBytes(**m, args, flush);
  }
}

// One masked softmax of s / c over rows of 128, rooted at `root`; its
// names end in `c`.
std::string ScaledSoftmax(const std::string& root, const std::string& c) {
  return absl::StrReplaceAll(R"(  cC = f32[] constant(C)
  cbC = f32[37,128] broadcast(cC), dimensions={}
  dC = f32[37,128] divide(s, cbC)
  xC = f32[37,128] select(t, dC, fb)
  rmaxC = f32[37] reduce(xC, ninf), dimensions={1}, to_apply=region_max
  kC = f32[37,128] broadcast(rmaxC), dimensions={0}
  subC = f32[37,128] subtract(xC, kC)
  eC = f32[37,128] exponential(subC)
  sumC = f32[37] reduce(eC, zero), dimensions={1}, to_apply=region_add
  sbC = f32[37,128] broadcast(sumC), dimensions={0}
  ROOT_NAME = f32[37,128] divide(eC, sbC)
)",
                             {{"ROOT_NAME", root}, {"C", c}});
}

// The scale's divide: by 8 the row multiplies by 1/8 (the same rounding
// of the one real s / 8), by 3 it divides; scores near the smallest
// normal make s / 8 subnormal (flushed or kept as the unfused divide
// does). 37 rows of 128: groups of 8 rows and a short last group.
TEST_CASE("row softmax: a scale by a power of two multiplies, by 3 divides, bits as unfused",
          "[eval][softmax]") {
  auto m = ParseModule(StrCat("HloModule scaled_softmax\n\n", kRowReducers, R"(ENTRY main {
  s = f32[37,128] parameter(0)
  t = pred[37,128] parameter(1)
  fill = f32[] constant(-1e9)
  fb = f32[37,128] broadcast(fill), dimensions={}
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
)",
                              ScaledSoftmax("a", "8"), ScaledSoftmax("b", "3"),
                              "  ROOT r = (f32[37,128], f32[37,128]) tuple(a, b)\n}\n"));
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  std::vector<const Instruction*> members, inputs;
  for (const char* root : {"a", "b"}) {
    auto op = MatchRowSoftmax(*Named(**m, root), false, &members, &inputs);
    REQUIRE(op.has_value());
    CHECK(op->masked);
    CHECK(op->scale == Opcode::kDivide);
  }
  std::vector<Value> args;
  auto sl = Literal::Create(Shape::Array(PrimitiveType::kF32, {37, 128}));
  auto tl = Literal::Create(Shape::Array(PrimitiveType::kPred, {37, 128}));
  REQUIRE(sl.ok());
  REQUIRE(tl.ok());
  const float tiny = std::numeric_limits<float>::min();
  for (int64_t i = 0; i < 37 * 128; ++i) {
    // Rows 0-9: scores of a few times the smallest normal (their eighths
    // and thirds subnormal, some odd multiples of it rounding); the rest
    // ordinary scores, with an infinity and a NaN in one row each.
    const int64_t row = i / 128;
    float v = row < 10 ? tiny * static_cast<float>(i % 23 - 11) * 0.37f
                       : static_cast<float>((i * 7919 % 2003) * 0.05 - 50.0);
    if (i == 20 * 128 + 5) v = std::numeric_limits<float>::infinity();
    if (i == 30 * 128 + 9) v = std::numeric_limits<float>::quiet_NaN();
    sl->typed<float>()[i] = v;
    tl->data()[i] = (i * 13 % 5) < 3 && row != 12;
  }
  args.push_back(Value::FromLiteral(*std::move(sl)));
  args.push_back(Value::FromLiteral(*std::move(tl)));
  for (bool flush : {false, true}) {
    INFO((flush ? "flushed" : "kept"));
    CheckFusionKeepsBytes(**m, args, flush);
  }
}

// XLA's optimized attention softmax (its GPT-2 after.hlo, defused): the
// masked, scaled scores, then e times each row's 1 / sum instead of e / sum.
// `a` multiplies e on the left of the reciprocals; `b` puts them on the
// left and divides 3 by the sum; `c` reads the reciprocals elsewhere too
// (not matched: they are not the group's alone).
constexpr char kReciprocalSoftmaxEntry[] = R"(ENTRY main {
  p = f32[4,2,64,64] parameter(0)
  i0 = s32[64,64] iota(), iota_dimension=0
  i1 = s32[64,64] iota(), iota_dimension=1
  ge = pred[64,64] compare(i0, i1), direction=GE
  mask = pred[4,2,64,64] broadcast(ge), dimensions={2,3}
  scale = f32[] constant(0.176776692)
  sb = f32[4,2,64,64] broadcast(scale), dimensions={}
  scaled = f32[4,2,64,64] multiply(p, sb)
  fill = f32[] constant(-1e+09)
  fb = f32[4,2,64,64] broadcast(fill), dimensions={}
  x = f32[4,2,64,64] select(mask, scaled, fb)
  ninf = f32[] constant(-inf)
  mx = f32[4,2,64] reduce(x, ninf), dimensions={3}, to_apply=region_max
  mxb = f32[4,2,64,64] broadcast(mx), dimensions={0,1,2}
  sub = f32[4,2,64,64] subtract(x, mxb)
  e = f32[4,2,64,64] exponential(sub)
  zero = f32[] constant(0)
  sum = f32[4,2,64] reduce(e, zero), dimensions={3}, to_apply=region_add
  one = f32[] constant(1)
  ones = f32[4,2,64] broadcast(one), dimensions={}
  rcp = f32[4,2,64] divide(ones, sum)
  rcpb = f32[4,2,64,64] broadcast(rcp), dimensions={0,1,2}
  a = f32[4,2,64,64] multiply(e, rcpb)
  q = f32[4,2,64,64] parameter(1)
  mx2 = f32[4,2,64] reduce(q, ninf), dimensions={3}, to_apply=region_max
  mxb2 = f32[4,2,64,64] broadcast(mx2), dimensions={0,1,2}
  sub2 = f32[4,2,64,64] subtract(q, mxb2)
  e2 = f32[4,2,64,64] exponential(sub2)
  sum2 = f32[4,2,64] reduce(e2, zero), dimensions={3}, to_apply=region_add
  three = f32[] constant(3)
  threes = f32[4,2,64] broadcast(three), dimensions={}
  rcp2 = f32[4,2,64] divide(threes, sum2)
  rcpb2 = f32[4,2,64,64] broadcast(rcp2), dimensions={0,1,2}
  b = f32[4,2,64,64] multiply(rcpb2, e2)
  mx3 = f32[4,2,64] reduce(q, ninf), dimensions={3}, to_apply=region_max
  mxb3 = f32[4,2,64,64] broadcast(mx3), dimensions={0,1,2}
  sub3 = f32[4,2,64,64] subtract(q, mxb3)
  e3 = f32[4,2,64,64] exponential(sub3)
  sum3 = f32[4,2,64] reduce(e3, zero), dimensions={3}, to_apply=region_add
  ones3 = f32[4,2,64] broadcast(one), dimensions={}
  rcp3 = f32[4,2,64] divide(ones3, sum3)
  rcpb3 = f32[4,2,64,64] broadcast(rcp3), dimensions={0,1,2}
  c = f32[4,2,64,64] multiply(e3, rcpb3)
  ROOT r = (f32[4,2,64,64], f32[4,2,64,64], f32[4,2,64,64], f32[4,2,64]) tuple(a, b, c, rcp3)
}
)";

TEST_CASE("row softmax: XLA's e * (1 / sum) form is matched, bits as unfused", "[eval][softmax]") {
  auto m = ParseModule(
      StrCat("HloModule reciprocal_softmax\n\n", kRowReducers, kReciprocalSoftmaxEntry));
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  std::vector<const Instruction*> members, inputs;
  auto a = MatchRowSoftmax(*Named(**m, "a"), false, &members, &inputs);
  REQUIRE(a.has_value());
  CHECK(a->reciprocal);
  CHECK_FALSE(a->reciprocal_left);
  CHECK(a->masked);
  CHECK(a->mask_rows == 64);
  REQUIRE(inputs.size() == 7);  // p, ninf, zero, ge, fill, scale, one
  CHECK(inputs[0]->name() == "p");
  CHECK(inputs[3]->name() == "ge");
  CHECK(inputs[6]->name() == "one");
  auto b = MatchRowSoftmax(*Named(**m, "b"), false, &members, &inputs);
  REQUIRE(b.has_value());
  CHECK(b->reciprocal_left);
  CHECK_FALSE(b->masked);
  REQUIRE(inputs.size() == 4);
  CHECK(inputs[3]->name() == "three");
  CHECK_FALSE(MatchRowSoftmax(*Named(**m, "c"), false, &members, &inputs));
  // Scores over [-120, 20] times 5.66 (exp's results reach subnormals and
  // zeros), a row of -inf in q (NaN throughout).
  std::vector<Value> args;
  for (int k = 0; k < 2; ++k) {
    auto l = Literal::Create(Shape::Array(PrimitiveType::kF32, {4, 2, 64, 64}));
    REQUIRE(l.ok());
    for (int64_t i = 0; i < 4 * 2 * 64 * 64; ++i) {
      l->typed<float>()[i] = static_cast<float>((i * 7919 % 2003) * 0.07 - 120.0);
      if (k == 1 && i / 64 == 9) l->typed<float>()[i] = -std::numeric_limits<float>::infinity();
    }
    args.push_back(Value::FromLiteral(*std::move(l)));
  }
  for (bool flush : {false, true}) {
    INFO((flush ? "flushed" : "kept"));
    CheckFusionKeepsBytes(**m, args, flush);
  }
}

}  // namespace
}  // namespace hlo
