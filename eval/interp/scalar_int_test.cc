// The scalar integer steps (eval/interp/scalar_int.h) against the
// elementwise kernels they stand in for: every op on every type they take,
// on edge values (zero, one, all ones, the type's extremes, shift amounts
// around the width), bit for bit; a few results the specification fixes;
// and the instructions they leave to the kernels.
#include "eval/interp/scalar_int.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "eval/kernels/kernels.h"
#include "ir/computation.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

using PT = PrimitiveType;

std::unique_ptr<Module> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  INFO(text);
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  return *std::move(m);
}

// A type with its dimensions: "s32" is the scalar s32[], "s32[1]" as written.
std::string Dims(const std::string& type) {
  return type.find('[') == std::string::npos ? type + "[]" : type;
}

// A module whose root is `result op(p0, ...)` (operands and result are
// scalars unless given dimensions).
std::unique_ptr<Module> Scalar(const std::string& result, const std::string& op,
                               const std::vector<std::string>& operands,
                               const std::string& attrs = "") {
  std::string text = "HloModule t\n\nENTRY e {\n", args;
  for (size_t i = 0; i < operands.size(); ++i) {
    StrAppend(&text, "  p", i, " = ", Dims(operands[i]), " parameter(", i, ")\n");
    StrAppend(&args, i ? ", " : "", "p", i);
  }
  StrAppend(&text, "  ROOT r = ", Dims(result), " ", op, "(", args, ")",
            attrs.empty() ? "" : ", " + attrs, "\n}\n");
  return Parse(text);
}

Value ScalarValue(const Shape& shape, uint64_t bits) {
  const PT type = shape.element_type();
  absl::StatusOr<Literal> lit = Literal::Create(shape);
  REQUIRE(lit.ok());
  lit->SetBits(0, type == PT::kPred ? (bits & 1) : bits);
  return Value::FromLiteral(*std::move(lit));
}

// The edge values of a type, as raw bits.
std::vector<uint64_t> Edges(PT type) {
  if (type == PT::kPred) return {0, 1};
  const int bits = 8 * ByteWidth(type);
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const uint64_t top = uint64_t{1} << (bits - 1);
  std::vector<uint64_t> v = {0,
                             1,
                             2,
                             3,
                             7,
                             mask,
                             mask - 1,
                             top,
                             top - 1,
                             top + 1,
                             static_cast<uint64_t>(bits - 1),
                             static_cast<uint64_t>(bits),
                             static_cast<uint64_t>(bits + 1),
                             0x5a5a5a5a5a5a5a5aULL & mask};
  return v;
}

// Runs `m`'s root both ways on every combination of edge values.
void Agree(const Module& m) {
  const Instruction& root = *m.entry()->root();
  INFO(std::string(root.OpcodeText()) << " " << root.shape().ToString(false));
  std::optional<ScalarIntOp> op = ScalarIntOpOf(root);
  REQUIRE(op.has_value());
  const int64_t n = root.operand_count();
  std::vector<std::vector<uint64_t>> edges;
  for (int64_t i = 0; i < n; ++i) edges.push_back(Edges(root.operand(i)->shape().element_type()));
  std::vector<size_t> at(n, 0);
  for (;;) {
    std::vector<Value> values;
    std::vector<const Value*> ptrs;
    std::string which;
    for (int64_t i = 0; i < n; ++i) {
      values.push_back(ScalarValue(root.operand(i)->shape(), edges[i][at[i]]));
      StrAppend(&which, " ", edges[i][at[i]]);
    }
    for (const Value& v : values) ptrs.push_back(&v);
    INFO("operand bits:" << which);
    absl::StatusOr<Value> kernel = EvalElementwise(root, ptrs);
    REQUIRE(kernel.ok());
    std::optional<Value> fast = RunScalarInt(*op, root.shape(), ptrs);
    REQUIRE(fast.has_value());
    CHECK(fast->array().GetBits(0) == kernel->array().GetBits(0));
    size_t i = 0;
    while (i < at.size() && ++at[i] == edges[i].size()) at[i++] = 0;
    if (i == at.size()) break;
  }
}

const std::vector<std::string> kTypes = {"pred", "s8",  "s16", "s32", "s64",
                                         "u8",   "u16", "u32", "u64"};

TEST_CASE("scalar int: binary ops agree with the kernels", "[scalar_int]") {
  for (const std::string& t : kTypes) {
    std::vector<std::string> ops = {"and", "or", "xor"};
    if (t != "pred") {
      for (const char* o :
           {"add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum",
            "shift-left", "shift-right-logical", "shift-right-arithmetic"}) {
        ops.push_back(o);
      }
    }
    for (const std::string& o : ops) Agree(*Scalar(t, o, {t, t}));
  }
}

TEST_CASE("scalar int: unary ops, select and compare agree with the kernels", "[scalar_int]") {
  for (const std::string& t : kTypes) {
    Agree(*Scalar(t, "not", {t}));
    if (t != "pred") Agree(*Scalar(t, "negate", {t}));
    Agree(*Scalar(t, "select", {"pred", t, t}));
    for (const char* d : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
      Agree(*Scalar("pred", "compare", {t, t}, StrCat("direction=", d)));
      if (t == "pred") continue;
      Agree(*Scalar("pred", "compare", {t, t}, StrCat("direction=", d, ", type=SIGNED")));
      Agree(*Scalar("pred", "compare", {t, t}, StrCat("direction=", d, ", type=UNSIGNED")));
    }
  }
}

TEST_CASE("scalar int: converts agree with the kernels", "[scalar_int]") {
  for (const std::string& from : kTypes) {
    for (const std::string& to : kTypes) Agree(*Scalar(to, "convert", {from}));
  }
}

uint64_t Run(const Module& m, const std::vector<uint64_t>& bits) {
  const Instruction& root = *m.entry()->root();
  std::optional<ScalarIntOp> op = ScalarIntOpOf(root);
  REQUIRE(op.has_value());
  std::vector<Value> values;
  std::vector<const Value*> ptrs;
  for (size_t i = 0; i < bits.size(); ++i) {
    values.push_back(ScalarValue(root.operand(static_cast<int64_t>(i))->shape(), bits[i]));
  }
  for (const Value& v : values) ptrs.push_back(&v);
  std::optional<Value> r = RunScalarInt(*op, root.shape(), ptrs);
  REQUIRE(r.has_value());
  return r->array().GetBits(0);
}

TEST_CASE("scalar int: results the specification fixes", "[scalar_int]") {
  // Overflow wraps in the type's width.
  CHECK(Run(*Scalar("s8", "add", {"s8", "s8"}), {127, 1}) == 0x80);
  CHECK(Run(*Scalar("u16", "multiply", {"u16", "u16"}), {0x100, 0x100}) == 0);
  // Shift amounts are unsigned; at or past the width: zero, or the sign.
  CHECK(Run(*Scalar("s32", "shift-left", {"s32", "s32"}), {1, 32}) == 0);
  CHECK(Run(*Scalar("s32", "shift-left", {"s32", "s32"}), {1, 0xffffffff}) == 0);
  CHECK(Run(*Scalar("u8", "shift-right-arithmetic", {"u8", "u8"}), {0x80, 9}) == 0xff);
  CHECK(Run(*Scalar("u8", "shift-right-arithmetic", {"u8", "u8"}), {0x80, 1}) == 0xc0);
  CHECK(Run(*Scalar("s8", "shift-right-logical", {"s8", "s8"}), {0x80, 1}) == 0x40);
  // Conversions: modular between integers, nonzero is true.
  CHECK(Run(*Scalar("u8", "convert", {"s32"}), {0xffffffff}) == 0xff);
  CHECK(Run(*Scalar("s64", "convert", {"s8"}), {0x80}) == 0xffffffffffffff80ULL);
  CHECK(Run(*Scalar("pred", "convert", {"s32"}), {256}) == 1);
  // compare's type attribute chooses the order.
  CHECK(Run(*Scalar("pred", "compare", {"s32", "s32"}, "direction=GT"), {0xffffffff, 1}) == 0);
  CHECK(Run(*Scalar("pred", "compare", {"s32", "s32"}, "direction=GT, type=UNSIGNED"),
            {0xffffffff, 1}) == 1);
  CHECK(Run(*Scalar("pred", "compare", {"pred", "pred"}, "direction=LT"), {0, 1}) == 1);
  CHECK(Run(*Scalar("s16", "select", {"pred", "s16", "s16"}), {1, 5, 9}) == 5);
  // Division: x / 0 is all ones, x % 0 is x, INT_MIN / -1 is INT_MIN.
  CHECK(Run(*Scalar("s32", "divide", {"s32", "s32"}), {7, 0}) == 0xffffffff);
  CHECK(Run(*Scalar("u8", "divide", {"u8", "u8"}), {7, 0}) == 0xff);
  CHECK(Run(*Scalar("s32", "remainder", {"s32", "s32"}), {7, 0}) == 7);
  CHECK(Run(*Scalar("s8", "divide", {"s8", "s8"}), {0x80, 0xff}) == 0x80);
  CHECK(Run(*Scalar("s8", "remainder", {"s8", "s8"}), {0x80, 0xff}) == 0);
  CHECK(Run(*Scalar("s32", "divide", {"s32", "s32"}), {static_cast<uint32_t>(-7), 2}) ==
        static_cast<uint32_t>(-3));
}

TEST_CASE("scalar int: what stays with the kernels", "[scalar_int]") {
  // Floats, sub-byte types, pred arithmetic, arrays, and compare attributes
  // the kernel refuses.
  CHECK_FALSE(ScalarIntOpOf(*Scalar("f32", "add", {"f32", "f32"})->entry()->root()));
  CHECK_FALSE(ScalarIntOpOf(*Scalar("s4", "add", {"s4", "s4"})->entry()->root()));
  CHECK_FALSE(ScalarIntOpOf(*Scalar("pred", "add", {"pred", "pred"})->entry()->root()));
  CHECK_FALSE(ScalarIntOpOf(*Scalar("f32", "convert", {"s32"})->entry()->root()));
  CHECK_FALSE(ScalarIntOpOf(
      *Scalar("pred", "compare", {"s32", "s32"}, "direction=LT, type=FLOAT")->entry()->root()));
  std::unique_ptr<Module> array = Parse(
      "HloModule t\n\nENTRY e {\n  p0 = s32[2] parameter(0)\n  p1 = s32[2] parameter(1)\n"
      "  ROOT r = s32[2] add(p0, p1)\n}\n");
  CHECK_FALSE(ScalarIntOpOf(*array->entry()->root()));
  CHECK_FALSE(ScalarIntOpOf(*Scalar("s32[1]", "add", {"s32[1]", "s32[1]"})->entry()->root()));
  // A value that is not the scalar its shape says: the kernel reports it.
  std::unique_ptr<Module> m = Scalar("s32", "add", {"s32", "s32"});
  std::optional<ScalarIntOp> op = ScalarIntOpOf(*m->entry()->root());
  REQUIRE(op.has_value());
  Value wrong = ScalarValue(Shape::Array(PT::kS64, {}), 1);
  Value right = ScalarValue(Shape::Array(PT::kS32, {}), 1);
  const Value* ptrs[2] = {&wrong, &right};
  CHECK_FALSE(RunScalarInt(*op, m->entry()->root()->shape(), ptrs).has_value());
}

}  // namespace
}  // namespace hlo
