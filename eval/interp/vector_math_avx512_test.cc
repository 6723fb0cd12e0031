// The AVX-512 exp, log and log1p (eval/interp/vector_math_avx512.h) give
// the AVX2 ones' bits (and so their accuracy, vector_math_avx2_test.cc) on
// every 61st float of exp's [-87, 87], of the positive normal floats, and of
// log1p's (-1, inf), sixteen lanes against two times eight.
#include "eval/interp/vector_math_avx512.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>

namespace hlo {
namespace elementwise {
namespace {

#if defined(__x86_64__)

// One vector of f at in to out.
template <__m512 (*F)(__m512)>
__attribute__((target("avx512f"))) void Apply16(const float* in, float* out) {
  _mm512_storeu_ps(out, F(_mm512_loadu_ps(in)));
}
template <__m256 (*F)(__m256)>
__attribute__((target("avx2,fma"))) void Apply8(const float* in, float* out) {
  _mm256_storeu_ps(out, F(_mm256_loadu_ps(in)));
}

using Fn = void (*)(const float*, float*);
// Every `step`th float from 0 to `end` (exclusive; a float's bits, so the
// sign comes with it): the first lane whose bits differ, or none.
bool SameBits(Fn wide16, Fn narrow8, uint32_t begin, uint32_t end, uint32_t step, float* at) {
  float in[16], wide[16], narrow[16];
  for (uint32_t bits = begin; bits < end;) {
    for (int k = 0; k < 16; ++k, bits += step) {
      const uint32_t b = bits < end ? bits : end - 1;
      std::memcpy(&in[k], &b, sizeof(float));
    }
    wide16(in, wide);
    narrow8(in, narrow);
    narrow8(in + 8, narrow + 8);
    for (int k = 0; k < 16; ++k) {
      if (std::memcmp(&wide[k], &narrow[k], sizeof(float)) != 0) {
        *at = in[k];
        return false;
      }
    }
  }
  return true;
}

// Whether both the AVX-512 and the AVX2 functions run here (a warning
// when not).
bool BothRun() {
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") &&
      __builtin_cpu_supports("fma")) {
    return true;
  }
  WARN("no AVX-512 here: not run");
  return false;
}

void CheckSameBits(Fn wide16, Fn narrow8, uint32_t begin, uint32_t end, const char* what) {
  float at = 0;
  const bool same = SameBits(wide16, narrow8, begin, end, 61, &at);
  INFO(what << ": first difference at " << at);
  CHECK(same);
}

TEST_CASE("AVX-512 exp gives the AVX2 exp's bits on [-87, 87]", "[vector_math]") {
  if (!BothRun()) return;
  uint32_t range;
  std::memcpy(&range, &kExpAvx2Range, sizeof(range));
  CheckSameBits(Apply16<ExpAvx512>, Apply8<ExpAvx2>, 0, range + 1, "+0 to 87");
  CheckSameBits(Apply16<ExpAvx512>, Apply8<ExpAvx2>, 0x80000000u, range + 0x80000001u, "-0 to -87");
}

TEST_CASE("AVX-512 exp of subnormal results gives the AVX2 one's bits", "[vector_math]") {
  if (!BothRun()) return;
  uint32_t from, to;
  std::memcpy(&from, &kExpAvx2Range, sizeof(from));
  std::memcpy(&to, &kExpZeroAtOrBelow, sizeof(to));
  float at = 0;
  const bool same =
      SameBits(Apply16<ExpTinyAvx512>, Apply8<ExpTinyAvx2>, from + 0x80000001u, to, 1, &at);
  INFO("first difference at " << at);
  CHECK(same);
}

TEST_CASE("AVX-512 log gives the AVX2 log's bits on positive normal floats", "[vector_math]") {
  if (!BothRun()) return;
  CheckSameBits(Apply16<LogAvx512>, Apply8<LogAvx2>, 0x00800000u, 0x7f800000u, "positive normal");
}

TEST_CASE("AVX-512 log1p gives the AVX2 log1p's bits on (-1, inf)", "[vector_math]") {
  if (!BothRun()) return;
  CheckSameBits(Apply16<Log1pAvx512>, Apply8<Log1pAvx2>, 0x00800000u, 0x7f800000u,
                "positive normal");
  CheckSameBits(Apply16<Log1pAvx512>, Apply8<Log1pAvx2>, 0x80800000u, 0xbf800000u,
                "negative normal to -1");
}

#endif  // __x86_64__

}  // namespace
}  // namespace elementwise
}  // namespace hlo
