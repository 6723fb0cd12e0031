#include "ir/compact_string.h"

#include <catch2/catch.hpp>
#include <string>

namespace hlo {
namespace {

TEST_CASE("CompactString holds every length inline or on the heap", "[compact_string]") {
  for (size_t n : {0, 1, 15, 16, 22, 23, 24, 25, 100}) {
    std::string text(n, 'a');
    for (size_t i = 0; i < n; ++i) text[i] = static_cast<char>('a' + i % 26);
    CompactString s(text);
    CHECK(s.view() == text);
    CHECK(s.size() == n);
    CompactString copy(s);
    CHECK(copy.view() == text);
    CompactString moved(std::move(copy));
    CHECK(moved.view() == text);
    CHECK(copy.view().empty());  // NOLINT: moved-from is empty by design
    CompactString assigned;
    assigned = moved;
    CHECK(assigned.view() == text);
  }
}

TEST_CASE("CompactString from an empty view with no data", "[compact_string]") {
  // std::string_view() has a null data(); UBSan flags a memcpy from it.
  CompactString s{std::string_view()};
  CHECK(s.view().empty());
  s = std::string_view();
  CHECK(s.size() == 0);
}

TEST_CASE("CompactString assignment from its own view and from longer text", "[compact_string]") {
  CompactString s(std::string(40, 'x'));
  s = s.view().substr(3, 30);  // overlapping heap source
  CHECK(s.view() == std::string(30, 'x'));
  s = s.view().substr(0, 5);  // heap -> inline
  CHECK(s.view() == "xxxxx");
  s = s.view();  // itself
  CHECK(s.view() == "xxxxx");
  s = std::string_view("exponential.123456");
  CHECK(s.view() == "exponential.123456");
  s = std::string_view("get-tuple-element.1234567");  // inline -> heap
  CHECK(s.view() == "get-tuple-element.1234567");
}

}  // namespace
}  // namespace hlo
