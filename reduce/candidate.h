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

// How big a module is. A candidate is kept only when its score (the bytes
// of its text and 64 per instruction) is lower: removing an instruction
// always counts, and so does a large constant made a broadcast of one
// element, which adds an instruction.
// At equal scores, fewer array elements (smaller shapes) are smaller, and
// then smaller integer scalars (the sum of their magnitudes: a loop bound
// of 2 is simpler than one of 5).
struct Size {
  int64_t instructions = 0;
  int64_t bytes = 0;
  int64_t elements = 0;
  int64_t magnitude = 0;
  int64_t score() const { return 64 * instructions + bytes; }
  bool operator<(const Size& o) const {
    if (score() != o.score()) return score() < o.score();
    return elements != o.elements ? elements < o.elements : magnitude < o.magnitude;
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
// nullopt when that changes nothing or the result does not verify.
std::optional<Candidate> MakeCandidate(const std::string& text, Delta& delta, int64_t begin,
                                       int64_t end, const PrintStyle& style);

}  // namespace hlo::reduce

#endif  // HLO_REDUCE_CANDIDATE_H_
