#include "tools/numerics/error_report.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>

#include "ir/status_macros.h"
#include "ir/strings.h"

namespace hlo {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Instructions that compute (and so may round); data movement, calls,
// loops and the like add no error of their own.
bool Computes(Opcode op) {
  if (IsElementwise(op)) return op != Opcode::kCopy && op != Opcode::kBitcastConvert;
  switch (op) {
    case Opcode::kDot:
    case Opcode::kRaggedDot:
    case Opcode::kScaledDot:
    case Opcode::kConvolution:
    case Opcode::kReduce:
    case Opcode::kReduceWindow:
    case Opcode::kSelectAndScatter:
    case Opcode::kScatter:
    case Opcode::kMap:
    case Opcode::kCholesky:
    case Opcode::kTriangularSolve:
    case Opcode::kFft:
    case Opcode::kBatchNormTraining:
    case Opcode::kBatchNormInference:
    case Opcode::kBatchNormGrad:
    case Opcode::kCustomCall:
      return true;
    default:
      return false;
  }
}

bool HasFloatLeaf(const Shape& s) {
  if (s.IsTuple()) {
    for (const Shape* e : s.tuple_shapes()) {
      if (HasFloatLeaf(*e)) return true;
    }
    return false;
  }
  return s.IsArray() && (IsFloat(s.element_type()) || IsComplex(s.element_type()));
}

// `v` in the element types of `shape` (rounded to nearest even); shared
// when they are already.
absl::StatusOr<Value> RoundTo(const Value& v, const Shape& shape) {
  if (v.is_tuple()) {
    if (!shape.IsTuple() || shape.tuple_size() != static_cast<int64_t>(v.elements().size())) {
      return absl::InternalError("operand tuple differs from the native shape");
    }
    std::vector<Value> elements;
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      HLO_ASSIGN_OR_RETURN(Value e, RoundTo(v.element(i), shape.tuple_shape(i)));
      elements.push_back(std::move(e));
    }
    return Value::Tuple(std::move(elements));
  }
  if (!v.is_array() || !shape.IsArray() || v.array().element_type() == shape.element_type()) {
    return v;
  }
  const Literal& wide = v.array();
  HLO_ASSIGN_OR_RETURN(Literal narrow, Literal::CreateUninitialized(
                                           wide.shape().WithElementType(shape.element_type())));
  const bool complex = IsComplex(shape.element_type());
  for (int64_t i = 0; i < wide.element_count(); ++i) {
    if (complex) {
      narrow.SetComplex(i, wide.GetComplex(i));
    } else {
      narrow.SetDouble(i, wide.GetDouble(i));
    }
  }
  return Value::Array(std::make_shared<Literal>(std::move(narrow)));
}

void MeasureLeaf(const Literal& got, const Literal& want, RelativeError& out) {
  const PrimitiveType t = got.element_type();
  if ((!IsFloat(t) && !IsComplex(t)) || got.element_count() != want.element_count()) return;
  double num = 0, den = 0, got_worst = 0, want_worst = 0;
  int64_t worst = -1;
  for (int64_t i = 0; i < got.element_count(); ++i) {
    const std::complex<double> a = got.GetComplex(i), b = want.GetComplex(i);
    const bool fa = std::isfinite(a.real()) && std::isfinite(a.imag());
    const bool fb = std::isfinite(b.real()) && std::isfinite(b.imag());
    double diff = 0;
    if (fa && fb) {
      diff = std::abs(a - b);
      den = std::max(den, std::abs(b));
    } else if (!(a == b || (std::isnan(std::abs(a)) && std::isnan(std::abs(b))))) {
      diff = kInf;
    }
    if (diff > num) {
      num = diff;
      worst = i;
      got_worst = a.real();
      want_worst = b.real();
    }
  }
  const double error = num == 0 ? 0 : (den > 0 ? num / den : kInf);
  if (worst >= 0 && error >= out.error) {
    out = {error, worst, got_worst, want_worst, got.shape()};
  }
}

void MeasureInto(const Value& got, const Value& want, RelativeError& out) {
  if (got.is_array() && want.is_array()) {
    MeasureLeaf(got.array(), want.array(), out);
    return;
  }
  if (!got.is_tuple() || !want.is_tuple()) return;
  for (size_t i = 0; i < got.elements().size() && i < want.elements().size(); ++i) {
    MeasureInto(got.element(static_cast<int64_t>(i)), want.element(static_cast<int64_t>(i)), out);
  }
}

// The machine epsilon of a float type (2^-mantissa bits); 0 when unknown.
double Epsilon(PrimitiveType t) {
  switch (ComplexComponentType(t)) {
    case PrimitiveType::kF64:
      return std::ldexp(1.0, -52);
    case PrimitiveType::kF32:
      return std::ldexp(1.0, -23);
    case PrimitiveType::kF16:
      return std::ldexp(1.0, -10);
    case PrimitiveType::kBF16:
      return std::ldexp(1.0, -7);
    default:
      return 0;
  }
}

nlohmann::json Number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

// Nine significant digits: enough to tell f32 neighbours apart.
std::string Digits(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

}  // namespace

RelativeError MeasureError(const Value& got, const Value& want) {
  RelativeError out;
  MeasureInto(got, want, out);
  return out;
}

ErrorReporter::ErrorReporter(const Module& native, Evaluator& native_evaluator)
    : native_(native), evaluator_(native_evaluator) {
  for (const auto& comp : native.computations()) {
    for (const auto& inst : comp->instructions()) by_name_[inst->name()] = inst.get();
  }
}

absl::Status ErrorReporter::Finished(const Instruction& wide, absl::Span<const Value* const> ops,
                                     const Value& result) {
  auto it = by_name_.find(wide.name());
  if (it == by_name_.end()) return absl::OkStatus();  // a convert widen-floats added
  const Instruction& inst = *it->second;
  if (!Computes(inst.opcode()) || !HasFloatLeaf(inst.shape()) ||
      ops.size() != static_cast<size_t>(inst.operand_count())) {
    return absl::OkStatus();
  }
  std::vector<Value> rounded;
  rounded.reserve(ops.size());
  for (size_t k = 0; k < ops.size(); ++k) {
    absl::StatusOr<Value> r = RoundTo(*ops[k], inst.operand(static_cast<int64_t>(k))->shape());
    if (!r.ok()) return absl::OkStatus();
    rounded.push_back(*std::move(r));
  }
  std::vector<const Value*> ptrs;
  for (const Value& v : rounded) ptrs.push_back(&v);
  absl::StatusOr<Value> native = evaluator_.EvaluateInstruction(inst, ptrs);
  if (!native.ok()) return native.status();
  ++evaluations_;
  absl::StatusOr<Value> want = RoundTo(result, inst.shape());
  if (!want.ok()) return absl::OkStatus();
  RelativeError e = MeasureError(*native, *want);
  Row& row = rows_[&inst];
  row.inst = &inst;
  ++row.runs;
  if (row.runs == 1 || e.error > row.worst.error) {
    row.worst = e;
    row.trips = Trips();
  }
  return absl::OkStatus();
}

std::vector<ErrorReporter::Row> ErrorReporter::Rows() const {
  std::vector<Row> rows;
  for (const auto& [inst, row] : rows_) rows.push_back(row);
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (a.worst.error != b.worst.error) return a.worst.error > b.worst.error;
    return a.inst->name() < b.inst->name();  // deterministic among equals
  });
  return rows;
}

std::string FormatErrorReport(const Module& native, const std::vector<ErrorReporter::Row>& rows,
                              int64_t evaluations, const RelativeError& outputs, size_t top,
                              bool json) {
  const size_t shown = std::min(top, rows.size());
  if (json) {
    nlohmann::json list = nlohmann::json::array();
    for (size_t r = 0; r < shown; ++r) {
      const ErrorReporter::Row& row = rows[r];
      const Instruction& inst = *row.inst;
      const double eps =
          Epsilon(inst.shape().IsArray() ? inst.shape().element_type() : PrimitiveType::kToken);
      nlohmann::json j = {
          {"rank", r + 1},
          {"name", std::string(inst.name())},
          {"computation", inst.parent() != nullptr ? inst.parent()->name() : ""},
          {"opcode", inst.OpcodeText()},
          {"shape", inst.shape().ToString(false)},
          {"error", Number(row.worst.error)},
          {"error_eps", eps > 0 ? Number(row.worst.error / eps) : nlohmann::json(nullptr)},
          {"runs", row.runs},
          {"iterations", row.trips},
          {"op_name", OpNameOf(inst)},
          {"source", SourceOf(native, inst)},
          {"location", TextLocationOf(native, inst)}};
      if (row.worst.worst >= 0) {
        j["worst_element"] = {{"index", IndexText(row.worst.leaf_shape, row.worst.worst)},
                              {"got", Number(row.worst.got)},
                              {"f64", Number(row.worst.want)}};
      }
      list.push_back(std::move(j));
    }
    nlohmann::json doc = {{"module", native.name()},
                          {"measured", rows.size()},
                          {"evaluations", evaluations},
                          {"outputs_error", Number(outputs.error)},
                          {"instructions", list}};
    return doc.dump(1) + "\n";
  }
  std::string out = StrCat("error-report: ", native.name(), ": the ", shown,
                           " instructions that add the most error, of ", rows.size(), " measured (",
                           evaluations, " evaluations)\n");
  StrAppend(&out,
            "  added error: max |native - f64| / max |f64| of each instruction run in its own "
            "types on the f64 run's operands, the f64 result rounded to its type\n");
  StrAppend(&out, "  outputs: the native run against the f64 run: ", outputs.error, "\n");
  for (size_t r = 0; r < shown; ++r) {
    const ErrorReporter::Row& row = rows[r];
    const Instruction& inst = *row.inst;
    const double eps =
        Epsilon(inst.shape().IsArray() ? inst.shape().element_type() : PrimitiveType::kToken);
    StrAppend(&out, "  ", r + 1, ". %", inst.name(), " (", inst.OpcodeText(), " ",
              inst.shape().ToString(false), ") adds ", row.worst.error);
    if (eps > 0) StrAppend(&out, " (", row.worst.error / eps, " eps)");
    if (row.runs > 1) StrAppend(&out, ", the largest of ", row.runs, " runs");
    if (!row.trips.empty()) StrAppend(&out, ", at iteration ", StrJoin(row.trips, ","));
    out += "\n";
    if (row.worst.worst >= 0) {
      StrAppend(&out, "     worst element ", IndexText(row.worst.leaf_shape, row.worst.worst), ": ",
                Digits(row.worst.got), " vs f64 rounded ", Digits(row.worst.want), "\n");
    }
    std::string op_name = OpNameOf(inst), source = SourceOf(native, inst);
    StrAppend(&out, "     op_name: ", op_name.empty() ? "(none)" : op_name,
              "; source: ", source.empty() ? "(none)" : source, "; at ",
              TextLocationOf(native, inst), "\n");
  }
  return out;
}

}  // namespace hlo
