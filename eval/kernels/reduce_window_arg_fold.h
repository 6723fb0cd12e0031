// The fold of XLA's SelectAndScatterExpander reducer over f32 values, in
// vector registers. Each select-and-scatter of a JAX max-pool gradient
// becomes a reduce-window over (operand, one s32 iota per dimension) whose
// reducer picks one argument tuple whole by
//
//   p = or(and(select_fn(acc_v, x_v), ne(acc_i, -1)), not(ne(x_i, -1)))
//
// (select_fn inlined: a compare; acc_i, x_i the first iota). Run as a
// batched program that is six passes over a block per window position and
// three more to blend; here each 16-lane chunk of an output row keeps the
// value, the tested operand and the winning window position in registers
// across the window (a compare, two integer tests and three blends per
// position), the same bits as evaluating p lane by lane.
#ifndef HLO_EVAL_KERNELS_REDUCE_WINDOW_ARG_FOLD_H_
#define HLO_EVAL_KERNELS_REDUCE_WINDOW_ARG_FOLD_H_

#include <cstdint>
#include <optional>

#include "ir/compare_order.h"
#include "ir/instruction.h"

namespace hlo {
namespace reduction {

// p's parts: select_fn is compare(acc_value, x_value) in `direction`
// (written the other way round, the mirrored direction), and the tests
// are acc_index != acc_sentinel and x_index != x_sentinel.
struct ArgFoldPredicate {
  using Direction = CompareDirection;
  int64_t value = -1;  // the operand select_fn compares (f32)
  int64_t index = -1;  // the operand tested against sentinels (32-bit integer)
  Direction direction = Direction::kGe;
  uint32_t acc_sentinel = 0, x_sentinel = 0;
};

// `p` (the reducer's predicate, over 2m parameters: accumulators 0..m-1,
// inputs m..2m-1) in that form with an IEEE-order f32 compare, or nullopt.
std::optional<ArgFoldPredicate> MatchArgFold(const Instruction& p, int64_t m);

// One part of the fold: rows [first, first + count) of `inner` lanes, each
// row's `positions` window offsets in `offsets` (row after row, -1 for
// padding or a hole: the init values). Writes each lane's folded value and
// index operand, the window position it holds (-1: the init values) and
// each passenger's (a 32-bit operand p does not read) element there.
// `flush`: select_fn reads denormals as zeros (XLA:CPU's DAZ).
struct ArgFoldRows {
  struct Passenger {
    const uint32_t* in;
    uint32_t init;
    uint32_t* out;
  };
  const float* value_in;
  const uint32_t* index_in;
  float value_init;
  uint32_t index_init;
  const int64_t* offsets;
  int64_t positions, inner;
  float* value_out;
  uint32_t* index_out;
  int32_t* winner;
  const Passenger* passengers;
  int64_t passenger_count;
};
void RunArgFold(const ArgFoldPredicate& p, const ArgFoldRows& rows, int64_t first, int64_t count,
                bool flush);

}  // namespace reduction
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_REDUCE_WINDOW_ARG_FOLD_H_
