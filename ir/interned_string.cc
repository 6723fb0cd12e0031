#include "ir/interned_string.h"

#include <array>
#include <functional>
#include <mutex>

#include "absl/container/node_hash_set.h"
#include "ir/string_hash.h"

namespace hlo {
namespace {

// Transparent over std::string_view (Debian's Abseil hashes only its own
// absl::string_view).
struct ViewHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return HashString(s); }
};
struct ViewEq {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return a == b; }
};

struct Pool {
  std::mutex mu;
  // Node-based, so the strings never move.
  absl::node_hash_set<std::string, ViewHash, ViewEq> strings;
};

Pool& GlobalPool() {
  static Pool* pool = new Pool;  // never destroyed: handles outlive statics
  return *pool;
}

constexpr size_t kCacheSlots = 512;

const std::string* EmptyString() {
  static const std::string* empty = new std::string;
  return empty;
}

}  // namespace

InternedString::InternedString() : text_(EmptyString()) {}

InternedString::InternedString(std::string_view text) {
  if (text.empty()) {
    text_ = EmptyString();
    return;
  }
  // A small per-thread cache in front of the locked pool: parsing interns
  // the same few texts (metadata keys, kLoop, LT) over and over.
  thread_local std::array<const std::string*, kCacheSlots> cache{};
  const std::string*& slot = cache[HashString(text) % kCacheSlots];
  if (slot != nullptr && *slot == text) {
    text_ = slot;
    return;
  }
  Pool& pool = GlobalPool();
  std::lock_guard<std::mutex> lock(pool.mu);
  auto it = pool.strings.find(text);
  if (it == pool.strings.end()) it = pool.strings.emplace(text).first;
  text_ = &*it;
  slot = text_;
}

}  // namespace hlo
