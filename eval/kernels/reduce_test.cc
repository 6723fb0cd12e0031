// The reductions' checks of what they index by: a module run with
// --no-verify reaches the kernels unverified, and dims out of range,
// repeated dims, operands of other shapes or a result (a select-and-scatter
// source) that does not fit the windows are errors that say so, never
// reads or writes past an array.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "eval/evaluator.h"
#include "eval/kernels/kernels.h"
#include "ir/computation.h"
#include "ir/literal.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

constexpr std::string_view kAdd = R"(add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

// select-and-scatter's select: the first of the largest
ge {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT c = pred[] compare(x, y), direction=GE
}

)";

// The entry root's reduction of a f32[4,3] input (1..12) and init 0, and
// for select-and-scatter a source `s` of `source_dims`; `root` is the root
// instruction's text.
absl::StatusOr<Value> EvalReduceRoot(std::string_view root, std::string_view source_dims = "") {
  const bool scatter = !source_dims.empty();
  const std::string text =
      StrCat("HloModule test\n\n", kAdd, "ENTRY main {\n  a = f32[4,3] parameter(0)\n",
             scatter ? StrCat("  s = f32[", source_dims, "] parameter(1)\n") : "",
             "  z = f32[] parameter(", scatter ? 2 : 1, ")\n  ROOT r = ", root, "\n}");
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  Evaluator evaluator(**m, {});
  absl::StatusOr<Literal> a = ParseLiteral("f32[4,3] {{1,2,3},{4,5,6},{7,8,9},{10,11,12}}");
  absl::StatusOr<Literal> z = ParseLiteral("f32[] 0");
  REQUIRE(a.ok());
  REQUIRE(z.ok());
  const Value av = Value::FromLiteral(*std::move(a)), zv = Value::FromLiteral(*std::move(z));
  std::vector<const Value*> ops = {&av, &zv};
  Value sv;
  if (scatter) {
    const Instruction& s = *(*m)->entry()->parameter(1);
    absl::StatusOr<Literal> lit = Literal::Create(s.shape());
    REQUIRE(lit.ok());
    sv = Value::FromLiteral(*std::move(lit));
    ops.insert(ops.begin() + 1, &sv);
  }
  return EvalReduction(*(*m)->entry()->root(), ops, evaluator);
}

void ExpectError(std::string_view root, std::string_view part, std::string_view source_dims = "") {
  absl::StatusOr<Value> r = EvalReduceRoot(root, source_dims);
  INFO(root);
  REQUIRE_FALSE(r.ok());
  INFO(r.status().message());
  CHECK(std::string(r.status().message()).find(part) != std::string::npos);
}

TEST_CASE("reduce reports dims and shapes the verifier would reject", "[reduce]") {
  ExpectError("f32[4] reduce(a, z), dimensions={-1}, to_apply=add",
              "reduce dimension -1 is out of range for a rank-2 input");
  ExpectError("f32[4] reduce(a, z), dimensions={2}, to_apply=add",
              "reduce dimension 2 is out of range");
  ExpectError("f32[4] reduce(a, z), dimensions={1099511627776}, to_apply=add", "out of range");
  ExpectError("f32[] reduce(a, z), dimensions={0,0}, to_apply=add",
              "reduce dimension 0 appears twice");
}

TEST_CASE("reduce reports a result that is not the kept dims", "[reduce]") {
  ExpectError("f32[3] reduce(a, z), dimensions={1}, to_apply=add",
              "is not the input dims less the reduced ones {4}");
  ExpectError("(f32[4], f32[4]) reduce(a, z), dimensions={1}, to_apply=add",
              "reduce of 1 inputs must give an array");
  // The fitting reduce works: row sums.
  absl::StatusOr<Value> ok = EvalReduceRoot("f32[4] reduce(a, z), dimensions={1}, to_apply=add");
  REQUIRE(ok.ok());
  CHECK(LiteralToString(ok->ToLiteral(), LiteralStyle::kCompact) == "f32[4] {6, 15, 24, 33}");
}

TEST_CASE("reduce-window and select-and-scatter report arrays that are not the windows' dims",
          "[reduce]") {
  // Windows of 2x2, stride 1: 3x2 of them over f32[4,3].
  ExpectError("f32[3] reduce-window(a, z), window={size=2x2}, to_apply=add",
              "the reduce-window result has dims {3} but the windows give {3,2}");
  ExpectError("f32[3,3] reduce-window(a, z), window={size=2x2}, to_apply=add",
              "but the windows give {3,2}");
  ExpectError("f32[3,2] reduce-window(a, z), window={size=2x2x2}, to_apply=add",
              "the window has 3 dims but the input has rank 2");
  ExpectError("f32[3,2] reduce-window(a, z), window={size=2x2 stride=0x1}, to_apply=add",
              "window dim 0 has a size, stride or dilation of 0");
  ExpectError("f32[3,2] select-and-scatter(a, s, z), window={size=2x2}, select=ge, scatter=add",
              "the select-and-scatter source has dims {2,2} but the windows give {3,2}", "2,2");
  ExpectError("f32[4] select-and-scatter(a, s, z), window={size=2x2}, select=ge, scatter=add",
              "the result must have the operand's dims", "3,2");
  // The fitting ones work.
  absl::StatusOr<Value> sums =
      EvalReduceRoot("f32[3,2] reduce-window(a, z), window={size=2x2}, to_apply=add");
  REQUIRE(sums.ok());
  CHECK(LiteralToString(sums->ToLiteral(), LiteralStyle::kCompact) ==
        "f32[3,2] {{12, 16}, {24, 28}, {36, 40}}");
  CHECK(EvalReduceRoot("f32[4,3] select-and-scatter(a, s, z), window={size=2x2}, select=ge, "
                       "scatter=add",
                       "3,2")
            .ok());
}

}  // namespace
}  // namespace hlo
