// A computation prepared for the executor (Evaluator::Call), once per
// computation: its post order, where each instruction's operands live, how
// many reads each value has, each result's bytes, what the executor does at
// each instruction, and frames of slots kept for the next call, so that a
// call of a computation that has run before allocates nothing of its own.
#ifndef HLO_EVAL_COMPUTATION_PLAN_H_
#define HLO_EVAL_COMPUTATION_PLAN_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/types/span.h"
#include "eval/fusion/fusion_plan.h"
#include "eval/fusion/reduce_siblings.h"
#include "eval/fusion/transpose_folding.h"
#include "eval/interp/scalar_element.h"
#include "eval/interp/scalar_int.h"
#include "eval/value.h"
#include "ir/computation.h"

namespace hlo {

// What the executor does at an instruction.
enum class PlanStep : uint8_t {
  kEvaluate,         // its kernel, through Evaluator::Evaluate
  kParameter,        // nothing: readers see the caller's argument
  kFusedAway,        // nothing: computed inside its group's loop
  kGroup,            // its fused elementwise group (FusedGroup)
  kGroupOutput,      // nothing here: its group's root step writes its slot (FusedGroup::outputs)
  kConstant,         // the constant's value, made once and shared
  kGetTupleElement,  // the element, moved out of the tuple where allowed
  kTuple,            // the operands, moved in where they die here
  kCall,             // call / fusion: operands that die here handed over
  kSiblingReduce,    // a reduce of a sibling group (eval/fusion/reduce_siblings.h): the
                     // first runs them all, the others find their result in their slot
  kFoldedDot,        // a dot reading its transposes' operands (eval/fusion/transpose_folding.h)
  kGroupReduce,      // a reduce folding its operand's group as it runs (eval/fusion/group_reduce.h)
  kScalarInt,        // an integer or pred scalar op computed in place (eval/interp/scalar_int.h)
  kWrapped,          // a call / fusion of one instruction on its parameters in order (XLA's
                     // wrapped_* fusions): that instruction's kernel on the call's operands
  kScalarElement,    // a one-element read copied in place (eval/interp/scalar_element.h)
};

// The per-call state of one running call of a computation. A computation
// can be running more than once (recursion through nested calls), so each
// call takes its own frame from its plan and gives it back empty.
struct Frame {
  std::vector<Value> slots;          // each instruction's value until its last read
  std::vector<int32_t> remaining;    // reads still to come
  std::vector<const Value*> ops;     // the operands of the instruction running
  std::vector<const Value*> params;  // where each parameter's value is read
  std::vector<Value> args;           // arguments handed to a called computation
  std::vector<bool> reusable;        // fused inputs that die at their group
};

struct ComputationPlan {
  const Computation* computation = nullptr;
  std::vector<const Instruction*> order;
  std::vector<PlanStep> steps;
  std::vector<int32_t> operand_begin;  // operands of i: operand_slots[begin[i], begin[i+1])
  std::vector<int32_t> operand_slots;
  std::vector<int32_t> uses;         // reads of each value (the root's result one more)
  std::vector<int64_t> bytes;        // ShapeBytes of each result (-1 past 2^63)
  std::vector<int32_t> parameter;    // the parameter number, -1 for others
  std::vector<int32_t> tuple_index;  // kGetTupleElement: the element's index
  // kGetTupleElement: its tuple's readers are all get-tuple-elements of
  // distinct indices, so it may move its element out even before the
  // tuple's last read.
  std::vector<bool> takes_element;
  // kCall: the called computation, and its plan once called.
  std::vector<const Computation*> callee;
  std::vector<ComputationPlan*> callee_plan;
  // kConstant: the value made at the first run (constant_made).
  std::vector<Value> constants;
  std::vector<bool> constant_made;
  // Elementwise groups run as one loop (eval/fusion/fusion_plan.h): at a group's
  // root slot its group (whose inputs are that slot's operands); at a
  // kGroupReduce's slot the group its reduce folds (its inputs, then the
  // reduce's init value).
  std::vector<std::unique_ptr<FusedGroup>> groups;
  std::vector<FusedGroup*> group_at;
  // Reduces of one operand run in one pass: at each member's slot its
  // group.
  std::vector<std::unique_ptr<SiblingReduces>> sibling_groups;
  std::vector<SiblingReduces*> sibling_at;
  // Dots with transposes folded in: at the dot's slot its folding (whose
  // reads are that slot's operands); the transposes are kFusedAway.
  std::vector<std::unique_ptr<FoldedDot>> folded_dots;
  std::vector<const FoldedDot*> folded_at;
  // kScalarInt: the operation, decided once; kWrapped: the same for the
  // called instruction where it is one (wrapped_scalar).
  std::vector<ScalarIntOp> scalar_ops;
  // kWrapped: the one instruction the call runs.
  std::vector<const Instruction*> wrapped;
  std::vector<bool> wrapped_scalar;
  // kScalarElement, and kWrapped of such a read: its index in
  // element_ops (-1: none).
  std::vector<int32_t> element_at;
  std::vector<ScalarElementOp> element_ops;
  int32_t root = -1;
  int32_t parameter_count = 0;
  bool profiled = false;  // Profiler::Covers: its instructions are timed
  std::vector<std::unique_ptr<Frame>> free_frames;

  absl::Span<const int32_t> operands(size_t i) const {
    return absl::MakeConstSpan(operand_slots.data() + operand_begin[i],
                               operand_slots.data() + operand_begin[i + 1]);
  }
  // A frame sized for this computation, empty.
  std::unique_ptr<Frame> TakeFrame();
  // Returns a frame whose slots are all empty.
  void GiveBack(std::unique_ptr<Frame> frame) { free_frames.push_back(std::move(frame)); }
};

// Plans `computation`. With `fast_paths` off every instruction but
// parameters goes through its kernel (the reference path); with `fusion`
// off no fused groups or sibling reductions are planned (transposes still
// fold into dots, a strided read, unless `fold_transposes` is false).
std::unique_ptr<ComputationPlan> MakePlan(const Computation& computation, bool fast_paths,
                                          bool fusion, bool flush_denormals,
                                          bool fold_transposes = true);

}  // namespace hlo

#endif  // HLO_EVAL_COMPUTATION_PLAN_H_
