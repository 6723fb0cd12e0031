// StreamCopy: memcpy's result for every head alignment and length around the
// 16- and 64-byte steps, and nothing written past the end.
#include "eval/runtime/stream_store.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <vector>

namespace hlo {
namespace {

TEST_CASE("StreamCopy copies like memcpy at any alignment and length", "[stream_store]") {
  std::vector<uint8_t> src(400);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 37 + 11);
  for (size_t offset = 0; offset < 16; ++offset) {
    for (size_t bytes : {0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 200, 255, 333}) {
      alignas(64) uint8_t dst[400 + 64];
      std::memset(dst, 0xEE, sizeof(dst));
      StreamCopy(dst + offset, src.data() + 3, bytes);
      StreamStoreFence();
      INFO("offset " << offset << " bytes " << bytes);
      CHECK(std::memcmp(dst + offset, src.data() + 3, bytes) == 0);
      for (size_t i = 0; i < offset; ++i) CHECK(dst[i] == 0xEE);
      for (size_t i = offset + bytes; i < sizeof(dst); ++i) REQUIRE(dst[i] == 0xEE);
    }
  }
}

}  // namespace
}  // namespace hlo
