// Deterministic pseudo-random literals, for --random-inputs and for elided
// constants (`constant({...})`), so every XLA dump runs.
#ifndef HLO_EVAL_IO_RANDOM_FILL_H_
#define HLO_EVAL_IO_RANDOM_FILL_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "ir/literal.h"

namespace hlo {

// A literal of `shape` whose elements come from (seed, stream): floats
// uniform in [-1, 1) (rounded to the type), signed integers in [-10, 10),
// unsigned in [0, 10), pred true/false, complex parts in [-1, 1). Tuples fill
// their elements from derived streams.
absl::StatusOr<Literal> RandomLiteral(const Shape& shape, uint64_t seed, uint64_t stream);

// A stream id from a name (FNV-1a), e.g. for an elided constant's name.
uint64_t StreamId(std::string_view name);

}  // namespace hlo

#endif  // HLO_EVAL_IO_RANDOM_FILL_H_
