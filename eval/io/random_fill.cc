#include "eval/io/random_fill.h"

#include "ir/strings.h"

namespace hlo {
namespace {

// splitmix64: small, fast, and good enough for test inputs.
struct SplitMix64 {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [-1, 1) with 53 random bits.
  double NextSigned() { return static_cast<double>(Next() >> 11) * 0x1p-52 - 1.0; }
};

}  // namespace

uint64_t StreamId(std::string_view name) { return Fnv1a(name); }

absl::StatusOr<Literal> RandomLiteral(const Shape& shape, uint64_t seed, uint64_t stream) {
  if (shape.IsTuple()) {
    std::vector<Literal> elems;
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      auto e = RandomLiteral(shape.tuple_shape(i), seed, stream * 31 + i + 1);
      if (!e.ok()) return e.status();
      elems.push_back(*std::move(e));
    }
    return Literal::Tuple(std::move(elems));
  }
  auto lit = Literal::Create(shape);
  if (!lit.ok() || !shape.IsArray()) return lit;
  SplitMix64 rng{seed * 0x9e3779b97f4a7c15ULL ^ stream};
  PrimitiveType t = shape.element_type();
  int64_t n = lit->element_count();
  for (int64_t i = 0; i < n; ++i) {
    if (t == PrimitiveType::kPred) {
      lit->SetInt(i, static_cast<int64_t>(rng.Next() >> 63));
    } else if (IsSignedInt(t)) {
      // Sub-byte types wrap into their own range.
      lit->SetInt(i, static_cast<int64_t>(rng.Next() % 20) - 10);
    } else if (IsUnsignedInt(t)) {
      lit->SetInt(i, static_cast<int64_t>(rng.Next() % 10));
    } else if (IsComplex(t)) {
      double re = rng.NextSigned();
      lit->SetComplex(i, {re, rng.NextSigned()});
    } else {
      lit->SetDouble(i, rng.NextSigned());
    }
  }
  return lit;
}

}  // namespace hlo
