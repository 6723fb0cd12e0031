#include "eval/interp/raw_step.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "eval/denormals.h"
#include "eval/interp/elementwise_ops.h"
#include "ir/strings.h"

namespace hlo {
namespace {

using K = RawStep::Kind;
using PT = PrimitiveType;

// The kind: the f32/f64 ops that elementwise::Apply hands to
// UnaryFloatKernel / BinaryFloatKernel, float compare and select, integer
// arithmetic (BinaryIntKernel) and converts between integers, and bitcasts
// between whole-byte types of one width.
K KindOf(const Instruction& inst, bool bitcast, absl::Span<const PT> types, PT rt) {
  const size_t arity = types.size();
  auto type = [&](size_t i) { return types[i]; };
  if (bitcast) {
    auto whole = [](PT t) { return elementwise::LogicalBits(t) == 8 * ByteWidth(t); };
    return arity == 1 && ByteWidth(type(0)) == ByteWidth(rt) && whole(type(0)) && whole(rt)
               ? K::kBitcast
               : K::kNone;
  }
  const Opcode op = inst.opcode();
  const bool float_result = rt == PT::kF32 || rt == PT::kF64;
  switch (op) {
    case Opcode::kSelect: {
      const int64_t width = ByteWidth(rt);
      const bool fits = width == 1 || width == 2 || width == 4 || width == 8;
      return arity == 3 && type(0) == PT::kPred && type(1) == rt && type(2) == rt && fits
                 ? K::kSelect
                 : K::kNone;
    }
    case Opcode::kCompare:
      if (arity != 2 || rt != PT::kPred || type(0) != type(1)) return K::kNone;
      if (type(0) == PT::kF32 || type(0) == PT::kF64) return K::kCompareFloat;
      return type(0) == PT::kPred || IsInteger(type(0)) ? K::kCompareInt : K::kNone;
    case Opcode::kConvert:
      return arity == 1 && elementwise::ConvertIntKernel(type(0), rt, nullptr, nullptr, 0)
                 ? K::kConvertInt
                 : K::kNone;
    // Apply's own cases before the unary and binary families.
    case Opcode::kCopy:
    case Opcode::kBitcastConvert:
    case Opcode::kReducePrecision:
    case Opcode::kStochasticConvert:
    case Opcode::kClamp:
      return K::kNone;
    default:
      break;
  }
  if (rt == PT::kPred) {
    if (op == Opcode::kNot) return arity == 1 && type(0) == rt ? K::kNotPred : K::kNone;
    return arity == 2 && type(0) == rt && type(1) == rt &&
                   elementwise::PredBinaryKernel(op, nullptr, nullptr, nullptr, 0)
               ? K::kBinaryPred
               : K::kNone;
  }
  if (!float_result) {
    return arity == 2 && IsElementwiseBinary(op) && type(0) == rt && type(1) == rt &&
                   elementwise::BinaryIntKernel(op, rt, nullptr, nullptr, nullptr, 0)
               ? K::kBinaryInt
               : K::kNone;
  }
  if (arity == 1 && IsElementwiseUnary(op) && type(0) == rt) {
    const bool ok = rt == PT::kF32 ? elementwise::UnaryFloatKernel<float>(op, nullptr, nullptr, 0)
                                   : elementwise::UnaryFloatKernel<double>(op, nullptr, nullptr, 0);
    return ok ? K::kUnaryFloat : K::kNone;
  }
  if (arity == 2 && IsElementwiseBinary(op) && op != Opcode::kComplex && type(0) == rt &&
      type(1) == rt) {
    const bool ok = rt == PT::kF32
                        ? elementwise::BinaryFloatKernel<float>(op, nullptr, nullptr, nullptr, 0)
                        : elementwise::BinaryFloatKernel<double>(op, nullptr, nullptr, nullptr, 0);
    return ok ? K::kBinaryFloat : K::kNone;
  }
  return K::kNone;
}

template <typename T>
void RunFloat(Opcode op, bool unary, const uint8_t* const* in, uint8_t* out, int64_t n) {
  if (unary) {
    elementwise::UnaryFloatKernel<T>(op, reinterpret_cast<const T*>(in[0]),
                                     reinterpret_cast<T*>(out), n);
  } else {
    elementwise::BinaryFloatKernel<T>(op, reinterpret_cast<const T*>(in[0]),
                                      reinterpret_cast<const T*>(in[1]), reinterpret_cast<T*>(out),
                                      n);
  }
}

}  // namespace

RawStep RawStepOf(const Instruction& inst, bool bitcast, bool flush,
                  absl::Span<const PrimitiveType> operand_types, PrimitiveType result_type) {
  RawStep step;
  step.inst = &inst;
  step.result_type = result_type;
  if (!bitcast && flush && !HardwareReadsFlushed(inst)) return step;
  step.kind = KindOf(inst, bitcast, operand_types, result_type);
  step.flush_result = !bitcast && flush && !HardwareFlushes(inst);
  step.type = step.kind == K::kSelect || operand_types.empty() ? result_type : operand_types[0];
  if (step.kind == K::kBinaryInt) {
    step.binary_int = elementwise::BinaryIntKernelFor(inst.opcode(), step.type);
  } else if (step.kind == K::kConvertInt) {
    step.convert_int = elementwise::ConvertIntKernelFor(step.type, result_type);
  } else if (step.kind == K::kBinaryFloat) {
    step.binary_float = elementwise::BinaryFloatKernelFor(inst.opcode(), step.type);
  } else if (step.kind == K::kCompareFloat || step.kind == K::kCompareInt) {
    // (Attributes it cannot run with stay unresolved: each run reports them.)
    absl::StatusOr<elementwise::CompareMode> mode = elementwise::CompareModeOf(inst, step.type);
    if (mode.ok()) step.compare = *mode;
  }
  if (step.binary_int == nullptr && step.convert_int == nullptr &&
      (step.kind == K::kBinaryInt || step.kind == K::kConvertInt)) {
    step.kind = K::kNone;
  }
  return step;
}

absl::Status RunRawStep(const RawStep& step, const uint8_t* const* in, uint8_t* out, int64_t n) {
  const Opcode op = step.inst->opcode();
  const bool f32 = step.type == PT::kF32;
  switch (step.kind) {
    case K::kBinaryFloat:
      if (step.binary_float != nullptr) {
        step.binary_float(in[0], in[1], out, n);
        break;
      }
      [[fallthrough]];
    case K::kUnaryFloat: {
      const bool unary = step.kind == K::kUnaryFloat;
      f32 ? RunFloat<float>(op, unary, in, out, n) : RunFloat<double>(op, unary, in, out, n);
      break;
    }
    case K::kCompareFloat:
    case K::kCompareInt: {
      bool* o = reinterpret_cast<bool*>(out);
      if (step.compare.has_value()) {
        elementwise::CompareRaw(*step.compare, step.type, in[0], in[1], o, n);
        break;
      }
      absl::Status st = elementwise::CompareArrays(*step.inst, step.type, in[0], in[1], o, n);
      if (!st.ok()) {
        return absl::Status(st.code(),
                            StrCat("%", step.inst->name(), ": ", std::string(st.message())));
      }
      break;
    }
    case K::kBinaryPred:
      elementwise::PredBinaryKernel(step.inst->opcode(), reinterpret_cast<const bool*>(in[0]),
                                    reinterpret_cast<const bool*>(in[1]),
                                    reinterpret_cast<bool*>(out), n);
      break;
    case K::kNotPred:
      if (absl::Status st = elementwise::PredUnary(op, reinterpret_cast<const bool*>(in[0]),
                                                   reinterpret_cast<bool*>(out), n);
          !st.ok()) {
        return st;
      }
      break;
    case K::kSelect:
      elementwise::SelectArrays(ByteWidth(step.type), reinterpret_cast<const bool*>(in[0]), in[1],
                                in[2], out, n);
      break;
    case K::kBinaryInt:
      step.binary_int(in[0], in[1], out, n);
      break;
    case K::kConvertInt:
      step.convert_int(in[0], out, n);
      break;
    case K::kBitcast:
      if (n > 0) std::memmove(out, in[0], n * ByteWidth(step.type));
      break;
    case K::kNone:
      break;
  }
  if (step.flush_result) FlushDenormalsInPlace(step.result_type, out, n);
  return absl::OkStatus();
}

absl::Status RunLiteralStep(const Instruction& inst, bool bitcast, bool flush,
                            absl::Span<const Literal* const> operands, Literal& out,
                            absl::Span<Literal> scratch) {
  const Literal* ops[3] = {};
  const size_t arity = std::min<size_t>(operands.size(), 3);
  flush = flush && !HardwareFlushes(inst);
  const bool flush_operands = flush && !HardwareReadsFlushed(inst);
  for (size_t i = 0; i < arity; ++i) {
    ops[i] = operands[i];
    if (flush_operands && ContainsDenormals(*ops[i])) {
      scratch[i] = *ops[i];
      FlushDenormalsInPlace(scratch[i]);
      ops[i] = &scratch[i];
    }
  }
  absl::Status st = bitcast ? elementwise::EvalBitcastConvert(*ops[0], out)
                            : elementwise::Apply(inst, absl::MakeConstSpan(ops, arity), out);
  if (!st.ok()) {
    return absl::Status(st.code(), StrCat("%", inst.name(), ": ", std::string(st.message())));
  }
  if (flush) FlushDenormalsInPlace(out);
  return absl::OkStatus();
}

}  // namespace hlo
