// Sibling fusions that recompute the same work: XLA duplicates an
// elementwise chain into every fusion that needs a value of it, so two
// fusions may compute the same inner values side by side (threefry's loop
// bodies: one fusion makes rounds 1-3 for its output, another the same
// rounds and a fourth). hlo-run's defuser defuses them (passes/defuser.cc),
// after which cse computes the shared part once.
#ifndef HLO_PASSES_FUSION_SHARING_H_
#define HLO_PASSES_FUSION_SHARING_H_

#include "absl/container/flat_hash_set.h"
#include "ir/computation.h"
#include "passes/dead_code.h"

namespace hlo {

// The fusions of `comp` (not a fusion computation) with inner array
// instructions of kMinSharedElements elements or more in all, each more
// than an op over what the fusion reads, that an earlier fusion of `comp`
// computes inside too (numbered as fusion-cse numbers values,
// passes/fusion_cse.cc), and those earlier fusions. (Fewer: the executor's
// cost per defused instruction passes what the recomputation costs; XLA's
// rbg keys, u32[2,2] in a loop, ran 1.8x slower defused.)
inline constexpr int64_t kMinSharedElements = 4096;
absl::flat_hash_set<const Instruction*> FusionsSharingWork(const Computation& comp,
                                                           SideEffects& effects);

}  // namespace hlo

#endif  // HLO_PASSES_FUSION_SHARING_H_
