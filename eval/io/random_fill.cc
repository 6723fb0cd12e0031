#include "eval/io/random_fill.h"

#include <type_traits>

#include "eval/runtime/parallel.h"
#include "ir/strings.h"

namespace hlo {
namespace {

constexpr uint64_t kGamma = 0x9e3779b97f4a7c15ULL;

// splitmix64: small, fast, and good enough for test inputs. Its state moves
// by kGamma a draw, so the generator as it stands before any draw is known
// at once: a stretch of elements can be filled on its own, with the bits
// one loop over all of them gives.
struct SplitMix64 {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += kGamma);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [-1, 1) with 53 random bits.
  double NextSigned() { return static_cast<double>(Next() >> 11) * 0x1p-52 - 1.0; }
};

// Elements a core fills at least (a few microseconds of draws).
constexpr int64_t kMinParallelElements = int64_t{1} << 16;

// out[i] = draw(rng) for i in [0, n), each element taking one draw, on
// every core.
template <typename T, typename Draw>
void FillOneDrawEach(T* out, int64_t n, uint64_t start, Draw draw) {
  ParallelRows(n, kMinParallelElements, [&](int64_t lo, int64_t hi) {
    SplitMix64 rng{start + static_cast<uint64_t>(lo) * kGamma};
    for (int64_t i = lo; i < hi; ++i) out[i] = draw(rng);
  });
}

template <typename T>
void FillSignedInts(Literal& lit, uint64_t start) {
  FillOneDrawEach(lit.typed<T>(), lit.element_count(), start, [](SplitMix64& rng) {
    return static_cast<T>(static_cast<int64_t>(rng.Next() % 20) - 10);
  });
}

template <typename T>
void FillUnsignedInts(Literal& lit, uint64_t start) {
  FillOneDrawEach(lit.typed<T>(), lit.element_count(), start,
                  [](SplitMix64& rng) { return static_cast<T>(rng.Next() % 10); });
}

// The element types with a loop of their own; false for the rest.
bool FillTyped(Literal& lit, uint64_t start) {
  switch (lit.element_type()) {
    case PrimitiveType::kF32:
      FillOneDrawEach(lit.typed<float>(), lit.element_count(), start,
                      [](SplitMix64& rng) { return static_cast<float>(rng.NextSigned()); });
      return true;
    case PrimitiveType::kF64:
      FillOneDrawEach(lit.typed<double>(), lit.element_count(), start,
                      [](SplitMix64& rng) { return rng.NextSigned(); });
      return true;
    case PrimitiveType::kPred:
      FillOneDrawEach(lit.data(), lit.element_count(), start,
                      [](SplitMix64& rng) { return static_cast<uint8_t>(rng.Next() >> 63); });
      return true;
    case PrimitiveType::kS8:
      FillSignedInts<int8_t>(lit, start);
      return true;
    case PrimitiveType::kS16:
      FillSignedInts<int16_t>(lit, start);
      return true;
    case PrimitiveType::kS32:
      FillSignedInts<int32_t>(lit, start);
      return true;
    case PrimitiveType::kS64:
      FillSignedInts<int64_t>(lit, start);
      return true;
    case PrimitiveType::kU8:
      FillUnsignedInts<uint8_t>(lit, start);
      return true;
    case PrimitiveType::kU16:
      FillUnsignedInts<uint16_t>(lit, start);
      return true;
    case PrimitiveType::kU32:
      FillUnsignedInts<uint32_t>(lit, start);
      return true;
    case PrimitiveType::kU64:
      FillUnsignedInts<uint64_t>(lit, start);
      return true;
    default:
      return false;
  }
}

// Sub-byte integers, narrow floats and complex numbers, an element at a
// time through the literal's setters (which round and wrap per type).
void FillGeneric(Literal& lit, uint64_t start) {
  SplitMix64 rng{start};
  const PrimitiveType t = lit.element_type();
  const int64_t n = lit.element_count();
  if (IsComplex(t)) {
    for (int64_t i = 0; i < n; ++i) {
      const double re = rng.NextSigned();
      lit.SetComplex(i, {re, rng.NextSigned()});
    }
  } else if (IsSignedInt(t)) {
    // Sub-byte types wrap into their own range.
    for (int64_t i = 0; i < n; ++i) lit.SetInt(i, static_cast<int64_t>(rng.Next() % 20) - 10);
  } else if (IsUnsignedInt(t)) {
    for (int64_t i = 0; i < n; ++i) lit.SetInt(i, static_cast<int64_t>(rng.Next() % 10));
  } else {
    for (int64_t i = 0; i < n; ++i) lit.SetDouble(i, rng.NextSigned());
  }
}

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
  if (!shape.IsArray()) return Literal::Create(shape);
  // Every element is written below (sub-byte setters included), so the
  // storage need not be zeroed first.
  auto lit = Literal::CreateUninitialized(shape);
  if (!lit.ok()) return lit;
  const uint64_t start = seed * kGamma ^ stream;
  if (!FillTyped(*lit, start)) FillGeneric(*lit, start);
  return lit;
}

}  // namespace hlo
