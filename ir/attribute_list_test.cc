// AttributeList: growth from empty through the slab blocks to the heap, erase
// and clear. The first push_back into an empty list once offset a null block
// pointer (undefined behaviour that clang's UBSan reports on every parse of a
// module with an attribute); this test is that regression case under
// `scripts/test --asan`.
#include "ir/attribute_list.h"

#include <catch2/catch.hpp>

namespace hlo {
namespace {

TEST_CASE("AttributeList grows from empty and keeps its values", "[attribute_list]") {
  AttributeList list;
  CHECK(list.size() == 0);
  CHECK(list.span().empty());
  CHECK(list.begin() == list.end());
  for (int64_t i = 0; i < 7; ++i) {
    list.push_back(Attribute{AttrKind::kWindow, i});  // 1, 2 (slabs), then 4, 8 (heap)
    REQUIRE(list.size() == static_cast<size_t>(i + 1));
  }
  int64_t expected = 0;
  for (const Attribute& a : list.span()) CHECK(std::get<int64_t>(a.value) == expected++);
  list.Erase(AttrKind::kWindow);
  CHECK(list.size() == 0);
  list.push_back(Attribute{AttrKind::kWindow, int64_t{42}});
  CHECK(std::get<int64_t>(list.span()[0].value) == 42);
  AttributeList moved = std::move(list);
  CHECK(list.size() == 0);
  CHECK(moved.size() == 1);
  moved.Clear();
  CHECK(moved.size() == 0);
  moved.push_back(Attribute{AttrKind::kWindow, int64_t{7}});  // empty again: a fresh block
  CHECK(moved.size() == 1);
}

}  // namespace
}  // namespace hlo
