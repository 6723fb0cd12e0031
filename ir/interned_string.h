// Process-wide interned strings: each distinct text is stored once and a
// handle is one pointer. Metadata and frontend attributes repeat the same
// keys and values (op names, source files) across many instructions, so
// interning them keeps the IR small and parsing free of per-value mallocs.
#ifndef HLO_IR_INTERNED_STRING_H_
#define HLO_IR_INTERNED_STRING_H_

#include <string>
#include <string_view>

namespace hlo {

class InternedString {
 public:
  InternedString();                       // the empty string
  InternedString(std::string_view text);  // NOLINT: implicit by design
  InternedString(const char* text) : InternedString(std::string_view(text)) {}         // NOLINT
  InternedString(const std::string& text) : InternedString(std::string_view(text)) {}  // NOLINT

  const std::string& str() const { return *text_; }
  operator std::string_view() const { return *text_; }  // NOLINT
  bool empty() const { return text_->empty(); }
  size_t size() const { return text_->size(); }

  // Interned, so equal texts share one pointer.
  bool operator==(const InternedString& other) const { return text_ == other.text_; }
  bool operator==(std::string_view other) const { return *text_ == other; }
  bool operator==(const char* other) const { return *text_ == other; }
  bool operator==(const std::string& other) const { return *text_ == other; }
  std::string::const_iterator begin() const { return text_->begin(); }
  std::string::const_iterator end() const { return text_->end(); }
  const char* data() const { return text_->data(); }
  bool operator<(const InternedString& other) const { return *text_ < *other.text_; }

 private:
  const std::string* text_;
};

}  // namespace hlo

#endif  // HLO_IR_INTERNED_STRING_H_
