// Elementwise steps on raw arrays: the kernels elementwise::Apply reaches
// for f32/f64 math, float compare, select, integer arithmetic, converts
// between integers and whole-byte bitcasts, called on contiguous buffers
// without Literals. The batched interpreter (batch_program.h) and the small
// fused programs (eval/fusion/small_program.h) run their steps through these, so their
// bits are Apply's.
#ifndef HLO_EVAL_INTERP_RAW_STEP_H_
#define HLO_EVAL_INTERP_RAW_STEP_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "eval/interp/elementwise_ops.h"
#include "ir/instruction.h"
#include "ir/literal.h"
#include "ir/primitive_type.h"

namespace hlo {

struct RawStep {
  enum class Kind : uint8_t {
    kNone,  // runs through elementwise::Apply on Literals
    kUnaryFloat,
    kBinaryFloat,
    kCompareFloat,
    kCompareInt,  // pred or integer operands
    kBinaryPred,
    kNotPred,
    kSelect,
    kBinaryInt,
    kConvertInt,
    kBitcast,  // of whole bytes: the same bytes
  };
  Kind kind = Kind::kNone;
  const Instruction* inst = nullptr;
  PrimitiveType type = PrimitiveType::kPred;  // the operands' (select: the result's)
  PrimitiveType result_type = PrimitiveType::kPred;
  // kBinaryInt, kConvertInt: the loop itself, resolved once.
  void (*binary_int)(const void*, const void*, void*, int64_t) = nullptr;
  void (*convert_int)(const void*, void*, int64_t) = nullptr;
  // kBinaryFloat: the loop, resolved once where the op has one (add ...
  // minimum), else null (BinaryFloatKernel's dispatch per run).
  void (*binary_float)(const void*, const void*, void*, int64_t) = nullptr;
  // kCompareFloat, kCompareInt: the direction and order, resolved once
  // (the attributes' lookups cost more than a loop condition's compare).
  std::optional<elementwise::CompareMode> compare;
  // The result's denormals are flushed after the kernel (the hardware reads
  // the operands flushed: HardwareReadsFlushed).
  bool flush_result = false;

  // The resolved loop RunRawStep would call with nothing after it (no
  // flush of the result), for a caller to call itself without the
  // dispatch and the Status (these loops cannot fail); else null. Binary:
  // an integer op, or a float op that has a loop; unary: an integer
  // convert.
  auto direct_binary() const {
    return flush_result ? nullptr : binary_int ? binary_int : binary_float;
  }
  auto direct_unary() const { return flush_result ? nullptr : convert_int; }
};

// How `inst` runs on raw arrays with operands of `operand_types` and a
// result of `result_type`, or a step of kind kNone. `bitcast`: the step is
// a bitcast-convert between types of one width. `flush`: XLA:CPU's
// flush-to-zero applies to the op; a step that flushes its operands in
// software is never raw.
RawStep RawStepOf(const Instruction& inst, bool bitcast, bool flush,
                  absl::Span<const PrimitiveType> operand_types, PrimitiveType result_type);

// out[i] = step(in[0][i], ...) for i < n (step.kind not kNone). Fails only
// where the kernel does (a compare's direction), the message naming the
// instruction.
absl::Status RunRawStep(const RawStep& step, const uint8_t* const* in, uint8_t* out, int64_t n);

// The same op where it is not raw: elementwise::Apply on Literals of the
// elements (`bitcast`: EvalBitcastConvert), operands with denormals copied
// into `scratch` (one per operand) and flushed, and the result flushed,
// where `flush` applies and the hardware does not flush for the op.
absl::Status RunLiteralStep(const Instruction& inst, bool bitcast, bool flush,
                            absl::Span<const Literal* const> operands, Literal& out,
                            absl::Span<Literal> scratch);

}  // namespace hlo

#endif  // HLO_EVAL_INTERP_RAW_STEP_H_
