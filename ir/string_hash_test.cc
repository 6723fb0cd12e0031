#include "ir/string_hash.h"

#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "absl/container/flat_hash_set.h"

namespace hlo {
namespace {

TEST_CASE("HashString depends on the bytes only, not on where they are", "[string_hash]") {
  const std::string text = "xxfused_computation.123456-and-more-text-past-32-bytes";
  for (size_t n = 0; n + 2 <= text.size(); ++n) {
    std::string copy = text.substr(2, n);
    CHECK(HashString(std::string_view(text).substr(2, n)) == HashString(copy));
  }
}

TEST_CASE("HashString separates every length and every byte position", "[string_hash]") {
  // All strings of length 0..40 that differ from a base in one byte, and the
  // prefixes of the base: no two may collide in 64 bits, and the low 7 bits
  // (flat_hash_map's control byte) must take many values.
  std::set<size_t> hashes;
  std::set<size_t> low_bits;
  size_t count = 0;
  std::string base(40, 'a');
  for (size_t n = 0; n <= base.size(); ++n) {
    std::string s = base.substr(0, n);
    hashes.insert(HashString(s));
    low_bits.insert(HashString(s) & 127);
    ++count;
    for (size_t i = 0; i < n; ++i) {
      for (char c : {'b', 'A', '0', '.'}) {
        std::string t = s;
        t[i] = c;
        hashes.insert(HashString(t));
        low_bits.insert(HashString(t) & 127);
        ++count;
      }
    }
  }
  CHECK(hashes.size() == count);
  CHECK(low_bits.size() == 128);
}

TEST_CASE("HashString works as a flat_hash_set hash for instruction-like names", "[string_hash]") {
  absl::flat_hash_set<std::string_view, StringViewHash> set;
  std::vector<std::string> names;
  for (int i = 0; i < 20000; ++i) names.push_back("multiply." + std::to_string(i));
  for (const std::string& n : names) CHECK(set.insert(n).second);
  for (const std::string& n : names) CHECK(set.contains(n));
  CHECK_FALSE(set.contains("multiply.20000"));
}

}  // namespace
}  // namespace hlo
