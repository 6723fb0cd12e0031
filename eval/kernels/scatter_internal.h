// Shared by the scatter files: the checked dimension numbers (ScatterPlan),
// the in-bounds windows in update order, and the three ways of applying the
// update computation to them:
//   eval/kernels/scatter_rows.cc     a typed loop per window row for the known
//                               combiners (add, multiply, maximum, minimum,
//                               and, or, xor, replace), the copy of the input
//                               done tile by tile together with the windows
//                               that land in the tile, on both cores;
//   eval/kernels/scatter_batched.cc  any other scalar computation through the
//                               batched interpreter, windows in order;
//   eval/kernels/scatter_update.cc   the evaluator once per element (any
//                               computation, --no-fast-paths), and the
//                               dispatch between the three.
// Every path applies windows in row-major order of the batch positions and
// each window in row-major order, so repeated indices combine in update
// order and all three give the same bits.
#ifndef HLO_EVAL_KERNELS_SCATTER_INTERNAL_H_
#define HLO_EVAL_KERNELS_SCATTER_INTERNAL_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "eval/interp/batch_program.h"
#include "eval/kernels/gather_index.h"
#include "eval/kernels/kernels.h"
#include "ir/computation.h"
#include "ir/literal.h"

namespace hlo {
namespace gather_internal {

struct ScatterPlan {
  size_t n = 1;                               // inputs (= updates)
  PrimitiveType type = PrimitiveType::kPred;  // input 0's element type
  IndexBatch batch;
  Dims update_batch_strides;  // per batch dimension: its stride in the updates
  Dims start_limit;           // per index component: input dim - window size
  Dims start_stride;          // per index component: its input dim's stride
  Dims batching_coord;        // per batching pair: the batch coordinate it reads
  Dims batching_stride;       // per batching pair: the input dim's stride
  Axes window_axes;           // dst = input strides, src = update strides
  int64_t input_elements = 0;
  // Every window lies inside one slab: the block of this many elements that
  // its leading input coordinates (those where the window is one element
  // wide) select. 0 when the window is wider than one in input dimension 0.
  int64_t slab = 0;
  bool empty = false;  // no update element at all
};

// Checks the dimension numbers against the operands and the result shape.
absl::Status CheckScatter(const Instruction& inst, Operands ops, ScatterPlan& p);

// The windows that lie wholly inside the input (XLA skips the others whole),
// in row-major order of the batch positions: element offsets of each
// window's first element in the input and in the updates.
struct WindowList {
  std::vector<int64_t> input_base;
  std::vector<int64_t> update_base;
  size_t size() const { return input_base.size(); }
};
WindowList ListWindows(const ScatterPlan& p, const Literal& indices);

// Applies one window of a typed combiner: dst is the result's storage, src
// the updates', both raw.
using WindowFn = void (*)(const ScatterPlan& p, uint8_t* dst, const uint8_t* src,
                          int64_t input_base, int64_t update_base);
// Windows of one element each (a max-pool gradient's scatter of its
// argmaxes): windows order[begin..end) (or begin..end when order is null),
// combined in that order in one loop, no call per window.
using PointsFn = void (*)(uint8_t* dst, const uint8_t* src, const WindowList& windows,
                          const uint32_t* order, int64_t begin, int64_t end);
struct TypedWindows {
  WindowFn window = nullptr;
  PointsFn points = nullptr;  // null: every window through `window`
};
// The typed loop for `update` on elements of p.type: replace (`ROOT p1`) or
// SimpleBinaryReducer's op; window null when there is none (one input only).
TypedWindows TypedCombiner(const ScatterPlan& p, const Computation& update);

// Fills `out` (same shape as the input) with `copy_from`, when not null,
// and applies fn to every window of `windows`, each element's windows in
// list order. Large work is split by slabs over the cores, the copy made
// tile by tile just before the tile's windows.
void ApplyTypedWindows(const ScatterPlan& p, const WindowList& windows, const TypedWindows& fn,
                       const Literal* copy_from, const Literal& updates, Literal& out);

// Whether `program` takes (inputs..., updates...) and returns the inputs'
// element types, as a scatter of p's inputs needs.
bool BatchedCombinerFits(const ScatterPlan& p, const BatchProgram& program, Operands ops);
// Applies the compiled update computation to every window in list order,
// up to BatchProgram::kBlock elements per run (a run ends early where an
// element would repeat, so each update sees the ones before it).
absl::Status ApplyBatchedWindows(const ScatterPlan& p, const WindowList& windows,
                                 BatchProgram& program, Operands ops, std::vector<Value>& outs);

}  // namespace gather_internal
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_SCATTER_INTERNAL_H_
