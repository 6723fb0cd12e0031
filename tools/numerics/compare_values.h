// hlo-run --compare-values DIR1 DIR2: where two --dump-values folders part.
// For each value of DIR1's index.json (execution order) that DIR2 also
// holds: the largest absolute difference, the largest relative difference
// |a - b| / |b| (b from DIR2; infinite where b is 0 and a is not), and the
// first differing element (row-major; NaN equals NaN, integers exactly);
// then the values only one folder holds, and the first differing
// instruction in execution order.
#ifndef HLO_TOOLS_NUMERICS_COMPARE_VALUES_H_
#define HLO_TOOLS_NUMERICS_COMPARE_VALUES_H_

#include <string>

#include "absl/status/statusor.h"

namespace hlo {

struct ValueComparison {
  std::string text;  // the report, as text or JSON
  bool differ = false;
};

absl::StatusOr<ValueComparison> CompareValueDirs(const std::string& dir1, const std::string& dir2,
                                                 bool json);

}  // namespace hlo

#endif  // HLO_TOOLS_NUMERICS_COMPARE_VALUES_H_
