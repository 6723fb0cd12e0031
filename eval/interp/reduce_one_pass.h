// Reductions by a simple reducer (add, multiply, maximum, minimum, and, or,
// xor on a native type) that read their operand as rows, as columns or
// whole, run in one pass over the operand for any number of them: the
// operand is read once, row by row in pieces that stay in L1 while every
// reduction's accumulators take them, split over the cores. The executor
// runs sibling reduces (one operand, several reduces) this way
// (eval/fusion/reduce_siblings.h), and a lone reduce of these forms too.
#ifndef HLO_EVAL_INTERP_REDUCE_ONE_PASS_H_
#define HLO_EVAL_INTERP_REDUCE_ONE_PASS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "eval/value.h"
#include "ir/instruction.h"
#include "ir/opcode.h"

namespace hlo {

// What one output element folds, with the operand viewed row-major as
// [rows, cols]: one row (output r), one column (output c), or everything.
enum class ReduceAxes : uint8_t { kRows, kColumns, kAll };

struct OnePassForm {
  ReduceAxes axes = ReduceAxes::kAll;
  int64_t rows = 1, cols = 1;
};

// The form of a reduce of an operand with dims `in_dims` over the dims
// marked in `reduced`, ignoring dims of extent 1: kept dims then reduced
// ones (kRows), reduced then kept (kColumns), all reduced (kAll, as one
// row); nullopt for any other pattern, no reduced dim, or no elements.
std::optional<OnePassForm> OnePassFormOf(absl::Span<const int64_t> in_dims,
                                         absl::Span<const bool> reduced);

// OnePassFormOf for a reduce instruction's `dimensions` over an operand of
// dims `in_dims`; nullopt for a dimension out of range too.
std::optional<OnePassForm> OnePassFormOfReduce(const Instruction& reduce,
                                               absl::Span<const int64_t> in_dims);

// Narrower rows go to the plain typed loop, which has no per-row calls.
inline constexpr int64_t kMinOnePassCols = 32;

// Whether a lone reduce of this form gains from the one pass: columns of
// 32K+ elements (the plain loop runs one core over a tree of column
// slices), rows and whole arrays when large enough for both cores (below
// that the plain loop folds rows as fast, without the pieces' calls).
bool LoneReduceGains(const OnePassForm& form);

struct OnePassReduce {
  ReduceAxes axes = ReduceAxes::kAll;
  Opcode op = Opcode::kAdd;
  const Literal* init = nullptr;  // a scalar of the operand's type
  Literal* out = nullptr;         // the operand's type; rows, cols or 1 elements
};

// Whether (type, op) has a typed loop here.
bool OnePassSupports(PrimitiveType type, Opcode op);

// Runs `reduces` over x viewed as [rows, cols] (rows * cols elements, each
// kRows/kColumns reduce of that view) in one pass. Results as the typed
// single reduce computes them: rows fold as FoldRow, columns in its tree of
// 32-row leaves, bit for bit; a kAll float sum or product is pairwise per
// core's part, the parts then combined in order. False, with nothing
// written, when some reduce's type or op is not supported.
bool ReduceInOnePass(const Literal& x, int64_t rows, int64_t cols,
                     absl::Span<const OnePassReduce> reduces);

// An operand (x - v) * (x - v), or (v - x) * (v - x) with v_first (a
// variance's squares), where x lies in memory as the pass's [rows, cols]
// and v holds one value per column (per_row: per row): a column sum (a
// row sum) folds it from x with the squares made in registers (a piece of
// a row at a time in L1), each difference and square rounded as the ops
// round them, in the order it folds a made operand.
struct SquaredDifferences {
  const void* x = nullptr;
  const void* v = nullptr;
  bool v_first = false;
  bool per_row = false;
};

// An operand that is made as the pass reads it (the root of a fused loop,
// eval/fusion/group_reduce.h) instead of lying in memory.
class OnePassSource {
 public:
  virtual ~OnePassSource() = default;
  // Where the operand is SquaredDifferences: the pass, one column sum (one
  // row sum where per_row) of f32 or f64, then reads those instead of
  // calling Fill.
  virtual std::optional<SquaredDifferences> squared_differences() const { return std::nullopt; }
  // Before a pass: parts [0, parts) may then Fill at once, each from its
  // own thread.
  virtual absl::Status Prepare(int64_t parts) = 0;
  // Elements [first, first + n) of the operand, row-major, into dst.
  virtual absl::Status Fill(int64_t part, int64_t first, int64_t n, void* dst) = 0;
};

// ReduceInOnePass over an operand of `type` that `source` makes: the same
// parts and order, so the same bits as over the operand in memory, without
// the operand ever being whole. The parts run on the cores from 2^18
// elements on (the pass over memory waits for 2^22: there each part only
// reads). An error for an unsupported reduce or from the source.
absl::Status ReduceFromSource(OnePassSource& source, PrimitiveType type, int64_t rows, int64_t cols,
                              absl::Span<const OnePassReduce> reduces);

}  // namespace hlo

#endif  // HLO_EVAL_INTERP_REDUCE_ONE_PASS_H_
