// The batched interpreter: a scalar computation (a reducer, comparator,
// scatter combiner, map function, select) compiled once into a flat program
// of elementwise steps, then run over blocks of element positions at a time.
//
// Each step is one of the elementwise families' kernels applied to a block
// (eval/interp/elementwise_ops.h), so results are bit-identical to the
// general evaluator's on the same computation; the per-step dispatch is paid
// once per block of kBlock positions instead of once per element, and no
// Value or Literal is created per element.
#ifndef HLO_EVAL_INTERP_BATCH_PROGRAM_H_
#define HLO_EVAL_INTERP_BATCH_PROGRAM_H_

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/interp/float_chain.h"
#include "ir/computation.h"
#include "ir/literal.h"

namespace hlo {

class BatchProgram {
 public:
  // Positions run per block (registers are this many elements long).
  static constexpr int64_t kBlock = 1024;
  // Positions per block of the array-mode programs (fused loops): a dozen
  // f32 registers of this many stay in L1, and the steps that stream an
  // input from memory come round often enough that the hardware prefetcher
  // keeps its streams going (eltwise: 8,192 positions 11.5 ms, 512 about
  // 10 ms); the dispatch per step and block is still small next to it.
  static constexpr int64_t kArrayBlock = 512;

  // Compiles `computation` when every parameter is a rank-0 array, every
  // instruction is a rank-0 elementwise op (compare, select, clamp, convert,
  // bitcast-convert, constants, …) or a call of such a computation, and the
  // root is a rank-0 array or a tuple of them. Otherwise an error saying
  // which instruction is not supported (callers then fall back to the
  // general evaluator). `flush_denormals`: XLA:CPU's flush-to-zero, per op
  // as EvalElementwiseFlushingDenormals applies it (eval/denormals.h).
  static absl::StatusOr<std::unique_ptr<BatchProgram>> Compile(const Computation& computation,
                                                               bool flush_denormals = false);

  // An elementwise fusion over arrays (XLA's kLoop fusions, and groups the
  // executor fuses): every instruction of `computation` is elementwise over
  // arrays of the root's dimensions, a broadcast of a scalar, an iota, or a
  // scalar constant; each parameter is an array of the root's dimensions (read
  // element by element) or a scalar (the same value at every position, see
  // parameter_is_scalar), or an array read only through one-element slices
  // (each slice a scalar parameter of its own: parameter_source names the
  // computation's parameter, parameter_offset the element), or an array
  // read only through one broadcast after row-major bitcasts (a broadcast
  // parameter, read whole). Run then evaluates n = the root's element count
  // positions.
  //
  // `precomputed`: values of the computation that the caller computes
  // before each run (a smaller array read only through one broadcast, after
  // row-major bitcasts: XLA's batch- and layer-norm statistics), each made
  // of the instructions `made_of` (left out of the program). Parameter
  // parameter_count() + k of the computation's numbering
  // (parameter_source) reads precomputed[k]'s value, as a broadcast
  // parameter.
  struct Precomputed {
    const Instruction* value = nullptr;
    std::vector<const Instruction*> made_of;
  };
  static absl::StatusOr<std::unique_ptr<BatchProgram>> CompileElementwise(
      const Computation& computation, bool flush_denormals = false,
      absl::Span<const Precomputed> precomputed = {});
  // The same for instructions of a computation: `root` and the operands it
  // reaches through `members`; every other operand becomes a parameter, in
  // the order written to `inputs`. Result 0 is the root, results 1.. the
  // members `outputs` (each one array of the root's dimensions).
  static absl::StatusOr<std::unique_ptr<BatchProgram>> CompileGroup(
      const Instruction& root, const std::vector<const Instruction*>& members, bool flush_denormals,
      std::vector<const Instruction*>* inputs, absl::Span<const Instruction* const> outputs = {});

  // Whether parameter i is read as one value for every position.
  bool parameter_is_scalar(int64_t i) const { return parameter_scalar_[i]; }
  // The computation parameter (Compile, CompileElementwise) or group input
  // (CompileGroup) that parameter i reads, and for a scalar the element of
  // it (Run reads inputs[i] at that element).
  int64_t parameter_source(int64_t i) const { return parameter_sources_[i]; }
  int64_t parameter_offset(int64_t i) const { return parameter_offsets_[i]; }
  // Whether parameter i is an array of another shape broadcast to the
  // positions (a group member `broadcast(x), dimensions=...`: x is read).
  bool parameter_is_broadcast(int64_t i) const { return !broadcasts_[i].result_dims.empty(); }
  // Steps the program runs per position (the fused instructions), and how
  // many of them run inside float chains (eval/interp/float_chain.h).
  int64_t step_count() const;
  int64_t chained_step_count() const;
  // A copy with its own registers, for another thread.
  std::unique_ptr<BatchProgram> Clone() const;

  int64_t parameter_count() const { return static_cast<int64_t>(parameter_types_.size()); }
  int64_t result_count() const { return static_cast<int64_t>(result_types_.size()); }
  PrimitiveType parameter_type(int64_t i) const { return parameter_types_[i]; }
  PrimitiveType result_type(int64_t i) const { return result_types_[i]; }

  // Evaluates the computation at n independent positions. inputs[p] holds n
  // elements of parameter p in Literal storage (ByteWidth of its type each,
  // contiguous); outputs[r] receives n elements of result r (the root, or
  // root tuple element r). Inputs and outputs may alias (an output may be
  // the same buffer as an input). Not reentrant: one program per thread.
  //
  // Array mode: inputs and outputs point at position 0 and the positions
  // [first, first + n) of the root's row-major order are evaluated (parts
  // of one loop on several cores, each with its own program copy).
  // `stream_outputs`: write the outputs with streaming stores
  // (eval/runtime/stream_store.h), for loops whose outputs together are
  // much larger than the caches.
  absl::Status Run(absl::Span<const void* const> inputs, absl::Span<void* const> outputs, int64_t n,
                   int64_t first = 0, bool stream_outputs = false) {
    return RunFrom(inputs, outputs, n, first, 0, stream_outputs, /*same_inputs=*/false);
  }
  // Array mode, the outputs pointing at position `first` instead: a piece
  // of the loop into a small buffer (a reduction that takes the values as
  // they are made, eval/fusion/group_reduce.h).
  // `same_inputs`: the inputs hold what they held at this program's last
  // run (the next piece of one loop), so registers filled from them then
  // may be kept.
  absl::Status RunInto(absl::Span<const void* const> inputs, absl::Span<void* const> outputs,
                       int64_t n, int64_t first, bool same_inputs = false) {
    return RunFrom(inputs, outputs, n, first, first, /*stream_outputs=*/false, same_inputs);
  }

  ~BatchProgram();

 private:
  struct Step;
  class Compiler;
  BatchProgram();
  // Run, with outputs[r] pointing at position `output_origin`.
  absl::Status RunFrom(absl::Span<const void* const> inputs, absl::Span<void* const> outputs,
                       int64_t n, int64_t first, int64_t output_origin, bool stream_outputs,
                       bool same_inputs);
  // Which results go straight into their outputs (write_in_place[r]),
  // and which chains stream theirs.
  void ChooseInPlaceWrites(absl::Span<const void* const> inputs, absl::Span<void* const> outputs,
                           bool stream_outputs, absl::Span<bool> write_in_place);
  // The parameters' registers for the `count` positions at `offset`
  // (scalars filled only where fill_scalars: a run's first block, or after
  // a resize).
  void LoadBlockInputs(absl::Span<const void* const> inputs, int64_t offset, int64_t count,
                       bool fill_scalars);
  // Asks the caches for the streamed inputs of the block at `offset`.
  void PrefetchNextBlock(absl::Span<const void* const> inputs, int64_t offset,
                         int64_t remaining) const;
  // Makes every register `length` elements long (constants refilled).
  absl::Status Resize(int64_t length);
  // Runs the steps over the first `count` positions of the registers.
  absl::Status RunSteps(int64_t count);
  // Marks the steps that run on raw arrays (f32/f64 math, float compare,
  // select, integer arithmetic, converts between integers, whole-byte
  // bitcasts) and, from that, the parameters read where they lie and the
  // results written straight into the outputs (see Run); then PlanChains.
  void PlanInPlace();
  // Finds the runs of float steps that RunSteps hands over whole to
  // RunFloatChain (eval/interp/float_chain.h): each link reads the value
  // of the one before.
  void PlanChains();
  // The link that step s starts (a binary float step, or a float compare
  // and the select that alone reads it, `reads` counting each register's
  // readers), in `link`, with its steps (1 or 2), operand registers and
  // result register; false when there is none.
  struct LinkPlan;
  bool LinkAt(size_t s, absl::Span<const int32_t> reads, LinkPlan& link) const;

  // A parameter read through a broadcast: position coordinates c (over
  // result_dims) read operand element sum_d c[d] * strides[d] (stride 0
  // along broadcast dimensions).
  struct Broadcast {
    std::vector<int64_t> result_dims;  // empty: not a broadcast parameter
    std::vector<int64_t> strides;
    // Where the last fill stopped (blocks come in order within a part):
    // the position, its coordinates and operand element; the next fill
    // from there continues without divisions.
    int64_t next = -1;
    std::vector<int64_t> coord;
    int64_t index = 0;
    // The positions repeat every `period` (the product of the dimensions
    // from the first one the operand varies along): a block-long register
    // of a broadcast whose period divides the block holds the same values
    // for every block of a run, and is filled once per run.
    int64_t period = 0;
    // The run's first fill (its block phase and length), or -1.
    int64_t filled_phase = -1;
    int64_t filled_count = 0;
  };
  // Sets b.period from its dimensions and strides.
  static void SetPeriod(Broadcast& b);
  // Whether positions [first, first + count) of b are in its register
  // already (a periodic broadcast filled earlier in this run at the same
  // phase); NoteFill records a fill of them; ForgetFills drops every
  // record (other inputs, resized registers).
  bool FilledAlready(const Broadcast& b, int64_t first, int64_t count) const;
  void NoteFill(Broadcast& b, int64_t first, int64_t count);
  void ForgetFills();
  static absl::StatusOr<Broadcast> BroadcastOf(const Instruction& broadcast);
  // Puts b's place at position `first`; moves it `run` positions on
  // (within or to the end of the current minor run).
  static void SeekBroadcast(Broadcast& b, int64_t first);
  static void StepBroadcast(Broadcast& b, int64_t run);
  // Positions [first, first + count) of b read from `src` into `reg`.
  static void FillBroadcast(Broadcast& b, const uint8_t* src, int64_t width, int64_t first,
                            int64_t count, uint8_t* reg);
  // Where those positions lie in `src` when they are one contiguous run of
  // it (then b moves on), else null.
  static const uint8_t* BroadcastInPlace(Broadcast& b, const uint8_t* src, int64_t width,
                                         int64_t first, int64_t count);

  std::vector<PrimitiveType> parameter_types_;
  std::vector<bool> parameter_scalar_;
  std::vector<int64_t> parameter_sources_;
  std::vector<int64_t> parameter_offsets_;
  std::vector<Broadcast> broadcasts_;
  // An iota of the loop's positions: its register holds line's values read
  // through `broadcast` (stride 1 along the iota dimension, 0 elsewhere).
  struct Iota {
    int32_t reg = -1;
    Broadcast broadcast;
    Literal line;
  };
  std::vector<Iota> iotas_;
  std::vector<PrimitiveType> result_types_;
  std::vector<Step> steps_;
  // A chain: steps [first_step, first_step + steps) as links (a compare
  // and its select are one link); link k's operand j reads register
  // operands[k][j], or the value when -1, and stores its value in register
  // taps[k] too unless -1 (links[k]'s arrays are filled per block); the
  // last link's value goes to register `result`.
  struct Chain {
    int32_t first_step = 0, steps = 0, result = -1;
    // Only the caller reads the result; `stream`: this run writes it
    // straight into its output with streaming stores (see RunFrom).
    bool result_unread = false;
    bool stream = false;
    PrimitiveType type = PrimitiveType::kF32;
    std::vector<std::array<int32_t, 4>> operands;
    std::vector<int32_t> taps;
    std::vector<FloatChainLink> links;
  };
  std::vector<Chain> chains_;
  // One block-long register per value; constants filled at compile time.
  std::vector<Literal> registers_;
  std::vector<const Literal*> constants_;  // per register: its scalar constant, or null
  std::vector<PrimitiveType> register_types_;
  Literal flush_scratch_[3];  // operands of flushing steps, flushed copies
  int64_t length_ = 0;
  int64_t block_ = kBlock;
  std::vector<int32_t> parameter_registers_;
  std::vector<int32_t> result_registers_;
  // Where each register's elements are for the steps that run on raw
  // arrays: its Literal's storage, or for a parameter read in place the
  // input itself, or for a result written in place the output itself (at
  // the block's first position). Steps on Literals never read either kind.
  std::vector<uint8_t*> register_data_;
  std::vector<bool> reads_in_place_;  // per parameter
  // Per broadcast parameter: only raw steps read it, so a block that is
  // one contiguous run of its operand is read where it lies.
  std::vector<bool> broadcast_in_place_;
  std::vector<bool> writes_in_place_;  // per result
};

// The values 0..n-1 of an iota dimension in `type` (integers wrap): the
// iota kernel broadcasts it, the batched interpreter reads it per block.
absl::StatusOr<Literal> IotaLine(PrimitiveType type, int64_t n);

// No layout, or the row-major one with whole-width elements: a bitcast
// between two such shapes keeps every element's row-major place.
bool RowMajorOrNoLayout(const Shape& s);

}  // namespace hlo

#endif  // HLO_EVAL_INTERP_BATCH_PROGRAM_H_
