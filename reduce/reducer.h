// The reduction loop: each enabled reduction in turn, driven as ddmin
// (chunks of its targets, halving until single targets) or as a search
// (Strategy::kSearch), keeping a change only when the test stays true and
// the module gets smaller; rounds repeat until one changes nothing.
#ifndef HLO_REDUCE_REDUCER_H_
#define HLO_REDUCE_REDUCER_H_

#include <string>
#include <vector>

#include "reduce/candidate.h"
#include "reduce/delta.h"
#include "reduce/tester.h"

namespace hlo::reduce {

struct ReduceStats {
  int rounds = 0;
  std::vector<std::pair<std::string, int64_t>> applied;  // reduction, changes kept
};

// Reduces `start` (interesting, canonical) with `deltas` (names of
// AllDeltas()); returns the smallest interesting module found.
Candidate Reduce(const Candidate& start, const std::vector<const DeltaInfo*>& deltas,
                 const PrintStyle& style, Tester& tester, ReduceStats* stats);

// True when no single target of any of `deltas` gives a smaller module that
// is still interesting (each tried alone): `text` is 1-minimal. `failing`
// names the first reduction that still applies.
bool IsOneMinimal(const Candidate& current, const std::vector<const DeltaInfo*>& deltas,
                  const PrintStyle& style, Tester& tester, std::string* failing);

}  // namespace hlo::reduce

#endif  // HLO_REDUCE_REDUCER_H_
