// FindNearMiss against FileCheck's definition computed the slow way: every
// position's full edit-distance table, no band, no pruning.
#include "check/diagnostics.h"

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace hlo::check {
namespace {

size_t Levenshtein(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({above + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// Pattern::printFuzzyMatch as diagnostics.h describes it.
size_t SlowNearMiss(std::string_view buffer, std::string_view example) {
  size_t lines = 0, best = std::string_view::npos;
  double best_quality = 0;
  for (size_t i = 0; i < std::min<size_t>(4096, buffer.size()); ++i) {
    if (buffer[i] == '\n') ++lines;
    if (buffer[i] == ' ' || buffer[i] == '\t') continue;
    std::string_view prefix = buffer.substr(i, example.size());
    prefix = prefix.substr(0, prefix.find('\n'));
    double quality = static_cast<double>(Levenshtein(prefix, example)) + lines / 100.;
    if (best == std::string_view::npos || quality < best_quality) {
      best = i;
      best_quality = quality;
    }
  }
  if (best == 0 || best == std::string_view::npos || best_quality >= 50) {
    return std::string_view::npos;
  }
  return best;
}

std::string Random(std::mt19937* rng, size_t size, std::string_view alphabet) {
  std::string s(size, ' ');
  for (char& c : s) c = alphabet[(*rng)() % alphabet.size()];
  return s;
}

TEST_CASE("check: the near miss is the closest position by edit distance", "[check]") {
  std::mt19937 rng(36);
  for (int round = 0; round < 3000; ++round) {
    const std::string_view alphabet = round % 3 == 0   ? "ab"
                                      : round % 3 == 1 ? "ab \n"
                                                       : "abcdefg\n";
    std::string example = Random(&rng, rng() % 70, "abcdefg");
    std::string buffer = Random(&rng, rng() % 400, alphabet);
    // Often a mutated copy of the example, so that close matches exist.
    if (round % 2 == 0 && !example.empty()) {
      std::string copy = example;
      for (int edits = rng() % 6; edits > 0; --edits) copy[rng() % copy.size()] = 'x';
      buffer.insert(rng() % (buffer.size() + 1), copy);
    }
    INFO("example '" << example << "' buffer '" << buffer << "'");
    CHECK(FindNearMiss(buffer, example) == SlowNearMiss(buffer, example));
  }
}

}  // namespace
}  // namespace hlo::check
