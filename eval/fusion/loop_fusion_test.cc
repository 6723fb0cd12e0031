// XLA's loop fusions as one loop (eval/fusion/loop_fusion.cc): which
// computations compile, and that a fusion computing a smaller value first
// (a mean or a standard deviation broadcast over the root) gives, bit for
// bit, what its computation gives instruction by instruction.
#include "eval/fusion/loop_fusion.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "eval/eval_test_util.h"
#include "eval/evaluator.h"
#include "eval/io/random_fill.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

constexpr std::string_view kModule = R"(HloModule t

norm {
  x = f32[4,33,50] parameter(0)
  s = f32[4,33] parameter(1)
  v = f32[4,33] parameter(2)
  c = f32[] constant(0.02)
  cb = f32[4,33] broadcast(c), dimensions={}
  mean = f32[4,33] multiply(s, cb)
  mb = f32[4,33,50] broadcast(mean), dimensions={0,1}
  centered = f32[4,33,50] subtract(x, mb)
  eps = f32[] constant(1e-05)
  epsb = f32[4,33] broadcast(eps), dimensions={}
  vs = f32[4,33] multiply(v, cb)
  ve = f32[4,33] add(vs, epsb)
  sd = f32[4,33] sqrt(ve)
  sdb = f32[4,33,50] broadcast(sd), dimensions={0,1}
  ROOT r = f32[4,33,50] divide(centered, sdb)
}

reads_made_of {
  x = f32[4,33,50] parameter(0)
  s = f32[4,33] parameter(1)
  n = f32[4,33] negate(s)
  m = f32[4,33] multiply(n, n)
  mb = f32[4,33,50] broadcast(m), dimensions={0,1}
  nb = f32[4,33,50] broadcast(n), dimensions={0,1}
  a = f32[4,33,50] add(x, mb)
  ROOT r = f32[4,33,50] add(a, nb)
}

ENTRY main {
  x = f32[4,33,50] parameter(0)
  s = f32[4,33] parameter(1)
  v = f32[4,33] parameter(2)
  f = f32[4,33,50] fusion(x, s, v), kind=kLoop, calls=norm
  g = f32[4,33,50] fusion(x, s), kind=kLoop, calls=reads_made_of
  ROOT t = (f32[4,33,50], f32[4,33,50]) tuple(f, g)
}
)";

std::unique_ptr<Module> Parse() { return ParseTestModule(kModule); }

const Instruction* Find(const Module& m, std::string_view name) {
  return &EntryInstruction(m, name);
}

TEST_CASE("loop fusion: a layer-norm fusion computes its mean and deviation first",
          "[loop_fusion]") {
  std::unique_ptr<Module> m = Parse();
  const Instruction* f = Find(*m, "f");
  std::unique_ptr<FusedGroup> loop = CompileLoopFusion(*f, false);
  REQUIRE(loop != nullptr);
  CHECK(loop->precomputed.size() == 2);

  // Random operands (v non-negative: a variance), then the loop and the
  // computation on the same values, compared bit for bit.
  std::vector<Value> args;
  for (int64_t i = 0; i < 3; ++i) {
    absl::StatusOr<Literal> lit =
        RandomLiteral(m->entry()->parameter(i)->shape(), 7, static_cast<uint64_t>(i));
    REQUIRE(lit.ok());
    if (i == 2) {
      for (float& e : absl::MakeSpan(lit->typed<float>(), lit->element_count())) e = e * e;
    }
    args.push_back(Value::FromLiteral(*std::move(lit)));
  }
  REQUIRE(LoopFusionFits(*loop, args));
  std::vector<Value> copy = args;
  absl::StatusOr<Value> fused = RunLoopFusion(*loop, absl::MakeSpan(copy));
  REQUIRE(fused.ok());

  Evaluator ev(*m, EvalOptions{});
  std::vector<const Value*> ptrs = {&args[0], &args[1], &args[2]};
  absl::StatusOr<Value> plain = ev.Call(*f->to_apply(), ptrs);
  REQUIRE(plain.ok());
  REQUIRE(fused->array().size_bytes() == plain->array().size_bytes());
  CHECK(std::memcmp(fused->array().data(), plain->array().data(), plain->array().size_bytes()) ==
        0);

  // An operand of the wrong size for the precomputed group does not fit.
  std::vector<Value> wrong = args;
  absl::StatusOr<Literal> small = Literal::Create(Shape::Array(PrimitiveType::kF32, {4, 32}));
  REQUIRE(small.ok());
  wrong[2] = Value::FromLiteral(*std::move(small));
  CHECK_FALSE(LoopFusionFits(*loop, wrong));
}

TEST_CASE("loop fusion: a loop that reads what a precomputed value is made of does not compile",
          "[loop_fusion]") {
  std::unique_ptr<Module> m = Parse();
  // nb broadcasts n, which m (a precomputed value) is made of: n cannot be
  // both left out of the loop and read by it.
  CHECK(CompileLoopFusion(*Find(*m, "g"), false) == nullptr);
}

constexpr std::string_view kIotaModule = R"(HloModule t

causal {
  rows = s32[64,64] iota(), iota_dimension=0
  cols = s32[64,64] iota(), iota_dimension=1
  ge = pred[64,64] compare(rows, cols), direction=GE
  mask = pred[2,3,64,64] broadcast(ge), dimensions={2,3}
  p = f32[2,3,64,64] parameter(0)
  neg = f32[] constant(-1e+09)
  negb = f32[2,3,64,64] broadcast(neg), dimensions={}
  ROOT r = f32[2,3,64,64] select(mask, p, negb)
}

ramp {
  x = f32[3,50,70] parameter(0)
  i = f32[3,50,70] iota(), iota_dimension=1
  ROOT r = f32[3,50,70] add(x, i)
}

ENTRY main {
  p = f32[2,3,64,64] parameter(0)
  x = f32[3,50,70] parameter(1)
  f = f32[2,3,64,64] fusion(p), kind=kLoop, calls=causal
  g = f32[3,50,70] fusion(x), kind=kLoop, calls=ramp
  ROOT t = (f32[2,3,64,64], f32[3,50,70]) tuple(f, g)
}
)";

// The fusion run as a loop and through its computation on random operands,
// compared bit for bit.
void CheckLoopMatchesComputation(Module& m, const Instruction& f, FusedGroup& loop,
                                 uint64_t seed = 11) {
  std::vector<Value> args;
  for (int64_t i = 0; i < f.operand_count(); ++i) {
    absl::StatusOr<Literal> lit =
        RandomLiteral(f.operand(i)->shape(), seed, static_cast<uint64_t>(i));
    REQUIRE(lit.ok());
    args.push_back(Value::FromLiteral(*std::move(lit)));
  }
  REQUIRE(LoopFusionFits(loop, args));
  std::vector<Value> copy = args;
  absl::StatusOr<Value> fused = RunLoopFusion(loop, absl::MakeSpan(copy));
  REQUIRE(fused.ok());
  // Instruction by instruction, each through its own kernel.
  EvalOptions plain_options;
  plain_options.fusion = false;
  CheckSameBytes(*fused, CallFused(m, f, args, plain_options));
}

TEST_CASE("loop fusion: iotas run in the loop", "[loop_fusion]") {
  std::unique_ptr<Module> parsed = ParseTestModule(kIotaModule);
  Module& m = *parsed;
  // A causal mask: the [64,64] mask of two iotas is computed first.
  const Instruction* f = Find(m, "f");
  std::unique_ptr<FusedGroup> causal = CompileLoopFusion(*f, false);
  REQUIRE(causal != nullptr);
  CHECK(causal->precomputed.size() == 1);
  CheckLoopMatchesComputation(m, *f, *causal);
  // An iota of the loop's positions, along a middle dimension, over
  // several blocks (10,500 positions).
  const Instruction* g = Find(m, "g");
  std::unique_ptr<FusedGroup> ramp = CompileLoopFusion(*g, false);
  REQUIRE(ramp != nullptr);
  CHECK(ramp->precomputed.empty());
  CheckLoopMatchesComputation(m, *g, *ramp);
}

constexpr std::string_view kPerChannelModule = R"(HloModule t

affine {
  x = f32[7,45,64] parameter(0)
  mean = f32[64] parameter(1)
  scale = f32[64] parameter(2)
  odd = f32[45,64] parameter(3)
  three = f32[3] parameter(4)
  mb = f32[7,45,64] broadcast(mean), dimensions={2}
  c = f32[7,45,64] subtract(x, mb)
  sb = f32[7,45,64] broadcast(scale), dimensions={2}
  y = f32[7,45,64] multiply(c, sb)
  ob = f32[7,45,64] broadcast(odd), dimensions={1,2}
  z = f32[7,45,64] add(y, ob)
  i = f32[7,45,64] iota(), iota_dimension=2
  w = f32[7,45,64] add(z, i)
  ROOT r = f32[7,45,64] multiply(w, w)
}

pieces {
  x = f32[33,97,256] parameter(0)
  mean = f32[256] parameter(1)
  odd = f32[97,256] parameter(2)
  mb = f32[33,97,256] broadcast(mean), dimensions={2}
  c = f32[33,97,256] subtract(x, mb)
  ob = f32[33,97,256] broadcast(odd), dimensions={1,2}
  i = f32[33,97,256] iota(), iota_dimension=1
  z = f32[33,97,256] multiply(c, ob)
  ROOT r = f32[33,97,256] add(z, i)
}

thirds {
  x = f32[11,31,3] parameter(0)
  t = f32[3] parameter(1)
  tb = f32[11,31,3] broadcast(t), dimensions={2}
  ROOT r = f32[11,31,3] add(x, tb)
}

ENTRY main {
  x = f32[7,45,64] parameter(0)
  mean = f32[64] parameter(1)
  scale = f32[64] parameter(2)
  odd = f32[45,64] parameter(3)
  three = f32[3] parameter(4)
  y = f32[11,31,3] parameter(5)
  px = f32[33,97,256] parameter(6)
  pmean = f32[256] parameter(7)
  podd = f32[97,256] parameter(8)
  f = f32[7,45,64] fusion(x, mean, scale, odd, three), kind=kLoop, calls=affine
  g = f32[11,31,3] fusion(y, three), kind=kLoop, calls=thirds
  h = f32[33,97,256] fusion(px, pmean, podd), kind=kLoop, calls=pieces
  ROOT t = (f32[7,45,64], f32[11,31,3], f32[33,97,256]) tuple(f, g, h)
}
)";

TEST_CASE("loop fusion: per-channel broadcasts filled once per run give the same values",
          "[loop_fusion]") {
  std::unique_ptr<Module> parsed = ParseTestModule(kPerChannelModule);
  Module& m = *parsed;
  // Periods of 64 (filled once per run), 2,880 (filled per block), an iota
  // of period 64, and a period of 3 that does not divide the block; each
  // loop run again on other values, which must not be read from the
  // registers the first run filled. h is cut into 12 pieces (the cores
  // take them in turn, a shorter one last), each refilling its registers.
  for (const char* name : {"f", "g", "h"}) {
    std::unique_ptr<FusedGroup> loop = CompileLoopFusion(*Find(m, name), false);
    REQUIRE(loop != nullptr);
    CheckLoopMatchesComputation(m, *Find(m, name), *loop, 11);
    CheckLoopMatchesComputation(m, *Find(m, name), *loop, 12);
  }
}

constexpr std::string_view kRowBroadcastModule = R"(HloModule t

scale_rows {
  x = f32[4,4,64,64] parameter(0)
  s = f32[4,4,64] parameter(1)
  b = f32[4,4,64,64] broadcast(s), dimensions={0,1,2}
  ROOT m = f32[4,4,64,64] multiply(x, b)
}

rows_over {
  s = f32[3,7] parameter(0)
  x = f64[3,7,5] parameter(1)
  c = f64[3,7] convert(s)
  b = f64[3,7,5] broadcast(c), dimensions={0,1}
  ROOT d = f64[3,7,5] divide(b, x)
}

divide_rows {
  s = f64[3,7] parameter(0)
  x = f64[3,7,5] parameter(1)
  b = f64[3,7,5] broadcast(s), dimensions={0,1}
  ROOT d = f64[3,7,5] divide(b, x)
}

ENTRY main {
  x = f32[4,4,64,64] parameter(0)
  s = f32[4,4,64] parameter(1)
  f = f32[4,4,64,64] fusion(x, s), kind=kLoop, calls=scale_rows
  s2 = f32[3,7] parameter(2)
  s3 = f64[3,7] parameter(3)
  x2 = f64[3,7,5] parameter(4)
  g = f64[3,7,5] fusion(s2, x2), kind=kLoop, calls=rows_over
  h = f64[3,7,5] fusion(s3, x2), kind=kLoop, calls=divide_rows
  ROOT t = (f32[4,4,64,64], f64[3,7,5], f64[3,7,5]) tuple(f, g, h)
}
)";

TEST_CASE("loop fusion: one op and a per-row broadcast run as the row loop, same bits",
          "[loop_fusion]") {
  std::unique_ptr<Module> parsed = ParseTestModule(kRowBroadcastModule);
  Module& m = *parsed;
  // XLA's softmax multiply by 1/sum (x op s[r]), and s[r] op x with the
  // row value its first operand; a convert before the broadcast is not
  // the form, so that fusion keeps the batched loop.
  std::unique_ptr<FusedGroup> f = CompileLoopFusion(*Find(m, "f"), false);
  std::unique_ptr<FusedGroup> g = CompileLoopFusion(*Find(m, "g"), false);
  std::unique_ptr<FusedGroup> h = CompileLoopFusion(*Find(m, "h"), false);
  REQUIRE(f != nullptr);
  REQUIRE(g != nullptr);
  REQUIRE(h != nullptr);
  REQUIRE(f->row_op.has_value());
  CHECK_FALSE(f->row_op->row_first);
  CHECK_FALSE(g->row_op.has_value());
  REQUIRE(h->row_op.has_value());
  CHECK(h->row_op->row_first);
  for (uint64_t seed : {11, 12}) {
    CheckLoopMatchesComputation(m, *Find(m, "f"), *f, seed);
    CheckLoopMatchesComputation(m, *Find(m, "h"), *h, seed);
  }
}

}  // namespace
}  // namespace hlo
