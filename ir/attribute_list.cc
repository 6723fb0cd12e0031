#include "ir/attribute_list.h"

#include <new>
#include <utility>

#include "ir/slab_pool.h"

namespace hlo {

AttributeList::Header* AttributeList::Allocate(uint32_t capacity) {
  static_assert(alignof(Attribute) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
  // One and two attributes are the common blocks: they come from slab pools.
  void* raw = capacity == 1   ? SlabPool<BlockBytes(1)>::Allocate()
              : capacity == 2 ? SlabPool<BlockBytes(2)>::Allocate()
                              : ::operator new(BlockBytes(capacity));
  Header* h = static_cast<Header*>(raw);
  h->size = 0;
  h->capacity = capacity;
  return h;
}

void AttributeList::push_back(Attribute attr) {
  if (block_ == nullptr || block_->size == block_->capacity) {
    // Exact for the first two (the common case), then doubling.
    uint32_t old_size = block_ ? block_->size : 0;
    uint32_t capacity = old_size < 2 ? old_size + 1 : old_size * 2;
    Header* grown = Allocate(capacity);
    Attribute* to = reinterpret_cast<Attribute*>(reinterpret_cast<char*>(grown) + kOffset);
    // No block yet: nothing to move, and data() would offset a null pointer (UB).
    Attribute* from = block_ ? data() : nullptr;
    for (uint32_t i = 0; i < old_size; ++i) {
      new (to + i) Attribute(std::move(from[i]));
      from[i].~Attribute();
    }
    grown->size = old_size;
    if (block_) {
      block_->size = 0;
      Clear();
    }
    block_ = grown;
  }
  new (data() + block_->size) Attribute(std::move(attr));
  ++block_->size;
}

void AttributeList::Erase(AttrKind kind) {
  if (block_ == nullptr) return;
  Attribute* a = data();
  uint32_t kept = 0;
  for (uint32_t i = 0; i < block_->size; ++i) {
    if (a[i].kind == kind) continue;
    if (kept != i) a[kept] = std::move(a[i]);
    ++kept;
  }
  for (uint32_t i = kept; i < block_->size; ++i) a[i].~Attribute();
  block_->size = kept;
}

void AttributeList::Clear() {
  if (block_ == nullptr) return;
  Attribute* a = data();
  for (uint32_t i = 0; i < block_->size; ++i) a[i].~Attribute();
  if (block_->capacity == 1) {
    SlabPool<BlockBytes(1)>::Free(block_);
  } else if (block_->capacity == 2) {
    SlabPool<BlockBytes(2)>::Free(block_);
  } else {
    ::operator delete(block_);
  }
  block_ = nullptr;
}

}  // namespace hlo
