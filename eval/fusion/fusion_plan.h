// Elementwise fusion in the executor: chains of elementwise instructions
// over arrays of one shape (with broadcast scalars and scalar constants)
// run as one batched-interpreter loop over blocks that stay in L1, so the
// intermediates are never materialised (XLA's loop fusion, decided here at
// run time on any module, optimised or not).
#ifndef HLO_EVAL_FUSION_FUSION_PLAN_H_
#define HLO_EVAL_FUSION_FUSION_PLAN_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/fusion/gelu_tanh.h"
#include "eval/fusion/group_reduce.h"
#include "eval/fusion/row_broadcast_op.h"
#include "eval/fusion/row_program.h"
#include "eval/fusion/row_softmax.h"
#include "eval/interp/batch_program.h"
#include "eval/value.h"
#include "ir/instruction.h"
#include "ir/module.h"

namespace hlo {

// One group: `root` and the members that only it (through other members)
// uses; `inputs` are the values the group reads, in the program's
// parameter order.
struct FusedGroup {
  const Instruction* root = nullptr;
  std::vector<const Instruction*> members;  // post order, root last
  // Members besides the root that instructions after the root read (small
  // groups only: MultiOutputRegion), in post order; the loop writes them
  // too, and output_slots are their slots in the plan that runs the group.
  std::vector<const Instruction*> outputs;
  std::vector<int32_t> output_slots;
  std::vector<const Instruction*> inputs;
  std::unique_ptr<BatchProgram> program;
  // Copies for the other cores' parts of large groups.
  std::vector<std::unique_ptr<BatchProgram>> clones;
  // A group of one op and a broadcast runs as this loop instead.
  std::optional<RowBroadcastOp> row_op;
  // A softmax diamond (members: its seven instructions) runs as this.
  std::optional<RowSoftmax> softmax;
  // A normalization over the minor dimension (layer norm: reductions and
  // the arithmetic around them) runs as this, a few rows at a time.
  std::shared_ptr<const RowProgram> row_program;
  // GELU's tanh form (members: its ops and scalars' broadcasts, and h's
  // bias add) runs as this.
  std::optional<GeluTanh> gelu;
  // XLA's loop fusions (eval/fusion/loop_fusion.h): groups run before the
  // program on the fusion's operands, precomputed[k] on operands
  // precomputed_args[k]; the program reads their values (its parameters
  // past the fusion's operands).
  std::vector<std::unique_ptr<FusedGroup>> precomputed;
  std::vector<std::vector<int64_t>> precomputed_args;
  // The reduce that folds the root as the loop makes it (eval/fusion/
  // group_reduce.h); the plan then runs the group at the reduce's step.
  std::optional<GroupReduce> reduce;
};

// The groups of a computation given its post order: softmax diamonds
// (eval/fusion/row_softmax.h) first, then row programs (eval/fusion/
// row_program.h) and GELUs (eval/fusion/gelu_tanh.h); then every group has at least two
// elementwise steps, or is one op reading a broadcast per row
// (RowBroadcastOp, so that the broadcast is never materialised), and arrays
// of at least `min_elements` elements; each instruction is in at most one
// group, duplicable members (IsDuplicableMember) aside. Any array but a scalar by default: the
// per-instruction cost of small arrays (JAX's random bits over a few hundred words, in XLA's fusion
// computations and in unoptimised modules alike) is most of their time, and
// one batched loop over a group pays it once.
// A scalar constant, a broadcast of a scalar or an iota is computed inside
// every group that reads it (it costs a register per block): one zeros
// array shared by three relus is never made, nor a one-hot's iota.
bool IsDuplicableMember(const Instruction& inst);
inline constexpr int64_t kMinFusedElements = 2;
// Roots of at most this many elements may have groups with several outputs:
// there a step's own cost is most of an op's time, and the later start of
// the members (at the root's step) holds only small inputs longer.
inline constexpr int64_t kMultiOutputElements = int64_t{1} << 14;
std::vector<std::unique_ptr<FusedGroup>> FindFusedGroups(absl::Span<const Instruction* const> order,
                                                         bool flush_denormals,
                                                         int64_t min_elements = kMinFusedElements);

// Whether `computation` (an XLA fusion's) holds the form of a pattern
// kernel that the executor's own groups run faster than a batched loop of
// the fusion's ops (GELU's tanh form: eval/fusion/gelu_tanh.h). hlo-run
// defuses such fusions so that its groups find the form.
bool HoldsPatternKernel(const Computation& computation);

// The names of the members of every row softmax (eval/fusion/row_softmax.h)
// and row program (eval/fusion/row_program.h: layer norms) that the
// executor's groups form in the non-fusion computations of `defused`, a
// copy of a module with its fusions defused under their own names: XLA
// splits a softmax over four or five fusions and a layer norm over five
// (sum, centring, sum of squares, rsqrt, scaling), and hlo-run defuses
// those that hold a member so that its group runs the whole in one pass
// over each row.
std::vector<std::string> RowPatternMemberNames(const Module& defused, bool flush_denormals);

// The data of a group's inputs (inputs[i] for group.inputs[i]) for its
// program, or an error when one is not an array of the parameter's type.
absl::StatusOr<std::vector<const void*>> GroupInputData(const BatchProgram& program,
                                                        absl::Span<const Value* const> inputs);
// Makes group.clones hold at least `copies` - 1 copies of its program (one
// per part that runs at once).
void EnsureProgramCopies(FusedGroup& group, int64_t copies);

// Runs a group on its inputs' values (inputs[i] for group.inputs[i]) and
// returns the root's value; `outputs` receives group.outputs' values (it
// must be given when there are any). An input array that only this group
// reads (`reusable`) may become the root's value.
absl::StatusOr<Value> RunFusedGroup(FusedGroup& group, absl::Span<const Value* const> inputs,
                                    const std::vector<bool>& reusable,
                                    absl::InlinedVector<Value, 4>* outputs = nullptr);

}  // namespace hlo

#endif  // HLO_EVAL_FUSION_FUSION_PLAN_H_
