#include "eval/io/compare.h"

#include <cmath>

#include "ir/strings.h"

namespace hlo {
namespace {

std::string IndexText(const Shape& shape, int64_t linear) {
  std::vector<int64_t> idx(shape.rank());
  for (int64_t d = shape.rank() - 1; d >= 0; --d) {
    if (shape.dim(d) == 0) break;
    idx[d] = linear % shape.dim(d);
    linear /= shape.dim(d);
  }
  return StrCat("[", StrJoin(idx, ","), "]");
}

bool Close(double a, double e, double rtol, double atol) {
  if (std::isnan(a) || std::isnan(e)) return std::isnan(a) && std::isnan(e);
  if (std::isinf(a) || std::isinf(e)) return a == e;
  return std::fabs(a - e) <= atol + rtol * std::fabs(e);
}

void CompareArrays(const Literal& a, const Literal& e, const Tolerance& tol,
                   const std::string& where, int max_report, std::string& report,
                   int64_t& mismatches) {
  if (!a.shape().Compatible(e.shape())) {
    StrAppend(&report, where, "shape ", a.shape().ToString(false), " but expected ",
              e.shape().ToString(false), "\n");
    ++mismatches;
    return;
  }
  PrimitiveType t = a.element_type();
  double rtol = tol.rtol.value_or(DefaultRtol(t));
  double atol = tol.atol.value_or(DefaultAtol(t));
  for (int64_t i = 0; i < a.element_count(); ++i) {
    bool ok;
    if (IsComplex(t)) {
      auto x = a.GetComplex(i), y = e.GetComplex(i);
      ok = Close(x.real(), y.real(), rtol, atol) && Close(x.imag(), y.imag(), rtol, atol);
    } else if (IsFloat(t)) {
      ok = Close(a.GetDouble(i), e.GetDouble(i), rtol, atol);
    } else {
      ok = a.GetInt(i) == e.GetInt(i);
    }
    if (ok) continue;
    if (mismatches++ < max_report) {
      std::string got, want;
      AppendElement(got, a, i, LiteralStyle::kCompact);
      AppendElement(want, e, i, LiteralStyle::kCompact);
      StrAppend(&report, where, "index ", IndexText(a.shape(), i), ": got ", got, ", expected ",
                want, "\n");
    }
  }
}

void CompareRec(const Literal& a, const Literal& e, const Tolerance& tol, const std::string& where,
                int max_report, std::string& report, int64_t& mismatches) {
  if (a.IsTuple() != e.IsTuple() || (a.IsTuple() && a.elements().size() != e.elements().size())) {
    StrAppend(&report, where, "structure differs: got ", a.shape().ToString(false), ", expected ",
              e.shape().ToString(false), "\n");
    ++mismatches;
    return;
  }
  if (!a.IsTuple()) {
    CompareArrays(a, e, tol, where, max_report, report, mismatches);
    return;
  }
  for (size_t i = 0; i < a.elements().size(); ++i) {
    CompareRec(a.elements()[i], e.elements()[i], tol, StrCat(where, "element ", i, " "), max_report,
               report, mismatches);
  }
}

}  // namespace

double DefaultRtol(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::kF64:
    case PrimitiveType::kC128:
      return 1e-12;
    case PrimitiveType::kF32:
    case PrimitiveType::kC64:
      return 1e-5;
    case PrimitiveType::kF16:
    case PrimitiveType::kBF16:
      return 1e-2;
    default:
      return IsFloat(t) ? 0.125 : 0;
  }
}

double DefaultAtol(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::kF64:
    case PrimitiveType::kC128:
      return 1e-14;
    case PrimitiveType::kF32:
    case PrimitiveType::kC64:
      return 1e-6;
    case PrimitiveType::kF16:
    case PrimitiveType::kBF16:
      return 1e-3;
    default:
      return IsFloat(t) ? 1.0 / 64 : 0;
  }
}

std::string CompareLiterals(const Literal& actual, const Literal& expected,
                            const Tolerance& tolerance, int max_report) {
  std::string report;
  int64_t mismatches = 0;
  CompareRec(actual, expected, tolerance, "", max_report, report, mismatches);
  if (mismatches == 0) return "";
  if (mismatches > max_report) {
    StrAppend(&report, "... ", mismatches - max_report, " more mismatches\n");
  }
  return StrCat(mismatches, " mismatch", mismatches == 1 ? "" : "es", ":\n", report);
}

}  // namespace hlo
