// The buffer pool's pieces: a freed block serves smaller requests (split)
// and, once its pieces are free again, a request of its whole size (merged),
// without mapping more; pieces handed out never overlap.
#include "ir/buffer_pool.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>

namespace hlo {
namespace {

size_t Mapped() { return buffer_pool::LiveBytes() + buffer_pool::CachedBytes(); }

TEST_CASE("buffer pool: a freed block is split for smaller requests and merged again", "[pool]") {
  if (!buffer_pool::Enabled()) return;  // AddressSanitizer: malloc's blocks
  constexpr size_t kMiB = size_t{1} << 20;
  void* whole = buffer_pool::Allocate(8 * kMiB);
  const size_t mapped = Mapped();
  buffer_pool::Free(whole, 8 * kMiB);
  REQUIRE(Mapped() == mapped);
  // Two 3 MiB requests fit in the free 8 MiB: nothing new is mapped.
  auto* a = static_cast<unsigned char*>(buffer_pool::Allocate(3 * kMiB));
  auto* b = static_cast<unsigned char*>(buffer_pool::Allocate(3 * kMiB));
  CHECK(Mapped() == mapped);
  std::memset(a, 0x11, 3 * kMiB);
  std::memset(b, 0x22, 3 * kMiB);
  CHECK(a[0] == 0x11);
  CHECK(a[3 * kMiB - 1] == 0x11);  // b does not overlap a
  CHECK(b[3 * kMiB - 1] == 0x22);
  buffer_pool::Free(a, 3 * kMiB);
  buffer_pool::Free(b, 3 * kMiB);
  // Their pieces merge with the rest: the whole size fits without mapping.
  void* again = buffer_pool::Allocate(8 * kMiB);
  CHECK(Mapped() == mapped);
  buffer_pool::Free(again, 8 * kMiB);
}

TEST_CASE("buffer pool: live and cached bytes follow allocation and release", "[pool]") {
  if (!buffer_pool::Enabled()) return;
  constexpr size_t kMiB = size_t{1} << 20;
  const size_t live = buffer_pool::LiveBytes();
  void* p = buffer_pool::Allocate(5 * kMiB + 1);  // whole 64 KiB units
  CHECK(buffer_pool::LiveBytes() == live + 5 * kMiB + (size_t{64} << 10));
  const size_t cached = buffer_pool::CachedBytes();
  buffer_pool::Free(p, 5 * kMiB + 1);
  CHECK(buffer_pool::LiveBytes() == live);
  CHECK(buffer_pool::CachedBytes() == cached + 5 * kMiB + (size_t{64} << 10));
  buffer_pool::Free(nullptr, 0);  // nothing
}

}  // namespace
}  // namespace hlo
