// A bound on the rewrites that passes make, for bisection below the level
// of a pass (hlo-opt --bisect's second stage; LLVM's debug counters and
// -opt-bisect-limit do the same). A pass asks AllowRewrite before each
// rewrite that it can skip while leaving a valid module, and skips the
// rewrite when the bound is spent. Without a RewriteLimitScope alive on the
// thread every rewrite is allowed and nothing is counted.
#ifndef HLO_PASSES_REWRITE_LIMIT_H_
#define HLO_PASSES_REWRITE_LIMIT_H_

#include <cstdint>
#include <string>

#include "ir/instruction.h"

namespace hlo {

// Asked before each rewrite: true when it may be made. `at` is the
// instruction the rewrite replaces (named in the bisection's report).
bool AllowRewrite(const Instruction& at);

// Counts the rewrites asked for while alive, allowing the first `limit`
// (all of them when limit < 0). Scopes do not nest.
class RewriteLimitScope {
 public:
  explicit RewriteLimitScope(int64_t limit);
  ~RewriteLimitScope();
  RewriteLimitScope(const RewriteLimitScope&) = delete;
  RewriteLimitScope& operator=(const RewriteLimitScope&) = delete;

  // Rewrites asked for so far (allowed or not).
  int64_t asked() const;
  // The instruction of the last allowed rewrite ("" when none).
  const std::string& last_allowed() const;
};

}  // namespace hlo

#endif  // HLO_PASSES_REWRITE_LIMIT_H_
