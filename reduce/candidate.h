// Candidates: the reducer's modules as canonical text. A reduction is
// applied to a fresh parse of the current text, cleaned up, printed, read
// again and verified, so that every candidate tested is a valid module
// printed the way the output will be.
#ifndef HLO_REDUCE_CANDIDATE_H_
#define HLO_REDUCE_CANDIDATE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "ir/module.h"
#include "reduce/delta.h"

namespace hlo::reduce {

// How big a module is: instructions first, then the bytes of its text. A
// candidate is kept only when it is smaller.
struct Size {
  int64_t instructions = 0;
  int64_t bytes = 0;
  bool operator<(const Size& o) const {
    return instructions != o.instructions ? instructions < o.instructions : bytes < o.bytes;
  }
};

struct Candidate {
  std::string text;
  Size size;
};

// Reads and verifies a module (the input, or a candidate).
absl::StatusOr<std::unique_ptr<Module>> ReadModule(const std::string& text,
                                                   const std::string& filename);
int64_t InstructionCount(const Module& module);

// The canonical text of `module` in `style` (the input's), with its size.
Candidate Canonical(Module& module, const PrintStyle& style);

// How many targets `delta` has in the module of `text`.
int64_t CountTargets(const std::string& text, Delta& delta);

// The module of `text` with `delta` applied to targets [begin, end):
// nullopt when that changes nothing, the result does not verify or is not
// smaller than `text`.
std::optional<Candidate> MakeCandidate(const std::string& text, Delta& delta, int64_t begin,
                                       int64_t end, const PrintStyle& style);

}  // namespace hlo::reduce

#endif  // HLO_REDUCE_CANDIDATE_H_
