// The buffer pool's pieces: a freed block serves smaller requests (split)
// and, once its pieces are free again, a request of its whole size (merged);
// the arena's free neighbours merge and its front grows only by what no
// free piece holds; pieces handed out never overlap.
#include "ir/buffer_pool.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace hlo {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

size_t Mapped() { return buffer_pool::LiveBytes() + buffer_pool::CachedBytes(); }

TEST_CASE("buffer pool: a freed block is split for smaller requests and merged again", "[pool]") {
  if (!buffer_pool::Enabled()) return;  // AddressSanitizer: malloc's blocks
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
  const size_t live = buffer_pool::LiveBytes();
  void* p = buffer_pool::Allocate(5 * kMiB + 1);  // whole 64 KiB units
  CHECK(buffer_pool::LiveBytes() == live + 5 * kMiB + (size_t{64} << 10));
  const size_t cached = buffer_pool::CachedBytes();
  buffer_pool::Free(p, 5 * kMiB + 1);
  CHECK(buffer_pool::LiveBytes() == live);
  CHECK(buffer_pool::CachedBytes() == cached + 5 * kMiB + (size_t{64} << 10));
  buffer_pool::Free(nullptr, 0);  // nothing
}

TEST_CASE("buffer pool: free neighbours in the arena merge for a larger request", "[pool]") {
  buffer_pool::PiecePool pool(64 * kMiB);
  auto* a = static_cast<char*>(pool.Allocate(kMiB));
  auto* b = static_cast<char*>(pool.Allocate(kMiB));
  if (pool.ArenaBytes() == 0) {  // no reservation here (ulimit -v): nothing to test
    pool.Free(a);
    pool.Free(b);
    return;
  }
  CHECK(b == a + kMiB);  // cut one after the other from the front
  CHECK(pool.ArenaBytes() == 2 * kMiB);
  pool.Free(a);
  pool.Free(b);
  // Two separate requests' pieces make one: 2 MiB fits, the front stays.
  void* c = pool.Allocate(2 * kMiB);
  CHECK(c == a);
  CHECK(pool.ArenaBytes() == 2 * kMiB);
  CHECK(pool.LiveBytes() == 2 * kMiB);
  CHECK(pool.CachedBytes() == 0);
  pool.Free(c);
}

TEST_CASE("buffer pool: the front grows by what the free last piece lacks", "[pool]") {
  buffer_pool::PiecePool pool(64 * kMiB);
  auto* x = static_cast<char*>(pool.Allocate(kMiB));
  auto* y = static_cast<char*>(pool.Allocate(kMiB));
  if (pool.ArenaBytes() == 0) {
    pool.Free(x);
    pool.Free(y);
    return;
  }
  pool.Free(y);
  auto* z = static_cast<char*>(pool.Allocate(3 * kMiB));
  CHECK(z == y);
  CHECK(pool.ArenaBytes() == 4 * kMiB);
  CHECK(pool.CachedBytes() == 0);
  std::memset(z, 0x5a, 3 * kMiB);  // all of it is writable
  pool.Free(x);
  pool.Free(z);
  CHECK(pool.CachedBytes() == 4 * kMiB);
}

TEST_CASE("buffer pool: past the reservation a block gets a mapping of its own", "[pool]") {
  buffer_pool::PiecePool pool(4 * kMiB);
  auto* a = static_cast<char*>(pool.Allocate(3 * kMiB));
  auto* b = static_cast<char*>(pool.Allocate(3 * kMiB));
  CHECK(pool.ArenaBytes() <= 4 * kMiB);
  CHECK(pool.LiveBytes() == 6 * kMiB);
  std::memset(a, 1, 3 * kMiB);
  std::memset(b, 2, 3 * kMiB);
  CHECK(a[3 * kMiB - 1] == 1);
  pool.Free(a);
  pool.Free(b);
  CHECK(pool.CachedBytes() == 6 * kMiB);
}

TEST_CASE("buffer pool: past the cache limit the free front goes back", "[pool]") {
  buffer_pool::PiecePool pool(64 * kMiB);
  pool.SetMaxCachedBytes(kMiB);
  auto* a = static_cast<unsigned char*>(pool.Allocate(2 * kMiB));
  std::memset(a, 0x5a, 2 * kMiB);
  pool.Free(a);
  CHECK(pool.ArenaBytes() == 0);
  CHECK(pool.CachedBytes() == 0);
  // Its pages were dropped: the same addresses come back zeroed.
  auto* again = static_cast<unsigned char*>(pool.Allocate(2 * kMiB));
  CHECK(again[0] == 0);
  CHECK(again[2 * kMiB - 1] == 0);
  pool.Free(again);
}

TEST_CASE("buffer pool: random requests never overlap and account for every byte", "[pool]") {
  buffer_pool::PiecePool pool(size_t{1} << 30);
  std::mt19937 rng(7);
  struct Block {
    unsigned char* data;
    size_t bytes;
    unsigned char mark;
  };
  std::vector<Block> held;
  for (int step = 0; step < 600; ++step) {
    if (!held.empty() && (held.size() > 24 || rng() % 3 == 0)) {
      const size_t i = rng() % held.size();
      const Block b = held[i];
      CHECK(b.data[0] == b.mark);  // no later block wrote over it
      CHECK(b.data[b.bytes - 1] == b.mark);
      pool.Free(b.data);
      held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      const size_t bytes = (size_t{1} << (16 + rng() % 7)) + rng() % 100000;
      const auto mark = static_cast<unsigned char>(step);
      auto* data = static_cast<unsigned char*>(pool.Allocate(bytes));
      REQUIRE(reinterpret_cast<uintptr_t>(data) % 64 == 0);
      std::memset(data, mark, bytes);
      held.push_back({data, bytes, mark});
    }
    if (pool.ArenaBytes() > 0) {  // every arena byte is handed out or free
      REQUIRE(pool.LiveBytes() + pool.CachedBytes() == pool.ArenaBytes());
    }
  }
  for (const Block& b : held) {
    CHECK(b.data[0] == b.mark);
    pool.Free(b.data);
  }
  CHECK(pool.LiveBytes() == 0);
}

}  // namespace
}  // namespace hlo
