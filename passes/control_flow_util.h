// Small helpers shared by while-loop-simplifier and conditional-simplifier.
#ifndef HLO_PASSES_CONTROL_FLOW_UTIL_H_
#define HLO_PASSES_CONTROL_FLOW_UTIL_H_

#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/computation.h"
#include "ir/module.h"
#include "passes/dead_code.h"  // ControlRelated

namespace hlo {

// The computations held by attribute `kind` (empty when absent).
std::vector<Computation*> ComputationsOf(const Instruction* inst, AttrKind kind);

// Whether a computation, or one it calls (transitively), has an instruction
// with a side effect (including rng and custom-call). Memoised.
class SideEffectCache {
 public:
  bool Has(const Computation* comp);
  void Clear() { cache_.clear(); }

 private:
  absl::flat_hash_map<const Computation*, bool> cache_;
};

// The value of a scalar integer constant (signed, or unsigned up to 32
// bits, so that int64 ordering is exact), else nullopt.
std::optional<int64_t> ScalarIntConstant(const Instruction* inst);

// The loop state element a while condition or body instruction reads
// directly: index i for get-tuple-element(param, i), -1 for the (non-tuple)
// parameter itself; else nullopt.
std::optional<int64_t> LoopStateIndex(const Instruction* inst, const Computation& comp);

// Adds `call(operands), to_apply=callee` with `shape` to `comp`.
Instruction* AddCall(Module& module, Computation& comp, const Shape& shape, Computation* callee,
                     std::vector<Instruction*> operands);

}  // namespace hlo

#endif  // HLO_PASSES_CONTROL_FLOW_UTIL_H_
