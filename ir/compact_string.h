// A 24-byte string for instruction names: up to 23 bytes inline (names like
// `exponential.123456` need no heap block, where std::string keeps 15), and
// 8 bytes smaller than std::string in the IR's most numerous object.
#ifndef HLO_IR_COMPACT_STRING_H_
#define HLO_IR_COMPACT_STRING_H_

#include <cstdint>
#include <cstring>
#include <string_view>

namespace hlo {

class CompactString {
 public:
  CompactString() { buf_[kLast] = kInline; }
  explicit CompactString(std::string_view s) { Init(s); }
  CompactString(const CompactString& o) { Init(o.view()); }
  CompactString(CompactString&& o) noexcept {
    std::memcpy(buf_, o.buf_, sizeof buf_);
    o.buf_[kLast] = kInline;
  }
  CompactString& operator=(std::string_view s) {
    if (s.data() == view().data() && s.size() == size()) return *this;
    CompactString copy(s);
    Swap(copy);
    return *this;
  }
  CompactString& operator=(const CompactString& o) { return *this = o.view(); }
  CompactString& operator=(CompactString&& o) noexcept {
    if (this != &o) Swap(o);
    return *this;
  }
  ~CompactString() {
    if (on_heap()) delete[] heap_data();
  }

  std::string_view view() const {
    return on_heap() ? std::string_view(heap_data(), heap_size())
                     : std::string_view(buf_, kInline - static_cast<uint8_t>(buf_[kLast]));
  }
  size_t size() const { return view().size(); }

 private:
  // Inline: the last byte is kInline - size (0..23; 0 doubles as the NUL of
  // a full buffer). On the heap: the last byte is kHeap and the first 16
  // bytes hold the pointer and the size.
  static constexpr size_t kInline = 23;
  static constexpr size_t kLast = 23;
  static constexpr uint8_t kHeap = 0xFF;

  bool on_heap() const { return static_cast<uint8_t>(buf_[kLast]) == kHeap; }
  char* heap_data() const {
    char* p;
    std::memcpy(&p, buf_, sizeof p);
    return p;
  }
  size_t heap_size() const {
    size_t n;
    std::memcpy(&n, buf_ + sizeof(char*), sizeof n);
    return n;
  }
  void Init(std::string_view s) {
    if (s.size() <= kInline) {
      // An empty view may have a null data(), which memcpy must not get.
      if (!s.empty()) std::memcpy(buf_, s.data(), s.size());
      buf_[kLast] = static_cast<char>(kInline - s.size());
      return;
    }
    char* p = new char[s.size()];
    std::memcpy(p, s.data(), s.size());
    size_t n = s.size();
    std::memcpy(buf_, &p, sizeof p);
    std::memcpy(buf_ + sizeof p, &n, sizeof n);
    buf_[kLast] = static_cast<char>(kHeap);
  }
  void Swap(CompactString& o) noexcept {
    char tmp[sizeof buf_];
    std::memcpy(tmp, buf_, sizeof buf_);
    std::memcpy(buf_, o.buf_, sizeof buf_);
    std::memcpy(o.buf_, tmp, sizeof buf_);
  }

  alignas(8) char buf_[24];
};

}  // namespace hlo

#endif  // HLO_IR_COMPACT_STRING_H_
