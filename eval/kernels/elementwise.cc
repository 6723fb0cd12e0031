// EvalElementwise: checks the operands, makes the result (or takes over an
// operand's buffer) and runs the op through elementwise::Apply
// (eval/interp/elementwise_ops.h); EvalElementwiseFlushingDenormals, the
// same with XLA:CPU's flush-to-zero (eval/denormals.h).
#include "eval/denormals.h"
#include "eval/interp/elementwise_ops.h"
#include "eval/kernels/kernels.h"
#include "eval/kernels/operand_reuse.h"
#include "ir/instruction.h"
#include "ir/status_macros.h"

namespace hlo {
namespace elementwise {

namespace {

std::string DimsText(const Shape& s) { return s.ToString(false); }

// Operand `i` must be an array with the result's dimensions (or, when
// `scalar_ok`, a scalar).
absl::Status CheckDims(const Literal& operand, const Shape& result, int64_t i,
                       bool scalar_ok = false) {
  const Shape& s = operand.shape();
  if (scalar_ok && s.rank() == 0) return absl::OkStatus();
  bool same = s.rank() == result.rank();
  for (int64_t d = 0; same && d < s.rank(); ++d) same = s.dim(d) == result.dim(d);
  if (same && operand.element_count() == result.ElementCount()) return absl::OkStatus();
  return absl::InvalidArgumentError(StrCat("operand ", i, " has shape ", DimsText(s),
                                           ", which does not match the result shape ",
                                           DimsText(result)));
}

absl::Status CheckType(const Literal& operand, int64_t i, PrimitiveType expected) {
  if (operand.element_type() == expected) return absl::OkStatus();
  return absl::InvalidArgumentError(StrCat("operand ", i, " has element type ",
                                           PrimitiveTypeName(operand.element_type()), " but ",
                                           PrimitiveTypeName(expected), " is expected"));
}

// The operands' shapes and types against the result's (each family then
// trusts them).
absl::Status CheckOperands(const Instruction& inst, Operands ops) {
  const Opcode op = inst.opcode();
  const Shape& shape = inst.shape();
  const PrimitiveType rt = shape.element_type();
  auto arr = [&](int i) -> const Literal& { return ops[i]->array(); };
  switch (op) {
    case Opcode::kCopy:
    case Opcode::kReducePrecision:
      HLO_RETURN_IF_ERROR(CheckDims(arr(0), shape, 0));
      return CheckType(arr(0), 0, rt);
    case Opcode::kConvert:
      return CheckDims(arr(0), shape, 0);
    case Opcode::kBitcastConvert:
      return absl::OkStatus();
    case Opcode::kStochasticConvert:
      HLO_RETURN_IF_ERROR(CheckDims(arr(0), shape, 0));
      return CheckDims(arr(1), shape, 1);
    case Opcode::kCompare:
      HLO_RETURN_IF_ERROR(CheckDims(arr(0), shape, 0));
      HLO_RETURN_IF_ERROR(CheckDims(arr(1), shape, 1));
      HLO_RETURN_IF_ERROR(CheckType(arr(1), 1, arr(0).element_type()));
      if (rt != PrimitiveType::kPred) {
        return absl::InvalidArgumentError("'compare' must produce pred");
      }
      return absl::OkStatus();
    case Opcode::kSelect:
      HLO_RETURN_IF_ERROR(CheckDims(arr(0), shape, 0, /*scalar_ok=*/true));
      HLO_RETURN_IF_ERROR(CheckDims(arr(1), shape, 1));
      HLO_RETURN_IF_ERROR(CheckDims(arr(2), shape, 2));
      HLO_RETURN_IF_ERROR(CheckType(arr(0), 0, PrimitiveType::kPred));
      HLO_RETURN_IF_ERROR(CheckType(arr(1), 1, rt));
      return CheckType(arr(2), 2, rt);
    case Opcode::kClamp:
      HLO_RETURN_IF_ERROR(CheckDims(arr(0), shape, 0, /*scalar_ok=*/true));
      HLO_RETURN_IF_ERROR(CheckDims(arr(1), shape, 1));
      HLO_RETURN_IF_ERROR(CheckDims(arr(2), shape, 2, /*scalar_ok=*/true));
      for (int i = 0; i < 3; ++i) HLO_RETURN_IF_ERROR(CheckType(arr(i), i, rt));
      return absl::OkStatus();
    default:
      break;
  }
  if (IsElementwiseUnary(op)) return CheckDims(arr(0), shape, 0);
  if (IsElementwiseBinary(op)) {
    HLO_RETURN_IF_ERROR(CheckDims(arr(0), shape, 0));
    HLO_RETURN_IF_ERROR(CheckDims(arr(1), shape, 1));
    return CheckType(arr(1), 1, arr(0).element_type());
  }
  return absl::InvalidArgumentError(
      StrCat("'", OpcodeName(op), "' is not an elementwise operation"));
}

absl::Status Run(const Instruction& inst, Operands ops, Literal& out) {
  HLO_RETURN_IF_ERROR(CheckOperands(inst, ops));
  const Literal* arrays[3] = {};
  for (size_t i = 0; i < ops.size() && i < 3; ++i) arrays[i] = &ops[i]->array();
  return Apply(inst, absl::MakeConstSpan(arrays, ops.size()), out);
}

}  // namespace

// The operand of a float op below whose buffer can be the result,
// or -1: its value holds the only reference to the buffer, its instruction
// has no other user, is not a root and is not the other operand, and it has
// the result's type and dimensions. The kernels read element i before
// writing it, so the aliasing is harmless (BinaryFloatKernel's ZipAliased).
// An empty operand is never reused (null data pointers compare equal).
int ReusableOperand(const Instruction& inst, Operands ops) {
  size_t arity = 0;
  switch (inst.opcode()) {
    case Opcode::kAdd:
    case Opcode::kSubtract:
    case Opcode::kMultiply:
    case Opcode::kDivide:
    case Opcode::kMaximum:
    case Opcode::kMinimum:
      arity = 2;
      break;
    // Unary float kernels that read element i before writing it (the
    // transcendentals' VecMath blocks and MapInPlace, Sqrt); not logistic,
    // which re-reads its input.
    case Opcode::kSqrt:
    case Opcode::kRsqrt:
      arity = 1;
      break;
    default:
      if (!IsTranscendental(inst.opcode())) return -1;
      arity = 1;
  }
  const Shape& shape = inst.shape();
  if (ops.size() != arity || inst.operand_count() != static_cast<int64_t>(arity) ||
      !shape.IsArray()) {
    return -1;
  }
  const PrimitiveType rt = shape.element_type();
  if (rt != PrimitiveType::kF32 && rt != PrimitiveType::kF64) return -1;
  for (int k = 0; k < static_cast<int>(arity); ++k) {
    const Value* v = ops[k];
    if (v == nullptr || !v->is_array() || !v->unique() || !SoleReaderOfOperand(inst, k)) continue;
    const Literal& a = v->array();
    if (a.element_type() != rt || a.shape().dims() != shape.dims() || a.element_count() == 0) {
      continue;
    }
    return k;
  }
  return -1;
}

}  // namespace elementwise

absl::StatusOr<Value> EvalElementwise(const Instruction& inst, Operands ops) {
  const Opcode op = inst.opcode();
  int arity = (op == Opcode::kSelect || op == Opcode::kClamp) ? 3 : IsElementwiseBinary(op) ? 2 : 1;
  if (static_cast<int>(ops.size()) != arity) {
    return absl::InvalidArgumentError(
        StrCat("'", OpcodeName(op), "' takes ", arity, " operands but has ", ops.size()));
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i] == nullptr || !ops[i]->is_array()) {
      return absl::InvalidArgumentError(
          StrCat("operand ", i, " of '", OpcodeName(op), "' is not an array",
                 op == Opcode::kCopy ? " (copies of tuples are not elementwise)" : ""));
    }
  }
  if (!inst.shape().IsArray()) {
    return absl::InvalidArgumentError(
        StrCat("'", OpcodeName(op), "' must produce an array, not ", inst.shape().ToString(false)));
  }
  // A float op whose operand buffer nobody else can see takes it over as its
  // result (see ReusableOperand).
  if (int k = elementwise::ReusableOperand(inst, ops); k >= 0) {
    Value result = *ops[k];
    absl::Status st = elementwise::Run(inst, ops, result.mutable_array());
    if (!st.ok()) return st;
    return result;
  }
  // Every kernel here but bitcast-convert writes each result element.
  absl::StatusOr<Value> result =
      op == Opcode::kBitcastConvert ? NewArray(inst.shape()) : NewArrayUninitialized(inst.shape());
  if (!result.ok()) return result.status();
  absl::Status st = elementwise::Run(inst, ops, result->mutable_array());
  if (!st.ok()) return st;
  return result;
}

absl::StatusOr<Value> EvalElementwiseFlushingDenormals(const Instruction& inst, Operands ops) {
  if (!ElementwiseFlushesDenormals(inst) || HardwareFlushes(inst)) {
    return EvalElementwise(inst, ops);
  }
  // Copies of the operands that hold denormals, flushed; made only when one
  // does (most instructions have none, and integer ones never).
  std::vector<Value> flushed;
  std::vector<const Value*> args;
  const size_t scanned = HardwareReadsFlushed(inst) ? 0 : ops.size();
  for (size_t i = 0; i < scanned; ++i) {
    if (!ops[i]->is_array() || !ContainsDenormals(ops[i]->array())) continue;
    if (args.empty()) {
      flushed.reserve(ops.size());  // no reallocation: args point into it
      args.assign(ops.begin(), ops.end());
    }
    flushed.push_back(Value::Array(std::make_shared<Literal>(ops[i]->array())));
    FlushDenormalsInPlace(flushed.back().mutable_array());
    args[i] = &flushed.back();
  }
  absl::StatusOr<Value> result = EvalElementwise(inst, args.empty() ? ops : Operands(args));
  if (!result.ok() || !result->is_array() || !ContainsDenormals(result->array())) return result;
  // A kernel may hand back an operand's buffer: flush a copy unless the
  // result holds its buffer alone.
  if (!result->unique()) *result = Value::Array(std::make_shared<Literal>(result->array()));
  FlushDenormalsInPlace(result->mutable_array());
  return result;
}

}  // namespace hlo
