// The custom-call targets hlo-run implements, as eval/custom_call.cc's registry
// names them (each once, with its handler and a line about it): for README's
// list and the test that holds the two together. EvalCustomCall itself is
// declared with the kernels (eval/kernels/kernels.h).
#ifndef HLO_EVAL_CUSTOM_CALL_H_
#define HLO_EVAL_CUSTOM_CALL_H_

#include <string>
#include <string_view>
#include <vector>

namespace hlo {

struct CustomCallTargetInfo {
  // The target's name, or a family's forms with '?' for the type letter:
  // {"lapack_?potrf_ffi", "lapack_?potrf"}.
  std::vector<std::string> names;
  std::string_view types;  // the letters '?' stands for ("sdcz"); empty without '?'
  std::string_view description;
};

// Every registry entry, in the registry's order.
std::vector<CustomCallTargetInfo> ListCustomCallTargets();

// Whether the registry has a handler for `target`, a name as written in a
// module ("lapack_spotrf_ffi", not "lapack_?potrf_ffi").
bool HasCustomCallHandler(std::string_view target);

}  // namespace hlo

#endif  // HLO_EVAL_CUSTOM_CALL_H_
