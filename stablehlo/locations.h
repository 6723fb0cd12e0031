// MLIR locations as HLO metadata: `loc("name"(...))` gives op_name,
// `"file":line:col` the source file and line; call-site locations take the
// callee's frame (the user's innermost line), fused ones their first member;
// `#locN` aliases are looked up.
#ifndef HLO_STABLEHLO_LOCATIONS_H_
#define HLO_STABLEHLO_LOCATIONS_H_

#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "stablehlo/ast.h"

namespace hlo::stablehlo {

// Fills out->op_name, file, line and col from the body of `loc(...)`.
// Malformed locations are ignored (they only add metadata).
void ResolveLocation(std::string_view raw,
                     const absl::flat_hash_map<std::string, std::string_view>& aliases,
                     Location* out);

// The metadata attribute text for HLO (`metadata={op_name="..." source_file="..."
// source_line=3}`), or empty when the location says nothing.
std::string MetadataText(const Location& loc);

}  // namespace hlo::stablehlo

#endif  // HLO_STABLEHLO_LOCATIONS_H_
