// metadata, sharding, frontend-attributes, backend-config,
// control-dependencies: one attribute kind dropped from instructions (one
// reduction per kind, one target per instruction that has it).
#include "reduce/delta.h"

namespace hlo::reduce {
namespace {

class DropAttributeDelta : public Delta {
 public:
  explicit DropAttributeDelta(AttrKind kind) : kind_(kind) {}
  void Run(Module& module, TargetSelector& select) override {
    for (const auto& comp : module.computations()) {
      for (const auto& inst : comp->instructions()) {
        if (inst->HasAttr(kind_) && select.Pick()) inst->RemoveAttr(kind_);
      }
    }
  }

 private:
  AttrKind kind_;
};

}  // namespace

std::unique_ptr<Delta> CreateMetadataDelta() {
  return std::make_unique<DropAttributeDelta>(AttrKind::kMetadata);
}
std::unique_ptr<Delta> CreateShardingDelta() {
  return std::make_unique<DropAttributeDelta>(AttrKind::kSharding);
}
std::unique_ptr<Delta> CreateFrontendAttributesDelta() {
  return std::make_unique<DropAttributeDelta>(AttrKind::kFrontendAttributes);
}
std::unique_ptr<Delta> CreateBackendConfigDelta() {
  return std::make_unique<DropAttributeDelta>(AttrKind::kBackendConfig);
}
std::unique_ptr<Delta> CreateControlDependenciesDelta() {
  return std::make_unique<DropAttributeDelta>(AttrKind::kControlPredecessors);
}

}  // namespace hlo::reduce
