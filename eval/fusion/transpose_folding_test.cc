// Transposes folded into dots (eval/fusion/transpose_folding.cc): which fold,
// the dims the dot then reads, and that the plan skips a folded transpose
// and keeps every other. Values: testdata/eval/dot_transpose_folding.hlo.
#include "eval/fusion/transpose_folding.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "eval/plan_test_util.h"
#include "parser/parser.h"

namespace hlo {
namespace {

constexpr std::string_view kModule = R"(HloModule t

ENTRY main {
  q = f32[2,4,3,5] parameter(0)
  k = f32[2,4,3,5] parameter(1)
  qt = f32[2,3,4,5] transpose(q), dimensions={0,2,1,3}
  kt = f32[2,3,5,4] transpose(k), dimensions={0,2,3,1}
  scores = f32[2,3,4,4] dot(qt, kt), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={2}
  a = f32[2,3,4] parameter(2)
  b = f32[4,5] parameter(3)
  at = f32[3,2,4] transpose(a), dimensions={1,0,2}
  reordered = f32[3,2,5] dot(at, b), lhs_contracting_dims={2}, rhs_contracting_dims={0}
  c = f32[3,4] parameter(4)
  ct = f32[4,3] transpose(c), dimensions={1,0}
  shared = f32[4,2] dot(ct, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  e = f32[4,3] parameter(5)
  et = f32[3,4] transpose(e), dimensions={1,0}
  gram = f32[3,3] dot(et, et), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  v = f32[2,4,3,5] parameter(6)
  vt = f32[2,3,4,5]{3,1,2,0} transpose(v), dimensions={0,2,1,3}
  vc = f32[2,3,4,5]{3,2,1,0} copy(vt)
  mixed = f32[2,3,4,5] dot(scores, vc), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={2}
  w = f32[4,3] parameter(7)
  wt = f32[3,4] transpose(w), dimensions={1,0}
  wc = f32[3,4] copy(wt)
  seen = f32[3,3] dot(wc, wc), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  ROOT r = (f32[2,3,4,4], f32[3,2,5], f32[4,2], f32[4,3], f32[3,3], f32[2,3,4,5], f32[3,3], f32[3,4]) tuple(scores, reordered, shared, ct, gram, mixed, seen, wt)
}
)";

const FoldedDot* Folded(const PlannedModule& p, std::string_view name) {
  return p.plan->folded_at[p.Slot(name)];
}

PlannedModule Plan(bool fast_paths, bool fusion) { return PlanModule(kModule, fast_paths, fusion); }

using Dims = gemm::Dims;

TEST_CASE("transpose folding: attention's heads fold into the batch dims", "[transpose_folding]") {
  PlannedModule p = Plan(true, true);
  REQUIRE(p.Step("scores") == PlanStep::kFoldedDot);
  CHECK(p.Step("qt") == PlanStep::kFusedAway);
  CHECK(p.Step("kt") == PlanStep::kFusedAway);
  const FoldedDot& f = *Folded(p, "scores");
  CHECK(f.reads[0]->name() == "q");
  CHECK(f.reads[1]->name() == "k");
  CHECK(f.dims.lhs_batch == Dims{0, 2});
  CHECK(f.dims.lhs_contracting == Dims{3});
  CHECK(f.dims.rhs_batch == Dims{0, 2});
  CHECK(f.dims.rhs_contracting == Dims{3});
  // The dot reads q and k where it read qt and kt.
  const int s = p.Slot("scores");
  auto ops = p.plan->operands(s);
  REQUIRE(ops.size() == 2);
  CHECK(ops[0] == p.Slot("q"));
  CHECK(ops[1] == p.Slot("k"));
  CHECK(p.plan->uses[p.Slot("qt")] == 0);
}

TEST_CASE("transpose folding: what does not fold", "[transpose_folding]") {
  PlannedModule p = Plan(true, true);
  // Free dims {0,1} of at would come from a's dims {1,0}: the result's
  // order would change.
  CHECK(p.Step("reordered") == PlanStep::kEvaluate);
  CHECK(p.Step("at") == PlanStep::kEvaluate);
  // ct is also the result's.
  CHECK(p.Step("shared") == PlanStep::kEvaluate);
  CHECK(p.Step("ct") == PlanStep::kEvaluate);
}

TEST_CASE("transpose folding: one transpose as both operands", "[transpose_folding]") {
  PlannedModule p = Plan(true, true);
  REQUIRE(p.Step("gram") == PlanStep::kFoldedDot);
  CHECK(p.Step("et") == PlanStep::kFusedAway);
  const FoldedDot& f = *Folded(p, "gram");
  CHECK(f.reads[0]->name() == "e");
  CHECK(f.reads[1]->name() == "e");
  CHECK(f.dims.lhs_contracting == Dims{0});
  CHECK(f.dims.rhs_contracting == Dims{0});
  CHECK(p.plan->uses[p.Slot("e")] == 2);
}

TEST_CASE("transpose folding: through a layout-changing copy", "[transpose_folding]") {
  PlannedModule p = Plan(true, true);
  // XLA:CPU's fusions end a transpose in a copy to the default layout:
  // the dot reads v, and both the copy and the transpose are skipped.
  REQUIRE(p.Step("mixed") == PlanStep::kFoldedDot);
  CHECK(p.Step("vc") == PlanStep::kFusedAway);
  CHECK(p.Step("vt") == PlanStep::kFusedAway);
  const FoldedDot& f = *Folded(p, "mixed");
  CHECK(f.reads[1]->name() == "v");
  CHECK(f.through_copy[1]->name() == "vt");
  CHECK(f.dims.rhs_batch == Dims{0, 2});
  CHECK(f.dims.rhs_contracting == Dims{1});
  // wt is also the result's: the copy of it stays, and so does the dot.
  CHECK(p.Step("seen") == PlanStep::kEvaluate);
  CHECK(p.Step("wc") == PlanStep::kEvaluate);
  CHECK(p.Step("wt") == PlanStep::kEvaluate);
}

TEST_CASE("transpose folding: with fusion off too, not without fast paths", "[transpose_folding]") {
  CHECK(Plan(true, false).Step("scores") == PlanStep::kFoldedDot);
  PlannedModule reference = Plan(false, false);
  CHECK(reference.Step("scores") == PlanStep::kEvaluate);
  CHECK(reference.Step("qt") == PlanStep::kEvaluate);
}

// Attention's weighted values [batch, heads, seq, d] transposed to
// [batch, seq, heads, d] (`out`), and transposes that the dot may not
// write: one moving the last dim (`moved`), one of a dot read elsewhere
// too (`shared`, whose dot is the module's output as well), one of a dot
// without batch dims (`plain`). `shared` computes what `out` does.
constexpr std::string_view kOutputTransposes = R"(HloModule o

ENTRY main {
  p = f32[2,3,4,6] parameter(0)
  v = f32[2,3,6,5] parameter(1)
  pv = f32[2,3,4,5] dot(p, v), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={2}
  out = f32[2,4,3,5] transpose(pv), dimensions={0,2,1,3}
  pv2 = f32[2,3,4,5] dot(p, v), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={2}
  moved = f32[2,3,5,4] transpose(pv2), dimensions={0,1,3,2}
  pv3 = f32[2,3,4,5] dot(p, v), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={2}
  shared = f32[2,4,3,5] transpose(pv3), dimensions={0,2,1,3}
  a = f32[4,6] parameter(2)
  b = f32[6,5] parameter(3)
  ab = f32[4,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  plain = f32[5,4] transpose(ab), dimensions={1,0}
  ROOT r = (f32[2,4,3,5], f32[2,3,5,4], f32[2,4,3,5], f32[2,3,4,5], f32[5,4]) tuple(out, moved, shared, pv3, plain)
}
)";

TEST_CASE("transpose folding: a dot writes the transpose of its result", "[transpose_folding]") {
  PlannedModule p = PlanModule(kOutputTransposes);
  REQUIRE(p.Step("out") == PlanStep::kFoldedDot);
  CHECK(p.Step("pv") == PlanStep::kFusedAway);
  const FoldedDot& f = *p.plan->folded_at[p.Slot("out")];
  REQUIRE(f.dot != nullptr);
  CHECK(f.dot->name() == "pv");
  CHECK(f.reads[0]->name() == "p");
  CHECK(f.reads[1]->name() == "v");
  CHECK(p.Step("moved") != PlanStep::kFoldedDot);
  CHECK(p.Step("pv2") != PlanStep::kFusedAway);
  CHECK(p.Step("shared") != PlanStep::kFoldedDot);
  CHECK(p.Step("plain") != PlanStep::kFoldedDot);
  // The values: the written transpose's bits are the copied one's.
  auto m = ParseModule(kOutputTransposes);
  REQUIRE(m.ok());
  std::vector<Value> args;
  for (std::vector<int64_t> dims :
       {std::vector<int64_t>{2, 3, 4, 6}, {2, 3, 6, 5}, {4, 6}, {6, 5}}) {
    auto lit = Literal::Create(Shape::Array(PrimitiveType::kF32, dims));
    REQUIRE(lit.ok());
    for (int64_t i = 0; i < lit->element_count(); ++i) {
      lit->typed<float>()[i] = static_cast<float>((i * 7919 % 1013) * 0.01 - 5.0);
    }
    args.push_back(Value::FromLiteral(*std::move(lit)));
  }
  Evaluator ev(**m, {});
  auto result = ev.Run(args);
  REQUIRE(result.ok());
  const Literal r = result->ToLiteral();
  const Literal& out = r.elements()[0];
  const Literal& shared = r.elements()[2];
  REQUIRE(out.size_bytes() == shared.size_bytes());
  CHECK(std::memcmp(out.data(), shared.data(), out.size_bytes()) == 0);
  // And the product's definition, element by element in double.
  const float* pp = args[0].array().typed<float>();
  const float* vv = args[1].array().typed<float>();
  const float* o = out.typed<float>();
  for (int b = 0; b < 2; ++b) {
    for (int h = 0; h < 3; ++h) {
      for (int s = 0; s < 4; ++s) {
        for (int d = 0; d < 5; ++d) {
          double want = 0;
          for (int k = 0; k < 6; ++k) {
            want += double{pp[((b * 3 + h) * 4 + s) * 6 + k]} * vv[((b * 3 + h) * 6 + k) * 5 + d];
          }
          CHECK(o[((b * 4 + s) * 3 + h) * 5 + d] == Approx(want).margin(1e-4).epsilon(1e-5));
        }
      }
    }
  }
}

}  // namespace
}  // namespace hlo
