// XLA's optimized attention softmax, split over five fusions (its GPT-2
// after.hlo: the masked, scaled scores; max, subtract and exp; the sum;
// the reciprocals; the product): SoftmaxMemberNames finds the members in a
// copy with every fusion defused, and hlo-run's defuser, told which fusions
// hold one (DefuserOptions::joins_pattern), defuses those alone, after
// which the executor's group matches the whole softmax.
#include <catch2/catch.hpp>
#include <memory>
#include <set>
#include <string>
#include <vector>

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

TEST_CASE("softmax across fusions: found in a defused copy, its fusions alone defused",
          "[eval][softmax]") {
  auto copy = ParseModule(kSplitSoftmax);
  auto m = ParseModule(kSplitSoftmax);
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(copy.ok());
  REQUIRE(m.ok());
  DefuserOptions every;
  every.keep_names = true;
  REQUIRE(CreateDefuser(every)->Run(**copy).ok());
  const std::vector<std::string> found = SoftmaxMemberNames(**copy, false);
  const std::set<std::string> names(found.begin(), found.end());
  for (const char* member : {"select_n.10", "multiply.32", "mask.15", "reduce_max.1", "sub.3",
                             "exp.1", "reduce_sum.13", "divide.3", "broadcast.91", "multiply.31"}) {
    INFO(member);
    CHECK(names.count(member) == 1);
  }
  CHECK(names.count("negate.1") == 0);
  // hlo-run's defuser with those names: every fusion but `other` defused.
  DefuserOptions options;
  options.reduce_producers_over = int64_t{1} << 14;
  options.keep_names = true;
  options.runs_as_one_loop = [](const Instruction&) { return true; };
  options.joins_pattern = [&](const Instruction& fusion) {
    for (const Computation* c : fusion.called_computations()) {
      for (const auto& inst : c->instructions()) {
        if (names.count(std::string(inst->name())) != 0) return true;
      }
    }
    return false;
  };
  REQUIRE(CreateDefuser(options)->Run(**m).ok());
  const Instruction* root = nullptr;
  int64_t fusions = 0;
  for (const auto& inst : (*m)->entry()->instructions()) {
    fusions += inst->opcode() == Opcode::kFusion;
    if (inst->name() == "multiply.31") root = inst.get();
  }
  CHECK(fusions == 1);
  REQUIRE(root != nullptr);
  std::vector<const Instruction*> members, inputs;
  auto softmax = MatchRowSoftmax(*root, false, &members, &inputs);
  REQUIRE(softmax.has_value());
  CHECK(softmax->reciprocal);
  CHECK(softmax->masked);
}

}  // namespace
}  // namespace hlo
