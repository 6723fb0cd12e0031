// The array recycler (eval/runtime/array_recycler.h): a freed small array is
// handed to the next request of its element type and dimensions, and to no
// other (the same element count and rank in other dimensions, another type);
// scalars come back from their own stacks; the oldest of 16 arrays goes.
// Each case runs on a thread of its own: the bin is per thread.
#include "eval/runtime/array_recycler.h"

#include <catch2/catch.hpp>
#include <thread>
#include <vector>

namespace hlo {
namespace {

using PT = PrimitiveType;

Value Fresh(PT type, std::vector<int64_t> dims) {
  absl::StatusOr<Literal> lit = Literal::Create(Shape::Array(type, dims));
  REQUIRE(lit.ok());
  return Value::FromLiteral(*std::move(lit));
}

template <typename F>
void OnItsOwnThread(F f) {
  std::thread t(f);
  t.join();
}

TEST_CASE("array recycler: an array goes to a request of its type and dims only",
          "[array_recycler]") {
  OnItsOwnThread([] {
    Value a = Fresh(PT::kF32, {3, 4});
    const Literal* held = &a.array();
    RecycleArray(a);
    CHECK_FALSE(a.is_array());
    // Same element count and rank, other dims; same dims, other type; a
    // rank-1 array of 12.
    CHECK(ReuseArray(Shape::Array(PT::kF32, {4, 3})) == nullptr);
    CHECK(ReuseArray(Shape::Array(PT::kS32, {3, 4})) == nullptr);
    CHECK(ReuseArray(Shape::Array(PT::kF32, {12})) == nullptr);
    std::shared_ptr<Literal> got = ReuseArray(Shape::Array(PT::kF32, {3, 4}));
    CHECK(got.get() == held);
    CHECK(ReuseArray(Shape::Array(PT::kF32, {3, 4})) == nullptr);  // taken
  });
}

TEST_CASE("array recycler: the oldest of 16 arrays is freed for the 17th, scalars stack",
          "[array_recycler]") {
  OnItsOwnThread([] {
    std::vector<const Literal*> held;
    for (int64_t k = 1; k <= 17; ++k) {
      Value v = Fresh(PT::kS32, {k});
      held.push_back(&v.array());
      RecycleArray(v);
    }
    CHECK(ReuseArray(Shape::Array(PT::kS32, {1})) == nullptr);  // evicted
    for (int64_t k = 17; k >= 2; --k) {
      std::shared_ptr<Literal> got = ReuseArray(Shape::Array(PT::kS32, {k}));
      REQUIRE(got != nullptr);
      CHECK(got.get() == held[k - 1]);
    }
    Value s = Fresh(PT::kU8, {});
    const Literal* scalar = &s.array();
    RecycleArray(s);
    CHECK(ReuseArray(Shape::Array(PT::kS8, {})) == nullptr);
    CHECK(ReuseArray(Shape::Array(PT::kU8, {})).get() == scalar);
  });
}

}  // namespace
}  // namespace hlo
