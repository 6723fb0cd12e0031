// An instruction's attributes: one pointer in the instruction, the count
// and capacity in front of the elements on the heap. Most instructions have
// zero to two attributes, and the instruction is the IR's most numerous
// object, so its size matters (see scripts/bench-parse).
#ifndef HLO_IR_ATTRIBUTE_LIST_H_
#define HLO_IR_ATTRIBUTE_LIST_H_

#include <cstdint>

#include "absl/types/span.h"
#include "ir/attribute.h"

namespace hlo {

class AttributeList {
 public:
  AttributeList() = default;
  AttributeList(const AttributeList&) = delete;
  AttributeList& operator=(const AttributeList&) = delete;
  AttributeList(AttributeList&& o) noexcept : block_(o.block_) { o.block_ = nullptr; }
  AttributeList& operator=(AttributeList&& o) noexcept {
    if (this != &o) {
      Clear();
      block_ = o.block_;
      o.block_ = nullptr;
    }
    return *this;
  }
  ~AttributeList() { Clear(); }

  absl::Span<const Attribute> span() const {
    return block_ ? absl::Span<const Attribute>(data(), block_->size)
                  : absl::Span<const Attribute>();
  }
  Attribute* begin() { return block_ ? data() : nullptr; }
  Attribute* end() { return block_ ? data() + block_->size : nullptr; }
  size_t size() const { return block_ ? block_->size : 0; }

  void push_back(Attribute attr);
  // Removes every attribute of `kind`.
  void Erase(AttrKind kind);
  void Clear();

 private:
  struct Header {
    uint32_t size;
    uint32_t capacity;
  };
  // Elements start at the next multiple of alignof(Attribute) after the header.
  static constexpr size_t kOffset =
      (sizeof(Header) + alignof(Attribute) - 1) / alignof(Attribute) * alignof(Attribute);
  Attribute* data() const {
    return reinterpret_cast<Attribute*>(reinterpret_cast<char*>(block_) + kOffset);
  }
  static constexpr size_t BlockBytes(uint32_t capacity) {
    return kOffset + sizeof(Attribute) * capacity;
  }
  static Header* Allocate(uint32_t capacity);

  Header* block_ = nullptr;
};

}  // namespace hlo

#endif  // HLO_IR_ATTRIBUTE_LIST_H_
