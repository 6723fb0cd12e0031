// One-element reads computed in place of their kernels. XLA's loops take
// loop-carried arrays apart an element at a time: an unstack's slice to
// [1] and reshape to a scalar, a dynamic-slice at a computed index (LU's
// pivots, a scan's step), a bitcast or copy between [1] and []. Through
// the data-movement kernels each paid shape checks, stride tables and a
// general strided copy for one element; here the plan fixes the element's
// place once (or, for a dynamic-slice, the strides that place it) and a
// step copies its bytes into a recycled array. Results are the kernels'
// (indices clamped as the kernel clamps them), which the fused and
// unfused runs of fusion_agreement hold them to.
#ifndef HLO_EVAL_INTERP_SCALAR_ELEMENT_H_
#define HLO_EVAL_INTERP_SCALAR_ELEMENT_H_

#include <cstdint>
#include <optional>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "eval/value.h"
#include "ir/instruction.h"
#include "ir/shape.h"

namespace hlo {

struct ScalarElementOp {
  PrimitiveType type = PrimitiveType::kPred;  // the operand's and result's elements
  int width = 0;                              // bytes of one
  // The operand's dimensions, as planned (a value of other dimensions goes
  // to the kernel).
  absl::InlinedVector<int64_t, 4> dims;
  int64_t offset = 0;                           // the element read (row-major), where not dynamic
  bool dynamic = false;                         // a dynamic-slice: the place from operands 1..rank
  absl::InlinedVector<int64_t, 4> strides;      // dynamic: row-major strides of dims
  absl::InlinedVector<PrimitiveType, 4> index;  // dynamic: each start index's type
};

// The read `inst` is, where it is a slice, dynamic-slice (scalar start
// indices), reshape, bitcast or copy with one-element result of an array
// of static dimensions and the same element type; nullopt otherwise (it
// runs through its kernel).
std::optional<ScalarElementOp> ScalarElementOf(const Instruction& inst);

// The result (an array of `shape`) of `op` on the operands' values;
// nullopt where a value is not what the plan saw (the kernel then says
// what is wrong).
std::optional<Value> RunScalarElement(const ScalarElementOp& op, const Shape& shape,
                                      absl::Span<const Value* const> ops);

}  // namespace hlo

#endif  // HLO_EVAL_INTERP_SCALAR_ELEMENT_H_
