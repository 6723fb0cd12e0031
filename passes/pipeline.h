// The pass registry and pipelines built from `--passes=a,b,c`.
#ifndef HLO_PASSES_PIPELINE_H_
#define HLO_PASSES_PIPELINE_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "passes/pass.h"

namespace hlo {

struct PassInfo {
  std::string_view name;
  std::function<std::unique_ptr<Pass>()> create;
};

// Every pass, in the order --list-passes shows them.
const std::vector<PassInfo>& AllPasses();
std::unique_ptr<Pass> CreatePass(std::string_view name);
// "name  description" lines.
std::string ListPasses();

class Pipeline {
 public:
  void Add(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }
  bool empty() const { return passes_.empty(); }
  absl::Status Run(Module& module);

 private:
  std::vector<std::unique_ptr<Pass>> passes_;
};

// Builds a pipeline from a comma-separated list (empty: no passes). Unknown
// names are an error with a suggestion.
absl::StatusOr<Pipeline> BuildPipeline(std::string_view spec);

}  // namespace hlo

#endif  // HLO_PASSES_PIPELINE_H_
