#include "reduce/reducer.h"

#include <algorithm>

namespace hlo::reduce {
namespace {

// A smaller candidate of `delta` on targets [begin, end), or nullopt.
std::optional<Candidate> Smaller(const Candidate& current, Delta& delta, int64_t begin, int64_t end,
                                 const PrintStyle& style) {
  std::optional<Candidate> c = MakeCandidate(current.text, delta, begin, end, style);
  if (!c || !(c->size < current.size)) return std::nullopt;
  return c;
}

// ddmin over the targets: chunks of `chunk` targets from `pos` on, tested
// side by side; a kept chunk's targets are gone (or changed), so the next
// chunks start where it was. Halves the chunk when a sweep keeps nothing.
int64_t RunChunks(Candidate& current, const DeltaInfo& info, const PrintStyle& style,
                  Tester& tester) {
  std::unique_ptr<Delta> delta = info.create();
  int64_t kept = 0;
  int64_t targets = CountTargets(current.text, *delta);
  int64_t chunk = targets;
  while (chunk >= 1 && targets > 0) {
    bool progress = false;
    for (int64_t pos = 0; pos < targets;) {
      tester.Progress(current.size, std::string(info.name));
      const int64_t chunks = (targets - pos + chunk - 1) / chunk;
      auto make = [&](int64_t i) {
        int64_t begin = pos + i * chunk;
        return Smaller(current, *delta, begin, std::min(begin + chunk, targets), style);
      };
      auto hit = tester.FirstInteresting(chunks, make);
      if (!hit) break;
      current = std::move(hit->second);
      ++kept;
      progress = true;
      pos += hit->first * chunk;
      targets = CountTargets(current.text, *delta);
    }
    if (chunk == 1) break;
    if (!progress) chunk = (chunk + 1) / 2;
    chunk = std::min(chunk, std::max<int64_t>(targets, 1));
  }
  return kept;
}

// The first target whose change is interesting, searched among evenly
// spaced targets on all workers at once (a binary search for one worker);
// repeated from the new module until no target helps.
int64_t RunSearch(Candidate& current, const DeltaInfo& info, const PrintStyle& style,
                  Tester& tester) {
  std::unique_ptr<Delta> delta = info.create();
  int64_t kept = 0;
  for (;;) {
    int64_t lo = -1;                                  // targets <= lo are taken as not interesting
    int64_t hi = CountTargets(current.text, *delta);  // the present module
    std::optional<Candidate> best;
    while (hi - lo > 1) {
      tester.Progress(current.size, std::string(info.name));
      const int64_t gap = hi - lo - 1;
      const int64_t points = std::min<int64_t>(gap, std::max(1, tester.jobs()));
      auto at = [&](int64_t i) { return lo + 1 + (i + 1) * gap / (points + 1); };
      auto make = [&](int64_t i) { return Smaller(current, *delta, at(i), at(i) + 1, style); };
      auto hit = tester.FirstInteresting(points, make);
      if (hit) {
        lo = hit->first == 0 ? lo : at(hit->first - 1);
        hi = at(hit->first);
        best = std::move(hit->second);
      } else {
        lo = at(points - 1);
      }
    }
    if (!best) return kept;
    current = *std::move(best);
    ++kept;
  }
}

}  // namespace

Candidate Reduce(const Candidate& start, const std::vector<const DeltaInfo*>& deltas,
                 const PrintStyle& style, Tester& tester, ReduceStats* stats) {
  Candidate current = start;
  std::vector<int64_t> kept(deltas.size(), 0);
  for (bool changed = true; changed;) {
    changed = false;
    ++stats->rounds;
    for (size_t d = 0; d < deltas.size(); ++d) {
      std::unique_ptr<Delta> probe = deltas[d]->create();
      int64_t k = probe->strategy() == Strategy::kSearch
                      ? RunSearch(current, *deltas[d], style, tester)
                      : RunChunks(current, *deltas[d], style, tester);
      kept[d] += k;
      changed = changed || k > 0;
    }
  }
  tester.EndProgress();
  for (size_t d = 0; d < deltas.size(); ++d) {
    if (kept[d] > 0) stats->applied.emplace_back(std::string(deltas[d]->name), kept[d]);
  }
  return current;
}

bool IsOneMinimal(const Candidate& current, const std::vector<const DeltaInfo*>& deltas,
                  const PrintStyle& style, Tester& tester, std::string* failing) {
  for (const DeltaInfo* info : deltas) {
    std::unique_ptr<Delta> delta = info->create();
    int64_t targets = CountTargets(current.text, *delta);
    auto make = [&](int64_t i) { return Smaller(current, *delta, i, i + 1, style); };
    if (tester.FirstInteresting(targets, make)) {
      *failing = std::string(info->name);
      return false;
    }
  }
  return true;
}

}  // namespace hlo::reduce
