// f32 and f64 remainder over arrays (eval/interp/float_remainder.h)
// against C's fmodf and fmod, which are exact (the spec's remainder:
// x - trunc(x / y) * y, the dividend's sign): bit for bit on random
// patterns of every exponent,
// dividends one place either side of a multiple of the divisor, and ones
// whose f64 quotient rounds up across an integer, signed zeros, subnormals,
// infinities and NaNs, quotients past 2^30, and with MXCSR's FTZ and DAZ
// set as --denormals=flush sets them.
#include "eval/interp/float_remainder.h"

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace hlo {
namespace {

struct Pairs {
  std::vector<float> x, y;
  void Add(float a, float b) {
    x.push_back(a);
    y.push_back(b);
  }
};

Pairs RemainderCases() {
  Pairs p;
  std::mt19937_64 rng(7);
  // Random bit patterns: every exponent, NaNs, infinities and subnormals.
  for (int i = 0; i < 20000; ++i) {
    p.Add(std::bit_cast<float>(static_cast<uint32_t>(rng())),
          std::bit_cast<float>(static_cast<uint32_t>(rng())));
  }
  // Quotients from 1 to 2^31 at random: a multiple of y, one place either
  // side of it, and the same with the signs flipped.
  std::uniform_real_distribution<float> unit(1.0f, 2.0f);
  for (int i = 0; i < 20000; ++i) {
    const float y = std::ldexp(unit(rng), static_cast<int>(rng() % 60) - 30);
    const float k = std::floor(std::ldexp(unit(rng), static_cast<int>(rng() % 31)));
    const float x = k * y;
    for (float v : {x, std::nextafter(x, 0.0f), std::nextafter(x, 2 * x)}) {
      p.Add(v, y);
      p.Add(-v, y);
      p.Add(v, -y);
      p.Add(-v, -y);
    }
  }
  // x = k y - 1 for an odd integer y near 2^23 and k in [2^30, 2^31) with
  // k y = 1 (mod 2^30), so that x is an f32: x / y lies 1/y below k, less
  // than half of f64's last place there, so an f64 quotient rounds up to
  // k and x - k y = -1, where fmod gives y - 1.
  for (uint64_t y = (1u << 23) + 1; y < (1u << 23) + 4000; y += 2) {
    uint64_t inverse = y;  // y * inverse = 1 (mod 2^30), by Newton's steps
    for (int i = 0; i < 5; ++i) inverse *= 2 - y * inverse;
    const uint64_t k = (uint64_t{1} << 30) + (inverse & ((uint64_t{1} << 30) - 1));
    const uint64_t x = k * y - 1;
    if (x >= (uint64_t{1} << 54) || static_cast<uint64_t>(static_cast<float>(x)) != x) continue;
    p.Add(static_cast<float>(x), static_cast<float>(y));
    p.Add(-static_cast<float>(x), static_cast<float>(y));
  }
  // Ordinary magnitudes (what a model's tensors hold).
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (int i = 0; i < 20000; ++i) p.Add(normal(rng), normal(rng));
  const float inf = INFINITY, nan = NAN, tiny = 0x1p-140f, least = 0x1p-126f;
  for (float a : {0.0f, -0.0f, 1.0f, -7.5f, tiny, -tiny, least, 3 * least, inf, -inf, nan, 0x1p100f,
                  0x1.fffffep127f}) {
    for (float b : {0.0f, -0.0f, 1.0f, -3.0f, tiny, least, 0.75f * least, 2 * least, inf, -inf, nan,
                    0x1p-100f, 0x1.fffffep127f}) {
      p.Add(a, b);
    }
  }
  p.Add(-6.0f, 3.0f);  // -0
  p.Add(6.0f, -3.0f);  // +0
  return p;
}

void CheckAgainstFmod(const Pairs& p, const std::vector<float>& got) {
  int64_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const float want = std::fmod(p.x[i], p.y[i]);
    const bool same = std::isnan(want)
                          ? std::isnan(got[i])
                          : std::bit_cast<uint32_t>(got[i]) == std::bit_cast<uint32_t>(want);
    if (!same && wrong++ < 5) {
      INFO("fmod(" << p.x[i] << ", " << p.y[i] << ") = " << want << ", got " << got[i]);
      CHECK(same);
    }
  }
  CHECK(wrong == 0);
}

TEST_CASE("f32 remainder over arrays gives fmodf's bits", "[float_remainder]") {
  const Pairs p = RemainderCases();
  // From the second element: the eight-lane steps end in a tail.
  const int64_t n = static_cast<int64_t>(p.x.size()) - 1;
  Pairs shifted{{p.x.begin() + 1, p.x.end()}, {p.y.begin() + 1, p.y.end()}};
  std::vector<float> got(n);
  RemainderFloats(p.x.data() + 1, p.y.data() + 1, got.data(), n);
  CheckAgainstFmod(shifted, got);
  std::vector<float> avx512(n);
  const bool ran = float_remainder_internal::RemainderFloatsAvx512(p.x.data() + 1, p.y.data() + 1,
                                                                   avx512.data(), n);
  CHECK(ran == float_remainder_internal::UsesAvx512());
  if (ran) {
    CheckAgainstFmod(shifted, avx512);
  } else {
    WARN("no AVX-512 here: only the fmodf loop is tested");
  }
#if defined(__x86_64__)
  // Under FTZ and DAZ fmodf keeps its exact result (it works on the bits),
  // and so must the f64 lanes.
  const unsigned csr = _mm_getcsr();
  _mm_setcsr(csr | 0x8040);
  std::vector<float> flushed(n);
  RemainderFloats(p.x.data() + 1, p.y.data() + 1, flushed.data(), n);
  std::vector<float> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = std::fmod(shifted.x[i], shifted.y[i]);
  _mm_setcsr(csr);
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) {
    const bool same = std::isnan(want[i])
                          ? std::isnan(flushed[i])
                          : std::bit_cast<uint32_t>(flushed[i]) == std::bit_cast<uint32_t>(want[i]);
    if (!same && wrong++ < 5) {
      INFO("flushing: fmod(" << shifted.x[i] << ", " << shifted.y[i] << ") = " << want[i]
                             << ", got " << flushed[i]);
      CHECK(same);
    }
  }
  CHECK(wrong == 0);
#endif
}

// f64's cases: random patterns, near-multiples at quotients up to 2^60
// (where the f64 quotient often rounds up across an integer, so the fma's
// remainder comes out one divisor past, the other sign than x's), the
// edges of the bounds (|y| at 2^-968 and below, results near 2^-1022),
// zeros, subnormals, infinities and NaNs; with FTZ and DAZ too.
TEST_CASE("f64 remainder over arrays gives fmod's bits", "[float_remainder]") {
  std::vector<double> x, y;
  std::mt19937_64 rng(9);
  for (int i = 0; i < 20000; ++i) {
    x.push_back(std::bit_cast<double>(rng()));
    y.push_back(std::bit_cast<double>(rng()));
  }
  std::uniform_real_distribution<double> unit(1.0, 2.0);
  for (int i = 0; i < 20000; ++i) {
    const double d = std::ldexp(unit(rng), static_cast<int>(rng() % 200) - 100);
    const double k = std::floor(std::ldexp(unit(rng), static_cast<int>(rng() % 60)));
    const double m = k * d;
    for (double v : {m, std::nextafter(m, 0.0), std::nextafter(m, 2 * m)}) {
      for (double sx : {1.0, -1.0}) {
        for (double sy : {1.0, -1.0}) {
          x.push_back(sx * v);
          y.push_back(sy * d);
        }
      }
    }
  }
  std::normal_distribution<double> normal(0.0, 3.0);
  for (int i = 0; i < 20000; ++i) {
    x.push_back(normal(rng));
    y.push_back(normal(rng));
  }
  const double inf = INFINITY, nan = NAN, least = 0x1p-1022, tiny = 0x1p-1060;
  for (double a : {0.0, -0.0, 1.0, -7.5, tiny, least, 3 * least, 0x1.8p-968, 0x1p-967, inf, -inf,
                   nan, 0x1p600, 0x1.fffffffffffffp1023}) {
    for (double b : {0.0, -0.0, 1.0, -3.0, tiny, least, 0x1p-968, 0x1.8p-969, 0x1p-969, inf, nan,
                     0x1p-600, 0x1.fffffffffffffp1023}) {
      x.push_back(a);
      y.push_back(b);
    }
  }
  const int64_t n = static_cast<int64_t>(x.size()) - 1;
  auto same = [](double got, double want) {
    return std::isnan(want) ? std::isnan(got)
                            : std::bit_cast<uint64_t>(got) == std::bit_cast<uint64_t>(want);
  };
  auto check = [&](const std::vector<double>& got, const std::vector<double>& want) {
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (!same(got[i], want[i]) && wrong++ < 5) {
        INFO("fmod(" << x[i + 1] << ", " << y[i + 1] << ") = " << want[i] << ", got " << got[i]);
        CHECK(same(got[i], want[i]));
      }
    }
    CHECK(wrong == 0);
  };
  // From the second element: the eight-lane steps end in a tail.
  std::vector<double> want(n), got(n);
  for (int64_t i = 0; i < n; ++i) want[i] = std::fmod(x[i + 1], y[i + 1]);
  RemainderDoubles(x.data() + 1, y.data() + 1, got.data(), n);
  check(got, want);
  if (!float_remainder_internal::RemainderDoublesAvx512(x.data() + 1, y.data() + 1, got.data(),
                                                        n)) {
    WARN("no AVX-512 here: only the fmod loop is tested");
  }
  check(got, want);
#if defined(__x86_64__)
  const unsigned csr = _mm_getcsr();
  _mm_setcsr(csr | 0x8040);
  RemainderDoubles(x.data() + 1, y.data() + 1, got.data(), n);
  for (int64_t i = 0; i < n; ++i) want[i] = std::fmod(x[i + 1], y[i + 1]);
  _mm_setcsr(csr);
  check(got, want);
#endif
}

}  // namespace
}  // namespace hlo
