// ParseInt64 / ParseDouble: one optional sign, the whole text a number.
#include "ir/strings.h"

#include <catch2/catch.hpp>
#include <cstdint>

namespace hlo {
namespace {

TEST_CASE("ParseInt64 and ParseDouble take one optional sign", "[strings]") {
  int64_t i = 7;
  CHECK(ParseInt64("+12", &i));
  CHECK(i == 12);
  CHECK(ParseInt64("-12", &i));
  CHECK(i == -12);
  CHECK_FALSE(ParseInt64("+-0", &i));  // found by the npy fuzzer
  CHECK_FALSE(ParseInt64("+-5", &i));
  CHECK_FALSE(ParseInt64("++5", &i));
  CHECK_FALSE(ParseInt64("+", &i));
  CHECK_FALSE(ParseInt64("5x", &i));
  double d = 0;
  CHECK(ParseDouble("+1.5", &d));
  CHECK(d == 1.5);
  CHECK_FALSE(ParseDouble("+-1.5", &d));
}

}  // namespace
}  // namespace hlo
