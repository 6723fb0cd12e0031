// ConfigInts: the integer fields of XLA's `{key=[1,2]}` backend configs.
#include "ir/config_ints.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

namespace hlo {
namespace {

using Ints = std::vector<int64_t>;

TEST_CASE("ConfigInts reads lists and single integers", "[config_ints]") {
  CHECK(ConfigInts("{broadcast_dimensions=[0,1]}", "broadcast_dimensions") == Ints{0, 1});
  CHECK(ConfigInts("{broadcast_dimensions=[2, -1, 3]}", "broadcast_dimensions") == Ints{2, -1, 3});
  CHECK(ConfigInts("{broadcast_dimensions=[]}", "broadcast_dimensions") == Ints{});
  CHECK(ConfigInts("{iota_dimension=1}", "iota_dimension") == Ints{1});
  CHECK(ConfigInts("{a=4,iota_dimension=7}", "iota_dimension") == Ints{7});
}

TEST_CASE("ConfigInts refuses what it cannot read", "[config_ints]") {
  CHECK_FALSE(ConfigInts("{}", "iota_dimension").has_value());
  CHECK_FALSE(ConfigInts("", "iota_dimension").has_value());
  // A key that only ends another key's name is not it.
  CHECK_FALSE(ConfigInts("{xiota_dimension=1}", "iota_dimension").has_value());
  CHECK_FALSE(ConfigInts("{iota_dimension=x}", "iota_dimension").has_value());
  CHECK_FALSE(ConfigInts("{broadcast_dimensions=[0,1", "broadcast_dimensions").has_value());
  CHECK_FALSE(ConfigInts("{broadcast_dimensions=[0,,1]}", "broadcast_dimensions").has_value());
}

}  // namespace
}  // namespace hlo
