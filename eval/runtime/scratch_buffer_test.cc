// ScratchBuffer: blocks of kMinPooledScratchBytes and more come from the
// buffer pool (pages kept between runs), smaller ones from the heap; under
// AddressSanitizer the pool is off and every block comes from the heap.
#include "eval/runtime/scratch_buffer.h"

#include <catch2/catch.hpp>
#include <cstdint>

#include "ir/buffer_pool.h"

namespace hlo {
namespace {

constexpr int64_t kPooledFloats = static_cast<int64_t>(kMinPooledScratchBytes / sizeof(float));

TEST_CASE("scratch blocks from 64 KiB up come from the pool and go back to it") {
  // Winograd's per-worker blocks are 256-263 KiB: from the pool, not malloc.
  for (int64_t n : {kPooledFloats, int64_t{263} * 1024 / 4}) {
    const size_t live = buffer_pool::LiveBytes();
    {
      ScratchBuffer<float> s;
      REQUIRE(s.Reset(n).ok());
      s[n - 1] = 1.0f;  // writable to its end
      const size_t held = buffer_pool::LiveBytes() - live;
      if (buffer_pool::Enabled()) {
        CHECK(held >= static_cast<size_t>(n) * sizeof(float));
      } else {
        CHECK(held == 0);
      }
    }
    CHECK(buffer_pool::LiveBytes() == live);  // handed back on destruction
  }
}

TEST_CASE("scratch blocks under 64 KiB come from the heap") {
  const size_t live = buffer_pool::LiveBytes();
  ScratchBuffer<float> s;
  REQUIRE(s.Reset(kPooledFloats - 1).ok());
  CHECK(buffer_pool::LiveBytes() == live);
}

}  // namespace
}  // namespace hlo
