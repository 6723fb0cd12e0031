// A fused group of one binary arithmetic op and the broadcast of a
// per-row array along the trailing dims (softmax's divide by its broadcast
// row sums, layer norm's scale, a bias add over leading dims): out[r, c] =
// x[r, c] op s[r] (or s[r] op x[r, c]) as one typed loop over rows, without
// the broadcast's array or the batched interpreter's block copies;
// optionally followed by one float math op (softmax's exp(x - max)).
#ifndef HLO_EVAL_FUSION_ROW_BROADCAST_OP_H_
#define HLO_EVAL_FUSION_ROW_BROADCAST_OP_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/value.h"
#include "ir/instruction.h"

namespace hlo {

struct RowBroadcastOp {
  Opcode op = Opcode::kAdd;
  PrimitiveType type = PrimitiveType::kF32;
  bool row_first = false;       // s[r] op x[r, c]
  size_t x_input = 0;           // the group input read elementwise
  size_t row_input = 0;         // the broadcast's operand
  int64_t rows = 0, inner = 0;  // rows of `inner` elements share one s[r]
  std::optional<Opcode> then;   // a unary float op on the result
};

// The op when the group of `root` and `members` (the root and a broadcast,
// or a unary float op of such a pair) reading `inputs` has this form:
// add/subtract/multiply/divide on f32 or f64, the broadcast's dimensions
// the leading ones of the result.
std::optional<RowBroadcastOp> MatchRowBroadcastOp(const Instruction& root,
                                                  absl::Span<const Instruction* const> members,
                                                  absl::Span<const Instruction* const> inputs,
                                                  bool flush_denormals);

// Runs it on the group's input values; x's buffer becomes the result when
// `reusable` says only this group reads it.
absl::StatusOr<Value> RunRowBroadcastOp(const RowBroadcastOp& op, const Shape& shape,
                                        absl::Span<const Value* const> inputs,
                                        const std::vector<bool>& reusable);

}  // namespace hlo

#endif  // HLO_EVAL_FUSION_ROW_BROADCAST_OP_H_
