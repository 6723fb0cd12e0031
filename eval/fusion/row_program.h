// A row program: the instructions of a normalization over the minor
// dimension (layer norm, RMS norm, any mix of row reductions and the
// elementwise arithmetic around them) run a few rows at a time, every
// intermediate in L1. The array is viewed as [rows, cols]; a value is
// either a row value (cols elements per row: arrays of that shape,
// broadcasts of a scalar, of a [cols] column or of a per-row value) or a
// per-row value (one element per row: minor-dimension reductions, the
// elementwise ops on them, reshapes between their shapes). Unfused, a
// layer norm is five passes over memory (two reductions, the centred
// array, its squares, the scaled result; GPT-2 small's took 0.29 ms on
// [256,768]); here each row is read from memory once and its result
// written once.
//
// Bit for bit the unfused result: reductions fold as the reduce kernel
// does (FoldRow, the init applied after), elementwise ops run the shared
// float kernels (BinaryFloatKernel, UnaryFloatKernel) on the rows, and
// each lane's result depends on its own operands alone. Under
// --denormals=flush the results the unfused kernels flush explicitly
// (reductions', unary math's, maximum's and minimum's) are flushed here
// too; MXCSR flushes the arithmetic alike either way.
#ifndef HLO_EVAL_FUSION_ROW_PROGRAM_H_
#define HLO_EVAL_FUSION_ROW_PROGRAM_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/value.h"
#include "ir/instruction.h"

namespace hlo {

struct RowProgram {
  // One value of the program, computed for a block of rows at a time.
  struct Node {
    enum class Kind : uint8_t {
      kRowsInput,     // an input array of the root's shape
      kRowValues,     // an input array of one element per row
      kColumn,        // broadcast of an input [cols] array along the rows
      kSplat,         // broadcast of an input scalar
      kRowBroadcast,  // a per-row node's value across its row
      kBinary,        // op(a, b)
      kUnary,         // op(a)
      kReduce,        // op-fold of row node a, then op(init input, that)
    };
    Kind kind = Kind::kBinary;
    bool per_row = false;  // one value per row, else cols values
    Opcode op = Opcode::kAdd;
    int32_t a = -1, b = -1;  // operand nodes
    int32_t input = -1;      // input index (inputs, column, splat, reduce's init)
    bool flush = false;      // --denormals=flush: flush this node's results
    int32_t output = -1;     // a row node read after the root: its output index
  };
  PrimitiveType type = PrimitiveType::kF32;  // f32 or f64
  int64_t rows = 0, cols = 0;
  std::vector<Node> nodes;  // operands before their users; the root last
};

// The row program rooted at `root` (an elementwise f32/f64 op over at
// least two rows of at least 8 columns): grown from it through operands
// whose every user is already in it (broadcasts of scalars may have
// others: each group computes its own), or, for at most kMaxRowOutputs
// rows ops, whose other users all come after the root (the residual
// stream a layer norm reads, which the next layer adds to: written as an
// output too); holding at least one minor-dimension reduction.
// `position(inst)` is the instruction's place in the computation's order,
// `joinable(inst)` whether it may join (not in another group). `members`
// get its instructions (post order not implied), `inputs` the values it
// reads, `outputs` the members read after the root (in the computation's
// order, as the nodes' output indices count them); null where there is
// no such program.
inline constexpr int kMaxRowOutputs = 2;
std::unique_ptr<RowProgram> MatchRowProgram(
    const Instruction& root, bool flush_denormals,
    const std::function<bool(const Instruction&)>& joinable,
    const std::function<int64_t(const Instruction&)>& position,
    std::vector<const Instruction*>* members, std::vector<const Instruction*>* inputs,
    std::vector<const Instruction*>* outputs);

// Runs it on its inputs' values (inputs[i] for the match's inputs[i]);
// `outputs` receives the other outputs' values, fresh arrays of
// `output_shapes`. A rows input that only this group reads (`reusable`)
// may become the result (each row is read before it is written).
absl::StatusOr<Value> RunRowProgram(const RowProgram& program, const Shape& shape,
                                    absl::Span<const Value* const> inputs,
                                    const std::vector<bool>& reusable,
                                    absl::Span<const Shape* const> output_shapes,
                                    absl::InlinedVector<Value, 4>* outputs);

}  // namespace hlo

#endif  // HLO_EVAL_FUSION_ROW_PROGRAM_H_
