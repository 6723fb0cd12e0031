// The one-dimensional FFT (eval/kernels/fft_plan.h) on awkward lengths, against a
// direct O(n^2) DFT X[k] = sum_j x[j] exp(sign 2 pi i jk/n) evaluated in
// long double with angles reduced exactly (jk mod n), from the definition.
#include "eval/kernels/fft_plan.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <vector>

namespace hlo {
namespace {

// A deterministic pseudo-random input in [-1, 1).
template <typename R>
std::vector<Cx<R>> Input(int64_t n, uint64_t seed) {
  std::vector<Cx<R>> x(n);
  uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  auto next = [&s] {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<long double>(s >> 11) / static_cast<long double>(1ULL << 53) * 2 - 1;
  };
  for (auto& v : x) v = {static_cast<R>(next()), static_cast<R>(next())};
  return x;
}

template <typename R>
std::vector<Cx<long double>> DirectDft(const std::vector<Cx<R>>& x, int sign) {
  const int64_t n = static_cast<int64_t>(x.size());
  const long double two_pi = 6.283185307179586476925286766559005768L;
  std::vector<Cx<long double>> out(n);
  for (int64_t k = 0; k < n; ++k) {
    long double re = 0, im = 0;
    for (int64_t j = 0; j < n; ++j) {
      const long double a = sign * two_pi * static_cast<long double>((j * k) % n) / n;
      const long double c = std::cos(a), s = std::sin(a);
      re += x[j].re * c - x[j].im * s;
      im += x[j].re * s + x[j].im * c;
    }
    out[k] = {re, im};
  }
  return out;
}

// Largest |fft - dft| relative to the largest |dft|.
template <typename R>
long double RelativeError(int64_t n, int sign) {
  std::vector<Cx<R>> x = Input<R>(n, static_cast<uint64_t>(n) * 2 + (sign > 0));
  std::vector<Cx<long double>> want = DirectDft(x, sign);
  FftPlan<R> plan(n, sign);
  plan.Run(x.data());
  long double err = 0, norm = 0;
  for (int64_t k = 0; k < n; ++k) {
    err = std::max(err, std::hypot(x[k].re - want[k].re, x[k].im - want[k].im));
    norm = std::max(norm, std::hypot(want[k].re, want[k].im));
  }
  return norm == 0 ? err : err / norm;
}

const int64_t kLengths[] = {1, 2, 3, 4, 5, 7, 8, 12, 16, 60, 97, 128, 210, 1000, 1024, 1031};

TEST_CASE("FftPlan<double> matches the direct DFT on awkward lengths", "[fft]") {
  for (int64_t n : kLengths) {
    for (int sign : {-1, 1}) {
      INFO("n=" << n << " sign=" << sign);
      CHECK(RelativeError<double>(n, sign) < 1e-14L);
    }
  }
}

TEST_CASE("FftPlan<long double> matches the direct DFT on awkward lengths", "[fft]") {
  for (int64_t n : kLengths) {
    for (int sign : {-1, 1}) {
      INFO("n=" << n << " sign=" << sign);
      CHECK(RelativeError<long double>(n, sign) < 1e-17L);
    }
  }
}

TEST_CASE("FftPlan uses Bluestein for large prime factors", "[fft]") {
  // 97 and 1031 are prime above kMaxDirectPrime; 2 * 67 has one too.
  STATIC_REQUIRE(FftPlan<double>::kMaxDirectPrime < 67);
  CHECK(RelativeError<double>(134, -1) < 1e-14L);
  CHECK(RelativeError<double>(61, -1) < 1e-14L);  // the largest direct prime
}

TEST_CASE("FftPlan: the transform of a unit impulse is all ones", "[fft]") {
  for (int64_t n : {1, 3, 7, 97, 1000}) {
    std::vector<Cx<double>> x(n);
    x[0] = {1, 0};
    FftPlan<double> plan(n, -1);
    plan.Run(x.data());
    for (int64_t k = 0; k < n; ++k) {
      INFO("n=" << n << " k=" << k);
      CHECK(std::abs(x[k].re - 1) < 1e-15);
      CHECK(std::abs(x[k].im) < 1e-15);
    }
  }
}

TEST_CASE("Twiddle: quarter turns are exact", "[fft]") {
  CHECK(Twiddle<double>(0, 8, -1).re == 1.0);
  CHECK(Twiddle<double>(0, 8, -1).im == 0.0);
  CHECK(Twiddle<double>(2, 8, -1).re == 0.0);
  CHECK(Twiddle<double>(2, 8, -1).im == -1.0);
  CHECK(Twiddle<double>(4, 8, 1).re == -1.0);
  CHECK(Twiddle<double>(4, 8, 1).im == 0.0);
  CHECK(Twiddle<double>(6, 8, 1).im == -1.0);
  CHECK(Twiddle<double>(1, 8, 1).re == Twiddle<double>(1, 8, 1).im);
}

}  // namespace
}  // namespace hlo
