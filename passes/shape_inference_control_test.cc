// Tests for the control-flow shape inference: ProgramShapeOf, call, while,
// conditional, after-all and add-dependency. Valid cases follow the
// StableHLO spec's examples (in XLA's form, where a branch takes one
// operand); each invalid case breaks one constraint.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "ir/computation.h"
#include "ir/strings.h"
#include "passes/shape_inference.h"

namespace hlo {
namespace {

constexpr PrimitiveType kF32 = PrimitiveType::kF32;
constexpr PrimitiveType kS32 = PrimitiveType::kS32;
constexpr PrimitiveType kS64 = PrimitiveType::kS64;
constexpr PrimitiveType kPred = PrimitiveType::kPred;

ShapePool& Pool() {
  static ShapePool pool;
  return pool;
}

const Shape* S(PrimitiveType t, std::vector<int64_t> dims = {}) {
  return Pool().Intern(Shape::Array(t, dims));
}

const Shape* T(std::vector<const Shape*> elements) {
  return Pool().Intern(Shape::Tuple(std::move(elements)));
}

const Shape* Token() { return Pool().Intern(Shape::Token()); }

ProgramShape Fn(std::vector<const Shape*> params, const Shape* result) {
  return ProgramShape{std::move(params), result};
}

std::string Text(const absl::StatusOr<Shape>& r) {
  REQUIRE(r.ok());
  return r->ToString(false);
}

std::string Err(const absl::StatusOr<Shape>& r) {
  REQUIRE_FALSE(r.ok());
  return std::string(r.status().message());
}

using Catch::Contains;

std::unique_ptr<Instruction> Param(int64_t number, const Shape* shape) {
  auto p = std::make_unique<Instruction>(Opcode::kParameter, StrCat("p", number), shape);
  p->set_parameter_number(number);
  return p;
}

// ---- ProgramShapeOf ---------------------------------------------------------------

TEST_CASE("ProgramShapeOf: parameters by number, root shape", "[shape_inference]") {
  Computation c("f");
  // Added out of order: parameters are indexed by number, not position.
  c.AddInstruction(Param(1, S(kS32)));
  Instruction* p0 = c.AddInstruction(Param(0, S(kF32, {2})));
  Instruction* neg =
      c.AddInstruction(std::make_unique<Instruction>(Opcode::kNegate, "neg", S(kF32, {2})));
  neg->AppendOperand(p0);
  c.set_root(neg);
  ProgramShape p = ProgramShapeOf(c);
  REQUIRE(p.params.size() == 2);
  CHECK(p.params[0]->ToString(false) == "f32[2]");
  CHECK(p.params[1]->ToString(false) == "s32[]");
  REQUIRE(p.result != nullptr);
  CHECK(p.result->ToString(false) == "f32[2]");
}

TEST_CASE("ProgramShapeOf: gaps and a missing root stay safe", "[shape_inference]") {
  Computation c("g");
  c.AddInstruction(Param(1, S(kS32)));
  ProgramShape p = ProgramShapeOf(c);
  REQUIRE(p.params.size() == 2);
  REQUIRE(p.params[0] != nullptr);
  CHECK(p.params[0]->IsOpaque());
  CHECK(p.result == nullptr);
  // Consumers report the missing root instead of dereferencing it.
  CHECK_THAT(Err(InferCallShape({S(kF32), S(kS32)}, p)), Contains("operand 0 has shape f32[]"));
  CHECK_THAT(Err(InferCallShape({}, Fn({}, nullptr))), Contains("has no root instruction"));
}

// ---- call ----------------------------------------------------------------------------

TEST_CASE("InferCallShape", "[shape_inference]") {
  ProgramShape f = Fn({S(kF32, {2}), S(kS32)}, T({S(kF32, {2}), S(kS32)}));
  CHECK(Text(InferCallShape({S(kF32, {2}), S(kS32)}, f)) == "(f32[2], s32[])");
  // Layouts do not matter, as in XLA's Compatible.
  const Shape* laid_out = Pool().Intern(Shape::Array(kF32, {2, 3}).WithDefaultLayout());
  CHECK(Text(InferCallShape({laid_out}, Fn({S(kF32, {2, 3})}, S(kF32)))) == "f32[]");
  CHECK_THAT(Err(InferCallShape({S(kF32, {2})}, f)),
             Contains("the called computation takes 2 parameters but there is 1 operand; its "
                      "signature is (f32[2], s32[]) -> (f32[2], s32[])"));
  CHECK_THAT(Err(InferCallShape({S(kF32, {2}), S(kF32)}, f)),
             Contains("operand 1 has shape f32[] but the called computation's parameter 1 is "
                      "s32[]"));
}

// ---- while ---------------------------------------------------------------------------

TEST_CASE("InferWhileShape: spec example", "[shape_inference]") {
  // stablehlo.while over (i, sum): both tensor<i64>; XLA carries one tuple.
  const Shape* state = T({S(kS64), S(kS64)});
  CHECK(Text(InferWhileShape(Fn({state}, S(kPred)), Fn({state}, state), *state)) ==
        "(s64[], s64[])");
  // An array loop state works too.
  CHECK(Text(InferWhileShape(Fn({S(kF32, {4})}, S(kPred)), Fn({S(kF32, {4})}, S(kF32, {4})),
                             *S(kF32, {4}))) == "f32[4]");
}

TEST_CASE("InferWhileShape: errors", "[shape_inference]") {
  const Shape* state = T({S(kS32), S(kF32, {4})});
  const Shape* other = T({S(kS32), S(kF32, {3})});
  ProgramShape cond = Fn({state}, S(kPred));
  ProgramShape body = Fn({state}, state);
  CHECK_THAT(Err(InferWhileShape(Fn({state, state}, S(kPred)), body, *state)),
             Contains("the while condition must take 1 parameter (the loop state), but takes 2"));
  CHECK_THAT(Err(InferWhileShape(cond, Fn({}, state), *state)),
             Contains("the while body must take 1 parameter (the loop state), but takes 0"));
  CHECK_THAT(Err(InferWhileShape(Fn({state}, S(kS32)), body, *state)),
             Contains("the while condition must return pred[], but returns s32[]"));
  CHECK_THAT(Err(InferWhileShape(cond, Fn({other}, state), *state)),
             Contains("while body returns (s32[], f32[4]) but takes (s32[], f32[3])"));
  CHECK_THAT(Err(InferWhileShape(Fn({other}, S(kPred)), body, *state)),
             Contains("while body returns (s32[], f32[4]) but the condition takes (s32[], "
                      "f32[3])"));
  CHECK_THAT(Err(InferWhileShape(cond, body, *other)),
             Contains("while init has shape (s32[], f32[3]) but the body takes and returns "
                      "(s32[], f32[4])"));
  CHECK_THAT(Err(InferWhileShape(Fn({state}, nullptr), body, *state)),
             Contains("the while condition has no root instruction"));
}

// ---- conditional ------------------------------------------------------------------

TEST_CASE("InferConditionalShape: spec examples", "[shape_inference]") {
  // stablehlo.if: pred index, both branches return tensor<i32>; in XLA each
  // branch takes its operand (here an empty tuple).
  const Shape* none = T({});
  std::vector<ProgramShape> two = {Fn({none}, S(kS32)), Fn({none}, S(kS32))};
  CHECK(Text(InferConditionalShape(*S(kPred), two, {none, none})) == "s32[]");
  // stablehlo.case: s32 index, branches return (tensor<2xi64>, tensor<2xi64>).
  const Shape* pair = T({S(kS64, {2}), S(kS64, {2})});
  std::vector<ProgramShape> cases = {Fn({none}, pair), Fn({none}, pair)};
  CHECK(Text(InferConditionalShape(*S(kS32), cases, {none, none})) == "(s64[2], s64[2])");
  // Branches may take different operands.
  std::vector<ProgramShape> mixed = {Fn({S(kF32, {2})}, S(kF32)), Fn({S(kS32)}, S(kF32)),
                                     Fn({S(kF32)}, S(kF32))};
  CHECK(Text(InferConditionalShape(*S(kS32), mixed, {S(kF32, {2}), S(kS32), S(kF32)})) == "f32[]");
  // A single branch is allowed with an s32 index.
  CHECK(Text(InferConditionalShape(*S(kS32), {Fn({none}, S(kF32))}, {none})) == "f32[]");
}

TEST_CASE("InferConditionalShape: errors", "[shape_inference]") {
  const Shape* x = S(kF32, {4});
  ProgramShape b = Fn({x}, S(kF32));
  CHECK_THAT(Err(InferConditionalShape(*S(kF32), {b, b}, {x, x})),
             Contains("the branch index must be pred[] or s32[], but has shape f32[]"));
  CHECK_THAT(Err(InferConditionalShape(*S(kS32, {2}), {b, b}, {x, x})),
             Contains("the branch index must be a scalar"));
  CHECK_THAT(Err(InferConditionalShape(*S(kPred), {b, b, b}, {x, x, x})),
             Contains("a pred[] branch index selects between exactly 2 branches, but there are "
                      "3"));
  CHECK_THAT(Err(InferConditionalShape(*S(kS32), {}, {})),
             Contains("an s32[] branch index needs at least one branch"));
  CHECK_THAT(Err(InferConditionalShape(*S(kPred), {b, b}, {x})),
             Contains("conditional has 2 branches but 1 branch operands"));
  CHECK_THAT(Err(InferConditionalShape(*S(kPred), {b, Fn({x, x}, S(kF32))}, {x, x})),
             Contains("branch 1 must take 1 parameter (its branch operand), but takes 2"));
  CHECK_THAT(Err(InferConditionalShape(*S(kPred), {b, Fn({S(kF32, {3})}, S(kF32))}, {x, x})),
             Contains("branch 1 takes f32[3] but its operand has shape f32[4]"));
  CHECK_THAT(Err(InferConditionalShape(*S(kPred), {b, Fn({x}, S(kS32))}, {x, x})),
             Contains("branch 1 returns s32[] but branch 0 returns f32[]"));
}

// ---- after-all and add-dependency ---------------------------------------------------

TEST_CASE("InferAfterAllShape", "[shape_inference]") {
  // stablehlo.after_all of two tokens.
  CHECK(Text(InferAfterAllShape({Token(), Token()})) == "token[]");
  CHECK(Text(InferAfterAllShape({})) == "token[]");
  // XLA's verifier lets after-all wait for values too, not only tokens.
  CHECK(Text(InferAfterAllShape({Token(), S(kF32, {4})})) == "token[]");
}

TEST_CASE("InferAddDependencyShape", "[shape_inference]") {
  CHECK(Text(InferAddDependencyShape(*S(kF32, {2}), *Token())) == "f32[2]");
  CHECK(Text(InferAddDependencyShape(*T({S(kF32), S(kS32)}), *Token())) == "(f32[], s32[])");
  CHECK_THAT(Err(InferAddDependencyShape(*S(kF32, {2}), *S(kF32))),
             Contains("add-dependency's second operand must be a token, but has shape f32[]"));
}

}  // namespace
}  // namespace hlo
