// Test helpers shared by eval/kernels/elementwise*_test.cc: evaluating one
// elementwise instruction of a small parsed module on literal operands, and
// exact / ulp comparisons of the results.
#ifndef HLO_EVAL_KERNELS_ELEMENTWISE_TEST_UTIL_H_
#define HLO_EVAL_KERNELS_ELEMENTWISE_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "eval/kernels/kernels.h"
#include "ir/computation.h"
#include "ir/literal.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace ew_test {

using PT = PrimitiveType;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kPi = 3.14159265358979323846;

inline Literal L(std::string_view text) {
  absl::StatusOr<Literal> lit = ParseLiteral(text);
  INFO(text);
  INFO((lit.ok() ? std::string() : std::string(lit.status().message())));
  REQUIRE(lit.ok());
  return *std::move(lit);
}

inline Literal Make(PT type, std::vector<int64_t> dims) {
  absl::StatusOr<Literal> lit = Literal::Create(Shape::Array(type, dims));
  REQUIRE(lit.ok());
  return *std::move(lit);
}

// A 1-D literal of raw element bits.
inline Literal Bits(PT type, const std::vector<uint64_t>& bits) {
  Literal lit = Make(type, {static_cast<int64_t>(bits.size())});
  for (size_t i = 0; i < bits.size(); ++i) lit.SetBits(static_cast<int64_t>(i), bits[i]);
  return lit;
}

// A 1-D literal from doubles (rounded by the type's own conversion).
inline Literal Doubles(PT type, const std::vector<double>& values) {
  Literal lit = Make(type, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) lit.SetDouble(static_cast<int64_t>(i), values[i]);
  return lit;
}

// Evaluates `ROOT r = <result> <op>(p0, p1, ...)<, attrs>` on the operands.
inline absl::StatusOr<Literal> Eval(std::string_view result, std::string_view op,
                                    std::vector<Literal> operands, std::string_view attrs = "") {
  std::string text = "HloModule t\n\nENTRY e {\n";
  std::string args;
  for (size_t i = 0; i < operands.size(); ++i) {
    StrAppend(&text, "  p", i, " = ", operands[i].shape().ToString(false), " parameter(", i, ")\n");
    StrAppend(&args, i ? ", " : "", "p", i);
  }
  StrAppend(&text, "  ROOT r = ", result, " ", op, "(", args, ")");
  if (!attrs.empty()) StrAppend(&text, ", ", attrs);
  text += "\n}\n";
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  INFO(text);
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  std::vector<Value> values;
  for (Literal& l : operands) values.push_back(Value::FromLiteral(std::move(l)));
  std::vector<const Value*> ptrs;
  for (const Value& v : values) ptrs.push_back(&v);
  absl::StatusOr<Value> v = EvalElementwise(*(*m)->entry()->root(), ptrs);
  if (!v.ok()) return v.status();
  return v->ToLiteral();
}

inline Literal MustEval(std::string_view result, std::string_view op, std::vector<Literal> operands,
                        std::string_view attrs = "") {
  absl::StatusOr<Literal> r = Eval(result, op, std::move(operands), attrs);
  INFO((r.ok() ? std::string() : std::string(r.status().message())));
  REQUIRE(r.ok());
  return *std::move(r);
}

inline std::string ErrorOf(std::string_view result, std::string_view op,
                           std::vector<Literal> operands, std::string_view attrs = "") {
  absl::StatusOr<Literal> r = Eval(result, op, std::move(operands), attrs);
  REQUIRE_FALSE(r.ok());
  return std::string(r.status().message());
}

inline bool IsNaNBits(const Literal& l, int64_t i) {
  PT t = l.element_type();
  if (IsComplex(t)) return false;
  return IsFloat(t) && std::isnan(l.GetDouble(i));
}

// Exact comparison: same type and dims, same bits per element (so -0 and
// +0 differ), except that any NaN matches any NaN.
inline std::string Mismatch(const Literal& actual, const Literal& expected) {
  if (actual.shape().ToString(false) != expected.shape().ToString(false)) {
    return StrCat("shape ", actual.shape().ToString(false),
                  " != ", expected.shape().ToString(false));
  }
  PT t = actual.element_type();
  for (int64_t i = 0; i < actual.element_count(); ++i) {
    if (IsComplex(t)) {
      std::complex<double> a = actual.GetComplex(i), e = expected.GetComplex(i);
      auto same = [](double x, double y) {
        return (std::isnan(x) && std::isnan(y)) || (x == y && std::signbit(x) == std::signbit(y));
      };
      if (!same(a.real(), e.real()) || !same(a.imag(), e.imag())) {
        return StrCat("element ", i, ": (", a.real(), ",", a.imag(), ") != (", e.real(), ",",
                      e.imag(), ")");
      }
      continue;
    }
    if (IsNaNBits(actual, i) && IsNaNBits(expected, i)) continue;
    if (actual.GetBits(i) != expected.GetBits(i)) {
      return StrCat("element ", i, ": ", actual.GetDouble(i), " (bits ", actual.GetBits(i),
                    ") != ", expected.GetDouble(i), " (bits ", expected.GetBits(i), ")");
    }
  }
  return "";
}

#define CHECK_LIT(actual, expected_text)            \
  do {                                              \
    Literal expected_lit_ = L(expected_text);       \
    CHECK(Mismatch((actual), expected_lit_) == ""); \
  } while (0)

#define CHECK_SAME(actual, expected)             \
  do {                                           \
    CHECK(Mismatch((actual), (expected)) == ""); \
  } while (0)

// Each (operand, result) pair of a unary op at every position of a
// 40-element array (every lane of a 16-lane vector, and the scalar tail),
// `filler` (giving `filler_result`) elsewhere: the ops whose loops run over
// vector lanes. `result_type` defaults to the operand's.
inline void CheckEveryLane(const std::string& type, const std::string& op,
                           const std::vector<std::pair<std::string, std::string>>& cases,
                           const std::string& filler, const std::string& filler_result,
                           const std::string& result_type = "") {
  constexpr int kCount = 40;
  const std::string count = StrCat("[", kCount, "]");
  const std::string shape = StrCat(type, count);
  const std::string result = StrCat(result_type.empty() ? type : result_type, count);
  for (const auto& [value, want] : cases) {
    for (int p = 0; p < kCount; ++p) {
      std::string in, out;
      for (int i = 0; i < kCount; ++i) {
        in.append(i ? ", " : "").append(i == p ? value : filler);
        out.append(i ? ", " : "").append(i == p ? want : filler_result);
      }
      INFO(op << " of " << type << " " << value << " to " << result << " at " << p);
      CHECK_LIT(MustEval(result, op, {L(StrCat(shape, " {", in, "}"))}),
                StrCat(result, " {", out, "}"));
    }
  }
}

// Distance in units in the last place of `type` between a result and the
// exactly-rounded value of a double reference.
inline double UlpError(double actual, double reference, PT type) {
  if (std::isnan(reference) || std::isnan(actual)) {
    return std::isnan(reference) && std::isnan(actual) ? 0 : 1e9;
  }
  if (std::isinf(reference) || std::isinf(actual)) return actual == reference ? 0 : 1e9;
  double ulp;
  if (type == PT::kF32) {
    float r = static_cast<float>(reference);
    if (std::isinf(r)) return std::isinf(actual) && (actual > 0) == (r > 0) ? 0 : 1e9;
    const float ar = std::fabs(r);
    ulp = static_cast<double>(std::nextafter(ar, std::numeric_limits<float>::infinity())) - ar;
    ulp = std::max(ulp, std::ldexp(1.0, -149));
  } else {
    ulp = std::nextafter(std::fabs(reference), kInf) - std::fabs(reference);
    ulp = std::max(ulp, std::ldexp(1.0, -1074));
  }
  return std::fabs(actual - reference) / ulp;
}

}  // namespace ew_test
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_ELEMENTWISE_TEST_UTIL_H_
