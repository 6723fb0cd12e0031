// Shared internals of the algebraic simplifier (algsimp): the per-computation
// rewrite context and one entry point per family of rewrites.
//
// Every rewrite is exact: the result is bit-identical to the original for
// every input (NaN, -0.0 and integer wrap-around included). A family returns
// the instruction that replaces `inst` (an existing one or one it built with
// the context), or null when nothing applies. The driver
// (algebraic_simplifier.cc) checks the replacement's shape, rewires the users
// and removes what became dead.
#ifndef HLO_PASSES_ALGEBRAIC_SIMPLIFIER_INTERNAL_H_
#define HLO_PASSES_ALGEBRAIC_SIMPLIFIER_INTERNAL_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "ir/module.h"

namespace hlo::algsimp {

// One value repeated over a whole array: a constant whose elements all have
// the same bits, or a broadcast of one. `lit` holds the value at `index`.
struct Splat {
  const Literal* lit = nullptr;
  int64_t index = 0;
  PrimitiveType type() const { return lit->element_type(); }
  uint64_t bits() const { return lit->GetBits(index); }
  double value() const { return lit->GetDouble(index); }
  int64_t int_value() const { return lit->GetInt(index); }
};

// Value tests, exact on the element type's encoding.
bool IsIntZero(const Splat& s);       // integer or pred 0
bool IsIntOne(const Splat& s);        // integer 1 (not pred)
bool IsAllOnes(const Splat& s);       // integer -1 / all bits, or pred true
bool IsFloatNegZero(const Splat& s);  // -0.0 of a real float type
bool IsFloatPosZero(const Splat& s);  // +0.0 of a real float type
bool IsFloatOne(const Splat& s);      // 1.0 of a real float type
bool IsFloatInf(const Splat& s, bool negative);
// The smallest / largest value of an integer type (pred: false / true).
bool IsIntMin(const Splat& s);
bool IsIntMax(const Splat& s);

class Context {
 public:
  Context(Module& module, Computation& computation) : module_(module), computation_(computation) {}

  Module& module() { return module_; }
  Computation& computation() { return computation_; }

  // The splat value of `inst`, if it is one (cached per constant).
  std::optional<Splat> SplatOf(const Instruction* inst);

  // Adds an instruction to the computation with a fresh name; the shape is
  // interned. Attributes are set by the caller.
  Instruction* Add(Opcode opcode, const Shape& shape, std::initializer_list<Instruction*> operands);
  Instruction* Add(Opcode opcode, const Shape& shape, absl::Span<Instruction* const> operands);
  // An array shape for an intermediate result: default layout when `like`
  // carries a layout, none otherwise.
  Shape ShapeLike(PrimitiveType type, absl::Span<const int64_t> dims, const Shape& like) const;
  // A scalar constant with the given element bits.
  Instruction* ScalarConstant(PrimitiveType type, uint64_t bits, const Shape& like);
  // `scalar` broadcast to `shape` (the scalar itself when `shape` is rank 0);
  // null when their element types differ (that would need a convert).
  Instruction* BroadcastScalar(Instruction* scalar, const Shape& shape);
  // The splat `s` as an array of `shape` (a new scalar constant broadcast).
  Instruction* SplatLike(const Splat& s, const Shape& shape);
  // Zeros of `shape`'s element type (0, +0.0, false).
  Instruction* ZerosLike(const Shape& shape);

  // Instructions built during this run, for the dead-code cleanup.
  const std::vector<Instruction*>& created() const { return created_; }

 private:
  Module& module_;
  Computation& computation_;
  absl::flat_hash_map<const Instruction*, std::optional<Splat>> splats_;
  std::vector<Instruction*> created_;
};

// Can `replacement` stand for `inst`: same dims, type and dynamism, and the
// same layout (a missing layout counts as the default one).
bool CanReplace(const Instruction& inst, const Instruction& replacement);
bool CanReplaceShape(const Shape& a, const Shape& b);

// Families (one file each).
// algebraic_simplifier_arith.cc: binary identities, negate/not, compare,
// select, convert, iota.
Instruction* SimplifyArith(Context& ctx, Instruction* inst);
// algebraic_simplifier_shape.cc: reshape, transpose, broadcast, copy,
// reverse, bitcast-convert.
Instruction* SimplifyShape(Context& ctx, Instruction* inst);
// algebraic_simplifier_slice.cc: slice, concatenate, pad, dynamic-slice,
// dynamic-update-slice.
Instruction* SimplifySlice(Context& ctx, Instruction* inst);
// algebraic_simplifier_reduce.cc: reduce and dot.
Instruction* SimplifyReduce(Context& ctx, Instruction* inst);

}  // namespace hlo::algsimp

#endif  // HLO_PASSES_ALGEBRAIC_SIMPLIFIER_INTERNAL_H_
