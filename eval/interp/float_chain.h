// A chain of f32/f64 steps of the batched interpreter, each reading the
// value the one before it made: binary steps (add, subtract, multiply,
// divide, maximum, minimum), a float compare whose only reader is the
// select after it (a ReLU written as select(x > 0, x, 0), a clip), and f32
// vector math (exp, tanh, log, ...: a GELU's tanh, a softplus). A batch
// norm's (x - mean) * rsqrt * gamma + beta then its ReLU, a residual
// stream's adds, the shared eltwise benchmark's select-then-divide. Step by
// step, every value went to an L1 register and back, one store and two
// loads per op and vector, and a compare's pred besides; here the chain's
// value stays in vector registers over a tile of elements, only the other
// operands are loaded, and a value other steps read as well is stored on
// the way (a tap). Each lane does the op the step would (the same IEEE
// operation, MaxOf/MinOf's rules, the compare's IEEE predicate and the
// select's bits; vector math through the step's own loop, on the tile
// stored to L1 and loaded back), so the bits are the steps'.
#ifndef HLO_EVAL_INTERP_FLOAT_CHAIN_H_
#define HLO_EVAL_INTERP_FLOAT_CHAIN_H_

#include <cstdint>

#include "absl/types/span.h"
#include "eval/interp/elementwise_ops.h"
#include "ir/opcode.h"
#include "ir/primitive_type.h"

namespace hlo {

// A float compare's direction, IEEE's partial order (NE holds for NaNs).
enum class ChainCompare : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };

// One link. kBinary: value = op(operands[0], operands[1]), op one of the
// six ops above (those elementwise::BinaryFloatKernelFor resolves).
// kCompareSelect: value = compare(operands[0], operands[1], compare) ?
// operands[2] : operands[3]. kUnary: value = unary(operands[0]), unary
// the loop elementwise::UnaryFloatKernelFor resolved for the step (f32).
// An operand is an array, or null for the value before the link (the
// first link has none of those).
struct FloatChainLink {
  enum class Kind : uint8_t { kBinary, kCompareSelect, kUnary };
  Kind kind = Kind::kBinary;
  Opcode op = Opcode::kAdd;
  ChainCompare compare = ChainCompare::kEq;
  elementwise::UnaryFloatFn unary = nullptr;
  const void* operands[4] = {};
  // Not null: the value after this link is also stored here.
  void* tap = nullptr;
};

// out[i] = the value after the last link, for i < n, in f32 or f64
// (`type`); every array holds n elements. out may be an operand array
// (each position is read before it is written); a tap is an array of its
// own, read by later links only as their operand of that value.
// `stream_out`: out is written with streaming stores where it is 64-byte
// aligned (eval/runtime/stream_store.h; call StreamStoreFence() before
// another thread reads it).
void RunFloatChain(PrimitiveType type, absl::Span<const FloatChainLink> links, void* out, int64_t n,
                   bool stream_out = false);

}  // namespace hlo

#endif  // HLO_EVAL_INTERP_FLOAT_CHAIN_H_
