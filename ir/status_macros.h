// The project's one pair of error-propagation macros (as XLA's
// TF_RETURN_IF_ERROR / TF_ASSIGN_OR_RETURN): every file returning
// absl::Status or absl::StatusOr uses these rather than a local copy.
#ifndef HLO_IR_STATUS_MACROS_H_
#define HLO_IR_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

// Returns the status of `expr` (an absl::Status) from the enclosing function
// when it is not OK.
#define HLO_RETURN_IF_ERROR(expr)                                        \
  do {                                                                   \
    ::absl::Status hlo_status_macro_status_ = (expr);                    \
    if (!hlo_status_macro_status_.ok()) return hlo_status_macro_status_; \
  } while (0)

// `lhs = *expr` for an absl::StatusOr `expr`, or returns its status when it
// holds none. `lhs` may declare a variable: HLO_ASSIGN_OR_RETURN(auto x, F());
#define HLO_ASSIGN_OR_RETURN(lhs, expr) \
  HLO_ASSIGN_OR_RETURN_IMPL_(HLO_STATUS_MACROS_CONCAT_(hlo_statusor_, __LINE__), lhs, expr)

#define HLO_STATUS_MACROS_CONCAT_INNER_(a, b) a##b
#define HLO_STATUS_MACROS_CONCAT_(a, b) HLO_STATUS_MACROS_CONCAT_INNER_(a, b)
#define HLO_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(*tmp)

#endif  // HLO_IR_STATUS_MACROS_H_
