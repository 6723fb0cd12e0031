// The one-element reads (eval/interp/scalar_element.h) against the
// data-movement kernels they stand in for: slices at every position,
// dynamic-slices at every start of every index type (negative, past the
// end, u64 past INT64_MAX), reshapes, bitcasts and copies, on element types
// of every width, bit for bit; and what stays with the kernels.
#include "eval/interp/scalar_element.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "eval/kernels/kernels.h"
#include "ir/computation.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

using PT = PrimitiveType;

std::unique_ptr<Module> Parse(const std::string& body) {
  const std::string text = StrCat("HloModule t\n\nENTRY e {\n", body, "}\n");
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  INFO(text);
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  return *std::move(m);
}

// An array of `shape` whose element i has the bits i * 0x0101... + 1 (every
// byte of every element differs from its neighbours').
Value Filled(const Shape& shape) {
  absl::StatusOr<Literal> lit = Literal::Create(shape);
  REQUIRE(lit.ok());
  const int width = ByteWidth(shape.element_type());
  for (int64_t i = 0; i < lit->element_count(); ++i) {
    for (int b = 0; b < width; ++b) {
      lit->data()[i * width + b] = static_cast<uint8_t>(i * 7 + b * 13 + 1);
    }
  }
  if (shape.element_type() == PT::kPred) {
    for (int64_t i = 0; i < lit->element_count(); ++i) lit->data()[i] &= 1;
  }
  return Value::FromLiteral(*std::move(lit));
}

Value Index(PT type, uint64_t bits) {
  absl::StatusOr<Literal> lit = Literal::Create(Shape::Array(type, {}));
  REQUIRE(lit.ok());
  lit->SetBits(0, bits);
  return Value::FromLiteral(*std::move(lit));
}

// The root of `m` both ways on `operands`: the same bytes.
void Agree(Module& m, const std::vector<Value>& operands) {
  const Instruction& root = *m.entry()->root();
  std::optional<ScalarElementOp> op = ScalarElementOf(root);
  REQUIRE(op.has_value());
  std::vector<const Value*> ptrs;
  for (const Value& v : operands) ptrs.push_back(&v);
  Evaluator ev(m, EvalOptions{});
  absl::StatusOr<Value> kernel = EvalDataMovement(root, ptrs, ev);
  REQUIRE(kernel.ok());
  std::optional<Value> fast = RunScalarElement(*op, root.shape(), ptrs);
  REQUIRE(fast.has_value());
  REQUIRE(fast->array().shape() == kernel->array().shape());
  CHECK(std::memcmp(fast->array().data(), kernel->array().data(), kernel->array().size_bytes()) ==
        0);
}

const std::vector<std::string> kTypes = {"pred", "s8",  "u16", "f16", "s32",
                                         "f32",  "u64", "f64", "c64", "c128"};

TEST_CASE("scalar element: slices at every position agree with the kernel", "[scalar_element]") {
  for (const std::string& t : kTypes) {
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t j = 0; j < 4; ++j) {
        std::unique_ptr<Module> m =
            Parse(StrCat("  p = ", t, "[3,4] parameter(0)\n  ROOT s = ", t,
                         "[1,1] slice(p), slice={[", i, ":", i + 1, "], [", j, ":4:4]}\n"));
        INFO(t << " at " << i << "," << j);
        Agree(*m, {Filled(m->entry()->root()->operand(0)->shape())});
      }
    }
  }
}

TEST_CASE("scalar element: dynamic-slices clamp every start as the kernel does",
          "[scalar_element]") {
  const std::vector<uint64_t> starts = {
      0, 1, 2, 4, 5, 0xff, 0x7fffffffffffffffULL, 0x8000000000000000ULL, ~uint64_t{0}};
  for (const char* t : {"s8", "f32", "c128"}) {
    for (const char* it : {"s8", "s32", "s64", "u8", "u32", "u64"}) {
      std::unique_ptr<Module> m =
          Parse(StrCat("  p = ", t, "[5,3] parameter(0)\n  i = ", it, "[] parameter(1)\n  j = ", it,
                       "[] parameter(2)\n  ROOT d = ", t,
                       "[1,1] dynamic-slice(p, i, j), dynamic_slice_sizes={1,1}\n"));
      const PT index_type = m->entry()->root()->operand(1)->shape().element_type();
      const int bits = 8 * ByteWidth(index_type);
      for (uint64_t a : starts) {
        for (uint64_t b : starts) {
          const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
          INFO(t << " indices " << it << " " << (a & mask) << "," << (b & mask));
          Agree(*m, {Filled(m->entry()->root()->operand(0)->shape()), Index(index_type, a & mask),
                     Index(index_type, b & mask)});
        }
      }
    }
  }
}

TEST_CASE("scalar element: reshapes, bitcasts and copies of one element", "[scalar_element]") {
  for (const std::string& t : kTypes) {
    for (const char* form : {"reshape", "bitcast", "copy"}) {
      std::unique_ptr<Module> to_scalar =
          Parse(StrCat("  p = ", t, "[1,1] parameter(0)\n  ROOT r = ", t,
                       std::string(form) == "copy" ? "[1,1]" : "[]", " ", form, "(p)\n"));
      INFO(t << " " << form);
      Agree(*to_scalar, {Filled(to_scalar->entry()->root()->operand(0)->shape())});
      const bool copy = std::string(form) == "copy";  // keeps its operand's dimensions
      std::unique_ptr<Module> from_scalar = Parse(StrCat(
          "  p = ", t, "[] parameter(0)\n  ROOT r = ", t, copy ? "[]" : "[1]", " ", form, "(p)\n"));
      Agree(*from_scalar, {Filled(from_scalar->entry()->root()->operand(0)->shape())});
    }
  }
}

TEST_CASE("scalar element: what stays with the kernels", "[scalar_element]") {
  auto root = [](const std::unique_ptr<Module>& m) { return ScalarElementOf(*m->entry()->root()); };
  // More than one element, another element type, dynamic sizes, an index
  // vector, an out-of-range slice.
  CHECK_FALSE(
      root(Parse("  p = f32[4] parameter(0)\n  ROOT s = f32[2] slice(p), slice={[0:2]}\n")));
  CHECK_FALSE(root(Parse("  p = s32[4] parameter(0)\n  ROOT s = f32[1] bitcast-convert(p)\n")));
  CHECK_FALSE(root(Parse("  p = f32[2] parameter(0)\n  ROOT r = f32[2] copy(p)\n")));
  CHECK_FALSE(
      root(Parse("  p = f32[4] parameter(0)\n  ROOT s = f32[1] slice(p), slice={[0:4:3]}\n")));
  CHECK_FALSE(root(Parse("  p = f32[4] parameter(0)\n  ROOT s = f32[] slice(p), slice={[0:1]}\n")));
  CHECK_FALSE(
      root(Parse("  p = f32[<=4] parameter(0)\n  ROOT s = f32[1] slice(p), "
                 "slice={[0:1]}\n")));
  CHECK_FALSE(
      root(Parse("  p = f32[4] parameter(0)\n  i = s32[1] parameter(1)\n  ROOT d = f32[1] "
                 "dynamic-slice(p, i), dynamic_slice_sizes={1}\n")));
  // A value of other dimensions than the plan saw goes to the kernel.
  std::unique_ptr<Module> m =
      Parse("  p = f32[4] parameter(0)\n  ROOT s = f32[1] slice(p), slice={[3:4]}\n");
  std::optional<ScalarElementOp> op = root(m);
  REQUIRE(op.has_value());
  Value other = Filled(Shape::Array(PT::kF32, {2}));
  const Value* ptrs[1] = {&other};
  CHECK_FALSE(RunScalarElement(*op, m->entry()->root()->shape(), ptrs).has_value());
}

}  // namespace
}  // namespace hlo
