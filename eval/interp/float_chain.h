// A chain of binary f32/f64 steps of the batched interpreter (add,
// subtract, multiply, divide, maximum, minimum), each reading the one
// before it and nothing else reading the values between: a batch norm's
// (x - mean) * rsqrt * gamma + beta then a ReLU's maximum, a residual
// stream's adds. Step by step, every value between went to an L1 register
// and back, one store and two loads per op and vector; here the chain's
// value stays in vector registers over a tile of elements and only the
// other operands are loaded. Each lane does the op the step would (the
// same IEEE operation, MaxOf/MinOf's rules), so the bits are the steps'.
#ifndef HLO_EVAL_INTERP_FLOAT_CHAIN_H_
#define HLO_EVAL_INTERP_FLOAT_CHAIN_H_

#include <cstdint>

#include "absl/types/span.h"
#include "ir/opcode.h"
#include "ir/primitive_type.h"

namespace hlo {

// One step of a chain: value = op(value, other), or op(other, value) when
// `value_on_right`; op is one of the six ops above (those
// elementwise::BinaryFloatKernelFor resolves).
struct FloatChainLink {
  Opcode op = Opcode::kAdd;
  bool value_on_right = false;
  const void* other = nullptr;
};

// out[i] = the links applied in order to first[i], for i < n, in f32 or
// f64 (`type`). out may be first or any link's `other` (each position is
// read before it is written).
void RunFloatChain(PrimitiveType type, const void* first, absl::Span<const FloatChainLink> links,
                   void* out, int64_t n);

}  // namespace hlo

#endif  // HLO_EVAL_INTERP_FLOAT_CHAIN_H_
