// Small string utilities on std::string_view. (Debian's Abseil has its own
// absl::string_view, which does not take std::string_view, so the project
// uses these instead of absl::StrCat and friends.)
#ifndef HLO_IR_STRINGS_H_
#define HLO_IR_STRINGS_H_

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace hlo {
namespace strings_internal {

inline void AppendPiece(std::string& out, std::string_view s) { out.append(s); }
inline void AppendPiece(std::string& out, const char* s) { out.append(s); }
inline void AppendPiece(std::string& out, const std::string& s) { out.append(s); }
inline void AppendPiece(std::string& out, char c) { out.push_back(c); }
void AppendPiece(std::string& out, double v);  // like %g with 6 digits
inline void AppendPiece(std::string& out, float v) { AppendPiece(out, static_cast<double>(v)); }
template <typename T,
          typename = std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, char> &&
                                      !std::is_same_v<T, bool>>>
void AppendPiece(std::string& out, T v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, r.ptr);
}

}  // namespace strings_internal

template <typename... Args>
void StrAppend(std::string* out, const Args&... args) {
  (strings_internal::AppendPiece(*out, args), ...);
}

template <typename... Args>
std::string StrCat(const Args&... args) {
  std::string out;
  (strings_internal::AppendPiece(out, args), ...);
  return out;
}

template <typename Container>
std::string StrJoin(const Container& items, std::string_view sep) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out.append(sep);
    first = false;
    strings_internal::AppendPiece(out, item);
  }
  return out;
}

// Splits on `sep`; keeps empty pieces unless `skip_empty`.
std::vector<std::string_view> StrSplit(std::string_view text, char sep, bool skip_empty = false);
std::string_view StripWhitespace(std::string_view text);

// FNV-1a over `bytes`, continuing from `hash`: the same on every machine
// and build (names of random streams, keys that processes compare).
constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
inline uint64_t Fnv1a(std::string_view bytes, uint64_t hash = kFnvOffset) {
  for (char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

// Whole-string number parsing (optional leading '+' or '-').
bool ParseInt64(std::string_view text, int64_t* out);
bool ParseDouble(std::string_view text, double* out);

}  // namespace hlo

#endif  // HLO_IR_STRINGS_H_
