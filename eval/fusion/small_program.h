// XLA's fusions over small arrays of several shapes as one flat program.
//
// XLA:CPU's optimised text expands rng-bit-generator into its Philox
// rounds and fuses LU's and scans' bookkeeping into fusions whose values
// are arrays of a handful of elements in many shapes: slices, concatenates,
// broadcasts and converts around elementwise chains. Instruction by
// instruction each paid the executor's step (a result Value, shape checks,
// the recycle bin, the frame's bookkeeping), about 150 ns for a few
// elements. Compiled here, each value has a fixed buffer, data movement is
// an index map made once (dynamic slices add a clamped start offset at run
// time), and elementwise ops call the same raw kernels as the batched
// interpreter (raw_step.h) or elementwise::Apply on the buffers, so the
// bits are the general evaluator's.
#ifndef HLO_EVAL_FUSION_SMALL_PROGRAM_H_
#define HLO_EVAL_FUSION_SMALL_PROGRAM_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/interp/raw_step.h"
#include "eval/kernels/dot.h"
#include "eval/value.h"
#include "ir/computation.h"
#include "ir/literal.h"

namespace hlo {

namespace reduction {
struct RawReduce;
}  // namespace reduction

class SmallProgram {
 public:
  // No value the program makes is larger, and its buffers together stay
  // within kMaxProgramBytes (parameters are read where they lie).
  static constexpr int64_t kMaxValueBytes = 16 << 10;
  static constexpr int64_t kMaxProgramBytes = 128 << 10;

  // Compiles `computation` when every value is a static array and every
  // instruction is a parameter (an array, or a tuple of arrays read through
  // get-tuple-element), constant, iota, elementwise op on arrays of the
  // result's dimensions, broadcast, reshape, row-major bitcast, copy, slice,
  // transpose, reverse, concatenate, pad, dynamic-slice or
  // dynamic-update-slice (scalar start indices), a one-window scatter that
  // replaces, a call or fusion (inlined), or a pure op of one array result
  // that the evaluator's kernel runs (dot, reduce, gather, sort, clamp or
  // select of scalar operands, ...: KernelRunner; a plain reduce, and a dot
  // that is one gemm call, run the kernel's loop or call on the program's
  // buffers instead), and the root an array or a tuple of them. Otherwise an error naming the
  // instruction (the caller runs the computation through the evaluator). `flush_denormals` as in
  // BatchProgram.
  static absl::StatusOr<std::unique_ptr<SmallProgram>> Compile(const Computation& computation,
                                                               bool flush_denormals);

  // The inputs: each array parameter, and each element of a tuple
  // parameter (of static arrays: a loop's state), in order.
  int64_t input_count() const { return static_cast<int64_t>(input_slots_.size()); }
  PrimitiveType input_type(int64_t i) const { return input_types_[i]; }
  int64_t input_elements(int64_t i) const { return input_elements_[i]; }
  // The input that result r is, unchanged (a loop's state passed through),
  // or -1.
  int64_t result_input(int64_t r) const {
    const int32_t s = result_slots_[r];
    return slots_[s].parameter;
  }
  // The results: the root, or the root tuple's elements, in order.
  int64_t result_count() const { return static_cast<int64_t>(result_slots_.size()); }
  // The input that result r is with some of its elements replaced (a
  // dynamic-update-slice or one-window scatter of it, which nothing else
  // in the program reads), or -1. Run may be given such a result's output
  // at its input: it then writes only the replaced elements (a loop's
  // stacked outputs, x.at[i].set(v) per trip, no longer copied whole).
  int64_t result_updates_input(int64_t r) const { return result_updates_[r]; }

  // The evaluator's kernel for one instruction (what it runs for an
  // instruction of its own: the same bits), for the ops the program hands
  // over whole: dot, reduce, gather, sort, convolution, ...
  using KernelRunner =
      absl::FunctionRef<absl::StatusOr<Value>(const Instruction&, absl::Span<const Value* const>)>;
  // Whether the program hands ops to a KernelRunner.
  bool calls_kernels() const { return !kernel_calls_.empty(); }
  // The steps it runs per run (constants made at compile time aside).
  int64_t step_count() const;

  // Runs the program: inputs[i] holds input i's elements (row-major,
  // input_elements(i) of input_type(i)); outputs[r] receives result r's.
  // Outputs must not alias inputs, but for result_updates_input's pairs,
  // which may be one buffer. `input_values`, when given, holds the
  // arrays the inputs lie in: a kernel op reading a loop state's element
  // whole gets its Value instead of a copy (such elements may be larger
  // than kMaxValueBytes: a loop's matrix). Not reentrant.
  absl::Status Run(absl::Span<const void* const> inputs, absl::Span<void* const> outputs,
                   std::optional<KernelRunner> kernels = std::nullopt,
                   absl::Span<const Value* const> input_values = {});

  ~SmallProgram();

 private:
  struct Step;
  struct Dynamic;
  class Compiler;
  SmallProgram();

  // The row-major element offset that `d`'s start indices give (each
  // clamped as the kernels clamp them).
  int64_t DynamicBase(const Dynamic& d) const;
  absl::Status RunStep(const Step& step, const std::optional<KernelRunner>& kernels);
  absl::Status RunKernel(const Step& step, const KernelRunner& kernels);
  absl::Status RunApply(const Step& step);

  struct Slot {
    PrimitiveType type = PrimitiveType::kPred;
    int64_t elements = 0;
    int32_t width = 0;
    int32_t parameter = -1;  // the input it is
  };
  std::vector<Slot> slots_;
  // Per slot: its buffer (a parameter's only when an Apply step reads it,
  // copied in per run), what data_ points to between runs.
  std::vector<Literal> registers_;
  std::vector<uint8_t*> home_;
  // Per slot, during a run: where its elements are (a parameter's input, a
  // result written in place: its output).
  std::vector<uint8_t*> data_;
  std::vector<int32_t> input_slots_;  // -1: never read
  std::vector<PrimitiveType> input_types_;
  std::vector<int64_t> input_elements_;
  std::vector<bool> input_copied_;
  std::vector<int32_t> result_slots_;
  std::vector<bool> result_in_place_;
  std::vector<int64_t> result_updates_;
  std::vector<Step> steps_;
  std::vector<std::vector<int32_t>> maps_;
  std::vector<Dynamic> dynamics_;
  // A kernel step's operands: their slots, and arrays of the operands'
  // shapes they are copied into (held here too, so no kernel writes them).
  struct KernelCall {
    std::vector<int32_t> slots;
    // Per operand: the input it is whole (passed as the caller's Value), or
    // -1; such operands' arrays are made only when the caller gives none.
    std::vector<int32_t> inputs;
    std::vector<std::shared_ptr<Literal>> operands;
    std::vector<Value> values;
    std::vector<const Value*> pointers;
  };
  std::vector<KernelCall> kernel_calls_;
  // Reduces run on the slots' buffers (reduce_internal.h's RawReduce).
  std::vector<reduction::RawReduce> reduces_;
  // Dots' gemm calls on the slots' buffers (eval/kernels/dot.h).
  std::vector<PlannedGemm> gemms_;
  absl::Span<const Value* const> input_values_;  // during a run
  Literal flush_scratch_[3];
};

}  // namespace hlo

#endif  // HLO_EVAL_FUSION_SMALL_PROGRAM_H_
