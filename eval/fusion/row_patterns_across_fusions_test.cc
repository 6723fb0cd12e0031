// Row patterns that XLA split over several fusions, found by
// RowPatternMemberNames in a copy with every fusion defused; hlo-run's
// defuser, told which fusions hold one (DefuserOptions::joins_pattern),
// defuses those alone, after which the executor's group matches the whole.
// Its optimized attention softmax is split over five fusions (its GPT-2
// after.hlo: the masked, scaled scores; max, subtract and exp; the sum;
// the reciprocals; the product), its layer norm over six (the residual
// add, the sum, the centring, the sum of squares, the rsqrt, the scaling).
#include <catch2/catch.hpp>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "eval/eval_test_util.h"
#include "eval/fusion/fusion_plan.h"
#include "parser/parser.h"
#include "passes/passes.h"

namespace hlo {
namespace {

constexpr char kSplitSoftmax[] = R"(HloModule split_softmax

region_add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
region_max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
masked_scores {
  iota.23 = s32[64,64] iota(), iota_dimension=0
  iota.22 = s32[64,64] iota(), iota_dimension=1
  ge.5 = pred[64,64] compare(iota.23, iota.22), direction=GE
  mask.15 = pred[4,4,64,64] broadcast(ge.5), dimensions={2,3}
  param_0.105 = f32[4,4,64,64] parameter(0)
  constant.55 = f32[] constant(0.176776692)
  broadcast.92 = f32[4,4,64,64] broadcast(constant.55), dimensions={}
  multiply.32 = f32[4,4,64,64] multiply(param_0.105, broadcast.92)
  constant.54 = f32[] constant(-1e+09)
  fill.14 = f32[4,4,64,64] broadcast(constant.54), dimensions={}
  ROOT select_n.10 = f32[4,4,64,64] select(mask.15, multiply.32, fill.14)
}
max_exp {
  param_0.23 = f32[4,4,64,64] parameter(0)
  param_1.23 = f32[] parameter(1)
  reduce_max.1 = f32[4,4,64] reduce(param_0.23, param_1.23), dimensions={3}, to_apply=region_max
  sub.2 = f32[4,4,64,64] broadcast(reduce_max.1), dimensions={0,1,2}
  sub.3 = f32[4,4,64,64] subtract(param_0.23, sub.2)
  ROOT exp.1 = f32[4,4,64,64] exponential(sub.3)
}
row_sum {
  param_0.22 = f32[4,4,64,64] parameter(0)
  param_1.22 = f32[] parameter(1)
  ROOT reduce_sum.13 = f32[4,4,64] reduce(param_0.22, param_1.22), dimensions={3}, to_apply=region_add
}
reciprocal {
  constant.53 = f32[] constant(1)
  broadcast.91 = f32[4,4,64] broadcast(constant.53), dimensions={}
  param_0.103 = f32[4,4,64] parameter(0)
  ROOT divide.3 = f32[4,4,64] divide(broadcast.91, param_0.103)
}
product {
  param_0.101 = f32[4,4,64,64] parameter(0)
  param_1.95 = f32[4,4,64] parameter(1)
  broadcast.90 = f32[4,4,64,64] broadcast(param_1.95), dimensions={0,1,2}
  ROOT multiply.31 = f32[4,4,64,64] multiply(param_0.101, broadcast.90)
}
other {
  param_0.1 = f32[4,4,64,64] parameter(0)
  ROOT negate.1 = f32[4,4,64,64] negate(param_0.1)
}

ENTRY main {
  p = f32[4,4,64,64] parameter(0)
  constant.26 = f32[] constant(-inf)
  constant.28 = f32[] constant(0)
  scores = f32[4,4,64,64] fusion(p), kind=kLoop, calls=masked_scores
  e = f32[4,4,64,64] fusion(scores, constant.26), kind=kCustom, calls=max_exp
  sums = f32[4,4,64] fusion(e, constant.28), kind=kCustom, calls=row_sum
  r = f32[4,4,64] fusion(sums), kind=kLoop, calls=reciprocal
  out = f32[4,4,64,64] fusion(e, r), kind=kLoop, calls=product
  ROOT n = f32[4,4,64,64] fusion(out), kind=kLoop, calls=other
}
)";

// The members of the row patterns in `text` (RowPatternMemberNames on a
// copy with every fusion defused) in `names`, and the module with the
// fusions that hold one defused as hlo-run's own passes do; null (the test
// failed) when it does not parse.
std::unique_ptr<Module> DefuseRowPatterns(const char* text, std::set<std::string>* names) {
  auto copy = ParseModule(text);
  auto m = ParseModule(text);
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(copy.ok());
  REQUIRE(m.ok());
  DefuserOptions every;
  every.keep_names = true;
  REQUIRE(CreateDefuser(every)->Run(**copy).ok());
  const std::vector<std::string> found = RowPatternMemberNames(**copy, false);
  names->clear();
  names->insert(found.begin(), found.end());
  DefuserOptions options;
  options.reduce_producers_over = int64_t{1} << 14;
  options.keep_names = true;
  options.runs_as_one_loop = [](const Instruction&) { return true; };
  options.joins_pattern = [names](const Instruction& fusion) {
    for (const Computation* c : fusion.called_computations()) {
      for (const auto& inst : c->instructions()) {
        if (names->count(std::string(inst->name())) != 0) return true;
      }
    }
    return false;
  };
  REQUIRE(CreateDefuser(options)->Run(**m).ok());
  return *std::move(m);
}

int64_t EntryFusions(const Module& m) {
  int64_t fusions = 0;
  for (const auto& inst : m.entry()->instructions()) fusions += inst->opcode() == Opcode::kFusion;
  return fusions;
}

TEST_CASE("softmax across fusions: found in a defused copy, its fusions alone defused",
          "[eval][softmax]") {
  std::set<std::string> names;
  std::unique_ptr<Module> m = DefuseRowPatterns(kSplitSoftmax, &names);
  for (const char* member : {"select_n.10", "multiply.32", "mask.15", "reduce_max.1", "sub.3",
                             "exp.1", "reduce_sum.13", "divide.3", "broadcast.91", "multiply.31"}) {
    INFO(member);
    CHECK(names.count(member) == 1);
  }
  CHECK(names.count("negate.1") == 0);
  // Every fusion but `other` defused.
  CHECK(EntryFusions(*m) == 1);
  std::vector<const Instruction*> members, inputs;
  auto softmax = MatchRowSoftmax(EntryInstruction(*m, "multiply.31"), false, &members, &inputs);
  REQUIRE(softmax.has_value());
  CHECK(softmax->reciprocal);
  CHECK(softmax->masked);
}

// gpt_fwd's after.hlo layer norm, shapes cut down: the residual stream x
// (a dot's [rows, cols] output bitcast and added), its row sums, the
// centred values, their squares' sums, 1/sqrt(var + eps), and the scaled
// result bitcast back to [rows, cols]; `other` reads x after the norm (the
// next layer's residual add) and is no part of it.
constexpr char kSplitLayerNorm[] = R"(HloModule split_layer_norm

region_add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
residual {
  param_0.1 = f32[16,32] parameter(0)
  bitcast.1 = f32[2,8,32] bitcast(param_0.1)
  param_1.1 = f32[2,8,32] parameter(1)
  ROOT add.1 = f32[2,8,32] add(bitcast.1, param_1.1)
}
row_sum {
  param_0.2 = f32[2,8,32] parameter(0)
  param_1.2 = f32[] parameter(1)
  ROOT reduce_sum.9 = f32[2,8] reduce(param_0.2, param_1.2), dimensions={2}, to_apply=region_add
}
centre {
  param_0.3 = f32[2,8,32] parameter(0)
  param_1.3 = f32[2,8] parameter(1)
  constant.3 = f32[] constant(0.03125)
  broadcast.3 = f32[2,8] broadcast(constant.3), dimensions={}
  multiply.30 = f32[2,8] multiply(param_1.3, broadcast.3)
  sub.15 = f32[2,8,32] broadcast(multiply.30), dimensions={0,1}
  ROOT sub.14 = f32[2,8,32] subtract(param_0.3, sub.15)
}
square_sum {
  param_0.4 = f32[] parameter(0)
  param_1.4 = f32[2,8,32] parameter(1)
  integer_pow.3 = f32[2,8,32] multiply(param_1.4, param_1.4)
  ROOT reduce_sum.14 = f32[2,8] reduce(integer_pow.3, param_0.4), dimensions={2}, to_apply=region_add
}
inv_std {
  param_0.5 = f32[2,8] parameter(0)
  constant.5 = f32[] constant(0.03125)
  broadcast.5 = f32[2,8] broadcast(constant.5), dimensions={}
  var.1 = f32[2,8] multiply(param_0.5, broadcast.5)
  constant.6 = f32[] constant(1e-05)
  broadcast.6 = f32[2,8] broadcast(constant.6), dimensions={}
  add.2 = f32[2,8] add(var.1, broadcast.6)
  ROOT rsqrt.1 = f32[2,8] rsqrt(add.2)
}
scale {
  param_3.22 = f32[2,8,32] parameter(3)
  param_4.14 = f32[2,8] parameter(4)
  constant.49 = f32[] constant(0.03125)
  broadcast.86 = f32[2,8] broadcast(constant.49), dimensions={}
  multiply.28 = f32[2,8] multiply(param_4.14, broadcast.86)
  sub.13 = f32[2,8,32] broadcast(multiply.28), dimensions={0,1}
  sub.12 = f32[2,8,32] subtract(param_3.22, sub.13)
  param_2.41 = f32[2,8] parameter(2)
  mul.19 = f32[2,8,32] broadcast(param_2.41), dimensions={0,1}
  mul.18 = f32[2,8,32] multiply(sub.12, mul.19)
  param_1.82 = f32[32] parameter(1)
  mul.17 = f32[2,8,32] broadcast(param_1.82), dimensions={2}
  mul.16 = f32[2,8,32] multiply(mul.18, mul.17)
  param_0.85 = f32[32] parameter(0)
  add.18 = f32[2,8,32] broadcast(param_0.85), dimensions={2}
  add.17 = f32[2,8,32] add(mul.16, add.18)
  ROOT bitcast.43 = f32[16,32] bitcast(add.17)
}
other {
  param_0.9 = f32[2,8,32] parameter(0)
  ROOT negate.9 = f32[2,8,32] negate(param_0.9)
}

ENTRY main {
  d = f32[16,32] parameter(0)
  r = f32[2,8,32] parameter(1)
  g = f32[32] parameter(2)
  beta = f32[32] parameter(3)
  zero = f32[] constant(0)
  x = f32[2,8,32] fusion(d, r), kind=kLoop, calls=residual
  s = f32[2,8] fusion(x, zero), kind=kInput, calls=row_sum
  c = f32[2,8,32] fusion(x, s), kind=kLoop, calls=centre
  q = f32[2,8] fusion(zero, c), kind=kInput, calls=square_sum
  i = f32[2,8] fusion(q), kind=kLoop, calls=inv_std
  y = f32[16,32] fusion(beta, g, i, x, s), kind=kLoop, calls=scale
  n = f32[2,8,32] fusion(x), kind=kLoop, calls=other
  ROOT t = (f32[16,32], f32[2,8,32]) tuple(y, n)
}
)";

// Values in [-3, 5), every 29th a subnormal.
Value Arg(std::vector<int64_t> dims, uint64_t seed) {
  auto lit = Literal::Create(Shape::Array(PrimitiveType::kF32, dims));
  REQUIRE(lit.ok());
  uint64_t state = seed;
  for (int64_t i = 0; i < lit->element_count(); ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    float v = -3.0f + 8.0f * static_cast<float>(state >> 40) / 16777216.0f;
    if (i % 29 == 3) v = (i % 2 ? -1 : 1) * 1e-40f;
    lit->typed<float>()[i] = v;
  }
  return Value::FromLiteral(*std::move(lit));
}

TEST_CASE("layer norm across fusions: its fusions alone defused, one row program, the same bits",
          "[eval][row_program]") {
  std::set<std::string> names;
  std::unique_ptr<Module> m = DefuseRowPatterns(kSplitLayerNorm, &names);
  auto fused = ParseModule(kSplitLayerNorm);
  REQUIRE(fused.ok());
  for (const char* member : {"add.1", "reduce_sum.9", "sub.14", "integer_pow.3", "reduce_sum.14",
                             "rsqrt.1", "mul.18", "add.17"}) {
    INFO(member);
    CHECK(names.count(member) == 1);
  }
  CHECK(names.count("negate.9") == 0);
  CHECK(EntryFusions(*m) == 1);  // `other`
  // The executor's groups: one row program holds both sums.
  const std::vector<Instruction*> post_order = m->entry()->PostOrder();
  const std::vector<const Instruction*> order(post_order.begin(), post_order.end());
  int64_t programs = 0;
  for (const std::unique_ptr<FusedGroup>& g : FindFusedGroups(order, false)) {
    if (!g->row_program) continue;
    ++programs;
    std::set<std::string> held;
    for (const Instruction* i : g->members) held.insert(std::string(i->name()));
    CHECK(held.count("reduce_sum.9") == 1);
    CHECK(held.count("reduce_sum.14") == 1);
  }
  CHECK(programs == 1);
  // The bits of XLA's fusions run as they are, and of the row program
  // against the defused module run unfused; with and without flushing.
  const std::vector<Value> args = {Arg({16, 32}, 1), Arg({2, 8, 32}, 2), Arg({32}, 3),
                                   Arg({32}, 4)};
  for (bool flush : {false, true}) {
    INFO((flush ? "flushed" : "not flushed"));
    EvalOptions eval_options;
    eval_options.flush_denormals = flush;
    Evaluator as_fused(**fused, eval_options);
    Evaluator defused(*m, eval_options);
    auto a = as_fused.Run(args);
    auto b = defused.Run(args);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CheckSameBytes(*a, *b);
    CheckFusionKeepsBytes(*m, args, flush);
  }
}

}  // namespace
}  // namespace hlo
