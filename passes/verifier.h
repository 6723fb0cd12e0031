// The verifier: every instruction's declared shape equals the inferred one
// (layouts aside), called computations have the right signatures, operand
// counts, element types, attribute bounds, one root, the entry computation
// layout, and an acyclic graph (control predecessors included).
#ifndef HLO_PASSES_VERIFIER_H_
#define HLO_PASSES_VERIFIER_H_

#include "absl/status/status.h"
#include "ir/module.h"
#include "passes/pass.h"

namespace hlo {

struct VerifyOptions {
  // Stop collecting after this many problems.
  int max_errors = 20;
};

// OK, or InvalidArgument whose message holds one diagnostic per problem
// (`FILE:LINE:COL: error: %name: what`, the source line and a caret), in
// module order, up to the limit.
absl::Status VerifyModule(Module& module, const VerifyOptions& options = {});

class VerifierPass : public Pass {
 public:
  std::string_view name() const override { return "verify"; }
  std::string_view description() const override {
    return "check shapes, signatures, attributes and graph structure";
  }
  absl::StatusOr<bool> Run(Module& module) override;
};

}  // namespace hlo

#endif  // HLO_PASSES_VERIFIER_H_
