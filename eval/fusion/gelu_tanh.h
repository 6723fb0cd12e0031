// GELU's tanh form as JAX writes it (jax.nn.gelu(approximate=True)):
//   out = h * ((tanh((h + ((h * h) * h) * c1) * c2) + c3) * c4)
// with h an array, or an array plus a [cols] bias broadcast along the rows
// (a dense layer's bias), and c1 ... c4 scalars' broadcasts (0.044715,
// sqrt(2 / pi), 1, 0.5). As a chain of the batched interpreter its nine
// ops cost a dispatch each per tile, as much as their arithmetic and
// tanh's together (GPT-2 small's [256,3072]: 0.40 ms); here three plain
// loops over a piece of a row in L1: the polynomial, f32 tanh's loop, the
// product. Bit for bit the unfused result: every op the same IEEE
// operation (add and multiply commute exactly, so either operand order
// matches), tanh the same kernel, which flushes its own results under
// --denormals=flush as MXCSR flushes the arithmetic's.
#ifndef HLO_EVAL_FUSION_GELU_TANH_H_
#define HLO_EVAL_FUSION_GELU_TANH_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/value.h"
#include "ir/instruction.h"

namespace hlo {

struct GeluTanh {
  int64_t rows = 0, cols = 0;  // the f32 array viewed as [rows, cols]
  bool bias = false;           // h = x + bias[col]
};

// The form rooted at `root`, its intermediates read only inside it: its
// `members` and `inputs` {x, bias (where h has one), c1, c2, c3, c4}.
std::optional<GeluTanh> MatchGeluTanh(const Instruction& root,
                                      std::vector<const Instruction*>* members,
                                      std::vector<const Instruction*>* inputs);

// Runs it on its inputs' values; x's buffer becomes the result when
// `reusable[0]` says only this group reads it.
absl::StatusOr<Value> RunGeluTanh(const GeluTanh& op, const Shape& shape,
                                  absl::Span<const Value* const> inputs,
                                  const std::vector<bool>& reusable);

}  // namespace hlo

#endif  // HLO_EVAL_FUSION_GELU_TANH_H_
