// Structural equality of instructions' attributes and of computations, for
// cse: two reduces whose to_apply computations are distinct but alike (JAX
// emits a fresh `region_N` adder per reduce) compute the same value, as in
// XLA's HloCSE, which compares called computations with
// HloComputation::operator== rather than by identity.
#ifndef HLO_PASSES_COMPUTATION_EQUALITY_H_
#define HLO_PASSES_COMPUTATION_EQUALITY_H_

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "ir/module.h"

namespace hlo {

// Computations are equal when they take as many parameters and, paired
// from their roots down, every pair of instructions has the same opcode,
// shape, parameter number, literal, attributes (metadata aside; called
// computations compared the same way, others by value) and operands paired
// in order. Names do not matter, nor instructions the root does not reach.
// Iterative (a worklist, no recursion into called computations), with the
// answers kept for the life of the object: make one per pass run, over a
// module that does not change meanwhile.
class ComputationEquality {
 public:
  bool Equal(const Computation& a, const Computation& b);

  // a and b alike in all but their operands: opcode, shape, parameter
  // number, literal (elided ones never alike) and attributes as sets,
  // metadata aside, with called computations compared by Equal.
  bool SameButOperands(const Instruction& a, const Instruction& b);

 private:
  using Pair = std::pair<const Computation*, const Computation*>;
  absl::flat_hash_map<Pair, bool> known_;
};

}  // namespace hlo

#endif  // HLO_PASSES_COMPUTATION_EQUALITY_H_
