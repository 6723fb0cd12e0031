#include "eval/array_recycler.h"

#include <algorithm>
#include <array>

namespace hlo {
namespace {

// A ring of the last arrays freed on this thread, each with the key a
// request is matched on first (bytes and element type), so a miss costs a
// scan of 16 integers.
struct Bin {
  struct Entry {
    size_t bytes = 0;
    PrimitiveType type{};
    std::shared_ptr<Literal> literal;
  };
  static constexpr size_t kSize = 16;
  std::array<Entry, kSize> entries;
  size_t next = 0;  // the slot the next freed array takes (the oldest)
};

Bin& ThreadBin() {
  thread_local Bin bin;
  return bin;
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
  if (value.unique() && value.array().size_bytes() <= kMaxRecycledBytes &&
      StaticArray(value.array().shape())) {
    Bin& bin = ThreadBin();
    Bin::Entry& e = bin.entries[bin.next];
    bin.next = (bin.next + 1) % Bin::kSize;
    e.bytes = value.array().size_bytes();
    e.type = value.array().element_type();
    e.literal = value.TakeArray();  // the oldest array is freed here
  }
  value = Value();
}

std::shared_ptr<Literal> ReuseArray(const Shape& shape) {
  if (!shape.IsArray()) return nullptr;
  const int64_t n = shape.ElementCount();
  const int64_t width = ByteWidth(shape.element_type());
  if (n < 0 || width <= 0 || n > static_cast<int64_t>(kMaxRecycledBytes) / width) return nullptr;
  const size_t bytes = static_cast<size_t>(n * width);
  Bin& bin = ThreadBin();
  for (Bin::Entry& e : bin.entries) {
    if (e.bytes != bytes || e.type != shape.element_type() || e.literal == nullptr) continue;
    const Shape& have = e.literal->shape();
    if (!std::equal(have.dims().begin(), have.dims().end(), shape.dims().begin(),
                    shape.dims().end()) ||
        !StaticArray(shape)) {
      continue;
    }
    e.bytes = 0;
    return std::move(e.literal);
  }
  return nullptr;
}

}  // namespace hlo
