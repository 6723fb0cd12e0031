#include "eval/io/random_fill.h"

#include <catch2/catch.hpp>
#include <cstdint>

namespace hlo {
namespace {

// The sequence RandomLiteral documents, one element after another:
// splitmix64 from seed * golden ^ stream, one draw per element (two for a
// complex one), as a reference independent of how the fill is split.
struct Reference {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double Signed() { return static_cast<double>(Next() >> 11) * 0x1p-52 - 1.0; }
};

Reference Start(uint64_t seed, uint64_t stream) {
  return Reference{seed * 0x9e3779b97f4a7c15ULL ^ stream};
}

// Long enough that the fill runs in parts on every core.
constexpr int64_t kLong = 300001;

TEST_CASE("random literals follow one sequence, however the fill is split", "[random_fill]") {
  SECTION("f32 and f64: uniform in [-1, 1), rounded to the type") {
    absl::StatusOr<Literal> f = RandomLiteral(Shape::Array(PrimitiveType::kF32, {kLong}), 3, 5);
    absl::StatusOr<Literal> d = RandomLiteral(Shape::Array(PrimitiveType::kF64, {kLong}), 3, 5);
    REQUIRE(f.ok());
    REQUIRE(d.ok());
    Reference rf = Start(3, 5), rd = Start(3, 5);
    int64_t wrong = 0;
    for (int64_t i = 0; i < kLong; ++i) {
      wrong += f->typed<float>()[i] != static_cast<float>(rf.Signed());
      wrong += d->typed<double>()[i] != rd.Signed();
    }
    CHECK(wrong == 0);
  }
  SECTION("integers: signed in [-10, 10), unsigned in [0, 10), pred from the top bit") {
    absl::StatusOr<Literal> s = RandomLiteral(Shape::Array(PrimitiveType::kS32, {kLong}), 9, 1);
    absl::StatusOr<Literal> u = RandomLiteral(Shape::Array(PrimitiveType::kU8, {kLong}), 9, 1);
    absl::StatusOr<Literal> p = RandomLiteral(Shape::Array(PrimitiveType::kPred, {kLong}), 9, 1);
    REQUIRE(s.ok());
    REQUIRE(u.ok());
    REQUIRE(p.ok());
    Reference rs = Start(9, 1), ru = Start(9, 1), rp = Start(9, 1);
    int64_t wrong = 0;
    for (int64_t i = 0; i < kLong; ++i) {
      wrong += s->typed<int32_t>()[i] != static_cast<int32_t>(rs.Next() % 20) - 10;
      wrong += u->typed<uint8_t>()[i] != ru.Next() % 10;
      wrong += p->data()[i] != (rp.Next() >> 63);
    }
    CHECK(wrong == 0);
  }
  SECTION("complex: two draws an element, real part first") {
    absl::StatusOr<Literal> c = RandomLiteral(Shape::Array(PrimitiveType::kC128, {1000}), 2, 4);
    REQUIRE(c.ok());
    Reference r = Start(2, 4);
    for (int64_t i = 0; i < 1000; ++i) {
      const double re = r.Signed(), im = r.Signed();
      REQUIRE(c->GetComplex(i) == std::complex<double>(re, im));
    }
  }
  SECTION("tuples take derived streams") {
    const Shape f3 = Shape::Array(PrimitiveType::kF32, {3});
    absl::StatusOr<Literal> t = RandomLiteral(Shape::Tuple({&f3, &f3}), 1, 2);
    absl::StatusOr<Literal> second = RandomLiteral(f3, 1, 2 * 31 + 2);
    REQUIRE(t.ok());
    REQUIRE(second.ok());
    CHECK(t->elements()[1] == *second);
    CHECK_FALSE(t->elements()[0] == *second);
  }
}

}  // namespace
}  // namespace hlo
