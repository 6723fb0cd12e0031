// The AVX2 exp, tanh, log and log1p (eval/interp/vector_math_avx2.h) against
// double libm: exp within 1 ulp on every 61st float of its range and on
// every float whose exp is subnormal (ExpTinyAvx2), tanh
// within 1 ulp on every 61st positive and negative float and every float
// around its seam (0.98 on every float), log within 0.9 ulp on every 97th positive normal float and
// every float of [0.5, 2], log1p likewise on (-1, inf) and around its worst cases, and the special
// values as libm gives them (±0 keep their sign, ±inf, NaN, subnormals; log's and log1p's through
// VecMath's scalar lanes).
#include "eval/interp/vector_math_avx2.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "eval/interp/elementwise_ops.h"

namespace hlo {
namespace elementwise {
namespace {

#if defined(__x86_64__)

bool HaveAvx2() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

// Error of `got` against `want` in units of want's float ulp (subnormal
// spacing below the normal range).
double UlpError(float got, double want) {
  if (std::isnan(want)) return std::isnan(got) ? 0 : 1e9;
  const int e = want == 0 ? -149 : std::max(std::ilogb(want), -126) - 23;
  return std::fabs(static_cast<double>(got) - want) / std::ldexp(1.0, e);
}

float Bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof(f));
  return f;
}

template <typename F>
__attribute__((target("avx2,fma"))) void Apply8(F f, const float* in, float* out) {
  _mm256_storeu_ps(out, f(_mm256_loadu_ps(in)));
}

// Worst error of f (one of the AVX2 functions) against ref over every
// `step`th float of [lo, hi] (both finite, same sign), eight at a time.
template <typename F, typename R>
double WorstUlp(F f, R ref, float lo, float hi, uint32_t step, float* at) {
  uint32_t a, b;
  std::memcpy(&a, &lo, 4);
  std::memcpy(&b, &hi, 4);
  if (a > b) std::swap(a, b);
  double worst = 0;
  float in[8], out[8];
  for (uint32_t bits = a; bits <= b && bits >= a;) {
    for (int k = 0; k < 8; ++k, bits += step) in[k] = Bits(bits <= b ? bits : b);
    Apply8(f, in, out);
    for (int k = 0; k < 8; ++k) {
      const double err = UlpError(out[k], ref(static_cast<double>(in[k])));
      if (err > worst) worst = err, *at = in[k];
    }
  }
  return worst;
}

TEST_CASE("AVX2 exp is within 1 ulp of libm on [-87, 87]", "[vector_math]") {
  if (!HaveAvx2()) return;
  auto ref = [](double x) { return std::exp(x); };
  float at = 0;
  const double neg = WorstUlp(ExpAvx2, ref, -0.0f, -kExpAvx2Range, 61, &at);
  INFO("negative: worst " << neg << " ulp at " << at);
  CHECK(neg <= 1.0);
  const double pos = WorstUlp(ExpAvx2, ref, 0.0f, kExpAvx2Range, 61, &at);
  INFO("positive: worst " << pos << " ulp at " << at);
  CHECK(pos <= 1.0);
}

// Every float of (kExpZeroAtOrBelow, -87), whose exp is subnormal or near
// it (0.86 ulp of the subnormals' spacing at worst).
TEST_CASE("AVX2 exp of the subnormal results' range is within 1 ulp of libm", "[vector_math]") {
  if (!HaveAvx2()) return;
  auto ref = [](double x) { return std::exp(x); };
  float at = 0;
  const float from = std::nextafter(kExpZeroAtOrBelow, 0.0f);
  const float to = std::nextafter(-kExpAvx2Range, -200.0f);
  const double worst = WorstUlp(ExpTinyAvx2, ref, from, to, 1, &at);
  INFO("worst " << worst << " ulp at " << at);
  CHECK(worst <= 1.0);
}

TEST_CASE("AVX2 tanh is within 1 ulp of libm everywhere", "[vector_math]") {
  if (!HaveAvx2()) return;
  auto ref = [](double x) { return std::tanh(x); };
  const float big = std::numeric_limits<float>::max();
  float at = 0;
  const double pos = WorstUlp(TanhAvx2, ref, 0.0f, big, 61, &at);
  INFO("positive: worst " << pos << " ulp at " << at);
  CHECK(pos <= 1.0);
  const double neg = WorstUlp(TanhAvx2, ref, -0.0f, -big, 61, &at);
  INFO("negative: worst " << neg << " ulp at " << at);
  CHECK(neg <= 1.0);
  // Every float around the switch between the polynomial and the quotient,
  // where the worst cases lie.
  const double seam = WorstUlp(TanhAvx2, ref, 0.9f, 1.1f, 1, &at);
  INFO("[0.9, 1.1]: worst " << seam << " ulp at " << at);
  CHECK(seam <= 1.0);
}

TEST_CASE("AVX2 tanh and exp keep libm's special values", "[vector_math]") {
  if (!HaveAvx2()) return;
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float in[8] = {0.0f, -0.0f, inf, -inf, nan, 1e-40f, -1e-40f, 20.0f};
  float out[8];
  Apply8(TanhAvx2, in, out);
  for (int k = 0; k < 8; ++k) {
    const float want = std::tanh(in[k]);
    INFO("tanh(" << in[k] << ") = " << out[k] << ", libm " << want);
    if (std::isnan(want)) {
      CHECK(std::isnan(out[k]));
    } else {
      CHECK(std::memcmp(&out[k], &want, sizeof(float)) == 0);
    }
  }
  const float ein[8] = {0.0f, -0.0f, 1.0f, -1.0f, 1e-40f, -1e-40f, kExpAvx2Range, -kExpAvx2Range};
  Apply8(ExpAvx2, ein, out);
  CHECK(out[0] == 1.0f);
  CHECK(out[1] == 1.0f);
  CHECK(out[4] == 1.0f);
  CHECK(out[5] == 1.0f);
  for (int k = 2; k < 8; ++k) CHECK(UlpError(out[k], std::exp(static_cast<double>(ein[k]))) <= 1);
}

TEST_CASE("AVX2 log is within 0.9 ulp of libm on positive normal floats", "[vector_math]") {
  if (!HaveAvx2()) return;
  auto ref = [](double x) { return std::log(x); };
  float at = 0;
  const double all = WorstUlp(LogAvx2, ref, std::numeric_limits<float>::min(),
                              std::numeric_limits<float>::max(), 97, &at);
  INFO("every 97th: worst " << all << " ulp at " << at);
  CHECK(all <= 0.9);
  // Every float where the result is smallest against the operand (near 1,
  // both sides of the reduction's sqrt(1/2) and sqrt(2) seams).
  const double near_one = WorstUlp(LogAvx2, ref, 0.5f, 2.0f, 1, &at);
  INFO("[0.5, 2]: worst " << near_one << " ulp at " << at);
  CHECK(near_one <= 0.9);
}

TEST_CASE("AVX2 log1p is within 0.9 ulp of libm on (-1, inf) past the subnormals",
          "[vector_math]") {
  if (!HaveAvx2()) return;
  auto ref = [](double x) { return std::log1p(x); };
  const float tiny = std::numeric_limits<float>::min();
  float at = 0;
  const double pos = WorstUlp(Log1pAvx2, ref, tiny, std::numeric_limits<float>::max(), 97, &at);
  INFO("positive, every 97th: worst " << pos << " ulp at " << at);
  CHECK(pos <= 0.9);
  const double neg = WorstUlp(Log1pAvx2, ref, -tiny, std::nextafter(-1.0f, 0.0f), 97, &at);
  INFO("negative, every 97th: worst " << neg << " ulp at " << at);
  CHECK(neg <= 0.9);
  // Every float where the worst cases lie (near 0.27 and -0.29, where 1 + x
  // nears the reduction's seam at sqrt(1/2) times a power of two).
  CHECK(WorstUlp(Log1pAvx2, ref, 0.25f, 0.3f, 1, &at) <= 0.9);
  CHECK(WorstUlp(Log1pAvx2, ref, -0.3f, -0.28f, 1, &at) <= 0.9);
}

// VecMath(op) on 21 lanes (a whole vector of special and usual lanes and a
// tail): where `special` holds for the input, libm's float result, bit for
// bit (NaN: any NaN); elsewhere within 0.9 ulp of libm's double result.
template <typename F, typename D, typename S>
void CheckVecMathLanes(Opcode op, const float (&in)[21], F libm_float, D libm_double, S special) {
  float out[21];
  if (!VecMath(op, in, out, 21)) return;  // no vector math here
  for (int k = 0; k < 21; ++k) {
    const float want = libm_float(in[k]);
    INFO("x = " << in[k] << ": " << out[k] << ", libm " << want);
    if (std::isnan(want)) {
      CHECK(std::isnan(out[k]));
    } else if (!std::isfinite(want) || special(in[k])) {
      CHECK(std::memcmp(&out[k], &want, sizeof(float)) == 0);
    } else {
      CHECK(UlpError(out[k], libm_double(static_cast<double>(in[k]))) <= 0.9);
    }
  }
}

const float kInf = std::numeric_limits<float>::infinity();
const float kNan = std::numeric_limits<float>::quiet_NaN();
const float kDenorm = std::numeric_limits<float>::denorm_min();
const float kTiny = std::numeric_limits<float>::min();

TEST_CASE("VecMath's f32 log1p answers every lane as libm does, or within 0.9 ulp",
          "[vector_math]") {
  const float in[21] = {0.0f,   -0.0f,   -1.0f,   -2.0f, kInf,   -kInf,   kNan,
                        1e-40f, kDenorm, 1.0f,    -0.5f, 1e-30f, 3e38f,   -0.999f,
                        7.0f,   0.1f,    -1e-40f, 1e10f, kNan,   -1e-20f, 0.0f};
  CheckVecMathLanes(
      Opcode::kLog1p, in, [](float x) { return std::log1p(x); },
      [](double x) { return std::log1p(x); }, [](float x) { return std::fabs(x) < kTiny; });
}

TEST_CASE("VecMath's f32 log1p gives NaNs, infinities and tiny lanes log1pf's bits",
          "[vector_math]") {
  // Whole vectors of them (and one usual lane), which the vector code
  // answers without libm: NaN payloads (one signalling), both zeros,
  // subnormals, +inf.
  const uint32_t bits[16] = {0x7fc12345u, 0xffc00001u, 0x7f800000u, 0x00000000u,
                             0x80000000u, 0x00000001u, 0x807fffffu, 0x00400000u,
                             0x7f812345u, 0x80000001u, 0x3e800000u, 0x7fc00000u,
                             0x00012345u, 0x80654321u, 0xffffffffu, 0x00000000u};
  float in[16], out[16];
  std::memcpy(in, bits, sizeof(in));
  if (!VecMath(Opcode::kLog1p, in, out, 16)) return;  // no vector math here
  for (int k = 0; k < 16; ++k) {
    const float want = std::log1p(in[k]);
    uint32_t got_bits, want_bits;
    std::memcpy(&got_bits, &out[k], 4);
    std::memcpy(&want_bits, &want, 4);
    INFO("lane " << k << " x bits " << std::hex << bits[k] << ": " << got_bits << ", libm "
                 << want_bits);
    if (k == 10) {
      CHECK(UlpError(out[k], std::log1p(static_cast<double>(in[k]))) <= 0.9);
    } else {
      CHECK(got_bits == want_bits);
    }
  }
}

TEST_CASE("VecMath's f32 log answers every lane as libm does, or within 0.9 ulp", "[vector_math]") {
  const float in[21] = {0.0f,   -0.0f,   1.0f,    -1.0f, kInf,   -kInf, kNan,
                        1e-40f, kDenorm, 2.0f,    0.5f,  1e-30f, 3e38f, 1.17549435e-38f,
                        7.0f,   0.1f,    -1e-40f, 1e10f, kNan,   1.5f,  0.0f};
  CheckVecMathLanes(
      Opcode::kLog, in, [](float x) { return std::log(x); }, [](double x) { return std::log(x); },
      [](float x) { return x < kTiny; });
}

TEST_CASE("VecMath's f32 log gives logf's bits off the positive normals, flushing or not",
          "[vector_math]") {
  // Negatives (logf's invalid operation: x86's default NaN), zeros (-inf),
  // infinities and subnormals at every lane of two vectors and a tail,
  // beside usual lanes; under DAZ/FTZ too, where a negative subnormal reads
  // as -0 in arithmetic but logf tests its bits (NaN, not -inf).
  const float kinds[] = {-1.0f,  -1e-40f, -0.0f,  0.0f, -kInf, kInf,
                         -3e38f, -kTiny,  1e-40f, 2.0f, 0.5f};
  constexpr int kN = 37;
  float in[kN], out[kN];
  for (int k = 0; k < kN; ++k) in[k] = kinds[k % std::size(kinds)];
  for (bool flush : {false, true}) {
    INFO("flush " << flush);
    const unsigned saved = _mm_getcsr();
    if (flush) _mm_setcsr(saved | 0x8040);  // FTZ and DAZ
    const bool vectorised = VecMath(Opcode::kLog, in, out, kN);
    float want[kN];
    for (int k = 0; k < kN; ++k) want[k] = std::log(in[k]);
    _mm_setcsr(saved);
    if (!vectorised) return;  // no vector math here
    for (int k = 0; k < kN; ++k) {
      INFO("lane " << k << " x = " << in[k] << ": " << out[k] << ", logf " << want[k]);
      if (in[k] == 2.0f || in[k] == 0.5f) continue;  // positive normals: the 0.9 ulp tests
      CHECK(std::memcmp(&out[k], &want[k], sizeof(float)) == 0);
    }
  }
}

TEST_CASE("VecMath's f64 log gives log's bits off the positive values, flushing or not",
          "[vector_math]") {
  // As the f32 test above, for libmvec's double log with the special lanes
  // answered apart (LogCheckedD8, LogCheckedD4): negatives, zeros,
  // infinities, NaNs of both signs (quietened, payload kept) and
  // subnormals at every lane of two vectors and a tail, at AVX-512's and
  // AVX2's levels.
  const double kinds[] = {-1.0,
                          -1e-310,
                          -0.0,
                          0.0,
                          -HUGE_VAL,
                          HUGE_VAL,
                          -1e308,
                          -std::numeric_limits<double>::min(),
                          1e-310,
                          2.0,
                          std::numeric_limits<double>::quiet_NaN(),
                          -std::numeric_limits<double>::quiet_NaN(),
                          std::numeric_limits<double>::signaling_NaN(),
                          0.5};
  constexpr int kN = 37;
  double in[kN], out[kN];
  for (int k = 0; k < kN; ++k) in[k] = kinds[k % std::size(kinds)];
  for (int level : {2, 1}) {
    SetVecLevelCap(level);
    for (bool flush : {false, true}) {
      INFO("level " << level << " flush " << flush);
      const unsigned saved = _mm_getcsr();
      if (flush) _mm_setcsr(saved | 0x8040);  // FTZ and DAZ
      const bool vectorised = VecMath(Opcode::kLog, in, out, kN);
      double want[kN];
      for (int k = 0; k < kN; ++k) want[k] = std::log(in[k]);
      _mm_setcsr(saved);
      if (!vectorised) continue;  // no vector math at this level here
      for (int k = 0; k < kN; ++k) {
        INFO("lane " << k << " x = " << in[k] << ": " << out[k] << ", log " << want[k]);
        if (in[k] == 2.0 || in[k] == 0.5) continue;  // positive normals: libmvec's ulps
        if (in[k] == 1e-310) continue;               // positive subnormals: libmvec's own
        CHECK(std::memcmp(&out[k], &want[k], sizeof(double)) == 0);
      }
    }
  }
  SetVecLevelCap(2);
}

#endif  // __x86_64__

}  // namespace
}  // namespace elementwise
}  // namespace hlo
