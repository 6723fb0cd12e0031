// The Pass interface: a named transformation (or check) of a module.
#ifndef HLO_PASSES_PASS_H_
#define HLO_PASSES_PASS_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "ir/module.h"

namespace hlo {

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string_view name() const = 0;
  // One line for --list-passes.
  virtual std::string_view description() const = 0;
  // Runs on the module; returns whether anything changed.
  virtual absl::StatusOr<bool> Run(Module& module) = 0;
};

}  // namespace hlo

#endif  // HLO_PASSES_PASS_H_
