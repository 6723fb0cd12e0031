// Softmax over the minor dimension as one group (XLA's normalization
// diamond): out = e / broadcast(sum(e)) with e = exp(x - broadcast(max(x))),
// both reductions over the last dimension and both broadcasts along the
// leading ones (through the reshapes JAX puts between), or with any per-row
// values in place of max(x). Unfused that is four passes over the array and two
// intermediates (max, exp, sum, divide); here each row is read from memory
// once: its max, then e into the result row chunk by chunk with the sum
// folded from the chunks while they are in L1, then the division in place
// while the row is still in L2. Bit for bit the unfused result: the
// reductions fold as the reduce kernel does (FoldRow, and RowStream, which
// gives FoldRow's result from pieces), exp is the same kernel, subtract and
// divide are single IEEE operations. Under --denormals=flush the results
// the unfused kernels flush explicitly (the reductions', exp's) are flushed
// at the same points; MXCSR flushes the subtract, the sums and the divide
// alike either way.
#ifndef HLO_EVAL_FUSION_ROW_SOFTMAX_H_
#define HLO_EVAL_FUSION_ROW_SOFTMAX_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/value.h"
#include "ir/instruction.h"

namespace hlo {

struct RowSoftmax {
  PrimitiveType type = PrimitiveType::kF32;  // f32 or f64
  int64_t rows = 0, cols = 0;                // the array viewed as [rows, cols]
  // The subtracted row values are x's row max, computed here; otherwise
  // they are an input (any per-row values, computed apart).
  bool own_max = true;
  // With own_max: the row max then goes through a maximum with a scalar's
  // broadcast, on this side (JAX's maximum(reduce_max(x), -inf)).
  enum class Floor : uint8_t { kNone, kLeft, kRight };
  Floor floor = Floor::kNone;
  // x made row by row from a masked, scaled array s (JAX's attention:
  // where(mask, scores / sqrt(d), -1e9)): x = mask ? s op c : fill, op
  // divide or multiply by a scalar (c on the left: c * s) or none; mask a
  // pred array whose rows repeat every mask_rows rows of x (broadcast over
  // x's leading dims), or x's own shape.
  bool masked = false;
  int64_t mask_rows = 0;
  std::optional<Opcode> scale;
  bool scale_left = false;
  // --denormals=flush: exp's results and the reductions' flushed as the
  // unfused kernels flush them.
  bool flush = false;
  // The root multiplies e by each row's c / sum (XLA's algebraic
  // simplifier: e * broadcast(1 / sum)) instead of dividing by the sum; c
  // a scalar, e on the left unless reciprocal_left.
  bool reciprocal = false;
  bool reciprocal_left = false;
};

// The diamond rooted at `root` (the divide, or the multiply by the
// reciprocals), when it has that form and no member but the root is read
// outside it: `members` get its instructions (post order not implied) and
// `inputs` {x (s where masked), max's init or the row values, sum's init},
// then with a floor that scalar, then where masked the mask, the fill
// scalar and the scale's scalar (where scaled), then the reciprocal's
// numerator; `flush_denormals`: the run flushes as --denormals=flush does.
std::optional<RowSoftmax> MatchRowSoftmax(const Instruction& root, bool flush_denormals,
                                          std::vector<const Instruction*>* members,
                                          std::vector<const Instruction*>* inputs);

// Runs it on its inputs' values; x's buffer becomes the result when
// `reusable[0]` says only this group reads it (each row is read whole
// before its first element is written).
absl::StatusOr<Value> RunRowSoftmax(const RowSoftmax& op, const Shape& shape,
                                    absl::Span<const Value* const> inputs,
                                    const std::vector<bool>& reusable);

}  // namespace hlo

#endif  // HLO_EVAL_FUSION_ROW_SOFTMAX_H_
