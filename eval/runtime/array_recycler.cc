#include "eval/runtime/array_recycler.h"

#include <algorithm>
#include <array>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace hlo {
namespace {

// A ring of the last arrays freed on this thread, each with the key a
// request is matched on first (element type, rank and element count) and a
// one-byte tag of that key: a request compares its tag with all 16 at once
// and looks only at the entries whose tag matches (a miss, a third of the
// requests in programs of small instructions, cost a scan of 16 keys). Scalars, the most
// requested (loop counters, indices, PRNG state), keep a stack per element
// type instead: taken and given back without a scan, and they leave the
// ring to arrays.
struct Bin {
  struct Entry {
    PrimitiveType type{};
    int64_t rank = -1;     // -1: empty
    int64_t elements = 0;  // checked before the dims, which live behind the literal
    std::shared_ptr<Literal> literal;
  };
  static constexpr size_t kSize = 16;
  alignas(16) std::array<uint8_t, kSize> tags{};  // 0: empty
  std::array<Entry, kSize> entries;
  size_t next = 0;  // the slot the next freed array takes (the oldest)
  struct Scalars {
    static constexpr int kKept = 4;
    std::array<std::shared_ptr<Literal>, kKept> kept;
    int count = 0;
  };
  std::array<Scalars, kNumPrimitiveTypes> scalars;
};

// A nonzero byte from the key.
uint8_t TagOf(PrimitiveType type, int64_t rank, uint64_t elements) {
  uint64_t h = (elements * 0x9E3779B97F4A7C15ull) ^ (static_cast<uint64_t>(type) << 8) ^
               static_cast<uint64_t>(rank);
  h *= 0xBF58476D1CE4E5B9ull;
  const uint8_t t = static_cast<uint8_t>(h >> 56);
  return t != 0 ? t : 1;
}

// Bit i set where tags[i] == tag.
uint32_t MatchingTags(const std::array<uint8_t, Bin::kSize>& tags, uint8_t tag) {
#if defined(__SSE2__)
  const __m128i all = _mm_load_si128(reinterpret_cast<const __m128i*>(tags.data()));
  return static_cast<uint32_t>(
      _mm_movemask_epi8(_mm_cmpeq_epi8(all, _mm_set1_epi8(static_cast<char>(tag)))));
#else
  uint32_t bits = 0;
  for (size_t i = 0; i < Bin::kSize; ++i) bits |= static_cast<uint32_t>(tags[i] == tag) << i;
  return bits;
#endif
}

Bin& ThreadBin() {
  thread_local Bin bin;
  return bin;
}

// Storage that matches the literal's dims (a kernel that moved a result's
// storage out leaves it short).
bool Whole(const Literal& lit) {
  int64_t n = 1;
  for (int64_t d : lit.shape().dims()) n *= d;
  return lit.element_count() == n &&
         lit.size_bytes() == static_cast<size_t>(n) * ByteWidth(lit.element_type());
}

bool StaticArray(const Shape& shape) {
  if (!shape.IsArray()) return false;
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (shape.is_dynamic_dim(i)) return false;
  }
  return true;
}

}  // namespace

void RecycleArray(Value& value) {
  if (value.unique() && value.array().shape().rank() == 0) {
    const Literal& lit = value.array();
    Bin::Scalars& s = ThreadBin().scalars[static_cast<size_t>(lit.element_type())];
    if (s.count < Bin::Scalars::kKept && lit.element_count() == 1 &&
        lit.size_bytes() == static_cast<size_t>(ByteWidth(lit.element_type()))) {
      s.kept[s.count++] = value.TakeArray();
    }
    value = Value();
    return;
  }
  if (value.unique() && value.array().size_bytes() <= kMaxRecycledBytes &&
      StaticArray(value.array().shape()) && Whole(value.array())) {
    Bin& bin = ThreadBin();
    const size_t at = bin.next;
    Bin::Entry& e = bin.entries[at];
    bin.next = (bin.next + 1) % Bin::kSize;
    e.type = value.array().element_type();
    e.rank = value.array().shape().rank();
    e.elements = value.array().element_count();
    bin.tags[at] = TagOf(e.type, e.rank, static_cast<uint64_t>(e.elements));
    e.literal = value.TakeArray();  // the oldest array is freed here
  }
  value = Value();
}

std::shared_ptr<Literal> ReuseArray(const Shape& shape) {
  const PrimitiveType type = shape.element_type();
  const int64_t rank = shape.rank();
  if (rank == 0 && shape.IsArray()) {
    Bin::Scalars& s = ThreadBin().scalars[static_cast<size_t>(type)];
    return s.count > 0 ? std::move(s.kept[--s.count]) : nullptr;
  }
  if (!StaticArray(shape)) return nullptr;
  uint64_t elements = 1;  // wraps for huge shapes: then the dims differ
  for (int64_t d : shape.dims()) elements *= static_cast<uint64_t>(d);
  Bin& bin = ThreadBin();
  for (uint32_t m = MatchingTags(bin.tags, TagOf(type, rank, elements)); m != 0; m &= m - 1) {
    const size_t i = static_cast<size_t>(__builtin_ctz(m));
    Bin::Entry& e = bin.entries[i];
    if (e.rank != rank || e.type != type || static_cast<uint64_t>(e.elements) != elements) continue;
    // Same dims: the same element count, which was small.
    absl::Span<const int64_t> have = e.literal->shape().dims();
    if (!std::equal(have.begin(), have.end(), shape.dims().begin())) continue;
    e.rank = -1;
    bin.tags[i] = 0;
    return std::move(e.literal);
  }
  return nullptr;
}

}  // namespace hlo
