// The element types a literal stores as plain C++ numbers of their own
// width (f32, f64 and the integers of whole bytes): the ones a typed loop
// over lit.typed<T>() can format or copy without a per-element switch, and
// the block formatter the literal text and JSON writers share for them.
#ifndef HLO_IR_PLAIN_NUMBERS_H_
#define HLO_IR_PLAIN_NUMBERS_H_

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>

#include "ir/primitive_type.h"

namespace hlo {

// Calls f(T{}) with the C++ type of `type` and returns true when it is one
// of those types; false (f not called) otherwise.
template <typename F>
bool VisitPlainNumberType(PrimitiveType type, F&& f) {
#define HLO_PLAIN_NUMBER(P, T) \
  case PrimitiveType::P:       \
    f(T{});                    \
    return true;
  switch (type) {
    HLO_PLAIN_NUMBER(kF32, float)
    HLO_PLAIN_NUMBER(kF64, double)
    HLO_PLAIN_NUMBER(kS8, int8_t)
    HLO_PLAIN_NUMBER(kS16, int16_t)
    HLO_PLAIN_NUMBER(kS32, int32_t)
    HLO_PLAIN_NUMBER(kS64, int64_t)
    HLO_PLAIN_NUMBER(kU8, uint8_t)
    HLO_PLAIN_NUMBER(kU16, uint16_t)
    HLO_PLAIN_NUMBER(kU32, uint32_t)
    HLO_PLAIN_NUMBER(kU64, uint64_t)
    default:
      return false;
  }
#undef HLO_PLAIN_NUMBER
}

// Room one f32, f64 or 64-bit integer element, its ", " and a two-character
// suffix take at most (to_chars' longest: "-2.2250738585072014e-308").
inline constexpr size_t kMaxPlainNumberText = 34;

// Appends data[0, n), ", "-separated, formatting a block of elements at a
// time into a stack buffer with to_chars and appending once per block, and
// offers the text to `drain` (if any) after each block but the last (it may
// empty `out`). A per-element type switch and several appends each, with the
// whole text held, wrote 8M f32 at 40 MB/s. `suffix(start, end)` returns the
// new end after a finite float's digits [start, end) (room for two more
// characters); non-finite floats go to `slow(out, k)` (NaN payloads, each
// format's spelling).
template <typename T, typename Suffix, typename Slow>
void AppendPlainNumbers(std::string& out, const T* data, int64_t n, Suffix suffix, Slow slow,
                        const std::function<void(std::string&)>* drain) {
  constexpr int64_t kBlock = 512;
  char block[kBlock * kMaxPlainNumberText];
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = std::min(kBlock, n - b);
    char* p = block;
    for (int64_t k = b; k < b + m; ++k) {
      if (k) *p++ = ',', *p++ = ' ';
      if constexpr (std::is_floating_point_v<T>) {
        if (!std::isfinite(data[k])) {
          out.append(block, p);
          p = block;
          slow(out, k);
          continue;
        }
        char* start = p;
        p = suffix(start, std::to_chars(p, block + sizeof(block), data[k]).ptr);
      } else {
        p = std::to_chars(p, block + sizeof(block), data[k]).ptr;
      }
    }
    out.append(block, p);
    if (drain != nullptr && b + m < n) (*drain)(out);  // (the caller drains the end)
  }
}

}  // namespace hlo

#endif  // HLO_IR_PLAIN_NUMBERS_H_
