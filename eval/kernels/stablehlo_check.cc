// The custom calls StableHLO's check ops become (stablehlo/ops_check.cc):
// `stablehlo.check.expect_eq`, `.expect_almost_eq` and `.expect_close`, each
// with the actual and the expected value as operands and no result. Their
// semantics are those of StableHLO's reference interpreter
// (stablehlo/tests/CheckOps.cpp, reference/Element.cpp): the first element
// that differs is an error naming both values and the index.
#include "eval/kernels/stablehlo_check.h"

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ir/literal.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace hlo {
namespace {

std::string ElementText(const Literal& l, int64_t i) {
  std::string s;
  AppendElement(s, l, i, LiteralStyle::kCompact);
  return s;
}

// The row-major index of element i: `[1, 0]`.
std::string IndexText(const Shape& shape, int64_t i) {
  std::vector<int64_t> index(shape.rank());
  for (int64_t d = shape.rank() - 1; d >= 0; --d) {
    const int64_t n = shape.dim(d);
    index[d] = n == 0 ? 0 : i % n;
    i = n == 0 ? 0 : i / n;
  }
  return StrCat("[", StrJoin(index, ", "), "]");
}

// `key=value` of the backend_config ops_check.cc writes.
absl::StatusOr<std::string_view> ConfigValue(const Instruction& inst, std::string_view key) {
  std::string_view config = inst.GetString(AttrKind::kBackendConfig);
  for (std::string_view part : StrSplit(config, ',')) {
    if (part.starts_with(key) && part.substr(key.size()).starts_with("=")) {
      return part.substr(key.size() + 1);
    }
  }
  return absl::InvalidArgumentError(StrCat("backend_config names no ", key, " (", key, "=VALUE)"));
}

// Reference's areApproximatelyEqual: equal, both NaN, or both finite and
// within the tolerance.
bool AlmostEqual(double f, double g, double tolerance) {
  if (f == g) return true;
  if (std::isnan(f) || std::isnan(g)) return std::isnan(f) && std::isnan(g);
  if (!std::isfinite(f) || !std::isfinite(g)) return false;
  return std::fabs(f - g) <= tolerance;
}

// One float's encoding: its bits, sign bit and value.
struct FloatBits {
  uint64_t bits;
  uint64_t sign_mask;
  double value;
};

// Reference's ULPDifference: 0 for equal encodings or two NaNs, the
// distance in encodings between finite values (through zero when the signs
// differ), the largest value otherwise.
uint64_t UlpDifference(const FloatBits& f, const FloatBits& g) {
  if (f.bits == g.bits) return 0;
  if (std::isfinite(f.value) && std::isfinite(g.value)) {
    const uint64_t a = f.bits & ~f.sign_mask, b = g.bits & ~g.sign_mask;
    if ((f.bits & f.sign_mask) != (g.bits & g.sign_mask)) return a + b;
    return a > b ? a - b : b - a;
  }
  if (std::isnan(f.value) && std::isnan(g.value)) return 0;
  return std::numeric_limits<uint64_t>::max();
}

// The real and imaginary parts of element i as FloatBits (a real number
// has only the first).
std::pair<FloatBits, FloatBits> PartsOf(const Literal& l, int64_t i) {
  const PrimitiveType type = l.element_type();
  if (type == PrimitiveType::kC64) {
    const float* p = l.typed<float>() + 2 * i;
    uint32_t re = 0, im = 0;
    std::memcpy(&re, p, 4);
    std::memcpy(&im, p + 1, 4);
    return {{re, uint64_t{1} << 31, p[0]}, {im, uint64_t{1} << 31, p[1]}};
  }
  if (type == PrimitiveType::kC128) {
    const double* p = l.typed<double>() + 2 * i;
    uint64_t re = 0, im = 0;
    std::memcpy(&re, p, 8);
    std::memcpy(&im, p + 1, 8);
    return {{re, uint64_t{1} << 63, p[0]}, {im, uint64_t{1} << 63, p[1]}};
  }
  // f8e8m0fnu has no sign bit.
  const uint64_t sign = type == PrimitiveType::kF8E8M0FNU ? 0 : uint64_t{1} << (BitWidth(type) - 1);
  return {{l.GetBits(i), sign, l.GetDouble(i)}, {0, 0, 0.0}};
}

absl::Status Mismatch(std::string_view what, const Literal& a, const Literal& b, int64_t i,
                      std::string_view more = "") {
  return absl::InvalidArgumentError(StrCat(what, ": ", ElementText(a, i), " (actual) vs ",
                                           ElementText(b, i), " (expected) at index ",
                                           IndexText(a.shape(), i), more));
}

}  // namespace

absl::Status StableHloExpectEq(const Literal& a, const Literal& b) {
  if (a.element_type() != b.element_type() || a.shape().dims() != b.shape().dims()) {
    return absl::InvalidArgumentError(StrCat("the actual value is ", a.shape().ToString(false),
                                             ", the expected one ", b.shape().ToString(false)));
  }
  const PrimitiveType type = a.element_type();
  for (int64_t i = 0; i < a.element_count(); ++i) {
    bool equal;
    if (IsComplex(type)) {
      equal = a.GetComplex(i) == b.GetComplex(i);
    } else if (IsFloat(type)) {
      equal = a.GetDouble(i) == b.GetDouble(i);  // IEEE: NaN differs, -0 == +0
    } else {
      equal = a.GetInt(i) == b.GetInt(i);
    }
    if (!equal) return Mismatch("element values don't match", a, b, i);
  }
  return absl::OkStatus();
}

namespace {

absl::Status ExpectAlmostEq(const Instruction& inst, const Literal& a, const Literal& b) {
  HLO_ASSIGN_OR_RETURN(std::string_view text, ConfigValue(inst, "tolerance"));
  double tolerance = 0;
  if (!ParseDouble(text, &tolerance)) {
    return absl::InvalidArgumentError(StrCat("bad tolerance '", text, "' in backend_config"));
  }
  const bool complex = IsComplex(a.element_type());
  for (int64_t i = 0; i < a.element_count(); ++i) {
    bool equal;
    if (complex) {
      const std::complex<double> x = a.GetComplex(i), y = b.GetComplex(i);
      equal =
          AlmostEqual(x.real(), y.real(), tolerance) && AlmostEqual(x.imag(), y.imag(), tolerance);
    } else {
      equal = AlmostEqual(a.GetDouble(i), b.GetDouble(i), tolerance);
    }
    if (!equal) {
      return Mismatch(StrCat("element values don't match with tolerance ", tolerance), a, b, i);
    }
  }
  return absl::OkStatus();
}

absl::Status ExpectClose(const Instruction& inst, const Literal& a, const Literal& b) {
  HLO_ASSIGN_OR_RETURN(std::string_view max_text, ConfigValue(inst, "max_ulp_difference"));
  HLO_ASSIGN_OR_RETURN(std::string_view min_text, ConfigValue(inst, "min_ulp_difference"));
  int64_t max_signed = 0, min_signed = 0;
  if (!ParseInt64(max_text, &max_signed) || !ParseInt64(min_text, &min_signed) || max_signed < 0 ||
      min_signed < 0) {
    return absl::InvalidArgumentError("bad ULP bounds in backend_config");
  }
  const auto max_ulp = static_cast<uint64_t>(max_signed);
  const auto min_ulp = static_cast<uint64_t>(min_signed);
  const bool complex = IsComplex(a.element_type());
  int64_t outside = 0, first = -1;
  uint64_t first_ulp = 0;
  for (int64_t i = 0; i < a.element_count(); ++i) {
    const auto [ar, ai] = PartsOf(a, i);
    const auto [br, bi] = PartsOf(b, i);
    uint64_t ulp = UlpDifference(ar, br);
    if (complex) ulp = std::max(ulp, UlpDifference(ai, bi));
    if (ulp <= max_ulp && ulp >= min_ulp) continue;
    if (outside++ == 0) {
      first = i;
      first_ulp = ulp;
    }
  }
  if (outside == 0) return absl::OkStatus();
  const std::string apart = first_ulp == std::numeric_limits<uint64_t>::max()
                                ? std::string("unbounded (a finite and a non-finite value)")
                                : StrCat(first_ulp);
  return Mismatch(
      StrCat("element values are not within [", min_ulp, ", ", max_ulp, "] ULPs of each other"), a,
      b, first,
      StrCat(", ULP difference ", apart, " (", outside, " of ", a.element_count(),
             " elements outside)"));
}

}  // namespace

absl::StatusOr<Value> EvalStableHloCheck(const Instruction& inst, Operands ops, KernelContext&) {
  std::string_view target = inst.GetString(AttrKind::kCustomCallTarget);
  if (ops.size() < 2 || ops.size() > 3 || !ops[0]->is_array() || !ops[1]->is_array()) {
    return absl::InvalidArgumentError(
        StrCat(target, " takes two arrays, the actual value and the expected one, and a pred[]"));
  }
  // The optional third operand: whether to check here (a value of one device).
  if (ops.size() == 3) {
    if (!ops[2]->is_array() || ops[2]->array().element_type() != PrimitiveType::kPred ||
        ops[2]->array().element_count() != 1) {
      return absl::InvalidArgumentError(StrCat(target, "'s third operand is a pred[]"));
    }
    if (ops[2]->array().GetInt(0) == 0) return Value::Tuple({});
  }
  const Literal& a = ops[0]->array();
  const Literal& b = ops[1]->array();
  if (a.element_type() != b.element_type() || a.shape().dims() != b.shape().dims()) {
    return absl::InvalidArgumentError(StrCat(target, ": the actual value is ",
                                             a.shape().ToString(false), ", the expected one ",
                                             b.shape().ToString(false)));
  }
  if (target != "stablehlo.check.expect_eq" && !IsFloat(a.element_type()) &&
      !IsComplex(a.element_type())) {
    return absl::InvalidArgumentError(
        StrCat(target, " compares floats or complex numbers, not ", a.shape().ToString(false)));
  }
  absl::Status st;
  if (target == "stablehlo.check.expect_eq") {
    st = StableHloExpectEq(a, b);
  } else if (target == "stablehlo.check.expect_almost_eq") {
    st = ExpectAlmostEq(inst, a, b);
  } else if (target == "stablehlo.check.expect_close") {
    st = ExpectClose(inst, a, b);
  } else {
    return absl::InvalidArgumentError(StrCat("no check named '", target, "'"));
  }
  if (!st.ok()) return st;
  return Value::Tuple({});
}

}  // namespace hlo
