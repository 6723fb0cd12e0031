#include "passes/rewrite_limit.h"

namespace hlo {
namespace {

struct LimitState {
  bool active = false;
  int64_t limit = -1;
  int64_t asked = 0;
  std::string last_allowed;
};

// Per thread: hlo-reduce's workers each run a pass under their own bound.
thread_local LimitState state;

}  // namespace

bool AllowRewrite(const Instruction& at) {
  if (!state.active) return true;
  const int64_t index = state.asked++;
  if (state.limit >= 0 && index >= state.limit) return false;
  state.last_allowed = at.name();
  return true;
}

RewriteLimitScope::RewriteLimitScope(int64_t limit) { state = LimitState{true, limit, 0, ""}; }
RewriteLimitScope::~RewriteLimitScope() { state = LimitState{}; }
int64_t RewriteLimitScope::asked() const { return state.asked; }
const std::string& RewriteLimitScope::last_allowed() const { return state.last_allowed; }

}  // namespace hlo
