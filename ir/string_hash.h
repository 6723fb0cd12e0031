// A fast hash for short strings (names, shape texts, attribute words), the
// keys of the parser's tables. Debian's Abseil hashes std::string_view with
// std::hash and its own strings through an out-of-line call; this one is
// inline and a handful of instructions for up to 16 bytes: two overlapping
// loads mixed by a 64x64->128-bit multiply (as wyhash does), which spreads
// every input bit over the high and low bits that flat_hash_map uses.
#ifndef HLO_IR_STRING_HASH_H_
#define HLO_IR_STRING_HASH_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace hlo {

namespace string_hash_internal {
inline uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline uint64_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline uint64_t Mix(uint64_t a, uint64_t b) {
  const unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}
constexpr uint64_t kSeed0 = 0xa0761d6478bd642full;
constexpr uint64_t kSeed1 = 0xe7037ed1a0b428dbull;
constexpr uint64_t kSeed2 = 0x8ebc6af09c88c6e3ull;
}  // namespace string_hash_internal

inline size_t HashString(std::string_view s) {
  using namespace string_hash_internal;
  const char* p = s.data();
  const size_t n = s.size();
  uint64_t seed = kSeed0 ^ n;
  uint64_t a, b;
  if (n <= 16) {
    if (n >= 8) {
      a = Load64(p);
      b = Load64(p + n - 8);
    } else if (n >= 4) {
      a = Load32(p);
      b = Load32(p + n - 4);
    } else if (n > 0) {
      a = (uint64_t{static_cast<uint8_t>(p[0])} << 16) |
          (uint64_t{static_cast<uint8_t>(p[n >> 1])} << 8) | static_cast<uint8_t>(p[n - 1]);
      b = 0;
    } else {
      a = b = 0;
    }
  } else {
    size_t left = n;
    while (left > 16) {
      seed = Mix(Load64(p) ^ kSeed1, Load64(p + 8) ^ seed);
      p += 16;
      left -= 16;
    }
    a = Load64(p + left - 16);
    b = Load64(p + left - 8);
  }
  return Mix(kSeed1 ^ n, Mix(a ^ kSeed1, b ^ seed) ^ kSeed2);
}

struct StringViewHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return HashString(s); }
};

}  // namespace hlo

#endif  // HLO_IR_STRING_HASH_H_
